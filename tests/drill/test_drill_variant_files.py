"""Drilling a designer's rules (`diavolo drill --variant FILE`): every example file is drilled, its trials are
logged with the rules they were played under, read back, reported on, and named by their commands' labels."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers.browser import ORIGIN
from helpers.cli import assert_one_line_error, run_diavolo
from helpers.pty_drill import FAST, Drill
from starlette.testclient import TestClient

from diavolo_stats.analytics.charts import latency_chart
from diavolo_stats.analytics.report import write_report
from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.log import COLUMNS, DrillLog, SkippedRowsWarning, load_logs
from diavolo_stats.drill.log.rules import command_labels, played_variant, with_command_labels
from diavolo_stats.drill.settings import DrillSettings
from diavolo_stats.drill.summary import summarize_session
from diavolo_stats.drill.teaching import command_codes, help_lines, intro_lines
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.errors import InputError
from diavolo_stats.web.app import create_app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"
DRILLABLE = sorted(path.stem for path in EXAMPLES.glob("*.toml") if path.stem != "broken")
# The command of each file's own a drill of it is asked to show (--commands), or None: its built-ins.
OWN_COMMAND = {"sixes": "most-sixes", "tie-break": "highest-die-broken", "custom-faces": "most-alike"}
WHEN = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def example(name: str) -> Variant:
    return read_variant(EXAMPLES / f"{name}.toml")


def logged_rolls(variant: Variant, log: Path, rolls: int, seed: int = 0, player: str = "Ana",
                 right: bool = False) -> list:
    """`rolls` rolls of `variant` answered grey (`right`: the rules' answer) after 700 ms, logged as the drill
    logs them."""
    rng = np.random.default_rng(seed)
    thrown = [roll(variant, rng) for _ in range(rolls)]
    drill_log = DrillLog(log)
    for number, rolled in enumerate(thrown, start=1):
        answer = resolve(variant, rolled.command, rolled.dice, rolled.positions).answer if right else "grey"
        drill_log.append(judged_trial(variant, rolled.command, rolled.dice, rolled.positions, answer, 700.0,
                                      interface="terminal", player=player, session_id=f"s-{seed}",
                                      trial=number, timestamp=WHEN + timedelta(seconds=number + 60 * seed)))
    return thrown


def test_every_example_file_is_drillable():
    for name in DRILLABLE:
        settings = DrillSettings(player="Ana", variant=example(name), log=Path("unused.csv"))
        assert intro_lines(settings) and help_lines(settings.variant)


@pytest.mark.parametrize("name", DRILLABLE)
def test_each_example_files_trials_read_back_with_their_command_dice_and_rules(tmp_path, name):
    variant = example(name)
    log = tmp_path / "drills.csv"
    thrown = logged_rolls(variant, log, 40)
    frame = load_logs([log])
    assert frame["command"].astype(str).tolist() == [str(r.command) for r in thrown]
    assert [json.loads(cell) for cell in frame["dice"]] == [{c: list(v) for c, v in r.dice.items()} for r in thrown]
    game = played_variant(frame["variant"].iloc[0])
    assert game == (Variant() if name == "box" else variant)  # the box file is the standard game, by name
    for (_, row), rolled in zip(frame.iterrows(), thrown):
        assert row["expected"] == resolve(game, game.command(row["command"]), rolled.dice, rolled.positions).answer
    assert {str(c) for c in variant.die} >= set(frame["command"].astype(str))


def test_a_command_of_the_files_own_is_one_of_the_logs_commands_after_the_built_ins(tmp_path):
    log = tmp_path / "drills.csv"
    logged_rolls(example("sixes"), log, 30)
    categories = list(load_logs([log])["command"].cat.categories)
    assert categories[:6] == [str(c) for c in Variant().commands] and categories[6:] == ["most-sixes"]


def test_a_row_whose_dice_its_own_rules_cannot_show_is_skipped_naming_why(tmp_path):
    variant = example("uneven-colors")  # white rolls four dice of 0 to 3
    log = tmp_path / "drills.csv"
    logged_rolls(variant, log, 3)
    lines = log.read_text(encoding="utf-8").splitlines()
    row = next(csv.reader([lines[1]]))
    dice = json.loads(row[COLUMNS.index("dice")])
    dice["white"] = [6, 6, 6, 6]  # faces white's dice do not have
    row[COLUMNS.index("dice")] = json.dumps(dice)
    unknown = next(csv.reader([lines[2]]))
    unknown[COLUMNS.index("command")] = "most-sixes"  # not a command of these rules
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([row, unknown])
    log.write_text("\n".join([lines[0], *buffer.getvalue().splitlines(), lines[3]]) + "\n", encoding="utf-8")
    with pytest.warns(SkippedRowsWarning) as warned:
        frame = load_logs([log])
    assert len(frame) == 1
    message = str(warned[0].message)
    assert "line 2: dice must be a roll of the row's game: white needs 4 values among 0, 1, 2, 3" in message
    assert "line 3: command must be one of the row's rules' commands" in message


def test_a_row_of_a_game_whose_rules_were_not_logged_still_reads(tmp_path):
    # Rows written before the rules were logged say `custom`: a built-in command, any dice.
    log = tmp_path / "drills.csv"
    logged_rolls(Variant(dice_per_color=4), log, 2)
    lines = log.read_text(encoding="utf-8").splitlines()
    rows = list(csv.reader(lines[1:]))
    for row in rows:
        row[COLUMNS.index("variant")] = "custom"
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    log.write_text(lines[0] + "\n" + buffer.getvalue(), encoding="utf-8")
    frame = load_logs([log])
    assert frame["variant"].tolist() == ["custom", "custom"] and len(frame["command"].cat.categories) == 6


def test_the_log_refuses_a_row_whose_command_is_not_of_its_game():
    rolled = roll(example("sixes"), np.random.default_rng(1))
    with pytest.raises(InputError, match="^command: must be one of the variant's commands"):
        judged_trial(Variant(), "most-sixes", rolled.dice, rolled.positions, "grey", 700.0, interface="terminal",
                     player="Ana", session_id="s", trial=1, timestamp=WHEN)


def test_each_files_commands_have_codes_of_two_letters_unique_on_its_die():
    for name in DRILLABLE:
        codes = command_codes(example(name))
        assert len(set(codes.values())) == len(codes) and all(len(code) == 2 for code in codes.values())
    assert command_codes(example("sixes"))[example("sixes").command("most-sixes")] == "MS"


def test_a_die_of_many_commands_named_alike_gets_a_code_for_each():
    from diavolo_stats.core.variant_file import variant_from_document

    # 24 commands (the most a die holds) whose labels and names all start with m: past M1 to M9, the free codes.
    own = {f"m-{n}": {"label": "m", "rule": f"rule {n}", "figure": f"count:>={n % 6 + 1}", "wins": "highest"}
           for n in range(1, 25)}
    variant = variant_from_document({"commands": own, "command_die": list(own)})
    codes = command_codes(variant)
    assert len(codes) == 24 and len(set(codes.values())) == 24
    assert all(len(code) == 2 and code.isalnum() and code == code.upper() for code in codes.values())


def test_the_commands_screen_teaches_the_files_own_command_by_its_label_and_rule_and_works_it():
    variant = example("sixes")
    sixes = variant.command("most-sixes")
    lines = help_lines(variant)
    shown = " ".join(" ".join(lines).split())  # lines wrapped at 80 columns, read as one text
    assert f"MS {sixes.label}: {sixes.rule}" in shown
    worked = resolve(variant, sixes, {"black": [2, 3, 6], "red": [3, 5, 5], "white": [1, 5, 6]}).reason
    assert worked == "black and white tie at 1 six > 0 red; then black: total 11 < 12 white"
    assert " ".join(worked.split()) in shown
    assert all(len(line) <= 80 for line in lines)


def test_a_report_and_the_progress_page_name_a_files_own_command_by_its_label(tmp_path):
    log = tmp_path / "drills.csv"
    logged_rolls(example("sixes"), log, 40, right=True)
    labelled = with_command_labels(load_logs([log]))
    assert "most sixes" in set(labelled["command"].astype(str)) and "most-sixes" not in set(
        labelled["command"].astype(str))
    assert command_labels(load_logs([log])["variant"])["most-sixes"] == "most sixes"
    panels = [axes.get_title() for axes in latency_chart(labelled).axes]
    assert "most sixes" in panels  # 40 rolls answered right: a third most sixes, enough to draw
    report = write_report([log], tmp_path / "report", simulation_path=None)
    assert "most sixes" in report.summary["command"].astype(str).tolist()
    assert "most sixes" in report.text() and "most sixes" in (tmp_path / "report" / "report.html").read_text(
        encoding="utf-8")


def test_a_report_gives_the_tie_frequency_of_each_game_whose_rules_its_rows_carry(tmp_path):
    from diavolo_stats.analytics.report import FALLBACK_ROUNDS
    from diavolo_stats.core.odds import exact_odds, fraction_text

    log = tmp_path / "drills.csv"
    logged_rolls(example("sixes"), log, 20, right=True)
    logged_rolls(example("uneven-colors"), log, 10, seed=1, right=True)
    report = write_report([log], tmp_path / "report", simulation_path=None)
    names = sorted(path.name for path in report.files if path.name.startswith("tie_frequency_"))
    assert names == ["tie_frequency_sixes.png", "tie_frequency_white-handicap.png"]
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "Tie frequency per command, white handicap game" in page
    assert f"simulated odds for sixes: {FALLBACK_ROUNDS:,} rounds, seed 1" in "\n".join(report.notes)
    for name in ("sixes", "uneven-colors"):
        variant = example(name)
        exact = exact_odds(variant).tie_probability
        shown = [fraction_text(exact[command]) for command in variant.commands if command in exact]
        assert all(fraction in page for fraction in shown), name  # the exact odds of the file's own rules
    assert not [note for note in report.notes if note.startswith("no tie frequency")]


@pytest.mark.slow  # four games simulated afresh, a million rounds each
def test_past_the_most_played_games_a_report_notes_the_trials_it_gives_no_tie_frequency(tmp_path):
    from diavolo_stats.analytics.report import MAX_LOGGED_GAMES

    log = tmp_path / "drills.csv"
    played = ["tie-break", "sixes", "custom-faces", "four-colors", "uneven-colors"]  # most played first
    for seed, name in enumerate(played):
        logged_rolls(example(name), log, 12 - seed, seed=seed)
    report = write_report([log], tmp_path / "report", simulation_path=None)
    charted = {path.name for path in report.files if path.name.startswith("tie_frequency_")}
    assert len(charted) == MAX_LOGGED_GAMES == 4 and "tie_frequency_white-handicap.png" not in charted
    assert (f"no tie frequency for the 8 trials of 1 more game of rules of their own, past the {MAX_LOGGED_GAMES} "
            "most played (the exact odds of their variant files give them)") in report.notes


def test_the_sessions_summary_names_a_files_own_command_by_its_label(tmp_path):
    log = tmp_path / "drills.csv"
    logged_rolls(example("sixes"), log, 40, right=True)
    summary = summarize_session(load_logs([log]), "s-0", log)
    commands = [row["command"] for row in summary.rows()]
    assert "most sixes" in commands and "most-sixes" not in commands and commands[-1] == "all"
    assert "most sixes" in summary.text()


def test_a_bad_variant_file_for_the_drill_is_one_line_and_nothing_is_written(tmp_path):
    log = tmp_path / "drills.csv"
    result = run_diavolo("drill", "--player", "Ana", "--variant", str(EXAMPLES / "broken.toml"), "--log", str(log))
    assert_one_line_error(result, "broken.toml: commands.most-sixes.wins: must be highest or lowest")
    assert not log.exists()


@pytest.mark.slow  # a terminal (pty) and a real drill process per file
@pytest.mark.parametrize("name", DRILLABLE)
def test_drilling_each_example_file_logs_rows_that_read_back_with_their_command_and_dice(tmp_path, name):
    variant = example(name)
    log = tmp_path / "drills.csv"
    chosen = ("--commands", OWN_COMMAND[name]) if name in OWN_COMMAND else ()
    drill = Drill("--player", "Ana", "--trials", "3", "--seed", "4", "--log", str(log), "--variant",
                  str(EXAMPLES / f"{name}.toml"), *chosen, *FAST, cwd=tmp_path)
    for _ in range(3):
        drill.stimulus()
        screen = drill.screen()
        drill.answer("g")
    if name in OWN_COMMAND:  # the banner names the file's own command by its label
        assert variant.command(OWN_COMMAND[name]).label.upper() in screen
    status, _ = drill.finish()
    assert status == 0
    frame = load_logs([log])
    assert len(frame) == 3
    game = played_variant(frame["variant"].iloc[0])
    for _, row in frame.iterrows():
        dice = json.loads(row["dice"])
        assert [len(dice[c]) for c in game.colors] == list(variant.counts)
        assert all(set(dice[c]) <= set(faces) for c, faces in zip(game.colors, variant.color_faces))
        if name in OWN_COMMAND:
            assert row["command"] == OWN_COMMAND[name]
        assert row["expected"] == resolve(game, game.command(row["command"]), dice, json.loads(row["positions"])).answer
    assert pd.Series(frame["interface"]).eq("terminal").all()


def test_the_progress_page_names_a_files_own_command_by_its_label(tmp_path):
    variant = example("sixes")
    log = tmp_path / "drills.csv"
    rng = np.random.default_rng(5)
    drill_log = DrillLog(log)
    for number in range(1, 91):
        rolled = roll(variant, rng)
        expected = resolve(variant, rolled.command, rolled.dice, rolled.positions).answer
        # most sixes: always wrong; every other command right
        answer = ("red" if expected != "red" else "black") if rolled.command == "most-sixes" else expected
        drill_log.append(judged_trial(variant, rolled.command, rolled.dice, rolled.positions, answer, 800.0,
                                      interface="terminal", player="Ann", session_id="s-1", trial=number,
                                      timestamp=WHEN + timedelta(seconds=number)))
    with TestClient(create_app(log), base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        page = client.get("/me", params={"player": "Ann"})
    assert page.status_code == 200
    assert "most sixes: among the commands you get wrong most" in page.text
    assert "most-sixes" not in page.text
