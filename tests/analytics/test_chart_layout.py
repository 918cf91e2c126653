"""Charts laid out from their texts' sizes: on awkward logs every text is inside the figure, and no two parts of a
chart (a panel's tick labels and the next panel's, a title and the suptitle, ...) are drawn over each other."""

from __future__ import annotations

import pytest
from helpers.chart_cases import ALIKE_NAMES, CASES, chart_calls
from helpers.chart_geometry import layout_faults
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.text import Text
from matplotlib.textpath import text_to_path

from diavolo_stats.analytics import charts
from diavolo_stats.analytics.chart_layout import FittedLayout, wrapped
from diavolo_stats.analytics.tie_frequency import closest_by_tolerance, convergence, odds_by_parameter
from diavolo_stats.core.variant import Variant
from diavolo_stats.plots import figure_png


@pytest.mark.parametrize("case", CASES)
def test_every_chart_of_an_awkward_log_fits_its_figure_without_parts_over_each_other(case, tmp_path, monkeypatch):
    calls = chart_calls(case, tmp_path, monkeypatch)
    assert calls
    faults = {f"{chart} {kwargs}": layout_faults(getattr(charts, chart)(*args, **kwargs))
              for chart, args, kwargs in calls}
    assert {chart: found for chart, found in faults.items() if found} == {}


@pytest.mark.parametrize("figure", [
    lambda: charts.convergence_chart(convergence(Variant(), [100, 1_000, 10_000], seed=1)),
    # Within a decade a log axis labels its minor ticks too (2x10^3, 3x10^3, ...).
    lambda: charts.convergence_chart(convergence(Variant(), [2_000, 3_000, 5_000, 8_000], seed=1)),
    lambda: charts.parameter_chart(odds_by_parameter("dice_per_color", range(1, 4)), "dice_per_color"),
    lambda: charts.tolerance_chart(closest_by_tolerance([0.0, 0.1, 0.2], 1_000, seed=1)),
], ids=["convergence", "convergence within a decade", "parameter", "tolerance"])
def test_the_explorer_s_charts_fit_their_figure_too(figure):
    assert layout_faults(figure()) == []


def test_the_check_finds_a_chart_laid_out_by_matplotlib_s_defaults_cut_and_crowded(tmp_path, monkeypatch):
    # The long name's tie rolls with the figure's default margins: the rotated names and the labels pass its edges.
    (chart, args, kwargs), = [call for call in chart_calls("long name", tmp_path, monkeypatch)
                              if call[0] == "tie_versus_non_tie_chart"]
    figure = getattr(charts, chart)(*args, **kwargs)
    figure.set_layout_engine("none")
    faults = layout_faults(figure)
    assert any("leaves the figure" in fault for fault in faults)


def test_a_sentence_is_broken_at_spaces_into_lines_no_wider_than_asked():
    sentence = "Too few correct answers to draw (5 needed from one player; the most one player has): " + ", ".join(
        f"command-{number} {number}" for number in range(30))
    lines = wrapped(sentence, 3.0).split("\n")
    assert len(lines) > 3 and " ".join(lines) == sentence
    widths = [text_to_path.get_text_width_height_descent(line, FontProperties(), ismath=False)[0] for line in lines]
    assert max(widths) <= 3.0 * 72
    assert wrapped("first line\nsecond", 30.0) == "first line\nsecond"  # the chart's own breaks are kept


def test_a_long_player_name_is_cut_in_the_charts_with_an_ellipsis():
    short, longest = "x" * charts.NAME_CHARACTERS, "x" * 55
    assert charts.shown_names(["bo", short, longest]) == {
        "bo": "bo", short: short, longest: "x" * (charts.NAME_CHARACTERS - 1) + "…"}


def test_names_a_cut_would_make_alike_show_the_ends_that_tell_them_apart():
    north, south = ALIKE_NAMES
    assert north[:charts.NAME_CHARACTERS - 1] == south[:charts.NAME_CHARACTERS - 1]
    assert charts.shown_names([south, "bo", north]) == {
        north: "Tournament player …north", south: "Tournament player …south", "bo": "bo"}
    # A cut alike a short player's name shows its end; only a number tells apart names that differ in the middle.
    cut = "abcdefghijklmnopqrstuvw…"
    assert charts.shown_names([cut, "abcdefghijklmnopqrstuvwxyz"])["abcdefghijklmnopqrstuvwxyz"] == \
        "abcdefghijklmnopqrst…xyz"
    middle = ["a" * 30 + "1" + "b" * 30, "a" * 30 + "2" + "b" * 30, "a" * 23 + "…"]
    assert sorted(charts.shown_names(middle).values()) == sorted(["a" * 21 + "…#1", "a" * 21 + "…#2", "a" * 23 + "…"])


def test_every_chart_names_two_players_alike_up_to_the_cut_apart(tmp_path, monkeypatch):
    shown = {"Tournament player …north", "Tournament player …south"}
    for chart, args, kwargs in chart_calls("alike long names", tmp_path, monkeypatch):
        figure = getattr(charts, chart)(*args, **kwargs)
        named = {text.get_text() for text in figure.findobj(Text) if text.get_text().startswith("Tournament")}
        if chart != "tie_frequency_chart":
            assert named == shown, chart


def _one_panel(ylabel: str) -> Figure:
    figure = Figure(figsize=(4, 3), layout=FittedLayout())
    axes = figure.subplots()
    axes.plot([0, 12_000], [0, 1])
    axes.set_ylabel(ylabel)
    return figure


def _labels_placed(figure: Figure) -> int:
    """How many times matplotlib places an axis label from its tick labels as `figure` is drawn."""
    placed = []
    real = Axis._get_tick_boxes_siblings
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Axis, "_get_tick_boxes_siblings", lambda axis, renderer: placed.append(axis) or real(axis,
                                                                                                         renderer))
        figure_png(figure)
    return len(placed)


def test_an_empty_axis_label_is_not_placed_and_one_given_after_a_draw_is_placed():
    # Placing a label measures every tick label of its axis: for a label with no text, work for nothing.
    assert _labels_placed(_one_panel("")) == 0
    assert _labels_placed(_one_panel("latency (ms)")) == 1  # the y label; the x axis's is empty
    figure = _one_panel("")
    figure_png(figure)
    figure.axes[0].set_ylabel("latency (ms)")
    assert _labels_placed(figure) == 1
    assert layout_faults(figure) == []  # beside its tick labels, not where an unplaced label is left
