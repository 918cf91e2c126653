"""Rooms through Starlette's test client: seats, the round loop over WebSockets, the checks and the bounds."""

from __future__ import annotations

import json

import pytest
from helpers.browser import ORIGIN
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.game.referee import engine_mismatches
from diavolo_stats.game.settings import GameRules
from diavolo_stats.web import rooms
from diavolo_stats.web.app import create_app

WS = ORIGIN.replace("http://", "ws://")
FAST = {"foreperiod_ms": [0, 0], "feedback_ms": 0}


@pytest.fixture
def client(client, monkeypatch):
    """The app's test client, its answers sent at once: the server takes any latency up to a minute more than
    it saw pass (the test that checks that bound puts it back)."""
    monkeypatch.setattr(rooms, "TIMING_SLACK_MS", 60_000.0)
    return client


def open_room(client, **choices) -> dict:
    response = client.post("/api/rooms", json={**FAST, **choices})
    assert response.status_code == 201, response.text
    return response.json()


def until(socket, kind: str) -> dict:
    """The next message of `kind` on `socket` (those before it are read and dropped)."""
    while True:
        message = socket.receive_json()
        if message["type"] == kind:
            return message


def join(client, code: str, name: str | None, **keys):
    socket = client.websocket_connect(f"{WS}/ws/rooms/{code}", headers={"Origin": ORIGIN})
    socket.__enter__()
    try:
        socket.send_json({"type": "join", "name": name, **keys})
        joined = until(socket, "joined")
    except WebSocketDisconnect:
        socket.__exit__(None, None, None)
        raise
    return socket, joined


def right_answer(roll: dict) -> str:
    return resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).answer


def wrong_answer(roll: dict) -> str:
    accepted = resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).accepted
    return next(a for a in ("black", "red", "white", "grey") if a not in accepted)


def test_a_room_plays_a_whole_game_refereed_by_the_library_and_logs_each_answer_once(client, log_path):
    room = open_room(client)
    host, host_joined = join(client, room["code"], "Ann", host_key=room["host_key"])
    bea, _ = join(client, room["code"], "Bea")
    assert host_joined["host"] and host_joined["seat"] == 0
    host.send_json({"type": "start"})
    sent = {}
    while True:
        roll = until(host, "roll")
        # Ann answers right at 400 ms, Bea wrong at 300 ms: Bea loses a gem a round until she is out
        host.send_json({"type": "answer", "round": roll["round"], "answer": right_answer(roll), "latency_ms": 0.4e3,
                        "timestamp": "2026-12-01T08:00:00Z"})
        bea_roll = until(bea, "roll")
        assert bea_roll == roll  # every seat gets the same roll
        bea.send_json({"type": "answer", "round": roll["round"], "answer": wrong_answer(roll), "latency_ms": 300,
                       "timestamp": "2026-12-01T08:00:00Z"})
        sent[roll["round"]] = (right_answer(roll), wrong_answer(roll))
        result = until(host, "result")
        assert result["round"]["number"] == roll["round"]
        assert result["round"]["order"] == [1, 0]  # the faster latency first, whoever's message came first
        if result["round"]["gems_after"][1] == 0:
            break
    over = until(host, "over")
    assert over["winners"] == [0] and len(over["rounds"]) == len(sent) == 5
    assert over["engine_check"] == {"rounds": 5, "mismatches": []}
    assert engine_mismatches(Variant().colors, over["rounds"], GameRules()) == []
    rows = load_logs([log_path])
    assert len(rows) == 2 * len(sent) and set(rows["interface"]) == {"game"}
    for player, index in (("Ann", 0), ("Bea", 1)):
        mine = rows[rows["player"] == player]
        assert list(mine["trial"]) == sorted(sent) and mine["session_id"].nunique() == 1
        assert list(mine["answer"]) == [sent[n][index] for n in sorted(sent)]
    for socket in (host, bea):
        socket.__exit__(None, None, None)


def test_answers_faster_than_a_person_or_slower_than_the_time_that_passed_grab_nothing(client, log_path,
                                                                                      monkeypatch):
    monkeypatch.setattr(rooms, "TIMING_SLACK_MS", 25.0)
    room = open_room(client, foreperiod_ms=[0, 0])
    host, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    bea, _ = join(client, room["code"], "Bea")
    host.send_json({"type": "start"})
    roll = until(host, "roll")
    host.send_json({"type": "answer", "round": roll["round"], "answer": right_answer(roll), "latency_ms": 60,
                    "timestamp": "2026-12-01T08:00:00Z"})
    refused = until(host, "refused")
    assert "100 ms" in refused["message"]
    bea.send_json({"type": "answer", "round": roll["round"], "answer": right_answer(roll), "latency_ms": 9000,
                   "timestamp": "2026-12-01T08:00:00Z"})
    assert "slower than the time" in until(bea, "refused")["message"]
    result = until(host, "result")["round"]
    assert result["held"] == [None, None] and result["gems_after"] == [4, 4]
    assert sorted(load_logs([log_path])["latency_ms"]) == [60.0, 9000.0]  # logged as given
    for socket in (host, bea):
        socket.__exit__(None, None, None)


def test_one_grab_per_player_and_a_reload_takes_its_seat_back(client):
    room = open_room(client)
    host, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    bea, bea_joined = join(client, room["code"], "Bea")
    host.send_json({"type": "start"})
    roll = until(bea, "roll")
    bea.send_json({"type": "answer", "round": roll["round"], "answer": "red", "latency_ms": 300,
                   "timestamp": "2026-12-01T08:00:00Z"})
    bea.send_json({"type": "answer", "round": roll["round"], "answer": "black", "latency_ms": 320,
                   "timestamp": "2026-12-01T08:00:00Z"})
    assert "no swapping" in until(bea, "error")["message"]
    bea.__exit__(None, None, None)  # Bea's phone drops
    state = until(host, "state")
    while len(state["seats"]) < 2 or not state["seats"][1]["away"]:
        state = until(host, "state")
    again, rejoined = join(client, room["code"], None, seat_key=bea_joined["seat_key"])
    assert rejoined["seat"] == 1 and not until(again, "state")["seats"][1]["away"]
    for socket in (host, again):
        socket.__exit__(None, None, None)


def test_rooms_are_isolated_and_names_are_checked(client):
    first, second = open_room(client), open_room(client)
    assert first["code"] != second["code"] and len(first["code"]) == rooms.CODE_LENGTH
    ann, _ = join(client, first["code"], "Ann", host_key=first["host_key"])
    # the other room's host key is no key here: a player without a name cannot watch
    with pytest.raises(WebSocketDisconnect):
        stranger, _ = join(client, first["code"], None, host_key=second["host_key"])
    with pytest.raises(WebSocketDisconnect):
        join(client, first["code"], "ann")  # one name per room
    with pytest.raises(WebSocketDisconnect):
        join(client, first["code"], "tab\there")  # the drill log's name rule
    cid, _ = join(client, second["code"], "Cid", host_key=second["host_key"])
    assert [s["name"] for s in until(cid, "state")["seats"]] == ["Cid"]
    for socket in (ann, cid):
        socket.__exit__(None, None, None)


def test_a_message_too_large_or_too_many_close_the_connection(client):
    room = open_room(client)
    socket, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    socket.send_text(json.dumps({"type": "answer", "pad": "x" * rooms.MAX_MESSAGE_BYTES}))
    assert "at most" in until(socket, "closed")["message"]
    with pytest.raises(WebSocketDisconnect):
        socket.receive_json()
    socket.__exit__(None, None, None)
    socket, _ = join(client, room["code"], "Bea")
    for _ in range(rooms.MESSAGE_BURST + 5):
        socket.send_json({"type": "ping"})
    assert "messages a second" in until(socket, "closed")["message"]
    with pytest.raises(WebSocketDisconnect):
        socket.receive_json()
    socket.__exit__(None, None, None)


def test_a_room_needs_the_servers_own_origin_and_the_token(log_path):
    app = create_app(log_path, token="sesame")
    with TestClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        code = client.post("/api/rooms?token=sesame", json=FAST).json()["code"]
        client.cookies.clear()  # the token's cookie that answer set: each attempt below carries only its own
        for headers, path in (({"Origin": "http://evil.example"}, f"{WS}/ws/rooms/{code}?token=sesame"),
                              ({"Origin": ORIGIN}, f"{WS}/ws/rooms/{code}")):
            socket = client.websocket_connect(path, headers=headers)
            with pytest.raises(WebSocketDisconnect):
                socket.__enter__()  # refused before it is accepted
        with client.websocket_connect(f"{WS}/ws/rooms/{code}?token=sesame", headers={"Origin": ORIGIN}) as socket:
            socket.send_json({"type": "join", "name": "Ann"})
            assert until(socket, "joined")["seat"] == 0


def test_the_number_of_rooms_is_bounded(client, monkeypatch):
    monkeypatch.setattr(rooms, "MAX_ROOMS", 2)
    open_room(client), open_room(client)
    refused = client.post("/api/rooms", json=FAST)
    assert refused.status_code == 400 and refused.json()["field"] == "room"


def test_the_hosts_screen_gets_the_join_link_as_a_qr_code_of_the_address_it_was_opened_at(client, log_path):
    import base64
    import urllib.parse

    room = open_room(client)
    assert room["join"] == f"/room?code={room['code']}"
    assert room["join_qr"] == rooms.join_qr(f"{ORIGIN}{room['join']}")  # the host's address, the room's link
    prefix = "data:image/svg+xml"
    assert room["join_qr"].startswith(prefix)
    svg = room["join_qr"].split(",", 1)[1]
    svg = base64.b64decode(svg).decode() if ";base64" in room["join_qr"].split(",", 1)[0] else urllib.parse.unquote(svg)
    assert svg.lstrip().startswith(("<?xml", "<svg")) and "</svg>" in svg
    # Behind a token (a server on a network), the link and its code carry it.
    with TestClient(create_app(log_path, token="s3cret", hosts=["192.168.1.20"]), base_url="http://192.168.1.20:8000",
                    headers={"Origin": "http://192.168.1.20:8000"}, cookies={"diavolo_token": "s3cret"}) as guarded:
        reply = guarded.post("/api/rooms", json=FAST).json()
    assert reply["join"] == f"/room?code={reply['code']}&token=s3cret"
    assert reply["join_qr"] == rooms.join_qr(f"http://192.168.1.20:8000{reply['join']}")
