"""How a run of drill trials scored: the one definition of accuracy and latency.

The drill's end-of-session summary, `diavolo report` and the player models
fitted from a log all read a log's rows through these functions, so that a
figure means the same wherever it is shown. A timeout and a key pressed too
early count as wrong answers; latencies are taken over correct answers only.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def answered_correctly(drills: pd.DataFrame) -> pd.Series:
    """Which rows are correct answers with a latency: (rows,) bool, aligned with `drills`."""
    return drills["correct"] & ~drills["too_early"] & ~drills["timed_out"] & drills["latency_ms"].notna()


def performance(drills: pd.DataFrame) -> dict:
    """The headline figures of some trials: the one definition `summarize` and the drill's own summary share.

    trials, correct, timeouts and too_early: counts of rows; accuracy:
    correct rows over all rows, a probability (NaN with no rows);
    median_latency_ms: over the correct answers, in ms (NaN with none).
    """
    trials = len(drills)
    correct = int(drills["correct"].sum())
    latencies = correct_latencies_ms(drills)
    return {
        "trials": trials,
        "correct": correct,
        "accuracy": correct / trials if trials else math.nan,
        "timeouts": int(drills["timed_out"].sum()),
        "too_early": int(drills["too_early"].sum()),
        "median_latency_ms": float(np.median(latencies)) if latencies.size else math.nan,
    }


def correct_latencies_ms(drills: pd.DataFrame) -> np.ndarray:
    """Latencies of the correct answers, ms."""
    # returns: (correct answers,) float64 ms
    return drills.loc[answered_correctly(drills), "latency_ms"].to_numpy(dtype=np.float64)
