"""A game as the Play page and a room set it up: the fields a page sends, and what the page's form offers."""

from __future__ import annotations

from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.settings import FOREPERIOD_MS
from diavolo_stats.game.settings import DEVILS, EndRule, GameRules
from diavolo_stats.validation import declared
from diavolo_stats.web.foreperiod import Foreperiod
from diavolo_stats.web.trials import GAME_NAME, default_drill_variant, offered_games

_readings, _reading_defaults = declared(GameRules, ("devils", "end"))

GAME_FIELDS = {"variant": GAME_NAME, **_readings, "foreperiod_ms": Foreperiod()}
GAME_DEFAULTS = {"variant": "standard", **_reading_defaults, "foreperiod_ms": FOREPERIOD_MS}
"""The fields of a game a page sends to start one (a `Record`'s), and their defaults: the variant (a preset, or
SERVED: the server's variant file), the readings as `GameRules` declares them, and the range of the wait before
each roll (the drill's by default)."""


def game_form(held: Variant | None) -> dict:
    """What the form of a page that starts a game offers (the template's context): the games, the one chosen
    first, the devils' readings and the end rules."""
    return {"variants": offered_games(held), "chosen": default_drill_variant(held), "devils": DEVILS,
            "ends": [end.value for end in EndRule]}
