"""The vectorized game simulator against a plain one-game-at-a-time loop written from the rules page, docs/rules.md.

`play_one_game` is the straightforward reading of the rules: one roll with
`rules.roll`, resolved with `rules.resolve`, each player's answer drawn from
their reading of that roll, players grabbing in a sorted list. It lives
here (and is timed by benchmarks/bench_game.py), never in the package. The
two must agree on every figure a user reads, within the simulations' own
confidence intervals.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import GREY, Variant
from diavolo_stats.drill.roll_features import played_features
from diavolo_stats.game.games import EndRule, GameRules, play_games
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import reading_of

# Three comparisons per case at z = 3.29 (99.9 % each): a false alarm under 0.3 %.
Z_CHECK = 3.29


def play_one_game(variant: Variant, players: list[PlayerModel], rng: np.random.Generator,
                  end: str = "last-standing", max_rounds: int = 500,
                  devil_cap: int | None = 3) -> tuple[int, list[int], int]:
    """One game: (rounds played, indexes of the winners, grey rounds)."""
    gems = [5] * len(players)
    grey_rounds = 0
    for played in range(1, max_rounds + 1):
        rolled = roll(variant, rng)
        answer = resolve(variant, rolled.command, rolled.dice, rolled.positions).answer
        tie = answer == GREY
        features = played_features(variant, [rolled])
        grabs = []
        for seat, player in enumerate(players):
            if gems[seat] == 0:
                continue
            correct, latency_ms = reading_of(player).sample(features, rng)
            if correct[0]:
                choice = answer
            elif tie:
                choice = variant.colors[rng.integers(len(variant.colors))]
            elif rng.random() < player.wrong_grey_share:
                choice = GREY
            else:
                others = [color for color in variant.colors if color != answer]
                choice = others[rng.integers(len(others))]
            grabs.append((latency_ms[0], seat, choice))
        devils_left = {color: min(len(grabs) - 1, devil_cap or len(grabs)) for color in variant.colors}
        devils_left[GREY] = 1
        holding = {}
        for _, seat, choice in sorted(grabs):
            if devils_left[choice] > 0:
                devils_left[choice] -= 1
                holding[seat] = choice
        for _, seat, _ in grabs:
            if holding.get(seat) != answer:
                gems[seat] -= 1
            elif tie:
                gems[seat] = min(gems[seat] + 1, 5)
        grey_rounds += tie
        still_in = [seat for seat, held in enumerate(gems) if held > 0]
        if end == "last-standing" and len(still_in) <= 1:
            return played, still_in, grey_rounds
        if end == "first-out" and len(still_in) < len(grabs):
            best = max(gems)
            return played, [seat for seat, held in enumerate(gems) if held == best and best > 0], grey_rounds
    return max_rounds, [], grey_rounds


def play_reference_games(variant: Variant, players: list[PlayerModel], games: int, seed: int,
                         end: str = "last-standing", devil_cap: int | None = 3) -> dict[str, np.ndarray]:
    """`games` games of `play_one_game`: rounds, player 0's win share and grey rounds per game."""
    rng = np.random.default_rng(seed)
    rounds, first_wins, grey = [], [], []
    for _ in range(games):
        played, winners, grey_rounds = play_one_game(variant, players, rng, end, devil_cap=devil_cap)
        rounds.append(played)
        first_wins.append(1 / len(winners) if 0 in winners else 0.0)
        grey.append(grey_rounds)
    return {"rounds": np.array(rounds), "first_wins": np.array(first_wins), "grey_rounds": np.array(grey)}


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
