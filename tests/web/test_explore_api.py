"""The explorer's API: an editor's variant file as JSON, read by the variant file's own reader, answered with the
exact odds that `diavolo odds --variant` gives for the file it sends back."""

from __future__ import annotations

import json

import pytest
from helpers.asyncio_run import run
from helpers.cli import run_diavolo
from helpers.variants import BAD_VARIANT_FILES

from diavolo_stats.core.distributions import MAX_STATES
from diavolo_stats.core.odds import exact_odds, fraction_text
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.errors import InputError
from diavolo_stats.validation import MAX_DIGITS
from diavolo_stats.web.explore import SIMULATION_ROUNDS, SIMULATION_SEED

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

EDITED = {
    "name": "Sixes & handicap",
    "colors": ["black", "red", "white"],
    "dice_per_color": 3,
    "faces": [1, 2, 3, 4, 5, 6, 6],
    "dice": {"white": {"count": 4, "faces": [0, 1, 1, 2, 2, 6]}, "red": {"count": 2}},
    "commands": {
        "most-sixes": {"label": "most sixes", "rule": "the most sixes; then the lowest total, then the highest die",
                       "figure": "count:=6", "wins": "highest",
                       "then": [{"figure": "sum", "wins": "lowest"}, "max"]},
        "second-best": {"figure": "nth-highest:2", "wins": "lowest"},
    },
    "command_die": ["highest-total", "most-sixes", "most-sixes", "second-best", "most-odd", "most-sixes"],
}
"""An editor's state with every kind of edit: a name, faces of every die, a color's own count and faces, two
commands of the designer's own (a tie-break chain in both forms, a figure with its parameter, lowest wins) and a
command die with repeats."""


def explore(client, document):
    return client.post("/api/explore", json=document)


def fractions(odds_document: dict) -> dict[str, dict[str, str]]:
    return {command: entry["answer_fraction"] for command, entry in odds_document["commands"].items()}


def test_the_file_sent_back_reads_as_the_same_variant_with_the_same_exact_odds(client, tmp_path):
    answer = explore(client, EDITED)
    assert answer.status_code == 200, answer.text
    view = answer.json()
    assert view["file"]["name"] == "sixes-handicap.toml"
    path = tmp_path / view["file"]["name"]
    path.write_text(view["file"]["text"], encoding="utf-8")
    variant = read_variant(path)
    odds = exact_odds(variant)
    # every command's every answer, as the exact fraction the page shows, and the overall grey rate
    assert fractions(view["odds"]) == {command.value: {answer: fraction_text(p) for answer, p in by_answer.items()}
                                       for command, by_answer in odds.answer_probability.items()}
    assert set(view["odds"]["commands"]) == {"highest-total", "most-sixes", "second-best", "most-odd"}
    assert view["odds"]["overall"]["tie_fraction"] == fraction_text(odds.overall_tie_probability)
    assert view["die"] == {"highest-total": 1, "most-sixes": 3, "second-best": 1, "most-odd": 1}
    # uneven colors: each answers with a chance of its own
    most_sixes = view["odds"]["commands"]["most-sixes"]["answer_fraction"]
    assert len({most_sixes["black"], most_sixes["red"], most_sixes["white"]}) == 3
    # the same file on the command line prints the same document
    printed = run_diavolo("odds", "--variant", str(path), "--format", "json")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == view["odds"]
    assert view["simulation"] is None and view["limit"] is None  # no closest on this die, every face exact


@pytest.mark.parametrize("name", sorted(name for name, text in BAD_VARIANT_FILES.items()
                                        if isinstance(text, str) and name != "variant_syntax"))
def test_a_bad_editor_state_is_refused_with_the_variant_files_own_message(client, tmp_path, name):
    path = tmp_path / f"{name}.toml"
    path.write_text(BAD_VARIANT_FILES[name], encoding="utf-8")
    with pytest.raises(InputError) as refused:
        read_variant(path)
    answer = explore(client, tomllib.loads(BAD_VARIANT_FILES[name]))
    assert answer.status_code == 400
    assert answer.json()["error"] == str(refused.value).removeprefix(f"{path}: ")
    assert answer.json()["field"] == str(refused.value).removeprefix(f"{path}: ").partition(": ")[0]


@pytest.mark.parametrize(("document", "error"), [
    ({"commands": {"big": {"figure": "max", "then": ["sum", None]}}},
     "commands.big.then[1]: null has no TOML spelling; leave the key out"),
    ({"name": None}, "name: null has no TOML spelling"),
    (["highest-total"], "variant: must be a variant file as a JSON object of name, colors, dice_per_color"),
    ({"dice_per_color": int("9" * (MAX_DIGITS + 1))}, "dice_per_color: must be a whole number from 1 to 12, got 999"),
    ({"dice_per_color": 2.0}, "dice_per_color: must be a whole number from 1 to 12, got 2.0"),
])
def test_what_json_can_say_and_a_variant_file_cannot_is_refused_by_its_key(client, document, error):
    answer = explore(client, document)
    assert answer.status_code == 400
    assert answer.json()["error"].startswith(error), answer.json()


def test_a_body_that_is_not_json_is_refused_in_one_line(client):
    answer = client.post("/api/explore", content=b"colors = ['black']", headers={"content-type": "text/plain"})
    assert answer.status_code == 400
    assert answer.json() == {"error": "variant: the body must be one JSON object", "field": "variant"}


def test_beyond_the_exact_limits_the_view_says_so_in_one_line_and_still_gives_the_file(client, tmp_path):
    document = {"dice_per_color": 8, "sides": 100, "command_die": ["big"],
                "commands": {"big": {"figure": "spread", "then": ["sum", "count:odd"]}}}
    view = explore(client, document).json()
    assert view["odds"] is None
    assert f"more than {MAX_STATES:,} states" in view["limit"] and "diavolo simulate" in view["limit"]
    assert "\n" not in view["limit"]
    path = tmp_path / view["file"]["name"]
    path.write_text(view["file"]["text"], encoding="utf-8")
    printed = run_diavolo("odds", "--variant", str(path))
    assert printed.returncode == 2 and view["limit"] in printed.stderr


def test_closest_on_the_die_gets_the_explorers_short_simulation_of_the_same_file(client, tmp_path):
    document = {"dice_per_color": 2, "command_die": ["closest", "highest-total", "highest-total"]}
    view = explore(client, document).json()
    assert view["odds"]["overall"]["tie_probability"] is None  # closest has no exact value
    path = tmp_path / view["file"]["name"]
    path.write_text(view["file"]["text"], encoding="utf-8")
    printed = run_diavolo("simulate", "--variant", str(path), "--rounds", str(SIMULATION_ROUNDS),
                          "--seed", str(SIMULATION_SEED), "--format", "json")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["commands"] == view["simulation"]["commands"]


def test_a_command_named_twice_is_refused_as_a_file_declaring_its_table_twice_is(client, tmp_path):
    twice = b'{"commands": {"big": {"figure": "max"}, "big": {"figure": "sum"}}, "command_die": ["big"]}'
    answer = client.post("/api/explore", content=twice, headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert answer.json() == {"error": 'variant: the key "big" is given twice in one object; each key once',
                             "field": "variant"}
    path = tmp_path / "twice.toml"
    path.write_text('command_die = ["big"]\n[commands.big]\nfigure = "max"\n[commands.big]\nfigure = "sum"\n')
    with pytest.raises(InputError, match="not valid TOML"):
        read_variant(path)


def hostile_document() -> dict:
    """5 KB of editor state that is all work: 8 colors of 12 dice, each with its own 40 faces (nothing the engine
    computes for one color serves another), and 24 commands of the designer's own, each under the exact limits
    (one of them took 4 to 7 s of one core for one color: 8 x 24 of them, 15 to 25 minutes)."""
    colors = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"]
    chains = [["spread", "count:odd"], ["count:odd", "spread"], ["spread", "count:even"], ["count:even", "spread"]]
    commands = {f"cmd{i}": {"figure": "most-alike", "then": chains[i % 4] + [f"count:>={i}"]} for i in range(24)}
    return {"colors": colors, "dice_per_color": 12, "table": {"scatter_mm": 2000},
            "dice": {color: {"faces": list(range(index, index + 40))} for index, color in enumerate(colors)},
            "commands": commands, "command_die": list(commands)}


def test_the_exact_engine_stops_at_the_explorers_budget_and_says_so(client, monkeypatch):
    from diavolo_stats.web import explore as explorer

    monkeypatch.setattr(explorer, "EXPLORER_STEPS", 2_000)  # the same refusal as at 250,000, sooner
    document = hostile_document()
    assert len(json.dumps(document)) < 5_500
    view = explore(client, document).json()
    assert view["odds"] is None and "more than 2,000 steps of work" in view["limit"]
    assert "diavolo odds" in view["limit"] and "\n" not in view["limit"]
    assert explore(client, {"dice_per_color": 4}).json()["odds"] is not None  # the slots are free again


def test_a_heavy_request_whose_client_left_stops_its_work_and_frees_its_slot():
    import asyncio
    import threading
    import time

    from diavolo_stats.core.budget import WorkBudget
    from diavolo_stats.web.busy import Busy, Heavy

    left, started = asyncio.Event(), threading.Event()

    class LeavingRequest:  # a client that stays until the work has started, then goes
        async def is_disconnected(self) -> bool:
            return left.is_set()

    def endless(budget: WorkBudget) -> None:  # work until stopped (a minute at most: a failure, not a hang)
        started.set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            budget.spend(1)

    async def ask(heavy: Heavy) -> None:
        budget = WorkBudget(10**18, "a test's work")
        asking = asyncio.create_task(heavy.run_while_asked("the work", LeavingRequest(), budget, endless, budget))
        await asyncio.to_thread(started.wait, 30)
        left.set()
        with pytest.raises(Busy, match="the client left"):
            await asyncio.wait_for(asking, 30)

    heavy = Heavy(at_once=1)
    run(ask(heavy))
    assert run(heavy.run("more work", sum, [1, 2])) == 3  # its one slot is free again
