"""Odds, simulation, drills and analytics for the dice games Diavolo and Minodice.

The names below are the library's public surface, importable from
`diavolo_stats` itself (`from diavolo_stats import Variant, exact_odds`).
They are loaded on first use (PEP 562), so that `import diavolo_stats.x`,
which runs this file, does not pay for pandas, matplotlib or scipy: the
drill and the command line start fast.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("diavolo_stats")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

# Public name -> the module that defines it.
_HOMES = {
    # the base
    "InputError": "diavolo_stats.errors",
    "Result": "diavolo_stats.results",
    "Estimate": "diavolo_stats.stats",
    "proportion_estimate": "diavolo_stats.stats",
    # core: the game, exact odds, simulation
    "Command": "diavolo_stats.core.variant",
    "Variant": "diavolo_stats.core.variant",
    "TableModel": "diavolo_stats.core.table_model",
    "resolve": "diavolo_stats.core.rules",
    "exact_odds": "diavolo_stats.core.odds",
    "simulate": "diavolo_stats.core.simulate",
    # drill: the reaction drill and its log
    "DrillSettings": "diavolo_stats.drill.settings",
    "run_drill": "diavolo_stats.drill.session",
    "load_logs": "diavolo_stats.drill.log",
    # game: player models and whole games
    "PlayerModel": "diavolo_stats.game.players",
    "play_games": "diavolo_stats.game.engine",
    "game_report": "diavolo_stats.game.report",
    # analytics: summaries, tie frequency, the report, synthetic logs
    "summarize": "diavolo_stats.analytics.summaries",
    "tie_frequency_frame": "diavolo_stats.analytics.tie_frequency",
    "write_report": "diavolo_stats.analytics.report",
    "write_synthetic_log": "diavolo_stats.analytics.synthetic",
    # minodice
    "score_sheet": "diavolo_stats.minodice",
    "die_odds": "diavolo_stats.minodice",
    "advise_bid": "diavolo_stats.minodice",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    try:
        home = _HOMES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

