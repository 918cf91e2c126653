"""A player's name: the one rule every door a name comes in by follows (drill, log, web, player files).

`player_problem` is what a log may hold (the writer's and the reader's rule); `name_problem` and `PLAYER_NAME`
are what a new name may be, stricter, in NFKC form so that one name typed two ways is one player; a table seats
one of the names `looks_alike` pairs. The rules in full: docs/architecture.md, "Players' names".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from diavolo_stats.errors import InputError
from diavolo_stats.validation import CONTROL_CODES, SURROGATE, Rule, Text

MAX_PLAYER_LENGTH = 100
"""Characters of a name a log may hold: wider than a new name (MAX_NEW_NAME_LENGTH), so that no log whose
names are longer is refused."""
MAX_NEW_NAME_LENGTH = 24
"""Characters of a new name at most: one line of a room's lobby on a phone (390 px wide)."""

ZERO_WIDTH_JOINER = "\u200d"
# In a name also: zero-width characters, bidi embeddings, overrides and isolates (U+202E turns the
# rest of a line around on screen), word joiners and the byte order mark. The zero-width joiner is
# not among them: it joins an emoji sequence (a family), and `name_problem` allows it only there.
_HIDDEN_CODES = (0x061C, 0x180E, 0x200B, 0x200C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2060, 0x206A),
                 0xFEFF)
# Written with the characters themselves, so that Python's `re` and Arrow's RE2 read it alike; NUL apart.
_NOT_IN_NAME_CHARACTERS = "[" + "".join(map(chr, CONTROL_CODES + _HIDDEN_CODES)) + "]"
_NOT_IN_NAME = re.compile(_NOT_IN_NAME_CHARACTERS + "|\x00")
_BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that show nothing: the Hangul fillers and the blank Braille pattern."""
_LOOK_ALIKE_SCRIPTS = frozenset({"LATIN", "GREEK", "CYRILLIC"})
_EMOJI_BEFORE_JOINER = frozenset({"So", "Sk", "Mn"})  # an emoji, a skin tone, a variation selector


@dataclass(frozen=True)
class Name(Rule):
    """A new name (`name_problem`) of at most `longest` characters, given back in NFKC form: a player's (what the
    drill settings, the web's drill, Play, the rooms and player files take), or a variant's."""

    longest: int = MAX_NEW_NAME_LENGTH

    def normalize(self, value: object) -> str:
        problem = name_problem(value, self.longest)
        if problem:
            raise ValueError(problem)
        return unicodedata.normalize("NFKC", value)

    def bad_values(self) -> list:
        return ["", "  ", "tab\there", "zero\u200bwidth", "x" * (self.longest + 1), 5, None, "\u3164",
                "\u2800\u2800", "\u0301\u0301", "Ann\u202e", "Ann\ud800", "\u0410nn", "A\u200dnn"]


PLAYER_NAME = Name()

PLAYER_ASKED = Text(max_length=MAX_PLAYER_LENGTH)
"""A player of a drill log asked for by name (`player_figures`' players, each on its own): text a log's player
cell may hold, checked loosely, as a name the log does not hold is said so with the names it does."""


def check_player(name: object) -> str:
    """The player name as given, or InputError: what a log may hold (`player_problem`)."""
    problem = player_problem(name)
    if problem:
        raise InputError(problem, field="player")
    return name


def player_problem(name: object) -> str | None:
    """What is wrong with a name in a drill log, or None: the writer's and the reader's one rule. Any letters,
    digits, spaces and punctuation, 1 to MAX_PLAYER_LENGTH characters; refused: a lone surrogate (which UTF-8
    cannot write), control characters (tabs, line breaks, NUL), zero-width characters and bidi controls (U+200B,
    U+200C, U+200E, U+200F, U+202A to U+202E, U+2060 to U+2069, U+FEFF), which hide or reorder what a name
    shows."""
    if not isinstance(name, str) or not name.strip():
        return "give a name (any letters, spaces allowed)"
    hidden = _NOT_IN_NAME.search(name) or SURROGATE.search(name)
    if hidden:
        return (f"a name cannot contain control, zero-width or text-direction characters, nor lone surrogates; "
                f"this one has U+{ord(hidden.group()):04X} at position {hidden.start() + 1}")
    if len(name) > MAX_PLAYER_LENGTH:
        return f"at most {MAX_PLAYER_LENGTH} characters, not {len(name)}"
    return None


def name_problem(name: object, longest: int = MAX_NEW_NAME_LENGTH) -> str | None:
    """What is wrong with a new name of at most `longest` characters (the module's docstring says the rule),
    or None."""
    problem = player_problem(name)
    if problem:
        return problem
    name = unicodedata.normalize("NFKC", name)
    if len(name) > longest:
        return f"at most {longest} characters, not {len(name)}"
    if not any(_visible(character) for character in name):
        return "give a name that shows: letters, digits or symbols, not only spaces, fillers or accents"
    for at, character in enumerate(name):
        if character == ZERO_WIDTH_JOINER and not (
                0 < at < len(name) - 1 and unicodedata.category(name[at - 1]) in _EMOJI_BEFORE_JOINER
                and unicodedata.category(name[at + 1]) == "So"):
            return f"a zero-width joiner (U+200D) joins emoji only; this one is at position {at + 1}"
    from confusable_homoglyphs import categories  # its tables load in 0.1 s, which reading a log never needs

    for word in name.split():
        scripts = {categories.aliases_categories(c)[0] for c in word if c.isalpha()} & _LOOK_ALIKE_SCRIPTS
        if len(scripts) > 1:
            return (f"a word's letters are of one of Latin, Greek and Cyrillic, whose letters look alike; "
                    f"{word!r} mixes {' and '.join(sorted(script.title() for script in scripts))}")
    return None


def looks_alike(name: str, other: str) -> bool:
    """Whether two names are one to a person reading them, so a table seats only one: the same in NFKC form
    but for case (`Ann`, `ANN`, `Ａｎｎ`), or but for Unicode's confusables (`ABC` and a Cyrillic `АВС`, `Il` and
    `I1`); spaces, accents added as marks and joiners left out."""
    return any(key(name) == key(other) for key in (_folded, _skeleton))


def _folded(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _skeleton(name: str) -> str:
    return " ".join("".join(_prototype(c) for c in unicodedata.normalize("NFKC", name)
                            if unicodedata.category(c) not in ("Mn", "Cf")).split())


def _prototype(character: str) -> str:
    """The character among `character` and its single-character look-alikes with the lowest code point."""
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(character, greedy=True) or []
    alike = [glyph["c"].strip("\u200e") for entry in found for glyph in entry["homoglyphs"]]
    return min([character, *(glyph for glyph in alike if len(glyph) == 1)])


def _visible(character: str) -> bool:
    return unicodedata.category(character)[0] in "LNPS" and character not in _BLANK_LOOKING
