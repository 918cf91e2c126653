"""The progress page, `/me?player=NAME`: a player's headline figures, their chart and weak spots, in words.

The figures are `analytics.progress.player_progress` of the log as the server keeps it (`TrialStore.figures`),
said in words by `analytics.wording`. The chart (`charts.learning_curve_chart`, wide or narrow for the screen)
is a PNG of its own (`/me/chart.png`, `chart_png`), drawn when the browser asks, after the page. Without
`player` the page is that of whoever drilled last.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from diavolo_stats.analytics import summaries, wording
from diavolo_stats.analytics.progress import (
    MIN_BEST_TRIALS,
    MIN_WEAK_SPOT_TRIALS,
    Best,
    Period,
    PlayerProgress,
    WeakSpot,
    player_progress,
)
from diavolo_stats.analytics.roll_weak_spots import RECENT_ANSWERS
from diavolo_stats.drill.log.rules import with_command_labels
from diavolo_stats.errors import InputError

if TYPE_CHECKING:
    from diavolo_stats.web.trials import TrialStore


CHART_LAYOUTS = ("wide", "narrow")
"""The chart's layouts: side by side, and one panel above the other for a phone."""


def progress_context(store: TrialStore, player: str | None) -> dict:
    """What `me.html` shows for `player` of the store's log (the last to drill when None); InputError for an
    unknown one."""
    log = store.log.path
    drills = with_command_labels(store.figures())
    players = summaries.players_in(drills)
    if not players:
        return {"log": log, "players": [], "progress": None}
    if not player:
        player = str(drills.loc[drills["timestamp"].idxmax(), "player"])
    progress = player_progress(drills, player)
    return {"log": log, "players": players, "player": player, "progress": progress,
            "periods": [_headline(progress.last_session), _headline(progress.last_week)],
            "bests": _bests(progress), "weak_spots": [_weak_spot(spot) for spot in progress.weak_spots],
            "weak_spot_trials": progress.weak_spot_trials, "min_weak_spot_trials": MIN_WEAK_SPOT_TRIALS,
            "roll_weak_spots": [wording.sentence(cost.sentence) for cost in progress.roll_weak_spots.costs],
            "roll_weak_spot_note": wording.sentence(progress.roll_weak_spots.note),
            "roll_weak_spot_answers": progress.roll_weak_spots.answers, "recent_answers": RECENT_ANSWERS,
            "sessions": len(progress.sessions), "chart_layouts": CHART_LAYOUTS if len(progress.sessions) > 1 else ()}


def _headline(period: Period) -> dict:
    """A headline card: the two figures in big type, their intervals and changes in words."""
    against = f"than {period.before_label}"
    return {
        "label": period.label, "trials": period.trials,
        "median": wording.milliseconds(period.median_ms.value),
        "median_interval": "" if math.isnan(period.median_ms.value) else wording.milliseconds_range(period.median_ms),
        "median_change": _compared(wording.time_change(period.median_change_ms), against),
        "accuracy": wording.percent(period.accuracy.value),
        "accuracy_interval": "" if math.isnan(period.accuracy.value) else wording.percent_range(period.accuracy),
        "accuracy_change": _compared(wording.accuracy_change(period.accuracy_change), against),
        "compared": f"against {period.before_label}, {period.before_trials} trials" if period.before_trials else
        f"nothing to compare with: no trials in {period.before_label}",
    }


def _compared(change: str, against: str) -> str:
    return f"{change} {against}" if change and change != "no change" else change


def _bests(progress: PlayerProgress) -> list[str]:
    def when(best: Best) -> str:
        return f"session {best.session_number}, {best.session_start:%d %b %Y}"

    lines = []
    if progress.fastest:
        lines.append(f"Fastest session: a median of {wording.milliseconds(progress.fastest.value)} "
                     f"({when(progress.fastest)}).")
    if progress.most_accurate:
        lines.append(f"Most accurate session: {wording.percent(progress.most_accurate.value)} right "
                     f"({when(progress.most_accurate)}).")
    if not lines:
        lines.append(f"A session counts for a personal best from {MIN_BEST_TRIALS} trials: none yet.")
    return lines


def _weak_spot(spot: WeakSpot) -> str:
    if spot.problem == "slowest":
        return (f"{spot.name}: among your slowest {spot.kind}, a median of "
                f"{wording.milliseconds_interval(spot.estimate)} over its correct answers ({spot.trials} trials).")
    return (f"{spot.name}: among the {spot.kind} you get wrong most, right {wording.percent_interval(spot.estimate)}"
            f" of the time ({spot.trials} trials).")


def chart_png(store: TrialStore, player: str, layout: str) -> bytes:
    """The chart of `player`'s sessions in the store's log as PNG bytes, in one of CHART_LAYOUTS; InputError for
    another layout, an unknown player or fewer than two sessions."""
    if layout not in CHART_LAYOUTS:
        raise InputError(f"layout must be one of {', '.join(CHART_LAYOUTS)}, not {layout[:40]!r}", field="layout")
    from diavolo_stats.analytics.charts import learning_curve_chart
    from diavolo_stats.plots import figure_png

    mine = summaries.select_players(with_command_labels(store.figures()), [player])
    sessions = summaries.learning_curve(mine, fit=False)
    if len(sessions) < 2:
        raise InputError(f"{player!r} has one session: the chart starts with the second", field="player")
    return figure_png(learning_curve_chart(sessions, narrow=layout == "narrow"))
