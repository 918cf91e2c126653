"""A player file: one modelled player written out in TOML, read into a `PlayerModel` and checked as the
games read it (`ReadingModel.from_player`)."""

from __future__ import annotations

from pathlib import Path

from diavolo_stats.core.variant import Command
from diavolo_stats.errors import InputError
from diavolo_stats.game.players import ROLL_KINDS, UNIFORM_WRONG_GREY, PlayerModel, RollEffectMap, Skill, player_levels
from diavolo_stats.game.reading import ReadingModel
from diavolo_stats.names import PLAYER_NAME
from diavolo_stats.toml_files import read_toml
from diavolo_stats.validation import check_value

SKILL_FIELDS = ("accuracy", "mu_ms", "sigma_ms", "tau_ms")
"""The keys of one cell, `[tie.<command>]` or `[non-tie.<command>]`."""
EFFECTS_TABLE = "roll-effects"
"""The table of stated roll effects (`players.STATED_EFFECTS`) by name."""


def read_player(path: str | Path) -> PlayerModel:
    """A player written out in TOML (read by `toml_files.read_toml`); the file's stem is its default name.

    Keys: `name` (default: the file name), `base` (optional preset filling any cell the file leaves out),
    `wrong_grey_share`, tables `[non-tie.<command>]` and `[tie.<command>]`, each with `accuracy`, `mu_ms`, `sigma_ms`
    and `tau_ms` (without `base`, all twelve cells), and `[roll-effects]`: some STATED_EFFECTS by name, `"per extra die"
    = 120`. Every error names the file and the key.
    """
    path = Path(path)
    document = read_toml(path)
    try:
        return player_from_document(document, path.stem)
    except InputError as error:
        raise InputError(f"{path}: {error}") from None


def player_from_document(document: dict, stem: str) -> PlayerModel:
    """The player a parsed player file describes (`read_player`'s keys), named `stem` unless it says;
    InputError naming the key."""
    allowed = {"name", "base", "wrong_grey_share", *ROLL_KINDS.values(), EFFECTS_TABLE}
    unknown = sorted(set(document) - allowed)
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}; allowed: {', '.join(sorted(allowed))}")
    base = None
    if "base" in document:
        if not isinstance(document["base"], str) or document["base"] not in player_levels():
            raise InputError(f"base: unknown player preset {document['base']!r}; "
                             f"allowed: {', '.join(player_levels())}")
        base = PlayerModel.preset(document["base"])
    skills = dict(base.skills) if base else {}
    for is_tie, kind in ROLL_KINDS.items():
        section = document.get(kind, {})
        if not isinstance(section, dict):
            raise InputError(f"[{kind}] must be a table of commands")
        for command_name, cell in section.items():
            try:
                command = Command.parse(command_name)
            except InputError as error:
                raise InputError(f"[{kind}]: {error.message}") from None
            skills[(command, is_tie)] = _skill(cell, f"[{kind}.{command_name}]")
    share = document.get("wrong_grey_share", base.wrong_grey_share if base else UNIFORM_WRONG_GREY)
    name = document.get("name", stem)
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"name must be text such as name = \"Ana\", got {name!r}")
    name = check_value("name", name, PLAYER_NAME)
    effects = document.get(EFFECTS_TABLE, {})
    if not isinstance(effects, dict):
        raise InputError(f"[{EFFECTS_TABLE}] must be a table such as \"per extra die\" = 120")
    try:
        effects = RollEffectMap().normalize(effects)
    except ValueError as error:
        raise InputError(f"[{EFFECTS_TABLE}] {error}") from None
    player = PlayerModel(name=name, skills=skills, wrong_grey_share=share, roll_effects=effects)
    try:  # an effect the player's own times cannot take (a die saving more time than they take)
        ReadingModel.from_player(player)
    except InputError as error:
        raise InputError(f"[{EFFECTS_TABLE}] {error.message}") from None
    return player


def _skill(cell: object, where: str) -> Skill:
    if not isinstance(cell, dict):
        raise InputError(f"{where}: must be a table with {', '.join(SKILL_FIELDS)}")
    if set(cell) != set(SKILL_FIELDS):
        raise InputError(f"{where}: need exactly {', '.join(SKILL_FIELDS)}, got {', '.join(cell) or 'nothing'}")
    try:
        return Skill(**cell)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None
