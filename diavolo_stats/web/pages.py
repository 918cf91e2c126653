"""The pages: the drill (`/drill`), the variant explorer (`/explore`), a player's progress (`/me`, see `me`)
and a player's report (`/report`).

Pages are Jinja2 templates with autoescaping on, so every name a player
typed is escaped wherever it appears. Their scripts are plain JavaScript
modules in `static/`; nothing is fetched from another site.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from diavolo_stats.analytics import summaries
from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.drill import DEFAULT_TRIALS, MAX_TRIALS_PER_SESSION, MIN_LATENCY_MS
from diavolo_stats.drill.log import NO_ANSWER
from diavolo_stats.drill.looks import COMMAND_DIE_LOOK, DIE_LOOKS, css_color
from diavolo_stats.drill.settings import (
    FEEDBACK_MS,
    HELP_KEY,
    MAX_FOREPERIOD_MS,
    MAX_TIMEOUT_S,
    QUIT_KEY,
    TIMEOUT_S,
    answer_keys,
)
from diavolo_stats.drill.teaching import example_roll
from diavolo_stats.errors import InputError
from diavolo_stats.game.engine import MAX_GEMS
from diavolo_stats.web.busy import Heavy
from diavolo_stats.web.explore import editor_start
from diavolo_stats.web.me import chart_png, progress_context
from diavolo_stats.web.templating import templates
from diavolo_stats.web.trials import (
    SERVED,
    TrialStore,
    default_drill_variant,
    drill_variants,
    drilled_variant,
    offered_games,
)


def command_examples(held: Variant | None = None) -> list[dict]:
    """Each command with what it asks and one worked example (the rules' own reason line), then grey: the
    terminal drill's commands screen (`drill.teaching.help_lines`), worked on the same roll. held: the game the
    server holds; its own commands follow the built-ins, by their label and rule, worked on its example roll."""
    variant = Variant()
    dice, positions = example_roll(variant)
    shown_dice = ", ".join(f"{color} {' '.join(map(str, values))}" for color, values in dice.items())
    examples = []
    for command in Command:
        resolution = resolve(variant, command, dice, positions)
        shown = shown_dice if command.depends_on_values else "nearest dice: " + ", ".join(
            f"{color} {distance:g} mm" for color, distance in resolution.figures.items())
        examples.append({"name": command.label, "asks": command.rule, "roll": shown,
                         "reason": resolution.reason})
    own = [c for c in held.commands if not c.builtin] if held is not None else []
    if own:
        held_dice, held_positions = example_roll(held)
        held_shown = ", ".join(f"{color} {' '.join(map(str, values))}" for color, values in held_dice.items())
        examples += [{"name": command.label, "asks": command.rule, "roll": held_shown,
                      "reason": resolve(held, command, held_dice, held_positions).reason} for command in own]
    tie = resolve(variant, Command.HIGHEST_DIE, dice).reason
    examples.append({"name": GREY, "roll": f"highest die on {shown_dice}",
                     "asks": "when two or more colors share the winning figure (a tie), grab grey", "reason": tie})
    return examples


def looks_stylesheet() -> str:
    """`/looks.css`: each die color's look in the browser, as the terminal drill paints it (`drill.looks`; grey is
    the command die's): the dice on the table (`.die-black .face`, `.die-black .pip`), the answer buttons, the
    grabs and the devils of that color."""
    rules = []
    for color, look in {**DIE_LOOKS, GREY: COMMAND_DIE_LOOK}.items():
        fill, pip, edge = css_color(look.background), css_color(look.digit), css_color(look.edge)
        rules += [f".die-{color} .face {{ fill: {fill}; stroke: {edge}; }}",
                  f".die-{color} .pip {{ fill: {pip}; }}",
                  f".answer-{color}, .grab-{color}, .devil-{color} {{ background: {fill}; color: {pip}; "
                  f"border-color: {edge}; }}"]
    return "\n".join(rules) + "\n"


LOOKS_CSS = looks_stylesheet()


def drill_settings(held: Variant | None = None) -> dict:
    """What the browser drill's page takes from the library, served in the page as JSON: a session's trials
    (default and limit), the answer time and the feedback time (defaults and limits; the page's own query may
    change them for tests), the default answer keys of each game it offers (`drill_variants(held)`: a color and
    grey each) and the keys taken, the answer logged for none, and the fastest answer a person gives (a faster
    key was pressed before the roll was seen: too early)."""
    return {
        "trials": {"default": DEFAULT_TRIALS, "least": 1, "most": MAX_TRIALS_PER_SESSION},
        "timeout_s": {"default": TIMEOUT_S, "most": MAX_TIMEOUT_S},
        "feedback_ms": {"default": FEEDBACK_MS, "most": MAX_FOREPERIOD_MS},
        "keys": {name: answer_keys(drilled_variant(name, held), {}) for name in drill_variants(held)},
        "quit_key": QUIT_KEY, "help_key": HELP_KEY, "no_answer": NO_ANSWER, "min_latency_ms": MIN_LATENCY_MS,
    }


def play_settings() -> dict:
    """What the table of the Play page and of a room takes from the library, served in the page as JSON
    (`_table.html`): the most gems a seat holds."""
    return {"max_gems": MAX_GEMS}


templates.env.globals["play_settings"] = play_settings


def error_page(request: Request, status: int, error: str) -> Response:
    return templates.TemplateResponse(request, "error.html", {"status": status, "error": error},
                                      status_code=status)


def routes(store: TrialStore, heavy: Heavy) -> list[Route]:
    """The pages, over the drill log of `store`; the drill and the explorer start from the game the server holds
    (`app.state.variant`)."""

    async def home(request: Request) -> Response:
        return templates.TemplateResponse(request, "home.html", {"log": store.log.path})

    async def drill(request: Request) -> Response:
        held = getattr(request.app.state, "variant", None)  # the game the server holds (a variant file)
        variants = drill_variants(held)
        return templates.TemplateResponse(request, "drill.html", {
            "variants": offered_games(held),
            "chosen": default_drill_variant(held),
            "settings": drill_settings(held), "examples": command_examples(held if SERVED in variants else None),
            "log": store.log.path})

    async def explore(request: Request) -> Response:
        start = editor_start(request.app.state.variant)
        return templates.TemplateResponse(request, "explore.html", {"start": start, "limits": start["limits"]})

    async def report(request: Request) -> Response:
        player = request.query_params.get("player")
        if player is None:
            frame = await heavy.run("the list of players", store.figures)
            players = summaries.players_in(frame)
            return templates.TemplateResponse(request, "report_players.html",
                                              {"players": players, "log": store.log.path})
        return HTMLResponse(await heavy.run("the report", _report_html, store.log.path, player))

    async def me(request: Request) -> Response:
        context = await heavy.run("the progress page", progress_context, store, request.query_params.get("player"))
        return templates.TemplateResponse(request, "me.html", context)

    async def me_chart(request: Request) -> Response:
        player, layout = request.query_params.get("player", ""), request.query_params.get("layout", "")
        png = await heavy.run("the progress chart", chart_png, store, player, layout)
        return Response(png, media_type="image/png")

    async def looks(request: Request) -> Response:
        return Response(LOOKS_CSS, media_type="text/css")

    return [Route("/", home), Route("/drill", drill), Route("/explore", explore), Route("/me", me),
            Route("/me/chart.png", me_chart), Route("/report", report), Route("/looks.css", looks)]


def _report_html(log: Path, player: str) -> str:
    """`diavolo report`'s page for one player of `log`: the same summary and charts, built in memory (nothing is
    written). Its refusals are said in the page's words: the log is the server's, which a visitor never names, and
    the report's `players` is the page's `player`."""
    import logging

    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    from diavolo_stats.analytics.report import build_report

    if not player:
        raise InputError("give a player's name", field="player")
    try:
        return build_report([log], players=[player]).page
    except InputError as error:
        if error.field == "log_paths":
            raise InputError(f"no report from this server's drill log: {error.message}") from None
        raise InputError(error.message, field="player" if error.field == "players" else error.field) from None
