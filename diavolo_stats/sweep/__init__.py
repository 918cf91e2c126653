"""Sweeps: every variant of a grid answered at once, here or on a Dask cluster (`diavolo sweep`)."""

from diavolo_stats.sweep.grid import MAX_VARIANTS, PALETTE, SweepGrid, parse_values, variant_seed
from diavolo_stats.sweep.result import COLUMNS, SweepResult
from diavolo_stats.sweep.run import sweep
from diavolo_stats.sweep.targets import Target

__all__ = ["COLUMNS", "MAX_VARIANTS", "PALETTE", "SweepGrid", "SweepResult", "Target", "parse_values", "sweep",
           "variant_seed"]
