"""How a run of drill trials scored: the one definition of accuracy and latency.

The drill's end-of-session summary, `diavolo report` and the player models
fitted from a log all read a log's rows through these functions, so that a
figure means the same wherever it is shown. A timeout counts as a wrong
answer; latencies are taken over correct answers only. A key pressed before
the roll appeared (an anticipation, `too_early`) is no answer to any roll,
as in reaction-time research: it is counted apart and left out of the
trials, the accuracy and the latencies.
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

    trials: rows that are not anticipations (answers and timeouts); correct
    and timeouts: counts among them; accuracy: correct over trials, a
    probability (NaN with no trials); anticipations: rows with a key pressed
    too early; median_latency_ms: over the correct answers, in ms (NaN with
    none).
    """
    early = drills["too_early"].to_numpy(dtype=bool)
    answered = drills.loc[~early]
    trials = len(answered)
    correct = int(answered["correct"].sum())
    latencies = correct_latencies_ms(answered)
    return {
        "trials": trials,
        "correct": correct,
        "accuracy": correct / trials if trials else math.nan,
        "timeouts": int(answered["timed_out"].sum()),
        "anticipations": int(early.sum()),
        "median_latency_ms": float(np.median(latencies)) if latencies.size else math.nan,
    }


def correct_latencies_ms(drills: pd.DataFrame) -> np.ndarray:
    """Latencies of the correct answers, ms."""
    # returns: (correct answers,) float64 ms
    return drills.loc[answered_correctly(drills), "latency_ms"].to_numpy(dtype=np.float64)
