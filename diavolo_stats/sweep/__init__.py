"""Sweeps: every variant of a grid answered at once, here or on a Dask cluster (`diavolo sweep`).

The names below are loaded on first use (PEP 562), so that the command line
reads the grid's limits without loading pandas.
"""

from diavolo_stats import lazy_exports

__all__ = ["COLUMNS", "MAX_VARIANTS", "PALETTE", "SweepGrid", "SweepResult", "Target", "parse_values", "sweep",
           "variant_seed"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "MAX_VARIANTS": "diavolo_stats.sweep.grid", "PALETTE": "diavolo_stats.sweep.grid",
    "SweepGrid": "diavolo_stats.sweep.grid", "parse_values": "diavolo_stats.sweep.grid",
    "variant_seed": "diavolo_stats.sweep.grid", "COLUMNS": "diavolo_stats.sweep.result",
    "SweepResult": "diavolo_stats.sweep.result", "sweep": "diavolo_stats.sweep.run",
    "Target": "diavolo_stats.sweep.targets",
})
