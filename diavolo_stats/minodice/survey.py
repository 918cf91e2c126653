"""Designer views over many hands, as pandas tables for notebooks.

Kept apart from the command line's modules so that `diavolo minodice` does
not pay for importing pandas.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.minodice.bidding import advise_bid
from diavolo_stats.minodice.dice import Bag, as_bag
from diavolo_stats.minodice.options import Rules, rounds_for_players
from diavolo_stats.minodice.play import deal


def bid_survey(players: int = 4, hands_per_round: int = 12, simulations: int = 2_000, seed: int = 0,
               bag: Bag | str | Path | None = None, rules: Rules = Rules()) -> pd.DataFrame:
    """Best bid against hand strength, for random hands in every round of a `players`-player game.

    Returns one row per hand: round, hand (die names), expected_tricks (the
    hand's strength: mean tricks it wins under the baseline play policy),
    best_bid, best_score (its expected points) and zero_bid_score (expected
    points of bidding 0). Each hand is advised from `simulations` rounds at a
    random seat; everything is drawn from one Generator seeded with `seed`.
    """
    bag = as_bag(bag)
    rng = np.random.default_rng(seed)
    rows = []
    for round_number in range(1, rounds_for_players(players) + 1):
        for hand in deal(bag, players, round_number, hands_per_round, rng).hands[:, 0]:
            advice = advise_bid([bag.dice[t].name for t in sorted(hand)], round_number, players, bag=bag,
                                rules=rules, simulations=simulations, seed=rng)
            rows.append({"round": round_number, "hand": ",".join(advice.hand),
                         "expected_tricks": advice.expected_tricks.value, "best_bid": advice.best_bid,
                         "best_score": advice.expected_scores[advice.best_bid].value,
                         "zero_bid_score": advice.expected_scores[0].value})
    return pd.DataFrame(rows)
