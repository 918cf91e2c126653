"""A room driven through Starlette's test client: open it, join it, read its messages, answer its rolls."""

from __future__ import annotations

from starlette.websockets import WebSocketDisconnect

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from helpers.browser import ORIGIN

WS = ORIGIN.replace("http://", "ws://")
FAST = {"foreperiod_ms": [0, 0], "feedback_ms": 0}


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
