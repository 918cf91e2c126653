"""What game is played: the dice of each color, the commands on the command die, a frozen, validated `Variant`.

A `Variant` is checked once, at construction; everything downstream trusts
it. Bad values raise `InputError` naming the field and the allowed range.
The same object is read from a variant file (`core.variant_file.read_variant`)
or built in code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from diavolo_stats.core.commands import ALL_COMMANDS, VALUE_COMMANDS, Command, CommandName
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.errors import InputError
from diavolo_stats.names import Name
from diavolo_stats.validation import Configuration, Instance, Maybe, Rule, Several, Text, Whole, check_value, setting

__all__ = ["ALL_COMMANDS", "VALUE_COMMANDS", "Command", "CommandName", "ColorDice", "Variant", "GREY", "PRESETS"]

GREY = "grey"
"""The answer when two or more colors share the winning figure (a tie)."""

DEFAULT_COLORS = ("black", "red", "white")


def check_answer(answer: object, colors: Sequence[str]) -> str:
    """`answer` when it is an answer of a game of `colors` (one of them, or grey for a tie); InputError naming
    `answer` otherwise."""
    if not isinstance(answer, str) or answer not in (*colors, GREY):
        raise InputError(f"must be one of {', '.join((*colors, GREY))}, got {answer!r}", field="answer")
    return answer


MAX_COLORS = 8
MAX_DICE_PER_COLOR = 12
MAX_SIDES = 100
MAX_FACE = 100
"""The largest value a die's face may show (faces run from 0 to MAX_FACE, repeats allowed)."""
COLOR_NAME = r"[a-z][a-z0-9_]*"
COLOR_RULE = Text(max_length=40, pattern=COLOR_NAME, forbidden=(GREY,), reserved_for="ties",
                  described="a color name (lowercase letters, digits, _; grey is for ties)")
COMMANDS_RULE = Several(CommandName(), noun="command")
"""The commands in play: one or more, each a Command or a built-in's name, none twice."""


class Faces(Rule):
    """The faces of a die: 2 to MAX_SIDES whole numbers from 0 to MAX_FACE, repeats allowed; a tuple."""

    def normalize(self, value: object) -> tuple[int, ...]:
        faces = Several(Whole(0, MAX_FACE), least=2, most=MAX_SIDES, unique=False, noun="face").normalize(value)
        return tuple(faces)

    def bad_values(self) -> list:
        return ["1,2,3", (), (1,), (1, -1), (1, MAX_FACE + 1), None]


@dataclass(frozen=True)
class ColorDice(Configuration):
    """One color's own dice, where they differ from the variant's: their `count` and/or their `faces`."""

    color: str = setting("black", COLOR_RULE)
    count: int | None = setting(None, Maybe(Whole(1, MAX_DICE_PER_COLOR)))
    faces: tuple[int, ...] | None = setting(None, Maybe(Faces()))


@dataclass(frozen=True)
class Variant(Configuration):
    """One version of the game.

    colors: names of the colored dice groups (`grey` is reserved for ties).
    dice_per_color: dice in each color (3 in the box, 2 in the kids variant).
    sides: faces per die, valued 1..sides (with `faces`, their number).
    faces: the faces of every colored die, e.g. (0, 1, 1, 2, 2, 3); None: 1..sides.
    dice: per color, its own count and/or faces (`ColorDice`), over the above.
    commands: the commands in play (built-in or defined, `core.commands`).
    command_die: the faces of the command die by command, repeats allowed; faces naming a command not in `commands`
        are not on it. Empty: one face each. table: where dice land, for `closest` (`core.table_model`).
    name: a label for reports (a variant file's `name`), or None.
    """

    colors: tuple[str, ...] = setting(DEFAULT_COLORS, Several(COLOR_RULE, least=2, most=MAX_COLORS, noun="color"))
    dice_per_color: int = setting(3, Whole(1, MAX_DICE_PER_COLOR))
    sides: int = setting(6, Whole(2, MAX_SIDES))
    commands: tuple[Command, ...] = setting(ALL_COMMANDS, COMMANDS_RULE)
    table: TableModel = setting(default_factory=TableModel, rule=Instance(TableModel))
    faces: tuple[int, ...] | None = setting(None, Maybe(Faces()))
    dice: tuple[ColorDice, ...] = setting((), Several(Instance(ColorDice), least=0, noun="color's dice"))
    command_die: tuple[str, ...] = setting((), Several(Text(max_length=40), least=0, unique=False,
                                                       noun="command die face"))
    name: str | None = setting(None, Maybe(Name(longest=60)))

    def check(self) -> None:
        if self.faces is not None:
            object.__setattr__(self, "sides", len(self.faces))  # the faces set the number of sides, as in a file
        names = [str(c) for c in self.commands]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise InputError(f"{', '.join(repeated)} defined twice; each command once", field="commands")
        unknown = [c.color for c in self.dice if c.color not in self.colors]
        if unknown:
            raise InputError(f"{unknown[0]} is not a color of the variant ({', '.join(self.colors)})", field="dice")
        for command in self.commands:
            self._check_dice_of(command)
        if any(not c.depends_on_values for c in self.commands):
            self.table.check_fits(1 + self.dice_count)
        if self.command_die and self.die == self.commands:
            object.__setattr__(self, "command_die", ())  # one face per command, in order: the plain die

    @classmethod
    def preset(cls, name: str) -> Variant:
        """The box's game (`standard`) or the rulebook's young-children game (`kids`, 2 dice per color)."""
        if name not in PRESETS:
            raise InputError(f"unknown variant {name!r}; allowed: {', '.join(PRESETS)}", field="variant")
        return cls(**PRESETS[name])

    def _check_dice_of(self, command: Command) -> None:
        """InputError naming the command's key (`commands.NAME.figure`, `...then[0]`, as a variant file writes it)
        and the color when one of its figures means nothing for a color's dice (a 4th-highest of 3 dice)."""
        keys = ("figure", *(f"then[{index}]" for index in range(len(command.then))))
        for criterion, key in zip(command.chain, keys):
            if criterion.figure.by_position:
                continue
            for color, count, faces in zip(self.colors, self.counts, self.color_faces):
                try:
                    criterion.figure.check_dice(count, faces)
                except InputError as error:
                    raise InputError(f"{error.message} ({color})", field=f"commands.{command}.{key}") from None

    def _own(self, color: str) -> ColorDice | None:
        return next((c for c in self.dice if c.color == color), None)

    @property
    def die_faces(self) -> tuple[int, ...]:
        """The faces of a die without a color's own faces: `faces`, else 1..sides."""
        return self.faces if self.faces is not None else tuple(range(1, self.sides + 1))

    @property
    def counts(self) -> tuple[int, ...]:
        """Dice per color, in `colors` order."""
        own = [self._own(color) for color in self.colors]
        return tuple(c.count if c is not None and c.count is not None else self.dice_per_color for c in own)

    @property
    def color_faces(self) -> tuple[tuple[int, ...], ...]:
        """The faces of each color's dice, in `colors` order."""
        own = [self._own(color) for color in self.colors]
        return tuple(c.faces if c is not None and c.faces is not None else self.die_faces for c in own)

    @property
    def standard_dice(self) -> bool:
        """True when every color rolls `dice_per_color` dice valued 1..sides (the box's kind of dice)."""
        return self.faces is None and all(c.count in (None, self.dice_per_color) and c.faces is None
                                          for c in self.dice)

    @property
    def dice_count(self) -> int:
        """Colored dice rolled each round."""
        return sum(self.counts)

    @property
    def value_commands(self) -> tuple[Command, ...]:
        return tuple(c for c in self.commands if c.depends_on_values)

    @property
    def die(self) -> tuple[Command, ...]:
        """The faces of the command die, each equally likely: `command_die` on `commands`, repeats counted."""
        by_name = {str(c): c for c in self.commands}
        faces = tuple(by_name[name] for name in self.command_die if name in by_name)
        return faces or self.commands

    def command(self, name: str, field: str = "commands") -> Command:
        """The command of this variant (or a built-in) named `name`; InputError naming `field` if there is none."""
        return Command.parse(name, field, among=self.commands)

    def commands_named(self, names: Sequence[str], field: str = "commands") -> tuple[Command, ...]:
        """The commands named `names`, each a built-in or one of this variant's own (a variant file's), checked
        as the `commands` field is; InputError naming `field` if they are not allowed."""
        return check_value(field, names, replace(COMMANDS_RULE, item=CommandName(self.commands)))

    @property
    def label(self) -> str:
        """A short name of the dice in play, e.g. `black,red,white;3d6` (the `variant` column of saved results);
        a color with dice of its own shows them, e.g. `black,red,white:4d[0,1,1,2,2,3];3d6`."""
        common = dice_text(self.dice_per_color, self.die_faces)
        colors = [color if dice_text(count, faces) == common else f"{color}:{dice_text(count, faces)}"
                  for color, count, faces in zip(self.colors, self.counts, self.color_faces)]
        return f"{','.join(colors)};{common}"

    def as_dict(self) -> dict:
        """The variant as plain JSON-ready values, its one-line description first."""
        document = {
            "description": self.describe(),
            "label": self.label,
            "colors": list(self.colors),
            "dice_per_color": self.dice_per_color,
            "sides": self.sides,
            "commands": [c.value for c in self.commands],
            "table": {"scatter_mm": self.table.scatter_mm, "die_mm": self.table.die_mm,
                      "tolerance": self.table.tolerance},
        }
        if self.name is not None:
            document["name"] = self.name
        if not self.standard_dice:
            document["dice"] = {color: {"count": count, "faces": list(faces)}
                                for color, count, faces in zip(self.colors, self.counts, self.color_faces)}
        custom = [c for c in self.commands if not c.builtin]
        if custom:
            document["defined_commands"] = {str(c): {"then": [], **c.section()} for c in custom}
        if self.die != self.commands:
            document["command_die"] = [str(c) for c in self.die]
        return document

    def describe(self) -> str:
        """One line naming the variant, for result headers."""
        named = f"{self.name}: " if self.name else ""
        if self.standard_dice:
            dice = f"{self.dice_per_color}d{self.sides} per color"
        else:
            dice = ", ".join(f"{color} {dice_text(count, faces)}"
                             for color, count, faces in zip(self.colors, self.counts, self.color_faces))
        faces = self.die
        shown = [f"{c} ({faces.count(c)} faces)" if faces.count(c) > 1 else str(c) for c in self.commands
                 if c in faces]
        return f"{named}{len(self.colors)} colors ({', '.join(self.colors)}), {dice}, commands: {', '.join(shown)}"


def dice_text(count: int, faces: tuple[int, ...]) -> str:
    """`3d6` for dice valued 1..sides, else the faces: `4d[0,1,1,2,2,3]`."""
    if faces == tuple(range(1, len(faces) + 1)):
        return f"{count}d{len(faces)}"
    return f"{count}d[{','.join(map(str, faces))}]"


PRESETS: dict[str, dict] = {
    "standard": {},
    "kids": {"dice_per_color": 2},
}
