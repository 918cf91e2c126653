"""`diavolo players`: each player's reading figures with intervals, and its one-line refusals."""

from __future__ import annotations

import csv
import io
import json

from helpers.cli import REPO

from diavolo_stats.analytics.player_figures import player_figures
from diavolo_stats.analytics.synthetic import write_synthetic_log
from diavolo_stats.cli import main
from diavolo_stats.stats import MIN_FIT_ANSWERS

SAMPLE = REPO / "data" / "sample_drills.csv"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as stop:  # the parser refuses a flag's value by exiting, as argparse does
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_every_player_gets_every_figure_with_an_interval_around_it_and_the_answers_behind_it(capsys):
    status, out, _ = run(capsys, "players", "--log", str(SAMPLE), "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert [p["player"] for p in document["players"]] == ["synthetic-novice", "synthetic-average", "synthetic-expert"]
    for player in document["players"]:
        figures = {f["figure"]: f for f in player["figures"]}
        assert {"time highest-total", "accuracy closest", "per extra die", "near tie highest-total", "grey",
                "accuracy on grey", "command first"} <= set(figures)
        for figure in player["figures"]:
            low, high = figure["interval"]
            assert low <= figure["value"] <= high, figure
        # Each answer is on one command: the per-command figures rest on all of the player's answers.
        assert sum(figures[f"time {c}"]["answers"] for c in ("highest-total", "lowest-total", "largest-spread",
                                                             "most-odd", "highest-die", "closest")) == player["answers"]
        # The sample drills the dice first only and the box only: those figures rest on no answer of theirs.
        assert figures["command first"]["answers"] == 0 and figures["per extra die"]["answers"] == 0
    # The slower player is slower on every command.
    novice, expert = (dict((f["figure"], f["value"]) for f in p["figures"]) for p in document["players"][::2])
    assert all(novice[f"time {c}"] > expert[f"time {c}"] for c in ("highest-total", "closest"))


def test_the_table_names_each_player_and_a_roll_beyond_the_log_is_said_to_be_extrapolated(capsys):
    status, out, _ = run(capsys, "players", "--log", str(SAMPLE), "--player", "synthetic-expert", "--dice", "48")
    assert status == 0
    assert "synthetic-expert: 360 answers" in out
    assert "per extra die" in out
    assert "Extrapolated: 48 dice is 39 more than any roll of the log (9)" in " ".join(out.split())
    assert max(len(line) for line in out.splitlines()) <= 80
    figures = player_figures(SAMPLE, players=["synthetic-expert"], dice=48)
    assert figures.extrapolated_dice == 39 and figures.document()["extrapolated_dice"] == 39
    within = player_figures(SAMPLE, players=["synthetic-expert"])
    assert within.extrapolated_dice == 0 and "Extrapolated" not in within.text()
    # More dice, more time on every command.
    slow = {f.figure: f.estimate.value for f in figures.figures}
    fast = {f.figure: f.estimate.value for f in within.figures}
    assert slow["time highest-total"] > fast["time highest-total"]


def test_csv_has_one_row_per_player_and_figure(capsys):
    status, out, _ = run(capsys, "players", "--log", str(SAMPLE), "--format", "csv")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["player", "figure", "value", "low", "high", "unit", "answers", "dice", "extrapolated_dice"]
    assert len(rows) == 3 * len([r for r in rows if r["player"] == "synthetic-expert"])
    assert {(r["dice"], r["extrapolated_dice"]) for r in rows} == {("9", "0")}
    assert all(float(r["low"]) <= float(r["value"]) <= float(r["high"]) for r in rows)


def test_bad_input_gets_one_line_and_exit_status_2(capsys, tmp_path):
    short = tmp_path / "short.csv"
    write_synthetic_log(short, ["preset:average"], sessions=1, trials=12, seed=1)
    foreign = tmp_path / "other.csv"
    foreign.write_text("name,score\nann,3\n", encoding="utf-8")
    cases = [
        (("--log", str(SAMPLE), "--player", "nobody"), "--player: 'nobody' is not a player of the drill log"),
        (("--log", str(short)), "--log: no player of the drill log has the 30 answers a fit needs (most: 12)"),
        (("--log", str(foreign)), "other.csv: line 1: not a drill log"),
        (("--log", str(tmp_path / "missing.csv")), "no such drill log"),
        (("--log", str(SAMPLE), "--dice", "1"), "--dice"),
    ]
    for argv, fragment in cases:
        status, out, err = run(capsys, "players", *argv)
        assert status == 2, (argv, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("diavolo: error:") and fragment in lines[0], (argv, err)


def test_a_named_player_with_too_few_answers_is_told_how_many_are_needed(tmp_path, capsys):
    both = tmp_path / "both.csv"
    write_synthetic_log(both, ["preset:average"], sessions=1, trials=12, seed=1)
    text = both.read_text(encoding="utf-8")
    sample = SAMPLE.read_text(encoding="utf-8").split("\n", 1)[1]
    both.write_text(text.replace("synthetic-average", "synthetic-brief") + sample, encoding="utf-8")
    status, _, err = run(capsys, "players", "--log", str(both), "--player", "synthetic-brief")
    assert status == 2
    assert f"'synthetic-brief' has 12 answers in the drill log; a fit needs at least {MIN_FIT_ANSWERS}" in err



def test_a_diffusion_s_figures_say_how_fast_and_how_cautious_in_a_coach_s_words(capsys):
    status, out, _ = run(capsys, "players", "--log", str(SAMPLE), "--format", "json")
    document = json.loads(out)
    assert status == 0 and document["model"] == "diffusion"
    for player in document["players"]:
        figures = {f["figure"]: f for f in player["figures"]}
        assert {"takes in highest-die", "caution highest-die", "non-decision time", "lapses"} <= set(figures)
        assert figures["non-decision time"]["answers"] == player["answers"]
        assert player["words"].startswith(f"{player['player']} answers a plain roll in")
        assert "Caution" in player["words"] and "lapses" in player["words"]
    # The expert takes in every roll faster than the novice.
    novice, expert = (dict((f["figure"], f["value"]) for f in p["figures"]) for p in document["players"][::2])
    assert all(expert[f"takes in {c}"] > novice[f"takes in {c}"] for c in ("highest-total", "closest"))
    status, out, _ = run(capsys, "players", "--log", str(SAMPLE), "--player", "synthetic-expert")
    assert "synthetic-expert answers a plain roll in" in " ".join(out.split())


def test_the_reading_model_stays_a_choice(capsys):
    status, out, _ = run(capsys, "players", "--log", str(SAMPLE), "--model", "reading", "--format", "json")
    document = json.loads(out)
    assert status == 0 and document["model"] == "reading"
    figures = {f["figure"] for f in document["players"][0]["figures"]}
    assert "time highest-die" in figures and "caution highest-die" not in figures
    status, _, err = run(capsys, "players", "--log", str(SAMPLE), "--model", "guess")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "--model" in err


def test_a_player_the_diffusion_cannot_fit_is_named_with_why(tmp_path, capsys):
    with SAMPLE.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    for row in rows:
        if row["player"] == "synthetic-novice" and row["latency_ms"]:
            row["latency_ms"] = "900.0"
    flat = tmp_path / "flat.csv"
    with flat.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    status, _, err = run(capsys, "players", "--log", str(flat), "--player", "synthetic-novice")
    assert status == 2 and "'synthetic-novice': all" in err and "latencies are 900 ms" in err
    status, out, _ = run(capsys, "players", "--log", str(flat))
    assert status == 0 and "Not fitted: 'synthetic-novice'" in " ".join(out.split())
