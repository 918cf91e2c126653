"""Odds, simulation, drills and analytics for the dice games Diavolo and Minodice.

The names below are the library's public surface (`from diavolo_stats import Variant, exact_odds`), loaded on
first use (PEP 562) so that importing a submodule does not pay for pandas, matplotlib or scipy. This file
imports nothing but `sys`: why, in docs/architecture.md, "Layers".
"""

import sys

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


def lazy_exports(package: str, homes: dict[str, str]) -> tuple:
    """A package's `__getattr__` and `__dir__` (PEP 562): each name of `homes` (name -> the module defining it)
    is imported from its module on first use, then kept in the package."""

    def __getattr__(name: str) -> object:
        import importlib

        try:
            home = homes[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(home), name)
        vars(sys.modules[package])[name] = value  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__


_exported, __dir__ = lazy_exports(__name__, _HOMES)


def __getattr__(name: str) -> object:
    if name != "__version__":
        return _exported(name)
    # Looked up on first use too: importlib.metadata takes longer to load than the rest of this file.
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("diavolo_stats")
    except PackageNotFoundError:  # running from a source tree that was never installed
        value = "0.0.0+source"
    globals()["__version__"] = value
    return value
