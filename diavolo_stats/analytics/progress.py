"""A player's progress: the figures of the progress page (`diavolo serve`'s `/me`), from one drill log.

`player_progress` gives one player's headline figures (median time of correct answers and accuracy, with 95 %
intervals) for the last session and the last 7 days, each against the time before; their bests; every
session's figures, for the chart; and their weak spots. Every figure is the one `summaries.summarize` gives for
the same rows, so the page, the report and the drill's summary agree. Why: docs/architecture.md, "Progress".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta

import pandas as pd

from diavolo_stats.analytics import summaries
from diavolo_stats.analytics.roll_weak_spots import RollWeakSpots, roll_weak_spots
from diavolo_stats.drill.performance import anticipated, correct_latencies_ms, performance
from diavolo_stats.stats import Estimate, median_estimate, proportion_estimate

WEEK = timedelta(days=7)

MIN_BEST_TRIALS = 10
"""A session counts for a personal best from this many trials (a 2-trial session of luck is no record)."""

WEAK_SPOT_TRIALS = 200
"""Weak spots are read from the player's most recent this many trials: how they play now, not a year ago."""

MIN_WEAK_SPOT_TRIALS = 5
"""A command needs this many of those trials (this many correct answers, for its time) to be judged."""

WEAK_SPOTS_SHOWN = 3
"""At most this many weak spots of each kind (slowest, most wrong)."""

PROGRESS_COLUMNS = ("player", "session_id", "timestamp", "command", "correct", "latency_ms", "too_early",
                    "timed_out")
"""The columns the figures of the player's own rows read (the weak spots by roll type read theirs): only these are
taken from a large log's rows (its text columns are most of what a take copies)."""

WEAK_SPOT_KINDS: Mapping[str, str] = {"command": "commands"}
"""The columns weak spots are looked for in by their raw figures, and what their values are called. The kinds of
roll (near ties, grey, more dice) are judged by the player's fitted model instead (`roll_weak_spots`), which sets each
apart from the command it came with."""


@dataclass(frozen=True)
class Period:
    """The headline figures of some of a player's trials, against the trials before them.

    label: what the trials are ("last session"); before_label: what they are compared with.
    accuracy: correct over trials (a probability, Wilson 95 % interval); median_ms: of the correct
    answers, ms, with its distribution-free 95 % interval (NaN without correct answers). The changes are
    this period minus the one before (accuracy in probability, time in ms), NaN when there is nothing to
    compare with.
    """

    label: str
    trials: int
    accuracy: Estimate
    median_ms: Estimate
    before_label: str
    before_trials: int
    accuracy_change: float
    median_change_ms: float


@dataclass(frozen=True)
class Best:
    """A personal best: the figure and the session (number, start in UTC) that set it."""

    value: float
    session_number: int
    session_start: pd.Timestamp


@dataclass(frozen=True)
class WeakSpot:
    """Where a player is slowest or most often wrong.

    kind: what is judged, in the plural ("commands"); name: which one ("closest"); problem: "slowest" (the
    estimate is the median correct time, ms) or "most wrong" (the estimate is the accuracy, a
    probability); trials: how many trials the estimate is read from.
    """

    kind: str
    name: str
    problem: str
    estimate: Estimate
    trials: int


@dataclass(frozen=True)
class PlayerProgress:
    """What `player_progress` returns. sessions: `summaries.learning_curve` of the player, without fits."""

    player: str
    last_session: Period
    last_week: Period
    fastest: Best | None
    most_accurate: Best | None
    sessions: pd.DataFrame
    weak_spots: tuple[WeakSpot, ...]
    weak_spot_trials: int
    roll_weak_spots: RollWeakSpots


def player_progress(drills: pd.DataFrame, player: str) -> PlayerProgress:
    """The progress of `player` in `drills` (rows from `load_logs`, any players: every column, or at least
    PROGRESS_COLUMNS and `roll_weak_spots.COLUMNS` read with lines=True, and the model's fit reads the rest of
    the player's recent answers from their logs by their lines); InputError if they have none."""
    summaries.check_players(drills, [player])
    with ThreadPoolExecutor(max_workers=1) as aside:
        # The weak spots by roll type (the recent answers' cells read again, every player fitted) take longer
        # than all the rest: they are worked out beside it from the start, on a second core when there is one.
        by_roll = aside.submit(roll_weak_spots, drills, [player])
        mine = summaries.checked_players_rows(drills[list(PROGRESS_COLUMNS)], [player])
        return _progress(mine, player, by_roll.result)


def _progress(mine: pd.DataFrame, player: str, by_roll: Callable[[], dict[str, RollWeakSpots]]) -> PlayerProgress:
    """`player_progress` of the rows `mine` of `player`, their weak spots by roll type from `by_roll`."""
    numbered = summaries.with_session_numbers(mine)
    sessions = summaries.learning_curve(numbered, fit=False)
    last = int(sessions["session_number"].max())
    last_session = _period("last session", numbered[numbered["session_number"] == last],
                           "the session before", numbered[numbered["session_number"] == last - 1])
    end = mine["timestamp"].max()
    week = mine[mine["timestamp"] > end - WEEK]
    week_before = mine[(mine["timestamp"] <= end - WEEK) & (mine["timestamp"] > end - 2 * WEEK)]
    recent = mine.sort_values("timestamp", kind="stable")
    recent = recent[~anticipated(recent)].tail(WEAK_SPOT_TRIALS)
    return PlayerProgress(
        player=player,
        last_session=last_session,
        last_week=_period("last 7 days", week, "the 7 days before", week_before),
        fastest=_best(sessions, "median_latency_ms", lowest=True),
        most_accurate=_best(sessions, "accuracy", lowest=False),
        sessions=sessions,
        weak_spots=weak_spots(recent),
        weak_spot_trials=len(recent),
        roll_weak_spots=by_roll()[player],
    )


def _period(label: str, rows: pd.DataFrame, before_label: str, before: pd.DataFrame) -> Period:
    now, earlier = performance(rows), performance(before)
    return Period(
        label=label, trials=now["trials"],
        accuracy=proportion_estimate(now["correct"], now["trials"]),
        median_ms=median_estimate(correct_latencies_ms(rows)),
        before_label=before_label, before_trials=earlier["trials"],
        accuracy_change=now["accuracy"] - earlier["accuracy"],
        median_change_ms=now["median_latency_ms"] - earlier["median_latency_ms"],
    )


def _best(sessions: pd.DataFrame, column: str, lowest: bool) -> Best | None:
    counted = sessions[(sessions["trials"] >= MIN_BEST_TRIALS) & sessions[column].notna()]
    if counted.empty:
        return None
    # the first session to reach the best figure set the record
    row = counted.loc[counted[column].idxmin() if lowest else counted[column].idxmax()]
    return Best(value=float(row[column]), session_number=int(row["session_number"]),
                session_start=row["session_start"])


def weak_spots(rows: pd.DataFrame) -> tuple[WeakSpot, ...]:
    """Where, in each WEAK_SPOT_KINDS column present in `rows`, the player is slower or more often wrong than
    over all of `rows`.

    Slowest: a median correct time above the player's own (at least MIN_WEAK_SPOT_TRIALS correct answers);
    most wrong: an accuracy below the player's own (at least MIN_WEAK_SPOT_TRIALS trials);
    WEAK_SPOTS_SHOWN of each per column, worst first. A column with one value only (a game of one
    command) has nothing to compare and no weak spot.
    """
    overall = performance(rows)
    spots: list[WeakSpot] = []
    for column, kind in WEAK_SPOT_KINDS.items():
        if column not in rows.columns:
            continue
        summary = summaries.summarize(rows, by=(column,), fit=False)
        if len(summary) < 2:
            continue
        timed = [(str(value), median_estimate(correct_latencies_ms(group)), len(group))
                 for value, group in rows.groupby(column, observed=True)
                 if correct_latencies_ms(group).size >= MIN_WEAK_SPOT_TRIALS]
        slow = sorted((spot for spot in timed if spot[1].value > overall["median_latency_ms"]),
                      key=lambda spot: -spot[1].value)
        spots += [WeakSpot(kind, name, "slowest", estimate, trials)
                  for name, estimate, trials in slow[:WEAK_SPOTS_SHOWN]]
        wrong = summary[(summary["trials"] >= MIN_WEAK_SPOT_TRIALS) & (summary["accuracy"] < overall["accuracy"])]
        wrong = wrong.sort_values("accuracy", kind="stable").head(WEAK_SPOTS_SHOWN)
        spots += [WeakSpot(kind, str(row[column]), "most wrong",
                           Estimate(row["accuracy"], row["accuracy_ci_low"], row["accuracy_ci_high"]),
                           int(row["trials"]))
                  for _, row in wrong.iterrows()]
    return tuple(spots)
