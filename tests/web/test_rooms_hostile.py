"""Rooms under load and under hostile clients: a full disk, stalled sockets, sockets that never join, bad
messages, seats held and codes guessed."""

from __future__ import annotations

import pytest
from helpers.rooms import join, open_room, right_answer, wrong_answer

from diavolo_stats.drill.log import load_logs, writer
from diavolo_stats.errors import InputError
from diavolo_stats.game import fairness
from diavolo_stats.web import rooms


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
    monkeypatch.setattr(rooms, "UNSAVED_NOTICE_S", 0.05)
    client.app.state.rooms.queue.retry_s = 0.02
    room = open_room(client)
    ann, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    bea, _ = join(client, room["code"], "Bea")
    ann.send_json({"type": "start"})
    roll = kinds_until(ann, {"roll"})["roll"]
    kinds_until(bea, {"roll"})
    for socket, answer, latency in ((ann, right_answer(roll), 400), (bea, wrong_answer(roll), 300)):
        socket.send_json({"type": "answer", "round": roll["round"], "answer": answer, "latency_ms": latency,
                          "timestamp": "2026-12-01T08:00:00Z"})
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
