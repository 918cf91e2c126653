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
from diavolo_stats.game import live
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
    monkeypatch.setattr(live, "TIMING_SLACK_MS", 60_000.0)
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


def test_an_answer_under_the_human_floor_is_too_early_and_a_claim_is_held_to_the_time_that_passed(clocked,
                                                                                                   log_path):
    client, clock = clocked
    room = open_room(client, foreperiod_ms=[500, 500])
    host, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    bea, _ = join(client, room["code"], "Bea")
    cid, _ = join(client, room["code"], "Cid")
    host.send_json({"type": "start"})
    roll = until(host, "roll")
    for socket in (bea, cid):
        until(socket, "roll")
    clock.advance(0.5 + 0.4)  # the foreperiod, then 400 ms
    # Ann claims 60 ms: faster than a person, too early, whatever the time that passed
    host.send_json({"type": "answer", "round": roll["round"], "answer": right_answer(roll), "latency_ms": 60,
                    "timestamp": "2026-12-01T08:00:00Z"})
    assert "too early" in until(host, "refused")["message"]
    # Bea claims 9 s when 400 ms passed: she is counted at the 400 ms the server saw
    bea.send_json({"type": "answer", "round": roll["round"], "answer": right_answer(roll), "latency_ms": 9000,
                   "timestamp": "2026-12-01T08:00:00Z"})
    clock.advance(3.0)
    # Cid waits 3 s more and claims 150 ms: he is counted at 3.4 s less the network's allowance, after Bea
    cid.send_json({"type": "answer", "round": roll["round"], "answer": right_answer(roll), "latency_ms": 150,
                   "timestamp": "2026-12-01T08:00:00Z"})
    result = until(host, "result")["round"]
    assert result["held"][0] is None and result["order"] == [1, 2]
    assert [grab["latency_ms"] for grab in result["grabs"]] == [None, 400.0, 3400.0 - live.NETWORK_ALLOWANCE_MS]
    rows = load_logs([log_path]).set_index("player")
    assert bool(rows.loc["Ann", "too_early"]) and rows.loc["Ann", "answer"] == "none"
    assert not bool(rows.loc["Ann", "correct"]) and rows["latency_ms"].isna()["Ann"]
    assert rows.loc["Bea", "latency_ms"] == 400.0 and rows.loc["Cid", "latency_ms"] == 2900.0
    for socket in (host, bea, cid):
        socket.__exit__(None, None, None)


def test_a_seat_that_reloads_after_the_roll_is_timed_from_the_first_send(clocked, log_path):
    client, clock = clocked
    room = open_room(client, foreperiod_ms=[500, 500])
    host, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    bea, bea_joined = join(client, room["code"], "Bea")
    host.send_json({"type": "start"})
    roll = until(bea, "roll")
    clock.advance(2.0)  # Bea peeks at the roll, then reloads her page
    bea.__exit__(None, None, None)
    again, _ = join(client, room["code"], None, seat_key=bea_joined["seat_key"])
    assert until(again, "roll") == roll  # the roll on the table again
    clock.advance(0.5 + 0.07)  # its foreperiod again, then an answer 70 ms after it reappeared
    again.send_json({"type": "answer", "round": roll["round"], "answer": right_answer(roll), "latency_ms": 70,
                     "timestamp": "2026-12-01T08:00:00Z"})
    host.send_json({"type": "answer", "round": roll["round"], "answer": right_answer(roll), "latency_ms": 900,
                    "timestamp": "2026-12-01T08:00:00Z"})
    result = until(host, "result")["round"]
    assert result["grabs"][1]["latency_ms"] == 2070.0 and result["order"] == [0, 1]
    logged = load_logs([log_path]).set_index("player")["latency_ms"]
    assert logged["Bea"] == 2070.0  # from the first send, less the foreperiod: a reload restarts nothing
    for socket in (host, again):
        socket.__exit__(None, None, None)


def test_the_devils_left_go_to_every_seat_after_each_grab(client):
    room = open_room(client)
    sockets = [join(client, room["code"], "Ann", host_key=room["host_key"])[0],
               *(join(client, room["code"], name)[0] for name in ("Bea", "Cid"))]
    sockets[0].send_json({"type": "start"})
    roll = until(sockets[0], "roll")
    assert roll["devils_per_color"] == 2
    for seat, latency_ms in ((0, 400), (1, 300)):  # both grab black: the faster first, whoever came first
        sockets[seat].send_json({"type": "answer", "round": roll["round"], "answer": "black",
                                 "latency_ms": latency_ms, "timestamp": "2026-12-01T08:00:00Z"})
        for socket in sockets:
            grabbed = until(socket, "grabbed")
            assert grabbed["seat"] == seat
            assert grabbed["devils_left"] == {"black": 2 - (seat + 1), "red": 2, "white": 2, "grey": 1}
    sockets[2].send_json({"type": "answer", "round": roll["round"], "answer": "black", "latency_ms": 200,
                          "timestamp": "2026-12-01T08:00:00Z"})
    result = until(sockets[1], "result")
    assert result["devils_left"] == {"black": 0, "red": 2, "white": 2, "grey": 1}
    assert result["round"]["held"] == [None, "black", "black"]  # Cid's 200 ms came last and took one
    for socket in sockets:
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
