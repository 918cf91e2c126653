"""Whole games of a variant file: its own commands, dice and command die are what the rounds roll."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from diavolo_stats.cli import main
from diavolo_stats.core.commands import ALL_COMMANDS, Command
from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.rules import GREY_CODE, resolve, roll
from diavolo_stats.core.variant import GREY
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.roll_features import played_features, skill_command
from diavolo_stats.game.design import reading_per_command
from diavolo_stats.game.engine import roll_answers
from diavolo_stats.game.live import Table
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.settings import EndRule, GameRules
from diavolo_stats.stats import proportion_estimate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"


def test_rounds_roll_the_files_command_die_with_its_repeats_and_grey_as_often_as_exact(tmp_path):
    path = tmp_path / "die.toml"
    path.write_text('command_die = ["most-sixes", "most-sixes", "highest-total"]\n'
                    '[dice.white]\ncount = 4\nfaces = [0, 1, 1, 2, 2, 6]\n'
                    '[commands.most-sixes]\nfigure = "count:=6"\nthen = ["sum"]\n')
    variant = read_variant(path)
    accepted, features, rolled = roll_answers(variant, 300_000, np.random.default_rng(8))
    commands = features.command
    # most-sixes counts dice: players bring their most-odd skill to it, on two faces of three.
    counted = proportion_estimate(int(np.count_nonzero(commands == ALL_COMMANDS.index(Command.MOST_ODD))),
                                  commands.size, confidence=0.999)
    assert counted.low <= 2 / 3 <= counted.high
    assert set(np.unique(commands)) == {ALL_COMMANDS.index(Command.MOST_ODD), ALL_COMMANDS.index(Command.HIGHEST_TOTAL)}
    # the rounds of most-sixes are the rounds read with most-odd's skill
    assert np.array_equal(rolled == variant.commands.index(variant.command("most-sixes")),
                          commands == ALL_COMMANDS.index(Command.MOST_ODD))
    odds = exact_odds(variant)
    grey = proportion_estimate(int(np.count_nonzero(accepted[0] == GREY_CODE)), commands.size, confidence=0.999)
    assert grey.low <= float(odds.overall_tie_probability) <= grey.high
    # Each color is the answer as often as its own dice make it, over the die's faces: the game rolls the file's dice.
    for code, color in enumerate(variant.colors):
        exact = sum(odds.answer_probability[face][color] for face in variant.die) / len(variant.die)
        share = proportion_estimate(int(np.count_nonzero(accepted[0] == code)), commands.size, confidence=0.999)
        assert share.low <= float(exact) <= share.high, color


def test_a_designers_command_takes_the_skill_of_the_built_in_reading_the_same_figure():
    sixes = read_variant(EXAMPLES / "sixes.toml").command("most-sixes")
    broken = read_variant(EXAMPLES / "tie-break.toml").command("highest-die-broken")
    assert skill_command(sixes) is Command.MOST_ODD and skill_command(broken) is Command.HIGHEST_DIE
    assert skill_command(Command.LOWEST_TOTAL) is Command.LOWEST_TOTAL


EXAMPLE_FILES = sorted(path for path in EXAMPLES.glob("*.toml") if path.stem != "broken")


def test_the_examples_folder_holds_the_files_these_tests_play():
    assert {path.stem for path in EXAMPLE_FILES} == {"box", "custom-faces", "four-colors", "sixes", "tie-break",
                                                     "uneven-colors"}


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.stem)
def test_game_plays_every_example_file_with_its_design_metrics(path, capsys):
    assert main(["game", "--variant", str(path), "--players", "preset:expert", "preset:novice", "--games", "200",
                 "--seed", "1", "--design-games", "300", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    variant = read_variant(path)
    reading = document["design"]["reading"]
    # every command of the file's die is read, its share of the design's rolls as its faces on the die say
    assert [r["command"] for r in reading] == [command.value for command in variant.commands]
    assert sum(r["rolls"] for r in reading) == 300
    for r in reading:
        share = proportion_estimate(r["rolls"], 300, confidence=0.999)
        faces = variant.die.count(variant.command(r["command"])) / len(variant.die)
        assert share.low <= faces <= share.high, r["command"]


def test_game_refuses_the_broken_example_in_one_line(capsys):
    assert main(["game", "--variant", str(EXAMPLES / "broken.toml"), "--players", "preset:expert",
                 "preset:novice"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "commands.most-sixes.wins: must be highest or lowest" in error


def test_reading_a_files_own_command_counts_its_own_rolls_not_its_skill_twins():
    # most-sixes is read with most-odd's skill; the reading still tells the two commands apart.
    reading = {r.command.value: r for r in reading_per_command(read_variant(EXAMPLES / "sixes.toml"), 6000, seed=2)}
    assert set(reading) == {"highest-total", "most-sixes", "lowest-total", "most-odd", "closest"}
    sixes = proportion_estimate(reading["most-sixes"].rolls, 6000, confidence=0.999)
    odd = proportion_estimate(reading["most-odd"].rolls, 6000, confidence=0.999)
    assert sixes.low <= 2 / 6 <= sixes.high and odd.low <= 1 / 6 <= odd.high


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.stem)
def test_a_rolls_features_are_read_by_the_files_own_rules(path):
    variant = read_variant(path)
    rng = np.random.default_rng(4)
    rolls = [roll(variant, rng) for _ in range(300)]
    features = played_features(variant, rolls)
    called = [resolve(variant, r.command, r.dice, r.positions).answer == GREY for r in rolls]
    assert features.grey.tolist() == called
    assert features.command.tolist() == [ALL_COMMANDS.index(skill_command(r.command)) for r in rolls]
    assert set(features.dice.tolist()) == {variant.dice_count}


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.stem)
def test_games_of_every_example_file_at_a_live_table_agree_with_the_engine_round_by_round(path):
    variant = read_variant(path)
    players = [PlayerModel.preset(name) for name in ("novice", "average", "expert", "average")]
    for seed, (end, devils) in enumerate(itertools.product(EndRule, ("rulebook", "review"))):
        rules = GameRules(end=end, devils=devils)
        rows = []
        table = Table(variant, rules, (0, 0), np.random.default_rng(seed), rows.append)
        for player in players:
            table.join(player.name + str(len(table.seats)), player)
        table.start()
        table.play_out()
        check = table.engine_check()
        assert table.over and check["rounds"] > 1 and check["mismatches"] == [], (end, devils, check)
        commands = {record.command for record in table.referee.rounds}
        assert commands <= {command.value for command in variant.commands}
