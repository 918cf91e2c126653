"""report.html: the report's page, from the Jinja template `templates/report.html` (autoescaped).

The page embeds its charts as base64 PNG and holds no script and no link, so the one file can be mailed to a
friend; the browser's `/report` serves the same page from memory.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

import pandas as pd
from markupsafe import Markup

from diavolo_stats.analytics import summaries, wording
from diavolo_stats.analytics.roll_weak_spots import RECENT_ANSWERS, RollWeakSpots
from diavolo_stats.stats import MIN_FIT_ANSWERS

if TYPE_CHECKING:
    from jinja2 import Environment

WEAK_SPOTS_HEADING = f"weak spots by roll type (each player's most recent {RECENT_ANSWERS:,} answers)"
WEAK_SPOTS_EXPLAINED = ("What a near tie, a grey roll or an extra die costs each player in time and in accuracy, "
                        "from the drift-diffusion model fitted to every player of the log (see diavolo players), "
                        "with 95 % intervals; a feature is named only when its whole interval is a cost.")


@cache
def _jinja_environment() -> Environment:
    """The page's Jinja environment, made when first asked for: Jinja takes some 0.04 s to import, which `diavolo
    report` spends on a thread beside its read (`report.AFTER_THE_READ`), not before its worker is forked."""
    from jinja2 import Environment, PackageLoader

    return Environment(loader=PackageLoader("diavolo_stats.analytics", "templates"), autoescape=True,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render_page(summary: pd.DataFrame, drills: pd.DataFrame, paths: Sequence[str],
                charts: Mapping[str, tuple[str, bytes]], ties: Mapping[str, tuple[str, pd.DataFrame]],
                notes: Sequence[str], weak_spots: Mapping[str, RollWeakSpots]) -> str:
    """The page's HTML: the header (players, trials, sessions, logs), the summary table, the weak spots, each chart
    (file name -> caption, PNG) with the tie table of its game under it (file name -> note, frame), then `notes`."""
    players = ", ".join(summaries.players_in(drills))
    return _jinja_environment().get_template("report.html").render(
        players=players, sessions=int(drills["session_id"].nunique()),
        # The header counts what the table counts: trials are answers and timeouts, anticipations apart.
        trials=int(summary["trials"].sum()), early=int(summary["anticipations"].sum()),
        paths=[str(path) for path in paths], min_fit_answers=MIN_FIT_ANSWERS,
        summary_table=_scrolling_html(summary),
        weak_spots_heading=WEAK_SPOTS_HEADING.capitalize(), weak_spots_explained=WEAK_SPOTS_EXPLAINED,
        weak_spots=[{"player": player, "note": wording.sentence(spots.note) if spots.note else "",
                     "costs": [wording.sentence(cost.sentence) for cost in spots.costs]}
                    for player, spots in weak_spots.items()],
        charts=[{"caption": caption, "base64": base64.b64encode(png).decode("ascii"),
                 "tie": {"note": ties[name][0], "table": _tie_frequency_html(ties[name][1])} if name in ties else None}
                for name, (caption, png) in charts.items()],
        notes=notes)


def _scrolling_html(frame: pd.DataFrame, digits: int = 0) -> Markup:
    """A table for people (`wording.readable`: headings in words, intervals "82 % (74-88 %)"; pandas escapes every
    cell) in a box that scrolls sideways on its own when it is wider than the screen, never the page."""
    table = wording.readable(frame, digits).to_html(index=False, na_rep="", border=0, classes="summary")
    return Markup(f'<div class="scroll">{table}</div>')


def _tie_frequency_html(frame: pd.DataFrame) -> Markup:
    """The tie-frequency table; a command with no exact odds (closest) says "no exact value"."""
    shown = frame.astype({"exact_tie_probability": object, "exact_in_interval": object})
    missing = frame["exact_tie_probability"].isna().to_numpy()
    shown["exact_tie_probability"] = [
        "no exact value" if absent else wording.percent(value, 2)
        for absent, value in zip(missing, frame["exact_tie_probability"])]
    shown["exact_in_interval"] = ["" if absent else ("yes" if inside else "no")
                                  for absent, inside in zip(missing, frame["exact_in_interval"])]
    shown["rounds"] = [f"{rounds:,}" for rounds in frame["rounds"]]
    return _scrolling_html(shown, digits=2)
