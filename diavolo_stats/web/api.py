"""The JSON API behind the pages: rolls and trials for the drill, odds and simulations for the explorer.

Every endpoint calls the library function the matching `diavolo` command
calls, so the two cannot drift: `/api/odds` returns the JSON document that
`diavolo odds` prints, `/api/simulate` the one `diavolo simulate` prints. Query parameters are the library's field names
(`dice_per_color=2&sides=6&colors=black,red,white`). A bad request gets
status 400 and `{"error": "field: what is wrong", "field": "..."}`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import MAX_SEED, load_logs
from diavolo_stats.drill.scheduler import adaptive_roll
from diavolo_stats.drill.session import FOREPERIOD_MS, MAX_FOREPERIOD_MS, summarize_session
from diavolo_stats.errors import InputError
from diavolo_stats.web.trials import BROWSER_VARIANTS, MAX_TRIALS_PER_SESSION, TrialStore, trial_row

DEFAULT_SIMULATION_ROUNDS = 20_000
MAX_SIMULATION_ROUNDS = 200_000
"""A simulation the explorer asks for runs at most this many rounds (about 0.1 s for `closest`)."""

VARIANT_FIELDS = ("colors", "dice_per_color", "sides", "commands", "scatter_mm", "die_mm", "tolerance")


class Busy(Exception):
    """The server is already running as many of this kind of request as it allows (HTTP 429)."""


def routes(store: TrialStore) -> list[Route]:
    """The API's routes, writing trials through `store`."""
    simulations = threading.BoundedSemaphore(1)

    async def post_trial(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            raise InputError("the body must be one JSON object", field="trial") from None
        row = trial_row(body)
        stored = await run_in_threadpool(store.add, row)
        return JSONResponse({"stored": stored, "session_id": row.session_id, "trial": row.trial,
                             "expected": row.expected, "accepted": list(row.accepted), "correct": row.correct},
                            status_code=201 if stored else 200)

    async def get_roll(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(next_roll, store, dict(request.query_params)))

    async def get_summary(request: Request) -> JSONResponse:
        session_id = request.path_params["session_id"]
        player = request.query_params.get("player", "")

        def summary() -> dict:
            found = summarize_session(load_logs([store.log.path]), session_id, store.log.path, player)
            return {"title": found.title(), "footer": found.footer(), "rows": found.rows()}

        return JSONResponse(await run_in_threadpool(summary))

    async def get_odds(request: Request) -> JSONResponse:
        variant = variant_from_query(request.query_params, VARIANT_FIELDS)
        return JSONResponse(exact_odds(variant).document())

    async def get_simulation(request: Request) -> JSONResponse:
        query = request.query_params
        variant = variant_from_query(query, VARIANT_FIELDS + ("rounds", "seed"))
        rounds = _query_int(query, "rounds", 1, MAX_SIMULATION_ROUNDS, DEFAULT_SIMULATION_ROUNDS)
        seed = _query_int(query, "seed", 0, MAX_SEED, None)
        if not simulations.acquire(blocking=False):
            raise Busy("a simulation is already running; ask again when it is done")
        try:
            result = await run_in_threadpool(simulate, variant, rounds, seed)
        finally:
            simulations.release()
        return JSONResponse(result.document())

    return [
        Route("/api/trials", post_trial, methods=["POST"]),
        Route("/api/roll", get_roll),
        Route("/api/sessions/{session_id}/summary", get_summary),
        Route("/api/odds", get_odds),
        Route("/api/simulate", get_simulation),
    ]


def next_roll(store: TrialStore, query: Mapping[str, str]) -> dict:
    """The roll for trial `trial` of a session with `seed`, with the answer the rules give, the answers
    counted right, and why.

    The same seed, trial number and attempt give the same roll and foreperiod (unless
    `adaptive`, which also reads the player's rows in the log), so a drill
    needs no state on the server and survives its restart.
    """
    allowed = ("variant", "command_first", "adaptive", "player", "seed", "trial", "attempt", "foreperiod_ms")
    _refuse_unknown(query, allowed)
    name = query.get("variant", "standard")
    if name not in BROWSER_VARIANTS:
        raise InputError(f"must be one of {', '.join(BROWSER_VARIANTS)}, got {name[:40]!r}", field="variant")
    variant = Variant.preset(name)
    seed = _query_int(query, "seed", 0, MAX_SEED, None)
    if seed is None:
        raise InputError("missing: the session's seed, a whole number", field="seed")
    trial = _query_int(query, "trial", 1, MAX_TRIALS_PER_SESSION, None)
    if trial is None:
        raise InputError("missing: the trial's number", field="trial")
    # attempt: a trial dropped unanswered (help asked for mid-trial) is shown again with another roll
    attempt = _query_int(query, "attempt", 0, MAX_TRIALS_PER_SESSION, 0)
    shortest, longest = _foreperiod(query.get("foreperiod_ms"))
    rng = np.random.default_rng([seed, trial, attempt])
    if _query_bool(query, "adaptive"):
        player = query.get("player", "")
        frame = load_logs([store.log.path])
        rolled = adaptive_roll(variant, frame.loc[frame["player"] == player], rng)
    else:
        rolled = roll(variant, rng)
    resolution = resolve(variant, rolled.command, rolled.dice, rolled.positions)
    return {
        "trial": trial, "variant": name, "command_first": _query_bool(query, "command_first"),
        "game": variant.as_dict(), "command": rolled.command.value,
        "dice": {color: list(values) for color, values in rolled.dice.items()},
        "positions": rolled.positions, "foreperiod_ms": int(rng.integers(shortest, longest + 1)),
        "expected": resolution.answer, "accepted": list(resolution.accepted), "reason": resolution.reason,
    }


def variant_from_query(query: Mapping[str, str], allowed: tuple[str, ...]) -> Variant:
    """The Variant the query's fields describe (defaults: the standard game); InputError naming a bad field."""
    _refuse_unknown(query, allowed)
    fields: dict = {}
    for name in ("colors", "commands"):
        if name in query:
            fields[name] = tuple(item.strip() for item in query[name].split(",") if item.strip())
    if "commands" in fields:
        fields["commands"] = tuple(Command.parse(c, "commands") for c in fields["commands"])
    for name in ("dice_per_color", "sides"):
        if name in query:
            fields[name] = _parsed(name, query[name], int, "a whole number")
    table = {name: _parsed(name, query[name], float, "a number") for name in ("scatter_mm", "die_mm", "tolerance")
             if name in query}
    return Variant(**fields, table=TableModel(**table))


def _refuse_unknown(query: Mapping[str, str], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(query) - set(allowed))
    if unknown:
        raise InputError(f"not a parameter here; allowed: {', '.join(allowed)}", field=unknown[0][:40])


def _parsed(name: str, text: str, kind: Callable, described: str):
    try:
        value = kind(text)
    except ValueError:
        raise InputError(f"must be {described}, got {text[:40]!r}", field=name) from None
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"must be a finite number, got {text[:40]!r}", field=name)
    return value


def _query_int(query: Mapping[str, str], name: str, low: int, high: int, default: int | None) -> int | None:
    if name not in query:
        return default
    value = _parsed(name, query[name], int, "a whole number")
    if not low <= value <= high:
        raise InputError(f"must be a whole number from {low} to {high}, got {value}", field=name)
    return value


def _query_bool(query: Mapping[str, str], name: str) -> bool:
    text = query.get(name, "false")
    if text not in ("true", "false"):
        raise InputError(f"must be true or false, got {text[:40]!r}", field=name)
    return text == "true"


def _foreperiod(text: str | None) -> tuple[int, int]:
    if text is None:
        return FOREPERIOD_MS
    low, _, high = text.partition(",")
    shortest, longest = _parsed("foreperiod_ms", low, int, "whole ms"), _parsed("foreperiod_ms", high or low, int,
                                                                                 "whole ms")
    if not 0 <= shortest <= longest <= MAX_FOREPERIOD_MS:
        raise InputError(f"need whole ms MIN,MAX with 0 <= MIN <= MAX <= {MAX_FOREPERIOD_MS}, got {text[:40]!r}",
                         field="foreperiod_ms")
    return shortest, longest
