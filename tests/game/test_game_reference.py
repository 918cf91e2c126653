"""The vectorized game simulator against a plain one-game-at-a-time loop written from the rules page, docs/rules.md.

`helpers.game_reference.play_one_game` is the straightforward reading of the
rules: one roll with `rules.roll`, resolved with `rules.resolve`, each
player's answer drawn from their reading of that roll, players grabbing in a
sorted list (timed by benchmarks/bench_game.py too). The two must agree on
every figure a user reads, within the simulations' own confidence intervals.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.game_reference import play_reference_games

from diavolo_stats.core.variant import Variant
from diavolo_stats.game.engine import play_games
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.settings import EndRule, GameRules

# Three comparisons per case at z = 3.29 (99.9 % each): a false alarm under 0.3 %.
Z_CHECK = 3.29



def assert_same_mean(reference: np.ndarray, simulated: np.ndarray, what: str) -> None:
    """The two samples' means differ by less than Z_CHECK standard errors of the difference."""
    error = math.sqrt(reference.var(ddof=1) / reference.size + simulated.var(ddof=1) / simulated.size)
    gap = abs(reference.mean() - simulated.mean())
    assert gap <= Z_CHECK * error, (what, reference.mean(), simulated.mean(), error)


@pytest.mark.slow  # thousands of games played one at a time: 4 to 5 s each
@pytest.mark.parametrize("end", list(EndRule))
def test_vectorized_games_match_the_one_game_at_a_time_rules(end):
    # A mixed table with every command (closest included), so speed, accuracy,
    # ties and shrinking devils all matter.
    average = PlayerModel.preset("average")
    players = [average.scaled(0.85, 0.85), average, PlayerModel.preset("novice")]
    variant = Variant()
    reference = play_reference_games(variant, players, 300, seed=11, end=end.value)
    records = play_games(variant, players, 20_000, seed=12, rules=GameRules(end=end))
    assert_same_mean(reference["rounds"], records.rounds, "rounds per game")
    assert_same_mean(reference["first_wins"], records.win_share[:, 0], "first player's wins")
    assert_same_mean(reference["grey_rounds"] / reference["rounds"], records.grey_rounds / records.rounds,
                     "grey share per game")


@pytest.mark.slow  # thousands of games played one at a time: about 8 s
def test_the_reviews_devils_match_the_one_game_at_a_time_rules_with_five_players():
    # Five players: the rulebook caps each color at 3 devils, the review's reading gives 4.
    players = [PlayerModel.preset("average")] * 4 + [PlayerModel.preset("expert")]
    rules = GameRules(devils="review")
    reference = play_reference_games(Variant(), players, 300, seed=13, devil_cap=rules.devil_cap)
    records = play_games(Variant(), players, 20_000, seed=14, rules=rules)
    assert_same_mean(reference["rounds"], records.rounds, "rounds per game")
    assert_same_mean(reference["first_wins"], records.win_share[:, 0], "first player's wins")
