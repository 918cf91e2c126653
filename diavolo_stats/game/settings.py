"""What a run of whole games is played under: the readings of the rules (`GameRules`) and a run's limits.

They live apart from the engine so that the command line states them in its
help without loading the engine's players (and pandas with them).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from diavolo_stats.validation import Configuration, Flag, OneOf, Rule, Whole, check_value, setting

MAX_DEVILS_PER_COLOR = 3
"""The rulebook's cap on devils per color (4, 5 and 6 players use 3)."""
GREY_DEVILS = 1
"""Grey devils on the table every round, whatever the players (one tie to claim)."""

DEVILS = ("rulebook", "review")
"""The readings of the devils per color: capped at MAX_DEVILS_PER_COLOR (rulebook) or not (review)."""
DEVILS_WORDS = {"rulebook": f"one fewer than the players in, at most {MAX_DEVILS_PER_COLOR}",
                "review": "one fewer than the players in, no cap"}
"""Each reading of DEVILS in words (`engine.devils_per_color`), as the command line's help and a page's form
say it."""
MIN_PLAYERS, MAX_PLAYERS = 2, 6
DEFAULT_MAX_ROUNDS = 500
"""Far beyond any real game (a 6-player game lasts well under 100 rounds); only a degenerate model reaches it."""

MAX_GAMES = 10**9
"""The most games one run plays (and per design lineup): hours of work. Games are played, counted and
saved one chunk at a time, so memory stays flat up to it; more is refused."""

MAX_GAME_ROUNDS = 100_000
"""The most rounds a game may be allowed (`max_rounds`); real games last well under 100."""

DEFAULT_GAMES = 10_000
"""Games a run plays when none are asked for."""

DEFAULT_DESIGN_GAMES = 20_000
"""Games per reference lineup for the design metrics: a 95 % interval of about +-0.006 on a win probability."""

COUNTS = {"games": Whole(1, MAX_GAMES), "max_rounds": Whole(1, MAX_GAME_ROUNDS), "design_games": Whole(0, MAX_GAMES)}
"""The rules of a run's counts, by parameter name: the functions that play games check them, and the command line
reads its flags by them."""


def devil_cap(devils: str) -> int | None:
    """The most devils of one color in play under the reading `devils` (DEVILS), or None for no cap."""
    return MAX_DEVILS_PER_COLOR if devils == "rulebook" else None


class EndRule(str, Enum):
    """When a game ends: at the last player standing (rulebook) or at the first player out."""

    LAST_STANDING = "last-standing"
    FIRST_OUT = "first-out"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, name: str) -> EndRule:
        """The end rule called `name` (or given itself); InputError naming `end` otherwise."""
        return check_value("end", name, EndRuleName())


END_WORDS = {EndRule.LAST_STANDING: "the last player with gems wins",
             EndRule.FIRST_OUT: "at the first player out, most gems wins"}
"""Each end rule in words, as the command line's help and a page's form say it."""


class EndRuleName(Rule):
    """An `EndRule`, or its name."""

    def normalize(self, value: object) -> EndRule:
        try:
            return EndRule(value)
        except ValueError:
            raise ValueError(f"unknown end rule; allowed: {', '.join(rule.value for rule in EndRule)}") from None

    def bad_values(self) -> list:
        return ["sudden-death", "", 1, None]


@dataclass(frozen=True)
class GameRules(Configuration):
    """The readings of the rules a whole game is played under, checked once at construction.

    end: `EndRule` (or its name), default last-standing (the rulebook).
    devils: the devils per color's cap (`engine.devils_per_color`), "rulebook" (default: at most
        MAX_DEVILS_PER_COLOR) or "review" (no cap).
    command_first: the rulebook's easier variant where the command die is shown
        before the colored dice; players fitted from a drill log then use their
        rows of that variant. The dice and the answers are the same.
    """

    end: EndRule = setting(EndRule.LAST_STANDING, EndRuleName())
    devils: str = setting("rulebook", OneOf(DEVILS))
    command_first: bool = setting(False, Flag())

    @property
    def devil_cap(self) -> int | None:
        """The most devils of one color in play, or None for no cap."""
        return devil_cap(self.devils)

    def as_dict(self) -> dict[str, object]:
        """The readings as plain JSON types: end, devils, command_first."""
        return {"end": self.end.value, "devils": self.devils, "command_first": self.command_first}


MODELS = ("diffusion", "reading")
"""How players named from a drill log are fitted (`specs.fit_players`): a drift-diffusion process
(`diffusion_fit`) or the reading model (`reading_fit`)."""

DEFAULT_MODEL = "diffusion"
"""The model that wins `benchmarks/bench_players.py`: held-out answers on three generator families, and games at
dice the log never had."""
