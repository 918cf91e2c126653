"""How the drill paints the dice and the table: a color per die color, for every kind of terminal and the browser.

`DIE_LOOKS` names the die colors a game may have and be drilled, in the
terminal and in the browser alike (`check_colors`); the browser's pages
draw them from the same colors (`web.pages.looks_stylesheet`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from diavolo_stats.errors import InputError

EDGE_SHADE = 0.6
"""A die's outline in the browser is its color times this: darker."""


@dataclass(frozen=True)
class Look:
    """How a die (or the table) is painted: background and digit colors, as RGB for terminals with 256
    or more colors (blessed picks the nearest it has) and as basic colors for 8- and 16-color terminals,
    where the nearest color would paint a black die the color of the table."""

    background: tuple[int, int, int]
    digit: tuple[int, int, int]
    basic_background: str
    basic_digit: str

    @property
    def edge(self) -> tuple[int, int, int]:
        """The die's outline in the browser: its color, darker."""
        return tuple(round(channel * EDGE_SHADE) for channel in self.background)


DIE_LOOKS: dict[str, Look] = {
    "black": Look((25, 25, 25), (255, 255, 255), "black", "white"),
    "red": Look((205, 30, 40), (255, 255, 255), "red", "white"),
    "white": Look((245, 245, 245), (0, 0, 0), "white", "black"),
    "blue": Look((40, 90, 220), (255, 255, 255), "blue", "white"),
    "green": Look((70, 190, 80), (0, 0, 0), "green", "black"),
    "yellow": Look((240, 210, 40), (0, 0, 0), "yellow", "black"),
    "orange": Look((245, 130, 30), (0, 0, 0), "yellow", "black"),
    "purple": Look((130, 60, 180), (255, 255, 255), "magenta", "white"),
    "pink": Look((240, 130, 190), (0, 0, 0), "magenta", "black"),
    "brown": Look((125, 75, 40), (255, 255, 255), "yellow", "white"),
    "cyan": Look((60, 200, 220), (0, 0, 0), "cyan", "black"),
}
COMMAND_DIE_LOOK = Look((150, 150, 150), (0, 0, 0), "cyan", "black")
FELT_LOOK = Look((24, 92, 56), (255, 255, 255), "green", "white")


def check_colors(colors: Iterable[str]) -> None:
    """InputError (field `colors`) naming the colors the drill has no look for, and those it has."""
    unknown = [color for color in colors if color not in DIE_LOOKS]
    if unknown:
        raise InputError(f"the drill has no screen color for {', '.join(unknown)}; it knows {', '.join(DIE_LOOKS)}",
                         field="colors")


def css_color(rgb: tuple[int, int, int]) -> str:
    """`#rrggbb`."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)
