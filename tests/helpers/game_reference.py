"""The game played one round at a time, read straight from the rules page (docs/rules.md): the oracle the
vectorized simulator is tested against, and the baseline benchmarks/bench_game.py times."""

from __future__ import annotations

import numpy as np

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import GREY, Variant
from diavolo_stats.drill.roll_features import played_features
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import reading_of


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

