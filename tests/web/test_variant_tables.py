"""A variant file the server holds (`diavolo serve --variant FILE`), played on the Play page and in a room: offered
beside the presets, dealt and refereed by its own rules, drawn by its own words and keys, and logged with them."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers.browser import ORIGIN
from helpers.rooms import WS, AppClient, until

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.log.rules import rules_cell
from diavolo_stats.drill.settings import answer_keys
from diavolo_stats.game import fairness, live
from diavolo_stats.game.referee import engine_mismatches
from diavolo_stats.game.settings import GameRules
from diavolo_stats.web.app import create_app
from diavolo_stats.web.trials import SERVED, default_drill_variant, drawn_game, drilled_variant

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"
EXAMPLE_FILES = sorted(path for path in EXAMPLES.glob("*.toml") if path.stem != "broken")
TIMESTAMP = "2026-12-01T08:00:00Z"


class Clock:
    """The time the server's tables take answers by, moved by the test (seconds)."""

    now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=EXAMPLE_FILES, ids=lambda path: path.stem)
def served(request, log_path):
    """The app holding one example file, its Play games and rooms timed by a clock the test moves."""
    variant = read_variant(request.param)
    app = create_app(log_path, variant=variant)
    clock = Clock()
    app.state.games.clock = app.state.rooms.clock = clock
    with AppClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        yield client, variant, clock


def answer_of(variant, roll: dict, right: bool) -> str:
    """The table's call on `roll`, or an answer it does not accept."""
    resolution = resolve(variant, variant.command(roll["command"]), roll["dice"], roll["positions"])
    if right:
        return resolution.answer
    return next(a for a in (*variant.colors, "grey") if a not in resolution.accepted)


def played(variant):
    """The game the server plays for a file it holds: the file's own, or the preset it equals (the box)."""
    return drilled_variant(default_drill_variant(variant), variant)


def logged_rules(log_path: Path) -> set[str]:
    with open(log_path, newline="", encoding="utf-8") as file:
        return {row["variant"] for row in csv.DictReader(file)}


def test_the_play_page_and_the_room_page_offer_the_servers_file_first(served):
    client, variant, _ = served
    # the box written out is the standard game, offered as such
    shown = "standard" if rules_cell(variant) == "standard" else f"{variant.name} (the server&#39;s)"
    for path in ("/play", "/room"):
        page = client.get(path).text
        assert f'<option value="{default_drill_variant(variant)}" selected>{shown}</option>' in page, path
        assert ">kids</option>" in page


def test_a_play_game_of_the_file_is_dealt_drawn_refereed_and_logged_by_its_rules(served, log_path):
    client, variant, clock = served
    response = client.post("/api/play/games", json={"player": "Ann", "variant": default_drill_variant(variant),
                                                    "foreperiod_ms": [0, 0],
                                                    "opponents": ["preset:novice", "preset:average"]})
    assert response.status_code == 201, response.text
    game = response.json()
    assert {key: game[key] for key in ("game", "commands", "pips")} == drawn_game(played(variant))
    assert game["keys"] == answer_keys(variant, {}) and game["colors"] == list(variant.colors)
    assert game["feedback_ms"] == live.RESULT_MS  # the result stays this long before the next roll
    number = 0
    while not game["over"]:
        roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
        assert roll["command"] in game["commands"]
        assert {color: len(values) for color, values in roll["dice"].items()} == dict(zip(variant.colors,
                                                                                         variant.counts))
        assert roll["devils_left"] == {color: roll["devils_per_color"] for color in variant.colors} | {"grey": 1}
        clock.now += 0.9
        number += 1
        reply = client.post(f"/api/play/games/{game['id']}/answer", json={
            "round": roll["round"], "answer": answer_of(variant, roll, number % 3 != 0), "latency_ms": 900,
            "timestamp": TIMESTAMP})
        assert reply.status_code == 200, reply.text
        game = reply.json()["game"]
    assert game["engine_check"] == {"rounds": len(game["rounds"]), "mismatches": []}
    assert logged_rules(log_path) == {rules_cell(variant)}


def test_a_room_of_the_file_plays_a_whole_game_by_its_rules(served, log_path, monkeypatch):
    client, variant, clock = served
    monkeypatch.setattr(fairness, "TOLERANCE_MS", 60_000.0)  # latencies claimed at once are believed
    response = client.post("/api/rooms", json={"variant": default_drill_variant(variant), "foreperiod_ms": [0, 0],
                                               "feedback_ms": 0})
    assert response.status_code == 201, response.text
    room = response.json()
    sockets = []
    for name, keys in (("Ann", {"host_key": room["host_key"]}), ("Bea", {})):
        socket = client.websocket_connect(f"{WS}/ws/rooms/{room['code']}", headers={"Origin": ORIGIN})
        socket.__enter__()
        socket.send_json({"type": "join", "name": name, **keys})
        sockets.append(socket)
    host, bea = sockets
    state = until(host, "state")
    assert {key: state[key] for key in ("game", "commands", "pips")} == drawn_game(played(variant))
    assert state["keys"] == answer_keys(variant, {})
    until(bea, "joined")
    host.send_json({"type": "start"})
    while True:
        message = until(host, "roll", "over")
        if message["type"] == "over":
            break
        assert until(bea, "roll") == message
        # Ann answers right at 400 ms, Bea wrong at 300 ms
        for socket, right, latency_ms in ((host, True, 400), (bea, False, 300)):
            socket.send_json({"type": "answer", "round": message["round"], "answer": answer_of(variant, message, right),
                              "latency_ms": latency_ms, "timestamp": TIMESTAMP})
    assert message["winners"] == [0] and message["engine_check"]["mismatches"] == []
    assert engine_mismatches(variant.colors, message["rounds"], GameRules()) == []
    assert logged_rules(log_path) == {rules_cell(variant)}
    for socket in sockets:
        socket.__exit__(None, None, None)


def test_without_a_file_the_served_game_is_refused_naming_the_variant(client):
    play = client.post("/api/play/games", json={"player": "Ann", "variant": SERVED, "opponents": ["preset:average"]})
    room = client.post("/api/rooms", json={"variant": SERVED})
    for response in (play, room):
        assert response.status_code == 400 and response.json()["field"] == "variant"
        assert "the server holds no variant file" in response.json()["error"]

