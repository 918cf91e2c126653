"""Which rules a drill log row was played under: its `variant` cell.

A row of a preset game names it (`standard`, `kids`); a row of any other game carries its rules whole, as a
JSON object of a variant file's keys (`core.variant_file.variant_document`), so that a row alone says how it
was judged and a report can name a designer's command by its label. `custom` names a game whose rules the row
does not carry: its dice are checked for their colors alone. Each distinct rules cell is parsed once.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from diavolo_stats.core.commands import BUILTIN_COMMANDS, COMMAND_NAME, NAME_RULE
from diavolo_stats.core.rules import dice_problem
from diavolo_stats.core.variant import ALL_COMMANDS, MAX_FACE, PRESETS, Variant
from diavolo_stats.drill.log.cells import Cell, json_object, per_distinct
from diavolo_stats.errors import InputError

COMMAND_NAME_LENGTH = NAME_RULE.max_length
UNKNOWN_RULES = "custom"
"""The `variant` of a row written before the rules were logged, of a game that is not a preset."""


@functools.lru_cache(maxsize=256)
def rules_cell(variant: Variant) -> str:
    """The `variant` cell of a trial of `variant`: the preset it is in every way (colors, dice, sides, commands,
    table), else its rules as one line of JSON (a variant file's keys). Kept per variant: every answer at a
    live table is a row of it, and comparing with the presets is most of a row's cost."""
    from diavolo_stats.core.variant_file import variant_document

    # The command die's faces are equally likely: their order on the command line is no other game; a variant
    # file's name is no other game either.
    plain_die = variant.die == variant.commands and all(c.builtin for c in variant.commands)
    in_die_order = dataclasses.replace(variant, commands=tuple(c for c in ALL_COMMANDS if c in variant.commands),
                                       command_die=(), name=None) if plain_die else variant
    preset = next((name for name in PRESETS if in_die_order == Variant.preset(name)), None)
    return preset or json.dumps(variant_document(variant), ensure_ascii=False)


@functools.lru_cache(maxsize=256)
def played_variant(cell: str) -> Variant | None:
    """The game a `variant` cell names: a preset, or the rules it carries; None for `custom` (rules not logged).
    ValueError saying why for any other cell."""
    from diavolo_stats.core.variant_file import variant_from_document

    if cell in PRESETS:
        return Variant.preset(cell)
    if cell == UNKNOWN_RULES:
        return None
    try:
        document = json.loads(cell)
    except ValueError:
        raise ValueError(f"must be {', '.join(PRESETS)}, {UNKNOWN_RULES} or a game's rules as a JSON object") from None
    if not isinstance(document, dict):
        raise ValueError("a game's rules must be a JSON object of a variant file's keys")
    try:
        return variant_from_document(document)
    except InputError as error:
        raise ValueError(f"its rules are not a game's: {error}") from None


@functools.lru_cache(maxsize=256)
def value_range(cell: str) -> tuple[int, int] | None:
    """The lowest and highest value a die of the game a `variant` cell names shows: its faces' (1 and 6 for the
    presets); 0 and MAX_FACE, any die's, for `custom` (rules not logged); None for a cell that names no game."""
    try:
        variant = played_variant(cell)
    except ValueError:
        return None
    if variant is None:
        return 0, MAX_FACE
    faces = [face for faces in variant.color_faces for face in faces]
    return min(faces), max(faces)


def values_problem(cell: str, dice: Mapping) -> str | None:
    """Why the values of a dice cell (`dice`, parsed) are not faces of the game its `variant` cell names
    (`value_range`; a game of its own is checked face by face by `row_problem`), or None."""
    allowed = value_range(cell)
    if allowed is None:
        return None
    low, high = allowed
    dice_of = ("a die" if cell == UNKNOWN_RULES else f"the {cell} dice" if cell in PRESETS
               else "the dice of the row's game")
    for color, values in dice.items():
        for value in values:
            if not low <= value <= high:
                return f"{color} shows {value}, and {dice_of} show {low} to {high}"
    return None


def command_labels(cells: Iterable[str]) -> dict[str, str]:
    """Each command's label, the built-ins' and those of the rules in `cells` (a log's `variant` cells; a cell
    that carries no rules adds none): the name a report and the progress page show for a command."""
    labels = {name: command.label for name, command in BUILTIN_COMMANDS.items()}
    for cell in dict.fromkeys(cells):
        try:
            variant = played_variant(cell)
        except ValueError:
            continue
        if variant is not None:
            labels.update({str(c): c.label for c in variant.commands if not c.builtin})
    return labels


def command_order(names: Iterable[str]) -> list[str]:
    """Command names in the order a table lists them: the built-ins in die order, then the others as first seen."""
    others = [name for name in dict.fromkeys(names) if isinstance(name, str) and name not in BUILTIN_COMMANDS]
    return [*BUILTIN_COMMANDS, *others]


def row_problem(variant: Variant | None, command: str, dice: Mapping | None,
                positions: Mapping | None) -> tuple[str, str] | None:
    """(column, why) when a row's command, dice or positions (None: not read) are not a roll of the game it names
    (`played_variant`), else None. A row of a preset or of unknown rules (None) needs a built-in command; its dice
    are checked for their colors alone, by the answers' rules."""
    if variant is None:
        return None if command in BUILTIN_COMMANDS else (
            "command", f"must be one of {', '.join(BUILTIN_COMMANDS)} (the row's variant carries no rules of its "
                       f"own), got {command!r}")
    names = [str(c) for c in variant.commands]
    if command not in names:
        return "command", f"must be one of the row's rules' commands ({', '.join(names)}), got {command!r}"
    problem = dice_problem(variant, dice) if dice is not None else None
    if problem:
        return "dice", f"must be a roll of the row's game: {problem}"
    if positions is not None:
        for key, count in zip(["command", *variant.colors], [0, *variant.counts]):
            points = positions.get(key)
            if not isinstance(points, list) or (count and len(points) != count):
                return "positions", (f"must be the row's game's: {key} needs "
                                     + ("one [x, y]" if not count else f"{count} [x, y], one a die"))
    return None


def rules_problems(cells: pd.DataFrame) -> dict[int, tuple[str, str]]:
    """The rows (by position) whose command, dice and positions (those read) are not a roll of the game their
    `variant` cell names, each with (column, why) (`row_problem`); a preset's rows (or `custom`'s) need a built-in
    command."""
    if "variant" not in cells or "command" not in cells:
        return {}
    problems = {}
    games, distinct = pd.factorize(cells["variant"])
    for code, cell in enumerate(distinct):
        rows = np.flatnonzero(games == code)
        try:
            variant = None if cell in PRESETS else played_variant(cell)
        except ValueError:
            continue  # the variant cell's own rule refuses it
        if variant is None:  # a preset, or rules not logged: a built-in command
            for row in rows[~cells["command"].iloc[rows].isin(list(BUILTIN_COMMANDS)).to_numpy(dtype=bool)]:
                problems[int(row)] = row_problem(None, cells["command"].iloc[row], None, None)
            continue
        for row in rows:
            dice = json_object(cells["dice"].iloc[row]) if "dice" in cells else None
            positions = json_object(cells["positions"].iloc[row]) if "positions" in cells else None
            problem = row_problem(variant, cells["command"].iloc[row], dice, positions)
            if problem:
                problems[int(row)] = problem
    return problems


@dataclasses.dataclass(frozen=True)
class VariantCell(Cell):
    """The `variant` cell: a preset's name, `custom`, or a game's rules as a JSON object (`rules_cell`)."""

    allowed = f"{', '.join(PRESETS)}, {UNKNOWN_RULES} or a game's rules as a JSON object of a variant file's keys"

    def write(self, column: str, value: object) -> str:
        if not isinstance(value, str):
            raise InputError(f"must be {self.allowed}, got {value!r}", field=column)
        try:
            played_variant(value)
        except ValueError as error:
            raise InputError(f"{error}, got {value[:60]!r}", field=column) from None
        return value

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        return text, per_distinct(text, lambda cells: [not _plays(cell) for cell in cells])

    def problem(self, column: str, cell: str) -> str:
        try:
            played_variant(cell)
        except ValueError as error:
            return f"{column} {error}, got {cell[:60]!r}"
        return super().problem(column, cell)


def _plays(cell: str) -> bool:
    """Whether a `variant` cell names a game (`played_variant`)."""
    try:
        played_variant(cell)
    except ValueError:
        return False
    return True


@dataclasses.dataclass(frozen=True)
class CommandCell(Cell):
    """The `command` cell: a command's name (`core.commands.COMMAND_NAME`), a built-in's or a variant file's;
    whether the row's game has it is `rules_problems`' to say."""

    allowed = "a command's name (lowercase letters and digits, words joined by -)"

    def write(self, column: str, value: object) -> str:
        name = getattr(value, "value", value)
        if not isinstance(name, str) or not re.fullmatch(COMMAND_NAME, name) or len(name) > COMMAND_NAME_LENGTH:
            raise InputError(f"must be {self.allowed}, got {value!r}", field=column)
        return name

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        return text, per_distinct(text, lambda names: ~(names.str.fullmatch(COMMAND_NAME).to_numpy(dtype=bool) & (
            names.str.len() <= COMMAND_NAME_LENGTH).to_numpy(dtype=bool)))


def with_command_labels(drills: pd.DataFrame) -> pd.DataFrame:
    """`drills` (rows from `load_logs` with `variant` and `command`) with each command of a game's own named by
    its label (`most sixes` for `most-sixes`), as a report or the progress page shows it; the built-ins keep their
    names, and a label another command already goes by keeps the name too."""
    commands = drills["command"]
    if not isinstance(commands.dtype, pd.CategoricalDtype):
        return drills
    labels = command_labels(drills["variant"].unique())
    taken = set(commands.cat.categories)
    renamed = {}
    for name in commands.cat.categories:
        label = labels.get(name, name)
        if name not in BUILTIN_COMMANDS and label not in taken:
            renamed[name] = label
            taken.add(label)
    return drills.assign(command=commands.cat.rename_categories(renamed)) if renamed else drills
