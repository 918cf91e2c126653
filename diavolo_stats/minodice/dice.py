"""The dice of Minodice: faces, die types, the bag, and the dice file that describes them.

The published face table is not known (docs/rules.md), so the faces live in a TOML file: the shipped
`default_dice.toml` is a reconstruction and says so, and `load_dice(path)` reads a replacement. Every die is
checked once, at construction, with errors naming the die and the face. A face is a small integer code: 0 a
flag, 1 to 7 a number, the three characters above every number (`Face`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from importlib import resources
from pathlib import Path

import numpy as np

from diavolo_stats.errors import InputError, about
from diavolo_stats.toml_files import parse_toml, read_toml
from diavolo_stats.validation import (
    Configuration,
    Flag,
    Instance,
    Rule,
    Several,
    Text,
    Whole,
    check_value,
    empty_item,
    setting,
    shown,
)

FACES_PER_DIE = 6
MAX_NUMBER = 7


class Face(IntEnum):
    """The faces that are not numbers. Numbers 1 to 7 are their own codes."""

    FLAG = 0
    MINOTAUR = 8
    GRIFFIN = 9
    MERMAID = 10

    def __str__(self) -> str:
        return self.name.lower()


CHARACTERS = (Face.MINOTAUR, Face.GRIFFIN, Face.MERMAID)
NUMBER = "number"
KINDS = ("minotaur", "griffin", "mermaid", NUMBER)
"""A die is a special die of one character, or a number die (whose name is its color)."""

_SYMBOLS = {str(face): face for face in Face}


def face_code(face: int | str) -> int:
    """The code of a face: a `Face`, or the number 1 to 7.

    Accepts a `Face`, a symbol as written in the dice file ("flag",
    "minotaur", "griffin", "mermaid") or a number 0 to 7 (0 is a flag).
    """
    if isinstance(face, Face):
        return face
    if isinstance(face, str) and face.strip().lower() in _SYMBOLS:
        return _SYMBOLS[face.strip().lower()]
    if isinstance(face, int) and not isinstance(face, bool):
        if 0 <= face <= MAX_NUMBER:
            return face if face else Face.FLAG
        raise InputError(f"value {face} is outside 0 to {MAX_NUMBER}", field="face")
    raise InputError(f"unknown symbol {face!r}; a face is flag, minotaur, griffin, mermaid "
                     f"or a number 0 to {MAX_NUMBER}", field="face")


def face_label(code: int) -> str:
    """How a face code reads: "flag", "minotaur", "griffin", "mermaid" or the number."""
    return str(Face(code)) if code in _SYMBOLS.values() else str(int(code))


class DieFaces(Rule):
    """The six faces of a die, each anything `face_code` reads; kept as codes."""

    def normalize(self, value: object) -> tuple[int, ...]:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise ValueError(f"must be a list of {FACES_PER_DIE} faces")
        if len(value) != FACES_PER_DIE:
            raise ValueError(f"a die has {FACES_PER_DIE} faces, not {len(value)}")
        codes = []
        for position, face in enumerate(value, start=1):
            try:
                codes.append(face_code(face))
            except InputError as error:
                raise ValueError(f"face {position}: {error.message}") from None
        return tuple(codes)

    def bad_values(self) -> list:
        return ["123456", 5, None, (1, 2, 3), (9,) * FACES_PER_DIE, ("skull",) * FACES_PER_DIE]


@dataclass(frozen=True)
class Die(Configuration):
    """One type of die: its name (a color, for number dice), its six faces and how many are in the bag.

    `faces` may be given as anything `face_code` reads; it is stored as codes.
    """

    name: str = setting(rule=Text(max_length=40, pattern=r"[^,]+", described="a die's name, without commas"))
    faces: tuple[int, ...] = setting(rule=DieFaces())
    count: int = setting(rule=Whole(1))

    def __post_init__(self) -> None:
        try:
            super().__post_init__()
        except InputError as error:  # say which die
            raise InputError(f"die {self.name!r}: {error.message}", field=error.field) from None

    def check(self) -> None:
        shown = [(position, code) for position, code in enumerate(self.faces, start=1) if code != Face.FLAG]
        if not shown:
            raise InputError("every face is a flag; a die needs a character or a number", field="faces")
        first = shown[0][1]
        for position, code in shown:
            # A special die shows one character (and flags); a number die numbers (and flags).
            fits = code == first if first in CHARACTERS else code not in CHARACTERS
            if not fits:
                raise InputError(f"face {position}: {face_label(code)} cannot share a die with "
                                 f"{face_label(first)}; a special die shows one character and flags, "
                                 "a number die numbers and flags", field="faces")

    @property
    def kind(self) -> str:
        """The character of a special die ("minotaur", "griffin", "mermaid"), or "number"."""
        characters = [code for code in self.faces if code in CHARACTERS]
        return str(Face(characters[0])) if characters else NUMBER

    @property
    def is_special(self) -> bool:
        return self.kind != NUMBER

    @property
    def flag_probability(self) -> Fraction:
        """Chance that one roll of this die shows a flag."""
        return Fraction(self.faces.count(Face.FLAG), FACES_PER_DIE)


@dataclass(frozen=True)
class Bag(Configuration):
    """Every die type in the game and how many of each; where the faces come from.

    source: where the faces come from, for reports ("default dice", "dice file PATH").
    reconstruction: the source says its faces are a reconstruction, not the published ones.
    """

    dice: tuple[Die, ...] = setting(rule=Several(Instance(Die), noun="die type"))
    source: str = setting("dice made in code", Text(max_length=1000))
    reconstruction: bool = setting(False, Flag())

    def check(self) -> None:
        seen: dict[str, str] = {}
        for die in self.dice:
            if die.name.lower() in seen:
                raise InputError(f"a second die named {die.name!r}", field="dice")
            seen[die.name.lower()] = die.name
        kinds = {die.kind for die in self.dice}
        missing = [kind for kind in KINDS if kind not in kinds]
        if missing:
            raise InputError(f"no {' and no '.join(missing)} die; the bag needs at least one die of each kind "
                             f"({', '.join(KINDS)})", field="dice")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(die.name for die in self.dice)

    @property
    def size(self) -> int:
        """Dice in the bag."""
        return sum(die.count for die in self.dice)

    @property
    def provenance(self) -> str:
        """One line saying where the faces come from and whether they are a reconstruction."""
        if self.reconstruction:
            return f"{self.source}: a RECONSTRUCTION from public descriptions, not the published faces"
        return self.source

    def counts(self) -> np.ndarray:
        """How many dice of each type: (types,) int64, in file order."""
        return np.array([die.count for die in self.dice], dtype=np.int64)

    def face_codes(self) -> np.ndarray:
        """Face codes of each type: (types, 6) int8."""
        return np.array([die.faces for die in self.dice], dtype=np.int8)

    def special_types(self) -> np.ndarray:
        """Which types are special dice: (types,) bool."""
        return np.array([die.is_special for die in self.dice], dtype=bool)

    def contents(self) -> np.ndarray:
        """Every die in the bag as its type index: (size,) int8."""
        return np.repeat(np.arange(len(self.dice), dtype=np.int8), self.counts())

    def index(self, name: str, field: str = "die") -> int:
        """The type index of the die called `name` (any case); InputError naming `field` if there is none."""
        wanted = name.strip().lower()
        for position, die in enumerate(self.dice):
            if die.name.lower() == wanted:
                return position
        raise InputError(f"unknown die {name.strip()!r}; the dice are {', '.join(self.names)}", field=field)

    def parse_hand(self, hand: str | list[str] | tuple[str, ...]) -> tuple[int, ...]:
        """Type indices of a hand given as "black,mermaid,yellow" or a list of names; InputError for an unknown name."""
        names = (hand.split(",") if hand.strip() else []) if isinstance(hand, str) else list(hand)
        if not names:
            raise InputError(f"must be die names separated by commas, got {shown(hand)}", field="hand")
        problem = empty_item(names, "die name")
        if problem is not None:
            raise InputError(f"{problem}, got {shown(hand)}", field="hand")
        return tuple(self.index(name, field="hand") for name in names)


_DIE_KEYS = ("name", "count", "faces")
_FILE_KEYS = ("reconstruction", "about", "dice")


def load_dice(path: str | Path | None = None) -> Bag:
    """The bag described by a dice file (TOML, read by `toml_files.read_toml`), or the shipped default when
    `path` is None.

    InputError, prefixed with the file's path (as a variant file's: `PATH: what is wrong`), for an unreadable or
    invalid file; the caller says it is a dice file (the field `bag`).
    """
    if path is None:
        text = resources.files(__package__).joinpath("default_dice.toml").read_text(encoding="utf-8")
        return _bag(parse_toml(text, "default dice"), source="default dice")
    document = read_toml(path)
    try:
        return _bag(document, source=f"dice file {path}")
    except InputError as error:
        raise InputError(f"{path}: {error}") from None


def _bag(document: dict, source: str) -> Bag:
    unknown = sorted(set(document) - set(_FILE_KEYS))
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}; a dice file has {', '.join(_FILE_KEYS)}")
    reconstruction = check_value("reconstruction", document.get("reconstruction", False), Flag(json=True))
    entries = document.get("dice")
    if not isinstance(entries, list) or not entries or not all(isinstance(entry, dict) for entry in entries):
        raise InputError("the file needs [[dice]] tables, one per die type", field="dice")
    dice = []
    for number, entry in enumerate(entries, start=1):
        label = repr(entry["name"]) if isinstance(entry.get("name"), str) else f"number {number}"
        unknown = sorted(set(entry) - set(_DIE_KEYS))
        missing = [key for key in _DIE_KEYS if key not in entry]
        if unknown:
            raise InputError(f"die {label}: unknown key {unknown[0]!r}; a die has {', '.join(_DIE_KEYS)}")
        if missing:
            raise InputError(f"die {label}: missing {', '.join(missing)}; a die has {', '.join(_DIE_KEYS)}")
        dice.append(Die(name=entry["name"], faces=entry["faces"], count=entry["count"]))
    return Bag(tuple(dice), source=source, reconstruction=reconstruction)


def as_bag(bag: Bag | str | Path | None) -> Bag:
    """`bag` itself, the dice file at that path, or the shipped default dice for None; InputError about `bag` for
    a dice file that cannot be read or is not allowed."""
    if isinstance(bag, Bag):
        return bag
    with about("bag"):
        return load_dice(bag)

