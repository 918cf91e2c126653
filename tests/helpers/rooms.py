"""A room driven through Starlette's test client: open it, join it, read its messages, answer its rolls."""

from __future__ import annotations

import contextlib
import json

import anyio
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from helpers.browser import ORIGIN

WS = ORIGIN.replace("http://", "ws://")
FAST = {"foreperiod_ms": [0, 0], "feedback_ms": 0}
MESSAGE_WAIT_S = 30.0
"""The longest a test waits for a message it expects from a room: the app runs in this process, so one not there by
then is not coming, and the test fails naming it instead of hanging until pytest's timeout."""


class AppClient(TestClient):
    """Starlette's test client that closes, as it exits, the WebSocket sessions a test left open.

    A session runs as a task of the client's event-loop thread that ends only once the session is closed, and the
    client's exit waits for every such task: a test that failed before closing its sockets hung in its teardown,
    past pytest's timeout, instead of failing.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sessions = []

    def websocket_connect(self, *args, **kwargs):
        session = super().websocket_connect(*args, **kwargs)
        self.sessions.append(session)
        return session

    def __exit__(self, *args) -> None:
        with contextlib.ExitStack() as closing:
            closing.callback(super().__exit__, *args)
            for session in self.sessions:  # closed last opened first; closing a closed session does nothing
                if hasattr(session, "exit_stack"):  # entered
                    closing.callback(session.__exit__, None, None, None)


def open_room(client, **choices) -> dict:
    response = client.post("/api/rooms", json={**FAST, **choices})
    assert response.status_code == 201, response.text
    return response.json()


def until(socket, *kinds: str) -> dict:
    """The next message of one of `kinds` on `socket` (those before it are read and dropped), waited for at most
    MESSAGE_WAIT_S."""
    passed = []

    async def wanted() -> dict:
        with anyio.fail_after(MESSAGE_WAIT_S):
            while True:
                message = await socket._send_rx.receive()  # the session's queue of the app's messages
                if message["type"] == "websocket.close":
                    raise WebSocketDisconnect(message.get("code", 1000), message.get("reason", ""))
                passed.append(json.loads(message["text"])["type"])
                if passed[-1] in kinds:
                    return json.loads(message["text"])

    try:
        return socket.portal.call(wanted)
    except TimeoutError:
        raise AssertionError(f"no {' or '.join(kinds)} message in {MESSAGE_WAIT_S:g} s; "
                             f"the messages before: {passed}") from None


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


def seated(client, host: str, *names: str, **choices) -> tuple[dict, list]:
    """A room opened with `choices`, `host` seated with its host key and then each of `names`: the room and each
    seat's (socket, joined message), the host's first."""
    room = open_room(client, **choices)
    seats = [join(client, room["code"], host, host_key=room["host_key"])]
    return room, seats + [join(client, room["code"], name) for name in names]


def send_answer(socket, roll: dict, answer: str, latency_ms: float) -> None:
    """Send `answer` to `roll` as the room page does, timed `latency_ms` after the roll's frame."""
    socket.send_json({"type": "answer", "round": roll["round"], "answer": answer, "latency_ms": latency_ms,
                      "timestamp": "2026-12-01T08:00:00Z"})


def right_answer(roll: dict) -> str:
    return resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).answer


def wrong_answer(roll: dict) -> str:
    accepted = resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).accepted
    return next(a for a in ("black", "red", "white", "grey") if a not in accepted)
