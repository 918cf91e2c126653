"""The faces of the command die as data: a figure, a direction and tie-breaks.

A `Command` is a name (what the command line, logs and reports call it), a `label` and a one-line `rule` for
people, and a chain of criteria that decides the answer. The six commands of the box are defined in
`builtin_commands.toml`, read once here; a variant file adds its own with `[commands.NAME]` tables of the same
keys (`COMMAND_KEYS`), and every command is resolved, counted and simulated by the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any

from diavolo_stats.core.figures import DiceFigure
from diavolo_stats.errors import InputError
from diavolo_stats.toml_files import parse_toml
from diavolo_stats.validation import Rule, Text, check_value

DIRECTIONS = ("highest", "lowest")

COMMAND_KEYS = ("label", "rule", "figure", "wins", "then")
"""The keys of a `[commands.NAME]` table, in the built-ins file and in a variant file."""

MAX_TIE_BREAKS = 6
"""Tie-breaks a command has at most (`then`)."""

COMMAND_NAME = r"[a-z][a-z0-9]*(-[a-z0-9]+)*"
NAME_RULE = Text(max_length=40, pattern=COMMAND_NAME, forbidden=("grey",), reserved_for="ties",
                 described="a command name (lowercase letters and digits, words joined by -)")
LABEL_RULE = Text(max_length=40)
RULE_TEXT = Text(max_length=120, described="one line of text")


@dataclass(frozen=True)
class Criterion:
    """One link of a command's chain: a figure and whether the `highest` (else the lowest) wins."""

    figure: DiceFigure
    highest: bool = True

    @property
    def wins(self) -> str:
        return "highest" if self.highest else "lowest"

    def __str__(self) -> str:
        return f"{self.figure} ({self.wins})"


class _CommandType(type):
    """Iterating over `Command` gives the six built-ins, in the order of the box's die."""

    def __iter__(cls):
        return iter(BUILTIN_COMMANDS.values())

    def __len__(cls) -> int:
        return len(BUILTIN_COMMANDS)


class Command(str, metaclass=_CommandType):
    """A face of the command die. `Command(name)` is the built-in of that name (ValueError if none);
    `Command(name, label, rule, chain)` defines one (see `define` for one checked from a file's table).

    chain: the criteria in order, the first the command's figure, then its tie-breaks.
    """

    label: str
    rule: str
    chain: tuple[Criterion, ...]

    def __new__(cls, name: str, label: str | None = None, rule: str | None = None,
                chain: tuple[Criterion, ...] | None = None) -> Command:
        if chain is None:
            if name in BUILTIN_COMMANDS:
                return BUILTIN_COMMANDS[name]
            raise ValueError(f"{name!r} is not a built-in command")
        command = super().__new__(cls, name)
        object.__setattr__(command, "label", label or name.replace("-", " "))
        object.__setattr__(command, "rule", rule or command.label)
        object.__setattr__(command, "chain", tuple(chain))
        if not command.chain:
            raise ValueError("a command needs a figure")
        if any(c.figure.by_position for c in command.chain) and (len(command.chain) > 1 or command.chain[0].highest):
            raise ValueError("distance is compared alone, lowest winning (the closest table model)")
        return command

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Command is frozen")

    def __reduce__(self):
        return (_rebuild, (str(self), self.label, self.rule, self.chain))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Command):
            return str.__eq__(self, other) and (self.label, self.rule, self.chain) == (
                other.label, other.rule, other.chain)
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Command({str.__str__(self)!r})"

    @property
    def value(self) -> str:
        """The command's name, as the command line, logs and reports write it."""
        return str.__str__(self)

    @property
    def figure(self) -> DiceFigure:
        return self.chain[0].figure

    @property
    def wins(self) -> str:
        return self.chain[0].wins

    @property
    def then(self) -> tuple[Criterion, ...]:
        return self.chain[1:]

    @property
    def depends_on_values(self) -> bool:
        """True for a command decided by the dice values; False for `distance` (closest), decided by positions."""
        return not self.figure.by_position

    @property
    def builtin(self) -> bool:
        return BUILTIN_COMMANDS.get(str(self)) == self

    def section(self) -> dict[str, Any]:
        """The command as the `[commands.NAME]` section of a variant file writes it."""
        section: dict[str, Any] = {"label": self.label, "rule": self.rule, "figure": str(self.figure),
                                   "wins": self.wins}
        if self.then:
            section["then"] = [str(c.figure) if c.highest == self.chain[0].highest
                               else {"figure": str(c.figure), "wins": c.wins} for c in self.then]
        return section

    @classmethod
    def parse(cls, name: str, field: str = "commands", among: tuple[Command, ...] = ()) -> Command:
        """The command named `name` (spaces around it ignored), a built-in or one of `among`;
        InputError naming `field` if there is none."""
        return check_value(field, name, CommandName(among))

    @classmethod
    def define(cls, name: str, table: Any) -> Command:
        """A command from a `[commands.NAME]` table (`COMMAND_KEYS`); InputError naming the key
        (`commands.NAME.figure`, ...) that is not allowed."""
        where = f"commands.{name}"
        check_value(where, name, NAME_RULE)
        if not isinstance(table, dict):
            raise InputError("must be a table of " + ", ".join(COMMAND_KEYS), field=where)
        unknown = [key for key in table if key not in COMMAND_KEYS]
        if unknown:
            raise InputError(f"unknown key; allowed: {', '.join(COMMAND_KEYS)}", field=f"{where}.{unknown[0]}")
        if "figure" not in table:
            raise InputError("missing: a command needs its figure", field=f"{where}.figure")
        label = check_value(f"{where}.label", table.get("label", name.replace("-", " ")), LABEL_RULE)
        rule = check_value(f"{where}.rule", table.get("rule", label), RULE_TEXT)
        figure = check_value(f"{where}.figure", table["figure"], FigureRule())
        highest = check_value(f"{where}.wins", table.get("wins", "highest"), DirectionRule()) == "highest"
        then = table.get("then", [])
        if not isinstance(then, list) or len(then) > MAX_TIE_BREAKS:
            raise InputError(f"must be a list of at most {MAX_TIE_BREAKS} tie-breaks: figures, or tables "
                             "{figure = ..., wins = ...}", field=f"{where}.then")
        chain = [Criterion(figure, highest)]
        for index, step in enumerate(then):
            at = f"{where}.then[{index}]"
            if isinstance(step, dict):
                unknown = [key for key in step if key not in ("figure", "wins")]
                if unknown or "figure" not in step:
                    raise InputError("a tie-break table has figure and wins (optional)", field=at)
                chain.append(Criterion(check_value(f"{at}.figure", step["figure"], FigureRule()),
                                       check_value(f"{at}.wins", step.get("wins", "highest" if highest else "lowest"),
                                                   DirectionRule()) == "highest"))
            else:
                chain.append(Criterion(check_value(at, step, FigureRule()), highest))
        try:
            return cls(name, label, rule, tuple(chain))
        except ValueError as error:
            raise InputError(str(error), field=f"{where}.figure") from None


def _rebuild(name: str, label: str, rule: str, chain: tuple[Criterion, ...]) -> Command:
    """A command unpickled (in a worker process): the built-in itself when it is one, so `is` still holds."""
    command = Command(name, label, rule, chain)
    return BUILTIN_COMMANDS[name] if BUILTIN_COMMANDS.get(name) == command else command


class FigureRule(Rule):
    """A figure of the vocabulary (`core.figures.VOCABULARY`), as text; kept as a DiceFigure."""

    def normalize(self, value: object) -> DiceFigure:
        return DiceFigure.parse(value)

    def bad_values(self) -> list:
        return ["median", "nth-highest:0", "count:=", "count:odd3", "", 3, None]


class DirectionRule(Rule):
    """Which end of a figure wins: highest or lowest."""

    def normalize(self, value: object) -> str:
        if value not in DIRECTIONS:
            raise ValueError(f"must be {' or '.join(DIRECTIONS)}")
        return value

    def bad_values(self) -> list:
        return ["largest", "", 1, None]


class CommandName(Rule):
    """A command of the command die: a Command, or the name of a built-in or of one of `among`."""

    def __init__(self, among: tuple[Command, ...] = ()) -> None:
        self.among = {str(c): c for c in among}

    def normalize(self, value: object) -> Command:
        if isinstance(value, Command):
            return value
        name = value.strip() if isinstance(value, str) else value
        if isinstance(name, str) and name in self.among:
            return self.among[name]
        if isinstance(name, str) and name in BUILTIN_COMMANDS:
            return BUILTIN_COMMANDS[name]
        raise ValueError(f"must be one of {', '.join(dict.fromkeys([*BUILTIN_COMMANDS, *self.among]))}")

    def bad_values(self) -> list:
        return ["tallest", "", 3]


def _builtins() -> dict[str, Command]:
    text = resources.files(__package__).joinpath("builtin_commands.toml").read_text(encoding="utf-8")
    sections = parse_toml(text, "builtin_commands.toml")["commands"]
    return {name: Command.define(name, table) for name, table in sections.items()}


BUILTIN_COMMANDS: dict[str, Command] = {}
BUILTIN_COMMANDS.update(_builtins())

ALL_COMMANDS = tuple(BUILTIN_COMMANDS.values())
VALUE_COMMANDS = tuple(c for c in ALL_COMMANDS if c.depends_on_values)

Command.HIGHEST_TOTAL = BUILTIN_COMMANDS["highest-total"]
Command.LOWEST_TOTAL = BUILTIN_COMMANDS["lowest-total"]
Command.LARGEST_SPREAD = BUILTIN_COMMANDS["largest-spread"]
Command.MOST_ODD = BUILTIN_COMMANDS["most-odd"]
Command.HIGHEST_DIE = BUILTIN_COMMANDS["highest-die"]
Command.CLOSEST = BUILTIN_COMMANDS["closest"]
