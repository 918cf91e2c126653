"""What game is played: the commands, and a frozen, validated `Variant`.

A `Variant` is checked once, at construction; everything downstream trusts
it. Bad values raise `InputError` naming the field and the allowed range.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from diavolo_stats.core.table_model import TableModel
from diavolo_stats.errors import InputError
from diavolo_stats.validation import Configuration, Instance, Rule, Several, Text, Whole, check_value, setting

GREY = "grey"
"""The answer when two or more colors share the winning figure (a tie)."""

DEFAULT_COLORS = ("black", "red", "white")

MAX_COLORS = 8
MAX_DICE_PER_COLOR = 12
MAX_SIDES = 100
COLOR_NAME = r"[a-z][a-z0-9_]*"


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
        """The command named `name` (spaces around it ignored); InputError naming `field` if there is none."""
        return check_value(field, name, CommandName())


ALL_COMMANDS = tuple(Command)
VALUE_COMMANDS = tuple(c for c in Command if c.depends_on_values)


class CommandName(Rule):
    """A command of the command die, as a Command or its name."""

    def normalize(self, value: object) -> Command:
        if isinstance(value, Command):
            return value
        try:
            return Command(value.strip() if isinstance(value, str) else value)
        except ValueError:
            raise ValueError(f"must be one of {', '.join(c.value for c in Command)}") from None

    def bad_values(self) -> list:
        return ["tallest", "", 3]


@dataclass(frozen=True)
class Variant(Configuration):
    """One version of the game.

    colors: names of the colored dice groups (`grey` is reserved for ties).
    dice_per_color: dice in each color (3 in the box, 2 in the kids variant).
    sides: faces per die, valued 1..sides.
    commands: the faces of the command die, each equally likely.
    table: where dice land, for `closest` (see `diavolo_stats.core.table_model`).
    """

    colors: tuple[str, ...] = setting(DEFAULT_COLORS, Several(
        Text(max_length=40, pattern=COLOR_NAME, forbidden=(GREY,), reserved_for="ties",
             described="a color name (lowercase letters, digits, _; grey is for ties)"),
        least=2, most=MAX_COLORS, noun="color"))
    dice_per_color: int = setting(3, Whole(1, MAX_DICE_PER_COLOR))
    sides: int = setting(6, Whole(2, MAX_SIDES))
    commands: tuple[Command, ...] = setting(ALL_COMMANDS, Several(CommandName(), noun="command"))
    table: TableModel = setting(default_factory=TableModel, rule=Instance(TableModel))

    def check(self) -> None:
        if Command.CLOSEST in self.commands:
            self.table.check_fits(1 + len(self.colors) * self.dice_per_color)

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

