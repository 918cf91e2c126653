"""Rooms under load and under hostile clients: a full disk, stalled sockets, sockets that never join, bad
messages, seats held and codes guessed."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math

import pytest
from helpers.browser import ORIGIN
from helpers.rooms import WS, join, open_room, right_answer, seated, send_answer, until, wrong_answer
from starlette.websockets import WebSocket, WebSocketDisconnect

from diavolo_stats.drill.log import load_logs, writer
from diavolo_stats.errors import InputError
from diavolo_stats.game import fairness
from diavolo_stats.web import room_game, rooms, server, sockets
from diavolo_stats.web.bucket import TokenBucket


@pytest.fixture
def client(client, monkeypatch):
    """The app's test client, its answers sent at once (the server takes any latency up to a minute more
    than it saw pass)."""
    monkeypatch.setattr(fairness, "TOLERANCE_MS", 60_000.0)
    return client


def kinds_until(socket, wanted: set[str]) -> dict[str, dict]:
    """Read `socket` until a message of each kind in `wanted` came: the first of each."""
    seen: dict[str, dict] = {}
    while not wanted <= set(seen):
        message = socket.receive_json()
        seen.setdefault(message["type"], message)
    return seen


def test_a_room_whose_disk_is_full_keeps_the_answers_plays_on_and_stores_them_once_it_can(client, log_path,
                                                                                           monkeypatch):
    disk_full = True
    write_synced = writer._write_synced

    def write(descriptor, path, data):
        if disk_full:
            raise InputError(f"cannot save {path} to disk (No space left on device)", field="log")
        write_synced(descriptor, path, data)

    monkeypatch.setattr(writer, "_write_synced", write)
    monkeypatch.setattr(room_game, "UNSAVED_NOTICE_S", 0.05)
    client.app.state.rooms.queue.retry_s = 0.02
    _, [(ann, _), (bea, _)] = seated(client, "Ann", "Bea")
    ann.send_json({"type": "start"})
    roll = kinds_until(ann, {"roll"})["roll"]
    kinds_until(bea, {"roll"})
    for socket, answer, latency in ((ann, right_answer(roll), 400), (bea, wrong_answer(roll), 300)):
        send_answer(socket, roll, answer, latency)
    seen = kinds_until(ann, {"unsaved", "result", "roll"})
    assert "No space left on device" in seen["unsaved"]["message"]
    assert seen["result"]["round"]["number"] == roll["round"] and seen["result"]["round"]["order"] == [1, 0]
    assert seen["roll"]["round"] == roll["round"] + 1  # the game goes on
    assert "stored" not in seen and len(load_logs([log_path])) == 0
    disk_full = False
    assert kinds_until(ann, {"stored"})["stored"]["round"] == roll["round"]
    rows = load_logs([log_path])
    assert sorted(zip(rows["player"], rows["answer"])) == [("Ann", right_answer(roll)), ("Bea", wrong_answer(roll))]
    for socket in (ann, bea):
        socket.__exit__(None, None, None)


def test_a_socket_that_never_reads_is_dropped_its_seat_away_and_the_room_plays_on(client, monkeypatch):
    send_text = WebSocket.send_text

    async def maybe_never(self, text):  # a page whose reader stops at the first roll: nothing sent is taken
        if self.query_params.get("reader") == "never" and '"type": "roll"' in text:
            await asyncio.Event().wait()
        await send_text(self, text)

    monkeypatch.setattr(WebSocket, "send_text", maybe_never)
    monkeypatch.setattr(sockets, "SEND_DEADLINE_S", 0.2)
    room, [(ann, _), (bea, _)] = seated(client, "Ann", "Bea")
    with client.websocket_connect(f"{WS}/ws/rooms/{room['code']}?reader=never", headers={"Origin": ORIGIN}) as cid:
        cid.send_json({"type": "join", "name": "Cid"})
        until(cid, "joined")
        ann.send_json({"type": "start"})
        roll = until(ann, "roll")
        until(bea, "roll")
        while True:  # Cid's page takes no roll: it is dropped, and everyone else is told he is away
            seats = until(ann, "state")["seats"]
            if seats[2]["away"]:
                break
        send_answer(ann, roll, right_answer(roll), 400)
        send_answer(bea, roll, wrong_answer(roll), 300)
        assert until(ann, "result")["round"]["order"] == [1, 0]  # no wait for the dropped seat
    for socket in (ann, bea):
        socket.__exit__(None, None, None)


def test_a_websocket_must_join_in_time_and_all_rooms_leave_connections_for_the_pages(client, monkeypatch):
    assert rooms.MAX_SOCKETS < server.MAX_CONNECTIONS
    monkeypatch.setattr(rooms, "JOIN_TIMEOUT_S", 0.1)
    room = open_room(client)
    with client.websocket_connect(f"{WS}/ws/rooms/{room['code']}", headers={"Origin": ORIGIN}) as silent:
        assert "join message within" in until(silent, "closed")["message"]
    monkeypatch.setattr(rooms, "JOIN_TIMEOUT_S", 60.0)
    monkeypatch.setattr(rooms, "MAX_SOCKETS", 2)
    first = client.websocket_connect(f"{WS}/ws/rooms/{room['code']}", headers={"Origin": ORIGIN}).__enter__()
    second = client.websocket_connect(f"{WS}/ws/rooms/{room['code']}", headers={"Origin": ORIGIN}).__enter__()
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"{WS}/ws/rooms/{room['code']}", headers={"Origin": ORIGIN}):
            pass
    assert client.get("/").status_code == 200 and client.get("/room").status_code == 200
    for socket in (first, second):
        socket.__exit__(None, None, None)


@pytest.mark.parametrize(("message", "said"), [
    ("[" * 500 + "]" * 500, "nested at most"),
    ('{"type": "join", "name": "Ann", "host_key": "cl\\u00e9"}', "host_key"),
    ('{"type": "join", "name": "Ann", "name": "Bea"}', "given twice"),
    ('{"type": "join", "name": "\\ud800"}', "lone surrogate"),
])
def test_a_join_message_passes_the_checks_of_an_http_body(client, message, said):
    room = open_room(client)
    with client.websocket_connect(f"{WS}/ws/rooms/{room['code']}", headers={"Origin": ORIGIN}) as socket:
        socket.send_text(message)
        assert said in until(socket, "closed")["message"]


def test_an_answer_with_a_number_out_of_range_is_refused_and_the_game_goes_on(client):
    _, [(ann, _), (bea, _)] = seated(client, "Ann", "Bea")
    ann.send_json({"type": "start"})
    roll = until(ann, "roll")
    ann.send_text(f'{{"type": "answer", "round": {roll["round"]}, "answer": "grey", "latency_ms": 1{"0" * 400}, '
                  '"timestamp": "2026-12-01T08:00:00Z"}')
    assert "latency_ms" in until(ann, "error")["message"]
    until(bea, "roll")
    for socket, answer, latency in ((ann, right_answer(roll), 400), (bea, wrong_answer(roll), 300)):
        send_answer(socket, roll, answer, latency)
    assert until(bea, "result")["round"]["order"] == [1, 0]
    for socket in (ann, bea):
        socket.__exit__(None, None, None)


def test_one_seat_key_holds_two_connections_and_its_rejoins_push_no_states_to_the_others(client):
    room, [(ann, _), (bea, joined)] = seated(client, "Ann", "Bea")
    again, _ = join(client, room["code"], None, seat_key=joined["seat_key"])  # a reload whose old page is open
    with pytest.raises(WebSocketDisconnect):
        join(client, room["code"], None, seat_key=joined["seat_key"])
    ann.send_json({"type": "ping"})
    before_reply = []
    while (message := ann.receive_json())["type"] != "error":
        before_reply.append(message["type"])
    assert before_reply.count("state") == 2  # Ann sat down, then Bea; Bea's second screen changed nothing
    for socket in (ann, bea, again):
        socket.__exit__(None, None, None)


def test_rooms_are_bounded_per_address_and_codes_cannot_be_guessed_at_the_rate_allowed(client):
    for _ in range(rooms.MAX_ROOMS_PER_ADDRESS):
        open_room(client)
    refused = client.post("/api/rooms", json={})
    assert refused.status_code == 400 and "rooms open" in refused.json()["error"]
    # every room open, a guess every 1 / WRONG_CODES_PER_S s: a thousand years or more to find one
    years = len(rooms.CODE_LETTERS) ** rooms.CODE_LENGTH / rooms.MAX_ROOMS / rooms.WRONG_CODES_PER_S / 3.15e7
    assert years > 1000
    said = []
    for _ in range(rooms.WRONG_CODE_BURST + 1):
        with client.websocket_connect(f"{WS}/ws/rooms/NOSUCHRM", headers={"Origin": ORIGIN}) as socket:
            said.append(until(socket, "closed")["message"])
    assert said[0].startswith("no such room") and "wrong room codes" in said[-1]


def state_once_left(socket, name: str) -> dict:
    """The first room state `socket` is sent in which `name`, present in an earlier one, has no seat present
    (freed, or away)."""
    seen = False
    while True:
        state = until(socket, "state")
        present = any(seat["name"] == name and not seat["away"] for seat in state["seats"])
        if seen and not present:
            return state
        seen = seen or present


def kept(stack: contextlib.ExitStack, socket_and_joined: tuple) -> tuple:
    """A `join`'s socket, closed when `stack` closes if not before (a failed assertion leaves none open)."""
    stack.callback(socket_and_joined[0].__exit__, None, None, None)
    return socket_and_joined


def test_names_that_join_and_leave_a_room_before_its_game_hold_no_seat(client):
    room = open_room(client)
    with contextlib.ExitStack() as stack:
        ann, _ = kept(stack, join(client, room["code"], "Ann", host_key=room["host_key"]))
        for number in range(1, rooms.MAX_PLAYERS):  # the room filled by names that join and drop at once
            ghost, _ = kept(stack, join(client, room["code"], f"Ghost {number}"))
            ghost.__exit__(None, None, None)
            state = state_once_left(ann, f"Ghost {number}")
        assert [seat["name"] for seat in state["seats"]] == ["Ann"]  # each seat freed as its page left
        for number in range(1, rooms.MAX_PLAYERS):  # real players, one of them under a name a ghost had
            _, joined = kept(stack, join(client, room["code"], f"Player {number}" if number > 1 else "Ghost 1"))
            assert joined["seat"] == number


def test_a_seat_freed_before_the_game_moves_the_later_seats_up_and_their_answers_stay_theirs(client, log_path):
    room = open_room(client)
    with contextlib.ExitStack() as stack:
        ann, _ = kept(stack, join(client, room["code"], "Ann", host_key=room["host_key"]))
        bea, bea_joined = kept(stack, join(client, room["code"], "Bea"))
        cid, cid_joined = kept(stack, join(client, room["code"], "Cid"))
        assert cid_joined["seat"] == 2
        bea.__exit__(None, None, None)  # Bea leaves the lobby
        state = state_once_left(cid, "Bea")
        assert [seat["name"] for seat in state["seats"]] == ["Ann", "Cid"] and state["you"] == 1
        reloaded, again = kept(stack, join(client, room["code"], None, seat_key=cid_joined["seat_key"]))
        cid.__exit__(None, None, None)  # Cid's page reloaded: his key moved with his seat
        assert again["seat"] == 1
        # Bea's page comes back with her freed seat's key, and her name: a new seat
        bea, back = kept(stack, join(client, room["code"], "Bea", seat_key=bea_joined["seat_key"]))
        assert back["seat"] == 2 and back["seat_key"] != bea_joined["seat_key"]
        ann.send_json({"type": "start"})
        roll = until(ann, "roll")
        for socket, answer in ((ann, right_answer(roll)), (reloaded, wrong_answer(roll)), (bea, wrong_answer(roll))):
            send_answer(socket, roll, answer, 400)
        assert until(ann, "result")["round"]["number"] == roll["round"]
    rows = load_logs([log_path])
    assert sorted(zip(rows["player"], rows["answer"])) == sorted(
        [("Ann", right_answer(roll)), ("Cid", wrong_answer(roll)), ("Bea", wrong_answer(roll))])


PROBE = {"type": "answer", "round": 1, "answer": "red", "latency_ms": 400, "timestamp": "2026-12-01T08:00:00Z",
         "probe": True}
"""A message the server answers with an error of its own words (`probe: unknown field`), whoever sends it: one
that shows the connection still served, and tells its reply from any other."""

FIRST_MESSAGES = {  # a connection's first message, where the join is due: each closes it with its code
    "binary": (b"\x00join", 1003),
    "over the size": ('{"type": "join", "name": "' + "x" * rooms.MAX_MESSAGE_BYTES + '"}', 1009),
    "not JSON": ("join me", 1007),
    "nested too deep": ("[" * 500 + "]" * 500, 1007),
    "a key twice": ('{"type": "join", "name": "Cid", "name": "Dee"}', 1007),
    "5,000 digits": ('{"type": "join", "name": ' + "7" * 5000 + "}", 1009),
    "a name of 60 digits": ('{"type": "join", "name": ' + "7" * 60 + "}", 1008),
    "null": ("null", 1008),
    "a list": ('[{"type": "join", "name": "Cid"}]', 1008),
    "text": ('"join"', 1008),
    "a number": ("-1", 1008),
    "no type": ('{"name": "Cid"}', 1008),
    "an unknown type": ('{"type": "answer", "round": 1}', 1008),
    "a name of the wrong type": ('{"type": "join", "name": 5}', 1008),
    "a NUL in the name": ('{"type": "join", "name": "C\\u0000d"}', 1008),
    "a name too long": ('{"type": "join", "name": "' + "x" * 101 + '"}', 1008),
    "a name taken": ('{"type": "join", "name": "Ann"}', 1008),
    "an unknown field": ('{"type": "join", "name": "Cid", "admin": true}', 1008),
    "no name and no key": ('{"type": "join"}', 1008),
    "a seat key no seat has": ('{"type": "join", "seat_key": "nosuchkey"}', 1008),
    "a seat key of the wrong kind": ('{"type": "join", "seat_key": "../../etc"}', 1008),
    "a wrong host key": ('{"type": "join", "host_key": "nosuchkey"}', 1008),
    **{constant: (constant, 1007) for constant in ("NaN", "Infinity", "-Infinity")},
    **{f"a name of {constant}": ('{"type": "join", "name": ' + constant + "}", 1007)
       for constant in ("NaN", "Infinity", "-Infinity")},
}
"""Each first message and the code it closes the connection with: 1003 not text, 1009 over MAX_MESSAGE_BYTES,
1007 text no JSON parser takes (`bodies.parse_body`; NaN and Infinity, which Python's reads, are no JSON), 1008
a join not allowed."""

ANSWER = {"type": "answer", "round": 1, "answer": "red", "latency_ms": 400, "timestamp": "2026-12-01T08:00:00Z"}
LATER_MESSAGES = {  # (who sends it: a seat's second screen, or the host's watching one; the message; the outcome)
    "binary": ("seat", b"\x00", 1003),
    "over the size": ("seat", '{"type": "answer", "answer": "' + "x" * rooms.MAX_MESSAGE_BYTES + '"}', 1009),
    "not JSON": ("seat", "{'type': 'answer'}", 1007),
    **{constant: ("seat", constant, 1007) for constant in ("NaN", "Infinity", "-Infinity")},
    **{f"a latency of {name}": ("seat", json.dumps({**ANSWER, "latency_ms": value}), 1007)
       for name, value in (("NaN", math.nan), ("Infinity", math.inf), ("-Infinity", -math.inf))},
    "a NaN in a list": ("seat", '{"type": "answer", "round": [1, NaN]}', 1007),
    "a latency past a float": ("seat", json.dumps(ANSWER).replace('"latency_ms": 400', '"latency_ms": 1e999'), 1007),
    "a number past a float": ("seat", "-1e999", 1007),
    "null": ("seat", "null", "error"),
    "a list": ("seat", json.dumps([ANSWER]), "error"),
    "a number": ("seat", "1e308", "error"),
    "no type": ("seat", json.dumps({k: v for k, v in ANSWER.items() if k != "type"}), "error"),
    "an unknown type": ("seat", '{"type": "cheat", "seat": 0}', "error"),
    "a type of the wrong type": ("seat", '{"type": ["answer"]}', "error"),
    "a second join": ("seat", '{"type": "join", "name": "Cid"}', "error"),
    "a start from a seat": ("seat", '{"type": "start"}', "error"),
    "an answer with nothing": ("seat", '{"type": "answer"}', "error"),
    "an answer to no round on the table": ("seat", json.dumps(ANSWER), "error"),
    "an answer to round 0": ("seat", json.dumps({**ANSWER, "round": 0}), "error"),
    "an answer to a round past 10**6": ("seat", json.dumps({**ANSWER, "round": 10**6 + 1}), "error"),
    "an answer with the round as text": ("seat", json.dumps({**ANSWER, "round": "1"}), "error"),
    "an answer with a bool round": ("seat", json.dumps({**ANSWER, "round": True}), "error"),
    "an answer of no color": ("seat", json.dumps({**ANSWER, "answer": "gold"}), "error"),
    "an answer with a NUL": ("seat", json.dumps({**ANSWER, "answer": "r\x00ed"}), "error"),
    "an answer of the wrong type": ("seat", json.dumps({**ANSWER, "answer": 1}), "error"),
    "a negative latency": ("seat", json.dumps({**ANSWER, "latency_ms": -1}), "error"),
    "a latency of 400 digits": ("seat", json.dumps(ANSWER).replace('"latency_ms": 400', '"latency_ms": 1' + "0" * 400),
                                "error"),
    "a latency past the timeout": ("seat", json.dumps({**ANSWER, "latency_ms": 3_600_001}), "error"),
    "a timestamp of no time": ("seat", json.dumps({**ANSWER, "timestamp": "soon"}), "error"),
    "an answer with an unknown field": ("seat", json.dumps({**ANSWER, "seat": 0}), "error"),
    "a pong with no id": ("seat", '{"type": "pong"}', "error"),
    "a negative pong": ("seat", '{"type": "pong", "id": -1}', "error"),
    "a pong past 2**53": ("seat", json.dumps({"type": "pong", "id": 2**53 + 1}), "error"),
    "a pong with a fraction": ("seat", '{"type": "pong", "id": 1.5}', "error"),
    "a pong with its id as text": ("seat", '{"type": "pong", "id": "1"}', "error"),
    "a pong of no ping": ("seat", '{"type": "pong", "id": 123456789}', "ignored"),
    "a start with again as text": ("host", '{"type": "start", "again": "yes"}', "error"),
    "a start with again as a number": ("host", '{"type": "start", "again": 1}', "error"),
    "a start with an unknown field": ("host", '{"type": "start", "seats": 9}', "error"),
    "a pong from a screen with no seat": ("host", '{"type": "pong", "id": 1}', "error"),
    "an answer from a screen with no seat": ("host", json.dumps(ANSWER), "error"),
}
"""Each message after the join, who sends it, and what the protocol does: `error` (an error message, the connection
served on), `ignored` (nothing said: a pong of a ping never sent), or the code it closes the connection with."""


def _outcome(socket) -> str | int:
    """What the server did with the message just sent on `socket`, PROBE sent after it: `error` (an error, then
    PROBE's), `ignored` (PROBE's error alone), or the code it closed the connection with."""
    socket.send_json(PROBE)
    try:
        first = until(socket, "error", "closed")
        if first["type"] == "closed":
            until(socket, "nothing comes after closed")
    except WebSocketDisconnect as closed:
        return closed.code
    if first["message"] == PROBE_REPLY:
        return "ignored"
    assert until(socket, "error")["message"] == PROBE_REPLY
    return "error"


PROBE_REPLY = "probe: unknown field; allowed: type, round, answer, latency_ms, timestamp"


def _send(socket, message: str | bytes) -> None:
    socket.send_bytes(message) if isinstance(message, bytes) else socket.send_text(message)


@pytest.mark.parametrize(("first", "code"), FIRST_MESSAGES.values(), ids=list(FIRST_MESSAGES))
def test_a_hostile_first_message_closes_its_connection_with_its_code_and_changes_no_room(client, capfd, first, code):
    _hostile_row(client, capfd, None, first, code)


@pytest.mark.parametrize(("sender", "message", "outcome"), LATER_MESSAGES.values(), ids=list(LATER_MESSAGES))
def test_a_hostile_message_after_the_join_is_refused_as_the_protocol_says_and_changes_no_room(client, capfd, sender,
                                                                                              message, outcome):
    _hostile_row(client, capfd, sender, message, outcome)


def _hostile_row(client, capfd, sender: str | None, message: str | bytes, outcome: str | int) -> None:
    """Ann hosts and Bea sits in a room not yet started; `message` comes on a new connection, first (`sender`
    None) or after its join as Bea's second screen (`seat`) or the host's watching one (`host`). The outcome is
    `outcome`; the room, its seats' connections and the log are as they were; the server printed no traceback.
    Each connection sends at most 3 messages, within the burst a new connection may send (MESSAGE_BURST), so no
    row waits on the rate limit's clock."""
    assert 3 <= rooms.MESSAGE_BURST
    room, [(ann, _), (bea, joined)] = seated(client, "Ann", "Bea")
    held = client.app.state.rooms.rooms[room["code"]]
    before = held.state(None, True)
    if sender is None:
        socket = client.websocket_connect(f"{WS}/ws/rooms/{room['code']}", headers={"Origin": ORIGIN}).__enter__()
    elif sender == "seat":
        socket, _ = join(client, room["code"], None, seat_key=joined["seat_key"])
    else:
        socket, _ = join(client, room["code"], None, host_key=room["host_key"])
    _send(socket, message)
    assert _outcome(socket) == outcome
    socket.__exit__(None, None, None)  # the server's side of it ended: the room has let it go
    for seated_socket in (ann, bea):
        seated_socket.send_json(PROBE)
        assert until(seated_socket, "error")["message"] == PROBE_REPLY
    assert held.state(None, True) == before and held.table.referee is None
    log = client.app.state.rooms.store.log.path
    assert not log.exists() or len(load_logs([log])) == 0
    for seated_socket in (ann, bea):
        seated_socket.__exit__(None, None, None)
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_message_with_nan_or_infinity_is_closed_saying_it_is_no_json_as_an_http_body_is_refused(client, constant):
    room, [(ann, _)] = seated(client, "Ann")
    said = f"message: the body must be one JSON object, and {constant} is not a JSON number"
    for sender in (None, "seat"):  # first, where the join is due, and after it
        if sender is None:
            socket = client.websocket_connect(f"{WS}/ws/rooms/{room['code']}", headers={"Origin": ORIGIN}).__enter__()
        else:
            socket, _ = join(client, room["code"], "Cid")
        socket.send_text('{"type": "answer", "latency_ms": [' + constant + "]}")
        assert until(socket, "closed")["message"] == said
        with pytest.raises(WebSocketDisconnect) as closed:
            until(socket, "nothing comes after closed")
        assert closed.value.code == 1007
        socket.__exit__(None, None, None)
    body = client.post("/api/rooms", content=f'{{"feedback_ms": {constant}}}'.encode(),
                       headers={"content-type": "application/json"})
    assert body.status_code == 400 and body.json()["error"] == said.replace("message:", "room:")
    ann.__exit__(None, None, None)


def test_a_connection_past_its_burst_of_messages_is_closed_counted_without_a_clock(client, monkeypatch):
    # The limit's clock stands still: the burst is all a connection may send, however long the test takes.
    monkeypatch.setattr(rooms, "TokenBucket", functools.partial(TokenBucket, clock=lambda: 0.0))
    room, [(ann, _), (bea, joined)] = seated(client, "Ann", "Bea")
    screen, _ = join(client, room["code"], None, seat_key=joined["seat_key"])  # its join took one message
    for _ in range(rooms.MESSAGE_BURST - 1):
        screen.send_json(PROBE)
        assert until(screen, "error")["message"] == PROBE_REPLY
    screen.send_json(PROBE)
    assert until(screen, "closed")["message"] == f"more than {rooms.MESSAGES_PER_SECOND:g} messages a second"
    with pytest.raises(WebSocketDisconnect) as closed:
        until(screen, "nothing comes after closed")
    assert closed.value.code == 1008
    for socket in (screen, ann, bea):
        socket.__exit__(None, None, None)
