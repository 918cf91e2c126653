"""Matplotlib figures of drill summaries and tie odds, for the report and the notebooks.

Each function takes a frame from `summaries` or `tie_frequency` (a DataFrame, or its columns as arrays:
`chart_data.frame_columns`, what the report's worker is sent) and returns a `matplotlib.figure.Figure`, built
without pyplot and laid out by `chart_layout.FittedLayout` as it is drawn. A frame is read by column name only,
into numpy: this module imports no pandas, so neither does a worker that draws.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from diavolo_stats.analytics.chart_data import (
    LATENCY_UNIT_MS,
    MIN_HISTOGRAM_ANSWERS,
    NON_TIE,
    PERCENT_PER_UNIT,
    TIE,
    LatencyFigures,
)
from diavolo_stats.analytics.chart_layout import LINE_INCHES, PAD_INCHES, FittedLayout, wrapped
from diavolo_stats.plots import plot_curves
from diavolo_stats.stats import ExGaussian

PANEL_INCHES = (4.2, 3.0)
MANY_PLAYERS = 10
"""Above this many players a chart stops giving each player a colored series of their own (ten colors are as
many as a reader tells apart, and the legend would outgrow the plot): accuracy becomes a heatmap, tie and
non-tie rolls horizontal bars, latency and learning the spread over players."""
PLAYER_ROW_INCHES = 0.24
TITLE_Y = 1.0
"""Where an axes' title sits (a fraction of its height) in charts whose x ticks are below and whose y values need
no offset label: given, the title stays there, where matplotlib would measure the y axis at every pass of
laying out and drawing to lift it over those (some 15 % of such a chart's PNG), and find nothing to lift it over."""
NAME_CHARACTERS = 24
"""A player's name in a chart is cut to this many characters, the last an ellipsis: a longer one would take the
plots' room (the report's tables give it whole)."""
LATENCY_HEADROOM = 1.08
"""The learning curve's latency axis ends this many times the slowest session's median."""


def player_colors(players: Sequence[str]) -> dict[str, tuple]:
    """A stable color per player (sorted by name), the same in every chart of one report."""
    palette = colormaps["tab10"].colors
    return {player: palette[i % len(palette)] for i, player in enumerate(sorted(set(players)))}


def shown_names(players: Iterable[str]) -> dict[str, str]:
    """Each of `players` as one chart names them, no two alike: a name of NAME_CHARACTERS or fewer whole, a
    longer one cut to NAME_CHARACTERS, the last an ellipsis. Long names whose cuts would be alike (or be a
    short name) are cut before the ellipsis instead, for the end from where each differs from the others to
    show ("Tournament player …north", "…south"); failing that (the end too long), numbered ("…#2")."""
    players = sorted(set(players))
    shown = {player: player if len(player) <= NAME_CHARACTERS else player[:NAME_CHARACTERS - 1] + "…"
             for player in players}
    alike: dict[str, list[str]] = {}
    for player in players:
        if len(player) > NAME_CHARACTERS:
            alike.setdefault(shown[player], []).append(player)
    for cut, group in alike.items():
        if len(group) == 1 and cut not in shown:
            continue
        taken = {name for player, name in shown.items() if player not in group}
        names = [_ending(player, max((_common(player, other) for other in {*group, cut} - {player}), default=0))
                 for player in group]
        if None in names or len(set(names)) < len(names) or not taken.isdisjoint(names):
            names = _numbered(group, taken)
        shown.update(zip(group, names))
    return shown


def _common(name: str, other: str) -> int:
    """How many first characters `name` and `other` share."""
    return next((i for i, (a, b) in enumerate(zip(name, other)) if a != b), min(len(name), len(other)))


def _ending(player: str, differs: int) -> str | None:
    """`player` cut to NAME_CHARACTERS with its end from character `differs` on after the ellipsis; None when that
    end leaves no room for a first character."""
    end = player[differs:]
    room = NAME_CHARACTERS - 1 - len(end)
    return player[:room] + "…" + end if room >= 1 else None


def _numbered(group: list[str], taken: set[str]) -> list[str]:
    """The cut names of `group` told apart by a number after the ellipsis ("…#1", "…#2"), none in `taken`."""
    names, number = [], 0
    for player in group:
        name = None
        while name is None or name in taken:
            number += 1
            name = f"{player[:NAME_CHARACTERS - 2 - len(str(number))]}…#{number}"
        names.append(name)
    return names


def accuracy_chart(summary) -> Figure:
    """Accuracy per command with its 95 % interval, one series per player (`summary` by player, command)."""
    command_of, player_of = _string_column(summary, "command"), _string_column(summary, "player")
    commands, players = list(dict.fromkeys(command_of.tolist())), list(dict.fromkeys(player_of.tolist()))
    if len(players) > MANY_PLAYERS:
        return _accuracy_heatmap(summary, players, commands)
    colors, names = player_colors(players), shown_names(players)
    figure = Figure(figsize=(max(6.0, 1.3 * len(commands)), 3.8), layout=FittedLayout())
    axes = figure.add_subplot()
    offsets = _offsets(len(players))
    accuracy_of, low_of, high_of = (_float_column(summary, name) for name in ("accuracy", "accuracy_ci_low",
                                                                          "accuracy_ci_high"))
    for player, offset in zip(players, offsets):
        rows = player_of == player
        x = np.array([commands.index(c) for c in command_of[rows]]) + offset
        accuracy = accuracy_of[rows]
        error = [accuracy - low_of[rows], high_of[rows] - accuracy]
        axes.errorbar(x, accuracy, yerr=error, fmt="o", capsize=3, color=colors[player], label=names[player])
    axes.set_xticks(range(len(commands)), commands, rotation=20, ha="right")
    axes.set_ylim(0, 1.02)
    axes.set_ylabel("accuracy (95 % interval)")
    axes.set_title("Accuracy per command", y=TITLE_Y)
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize="small", loc="lower left")
    return figure


def _accuracy_heatmap(summary, players: list[str], commands: list[str]) -> Figure:
    """Accuracy per player (rows) and command (columns), each cell colored and labelled: for many players."""
    accuracy = np.full((len(players), len(commands)), np.nan)
    for player, command, value in zip(_string_column(summary, "player").tolist(),
                                      _string_column(summary, "command").tolist(), _float_column(summary, "accuracy")):
        accuracy[players.index(player), commands.index(command)] = value
    figure = Figure(figsize=(max(6.0, 1.1 * len(commands) + 3.0), 1.6 + PLAYER_ROW_INCHES * len(players)),
                    layout=FittedLayout())
    grid = figure.add_gridspec(1, 2, width_ratios=(1, 0.045))
    axes = figure.add_subplot(grid[0, 0])
    shrink = min(1.0, 12 / len(players) + 0.3)  # the color bar no taller than a dozen rows and a bit
    bar = figure.add_subplot(grid[0, 1].subgridspec(3, 1, hspace=0, height_ratios=(1 - shrink, 2 * shrink,
                                                                                   1 - shrink))[1])
    image = axes.imshow(accuracy, aspect="auto", vmin=0, vmax=1, cmap="viridis", interpolation="nearest")
    for (row, column), value in np.ndenumerate(accuracy):
        if np.isfinite(value):
            axes.text(column, row, f"{value:.2f}", ha="center", va="center", fontsize=7,
                      color="white" if value < 0.6 else "black")
    axes.set_xticks(range(len(commands)), commands, rotation=20, ha="right")
    names = shown_names(players)
    axes.set_yticks(range(len(players)), list(map(names.get, players)), fontsize="small")
    axes.xaxis.tick_top()
    axes.tick_params(axis="x", labelrotation=20)
    figure.colorbar(image, cax=bar, label="accuracy")
    axes.set_title(f"Accuracy per command, {len(players)} players")
    return figure


def latency_chart(drills, fits: Mapping[tuple[str, str], ExGaussian] | None = None) -> Figure:
    """Histograms of correct-answer latency (ms) per command, one outline per player, in % per 100 ms.

    The x axis ends at the LATENCY_AXIS_QUANTILE of all correct latencies, slower answers counted in the last bar.
    A command gets a panel when a player has MIN_HISTOGRAM_ANSWERS correct answers at it; the others are named in a
    sentence under the panels. fits: the ex-Gaussian fits drawn dashed over each histogram
    (`summaries.summary_fits`), none when None. With more than MANY_PLAYERS players a panel is one histogram of all
    with each player's median as a tick. (`latency_figures` has these constants.)
    """
    # Imported here, from the rows' reader: a worker that draws from figures worked out for it imports no pandas.
    from diavolo_stats.analytics.latency_figures import latency_figures

    return latency_figures_chart(latency_figures(drills, fits))


def latency_figures_chart(figures: LatencyFigures) -> Figure:
    """`latency_chart` of figures already worked out (`latency_figures`)."""
    answers, commands, left_out, most, top = (figures.answers, figures.commands, figures.left_out, figures.most,
                                              figures.top)
    players = sorted({player for _, player in answers})
    sentence = (f"Too few correct answers to draw ({MIN_HISTOGRAM_ANSWERS} needed from one player; the most "
                "one player has): " + ", ".join(f"{command} {most[command]}" for command in left_out) + ".")
    if not commands:
        text = wrapped("Latency per command: " + sentence[0].lower() + sentence[1:], 8 - 2 * PAD_INCHES)
        figure = Figure(figsize=(8, max(0.9, LINE_INCHES * (text.count("\n") + 1) + 2 * PAD_INCHES)))
        figure.text(0.5, 0.5, text, ha="center", va="center")
        return figure
    bins = np.linspace(0, top, 31)
    many = len(players) > MANY_PLAYERS
    colors, names = player_colors(players), shown_names(players)
    # Each panel gets the same axis, not a shared one: matplotlib would work out every sibling's ticks for each.
    figure, panels = _panel_grid(len(commands), sharex=False)
    for index, axes in enumerate(panels):
        axes.set_xlim(0, top)
        if index + _columns(len(panels)) < len(panels):  # the panel below shows the same values
            axes.xaxis.set_tick_params(which="both", labelbottom=False)
    for axes, command in zip(panels, commands):
        drilled = {player: answers[command, player] for player in players if (command, player) in answers}
        axes.set_title(command, fontsize="medium", y=TITLE_Y)
        axes.grid(axis="y", alpha=0.3)
        if many:
            _latency_spread(axes, list(drilled.values()), bins)
        else:
            _player_histograms(axes, command, {player: values for player, (_, values) in drilled.items()}, bins,
                               colors, names, figures)
        axes.set_ylim(bottom=0)  # after drawing: set first, it would freeze the top at 1
    last_bar = (f"; the last bar also holds every answer from {top:,.0f} ms on ({figures.slower})" if figures.slower
                else "")
    figure.supxlabel("latency of correct answers (ms)" + last_bar
                     + ("\n" + sentence if left_out else ""), fontsize="medium")
    if many:
        figure.supylabel(f"% of all players' correct answers per {LATENCY_UNIT_MS} ms")
        panels[0].legend(handles=[Patch(color="lightgrey", label="all players"),
                                  Line2D([], [], color="tab:blue", marker="|", linestyle="", markersize=12,
                                         label="a player's median")], fontsize="small")
        figure.suptitle(f"Latency per command, {len(players)} players")
        return figure
    figure.supylabel(f"% of a player's correct answers per {LATENCY_UNIT_MS} ms")
    # One legend for every player, even those with no correct answer in the first panel.
    panels[0].legend(handles=[Line2D([], [], color=color, label=names[player])
                              for player, color in colors.items()], fontsize="small")
    # The title names the dashed curves only where one is drawn: a fit needs more answers than a histogram.
    figure.suptitle("Latency per command" + (" (dashed: ex-Gaussian fit)" if figures.curves else ""))
    return figure


def _player_histograms(axes, command: str, latencies: dict[str, np.ndarray], bins: np.ndarray,
                       colors: dict[str, tuple], names: dict[str, str], figures: LatencyFigures) -> None:
    """Each player's correct latencies (ms) at `command` as an outline, their fit's curve dashed over it where
    `figures` has one; the players with fewer than MIN_HISTOGRAM_ANSWERS named in the corner instead (each
    player named as `names` says)."""
    top = bins[-1]
    too_few = []
    for player, values in latencies.items():
        if values.size < MIN_HISTOGRAM_ANSWERS:
            too_few.append(f"{names[player]}: {values.size} correct")
            continue
        # Slower answers go in the last bar: each answer weighs its share of the player's answers.
        weights = np.full(values.size, PERCENT_PER_UNIT / (values.size * (bins[1] - bins[0])))
        axes.hist(np.minimum(values, top), bins=bins, weights=weights, histtype="step", color=colors[player],
                  label=names[player])
        curve = (figures.curves or {}).get((command, player))
        if curve is not None:
            axes.plot(figures.grid, curve, color=colors[player], linestyle="--", linewidth=1)
    if too_few:
        axes.text(0.98, 0.95, "too few answers:\n" + "\n".join(too_few), transform=axes.transAxes,
                  ha="right", va="top", fontsize="small", color="dimgrey")


def _latency_spread(axes, answers: list[tuple[dict, np.ndarray]], bins: np.ndarray) -> None:
    """All players' correct latencies as one histogram, and each player's median as a tick below it.

    answers: each player's `performance` figures and correct latencies (ms).
    """
    values = np.concatenate([latencies for _, latencies in answers])
    if values.size:
        weights = np.full(values.size, PERCENT_PER_UNIT / (values.size * (bins[1] - bins[0])))
        axes.hist(np.minimum(values, bins[-1]), bins=bins, weights=weights, color="lightgrey", edgecolor="grey")
    medians = np.array([figures["median_latency_ms"] for figures, latencies in answers if latencies.size])
    medians = np.minimum(medians, bins[-1])  # a median past the axis is shown at its end, like the answers
    axes.plot(medians, np.zeros_like(medians), marker="|", linestyle="", markersize=12, color="tab:blue",
              clip_on=False)


def learning_curve_chart(curve, narrow: bool = False) -> Figure:
    """Accuracy (95 % interval) and median correct latency (ms) by session number, one line per player.

    narrow: the two panels one above the other, for a phone's screen, instead of side by side.
    """
    player_of = _string_column(curve, "player")
    colors = player_colors(player_of.tolist())
    names = shown_names(colors)
    figure = Figure(figsize=(4.2, 6.4) if narrow else (10, 3.6), layout=FittedLayout())
    accuracy_axes, latency_axes = figure.subplots(2 if narrow else 1, 1 if narrow else 2, sharex=True)
    many = len(colors) > MANY_PLAYERS
    session_of = np.asarray(curve["session_number"])
    accuracy_of, low_of, high_of, latency_of = (_float_column(curve, name) for name in (
        "accuracy", "accuracy_ci_low", "accuracy_ci_high", "median_latency_ms"))
    for player in colors:  # sorted by name
        rows = player_of == player
        sessions, accuracy = session_of[rows], accuracy_of[rows]
        if many:  # every player a thin grey line; their mean is drawn over them below
            for axes, values in ((accuracy_axes, accuracy), (latency_axes, latency_of[rows])):
                axes.plot(sessions, values, color="grey", alpha=0.35, linewidth=0.8)
            continue
        error = [accuracy - low_of[rows], high_of[rows] - accuracy]
        accuracy_axes.errorbar(sessions, accuracy, yerr=error, marker="o", capsize=3, color=colors[player],
                               label=names[player])
        latency_axes.plot(sessions, latency_of[rows], marker="o", color=colors[player], label=names[player])
    if many:
        numbers, session = np.unique(session_of, return_inverse=True)
        for axes, values in ((accuracy_axes, accuracy_of), (latency_axes, latency_of)):
            axes.plot(numbers, _means(values, session, len(numbers)), marker="o", color="tab:blue", linewidth=2,
                      label=f"mean of {len(colors)} players")
            axes.plot([], [], color="grey", alpha=0.6, linewidth=0.8, label="one player")
    accuracy_axes.set_ylim(0, 1.02)
    accuracy_axes.set_ylabel("accuracy" if many else "accuracy (95 % interval)")
    # From 0: a short log's few sessions would otherwise magnify a small change. The top clear of the slowest
    # session's marker, which matplotlib's margin (5 % of the medians' range, not of the axis) would cut in half.
    slowest = np.nanmax(latency_of, initial=-np.inf)
    latency_axes.set_ylim(0, LATENCY_HEADROOM * slowest if np.isfinite(slowest) and slowest > 0 else None)
    latency_axes.set_ylabel("median time of correct answers (ms)")
    for axes in (accuracy_axes, latency_axes):
        axes.set_xlabel("session")
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.grid(alpha=0.3)
    accuracy_axes.legend(fontsize="small", loc="lower right")
    figure.suptitle("Learning curve")
    return figure


def tie_versus_non_tie_chart(summary) -> Figure:
    """Accuracy and median correct latency (ms) on tie and non-tie rolls, per player (from `tie_versus_non_tie`)."""
    player_of, roll_of = _string_column(summary, "player"), _string_column(summary, "roll")
    players = list(dict.fromkeys(player_of.tolist()))
    # Many players: horizontal bars, one row per player, the figure as tall as they need.
    horizontal = len(players) > MANY_PLAYERS
    size = (10, 1.6 + 2 * PLAYER_ROW_INCHES * len(players)) if horizontal else (10, 3.6)
    figure = Figure(figsize=size, layout=FittedLayout())
    accuracy_axes, latency_axes = figure.subplots(1, 2, sharey=horizontal)
    width = 0.38
    x = np.arange(len(players))
    for shift, roll, hatch in ((-width / 2, NON_TIE, ""), (width / 2, TIE, "//")):
        # Each player's row of this roll, -1 for a player without one (their bars left out: NaN).
        row_of = dict(zip(player_of[roll_of == roll], np.flatnonzero(roll_of == roll)))
        rows = np.array([row_of.get(player, -1) for player in players], dtype=np.intp)
        accuracy, low, high, latency = (np.where(rows >= 0, _float_column(summary, name)[rows], np.nan) for name in (
            "accuracy", "accuracy_ci_low", "accuracy_ci_high", "median_latency_ms"))
        error = np.nan_to_num([accuracy - low, high - accuracy])
        style = {"hatch": hatch, "label": roll, "color": "lightgrey" if roll == TIE else "tab:blue",
                 "edgecolor": "black"}
        if horizontal:
            accuracy_axes.barh(x + shift, accuracy, width, xerr=error, capsize=2, **style)
            latency_axes.barh(x + shift, latency, width, **style)
        else:
            accuracy_axes.bar(x + shift, accuracy, width, yerr=error, capsize=3, **style)
            latency_axes.bar(x + shift, latency, width, **style)
    value_axis = "x" if horizontal else "y"
    names = list(map(shown_names(players).get, players))
    for axes in (accuracy_axes, latency_axes):
        if horizontal:
            axes.set_yticks(x, names, fontsize="small")
            axes.set_ylim(len(players) - 0.5, -0.5)  # the first player on top, as in the tables
        else:
            axes.set_xticks(x, names, rotation=20, ha="right")
        axes.grid(axis=value_axis, alpha=0.3)
    getattr(accuracy_axes, f"set_{value_axis}lim")(0, 1.18)
    getattr(accuracy_axes, f"set_{value_axis}ticks")(np.linspace(0, 1, 6))
    getattr(accuracy_axes, f"set_{value_axis}label")("accuracy (95 % interval)")
    getattr(latency_axes, f"set_{value_axis}label")("median time of correct answers (ms)")
    if horizontal:  # below the plots: inside, it would cover a player's bars
        figure.legend(*accuracy_axes.get_legend_handles_labels(), fontsize="small", loc="outside lower center",
                      ncols=2)
    else:
        accuracy_axes.legend(fontsize="small", loc="upper center", ncols=2)
    figure.suptitle("Tie rolls (answer grey) against non-tie rolls")
    return figure


def tie_frequency_chart(frame, title: str = "Tie frequency per command") -> Figure:
    """Exact against simulated tie probability per command (from `tie_frequency.tie_frequency_frame`).

    Top: both probabilities, the simulated one with its 95 % interval. Bottom:
    simulated minus exact, in percentage points, where the interval is
    visible at any number of rounds; it should cross zero about 19 times in 20.
    """
    commands = _string_column(frame, "command").tolist()
    x = np.arange(len(commands))
    figure = Figure(figsize=(max(6.0, 1.3 * len(commands)), 5.4), layout=FittedLayout())
    odds_axes, gap_axes = figure.subplots(2, 1, sharex=True, height_ratios=(2, 1))
    exact, simulated, low, high = (_float_column(frame, name) for name in (
        "exact_tie_probability", "simulated_tie_probability", "ci95_low", "ci95_high"))
    odds_axes.scatter(x - 0.12, exact, marker="D", color="black", label="exact", zorder=3)
    odds_axes.errorbar(x + 0.12, simulated, yerr=[simulated - low, high - simulated], fmt="o", capsize=4,
                       color="tab:orange", label="simulated (95 % interval)")
    odds_axes.set_ylabel("tie probability")
    odds_axes.set_ylim(0, max(0.05, float(np.nanmax(np.r_[exact, high]))) * 1.15)
    odds_axes.grid(axis="y", alpha=0.3)
    odds_axes.legend(fontsize="small")
    odds_axes.set_title(title, y=TITLE_Y)
    gap = 100 * (simulated - exact)
    gap_axes.axhline(0, color="black", linewidth=0.8)
    gap_axes.errorbar(x, gap, yerr=[100 * (simulated - low), 100 * (high - simulated)], fmt="o", capsize=4,
                      color="tab:orange")
    for position in np.flatnonzero(~np.isfinite(exact)):
        gap_axes.text(position, 0, "no exact\nvalue", ha="center", va="center", fontsize="small", color="grey",
                      bbox={"facecolor": "white", "edgecolor": "none"})
    gap_axes.set_ylabel("simulated - exact\n(percentage points)")
    gap_axes.set_xticks(x, commands, rotation=20, ha="right")
    gap_axes.grid(axis="y", alpha=0.3)
    return figure


def convergence_chart(convergence) -> Figure:
    """Simulated tie probability with its 95 % interval against rounds (log scale), per command, exact dashed."""
    command_of = _string_column(convergence, "command")
    commands = list(dict.fromkeys(command_of.tolist()))
    figure, panels = _panel_grid(len(commands), sharex=True)
    round_of = np.asarray(convergence["rounds"])
    simulated_of, low_of, high_of, exact_of = (_float_column(convergence, name) for name in (
        "simulated_tie_probability", "ci95_low", "ci95_high", "exact_tie_probability"))
    for axes, command in zip(panels, commands):
        rows = command_of == command
        rounds = round_of[rows]
        axes.fill_between(rounds, low_of[rows], high_of[rows], color="tab:orange", alpha=0.3, label="95 % interval")
        axes.plot(rounds, simulated_of[rows], marker="o", color="tab:orange", label="simulated")
        exact = exact_of[rows]
        if np.isfinite(exact).any():
            axes.axhline(exact[0], color="black", linestyle="--", linewidth=1, label="exact")
        axes.set_xscale("log")
        axes.set_title(command, fontsize="medium")
        axes.grid(alpha=0.3)
    figure.supxlabel("rounds simulated")
    panels[0].legend(fontsize="small")
    figure.suptitle("Tie probability as rounds grow")
    return figure


def parameter_chart(odds, parameter: str) -> Figure:
    """Exact tie probability per command against one variant parameter (from `tie_frequency.odds_by_parameter`)."""
    figure = Figure(figsize=(6.4, 4.0), layout=FittedLayout())
    axes = figure.add_subplot()
    styles = ("-", "--", "-.", ":")
    markers = ("o", "s", "^", "D", "v", "P")
    curves = []
    command_of, value_of, exact_of = (_string_column(odds, "command"), np.asarray(odds[parameter]),
                                      _float_column(odds, "exact_tie_probability"))
    for index, command in enumerate(dict.fromkeys(command_of.tolist())):
        style = {"linestyle": styles[index % len(styles)], "marker": markers[index % len(markers)]}
        rows = command_of == command
        curves.append((command, value_of[rows], exact_of[rows], style))
    plot_curves(axes, curves)
    axes.set_xlabel(parameter.replace("_", " "))
    axes.set_ylabel("exact tie probability")
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small")
    axes.set_title(f"Tie odds by {parameter.replace('_', ' ')}")
    return figure


def tolerance_chart(closest) -> Figure:
    """Simulated `closest` tie probability (95 % interval) against the perception tolerance.

    `frame` is what `tie_frequency.closest_by_tolerance` returns.
    """
    figure = Figure(figsize=(6.4, 4.0), layout=FittedLayout())
    axes = figure.add_subplot()
    tolerance = 100 * _float_column(closest, "tolerance")
    simulated = _float_column(closest, "simulated_tie_probability")
    axes.fill_between(tolerance, _float_column(closest, "ci95_low"), _float_column(closest, "ci95_high"),
                      color="tab:orange", alpha=0.3, label="95 % interval")
    axes.plot(tolerance, simulated, marker="o", color="tab:orange", label="simulated")
    axes.set_xlabel("perception tolerance (% of the nearest distance)")
    axes.set_ylabel("closest: tie probability")
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small")
    axes.set_title("closest: ties against how finely players see")
    return figure


def _panel_grid(count: int, sharex: bool) -> tuple[Figure, list]:
    columns = _columns(count)
    rows = -(-count // columns)
    figure = Figure(figsize=(PANEL_INCHES[0] * columns, PANEL_INCHES[1] * rows), layout=FittedLayout())
    panels = figure.subplots(rows, columns, sharex=sharex, squeeze=False).ravel().tolist()
    for spare in panels[count:]:
        spare.set_visible(False)
    return figure, panels[:count]


def _columns(count: int) -> int:
    return min(3, max(1, count))


def _string_column(frame, column: str) -> np.ndarray:
    """`frame`'s `column` as strings (a categorical one's values)."""
    return np.asarray(frame[column]).astype(str)


def _float_column(frame, column: str) -> np.ndarray:
    """`frame`'s `column` as float64."""
    return np.asarray(frame[column], dtype=np.float64)


def _means(values: np.ndarray, groups: np.ndarray, count: int) -> np.ndarray:
    """The mean of each of `count` groups of `values` (NaN left out; NaN for a group of none), in order."""
    kept = ~np.isnan(values)
    with np.errstate(invalid="ignore"):
        return np.bincount(groups[kept], values[kept], count) / np.bincount(groups[kept], minlength=count)


def _offsets(series: int) -> np.ndarray:
    """Horizontal offsets that keep several players' points at one command apart."""
    if series == 1:
        return np.zeros(1)
    return np.linspace(-0.25, 0.25, series)
