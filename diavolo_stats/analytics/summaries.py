"""What drill logs say about a player: accuracy, latency, learning, tie rolls.

Every function takes the DataFrame that `drill_log.load_logs` returns (one
row per trial) and returns a new DataFrame; nothing is written anywhere.

Why it works as it does: docs/architecture.md, "What a player's figures mean".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from diavolo_stats.analytics.chart_data import NON_TIE, TIE
from diavolo_stats.core.variant import ALL_COMMANDS
from diavolo_stats.core.workers import threads
from diavolo_stats.drill.log import kept_rows
from diavolo_stats.drill.log.rules import command_order
from diavolo_stats.drill.performance import grouped_performance
from diavolo_stats.errors import InputError
from diavolo_stats.stats import ExGaussian, fit_ex_gaussians, proportion_estimate

SUMMARY_FIGURES = (
    "trials", "correct", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "timeouts", "anticipations",
    "median_latency_ms", "mean_latency_ms", "latency_iqr_ms",
    "exgauss_mu_ms", "exgauss_sigma_ms", "exgauss_tau_ms",
)
"""The columns `summarize` adds after the grouping columns, in this order."""

COMMAND_ORDER = [command.value for command in ALL_COMMANDS]

DENSE_GROUPS = 1 << 16
"""`grouped_rows` numbers the groups by counting each combination of its columns' codes where they number at most
this many (or the rows): cheaper than sorting the rows' distinct combinations."""


def summarize(drills: pd.DataFrame, by: Sequence[str] = ("player", "command"), fit: bool = True) -> pd.DataFrame:
    """One row per group of `by` columns, sorted by them, then the SUMMARY_FIGURES.

    trials (anticipations left out), correct, timeouts and anticipations are counts of rows; accuracy and
    its 95 % Wilson interval are probabilities; latencies are in ms over the
    correct answers (NaN when a group has none); the ex-Gaussian columns are
    NaN where a group has fewer than MIN_FIT_ANSWERS correct answers, and
    everywhere without `fit` (the fits are the slow part of a large log).
    """
    by = list(by)
    _require_columns(drills, by)
    if "command" in by:
        # Commands in the order of the command die (and of the rulebook), not alphabetical.
        commands = drills["command"]
        order = command_order(str(c) for c in commands.unique())  # a game's own commands after the built-ins
        ordered = (commands.cat.set_categories(order) if isinstance(commands.dtype, pd.CategoricalDtype)
                   else pd.Categorical(commands.astype(str), categories=order))
        drills = drills.assign(command=ordered)
    summary = _summarized(drills, *grouped_rows(drills, by), fit)
    if "command" in by:
        summary["command"] = pd.Categorical(summary["command"], categories=order)
    return summary


def summary_fits(summary: pd.DataFrame) -> dict[tuple[str, str], ExGaussian]:
    """(command, player) -> the ex-Gaussian fit of a `summarize` frame, where it has one (what
    `charts.latency_chart` draws over the histograms)."""
    fitted = summary[np.isfinite(summary["exgauss_mu_ms"].to_numpy(dtype=np.float64))]
    return {(str(command), str(player)): ExGaussian(mu_ms=float(mu), sigma_ms=float(sigma), tau_ms=float(tau))
            for command, player, mu, sigma, tau in zip(fitted["command"], fitted["player"], fitted["exgauss_mu_ms"],
                                                       fitted["exgauss_sigma_ms"], fitted["exgauss_tau_ms"])}


def _summarized(drills: pd.DataFrame, keys: pd.DataFrame, groups: np.ndarray, fit: bool) -> pd.DataFrame:
    """`summarize` of the groups `grouped_rows` gives: `keys`' columns, then the SUMMARY_FIGURES."""
    performances = grouped_performance(drills, groups, len(keys))
    # The fits, the slow part of a large log, side by side on the process's threads.
    fits = (fit_ex_gaussians([latencies for _, latencies in performances], threads()) if fit
            else [None] * len(performances))
    rows = [{**dict(zip(keys.columns, key)), **_figures(figures, latencies, fitted)}
            for key, (figures, latencies), fitted in zip(keys.itertuples(index=False, name=None), performances, fits)]
    return pd.DataFrame(rows, columns=[*keys.columns, *SUMMARY_FIGURES])


def _figures(figures: dict, latencies: np.ndarray, fit: ExGaussian | None) -> dict:
    """A group's SUMMARY_FIGURES from its `performance` figures, correct latencies (ms) and their `fit`."""
    # latencies: (correct answers,) float64 ms
    accuracy = proportion_estimate(figures["correct"], figures["trials"])  # 95 %
    has_latency = latencies.size > 0
    return {
        **figures,
        "accuracy_ci_low": accuracy.low,
        "accuracy_ci_high": accuracy.high,
        "mean_latency_ms": float(latencies.mean()) if has_latency else math.nan,
        "latency_iqr_ms": float(np.subtract(*np.percentile(latencies, [75, 25]))) if has_latency else math.nan,
        "exgauss_mu_ms": fit.mu_ms if fit else math.nan,
        "exgauss_sigma_ms": fit.sigma_ms if fit else math.nan,
        "exgauss_tau_ms": fit.tau_ms if fit else math.nan,
    }


def tie_versus_non_tie(drills: pd.DataFrame, by: Sequence[str] = ("player",), fit: bool = True) -> pd.DataFrame:
    """`summarize` by `by` and a `roll` column, "non-tie" or "tie" (the answer was grey), in that order."""
    roll = pd.Categorical.from_codes(drills["is_tie"].to_numpy(dtype=np.int8), categories=[NON_TIE, TIE])
    labelled = drills.assign(roll=roll)
    return summarize(labelled, by=[*by, "roll"], fit=fit)


def with_session_numbers(drills: pd.DataFrame) -> pd.DataFrame:
    """A copy of `drills` with `session_number`: 1 for each player's earliest session, 2 for the next..."""
    return drills.assign(session_number=_session_numbers(drills))


def _session_numbers(drills: pd.DataFrame) -> np.ndarray:
    """Each row's `session_number` (int)."""
    sessions, of_rows = grouped_rows(drills, ["player", "session_id"])
    starts = sessions.assign(start=_earliest(drills["timestamp"], of_rows, len(sessions)))
    numbers = starts.groupby("player", observed=True)["start"].rank(method="first").astype(int).to_numpy()
    # Each row takes the number of its session (sessions in the order of `starts`): no join of the rows.
    return numbers[of_rows]


def learning_curve(drills: pd.DataFrame, by: Sequence[str] = ("player",), fit: bool = True) -> pd.DataFrame:
    """`summarize` per player's session, in order: `by`, `session_number`, `session_start` (UTC), then the figures.
    The sessions are numbered as `with_session_numbers` numbers them, which is not done again for its frame."""
    numbers = (drills["session_number"].to_numpy(dtype=np.int64) if "session_number" in drills
               else _session_numbers(drills))
    # As categories 1, 2, ...: the curve groups by their codes, where a column of numbers would be hashed again.
    numbered = drills.assign(session_number=pd.Categorical.from_codes(
        numbers - 1, categories=pd.RangeIndex(1, numbers.max(initial=0) + 1)))
    _require_columns(numbered, by)
    keys, groups = grouped_rows(numbered, [*by, "session_number"])
    curve = _summarized(numbered, keys, groups, fit)
    curve.insert(len(by) + 1, "session_start", _earliest(numbered["timestamp"], groups, len(keys)))
    return curve


def grouped_rows(drills: pd.DataFrame, by: Sequence[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """The groups of rows by the `by` columns' values, as pandas' groupby(by, observed=True, sort=True) has them:
    one row of `by` per group that has rows, sorted (a categorical column in its categories' order), and each
    row's group, 0 to groups - 1, or -1 where a value is missing (intp).

    Numbered from each column's codes in a few passes over the rows, where pandas' groupby takes several per
    column: the report's summaries group a million rows three times.
    """
    codes, levels = zip(*(_codes(drills[column]) for column in by))
    sizes = [max(len(level), 1) for level in levels]
    # Each row's codes as one number, which sorts as the codes do, column by column ("wrap": any, for -1).
    combined = np.ravel_multi_index(codes, sizes, mode="wrap")
    keyed = np.logical_and.reduce([code >= 0 for code in codes])
    combinations = math.prod(sizes)
    if combinations <= max(len(drills), DENSE_GROUPS):
        # Few enough numbers to count each: a group's number is how many numbers below its own have rows.
        present = np.bincount(combined[keyed], minlength=combinations) > 0
        found = np.flatnonzero(present)
        groups = np.where(keyed, (np.cumsum(present) - 1)[combined], -1)
    else:
        groups = np.full(len(drills), -1, dtype=np.intp)
        groups[keyed], found = pd.factorize(combined[keyed], sort=True)
    keys = np.unravel_index(found, sizes)
    return pd.DataFrame({column: level.take(key) for column, level, key in zip(by, levels, keys)}), groups


def _codes(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Each value's code (-1 where missing) and the values coded, in groupby's order: a category's, else sorted."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy(dtype=np.intp), values.cat.categories
    return pd.factorize(values, sort=True)


def _earliest(timestamps: pd.Series, groups: np.ndarray, count: int) -> pd.Series:
    """The earliest of `timestamps` in each of `count` groups, 0 to count - 1, as `groups` gives each row's
    (-1: in none); NaT for a group with none."""
    stamps = timestamps.array.asi8  # in the column's unit since 1970; NaT is the least int64
    none = np.iinfo(np.int64).max
    earliest = np.full(count, none)
    counted = (groups >= 0) & (stamps != np.iinfo(np.int64).min)
    np.minimum.at(earliest, groups[counted], stamps[counted])
    earliest[earliest == none] = np.iinfo(np.int64).min
    found = pd.DatetimeIndex(earliest.view(f"M8[{timestamps.dt.unit}]"))  # UTC, as the column's own numbers are
    return pd.Series(found if timestamps.dt.tz is None else found.tz_localize("UTC").tz_convert(timestamps.dt.tz))


def select_players(drills: pd.DataFrame, players: Sequence[str] | None) -> pd.DataFrame:
    """The rows of the given players (all rows when None); InputError naming any player with no rows."""
    if not players:
        return drills
    check_players(drills, players)
    return checked_players_rows(drills, players)


def checked_players_rows(drills: pd.DataFrame, players: Sequence[str]) -> pd.DataFrame:
    """The rows of `players`, whom `check_players` has found in `drills`."""
    return kept_rows(drills, drills["player"].isin(list(players)).to_numpy(dtype=bool))


def players_in(drills: pd.DataFrame) -> list[str]:
    """The players with rows in `drills`, sorted: the distinct names (a category's few), not a text per row."""
    return sorted(map(str, drills["player"].unique()))


def check_players(drills: pd.DataFrame, players: Sequence[str]) -> None:
    """InputError naming each of `players` with no rows in `drills`, and the players it has: before any work."""
    known = players_in(drills)
    unknown = [name for name in players if name not in known]
    if unknown:
        listed = ", ".join(known) or "none"
        raise InputError(f"no trials for {', '.join(map(repr, unknown))}; players in the log: {listed}",
                         field="players")


def _require_columns(frame: pd.DataFrame, columns: Iterable[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"no column {', '.join(missing)}; columns: {', '.join(frame.columns)}", field="by")
