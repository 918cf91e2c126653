"""The bid advisor: how many tricks a hand wins, and what each bid is worth on average.

`advise_bid` deals the other hands from what is left in the bag, plays the
round many times with the baseline play policy (see `play`), and scores
every possible bid against the tricks this hand won.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from diavolo_stats.minodice.dice import Bag, as_bag
from diavolo_stats.minodice.options import Rules, check_round
from diavolo_stats.minodice.play import deal, play_tricks
from diavolo_stats.minodice.scoring import score_round
from diavolo_stats.results import NotedRows
from diavolo_stats.stats import CONFIDENCE, Estimate, mean_estimate_from_sums, proportion_estimate
from diavolo_stats.validation import Whole, checked

BATCH_GAMES = 50_000
"""Rounds simulated per batch, to bound memory (about 1 kB per round)."""

MAX_BID_SIMULATIONS = 10**9
"""The most rounds one bid advice simulates (hours of work); memory stays flat up to it, more is refused."""


def _add_sums(sums: list[int], samples: np.ndarray) -> None:
    """Add whole-number samples to [sum, sum of squares], exactly."""
    samples = samples.astype(np.int64)
    sums[0] += int(samples.sum())
    sums[1] += int((samples * samples).sum())


@dataclass(frozen=True)
class BidAdvice(NotedRows):
    """What a hand can expect in a round.

    tricks: for n = 0..round_number, the probability this hand wins exactly n tricks.
    expected_scores: for each bid 0..round_number, the mean points it scores (points per round).
    best_bid: the bid with the highest expected score.
    expected_tricks: mean tricks this hand wins.
    seat: 1 to players (1 leads the first trick), or None for a uniformly random seat.
    seed: the seed the simulation used (None when a Generator was passed).
    """

    hand: tuple[str, ...]
    round_number: int
    players: int
    seat: int | None
    rules: Rules
    dice: str
    simulations: int
    seed: int | None
    confidence: float
    tricks: tuple[Estimate, ...]
    expected_scores: tuple[Estimate, ...]
    expected_tricks: Estimate
    best_bid: int

    text_columns = ("n", "p_tricks", "p_low", "p_high", "bid_score", "score_low", "score_high", "best")
    # A CSV travels without the notes, so its rows carry the dice's provenance in a column.
    columns = (*text_columns, "dice")

    def rows(self) -> list[dict[str, object]]:
        """One row per n = 0..round: P(exactly n tricks) and the expected score of bidding n, with intervals."""
        return [{"n": n, "p_tricks": trick.value, "p_low": trick.low, "p_high": trick.high,
                 "bid_score": score.value, "score_low": score.low, "score_high": score.high,
                 "best": "<- best" if n == self.best_bid else "", "dice": self.dice}
                for n, (trick, score) in enumerate(zip(self.tricks, self.expected_scores))]

    def document(self) -> dict[str, object]:
        """The advice as plain JSON types: the request, the trick distribution, every bid, the best bid."""
        return {
            "hand": list(self.hand), "round": self.round_number, "players": self.players, "seat": self.seat,
            "rules": dataclasses.asdict(self.rules), "dice": self.dice, "simulations": self.simulations,
            "seed": self.seed, "confidence": self.confidence,
            "expected_tricks": {"value": self.expected_tricks.value,
                                "interval": self.expected_tricks.bounds},
            "tricks": [{"tricks": n, "probability": e.value, "interval": e.bounds}
                       for n, e in enumerate(self.tricks)],
            "bids": [{"bid": n, "expected_score": e.value, "interval": e.bounds}
                     for n, e in enumerate(self.expected_scores)],
            "best_bid": self.best_bid,
        }

    def notes(self) -> list[str]:
        """Lines for people: what was simulated, with which dice, and the best bid."""
        seat = "a random seat" if self.seat is None else f"seat {self.seat} (1 leads the first trick)"
        return [
            "p_tricks: chance this hand wins exactly n tricks; bid_score: expected points of bidding n",
            f"hand {','.join(self.hand)}, round {self.round_number}, {self.players} players, {seat}",
            f"{self.simulations} simulated rounds, seed {self.seed}, {self.confidence:.0%} intervals; "
            "baseline play: every player rolls a random allowed die",
            self.dice,
            f"expected tricks {self.expected_tricks.value:.3f}; best bid {self.best_bid} "
            f"(expected {self.expected_scores[self.best_bid].value:.1f} points)",
        ]


@checked(simulations=Whole(2, MAX_BID_SIMULATIONS), confidence=CONFIDENCE)
def advise_bid(hand: str | list[str] | tuple[str, ...], round_number: int, players: int, *,
               bag: Bag | str | Path | None = None, rules: Rules = Rules(), seat: int | None = None,
               simulations: int = 20_000, seed: int | np.random.Generator | None = None,
               confidence: float = 0.95) -> BidAdvice:
    """Simulate a round `simulations` times with this hand and score every bid; see `BidAdvice`.

    `hand` is die names ("black,mermaid,yellow" or a list); it must hold
    exactly `round_number` dice. `bag` is a Bag, a dice file, or None for the shipped dice. With
    `seed` None a fresh seed is drawn and reported, so any run can be repeated.
    """
    check_round(round_number, players)  # before anything sized by the round is made
    bag = as_bag(bag)
    types = bag.parse_hand(hand)
    if seed is None:
        seed = np.random.SeedSequence().entropy
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    # Only sums are kept, batch by batch, so memory stays flat for any number of simulations.
    counts = np.zeros(round_number + 1, dtype=np.int64)
    score_sums = [[0, 0] for _ in range(round_number + 1)]  # per bid: sum and sum of squares (Python ints)
    trick_sums = [0, 0]
    for start in range(0, simulations, BATCH_GAMES):
        games = min(BATCH_GAMES, simulations - start)
        dealt = deal(bag, players, round_number, games, rng, hand=types, seat=seat)
        record = play_tricks(bag, dealt.hands, rules, rng)
        game = np.arange(games)
        # tricks, griffins, mermaid: (games,) int16, this hand's results (mermaid: what its bonus counts)
        tricks = record.tricks_won[game, dealt.seat].astype(np.int64)
        griffins = record.griffins_beaten[game, dealt.seat]
        mermaid = getattr(record, rules.mermaid_column)[game, dealt.seat]
        counts += np.bincount(tricks, minlength=round_number + 1)
        _add_sums(trick_sums, tricks)
        for bid in range(round_number + 1):
            _add_sums(score_sums[bid], score_round(bid, tricks, round_number, griffins, mermaid, rules))
    scores = [mean_estimate_from_sums(simulations, total, squares, confidence) for total, squares in score_sums]
    return BidAdvice(
        hand=tuple(bag.dice[t].name for t in types), round_number=round_number, players=players, seat=seat,
        rules=rules, dice=bag.provenance, simulations=simulations,
        seed=None if isinstance(seed, np.random.Generator) else seed, confidence=confidence,
        tricks=tuple(proportion_estimate(int(count), simulations, confidence) for count in counts),
        expected_scores=tuple(scores), expected_tricks=mean_estimate_from_sums(simulations, *trick_sums, confidence),
        best_bid=int(np.argmax([score.value for score in scores])),
    )
