"""The pages: the drill (`/drill`), the variant explorer (`/explore`) and a player's report (`/report`).

Pages are Jinja2 templates with autoescaping on, so every name a player
typed is escaped wherever it appears. Their scripts are plain JavaScript
modules in `static/`; nothing is fetched from another site.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.session import FEEDBACK_MS, GREY_KEY, TIMEOUT_S
from diavolo_stats.errors import InputError
from diavolo_stats.web.api import Busy
from diavolo_stats.web.trials import BROWSER_VARIANTS, TrialStore

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")

COMMAND_HELP = {
    Command.HIGHEST_TOTAL: "the color whose dice add up to the most",
    Command.LOWEST_TOTAL: "the color whose dice add up to the least",
    Command.LARGEST_SPREAD: "the color with the largest gap between its highest and lowest die",
    Command.MOST_ODD: "the color with the most dice showing 1, 3 or 5",
    Command.HIGHEST_DIE: "the color with the single highest die",
    Command.CLOSEST: "the color with a die nearest the command die, center to center",
}
# The rulebook's worked example, and a throw for `closest`: each command's example is resolved by the rules.
EXAMPLE_DICE = {"black": [2, 3, 6], "red": [3, 5, 5], "white": [1, 5, 6]}
EXAMPLE_POSITIONS = {"command": [150, 150], "black": [[207, 150], [40, 40], [260, 40]],
                     "red": [[150, 192], [40, 260], [100, 260]], "white": [[62, 150], [260, 260], [200, 260]]}


def command_examples() -> list[dict]:
    """Each command with what it asks and one worked example (the rules' own reason line), then grey."""
    variant = Variant()
    examples = []
    for command in Command:
        reason = resolve(variant, command, EXAMPLE_DICE, EXAMPLE_POSITIONS).reason
        shown = "nearest dice: red 42 mm, black 57 mm, white 88 mm" if command is Command.CLOSEST else \
            "black 2 3 6, red 3 5 5, white 1 5 6"
        examples.append({"name": command.value, "asks": COMMAND_HELP[command], "roll": shown, "reason": reason})
    tie = resolve(variant, Command.HIGHEST_DIE, EXAMPLE_DICE).reason
    examples.append({"name": GREY, "roll": "highest die on black 2 3 6, red 3 5 5, white 1 5 6",
                     "asks": "when two or more colors share the winning figure (a tie), grab grey", "reason": tie})
    return examples


def error_page(request: Request, status: int, error: str) -> Response:
    return templates.TemplateResponse(request, "error.html", {"status": status, "error": error},
                                      status_code=status)


def routes(store: TrialStore) -> list[Route]:
    reports = threading.BoundedSemaphore(1)

    async def home(request: Request) -> Response:
        return templates.TemplateResponse(request, "home.html", {"log": store.log.path})

    async def drill(request: Request) -> Response:
        keys = {**{color: color[0] for color in Variant().colors}, GREY: GREY_KEY}
        return templates.TemplateResponse(request, "drill.html", {
            "variants": BROWSER_VARIANTS, "keys": keys, "examples": command_examples(), "timeout_s": TIMEOUT_S,
            "feedback_ms": FEEDBACK_MS, "log": store.log.path})

    async def explore(request: Request) -> Response:
        return templates.TemplateResponse(request, "explore.html", {
            "variant": Variant(), "table": TableModel(), "commands": [c.value for c in Command]})

    async def report(request: Request) -> Response:
        player = request.query_params.get("player")
        if player is None:
            frame = await run_in_threadpool(load_logs, [store.log.path])
            players = sorted(frame["player"].astype(str).unique())
            return templates.TemplateResponse(request, "report_players.html",
                                              {"players": players, "log": store.log.path})
        if not reports.acquire(blocking=False):
            raise Busy("a report is already being drawn; ask again when it is done")
        try:
            page = await run_in_threadpool(_report_html, store.log.path, player)
        finally:
            reports.release()
        return HTMLResponse(page)

    return [Route("/", home), Route("/drill", drill), Route("/explore", explore), Route("/report", report)]


def _report_html(log: Path, player: str) -> str:
    """`diavolo report`'s page for one player of `log`: the same summary and charts, drawn into a folder
    that is removed once the page is read."""
    import logging

    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    from diavolo_stats.analytics.report import write_report

    if not player:
        raise InputError("give a player's name", field="player")
    with tempfile.TemporaryDirectory(prefix="diavolo-report-") as folder:
        written = write_report([log], folder, players=[player])
        return (written.folder / "report.html").read_text(encoding="utf-8")
