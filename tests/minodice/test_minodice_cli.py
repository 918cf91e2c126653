"""`diavolo minodice`: the commands, their outputs, and one-line errors with exit status 2 for bad input."""

import csv
import io
import json
import subprocess

import pytest
from helpers.cli import run_diavolo

from diavolo_stats.cli import main

HEADER = "round,player,bid,tricks,griffins_beaten,mermaid_tricks\n"
SHEET = HEADER + "1,Ann,1,1,0,0\n1,Bea,0,0,0,0\n1,Cid,1,0,0,0\n2,Ann,1,0,0,0\n2,Bea,2,2,1,0\n2,Cid,0,0,0,0\n"
BAD_SHEET = SHEET.replace("2,Bea,2,2,1,0", "2,Bea,3,2,1,0")
BAD_DICE = '[[dice]]\nname = "red"\ncount = 3\nfaces = [1, 2, 3, 9, 5, 6]\n'
SMALL_DICE = "".join(f'[[dice]]\nname = "{name}"\ncount = 1\nfaces = ["{name}", "{name}", "{name}", "{name}", 0, 0]\n'
                     for name in ("minotaur", "griffin", "mermaid"))
SMALL_DICE += '[[dice]]\nname = "white"\ncount = 3\nfaces = [1, 2, 3, 4, 5, 6]\n'

# Bad input, each as a command line, and what its one-line error must say.
BAD_COMMANDS = {
    "unknown die": (["bid", "--hand", "black,purple", "--round", "2", "--players", "4"],
                    "--hand: unknown die 'purple'"),
    "hand larger than the round": (["bid", "--hand", "black,red,red", "--round", "2", "--players", "4"],
                                   "--hand: has 3 dice, more than round 2 deals 2"),
    "more dice than the bag holds": (["bid", "--hand", "mermaid,mermaid,mermaid", "--round", "3", "--players", "4"],
                                     "--hand: has 3 mermaid dice but the bag holds 2"),
    "invalid dice file": (["odds", "--dice", "{bad}"], "faces: die 'red': face 4: value 9 is outside 0 to 7"),
    "too few players": (["bid", "--hand", "black", "--round", "1", "--players", "2"],
                        "--players: must be a whole number from 3 to 6, got 2"),
    "too many players": (["bid", "--hand", "black", "--round", "1", "--players", "7"],
                         "--players: must be a whole number from 3 to 6, got 7"),
}
GOOD_COMMANDS = {
    "bid json": ["bid", "--hand", "black,mermaid,yellow", "--round", "3", "--players", "4", "--seed", "5",
                 "--simulations", "2000", "--format", "json"],
}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """What every command of the lists above prints and exits with."""
    bad_dice = tmp_path_factory.mktemp("minodice_cli") / "bad.toml"
    bad_dice.write_text(BAD_DICE, encoding="utf-8")
    commands = {**{name: args for name, (args, _) in BAD_COMMANDS.items()}, **GOOD_COMMANDS}
    return {name: run_diavolo("minodice", *(arg.format(bad=bad_dice) for arg in args))
            for name, args in commands.items()}


@pytest.mark.parametrize("name", BAD_COMMANDS)
def test_bad_input_is_one_line_on_stderr_and_exit_status_2(results, name):
    result = results[name]
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("diavolo: error: ") and BAD_COMMANDS[name][1] in result.stderr


def run(capsys, args):
    """Run `diavolo minodice ARGS` in this process: (exit status, stdout, stderr); the parser's refusals exit."""
    try:
        status = main(["minodice", *args])
    except SystemExit as exit:
        status = exit.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_score_json_maps_each_player_to_total_and_round_scores(tmp_path, capsys):
    path = tmp_path / "sheet.csv"
    path.write_text(SHEET, encoding="utf-8")
    status, out, _ = run(capsys, ["score", str(path), "--format", "json"])
    assert status == 0 and json.loads(out) == {
        "players": {"Ann": {"total": 10, "rounds": [20, -10]}, "Bea": {"total": 80, "rounds": [10, 70]},
                    "Cid": {"total": 10, "rounds": [-10, 20]}},
        "winner": ["Bea"]}


def test_bid_json_gives_the_trick_distribution_every_bid_and_the_best(results, capsys):
    result = results["bid json"]
    assert result.returncode == 0, result.stderr
    advice = json.loads(result.stdout)
    assert [t["tricks"] for t in advice["tricks"]] == [b["bid"] for b in advice["bids"]] == [0, 1, 2, 3]
    assert all(b["interval"][0] <= b["expected_score"] <= b["interval"][1] for b in advice["bids"])
    assert advice["best_bid"] == max(range(4), key=lambda bid: advice["bids"][bid]["expected_score"])
    assert advice["seed"] == 5 and "RECONSTRUCTION" in advice["dice"]
    # the same seed gives the same numbers, in another process too
    assert run(capsys, GOOD_COMMANDS["bid json"])[1] == result.stdout


def test_odds_csv_carries_the_dice_it_used_on_every_row(capsys):
    status, out, _ = run(capsys, ["odds", "--against", "1,2", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and len(rows) == 7 * 2 and all("RECONSTRUCTION" in row["dice"] for row in rows)
    assert {row["method"] for row in rows} == {"exact"}


def test_the_same_seed_prints_the_same_advice(capsys):
    args = ["minodice", "bid", "--hand", "red,blue", "--round", "2", "--players", "5", "--seed", "3",
            "--simulations", "500"]
    first = run(capsys, args[1:])[1]
    assert run(capsys, args[1:])[1] == first and "seed 3" in first and "<- best" in first


def test_the_score_table_shows_running_totals_and_the_winner(tmp_path, capsys):
    path = tmp_path / "sheet.csv"
    path.write_text(SHEET, encoding="utf-8")
    out = run(capsys, ["score", str(path)])[1]
    assert "leading: Bea with 80 points after round 2 of 8" in out
    assert out.splitlines()[0].split() == ["round", "player", "bid", "tricks", "griffins_beaten",
                                           "mermaid_tricks", "score", "total"]


def test_the_score_flags_choose_the_readings(tmp_path, capsys):
    # Hand-scored: Bea bid 2 in round 2 and won both tricks, her mermaid beating both other players'
    # minotaurs in one of them; Cid bid 1 and won nothing.
    path = tmp_path / "sheet.csv"
    path.write_text(SHEET.replace("2,Bea,2,2,1,0", "2,Bea,2,2,0,1").replace("2,Ann,1,0", "2,Ann,0,0")
                    .replace("2,Cid,0,0", "2,Cid,1,0"), encoding="utf-8")
    status, out, _ = run(capsys, ["score", str(path), "--format", "json"])
    assert status == 0 and json.loads(out)["players"]["Bea"]["rounds"] == [10, 40 + 50]
    path.write_text(path.read_text(encoding="utf-8").replace("mermaid_tricks", "minotaurs_beaten")
                    .replace("2,Bea,2,2,0,1", "2,Bea,2,2,0,2"), encoding="utf-8")
    status, out, _ = run(capsys, ["score", str(path), "--format", "json", "--mermaid-bonus", "per-minotaur",
                                  "--wrong-bid", "flat"])
    assert status == 0 and json.loads(out)["players"]["Bea"]["rounds"] == [10, 40 + 100]
    status, _, err = run(capsys, ["score", str(path)])
    assert status == 2 and "missing column 'mermaid_tricks'" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (["odds", "--against", "6"], "--against: must be 1 to 5"),
    (["odds", "--against", "one"], "--against: each count must be a whole number of 1 or more, got 'one'"),
    (["odds", "--against", "2,2"], "--against: 2 repeated; each count once, got '2,2'"),
    (["odds", "--against", ","], "--against: has an empty count (nothing between two commas, or at an end)"),
    (["odds", "--against", ""], "--against: is empty; give at least one count, separated by commas, got ''"),
    (["bid", "--hand", "black", "--round", "7", "--players", "6"], "--round: a 6-player game has rounds 1 to 6, got 7"),
    (["bid", "--hand", "black,red", "--round", "2", "--players", "4", "--seat", "5"], "--seat: must be 1 to 4"),
    (["bid", "--dice", "{small}", "--hand", "white,white", "--round", "2", "--players", "4"],
     "--players: 4 players x 2 dice = 8 dice, more than the 6 in the bag"),
    # a dice file's errors name the flag once, then the file
    (["bid", "--dice", "{missing}", "--hand", "black", "--round", "1", "--players", "3"],
     "diavolo: error: --dice: {missing}: cannot read it (No such file or directory)"),
    (["odds", "--dice", "{missing}"], "diavolo: error: --dice: {missing}: cannot read it (No such file or directory)"),
    (["odds", "--dice", "{small_bad}"], "diavolo: error: --dice: {small_bad}: unknown key 'foo'; a dice file has "),
    (["score", "{bad_sheet}"], "line 6: bid 3 is above the 2 tricks of round 2"),
    (["score", "{missing}"], "cannot read it"),
])
def test_other_bad_values_name_their_flag_or_line(tmp_path, capsys, args, message):
    paths = {"small": tmp_path / "small.toml", "missing": tmp_path / "missing", "bad_sheet": tmp_path / "bad.csv",
             "small_bad": tmp_path / "small_bad.toml"}
    paths["small"].write_text(SMALL_DICE, encoding="utf-8")
    paths["small_bad"].write_text("foo = 1\n" + SMALL_DICE, encoding="utf-8")
    paths["bad_sheet"].write_text(BAD_SHEET, encoding="utf-8")
    status, out, err = run(capsys, [arg.format(**paths) for arg in args])
    assert status == 2 and out == "" and message.format(**paths) in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("old, new, message", [
    ("1,Cid,1,0,0,0", "1,Cid,²,0,0,0", "line 4: bid must be a whole number of 0 or more, got '²'"),
    ("2,Bea,2,2,1,0", "2,Bea,2,2,99999999999999999999,0",
     "line 6: griffins_beaten = 99999999999999999999, above (tricks 2 - mermaid_tricks 0) x 2 other players = 4"),
    ("1,Ann,1,1,0,0", "1,Ann,1,1,50,0", "line 2: griffins_beaten = 50, above (tricks 1 - mermaid_tricks 0) x 2"),
])
def test_a_sheet_with_impossible_values_is_one_line_from_the_command(tmp_path, old, new, message):
    path = tmp_path / "sheet.csv"
    path.write_text(SHEET.replace(old, new), encoding="utf-8")
    result = run_diavolo("minodice", "score", str(path))
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr


@pytest.mark.parametrize("args", [["bid", "--round", "0", "--hand", "black", "--players", "3"], ["bid"], []])
def test_argument_errors_are_one_line_too(capsys, args):
    with pytest.raises(SystemExit) as exit_status:
        main(["minodice", *args])
    assert exit_status.value.code == 2 and len(capsys.readouterr().err.splitlines()) == 1
