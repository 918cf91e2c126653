"""Whole games of a variant file: its own commands, dice and command die are what the rounds roll."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from diavolo_stats.cli import main
from diavolo_stats.core.commands import ALL_COMMANDS, Command
from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.rules import GREY_CODE
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.roll_features import skill_command
from diavolo_stats.game.engine import roll_answers
from diavolo_stats.stats import proportion_estimate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"


def test_rounds_roll_the_files_command_die_with_its_repeats_and_grey_as_often_as_exact(tmp_path):
    path = tmp_path / "die.toml"
    path.write_text('command_die = ["most-sixes", "most-sixes", "highest-total"]\n'
                    '[dice.white]\ncount = 4\nfaces = [0, 1, 1, 2, 2, 6]\n'
                    '[commands.most-sixes]\nfigure = "count:=6"\nthen = ["sum"]\n')
    variant = read_variant(path)
    accepted, features = roll_answers(variant, 300_000, np.random.default_rng(8))
    commands = features.command
    # most-sixes counts dice: players bring their most-odd skill to it, on two faces of three.
    counted = proportion_estimate(int(np.count_nonzero(commands == ALL_COMMANDS.index(Command.MOST_ODD))),
                                  commands.size, confidence=0.999)
    assert counted.low <= 2 / 3 <= counted.high
    assert set(np.unique(commands)) == {ALL_COMMANDS.index(Command.MOST_ODD), ALL_COMMANDS.index(Command.HIGHEST_TOTAL)}
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


def test_game_plays_every_example_file(capsys):
    for name in ("sixes", "tie-break", "custom-faces", "uneven-colors"):
        assert main(["game", "--variant", str(EXAMPLES / f"{name}.toml"), "--players", "preset:expert",
                     "preset:novice", "--games", "200", "--seed", "1", "--design-games", "0"]) == 0
        assert "preset:expert" in capsys.readouterr().out
