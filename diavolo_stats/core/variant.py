"""What game is played: the commands, and a frozen, validated `Variant`.

A `Variant` is checked once, at construction; everything downstream trusts
it. Bad values raise `InputError` naming the field and the allowed range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from diavolo_stats.core.table_model import TableModel
from diavolo_stats.errors import InputError

GREY = "grey"
"""The answer when two or more colors share the winning figure (a tie)."""

DEFAULT_COLORS = ("black", "red", "white")

MAX_COLORS = 8
MAX_DICE_PER_COLOR = 12
MAX_SIDES = 100
_COLOR_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class Command(str, Enum):
    """The faces of the command die, named as on the command line."""

    HIGHEST_TOTAL = "highest-total"
    LOWEST_TOTAL = "lowest-total"
    LARGEST_SPREAD = "largest-spread"
    MOST_ODD = "most-odd"
    HIGHEST_DIE = "highest-die"
    CLOSEST = "closest"

    def __str__(self) -> str:
        return self.value

    @property
    def depends_on_values(self) -> bool:
        """True for the five commands decided by the dice values alone; `closest` needs positions."""
        return self is not Command.CLOSEST

    @classmethod
    def parse(cls, name: str, field: str = "commands") -> Command:
        try:
            return cls(name.strip())
        except ValueError:
            allowed = ", ".join(c.value for c in cls)
            raise InputError(f"unknown command {name!r}; allowed: {allowed}", field=field) from None


ALL_COMMANDS = tuple(Command)
VALUE_COMMANDS = tuple(c for c in Command if c.depends_on_values)


@dataclass(frozen=True)
class Variant:
    """One version of the game.

    colors: names of the colored dice groups (`grey` is reserved for ties).
    dice_per_color: dice in each color (3 in the box, 2 in the kids variant).
    sides: faces per die, valued 1..sides.
    commands: the faces of the command die, each equally likely.
    table: where dice land, for `closest` (see `diavolo_stats.core.table_model`).
    """

    colors: tuple[str, ...] = DEFAULT_COLORS
    dice_per_color: int = 3
    sides: int = 6
    commands: tuple[Command, ...] = ALL_COMMANDS
    table: TableModel = field(default_factory=TableModel)

    def __post_init__(self) -> None:
        colors = tuple(self.colors)
        if not 2 <= len(colors) <= MAX_COLORS:
            raise InputError(f"need 2 to {MAX_COLORS} colors, got {len(colors)}", field="colors")
        for color in colors:
            if color == GREY:
                raise InputError("'grey' is reserved for ties; choose another color name", field="colors")
            if not _COLOR_NAME.match(color):
                raise InputError(f"{color!r} is not a color name (lowercase letters, digits, _)", field="colors")
        duplicates = sorted({c for c in colors if colors.count(c) > 1})
        if duplicates:
            raise InputError(f"{', '.join(duplicates)} repeated; each color once", field="colors")
        _check_int("dice_per_color", self.dice_per_color, 1, MAX_DICE_PER_COLOR)
        _check_int("sides", self.sides, 2, MAX_SIDES)
        commands = tuple(c if isinstance(c, Command) else Command.parse(str(c)) for c in self.commands)
        if not commands:
            raise InputError("need at least one command", field="commands")
        if len(set(commands)) != len(commands):
            raise InputError("a command is repeated; each command once", field="commands")
        if not isinstance(self.table, TableModel):
            raise InputError("must be a TableModel", field="table")
        if Command.CLOSEST in commands:
            self.table.check_fits(1 + len(colors) * self.dice_per_color)
        object.__setattr__(self, "colors", colors)
        object.__setattr__(self, "commands", commands)

    @classmethod
    def preset(cls, name: str) -> Variant:
        """The box's game (`standard`) or the rulebook's young-children game (`kids`, 2 dice per color)."""
        if name not in PRESETS:
            raise InputError(f"unknown variant {name!r}; allowed: {', '.join(PRESETS)}", field="variant")
        return cls(**PRESETS[name])

    @property
    def dice_count(self) -> int:
        """Colored dice rolled each round."""
        return len(self.colors) * self.dice_per_color

    @property
    def value_commands(self) -> tuple[Command, ...]:
        return tuple(c for c in self.commands if c.depends_on_values)

    @property
    def label(self) -> str:
        """A short name of the dice in play, e.g. `black,red,white;3d6` (the `variant` column of saved results)."""
        return f"{','.join(self.colors)};{self.dice_per_color}d{self.sides}"

    def as_dict(self) -> dict:
        """The variant as plain JSON-ready values, its one-line description first."""
        return {
            "description": self.describe(),
            "label": self.label,
            "colors": list(self.colors),
            "dice_per_color": self.dice_per_color,
            "sides": self.sides,
            "commands": [c.value for c in self.commands],
            "table": {"scatter_mm": self.table.scatter_mm, "die_mm": self.table.die_mm,
                      "tolerance": self.table.tolerance},
        }

    def describe(self) -> str:
        """One line naming the variant, for result headers."""
        return (f"{len(self.colors)} colors ({', '.join(self.colors)}), "
                f"{self.dice_per_color}d{self.sides} per color, commands: "
                f"{', '.join(c.value for c in self.commands)}")


PRESETS: dict[str, dict] = {
    "standard": {},
    "kids": {"dice_per_color": 2},
}


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"must be a whole number from {low} to {high}, got {value!r}", field=name)
