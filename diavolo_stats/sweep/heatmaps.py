"""Heatmaps of a sweep: tie probability over two grid parameters, one figure per command, facets for a third.

Each cell is one variant, colored by its tie probability (one scale for all
facets of a command) and labelled in percent; a simulated command's title
gives its rounds and its widest 95 % interval. Parameters are named as the
result's columns: colors, dice_per_color, sides, tolerance, scatter_mm, die_mm.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from diavolo_stats import files
from diavolo_stats.errors import InputError, about
from diavolo_stats.plots import figure_png
from diavolo_stats.sweep.grid import AXES, GRID_PARAMETERS, SweepGrid
from diavolo_stats.validation import empty_item, shown

LABELS = {"colors": "colors", "dice_per_color": "dice per color", "sides": "sides per die",
          "tolerance": "tolerance", "scatter_mm": "scatter area (mm)", "die_mm": "die edge (mm)"}

# Cells labelled with their percentage up to this many per facet; beyond, the colors alone.
MAX_LABELLED_CELLS = 150


def choose_axes(grid: SweepGrid, chosen: Sequence[str] | None = None) -> tuple[str, ...]:
    """The (x, y) or (x, y, facet) parameters of `grid`'s heatmaps: `chosen`, or the first that vary.

    InputError when fewer than two parameters are given or vary, a name is not
    a parameter, or the grid varies a parameter the heatmaps would not show.
    """
    varying = [axis for axis, parameter in zip(AXES, GRID_PARAMETERS) if len(getattr(grid, parameter)) > 1]
    if chosen is None:
        if len(varying) < 2:
            raise InputError(f"a heatmap needs two parameters that vary; the grid varies "
                             f"{', '.join(varying) or 'none'}", field="plot")
        chosen = varying[:3]
    chosen = tuple(chosen)
    problem = empty_item(chosen, "parameter")
    if problem is not None:
        raise InputError(f"{problem}, got {shown(','.join(chosen))}", field="plot_axes")
    unknown = [axis for axis in chosen if axis not in AXES]
    if unknown or not 2 <= len(chosen) <= 3 or len(set(chosen)) != len(chosen):
        raise InputError(f"need two or three different parameters (x, y, facet) among {', '.join(AXES)}; "
                         f"got {','.join(chosen)}", field="plot_axes")
    if not grid.simulated and any(axis in chosen for axis in AXES[3:]):
        raise InputError("the table model applies to closest only, which the sweep does not report",
                         field="plot_axes")
    hidden = [axis for axis in varying if axis not in chosen]
    if hidden:
        raise InputError(f"the grid also varies {', '.join(hidden)}, which a heatmap of "
                         f"{', '.join(chosen)} cannot show; choose the parameters or sweep one value of it at a time",
                         field="plot_axes")
    return chosen


def is_heatmap_file(name: str) -> bool:
    """Whether a file of this name is one `write_heatmaps` writes (and so may replace)."""
    return name.startswith("tie_") and name.endswith(".png")


def check_plot_folder(folder: str | Path) -> None:
    """InputError unless `write_heatmaps` may write `folder`: new, or holding only heatmaps it wrote."""
    with about("plot"):
        files.check_folder(Path(folder), is_heatmap_file)


def heatmap(frame: pd.DataFrame, command: str, axes: Sequence[str]) -> Figure:
    """The heatmap figure of one command from a sweep's rows (`SweepResult.frame()`)."""
    x, y = axes[0], axes[1]
    facet = axes[2] if len(axes) == 3 else None
    rows = frame[frame["command"] == command]
    facets = sorted(rows[facet].unique()) if facet else [None]
    xs, ys = sorted(rows[x].unique()), sorted(rows[y].unique())
    columns = min(3, len(facets))
    lines = -(-len(facets) // columns)
    width = max(3.2, 0.55 * len(xs) + 1.6)
    height = max(2.6, 0.42 * len(ys) + 1.2)
    figure = Figure(figsize=(width * columns + 1.2, height * lines + 1.0), layout="constrained")
    panels = figure.subplots(lines, columns, squeeze=False).ravel()
    top = max(float(rows["tie_probability"].max()), 1e-9)
    image = None
    for panel, value in zip(panels, facets):
        shown = rows if facet is None else rows[rows[facet] == value]
        grid = shown.pivot_table(index=y, columns=x, values="tie_probability", aggfunc="first")
        grid = grid.reindex(index=ys, columns=xs)
        image = panel.imshow(grid.to_numpy(dtype=np.float64), origin="lower", cmap="viridis", vmin=0, vmax=top,
                             aspect="auto")
        panel.set_xticks(range(len(xs)), [f"{v:g}" for v in xs])
        panel.set_yticks(range(len(ys)), [f"{v:g}" for v in ys])
        panel.set_xlabel(LABELS[x])
        panel.set_ylabel(LABELS[y])
        if facet is not None:
            panel.set_title(f"{LABELS[facet]} = {value:g}", fontsize="medium")
        if len(xs) * len(ys) <= MAX_LABELLED_CELLS:
            for (row, column), probability in np.ndenumerate(grid.to_numpy(dtype=np.float64)):
                if np.isfinite(probability):
                    panel.text(column, row, f"{100 * probability:.1f}", ha="center", va="center", fontsize="small",
                               color="black" if probability > 0.6 * top else "white")
    for spare in panels[len(facets):]:
        spare.set_visible(False)
    figure.colorbar(image, ax=panels[: len(facets)].tolist(), label="tie probability (%)",
                    format=PercentFormatter(xmax=1))
    title = f"{command}: tie probability by {LABELS[x]} and {LABELS[y]}"
    simulated = rows[rows["rounds"] > 0]
    if len(simulated):
        widest = float((simulated["ci95_high"] - simulated["ci95_low"]).max())
        title += (f"\nsimulated, {int(simulated['rounds'].iloc[0]):,} rounds per variant; "
                  f"95 % intervals at most {100 * widest:.2f} percentage points wide")
    else:
        title += "\nexact values"
    figure.suptitle(title)
    return figure


def write_heatmaps(frame: pd.DataFrame, axes: Sequence[str], folder: str | Path) -> list[Path]:
    """One PNG per command, `tie_<command>.png`: `folder` holds exactly these, written whole or not at all."""
    images = {f"tie_{command}.png": figure_png(heatmap(frame, command, axes))
              for command in dict.fromkeys(frame["command"])}
    with about("plot"):
        files.write_folder(folder, images, is_heatmap_file)
    return [Path(folder) / name for name in images]
