"""The explorer's API: a variant file sent as JSON, answered with its exact odds and the file that reproduces it.

`POST /api/explore` takes the document of a variant file (the keys of `core.variant_file.FILE_KEYS`, as JSON),
bounded before it is parsed (`bodies`), then read by the variant file's own reader, `variant_from_document`:
the same rules, limits and messages as a file given to `diavolo odds`. JSON's `null`, which TOML cannot spell,
is refused by its key. Why: docs/architecture.md, "The explorer".
"""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from diavolo_stats.core.budget import WorkBudget
from diavolo_stats.core.figures import VOCABULARY
from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import MAX_DICE_PER_COLOR, MAX_FACE, Command, Variant
from diavolo_stats.core.variant_file import (
    FILE_KEYS,
    MAX_DIE_FACES,
    TABLE_KEYS,
    variant_document,
    variant_from_document,
    variant_toml,
)
from diavolo_stats.errors import InputError
from diavolo_stats.web.bodies import JSONAnswer, parse_body
from diavolo_stats.web.busy import Heavy

SIMULATION_ROUNDS = 20_000
"""Rounds of the short simulation of `closest` the explorer shows (about 0.1 s)."""
SIMULATION_SEED = 1
"""The seed of that simulation: the same figures on every view."""
EXPLORER_STEPS = 250_000
"""Steps of the exact engine's work one explorer request may take (`core.budget`; 5 to 14 s of one core):
8 colors of 12 dice of 100 faces with every built-in command take 63,396, and a chain refused past the engine's
states (`distributions.MAX_STATES`) is most often refused after 190,000 to 230,000."""


def routes(heavy: Heavy) -> list[Route]:
    """`POST /api/explore`, computing within `heavy`'s bound."""

    async def post_explore(request: Request) -> JSONAnswer:
        variant = read_document(parse_body(await request.body(), "variant"))
        budget = WorkBudget(EXPLORER_STEPS, "the explorer's share of the server")
        return JSONAnswer(await heavy.run_while_asked("the explorer's odds", request, budget, explore_view,
                                                        variant, budget))

    return [Route("/api/explore", post_explore, methods=["POST"])]


def read_document(document: Any) -> Variant:
    """The variant a client's JSON document of a variant file describes; InputError naming the key if not allowed."""
    if not isinstance(document, dict):
        raise InputError(f"must be a variant file as a JSON object of {', '.join(FILE_KEYS)}", field="variant")
    _refuse_nulls(document, "")
    return variant_from_document(document)


def explore_view(variant: Variant, budget: WorkBudget | None = None) -> dict[str, Any]:
    """What the explorer shows of `variant`: `odds` (the JSON document of `diavolo odds`, or None beyond the exact
    limits or `budget`'s steps, with `limit` saying so), `simulation` (of `diavolo simulate`, SIMULATION_ROUNDS
    rounds from SIMULATION_SEED, when closest is on the command die, else None), the command die's faces per
    command (`die`) and the variant file (`file`: its `name` and `text`)."""
    try:
        odds, limit = exact_odds(variant, budget).document(), None
    except InputError as error:  # past distributions.MAX_STATES: the one line names the limit and simulate
        odds, limit = None, error.message
    positional = any(not command.depends_on_values for command in variant.die)
    simulation = simulate(variant, SIMULATION_ROUNDS, SIMULATION_SEED).document() if positional else None
    return {"odds": odds, "limit": limit, "simulation": simulation,
            "die": {str(command): variant.die.count(command) for command in variant.commands},
            "file": {"name": file_name(variant), "text": variant_toml(variant)}}


def editor_start(variant: Variant) -> dict[str, Any]:
    """What the explorer's page starts from: `variant` as a variant file's document, its table model, the figures a
    command of one's own may compare (`distance` is the built-in closest's alone), the built-ins with their words,
    and the limits the controls show."""
    return {"document": variant_document(variant),
            "table": {key: getattr(variant.table, key) for key in TABLE_KEYS},
            "vocabulary": [figure for figure in VOCABULARY if figure != "distance"],
            "builtins": [{"name": c.value, "label": c.label, "rule": c.rule} for c in Command],
            "limits": {"dice_per_color": MAX_DICE_PER_COLOR, "face": MAX_FACE, "die_faces": MAX_DIE_FACES}}


def file_name(variant: Variant) -> str:
    """The name the explorer's download gives the file: the variant's name in lowercase words joined by -."""
    stem = re.sub(r"[^a-z0-9]+", "-", (variant.name or "").lower()).strip("-")[:40].strip("-")
    return f"{stem or 'variant'}.toml"


def _refuse_nulls(value: Any, key: str) -> None:
    if value is None:
        raise InputError("null has no TOML spelling; leave the key out", field=key or "variant")
    if isinstance(value, dict):
        for name, item in value.items():
            _refuse_nulls(item, f"{key}.{name}" if key else name)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_nulls(item, f"{key}[{index}]")
