"""The table rules of Minodice: rounds per player count, and the options the sources leave open.

`Rules` is checked once, at construction; everything downstream trusts it.
Bad values raise `InputError` naming the field and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

from diavolo_stats.errors import InputError

ROUNDS_BY_PLAYERS = {3: 8, 4: 8, 5: 7, 6: 6}
"""Rounds in a game, by number of players. In round n every player draws n dice."""

MIN_PLAYERS = min(ROUNDS_BY_PLAYERS)
MAX_PLAYERS = max(ROUNDS_BY_PLAYERS)

EQUAL_SPECIALS = ("later", "earlier")
"""Who wins when the winning character was rolled more than once: the later or the earlier roller."""

THREE_SPECIALS = ("mermaid", "minotaur", "griffin")
"""Which character wins when all three were rolled in one trick."""

ALL_FLAGS = ("leader", "last")
"""Who wins a trick in which every die shows a flag: the leader or the last roller."""


def rounds_for_players(players: int) -> int:
    """Rounds in a game of `players` players (8 for 3 or 4, 7 for 5, 6 for 6)."""
    if isinstance(players, bool) or not isinstance(players, int) or players not in ROUNDS_BY_PLAYERS:
        raise InputError(f"must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {players!r}", field="players")
    return ROUNDS_BY_PLAYERS[players]


def check_round(round_number: int, players: int) -> int:
    """`round_number` if a game of `players` players has such a round; InputError otherwise."""
    rounds = rounds_for_players(players)
    if isinstance(round_number, bool) or not isinstance(round_number, int) or not 1 <= round_number <= rounds:
        raise InputError(f"a {players}-player game has rounds 1 to {rounds}, got {round_number!r}",
                         field="round_number")
    return round_number


@dataclass(frozen=True)
class Rules:
    """How tricks are played and won, where the sources disagree or are silent.

    follow_led_color: once a number die has been rolled in a trick, a player
        holding a number die of that color must roll one (or a special die).
    equal_specials: the winning character rolled twice goes to the "later"
        (default, as equal numbers do) or the "earlier" roller.
    three_specials: the character that wins when all three are rolled
        (default "mermaid").
    all_flags: a trick of nothing but flags goes to the "leader" (default)
        or to the "last" roller.
    """

    follow_led_color: bool = True
    equal_specials: str = "later"
    three_specials: str = "mermaid"
    all_flags: str = "leader"

    def __post_init__(self) -> None:
        if not isinstance(self.follow_led_color, bool):
            raise InputError(f"must be true or false, got {self.follow_led_color!r}", field="follow_led_color")
        for field, allowed in (("equal_specials", EQUAL_SPECIALS), ("three_specials", THREE_SPECIALS),
                               ("all_flags", ALL_FLAGS)):
            value = getattr(self, field)
            if value not in allowed:
                raise InputError(f"must be one of {', '.join(allowed)}, got {value!r}", field=field)

