"""What the report's charts are drawn from, as a process without pandas takes it: a frame's columns as arrays
(`frame_columns`), the latency chart's figures (`LatencyFigures`) and the tie rolls' labels.

The report's worker imports no pandas (`chart_processes`): it is sent these, which hold only numpy arrays and
Python values, from a module that imports numpy alone. Why: docs/architecture.md, "The report's charts".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TIE, NON_TIE = "tie", "non-tie"
"""The `roll` of `summaries.tie_versus_non_tie`'s rows, as its chart names them."""

MIN_HISTOGRAM_ANSWERS = 5
"""A player's histogram in a latency panel needs this many correct answers on the axis; fewer are named instead."""
LATENCY_UNIT_MS = 100
"""Latency histograms show the % of a player's correct answers per this many ms."""
PERCENT_PER_UNIT = 100 * LATENCY_UNIT_MS
"""A density per ms times this is the % of answers per LATENCY_UNIT_MS."""
CURVE_POINTS = 300
"""Points of a fit's curve across the axis."""


@dataclass(frozen=True)
class LatencyFigures:
    """answers: (command, player) -> (their `performance` figures, their correct latencies in ms), for each player
    who drilled the command. commands: those with a panel (a player with MIN_HISTOGRAM_ANSWERS correct answers at
    it), left_out: the others, both in the command die's order; most: command -> the most correct answers one
    player has at it. top: where the axis ends (ms), slower: the answers past it (both 0 with no panel). curves:
    (command, player) -> their fit's % of answers per LATENCY_UNIT_MS at `grid`, for each player with a histogram
    and a fit; None when no fits were given."""

    answers: dict[tuple[str, str], tuple[dict, np.ndarray]]
    commands: list[str]
    left_out: list[str]
    most: dict[str, int]
    top: float
    slower: int
    curves: dict[tuple[str, str], np.ndarray] | None

    @property
    def grid(self) -> np.ndarray:
        """The latencies (ms) each curve is given at."""
        return np.linspace(0, self.top, CURVE_POINTS)


def frame_columns(frame) -> dict[str, np.ndarray]:
    """The columns of numbers and of text of `frame` (a pandas DataFrame), each as a numpy array, by name: what a
    chart reads of it (`charts`), pickled without pandas. A categorical column's array holds its values. A column of
    other things (times of day, flags marked missing) is left out: its values are pandas objects."""
    columns = {}
    for name in frame.columns:
        values = frame[name].to_numpy()
        if values.dtype != object or all(isinstance(value, str) for value in values):
            columns[name] = values
    return columns
