"""Who drilled: the one rule for a player's name, which the drill's settings, the log's writer and its reader
follow (and the web, for a name it is sent)."""

from __future__ import annotations

import re

from diavolo_stats.errors import InputError
from diavolo_stats.validation import CONTROL_CODES, Rule

MAX_PLAYER_LENGTH = 100

# In a name also: zero-width characters, bidi embeddings, overrides and isolates (U+202E turns the
# rest of a line around on screen), word joiners and the byte order mark.
_HIDDEN_CODES = (0x061C, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x206A), 0xFEFF)
# Written with the characters themselves, so that Python's `re` and Arrow's RE2 read it alike; NUL apart.
_NOT_IN_NAME_CHARACTERS = "[" + "".join(map(chr, CONTROL_CODES + _HIDDEN_CODES)) + "]"
_NOT_IN_NAME = re.compile(_NOT_IN_NAME_CHARACTERS + "|\x00")


class PlayerName(Rule):
    """Who drilled: what the drill settings, the log writer and the log reader accept (`player_problem`)."""

    def normalize(self, value: object) -> str:
        problem = player_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    def bad_values(self) -> list:
        return ["", "  ", "tab\there", "zero\u200bwidth", "x" * (MAX_PLAYER_LENGTH + 1), 5, None]


PLAYER_NAME = PlayerName()


def check_player(name: object) -> str:
    """The player name as given, or InputError: any letters, digits, spaces and punctuation, 1 to 100 characters.

    Refused: control characters (tabs, line breaks, NUL), zero-width characters and bidi controls (U+200B to
    U+200F, U+202A to U+202E, U+2060 to U+2069, U+FEFF), which hide or reorder what a name shows.
    """
    problem = player_problem(name)
    if problem:
        raise InputError(problem, field="player")
    return name


def player_problem(name: object) -> str | None:
    """What is wrong with a player name (see `check_player`), or None: the writer's and the reader's one rule."""
    if not isinstance(name, str) or not name.strip():
        return "give a name (any letters, spaces allowed)"
    hidden = _NOT_IN_NAME.search(name)
    if hidden:
        return (f"a name cannot contain control, zero-width or text-direction characters; this one has "
                f"U+{ord(hidden.group()):04X} at position {hidden.start() + 1}")
    if len(name) > MAX_PLAYER_LENGTH:
        return f"at most {MAX_PLAYER_LENGTH} characters, not {len(name)}"
    return None
