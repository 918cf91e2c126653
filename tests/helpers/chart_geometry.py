"""What a laid-out chart must not do, measured on the drawn figure: a text outside the figure, texts of two parts
of the chart over each other, a text over another panel's plot, two panels over each other."""

from __future__ import annotations

from itertools import combinations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from diavolo_stats.plots import PNG_DPI

SLACK = 0.5
"""Pixels two boxes may share, or a box may pass the figure's edge by: the renderer's rounding."""


def _shown(text) -> bool:
    return text.get_visible() and bool(text.get_text().strip())


def _drawn_tick_labels(axis) -> list:
    """The labels of the ticks inside the axis's view (those drawn), on either side."""
    low, high = sorted(axis.get_view_interval())
    span = (high - low) * 1e-9
    labels = []
    for ticks, locations in ((axis.get_major_ticks(), axis.get_majorticklocs()),
                             (axis.get_minor_ticks(), axis.get_minorticklocs())):
        for tick, location in zip(ticks, locations):
            if low - span <= location <= high + span:
                labels += [tick.label1, tick.label2]
    return labels


def _parts(figure: Figure) -> list[tuple[str, object, list]]:
    """(name, the axes it belongs to or None, its visible texts) for each part of the drawn figure."""
    parts = []
    for number, axes in enumerate(figure.axes):
        if not axes.get_visible():
            continue
        name = f"panel {number} ({axes.get_title() or axes.get_label()})"
        for axis in ("x", "y"):
            parts.append((f"{name} {axis} tick labels", axes, _drawn_tick_labels(getattr(axes, f"{axis}axis"))))
            parts.append((f"{name} {axis} label", axes, [getattr(axes, f"{axis}axis").label]))
        parts.append((f"{name} title", axes, [axes.title, axes._left_title, axes._right_title]))
        parts.append((f"{name} texts", axes, list(axes.texts)))
        legend = axes.get_legend()
        if legend is not None:
            parts.append((f"{name} legend", axes, list(legend.get_texts())))
    for label in ("_suptitle", "_supxlabel", "_supylabel"):
        if getattr(figure, label) is not None:
            parts.append((label[1:], None, [getattr(figure, label)]))
    sups = {id(getattr(figure, label)) for label in ("_suptitle", "_supxlabel", "_supylabel")}
    parts.append(("figure texts", None, [text for text in figure.texts if id(text) not in sups]))
    for legend in figure.legends:
        parts.append(("figure legend", None, list(legend.get_texts())))
    return [(name, axes, [text for text in texts if _shown(text)]) for name, axes, texts in parts]


def _overlap(one: Bbox, other: Bbox) -> bool:
    return (min(one.x1, other.x1) - max(one.x0, other.x0) > SLACK
            and min(one.y1, other.y1) - max(one.y0, other.y0) > SLACK)


def layout_faults(figure: Figure) -> list[str]:
    """Every fault of `figure`'s layout once drawn at the PNG's dpi (as `plots.figure_png` draws it), as a line."""
    figure.set_dpi(PNG_DPI)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    page = figure.bbox
    faults = []
    boxes = []  # (part, its axes, box) of every text
    for name, axes, texts in _parts(figure):
        for text in texts:
            box = text.get_window_extent(renderer)
            boxes.append((name, axes, box, text.get_text()))
            if (box.x0 < page.x0 - SLACK or box.y0 < page.y0 - SLACK or box.x1 > page.x1 + SLACK
                    or box.y1 > page.y1 + SLACK):
                faults.append(f"{name} {text.get_text()!r} {box.bounds} leaves the figure {page.bounds}")
    for (name, _, box, text), (other, _, other_box, other_text) in combinations(boxes, 2):
        if name != other and _overlap(box, other_box):
            faults.append(f"{name} {text!r} overlaps {other} {other_text!r}")
    panels = [axes for axes in figure.axes if axes.get_visible()]
    for one, other in combinations(panels, 2):
        if _overlap(one.bbox, other.bbox):
            faults.append(f"panels {one.get_title()!r} and {other.get_title()!r} overlap")
    for name, owner, box, text in boxes:
        for axes in panels:
            if axes is not owner and _overlap(box, axes.bbox):
                faults.append(f"{name} {text!r} lies over the plot of {axes.get_title() or axes.get_label()!r}")
    return faults
