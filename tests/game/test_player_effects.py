"""Roll effects a player file states (`[roll-effects]`): the figures `diavolo players` prints, and games use them."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.cli import assert_one_line_error, run_diavolo

from diavolo_stats.analytics.player_figures import figure_draws
from diavolo_stats.core.variant import ALL_COMMANDS, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.game.engine import play_games
from diavolo_stats.game.player_file import read_player
from diavolo_stats.game.players import STATED_EFFECTS, PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, ReadingModel
from diavolo_stats.game.reading_fit import PlayerReading
from diavolo_stats.stats import proportion_estimate

STATED = {"per extra die": 250.0, "accuracy per extra die": -0.015, "near tie highest-total": 400.0,
          "accuracy near tie closest": -0.2, "near tie most-odd": -50.0, "grey": 300.0, "accuracy on grey": 0.6,
          "command first": -120.0}


def player_file(path, effects: dict[str, object], base: str = "average") -> str:
    lines = [f'base = "{base}"', "[roll-effects]"] + [f'"{name}" = {value}' for name, value in effects.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def printed_figures(model: ReadingModel) -> dict[str, float]:
    """The figures `diavolo players` prints for a model known exactly (a posterior of no width)."""
    exact = np.eye(len(COEFFICIENTS)) * 1e-16
    reading = PlayerReading(model, exact, exact, 0, (0,) * len(COEFFICIENTS), (9, 9))
    return {name: float(np.median(draws.values)) for name, draws in figure_draws(reading).items()}


def test_the_effects_a_file_may_state_are_figures_diavolo_players_prints():
    printed = printed_figures(ReadingModel.from_player(PlayerModel.preset("average")))
    # Every figure but a command's own time and accuracy (the [non-tie] and [tie] tables' business).
    own = {f"{kind} {command}" for kind in ("time", "accuracy") for command in ALL_COMMANDS}
    assert set(STATED_EFFECTS) == set(printed) - own


def test_each_effect_sets_a_coefficient_of_the_reading_model_and_the_figure_of_its_unit():
    printed = figure_draws(PlayerReading(ReadingModel.from_player(PlayerModel.preset("average")),
                                         np.eye(len(COEFFICIENTS)) * 1e-16, np.eye(len(COEFFICIENTS)) * 1e-16, 0,
                                         (0,) * len(COEFFICIENTS), (9, 9)))
    for name, effect in STATED_EFFECTS.items():
        assert effect.coefficient in COEFFICIENTS, name
        assert (printed[name].unit, printed[name].coefficient) == (effect.unit, effect.coefficient)


def test_a_stated_effect_is_the_figure_diavolo_players_would_print_for_that_player(tmp_path):
    player = read_player(player_file(tmp_path / "stated.toml", STATED))
    printed = printed_figures(ReadingModel.from_player(player))
    for name, value in STATED.items():
        assert printed[name] == pytest.approx(value, rel=1e-6, abs=1e-6), name
    # What the file leaves out is the preset's: its plain rolls, and the assumed effects.
    average = printed_figures(ReadingModel.from_player(PlayerModel.preset("average")))
    for name in ("time highest-total", "accuracy closest", "near tie lowest-total", "accuracy near tie most-odd"):
        assert printed[name] == pytest.approx(average[name]), name


def test_a_steep_per_die_player_is_slower_on_a_bigger_variant_and_wins_on_the_kids_game_but_not_on_four_dice(
        tmp_path):
    # An expert but for the dice: each extra die costs them 350 ms on every command.
    steep = read_player(player_file(tmp_path / "steep.toml", {"per extra die": 350}, base="expert"))
    reading = ReadingModel.from_player(steep)
    printed = printed_figures(reading)
    assert printed["per extra die"] == pytest.approx(350)
    games = 3000
    for variant, wins in ((Variant.preset("kids"), True), (Variant(dice_per_color=4), False)):
        records = play_games(variant, [steep, PlayerModel.preset("average")], games, seed=3)
        win = proportion_estimate(float(records.win_share[:, 0].sum()), games)
        assert (win.low > 0.5) if wins else (win.high < 0.5), (variant.label, win)


@pytest.mark.parametrize("effects, fragment", [
    ({"tallest": 1}, "[roll-effects] unknown roll effect 'tallest'; allowed: per extra die, accuracy per extra die"),
    ({"per extra die": '"fast"'}, "[roll-effects] 'per extra die' must be a number from -60000 to 60000 ms"),
    ({"accuracy on grey": 1.5}, "[roll-effects] 'accuracy on grey' must be a number from 0 to 1"),
    ({"near tie highest-total": -5000}, "[roll-effects] 'near tie highest-total': -5000 ms is more than the "),
    ({"accuracy near tie closest": -0.99}, "[roll-effects] 'accuracy near tie closest': -0.99 takes the chance"),
])
def test_a_bad_effect_names_the_file_and_the_key(tmp_path, effects, fragment):
    path = player_file(tmp_path / "bad.toml", effects)
    with pytest.raises(InputError) as error:
        read_player(path)
    assert str(error.value).startswith(f"{path}: ") and fragment in str(error.value)


def test_a_bad_effect_is_one_line_and_exit_status_2_on_the_command_line(tmp_path):
    path = player_file(tmp_path / "bad.toml", {"per extra die": -4000})
    result = run_diavolo("game", "--players", path, "preset:average", "--games", "10", "--design-games", "0")
    assert_one_line_error(result, "bad.toml", "[roll-effects] 'per extra die'")
