"""The pages' Jinja2 templates (`templates/`), autoescaping on: every page module renders through this one."""

from __future__ import annotations

from pathlib import Path

from starlette.templating import Jinja2Templates

from diavolo_stats.core.variant import GREY
from diavolo_stats.names import MAX_PLAYER_LENGTH

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
# Every page's name field lets in at most what a log may hold; the server checks a new name's stricter rule.
templates.env.globals["max_player_length"] = MAX_PLAYER_LENGTH
templates.env.globals["grey"] = GREY  # the tie's answer, as the library names it
