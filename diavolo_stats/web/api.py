"""The JSON API behind the pages: rolls and trials for the drill, odds and simulations for the explorer.

Every endpoint calls the library function the matching `diavolo` command calls, so the two cannot drift:
`/api/odds` returns the document `diavolo odds` prints. Query parameters are the library's field names, declared
per endpoint as a `validation.Record` (`ROLL_QUERY`, `ODDS_QUERY`, `SIMULATE_QUERY`); a bad request gets status
400 and `{"error": "field: what is wrong", "field": "..."}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.table_model import TABLE_FIELDS, TableModel
from diavolo_stats.core.variant import Variant
from diavolo_stats.drill import MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.deal import Deal
from diavolo_stats.drill.log import MAX_SEED, PLAYER_NAME, TrialRow
from diavolo_stats.drill.scheduler import adaptive_roll
from diavolo_stats.drill.settings import FOREPERIOD_MS, Foreperiod
from diavolo_stats.drill.summary import SUMMARY_HEADINGS, SUMMARY_TEXT_COLUMNS, summarize_session
from diavolo_stats.validation import Record, Whole, declared
from diavolo_stats.web.bodies import JSONAnswer, parse_body
from diavolo_stats.web.busy import Heavy
from diavolo_stats.web.deals import Deals
from diavolo_stats.web.trials import (
    BOOLEAN,
    GAME_NAME,
    TrialStore,
    Verdict,
    drawn_game,
    drilled_variant,
    trial_row,
)

DEFAULT_SIMULATION_ROUNDS = 20_000
MAX_SIMULATION_ROUNDS = 200_000
"""A simulation the explorer asks for runs at most this many rounds (about 0.1 s for `closest`)."""

VARIANT_FIELDS = ("colors", "dice_per_color", "sides", "commands")
_variant_rules, _variant_defaults = declared(Variant, VARIANT_FIELDS)
_table_rules, _table_defaults = declared(TableModel, TABLE_FIELDS)

ODDS_QUERY = Record("odds", {**_variant_rules, **_table_rules}, defaults={**_variant_defaults, **_table_defaults},
                    text=True, noun="parameter")
"""`/api/odds?...`: the game's fields, as Variant and TableModel declare them (lists comma-separated)."""

SIMULATE_QUERY = Record("simulate", {**ODDS_QUERY.rules, "rounds": Whole(1, MAX_SIMULATION_ROUNDS),
                                     "seed": Whole(0, MAX_SEED)},
                        defaults={**ODDS_QUERY.defaults, "rounds": DEFAULT_SIMULATION_ROUNDS, "seed": None},
                        text=True, noun="parameter")
"""`/api/simulate?...`: the game's fields, the rounds to simulate and the seed (a fresh one if left out)."""


ROLL_QUERY = Record("roll", {
    "variant": GAME_NAME,
    "command_first": BOOLEAN,
    "adaptive": BOOLEAN,
    "player": PLAYER_NAME,
    "seed": Whole(0, MAX_SEED),
    "trial": Whole(1, MAX_TRIALS_PER_SESSION),
    # a trial dropped unanswered (help asked for mid-trial) is shown again with another roll
    "attempt": Whole(0, MAX_TRIALS_PER_SESSION),
    "foreperiod_ms": Foreperiod(),
}, defaults={"variant": "standard", "command_first": False, "adaptive": False, "player": "", "attempt": 0,
             "foreperiod_ms": FOREPERIOD_MS}, text=True, noun="parameter")
"""`/api/roll?...`: the session's seed and the trial's number are required."""


def routes(store: TrialStore, heavy: Heavy) -> list[Route]:
    """The API's routes, writing trials through `store`; summaries, adaptive rolls and simulations run
    within `heavy`'s bound."""

    deals = Deals()

    def store_trial(row: TrialRow, name: str, held: Variant | None) -> tuple[bool, Verdict]:
        """A trial already stored keeps its first verdict; a new one must be on a roll this server dealt."""
        verdict = store.stored(row.session_id, row.trial)
        if verdict is not None:
            return False, verdict

        def redeal(seed: int, trial: int, attempt: int) -> dict:
            return next_roll(store, {"variant": name, "seed": str(seed), "trial": str(trial),
                                     "attempt": str(attempt)}, held)

        deals.check(row.seed, row.trial, row.command, row.dice, row.positions, redeal)
        return store.add(row)

    async def post_trial(request: Request) -> JSONAnswer:
        held = getattr(request.app.state, "variant", None)
        body = parse_body(await request.body(), "trial")
        row = trial_row(body, held)
        name = body["variant"]  # checked by trial_row: a preset's name, or SERVED
        stored, (expected, accepted, correct) = await run_in_threadpool(store_trial, row, name, held)
        return JSONAnswer({"stored": stored, "session_id": row.session_id, "trial": row.trial,
                             "expected": expected, "accepted": list(accepted), "correct": correct},
                            status_code=201 if stored else 200)

    async def get_roll(request: Request) -> JSONAnswer:
        query = dict(request.query_params)
        held = getattr(request.app.state, "variant", None)  # the game the server holds (a variant file)
        if query.get("adaptive") == "true":  # reads the player's rows in the log
            roll = await heavy.run("an adaptive roll", next_roll, store, query, held)
        else:
            roll = await run_in_threadpool(next_roll, store, query, held)
        deals.deal(int(query["seed"]), roll["trial"], roll)  # next_roll has checked the seed
        return JSONAnswer(roll)

    async def get_summary(request: Request) -> JSONAnswer:
        session_id = request.path_params["session_id"]
        player = request.query_params.get("player", "")

        def summary() -> dict:
            found = summarize_session(store.figures(), session_id, store.log.path, player)
            return {"title": found.title(), "sentences": found.sentences(), "rows": found.rows(),
                    "headings": {column: SUMMARY_HEADINGS[column] for column in SUMMARY_TEXT_COLUMNS}}

        return JSONAnswer(await heavy.run("the summary", summary))

    async def get_odds(request: Request) -> JSONAnswer:
        return JSONAnswer(exact_odds(variant_of(ODDS_QUERY.check(request.query_params))).document())

    async def get_simulation(request: Request) -> JSONAnswer:
        asked = SIMULATE_QUERY.check(request.query_params)
        variant = variant_of(asked)
        result = await heavy.run("the simulation", simulate, variant, asked["rounds"], asked["seed"])
        return JSONAnswer(result.document())

    return [
        Route("/api/trials", post_trial, methods=["POST"]),
        Route("/api/roll", get_roll),
        Route("/api/sessions/{session_id}/summary", get_summary),
        Route("/api/odds", get_odds),
        Route("/api/simulate", get_simulation),
    ]


def next_roll(store: TrialStore, query: Mapping[str, str], held: Variant | None = None) -> dict:
    """The roll for trial `trial` of a session with `seed`, with the answer the rules give, the answers counted
    right, why (each figure in its words), and the words of the game's commands (`teaching.command_words`).
    held: the game the server holds, drilled as variant SERVED. `adaptive`: of the type of roll `drill.scheduler`
    chooses from the player's recent trials, named in `roll_type`.

    The same seed, trial number and attempt give the same roll and foreperiod (unless `adaptive`, which also reads
    the log), so a drill needs no state on the server and survives its restart.
    """
    asked = ROLL_QUERY.check(query)
    variant = drilled_variant(asked["variant"], held)
    rng = np.random.default_rng([asked["seed"], asked["trial"], asked["attempt"]])
    scheduled = None
    if asked["adaptive"]:
        scheduled = adaptive_roll(variant, store.recent_trials(asked["player"]), rng)
    deal = Deal.throw(variant, rng, asked["foreperiod_ms"], scheduled.roll if scheduled else None)
    resolution = deal.resolution
    answer = {
        "trial": asked["trial"], "variant": asked["variant"], "command_first": asked["command_first"],
        **drawn_game(variant), **deal.wire(),
        "expected": resolution.answer, "accepted": list(resolution.accepted), "reason": resolution.reason,
    }
    if scheduled is not None:
        answer["roll_type"] = {"kind": scheduled.kind, "of_kind": scheduled.of_kind}
    return answer


def variant_of(asked: Mapping[str, Any]) -> Variant:
    """The Variant of a checked query's game fields (VARIANT_FIELDS, its table's TABLE_FIELDS)."""
    table = TableModel(**{name: asked[name] for name in TABLE_FIELDS})
    return Variant(**{name: asked[name] for name in VARIANT_FIELDS}, table=table)
