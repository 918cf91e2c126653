"""A game as the Play page and a room set it up: the fields a page sends, and what the page's form offers."""

from __future__ import annotations

from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.settings import FOREPERIOD_MS, DrillSettings, Foreperiod
from diavolo_stats.game.settings import DEVILS_WORDS, END_WORDS, GameRules
from diavolo_stats.validation import declared
from diavolo_stats.web.trials import GAME_NAME, default_drill_variant, offered_games

_readings, _reading_defaults = declared(GameRules, ("devils", "end"))
_window, _window_default = declared(DrillSettings, ("timeout_s",))

GAME_FIELDS = {"variant": GAME_NAME, **_readings, "foreperiod_ms": Foreperiod(), **_window}
GAME_DEFAULTS = {"variant": "standard", **_reading_defaults, "foreperiod_ms": FOREPERIOD_MS, **_window_default}
"""The fields of a game a page sends to start one (a `Record`'s), and their defaults: the variant (a preset, or
SERVED: the server's variant file), the readings as `GameRules` declares them, the range of the wait before
each roll and the seconds to answer a roll (the drill's, as `DrillSettings` declares them)."""


def game_form(held: Variant | None) -> dict:
    """What the form of a page that starts a game offers (the template's context): the games, the one chosen
    first, the devils' readings and the end rules (each name -> its words), and the seconds to answer a roll (its
    default and most)."""
    return {"variants": offered_games(held), "chosen": default_drill_variant(held), "devils": DEVILS_WORDS,
            "ends": {end.value: words for end, words in END_WORDS.items()}, "timeout_s": _window_default["timeout_s"],
            "most_timeout_s": _window["timeout_s"].at_most}
