"""A chart's margins and spacing worked out from the sizes of the texts it will show, without matplotlib's layout.

`Figure(layout=FittedLayout())`: when the figure is drawn, the engine measures, with the renderer's cached text
metrics, each panel's tick labels (the ticks the draw will show), axis labels and title, and the figure's
suptitle, supxlabel, supylabel and bottom legend; it then sets the panels' grid (one GridSpec, as `subplots`
makes it) so that each fits beside the next. `wrapped` breaks a long sentence to a width in inches, for labels
that matplotlib would not break. See docs/architecture.md, "Charts laid out from their texts".
"""

from __future__ import annotations

from functools import lru_cache

from matplotlib.axis import Axis
from matplotlib.font_manager import FontProperties
from matplotlib.layout_engine import LayoutEngine
from matplotlib.text import Text
from matplotlib.textpath import text_to_path
from matplotlib.ticker import NullLocator
from matplotlib.transforms import Bbox, IdentityTransform

PAD_INCHES = 4 / 72
"""Space between two parts of a chart, and between a chart and its edge (constrained layout's is 3 points)."""
LINE_INCHES = 1.2 * 10 / 72
"""The height of a line of text at the default size (10 points, spaced 1.2)."""
PASSES = 3
"""At most this many measures: a panel's new size can change its ticks (how many, how wide); the second measure
settles every chart drawn here, the third is a guard."""


class FittedLayout(LayoutEngine):
    """Margins and spacing from the measured texts of the figure, worked out each time it is drawn."""

    _adjust_compatible = False
    _colorbar_gridspec = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._written: dict[Text, str] = {}  # each label this engine breaks into lines -> its text as written
        self._unplaced: set[Axis] = set()  # each axis whose empty label this engine keeps matplotlib from placing

    def execute(self, figure) -> None:
        fit(figure, self._written)
        _unplaced_empty_labels(figure, self._unplaced)


def fit(figure, written: dict[Text, str] | None = None) -> None:
    """Set the grid of `figure`'s panels (visible axes of one GridSpec) so that every text fits (see the module).

    written: each label's text as the chart wrote it, kept from one draw to the next, so that a label broken into
    lines to fit is broken afresh at each draw. Reads matplotlib's private names for the sup-labels, the renderer
    and whether a title is placed by matplotlib (no public getter), and `get_figure(root=True)` (matplotlib
    3.10 on)."""
    written = {} if written is None else written
    panels = [axes for axes in figure.axes if axes.get_visible() and axes.get_subplotspec() is not None]
    if not panels:
        return
    renderer = figure._get_renderer()  # the canvas's own, or one for measuring
    pad = PAD_INCHES * figure.dpi
    width, height = figure.bbox.width, figure.bbox.height
    edges = _figure_edges(figure, renderer, pad, written)
    grid = panels[0].get_subplotspec().get_topmost_subplotspec().get_gridspec()
    rows, columns = grid.get_geometry()
    solved = None
    sizes = {}  # a tick label's box about its anchor, by its text and look
    for _ in range(PASSES):
        _place(panels)
        overhangs = [(axes.get_subplotspec().get_topmost_subplotspec(), _overhang(axes, renderer, written, sizes))
                     for axes in panels]
        left = edges[0] + max((o[0] for spec, o in overhangs if spec.colspan.start == 0), default=0) + pad
        bottom = edges[1] + max((o[1] for spec, o in overhangs if spec.rowspan.stop == rows), default=0) + pad
        right = edges[2] + max((o[2] for spec, o in overhangs if spec.colspan.stop == columns), default=0) + pad
        top = edges[3] + max((o[3] for spec, o in overhangs if spec.rowspan.start == 0), default=0) + pad
        across = _gap(overhangs, columns, "colspan", 2, 0) + pad
        down = _gap(overhangs, rows, "rowspan", 1, 3) + pad
        if solved is not None and all(now <= then + 0.5 for now, then in
                                      zip((left, bottom, right, top, across, down), solved)):
            break
        solved = (left, bottom, right, top, across, down)
        cell_width = max(width - left - right - (columns - 1) * across, columns) / columns
        cell_height = max(height - top - bottom - (rows - 1) * down, rows) / rows
        grid.update(left=left / width, right=max(1 - right / width, (left + 1) / width), bottom=bottom / height,
                    top=max(1 - top / height, (bottom + 1) / height), wspace=across / cell_width,
                    hspace=down / cell_height)
    else:  # the last pass's grid, not measured again
        _place(panels)


def _unplaced_empty_labels(figure, unplaced: set[Axis]) -> None:
    """Keep matplotlib from placing the empty label of each axis of `figure` (it would measure all the axis's tick
    labels again to place a text it does not draw: some 3 % of the report's charts' CPU), and from not placing a
    label it was kept from placing once it has a text. Reads the axis's private `_autolabelpos`, which
    `Axis.set_label_coords` clears for good (a label placed by the chart is left as the chart placed it)."""
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            if axis in unplaced and _has_text(axis.label):
                axis._autolabelpos = True
                unplaced.discard(axis)
            elif axis._autolabelpos and not _has_text(axis.label):
                axis._autolabelpos = False
                unplaced.add(axis)


def _place(panels: list) -> None:
    for axes in panels:
        axes.set_position(axes.get_subplotspec().get_position(axes.get_figure(root=True)))


def _gap(overhangs: list, count: int, span: str, before: int, after: int) -> float:
    """The widest that two neighbouring rows or columns of the grid pass their edges towards each other: the
    overhang `before` (index into each panel's overhangs) of the panels that end at a line, plus the overhang
    `after` of those that start there."""
    widest = 0.0
    for line in range(1, count):
        ending = [o[before] for spec, o in overhangs if getattr(spec, span).stop == line]
        starting = [o[after] for spec, o in overhangs if getattr(spec, span).start == line]
        if ending and starting:
            widest = max(widest, max(ending) + max(starting))
    return widest


def _fitted(label: Text, pixels: float, written: dict[Text, str]) -> None:
    """Break `label`'s text, as the chart wrote it, into lines at most `pixels` long."""
    text = written.setdefault(label, label.get_text())
    label.set_text(wrapped(text, pixels / label.get_figure(root=True).dpi, label.get_fontproperties()))


def _figure_edges(figure, renderer, pad: float, written: dict) -> tuple[float, float, float, float]:
    """Pixels taken at the figure's left, bottom, right and top by its sup-labels and bottom legends, which are
    placed there, each `pad` from the edge; the supxlabel and suptitle broken into lines as wide as the figure,
    the supylabel as tall as the space between them."""
    left = bottom = top = 0.0
    width, height = figure.bbox.width, figure.bbox.height
    title, under, beside = figure._suptitle, figure._supxlabel, figure._supylabel
    if _has_text(title):
        _fitted(title, width - 2 * pad, written)
        title.set_y(1 - pad / height)
        top += title.get_window_extent(renderer).height + pad
    if _has_text(under):
        _fitted(under, width - 2 * pad, written)
        under.set_y(pad / height)
        bottom += under.get_window_extent(renderer).height + pad
    for legend in figure.legends:  # at the bottom, above the supxlabel
        legend.set_bbox_to_anchor((0, bottom / height, 1, 1 - bottom / height), transform=figure.transFigure)
        bottom += legend.get_window_extent(renderer).height + legend.borderaxespad * legend.prop.get_size_in_points() \
            * figure.dpi / 72
    if _has_text(beside):
        _fitted(beside, height - bottom - top - 2 * pad, written)
        beside.set_position((pad / width, (bottom + pad + (height - top - pad)) / 2 / height))
        left += beside.get_window_extent(renderer).width + pad
    return left, bottom, 0.0, top


def _overhang(axes, renderer, written: dict, sizes: dict) -> tuple[float, float, float, float]:
    """Pixels by which what `axes` shows outside its plot (tick labels, axis labels, title) passes its left,
    bottom, right and top edges; its axis labels broken into lines no longer than its sides."""
    box = axes.bbox
    boxes = [box]
    for axis in (axes.xaxis, axes.yaxis):
        labels = _tick_label_boxes(axis, renderer, sizes)
        label = axis.label
        if not _has_text(label):
            boxes += labels
            continue
        _fitted(label, box.width if axis is axes.xaxis else box.height, written)
        size = label.get_window_extent(renderer)
        gap = axis.labelpad * axes.get_figure(root=True).dpi / 72
        side = axis.get_label_position()
        beyond = Bbox.union([box, *labels])
        if side == "bottom":
            placed = Bbox.from_bounds(box.x0 + (box.width - size.width) / 2, beyond.y0 - gap - size.height,
                                      size.width, size.height)
        elif side == "top":
            placed = Bbox.from_bounds(box.x0 + (box.width - size.width) / 2, beyond.y1 + gap, size.width,
                                      size.height)
        elif side == "left":
            placed = Bbox.from_bounds(beyond.x0 - gap - size.width, box.y0 + (box.height - size.height) / 2,
                                      size.width, size.height)
        else:
            placed = Bbox.from_bounds(beyond.x1 + gap, box.y0 + (box.height - size.height) / 2, size.width,
                                      size.height)
        boxes += [*labels, placed]
    above = Bbox.union(boxes).y1
    if _has_text(axes.title):
        drawn = axes.title.get_window_extent(renderer)
        # A title left to matplotlib is lifted over what sits on top of the plot (top tick labels).
        lift = max(0.0, above - box.y1) if axes._autotitlepos else 0.0
        boxes.append(Bbox.from_extents(drawn.x0, drawn.y0 + lift, drawn.x1, drawn.y1 + lift))
    union = Bbox.union(boxes)
    return (max(0.0, box.x0 - union.x0), max(0.0, box.y0 - union.y0), max(0.0, union.x1 - box.x1),
            max(0.0, union.y1 - box.y1))


def _tick_label_boxes(axis, renderer, sizes: dict) -> list[Bbox]:
    """Where the labels of the ticks inside the axis's view will be drawn, in pixels: the locators' values
    formatted as the draw will format them, each text measured once (`sizes`, by text and look) and placed at
    its tick, as the axis's first major or minor tick places its labels."""
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-9
    boxes = []
    for locator, locations, formatter, ticks in (
            (axis.get_major_locator(), axis.get_majorticklocs, axis.get_major_formatter(), axis.majorTicks),
            (axis.get_minor_locator(), axis.get_minorticklocs, axis.get_minor_formatter(), axis.minorTicks)):
        if isinstance(locator, NullLocator):
            continue
        locations = locations()
        texts = formatter.format_ticks(locations)
        first = ticks[0]  # the look every tick copies
        for label, at in ((first.label1, 0.0), (first.label2, 1.0)):
            if not label.get_visible():
                continue
            place = label.get_transform()
            look = (label.get_fontproperties(), label.get_rotation(), label.get_horizontalalignment(),
                    label.get_verticalalignment(), label.get_rotation_mode())
            for location, text in zip(locations, texts):
                if not text or not low - slack <= location <= high + slack:
                    continue
                if (text, look) not in sizes:
                    probe = Text(0, 0, text, fontproperties=look[0], rotation=look[1], horizontalalignment=look[2],
                                 verticalalignment=look[3], rotation_mode=look[4], transform=IdentityTransform())
                    probe.set_figure(axis.get_figure(root=True))
                    sizes[text, look] = probe.get_window_extent(renderer)
                x, y = place.transform((location, at) if axis.axis_name == "x" else (at, location))
                boxes.append(sizes[text, look].translated(x, y))
    return boxes


def _has_text(text) -> bool:
    return text is not None and text.get_visible() and bool(text.get_text())


def wrapped(text: str, inches: float, font: FontProperties | None = None) -> str:
    """`text` broken at spaces into lines at most `inches` wide in `font` (the default one when None); a word
    wider than that stays whole on its line."""
    prop = font or FontProperties()
    points = inches * 72
    lines = []
    for paragraph in text.split("\n"):
        if _points_wide(paragraph, prop) <= points:  # most labels: one measure, kept
            lines.append(paragraph)
            continue
        line = ""
        for word in paragraph.split(" "):
            trial = f"{line} {word}" if line else word
            if line and _points_wide(trial, prop) > points:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return "\n".join(lines)


@lru_cache(maxsize=4096)
def _points_wide(line: str, prop: FontProperties) -> float:
    """The width of `line` in `prop`, in points; measured once per text and font (the last 4,096 kept: a
    server draws charts of every player it is asked about)."""
    return text_to_path.get_text_width_height_descent(line, prop, ismath=False)[0]
