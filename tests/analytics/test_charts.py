"""What the charts show people: labelled axes, panels that say why they are empty, curves that stay visible."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.chart_cases import case_log
from helpers.cli import REPO
from helpers.drill_logs import DAY_ONE, DICE, answered, write_log

from diavolo_stats.analytics import charts, summaries
from diavolo_stats.analytics.chart_data import frame_columns
from diavolo_stats.analytics.tie_frequency import convergence, load_simulation, odds_by_parameter, tie_frequency_frame
from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.log.rules import with_command_labels
from diavolo_stats.plots import figure_png

SIMULATION = REPO / "data" / "simulation_standard.csv"


def panel(figure, title):
    return next(axes for axes in figure.axes if axes.get_title() == title)


def texts(axes) -> str:
    return "\n".join(text.get_text() for text in axes.texts)


def test_latency_has_a_labelled_scale_and_commands_with_too_few_answers_are_named_once(tmp_path):
    # Ann: 12 correct highest-total answers, one far slower than the rest; one correct highest-die answer.
    latencies = [900.0 + 10 * i for i in range(11)] + [9000.0]
    log = write_log(tmp_path / "log.csv", [answered("ann", "s1", "highest-total", "red", ms) for ms in latencies]
                    + [answered("ann", "s1", "highest-die", "grey", 1000.0)], numbered=True)
    figure = charts.latency_chart(load_logs([log]))
    assert "% of a player's correct answers per 100 ms" in figure.get_supylabel()
    assert [axes.get_title() for axes in figure.axes if axes.get_visible()] == ["highest-total"]
    drawn = panel(figure, "highest-total")
    assert drawn.patches and drawn.get_yticks().size and drawn.get_ylim()[0] == 0
    # % per 100 ms: the area under Ann's outline, in % x 100 ms, is 100 % of her answers: every one is drawn,
    # the slow one in the last bar, which the axis label names.
    (outline,) = drawn.patches
    x, y = outline.get_path().vertices.T
    assert abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2 / 100 == pytest.approx(100)
    assert x.max() == drawn.get_xlim()[1] < 9000
    label = figure.get_supxlabel()
    assert f"the last bar also holds every answer from {drawn.get_xlim()[1]:,.0f} ms on (1)" in label
    assert label.count("Too few correct answers") == 1 and "highest-die 1" in label


def test_the_latency_title_names_the_fits_only_where_one_is_drawn(tmp_path):
    # 12 answers are enough for a histogram, not for a fit (MIN_FIT_ANSWERS); 40 are enough for both.
    for answers, drawn in ((12, False), (40, True)):
        trials = [answered("ann", "s1", "highest-total", "red", 900.0 + 7 * (i % 13) ** 1.5) for i in range(answers)]
        drills = load_logs([write_log(tmp_path / f"{answers}.csv", trials, numbered=True)])
        fits = summaries.summary_fits(summaries.summarize(drills))
        figure = charts.latency_chart(drills, fits)
        curves = [line for line in panel(figure, "highest-total").lines if line.get_linestyle() == "--"]
        assert bool(curves) is drawn
        assert ("dashed: ex-Gaussian fit" in figure.get_suptitle()) is drawn


def test_every_latency_panel_with_no_panel_below_shows_the_axis_values(tmp_path):
    # Four commands: three panels on the first row, one under the first: the second and third have none below.
    commands = ["highest-total", "lowest-total", "largest-spread", "most-odd"]
    trials = [answered("ann", "s1", command, resolve(Variant(), Command(command), DICE).answer, 900.0 + 10 * i)
              for command in commands for i in range(6)]
    figure = charts.latency_chart(load_logs([write_log(tmp_path / "log.csv", trials, numbered=True)]))
    shown = {command: panel(figure, command).xaxis.get_tick_params().get("labelbottom", True) for command in commands}
    assert shown == {"highest-total": False, "lowest-total": True, "largest-spread": True, "most-odd": True}


def test_a_latency_chart_with_no_command_to_draw_is_one_sentence(tmp_path):
    log = write_log(tmp_path / "log.csv", [answered("ann", "s1", "highest-total", "red", 900.0),
                                           answered("ann", "s1", "highest-die", "grey", 1000.0)], numbered=True)
    figure = charts.latency_chart(load_logs([log]))
    assert not figure.axes
    (sentence,) = [text.get_text() for text in figure.texts]
    assert "too few correct answers to draw" in sentence and "highest-total 1, highest-die 1" in sentence


def test_a_panel_names_the_players_too_few_to_draw_beside_those_drawn(tmp_path):
    trials = [answered("ann", "s1", "highest-total", "red", 900.0 + 10 * i) for i in range(12)]
    trials += [answered("bo", "s2", "highest-total", "red", 1000.0),
               answered("bo", "s2", "highest-total", "white", 1100.0)]
    figure = charts.latency_chart(load_logs([write_log(tmp_path / "log.csv", trials, numbered=True)]))
    drawn = panel(figure, "highest-total")
    assert drawn.patches and "too few answers:\nbo: 1 correct" in texts(drawn)


def test_the_learning_curve_latency_axis_starts_at_zero_and_ends_clear_of_the_slowest_session(tmp_path):
    log = write_log(tmp_path / "log.csv", [answered("ann", "s1", "highest-total", "red", 2000.0 + i) for i in range(5)]
                    + [answered("ann", "s2", "highest-total", "red", 1900.0 + i, start=DAY_ONE.replace(day=2))
                       for i in range(5)], numbered=True)
    figure = charts.learning_curve_chart(summaries.learning_curve(load_logs([log])))
    latency_axes = figure.axes[1]
    slowest = 2002.0  # the first session's median
    assert latency_axes.get_ylim() == (0, charts.LATENCY_HEADROOM * slowest)  # its marker whole, below the top


def test_curves_that_coincide_stay_visible_and_say_so():
    figure = charts.parameter_chart(odds_by_parameter("dice_per_color", range(1, 4)), "dice_per_color")
    axes = figure.axes[0]
    labels = [line.get_label() for line in axes.lines]
    assert "lowest-total (same as highest-total)" in labels and "highest-total" in labels
    hollow = axes.lines[labels.index("lowest-total (same as highest-total)")]
    assert hollow.get_markerfacecolor() == "none" and hollow.get_markersize() > axes.lines[0].get_markersize()
    # highest-die equals highest-total with one die per color only, not along the whole curve
    assert "highest-die" in labels


@pytest.mark.parametrize("case", ["sample", "14 players"])
def test_a_chart_of_a_frame_s_columns_is_the_chart_of_the_frame(case, tmp_path):
    """A notebook passes a chart the DataFrame, the report's worker its columns (`chart_data.frame_columns`): the
    same PNG bytes, with few players and with many (heatmap, bars, a mean over the players)."""
    drills = with_command_labels(load_logs([case_log(case, tmp_path)]))
    frames = {"accuracy_chart": summaries.summarize(drills, fit=False),
              "learning_curve_chart": summaries.learning_curve(drills, fit=False),
              "tie_versus_non_tie_chart": summaries.tie_versus_non_tie(drills, fit=False),
              "tie_frequency_chart": tie_frequency_frame(Variant(), load_simulation(SIMULATION)),
              "convergence_chart": convergence(Variant(), [1_000, 10_000], seed=1)}
    for chart, frame in frames.items():
        draw = getattr(charts, chart)
        assert figure_png(draw(frame)) == figure_png(draw(frame_columns(frame))), chart
    odds = odds_by_parameter("dice_per_color", [2, 3])
    assert (figure_png(charts.parameter_chart(odds, "dice_per_color"))
            == figure_png(charts.parameter_chart(frame_columns(odds), "dice_per_color")))
