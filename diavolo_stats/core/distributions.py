"""One color's distribution of a command's chain of figures, by a dynamic program over faces.

The rolls are counted, never enumerated. States are capped at `MAX_STATES`; past it the odds are refused with
one line naming the limit and pointing to `diavolo simulate`. How the program counts: docs/architecture.md,
"Exact odds".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import lru_cache
from math import comb

import numpy as np

from diavolo_stats.core.budget import WorkBudget
from diavolo_stats.core.commands import Criterion
from diavolo_stats.core.figures import DiceFigure
from diavolo_stats.errors import InputError

MAX_STATES = 100_000
"""The most states the dynamic program keeps at once for one color (each a count of dice used and the
evaluators' states); more is refused: `diavolo simulate` estimates any variant."""


def chain_distribution(chain: tuple[Criterion, ...], count: int, faces: tuple[int, ...],
                       budget: WorkBudget | None = None) -> dict[tuple, int]:
    """How many of the `len(faces) ** count` ordered rolls give each key: {key: rolls}.

    A key holds the chain's figures in order, each negated when the lowest
    wins, so that a larger key (compared as tuples) is always better.
    InputError when more than MAX_STATES states would be needed, or more steps than `budget` allows (one
    step: one state taken through one face value).
    """
    by_figures = figure_distribution(tuple(criterion.figure for criterion in chain), count, faces, budget)
    signs = [1 if criterion.highest else -1 for criterion in chain]
    return {tuple(sign * value for sign, value in zip(signs, values)): rolls for values, rolls in by_figures.items()}


@lru_cache(maxsize=512)
def figure_distribution(figures: tuple[DiceFigure, ...], count: int, faces: tuple[int, ...],
                        budget: WorkBudget | None = None) -> dict[tuple, int]:
    """How many of the `len(faces) ** count` ordered rolls show each tuple of `figures`: {figures: rolls};
    each state taken through a face value spends a step of `budget` (none: no bound but MAX_STATES)."""
    if figures == (DiceFigure("sum"),):
        return {(total,): rolls for total, rolls in _sum_counts(count, faces).items()}
    multiplicity = Counter(faces)
    values = sorted(multiplicity)
    states: dict[tuple, int] = {(0, tuple(figure.start() for figure in figures)): 1}
    done: dict[tuple, int] = defaultdict(int)  # states with every die placed: no larger face changes them
    for position, value in enumerate(values):
        last = position == len(values) - 1
        showing = multiplicity[value]
        following: dict[tuple, int] = defaultdict(int)
        for (used, folded), rolls in states.items():
            if budget is not None:
                budget.spend(1)
            free = count - used
            for k in (range(free, free + 1) if last else range(free + 1)):
                state = tuple(figure.fold(s, value, k, used, count) for figure, s in zip(figures, folded))
                if k == free:
                    done[state] += rolls * showing**k
                else:
                    following[(used + k, state)] += rolls * comb(free, k) * showing**k
            if len(following) + len(done) > MAX_STATES:  # checked as the states grow, to refuse early
                raise InputError(f"exact odds of {', '.join(map(str, figures))} over {count} dice of {len(faces)} "
                                 f"faces need more than {MAX_STATES:,} states; estimate them with `diavolo simulate`",
                                 field="commands")
        states = following
    shown: dict[tuple, int] = defaultdict(int)
    for folded, rolls in done.items():
        shown[tuple(figure.result(s) for figure, s in zip(figures, folded))] += rolls
    return dict(shown)


def _sum_counts(count: int, faces: tuple[int, ...]) -> dict[int, int]:
    """Rolls per total of `count` dice: one die at a time, a convolution (exact integers in object arrays), as
    cheap as a sum's dynamic program gets (12d100 in milliseconds)."""
    low, high = min(faces), max(faces)
    one = np.zeros(high - low + 1, dtype=object)
    for face in faces:
        one[face - low] += 1
    totals = np.array([1], dtype=object)
    for _ in range(count):
        totals = np.convolve(totals, one)
    return {count * low + offset: int(rolls) for offset, rolls in enumerate(totals) if rolls}
