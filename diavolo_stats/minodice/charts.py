"""The Minodice chart for notebooks: each die's chance to win a trick, in the die's own color.

Imports matplotlib, so the package and the command line do not import this module.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import is_color_like
from matplotlib.figure import Figure

from diavolo_stats.minodice.odds import DieOdds
from diavolo_stats.plots import plot_curves

CHARACTER_COLORS = {"minotaur": "saddlebrown", "griffin": "darkorange", "mermaid": "teal"}
"""Colors of the special dice in Minodice charts; number dice take the color they are named after."""
# Named colors too pale to read as a line on white, and the darker shade drawn instead.
_READABLE = {"yellow": "gold", "white": "lightgrey"}


def die_color(name: str, kind: str) -> str:
    """The color a Minodice die is drawn in: its character's, or for a number die the color it is named
    after (a darker shade for the pale ones), else grey."""
    if kind in CHARACTER_COLORS:
        return CHARACTER_COLORS[kind]
    return _READABLE.get(name, name) if is_color_like(name) else "grey"


def win_chance_chart(odds: DieOdds, title: str = "Win chance by die") -> Figure:
    """Each die's chance to win a trick against k random dice (from `minodice.die_odds`), one line per die.

    Number dice are drawn in their own color, solid with round markers; special dice dashed with square
    markers, in CHARACTER_COLORS.
    """
    figure = Figure(figsize=(7.0, 4.2), layout="constrained")
    axes = figure.add_subplot()
    curves = []
    for die in odds.in_bag:
        points = [point for point in odds.odds if point.die == die]
        special = odds.kinds[die] in CHARACTER_COLORS
        against = np.array([point.against for point in points])
        chance = np.array([point.estimate.value for point in points])
        curves.append((die, against, chance,
                       {"color": die_color(die, odds.kinds[die]), "linestyle": "--" if special else "-",
                        "marker": "s" if special else "o", "markeredgecolor": "black", "markeredgewidth": 0.6,
                        "linewidth": 2}))
    plot_curves(axes, curves)
    axes.set(xlabel="other dice in the trick (k)", ylabel="chance to win the trick", ylim=(0, 1), title=title)
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small", ncols=2)
    return figure
