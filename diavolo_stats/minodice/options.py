"""The table rules of Minodice: rounds per player count, and the options the sources leave open.

`Rules` is checked once, at construction; everything downstream trusts it.
Bad values raise `InputError` naming the field and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

from diavolo_stats.errors import InputError
from diavolo_stats.validation import Configuration, Flag, OneOf, Whole, check_value, setting

ROUNDS_BY_PLAYERS = {3: 8, 4: 8, 5: 7, 6: 6}
"""Rounds in a game, by number of players. In round n every player draws n dice."""

MIN_PLAYERS = min(ROUNDS_BY_PLAYERS)
MAX_PLAYERS = max(ROUNDS_BY_PLAYERS)

EQUAL_SPECIALS = ("later", "earlier")
"""Who wins when the winning character was rolled more than once: the later (as with equal numbers) or the
earlier roller."""

THREE_SPECIALS = ("mermaid", "minotaur", "griffin")
"""Which character wins when all three were rolled in one trick."""

ALL_FLAGS = ("leader", "last", "nobody")
"""Who takes a trick in which every die shows a flag: the leader, the last roller, or nobody (the round then has
fewer tricks won than dice each player held, and the flag trick's leader leads the next one)."""

MERMAID_BONUS = ("per-trick", "per-minotaur")
"""What the mermaid's +50 pays for: each trick she won against one or more minotaurs, or each minotaur."""

MERMAID_COLUMNS = {"per-trick": "mermaid_tricks", "per-minotaur": "minotaurs_beaten"}
"""The count each mermaid-bonus reading needs, by its name on a score sheet and in play records."""

WRONG_BID = ("per-trick", "flat")
"""What a missed bid (above zero) costs: -10 per trick of difference, or -10 once."""


def rounds_for_players(players: int) -> int:
    """Rounds in a game of `players` players (8 for 3 or 4, 7 for 5, 6 for 6)."""
    return ROUNDS_BY_PLAYERS[check_value("players", players, Whole(MIN_PLAYERS, MAX_PLAYERS))]


def check_round(round_number: int, players: int) -> int:
    """`round_number` if a game of `players` players has such a round; InputError otherwise."""
    rounds = rounds_for_players(players)
    if check_value("round_number", round_number, Whole(1)) > rounds:
        raise InputError(f"a {players}-player game has rounds 1 to {rounds}, got {round_number!r}",
                         field="round_number")
    return round_number


@dataclass(frozen=True)
class Rules(Configuration):
    """How tricks are played and won, where the sources disagree or are silent: each option's values are the
    constant of its name (the first is the default). follow_led_color: once a number die has been rolled in a
    trick, a player holding a number die of that color must roll one (or a special die). The rules page,
    docs/rules.md, quotes the sentence each option reads.
    """

    follow_led_color: bool = setting(True, Flag())
    equal_specials: str = setting("later", OneOf(EQUAL_SPECIALS))
    three_specials: str = setting("mermaid", OneOf(THREE_SPECIALS))
    all_flags: str = setting("leader", OneOf(ALL_FLAGS))
    mermaid_bonus: str = setting("per-trick", OneOf(MERMAID_BONUS))
    wrong_bid: str = setting("per-trick", OneOf(WRONG_BID))

    @property
    def mermaid_column(self) -> str:
        """The count the mermaid bonus pays for: `mermaid_tricks` or `minotaurs_beaten`."""
        return MERMAID_COLUMNS[self.mermaid_bonus]

