"""Words for the figures a player reads: headings for field names, intervals as "82 % (74-88 %)".

The CSV and JSON files keep their field names (`median_latency_ms`): a
script reads them. A page a person reads (the report's HTML, the progress
page) says the same figures in words through this module, so a heading
means one thing everywhere: `HEADINGS` maps each field name to its heading,
and the functions below write a figure with its unit and interval.
"""

from __future__ import annotations

import math

import pandas as pd

from diavolo_stats.stats import Estimate

HEADINGS = {
    "player": "player", "command": "command", "roll": "roll", "session_number": "session",
    "session_start": "started (UTC)", "trials": "trials", "correct": "correct answers", "accuracy": "accuracy",
    "timeouts": "timed out", "anticipations": "pressed too early",
    "median_latency_ms": "median time (ms)", "mean_latency_ms": "mean time (ms)",
    "latency_iqr_ms": "middle half spread (ms)",
    "exgauss_mu_ms": "usual time, mu (ms)", "exgauss_sigma_ms": "its jitter, sigma (ms)",
    "exgauss_tau_ms": "slow tail, tau (ms)",
    "exact_tie_probability": "exact tie odds", "exact_tie_fraction": "as a fraction",
    "simulated_tie_probability": "simulated tie odds", "rounds": "rounds simulated",
    "exact_in_interval": "exact inside the interval",
}
"""The heading a page shows for each field name."""

INTERVAL_PAIRS = {"accuracy": ("accuracy_ci_low", "accuracy_ci_high"),
                  "simulated_tie_probability": ("ci95_low", "ci95_high")}
"""Figures whose 95 % interval is two more fields: a page shows the three as one cell, "82 % (74-88 %)"."""


def percent(value: float, digits: int = 0) -> str:
    """A probability as a percentage, "82 %"; "none" for NaN (no trials)."""
    return "none" if _missing(value) else f"{100 * value:.{digits}f} %"


def percent_interval(estimate: Estimate, digits: int = 0) -> str:
    """A probability with its interval, "82 % (74-88 %)"."""
    if _missing(estimate.value):
        return "none"
    return f"{percent(estimate.value, digits)} ({percent_range(estimate, digits)})"


def percent_range(estimate: Estimate, digits: int = 0) -> str:
    """A probability's interval alone, "74-88 %"."""
    return f"{100 * estimate.low:.{digits}f}-{100 * estimate.high:.{digits}f} %"


def milliseconds(value: float) -> str:
    """A time in whole ms, "1,240 ms"; "none" for NaN (no correct answer)."""
    return "none" if _missing(value) else f"{value:,.0f} ms"


def milliseconds_interval(estimate: Estimate) -> str:
    """A time with its interval, "1,240 ms (1,100-1,390 ms)"."""
    return "none" if _missing(estimate.value) else f"{milliseconds(estimate.value)} ({milliseconds_range(estimate)})"


def milliseconds_range(estimate: Estimate) -> str:
    """A time's interval alone, "1,100-1,390 ms"."""
    return f"{estimate.low:,.0f}-{estimate.high:,.0f} ms"


def accuracy_change(change: float) -> str:
    """A change in accuracy in percentage points: "4 points better", "no change", "" with nothing to compare."""
    if _missing(change):
        return ""
    if round(100 * change) == 0:
        return "no change"
    return f"{_points(abs(change))} {'better' if change > 0 else 'worse'}"


def time_change(change_ms: float) -> str:
    """A change in time: "120 ms faster", "no change", "" with nothing to compare."""
    if _missing(change_ms):
        return ""
    shown = round(change_ms)
    if shown == 0:
        return "no change"
    return f"{abs(shown):,} ms {'slower' if shown > 0 else 'faster'}"


def reading_cost(what: str, cost: Estimate, answers: int, unit: str = "ms") -> str:
    """What a feature of a roll costs a player, from their fitted model: "near ties on highest total cost you
    180 ms (120-240 ms), from 57 of your answers"; "each extra die costs you 2 points of accuracy (1-3 points),
    ..." with `unit` "points" (`cost` a probability lost). `what` is plural, or starts with "each"."""
    verb = "costs" if what.startswith("each ") else "cost"
    if unit == "points":
        shown = f"{_points(cost.value)} of accuracy ({100 * cost.low:.0f}-{100 * cost.high:.0f} points)"
    else:
        shown = milliseconds_interval(cost)
    return f"{what} {verb} you {shown}, from {answers} of your answers"


def reading_accuracy(what: str, on: Estimate, otherwise: float, answers: int) -> str:
    """A player's accuracy on some rolls against the others, from their fitted model: "you answer grey right
    71 % of the time (60-80 %) vs 90 % otherwise, from 40 of your answers"."""
    return (f"you answer {what} right {percent(on.value)} of the time ({percent_range(on)}) vs "
            f"{percent(otherwise)} otherwise, from {answers} of your answers")


def _points(change: float) -> str:
    """A probability as percentage points, "1 point", "4 points"."""
    points = round(100 * change)
    return f"{points} {'point' if points == 1 else 'points'}"


def sentence(words: str) -> str:
    """Words as a sentence for a page: a capital first (the rest as it is: names keep their case), a full stop
    last; "" stays "" (nothing to say)."""
    return words[0].upper() + words[1:] + "." if words else ""


def readable(frame: pd.DataFrame, digits: int = 0) -> pd.DataFrame:
    """`frame` (from `summaries` or `tie_frequency`) for a page: each INTERVAL_PAIRS figure and its bounds as one
    column of "82 % (74-88 %)", times in whole ms, every column under its HEADINGS heading (others as named)."""
    shown = pd.DataFrame(index=frame.index)
    bounds = {field for pair in INTERVAL_PAIRS.values() for field in pair}
    for column in frame.columns:
        if column in bounds:
            continue
        values = frame[column]
        if column in INTERVAL_PAIRS and all(field in frame.columns for field in INTERVAL_PAIRS[column]):
            low, high = (frame[field] for field in INTERVAL_PAIRS[column])
            values = [percent_interval(Estimate(v, lo, hi), digits) for v, lo, hi in zip(values, low, high)]
            shown[HEADINGS.get(column, column) + " (95 % interval)"] = values
            continue
        if column.endswith("_ms"):
            values = [_formatted(v, lambda number: f"{number:,.0f}") for v in values]
        elif column.endswith("_probability"):
            values = [_formatted(v, lambda number: percent(number, digits)) for v in values]
        elif column == "accuracy":
            values = [_formatted(v, lambda number: percent(number, digits)) for v in values]
        shown[HEADINGS.get(column, column)] = values
    return shown


def _formatted(value, shown) -> str:
    """A number as `shown` writes it, text as it is, "" for a missing one."""
    if isinstance(value, str):
        return value
    return "" if _missing(value) else shown(value)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or pd.isna(value)
