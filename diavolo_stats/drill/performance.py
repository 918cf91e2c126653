"""How a run of drill trials scored: the one definition of accuracy and latency.

The drill's end-of-session summary, `diavolo report` and the player models fitted from a log all read a log's
rows through these functions, so a figure means the same wherever it is shown. A timeout counts as a wrong
answer; latencies are taken over correct answers only. An anticipation (a key pressed before the roll, or an
answer faster than `drill.MIN_LATENCY_MS`; `anticipated`) is no answer to any roll, as in reaction-time
research: it is counted apart, outside the trials, the accuracy and the latencies.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from diavolo_stats.drill import MIN_LATENCY_MS


def anticipated(drills: pd.DataFrame) -> np.ndarray:
    """Which rows are anticipations: a key pressed too early, or an answer under MIN_LATENCY_MS (pressed before
    the roll was seen): (rows,) bool. The columns read: too_early, latency_ms."""
    latency_ms = drills["latency_ms"].to_numpy(dtype=np.float64)  # NaN (no answer) is under nothing
    return drills["too_early"].to_numpy(dtype=bool) | (latency_ms < MIN_LATENCY_MS)


def answered_correctly(drills: pd.DataFrame) -> pd.Series:
    """Which rows are correct answers with a latency, anticipations left out: (rows,) bool, aligned with
    `drills`."""
    return drills["correct"] & ~anticipated(drills) & ~drills["timed_out"] & drills["latency_ms"].notna()


def performance(drills: pd.DataFrame) -> dict:
    """The headline figures of some trials: the one definition `summarize` and the drill's own summary share.

    trials: rows that are not anticipations (answers and timeouts); correct
    and timeouts: counts among them; accuracy: correct over trials, a
    probability (NaN with no trials); anticipations: rows with a key pressed
    too early; median_latency_ms: over the correct answers, in ms (NaN with
    none).
    """
    [(figures, _)] = grouped_performance(drills, np.zeros(len(drills), dtype=np.intp), 1)
    return figures


def grouped_performance(drills: pd.DataFrame, groups: np.ndarray, count: int) -> list[tuple[dict, np.ndarray]]:
    """`performance` of each of `count` groups of rows, with the group's correct latencies (ms, in row order).

    groups: each row's group, 0 to count - 1, or -1 for a row in none. One pass over the rows, however many
    groups: selecting each group's rows from a million-row log cost more than all the figures.
    """
    # groups: (rows,) intp; returns count pairs (figures, (correct answers,) float64 ms)
    grouped = groups >= 0
    early = anticipated(drills)
    # Each row's kind: an anticipation (4), else an answer, correct (bit 1) or not, timed out (bit 2) or not; the
    # rows of each group and kind counted in one pass.
    kind = np.where(early, 4, drills["correct"].to_numpy(dtype=np.int8) + 2 * drills["timed_out"].to_numpy(np.int8))
    counts = np.bincount(groups[grouped] * 5 + kind[grouped], minlength=count * 5).reshape(count, 5)
    answers, right, timeouts = counts[:, :4].sum(axis=1), counts[:, 1] + counts[:, 3], counts[:, 2] + counts[:, 3]
    timed = answered_correctly(drills).to_numpy(dtype=bool) & grouped
    # A stable sort keeps each group's latencies in row order: the mean and the fit add them up in that order. Group
    # numbers in the narrowest type that holds them: numpy's stable sort of 8 or 16-bit integers is a radix sort.
    order = np.argsort(groups[timed].astype(np.min_scalar_type(count)), kind="stable")
    latencies = drills["latency_ms"].to_numpy(dtype=np.float64)[timed][order]
    per_group = np.split(latencies, np.cumsum(np.bincount(groups[timed], minlength=count))[:-1])
    return [({"trials": trials, "correct": correct, "accuracy": correct / trials if trials else math.nan,
              "timeouts": timeouts, "anticipations": anticipations,
              "median_latency_ms": float(np.median(times)) if times.size else math.nan}, times)
            for trials, correct, timeouts, anticipations, times in zip(
                answers.tolist(), right.tolist(), timeouts.tolist(), counts[:, 4].tolist(), per_group)]


def correct_latencies_ms(drills: pd.DataFrame) -> np.ndarray:
    """Latencies of the correct answers, ms."""
    # returns: (correct answers,) float64 ms
    return drills.loc[answered_correctly(drills), "latency_ms"].to_numpy(dtype=np.float64)
