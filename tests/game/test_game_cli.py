"""`diavolo game` run as a user runs it: the JSON contract, the CSV records, one-line errors."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from helpers.cli import assert_one_line_error, run_diavolo

FAST = ("--games", "400", "--design-games", "0")


def test_json_report_holds_the_documented_contract():
    result = run_diavolo("game", "--players", "preset:expert", "preset:average", "preset:novice",
                         "--games", "500", "--design-games", "300", "--seed", "5", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [p["name"] for p in report["players"]] == ["preset:expert", "preset:average", "preset:novice"]
    for player in report["players"]:
        low, high = player["ci95"]
        assert 0 <= low <= player["win_probability"] <= high <= 1
    assert report["games"] == 500 and report["seed"] == 5
    assert set(report["rounds"]) >= {"mean", "median", "p90"}
    assert 0 <= report["no_winner"] <= 1 and 0 < report["grey_share"] < 1
    assert sum(p["win_probability"] for p in report["players"]) + report["no_winner"] == pytest.approx(1)
    for key in ("gems_lost_per_round", "lead_changes_per_game", "drama", "round_limit_games", "end"):
        assert key in report
    assert 0 <= report["design"]["balance"] <= 1
    assert report["design"]["skill"]["fair_share"] == pytest.approx(1 / 3)


def test_the_same_seed_prints_the_same_report():
    runs = [run_diavolo("game", "--players", "preset:average", "preset:novice", *FAST, "--seed", "9",
                        "--format", "json") for _ in range(2)]
    assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout


def test_table_output_and_per_game_csv(tmp_path):
    out = tmp_path / "games.csv"
    result = run_diavolo("game", "--players", "preset:average", "preset:average", *FAST, "--seed", "1",
                         "--end", "first-out", "--variant", "kids", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "win_probability" in result.stdout and "end rule first-out" in result.stdout
    games = pd.read_csv(out)
    assert len(games) == 400
    assert {"rounds", "outcome", "winner", "gems_1", "gems_2"} <= set(games.columns)


def test_the_rule_readings_are_flags_and_shown_in_the_report(tmp_path):
    from helpers.drill_logs import modelled_rows, write_log

    from diavolo_stats.game.players import PlayerModel

    log = tmp_path / "drills.csv"
    write_log(log, modelled_rows("Ida", PlayerModel.preset("average"), 40, seed=4))
    result = run_diavolo("game", "--players", "Ida", "preset:novice", "preset:average", "preset:expert", *FAST,
                         "--log", str(log), "--devils", "review", "--command-first", "--seed", "2")
    assert result.returncode == 0, result.stderr
    assert "rules: devils per color review, command die shown first" in result.stdout
    assert "'Ida': no drill rows with the command die shown first" in result.stderr
    report = json.loads(run_diavolo("game", "--players", "preset:novice", "preset:average", *FAST,
                                    "--format", "json").stdout)
    assert (report["end"], report["devils"], report["command_first"]) == ("last-standing", "rulebook", False)


def test_players_fitted_from_the_drill_log(tmp_path):
    from helpers.drill_logs import modelled_rows, write_log

    from diavolo_stats.game.players import PlayerModel

    log = tmp_path / "drills.csv"
    write_log(log, modelled_rows("Ζωή", PlayerModel.preset("average"), 80, seed=3))
    result = run_diavolo("game", "--players", "Ζωή", "preset:novice", *FAST, "--log", str(log), "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["players"][0]["name"] == "Ζωή"
    # 80 answers are enough: partial pooling fills what she never drilled, with no fallback to warn about.
    assert result.stderr == ""


@pytest.mark.parametrize("players, fragment", [
    (["preset:average"], "--players: a game needs 2 to 6 players, got 1"),
    (["preset:average"] * 7, "--players: a game needs 2 to 6 players, got 7"),
    (["preset:average", "preset:wizard"], "unknown player preset 'preset:wizard'"),
])
def test_bad_player_lists_get_a_one_line_error(players, fragment):
    assert_one_line_error(run_diavolo("game", "--players", *players, *FAST), fragment)


def test_a_player_with_no_log_gets_a_one_line_error(tmp_path):
    result = run_diavolo("game", "--players", "alice", "preset:average", *FAST, "--log", str(tmp_path / "no.csv"))
    assert_one_line_error(result, "--log: no drill log")


def test_a_player_named_in_a_fresh_clone_gets_the_sample_log_suggested(tmp_path):
    import shutil

    from helpers.cli import REPO

    (tmp_path / "data").mkdir()
    shutil.copy(REPO / "data" / "sample_drills.csv", tmp_path / "data" / "sample_drills.csv")
    result = run_diavolo("game", "--players", "alice", "preset:average", *FAST, cwd=tmp_path, env={"DIAVOLO_LOG": ""})
    assert_one_line_error(result, "--log: no drill log at 'data/drills.csv'",
                          "give the shipped sample, data/sample_drills.csv", "preset:novice|average|expert")


def test_a_player_missing_from_the_log_gets_a_one_line_error(tmp_path):
    from helpers.drill_logs import modelled_rows, write_log

    from diavolo_stats.game.players import PlayerModel

    log = tmp_path / "drills.csv"
    write_log(log, modelled_rows("ann", PlayerModel.preset("average"), 40, seed=4))
    result = run_diavolo("game", "--players", "alice", "preset:average", *FAST, "--log", str(log))
    assert_one_line_error(result, "--players: 'alice' is not a player of the drill log; its players: ann")


@pytest.mark.parametrize("kind, said", [("folder", "is a folder, not a file"),
                                        ("fifo", "is not a regular file (a FIFO, a device or a socket)")])
@pytest.mark.parametrize("with_log", [True, False])
def test_a_folder_or_a_fifo_given_as_a_player_is_refused_as_what_it_is(tmp_path, kind, said, with_log):
    from helpers.drill_logs import modelled_rows, write_log

    from diavolo_stats.game.players import PlayerModel

    log = tmp_path / "drills.csv"
    if with_log:
        write_log(log, modelled_rows("ann", PlayerModel.preset("average"), 40, seed=4))
    path = tmp_path / kind
    path.mkdir() if kind == "folder" else os.mkfifo(path)
    result = run_diavolo("game", "--players", f"{path}/" if kind == "folder" else str(path), "preset:average",
                         *FAST, "--log", str(log))
    shown = f"{path}/" if kind == "folder" else str(path)
    assert_one_line_error(result, f"--players: {shown!r} {said}; a player is preset:NAME, a player file ending "
                                  "in .toml, or a name in the drill log")


@pytest.mark.parametrize("with_log", [True, False])
def test_a_drill_log_given_as_a_player_is_refused_naming_the_three_forms_of_a_player(tmp_path, with_log):
    from helpers.drill_logs import modelled_rows, write_log

    from diavolo_stats.game.players import PlayerModel

    log = write_log(tmp_path / "drills.csv", modelled_rows("ann", PlayerModel.preset("average"), 40, seed=4))
    result = run_diavolo("game", "--players", "drills.csv", "preset:average", *FAST,
                         *(["--log", str(log)] if with_log else []), cwd=tmp_path, env={"DIAVOLO_LOG": ""})
    assert_one_line_error(result, "--players: 'drills.csv' is a file whose name does not end in .toml, not a player "
                                  "file; a player is preset:NAME, a player file ending in .toml, or a name in the "
                                  "drill log")


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_a_player_of_the_log_named_as_a_folder_or_a_file_is_taken_as_the_player(tmp_path, kind):
    from helpers.drill_logs import modelled_rows, write_log

    from diavolo_stats.game.players import PlayerModel

    log = tmp_path / "drills.csv"
    write_log(log, modelled_rows("ann", PlayerModel.preset("average"), 40, seed=4))
    # A folder or a file of the same name where the game runs.
    (tmp_path / "ann").mkdir() if kind == "folder" else (tmp_path / "ann").write_text("notes\n", encoding="utf-8")
    result = run_diavolo("game", "--players", "ann", "preset:average", *FAST, "--log", str(log), cwd=tmp_path)
    assert result.returncode == 0, result.stderr


def test_a_log_too_short_to_fit_says_how_many_answers_a_fit_needs(tmp_path):
    from helpers.drill_logs import modelled_rows, write_log

    from diavolo_stats.game.players import PlayerModel

    log = tmp_path / "drills.csv"
    write_log(log, modelled_rows("ann", PlayerModel.preset("average"), 5, seed=4))
    result = run_diavolo("game", "--players", "ann", "preset:average", *FAST, "--log", str(log))
    assert_one_line_error(result, "--log: no player of the drill log has the 30 answers a fit needs (most: 5)")


@pytest.mark.parametrize("flags, fragment", [
    (["--end", "sudden-death"], "--end"),
    (["--games", "0"], "--games"),
    (["--max-rounds", "-3"], "--max-rounds"),
])
def test_bad_flags_get_a_one_line_error(flags, fragment):
    assert_one_line_error(run_diavolo("game", "--players", "preset:average", "preset:novice", *flags), fragment)


def test_fitted_players_play_as_the_model_asked_for(tmp_path):
    from helpers.cli import REPO

    sample = str(REPO / "data" / "sample_drills.csv")
    chances = {}
    for model in ("diffusion", "reading"):
        result = run_diavolo("game", "--players", "synthetic-novice", "synthetic-expert", "--games", "2000",
                             "--design-games", "0", "--seed", "1", "--log", sample, "--model", model,
                             "--format", "json")
        assert result.returncode == 0, result.stderr
        games = json.loads(result.stdout)
        chances[model] = ([player["win_probability"] for player in games["players"]], games["rounds"]["mean"],
                          games["gems_lost_per_round"])
    # Either way the expert wins most games; the two models are two different fits, which play differently.
    assert all(novice < expert for (novice, expert), _, _ in chances.values())
    assert chances["diffusion"] != chances["reading"]
    result = run_diavolo("game", "--players", "synthetic-novice", "preset:average", "--log", sample,
                         "--model", "guess")
    assert_one_line_error(result, "--model")


def test_the_help_says_each_reading_of_the_rules_in_the_librarys_words():
    from diavolo_stats.game.settings import DEVILS_WORDS, END_WORDS

    help_text = " ".join(run_diavolo("game", "--help").stdout.split())
    for words in [*DEVILS_WORDS.values(), *END_WORDS.values()]:
        assert words in help_text, words
