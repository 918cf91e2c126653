"""A variant file: a designer's game in TOML, read into a `Variant`.

Every key is optional (`FILE_KEYS`); the manual's guide "Write your own
rules" walks through them with the files of `examples/variants/`:

Why it works as it does: docs/architecture.md, "Variant files".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomli_w

from diavolo_stats.core.commands import BUILTIN_COMMANDS, Command
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import PRESETS, ColorDice, Variant
from diavolo_stats.errors import InputError, about
from diavolo_stats.files import not_a_file
from diavolo_stats.toml_files import read_toml
from diavolo_stats.validation import check_value, declared

FILE_KEYS = ("name", "colors", "dice_per_color", "sides", "faces", "dice", "commands", "command_die", "table")
"""The keys of a variant file, in the order the guide explains them."""
DICE_KEYS = ("count", "faces")
TABLE_KEYS = ("scatter_mm", "die_mm", "tolerance")
SETTING_RULES, _ = declared(Variant, ("name", "colors", "dice_per_color", "sides", "faces"))
"""The file's plain keys, checked by the rules `Variant` declares for its fields of the same names."""
DICE_RULES, _ = declared(ColorDice, DICE_KEYS)
"""A `[dice.COLOR]` table's keys, checked by the rules `ColorDice` declares."""
MAX_DEFINED_COMMANDS = 24
"""Commands a file defines at most (`[commands.NAME]` tables)."""
MAX_DIE_FACES = 60
"""Faces of the command die at most (repeats counted)."""


def variant_named(name_or_path: str | Path) -> Variant:
    """A preset by its name (`standard`, `kids`), else the variant file at that path (a `.toml` file).
    InputError about the field `variant` if it is neither or the file is not allowed; a folder or a FIFO is
    refused as what it is, whatever its name ends in."""
    name = str(name_or_path)
    if name in PRESETS:
        return Variant.preset(name)
    allowed = f"allowed: {', '.join(PRESETS)}, or a variant file ending in .toml"
    if not name.endswith(".toml"):
        problem = not_a_file(name)
        raise InputError(f"{problem}; {allowed}" if problem else f"unknown variant {name!r}; {allowed}",
                         field="variant")
    with about("variant"):
        return read_variant(name_or_path)


def read_variant(path: str | Path) -> Variant:
    """The variant the file at `path` describes; InputError `path: key: what is wrong` if it is not allowed."""
    path = Path(path)
    document = read_toml(path)
    try:
        return variant_from_document(document)
    except InputError as error:
        raise InputError(f"{path}: {error}") from None


def variant_from_document(document: dict[str, Any]) -> Variant:
    """The variant a parsed variant file describes; InputError naming the key that is not allowed."""
    _known(document, FILE_KEYS, None)
    if "sides" in document and "faces" in document:
        raise InputError("give sides or faces, not both (faces sets the number of sides)", field="faces")
    settings: dict[str, Any] = {key: check_value(key, document[key], rule)
                                for key, rule in SETTING_RULES.items() if key in document}
    colors = settings.get("colors", Variant().colors)
    settings["dice"] = tuple(_color_dice(color, table, colors) for color, table in _section(document, "dice").items())
    if "table" in document:
        table = _section(document, "table")
        _known(table, TABLE_KEYS, "table")
        try:
            settings["table"] = TableModel(**table)
        except InputError as error:
            raise InputError(error.message, field=f"table.{error.field}") from None
    defined = []
    sections = _section(document, "commands")
    if len(sections) > MAX_DEFINED_COMMANDS:
        raise InputError(f"at most {MAX_DEFINED_COMMANDS} commands of your own, got {len(sections):,}",
                         field="commands")
    for name, table in sections.items():
        if name in BUILTIN_COMMANDS:
            raise InputError(f"{name} is a built-in command; give yours another name "
                             f"(built-ins: {', '.join(BUILTIN_COMMANDS)})", field=f"commands.{name}")
        defined.append(Command.define(name, table))
    known = {**BUILTIN_COMMANDS, **{str(c): c for c in defined}}
    die = document.get("command_die")
    if die is None:
        settings["commands"] = tuple(known.values())
    else:
        if not isinstance(die, list) or not 1 <= len(die) <= MAX_DIE_FACES:
            raise InputError(f"must be a list of 1 to {MAX_DIE_FACES} command names, repeats allowed",
                             field="command_die")
        for index, face in enumerate(die):
            if not isinstance(face, str) or face not in known:
                raise InputError(f"{face!r} is not a command; allowed: {', '.join(known)}",
                                 field=f"command_die[{index}]")
        settings["commands"] = tuple(known[name] for name in dict.fromkeys(die))
        settings["command_die"] = tuple(die)
    return Variant(**settings)


def variant_document(variant: Variant) -> dict[str, Any]:
    """`variant` as the document of a variant file (FILE_KEYS), every key explicit: its dice, the commands of its
    own as `[commands.NAME]` tables, its command die face by face, and its table model when not the default."""
    document: dict[str, Any] = {} if variant.name is None else {"name": variant.name}
    document["colors"] = list(variant.colors)
    document["dice_per_color"] = variant.dice_per_color
    if variant.faces is None:
        document["sides"] = variant.sides
    else:
        document["faces"] = list(variant.faces)
    dice = {own.color: {key: list(value) if isinstance(value, tuple) else value
                        for key, value in (("count", own.count), ("faces", own.faces)) if value is not None}
            for own in variant.dice}
    if any(dice.values()):
        document["dice"] = {color: table for color, table in dice.items() if table}
    defined = {str(command): command.section() for command in variant.commands if not command.builtin}
    if defined:
        document["commands"] = defined
    document["command_die"] = [str(command) for command in variant.die]
    if variant.table != TableModel():
        document["table"] = {key: getattr(variant.table, key) for key in TABLE_KEYS}
    return document


def variant_toml(variant: Variant) -> str:
    """The text of a variant file that `read_variant` reads back as `variant` (written by tomli-w)."""
    described = f"{variant.name}: " if variant.name else ""
    return (f"# {described}a game of Diavolo: its dice, its commands and its command die\n"
            + tomli_w.dumps(variant_document(variant)))


def _color_dice(color: str, table: Any, colors: tuple[str, ...]) -> ColorDice:
    key = f"dice.{color}"
    if color not in colors:
        raise InputError(f"{color} is not a color of the variant ({', '.join(colors)})", field=key)
    if not isinstance(table, dict):
        raise InputError("must be a table with count and/or faces", field=key)
    _known(table, DICE_KEYS, key)
    return ColorDice(color=color, **{name: check_value(f"{key}.{name}", table[name], rule)
                                    for name, rule in DICE_RULES.items() if name in table})


def _section(document: dict[str, Any], key: str) -> dict[str, Any]:
    value = document.get(key, {})
    if not isinstance(value, dict):
        raise InputError(f"must be a table ([{key}.NAME] sections)", field=key)
    return value


def _known(table: dict[str, Any], allowed: tuple[str, ...], where: str | None) -> None:
    unknown = [key for key in table if key not in allowed]
    if unknown:
        field = unknown[0] if where is None else f"{where}.{unknown[0]}"
        raise InputError(f"unknown key; allowed: {', '.join(allowed)}", field=field)
