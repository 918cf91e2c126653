"""How strong each die is: the chance it wins a trick against k random dice from the bag.

The die is rolled in a trick with k other dice drawn from the bag without replacement, in a uniformly random
order, and the trick resolved by `resolve_trick`; nobody chooses anything, so the follow rule plays no part.
Exact (a `Fraction`) by enumerating the drawn dice and their faces when that is cheap, else simulated with its
interval.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from diavolo_stats.errors import InputError
from diavolo_stats.minodice.dice import FACES_PER_DIE, Bag, as_bag
from diavolo_stats.minodice.options import MAX_PLAYERS, Rules
from diavolo_stats.minodice.tricks import NO_WINNER, resolve_tricks
from diavolo_stats.results import NotedRows
from diavolo_stats.stats import CONFIDENCE, Estimate, proportion_estimate
from diavolo_stats.validation import OneOf, Several, Whole, check_value, checked

MAX_AGAINST = MAX_PLAYERS - 1
AGAINST = Several(Whole(1), noun="count")
"""`die_odds`' `against`: the numbers of other dice in a trick, each once (each also at most the bag allows)."""
"""A trick has at most one die per player."""

ENUMERATION_LIMIT = 400_000
"""Largest number of face combinations `die_odds` enumerates for one die and k before it simulates instead."""

METHODS = ("auto", "exact", "simulated")


def _check_against(bag: Bag, against: int) -> int:
    most = min(MAX_AGAINST, bag.size - 1)
    if check_value("against", against, Whole(1)) > most:
        raise InputError(f"must be 1 to {most} (a trick has at most {MAX_PLAYERS} dice), got {against!r}",
                         field="against")
    return against


def _others(bag: Bag, die: int) -> np.ndarray:
    """How many dice of each type are left once one die of type `die` is taken out: (types,) int64."""
    left = bag.counts()
    left[die] -= 1
    return left


def _draws(bag: Bag, die: int, against: int):
    """Every multiset of `against` dice that can be drawn from the rest of the bag, and in how many ways."""
    left = _others(bag, die)
    for drawn in itertools.combinations_with_replacement(range(len(bag.dice)), against):
        held = np.bincount(drawn, minlength=len(bag.dice))
        if (held <= left).all():
            yield drawn, math.prod(math.comb(int(n), int(m)) for n, m in zip(left, held))


def _distinct_faces(bag: Bag) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each type, its distinct face codes and how many faces show each."""
    return [np.unique(np.array(die.faces, dtype=np.int8), return_counts=True) for die in bag.dice]


def enumeration_size(bag: Bag, die: str, against: int) -> int:
    """How many face combinations `exact_win_probability` resolves for this die and k."""
    x = bag.index(die)
    distinct = [len(codes) for codes, _ in _distinct_faces(bag)]
    drawings = _draws(bag, x, _check_against(bag, against))
    return distinct[x] * sum(math.prod(distinct[t] for t in drawn) for drawn, _ in drawings)


def exact_win_probability(bag: Bag, die: str, against: int, rules: Rules = Rules()) -> Fraction:
    """The exact chance that `die` wins a trick against `against` random dice from the bag.

    Enumerates every multiset of drawn dice (weighted by the ways to draw it)
    and every face each die can show. The winning face does not depend on the
    roll order; under a uniformly random order each of the c dice showing it
    is equally likely to be the one the rules pick, so the die wins with
    chance 1/c when it shows the winning face.
    """
    x = bag.index(die)
    _check_against(bag, against)
    distinct = _distinct_faces(bag)
    common = math.lcm(*range(1, against + 2))  # clears the 1/c denominators
    wins = 0
    for drawn, ways in _draws(bag, x, against):
        faces = [distinct[x]] + [distinct[t] for t in drawn]
        codes = np.stack([grid.ravel() for grid in np.meshgrid(*(c for c, _ in faces), indexing="ij")], axis=1)
        weights = np.prod([grid.ravel() for grid in np.meshgrid(*(w for _, w in faces), indexing="ij")], axis=0)
        # codes: (combinations, 1 + against) int8, the die first; weights: (combinations,) int64
        winner = resolve_tricks(codes, rules).winner
        taken = winner != NO_WINNER  # a trick of flags nobody takes is won by no die
        winning_face = codes[np.arange(len(codes)), np.maximum(winner, 0)]
        showing = (codes == winning_face[:, None]).sum(axis=1)
        won = taken & (codes[:, 0] == winning_face)
        wins += ways * int((weights[won] * (common // showing[won])).sum())
    total_ways = math.comb(int(_others(bag, x).sum()), against)
    return Fraction(wins, total_ways * FACES_PER_DIE ** (against + 1) * common)


BATCH_TRICKS = 100_000
"""Tricks simulated per batch (a fixed size, so the same seed gives the same figure)."""

MAX_TRICK_SIMULATIONS = 10**9
"""The most tricks simulated per figure; memory stays flat up to it, more is refused."""


@checked(simulations=Whole(1, MAX_TRICK_SIMULATIONS), confidence=CONFIDENCE)
def simulated_win_probability(bag: Bag, die: str, against: int, rules: Rules = Rules(),
                              simulations: int = 100_000, seed: int | np.random.Generator | None = None,
                              confidence: float = 0.95) -> Estimate:
    """The chance that `die` wins a trick against `against` random dice, estimated from `simulations` tricks."""
    x = bag.index(die)
    _check_against(bag, against)
    rng = np.random.default_rng(seed)
    left = np.repeat(np.arange(len(bag.dice), dtype=np.int8), _others(bag, x))
    faces = bag.face_codes()
    won = 0
    for start in range(0, simulations, BATCH_TRICKS):  # in batches: memory stays flat
        tricks = min(BATCH_TRICKS, simulations - start)
        drawn = rng.permuted(np.tile(left, (tricks, 1)), axis=1)[:, :against]
        others = faces[drawn, rng.integers(0, FACES_PER_DIE, size=drawn.shape)]
        own = faces[x, rng.integers(0, FACES_PER_DIE, size=tricks)]
        place = rng.integers(0, against + 1, size=tricks)
        # others: (tricks, against) int8; own, place: (tricks,); the die goes in at `place`
        column = np.arange(against + 1)[None, :]
        source = np.where(column < place[:, None], column, column - 1)
        faces = np.where(column == place[:, None], own[:, None],
                         np.take_along_axis(others, np.clip(source, 0, None), axis=1))
        won += int((resolve_tricks(faces, rules).winner == place).sum())
    return proportion_estimate(won, simulations, confidence)


@dataclass(frozen=True)
class WinOdds:
    """The chance one die type wins against `against` random dice; `exact` is None when simulated."""

    die: str
    against: int
    estimate: Estimate
    exact: Fraction | None

    @property
    def method(self) -> str:
        return "simulated" if self.exact is None else "exact"


@dataclass(frozen=True)
class DieOdds(NotedRows):
    """Win chances of every die type (`odds`, by die then k), and each type's chance of rolling a flag.

    kinds: each type's kind by name, "number" or its character (`Die.kind`).
    """

    dice: str
    rules: Rules
    in_bag: dict[str, int]
    kinds: dict[str, str]
    flag: dict[str, Fraction]
    odds: tuple[WinOdds, ...]
    simulations: int
    seed: int | None
    confidence: float

    text_columns = ("die", "in_bag", "flag", "against", "win", "low", "high", "method")
    # A CSV travels without the notes, so its rows carry the dice's provenance in a column.
    columns = (*text_columns, "dice")

    def rows(self) -> list[dict[str, object]]:
        """One row per die type and k; exact rows have low == high == win."""
        return [{"die": odds.die, "in_bag": self.in_bag[odds.die], "flag": float(self.flag[odds.die]),
                 "against": odds.against, "win": odds.estimate.value, "low": odds.estimate.low,
                 "high": odds.estimate.high, "method": odds.method, "dice": self.dice} for odds in self.odds]

    def document(self) -> dict[str, object]:
        """The odds as plain JSON types, one entry per die type; exact figures also as "p/q" text."""
        return {
            "dice": self.dice, "rules": dataclasses.asdict(self.rules), "simulations": self.simulations,
            "seed": self.seed, "confidence": self.confidence,
            "dice_odds": [
                {"die": name, "in_bag": self.in_bag[name],
                 "flag": {"probability": float(self.flag[name]), "exact": str(self.flag[name])},
                 "wins": [{"against": odds.against, "probability": odds.estimate.value,
                           "interval": odds.estimate.bounds, "method": odds.method,
                           "exact": None if odds.exact is None else str(odds.exact)}
                          for odds in self.odds if odds.die == name]}
                for name in self.in_bag],
        }

    def notes(self) -> list[str]:
        """Lines for people: what the figures mean, how they were made, and with which dice."""
        return [
            "win: chance the die wins a trick against `against` dice drawn at random from the rest of the bag, "
            "all rolled in a random order; flag: chance one roll shows a flag",
            f"some rows simulated: {self.simulations} tricks each, seed {self.seed}, {self.confidence:.0%} intervals"
            if any(odds.exact is None for odds in self.odds) else "every row exact (enumerated)",
            self.dice,
        ]


@checked(method=OneOf(METHODS), simulations=Whole(1, MAX_TRICK_SIMULATIONS), confidence=CONFIDENCE,
         enumeration_limit=Whole(0))
def die_odds(bag: Bag | str | Path | None = None, against: Sequence[int] = tuple(range(1, MAX_AGAINST + 1)),
             rules: Rules = Rules(), method: str = "auto", simulations: int = 100_000,
             seed: int | None = None, confidence: float = 0.95,
             enumeration_limit: int = ENUMERATION_LIMIT) -> DieOdds:
    """Every die type's chance of winning against each k in `against`, and of rolling a flag.

    method: "exact" enumerates always, "simulated" always simulates, "auto"
    enumerates when `enumeration_size` is at most `enumeration_limit`.
    `bag` is a Bag, a dice file, or None for the shipped dice.
    Simulated rows use `simulations` tricks each; with `seed` None a fresh
    seed is drawn and reported.
    """
    bag = as_bag(bag)
    against = tuple(_check_against(bag, k) for k in check_value("against", against, AGAINST))
    if seed is None:
        seed = np.random.SeedSequence().entropy
    odds = []
    for die in bag.dice:
        for k in against:
            exact = method == "exact" or (method == "auto" and enumeration_size(bag, die.name, k) <= enumeration_limit)
            if exact:
                value = exact_win_probability(bag, die.name, k, rules)
                odds.append(WinOdds(die.name, k, Estimate.exact(float(value)), value))
            else:
                # One stream per (die, k): a row's figure does not depend on which other rows were asked for.
                stream = np.random.SeedSequence(seed, spawn_key=(bag.names.index(die.name), k))
                estimate = simulated_win_probability(bag, die.name, k, rules, simulations,
                                                     np.random.default_rng(stream), confidence)
                odds.append(WinOdds(die.name, k, estimate, None))
    return DieOdds(dice=bag.provenance, rules=rules, in_bag={die.name: die.count for die in bag.dice},
                     kinds={die.name: die.kind for die in bag.dice},
                     flag={die.name: die.flag_probability for die in bag.dice}, odds=tuple(odds),
                     simulations=simulations, seed=seed, confidence=confidence)
