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

from diavolo_stats.core.variant import ALL_COMMANDS
from diavolo_stats.drill.log.rules import command_order
from diavolo_stats.drill.performance import grouped_performance
from diavolo_stats.errors import InputError
from diavolo_stats.stats import fit_ex_gaussian, proportion_estimate

SUMMARY_FIGURES = (
    "trials", "correct", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "timeouts", "anticipations",
    "median_latency_ms", "mean_latency_ms", "latency_iqr_ms",
    "exgauss_mu_ms", "exgauss_sigma_ms", "exgauss_tau_ms",
)
"""The columns `summarize` adds after the grouping columns, in this order."""

TIE, NON_TIE = "tie", "non-tie"

COMMAND_ORDER = [command.value for command in ALL_COMMANDS]


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
    grouped = drills.groupby(by, observed=True, sort=True)
    keys = grouped.size().index.to_frame(index=False).itertuples(index=False, name=None)
    groups = grouped.ngroup().fillna(-1).to_numpy(dtype=np.intp)  # -1: a row with a missing key is in no group
    rows = [{**dict(zip(by, key)), **_figures(figures, latencies, fit)}
            for key, (figures, latencies) in zip(keys, grouped_performance(drills, groups, grouped.ngroups))]
    summary = pd.DataFrame(rows, columns=[*by, *SUMMARY_FIGURES])
    if "command" in by:
        summary["command"] = pd.Categorical(summary["command"], categories=order)
    return summary


def _figures(figures: dict, latencies: np.ndarray, fit_latency: bool) -> dict:
    """A group's SUMMARY_FIGURES from its `performance` figures and correct latencies (ms)."""
    # latencies: (correct answers,) float64 ms
    accuracy = proportion_estimate(figures["correct"], figures["trials"])  # 95 %
    fit = fit_ex_gaussian(latencies) if fit_latency else None
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
    sessions = drills.groupby(["player", "session_id"], observed=True)
    starts = sessions["timestamp"].min().reset_index()
    numbers = starts.groupby("player", observed=True)["timestamp"].rank(method="first").astype(int).to_numpy()
    # Each row takes the number of its session's group (groups in the order of `starts`): no join of the rows.
    return drills.assign(session_number=numbers[sessions.ngroup().to_numpy()])


def learning_curve(drills: pd.DataFrame, by: Sequence[str] = ("player",), fit: bool = True) -> pd.DataFrame:
    """`summarize` per player's session, in order: `by`, `session_number`, `session_start` (UTC), then the figures."""
    numbered = with_session_numbers(drills)
    curve = summarize(numbered, by=[*by, "session_number"], fit=fit)
    starts = numbered.groupby([*by, "session_number"], observed=True)["timestamp"].min().rename("session_start")
    curve = curve.merge(starts.reset_index(), on=[*by, "session_number"], how="left")
    columns = [*by, "session_number", "session_start", *SUMMARY_FIGURES]
    return curve[columns]


def select_players(drills: pd.DataFrame, players: Sequence[str] | None) -> pd.DataFrame:
    """The rows of the given players (all rows when None); InputError naming any player with no rows."""
    if not players:
        return drills
    check_players(drills, players)
    return drills[drills["player"].isin(list(players))]


def check_players(drills: pd.DataFrame, players: Sequence[str]) -> None:
    """InputError naming each of `players` with no rows in `drills`, and the players it has: before any work."""
    known = set(map(str, drills["player"].unique()))  # the distinct names, not a string per row
    unknown = [name for name in players if name not in known]
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise InputError(f"no trials for {', '.join(map(repr, unknown))}; players in the log: {listed}",
                         field="players")


def _require_columns(frame: pd.DataFrame, columns: Iterable[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"no column {', '.join(missing)}; columns: {', '.join(frame.columns)}", field="by")
