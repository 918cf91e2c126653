"""Rooms shared by two `diavolo serve` processes through a NATS server, all on loopback: a room's code works on
both, a room is played to its end by seats on both, and a room whose owner is killed mid-round ends in words."""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from types import SimpleNamespace

import httpx2
import pytest
from helpers.asyncio_run import run
from helpers.browser import Server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.web import rooms, shared_rooms
from diavolo_stats.web.app import create_app

pytestmark = pytest.mark.slow

FAST = {"foreperiod_ms": [0, 0], "feedback_ms": 0}
WAIT_S = 30.0


def page_socket(server: Server, code: str):
    """A WebSocket to room `code` through `server`, from the server's own origin as its pages are."""
    origin = server.url.split("?")[0].rstrip("/")
    return connect(f"{origin.replace('http', 'ws')}/ws/rooms/{code}", additional_headers={"Origin": origin},
                   open_timeout=WAIT_S).__enter__()


class Seat:
    """A page's WebSocket to a room through one server process. It answers each ping at once, as room.js does: a
    pong sent only when the test next reads would make the server measure the test's pace as the link's trip, and
    hold honest answers under the human floor."""

    def __init__(self, server: Server, code: str, **join):
        self._listen(page_socket(server, code))
        self.send(**{"type": "join", "name": None, **join})
        self.joined = self.until("joined")

    @classmethod
    def joined_on(cls, socket, joined: dict) -> Seat:
        """The seat of a `socket` whose join was answered `joined` (read by the caller)."""
        seat = cls.__new__(cls)
        seat._listen(socket)
        seat.joined = joined
        return seat

    def _listen(self, socket) -> None:
        self.socket, self._messages = socket, queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for text in self.socket:
                message = json.loads(text)
                if message["type"] == "ping":
                    self.send(type="pong", id=message["id"])
                else:
                    self._messages.put(message)
        except ConnectionClosed:
            pass

    def until(self, *kinds: str) -> dict:
        """The next message of one of `kinds` (those before it are dropped)."""
        while True:
            message = self._messages.get(timeout=WAIT_S)
            if message["type"] in kinds:
                return message

    def send(self, **message) -> None:
        self.socket.send(json.dumps(message))

    def close(self) -> None:
        self.socket.close()


def right_and_wrong(roll: dict) -> tuple[str, str]:
    accepted = resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).accepted
    return accepted[0], next(a for a in ("black", "red", "white", "grey") if a not in accepted)


@pytest.fixture
def servers(nats_server, tmp_path):
    """Two `diavolo serve --nats` processes on loopback, each with its own log, stopped after the test."""
    running = [Server(tmp_path / f"{name}.csv", 0, "--nats", nats_server.url) for name in ("a", "b")]
    yield running
    for server in running:
        server.stop()


def open_room(server: Server) -> dict:
    answer = httpx2.post(f"{server.url.split('?')[0].rstrip('/')}/api/rooms", json=FAST,
                         headers={"Origin": server.url.split("?")[0].rstrip("/")}, timeout=WAIT_S)
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_a_room_opened_on_one_process_is_played_to_its_end_by_seats_on_both(servers, tmp_path):
    a, b = servers
    room = open_room(a)
    ann = Seat(a, room["code"], name="Ann", host_key=room["host_key"])
    bea = Seat(b, room["code"], name="Bea")  # the code works on the other process too
    cid = Seat(b, room["code"], name="Cid")
    ann.send(type="start")
    given: dict[str, list] = {"Ann": [], "Bea": [], "Cid": []}
    while True:
        roll = ann.until("roll", "over")
        if roll["type"] == "over":
            over = roll
            break
        if roll["round"] == 2:  # Cid's page reloads, and comes back through the owner's process
            cid.close()
            cid = Seat(a, room["code"], seat_key=cid.joined["seat_key"])
        right, wrong = right_and_wrong(roll)
        time.sleep(0.2)  # a human's reaction: the server saw this much pass for every seat
        for seat, name, answer in ((ann, "Ann", right), (bea, "Bea", wrong), (cid, "Cid", wrong)):
            if roll["seats_in"].count(("Ann", "Bea", "Cid").index(name)):
                if seat is not ann:
                    assert seat.until("roll")["round"] == roll["round"]
                seat.send(type="answer", round=roll["round"], answer=answer, latency_ms=150,
                          timestamp="2026-12-01T08:00:00Z")
                given[name].append(answer)
        result = ann.until("result")["round"]
        assert result["number"] == roll["round"]
    assert over["winners"] == [0] and over["engine_check"]["mismatches"] == []
    assert all(link is not None and link["trips"] > 0 for link in over["rounds"][-1]["links"])
    rows = load_logs([tmp_path / "a.csv"])  # the owner logs every seat's answers, each once
    assert len((tmp_path / "b.csv").read_text().splitlines()) <= 1  # its header at most: b logged nothing
    for name, answers in given.items():
        assert list(rows[rows["player"] == name]["answer"]) == answers
    for seat in (ann, bea, cid):
        seat.close()


def test_a_room_whose_owner_is_killed_mid_round_ends_in_words_and_keeps_every_acknowledged_answer(servers,
                                                                                                   tmp_path):
    a, b = servers
    room = open_room(a)
    ann = Seat(a, room["code"], name="Ann", host_key=room["host_key"])
    bea = Seat(b, room["code"], name="Bea")
    ann.send(type="start")
    roll = bea.until("roll")
    time.sleep(0.2)
    bea.send(type="answer", round=roll["round"], answer=right_and_wrong(roll)[0], latency_ms=150,
             timestamp="2026-12-01T08:00:00Z")
    assert bea.until("grabbed")["seat"] == 1  # the room is told the grab at once
    assert bea.until("stored")["round"] == roll["round"]  # acknowledged: the row is on the owner's disk
    a.kill()
    assert bea.until("closed")["message"] == shared_rooms.ENDED
    rows = load_logs([tmp_path / "a.csv"])
    assert list(rows["player"]) == ["Bea"] and rows["trial"].tolist() == [1]
    later = page_socket(b, room["code"])  # the code on the surviving process: the room is gone, said in words
    assert json.loads(later.recv(timeout=WAIT_S)) == {"type": "closed", "message": shared_rooms.ENDED}
    later.close()
    for seat in (ann, bea):
        seat.close()


def test_a_nats_restart_pauses_a_relayed_seat_in_words_and_it_takes_its_seat_back_once_nats_is_back(
        servers, nats_server, tmp_path):
    a, b = servers
    room = open_room(a)
    ann = Seat(a, room["code"], name="Ann", host_key=room["host_key"])
    bea = Seat(b, room["code"], name="Bea")
    ann.send(type="start")
    bea.until("roll")
    nats_server.stop()
    assert bea.until("error")["message"] == shared_rooms.LINK_DOWN  # said, then the connection closes
    nats_server.start()
    # The page rejoins every second, as room.js does, told the link is down until it is back: within the outage
    # the room survives (OUTAGE_LIMIT_S), or never.
    deadline = time.monotonic() + shared_rooms.OUTAGE_LIMIT_S
    while True:
        assert time.monotonic() < deadline, "the seat was told the link was down all through the room's outage limit"
        time.sleep(1)
        again = page_socket(b, room["code"])
        again.send(json.dumps({"type": "join", "name": None, "seat_key": bea.joined["seat_key"]}))
        first = json.loads(again.recv(timeout=WAIT_S))
        if first["type"] == "joined":
            break
        assert first == {"type": "error", "message": shared_rooms.LINK_DOWN}
        again.close()
    assert first["seat"] == 1
    back = Seat.joined_on(again, first)
    roll = back.until("roll")  # the round on the table, or the next one: the game went on
    time.sleep(0.2)
    back.send(type="answer", round=roll["round"], answer=right_and_wrong(roll)[0], latency_ms=150,
              timestamp="2026-12-01T08:00:00Z")
    assert back.until("grabbed")["seat"] == 1
    for seat in (ann, bea, back):
        seat.close()


class ToldSocket:
    """A relayed page's socket as a relay holds it: what it was told, and whether it was closed."""

    def __init__(self):
        self.told: list[dict] = []
        self.closed = False

    async def send_text(self, text: str) -> None:
        self.told.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True


async def until(condition, timeout_s: float = WAIT_S) -> None:
    """Return once `condition()` holds (checked every 10 ms); fail past `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the state never came"
        await asyncio.sleep(0.01)


def test_an_owner_whose_code_renewals_hang_still_sends_its_heartbeat(nats_server, monkeypatch):
    monkeypatch.setattr(shared_rooms, "HEARTBEAT_S", 0.05)
    monkeypatch.setattr(shared_rooms, "RENEW_S", 0.0)

    async def scenario():
        owner = shared_rooms.SharedRooms(SimpleNamespace(rooms={"ABCDEFGH": None}), nats_server.url)
        relay = shared_rooms.SharedRooms(SimpleNamespace(rooms={}), nats_server.url)
        renewing = asyncio.Event()

        async def hanging_put(code, value):  # JetStream slow to answer, as under load
            renewing.set()
            await asyncio.Event().wait()

        await relay.start()
        await owner.start()
        owner.kv.put = hanging_put
        await asyncio.wait_for(renewing.wait(), WAIT_S)
        relay.heard.pop(owner.process, None)
        await until(lambda: owner.process in relay.heard)
        first = relay.heard[owner.process]
        await until(lambda: relay.heard[owner.process] > first)  # beats go on while the renewal hangs
        await owner.stop()
        await relay.stop()

    run(scenario())


def test_a_relay_asks_a_silent_owner_before_it_ends_the_room_and_ends_it_once_the_owner_is_gone(nats_server,
                                                                                                 monkeypatch):
    monkeypatch.setattr(shared_rooms, "HEARTBEAT_S", 0.05)
    monkeypatch.setattr(shared_rooms, "OWNER_SILENT_S", 0.5)

    async def scenario():
        owner = shared_rooms.SharedRooms(SimpleNamespace(rooms={}), nats_server.url)
        relay = shared_rooms.SharedRooms(SimpleNamespace(rooms={}), nats_server.url)
        await owner.start()
        await relay.start()
        owner._tasks[0].cancel()  # its heartbeat stops, as when its event loop is too busy to send it
        page = ToldSocket()
        relay.relayed["a page"] = (page, owner.process)
        relay.heard[owner.process] = silent_since = time.monotonic() - 10
        await until(lambda: relay.heard[owner.process] > silent_since)  # it asked, and the owner answered
        assert "a page" in relay.relayed and page.told == [] and not page.closed
        await owner.stop()  # the owner process is gone: nobody answers for it
        await until(lambda: page.closed)
        assert page.told == [{"type": "closed", "message": shared_rooms.ENDED}]
        assert "a page" not in relay.relayed
        await relay.stop()

    run(scenario())


def test_a_seat_relayed_to_its_owner_is_counted_by_the_process_it_reached_not_by_the_owner(log_path):
    async def scenario():
        owner_rooms = create_app(log_path).state.rooms
        owner = shared_rooms.SharedRooms(owner_rooms, "nats://127.0.0.1:1")  # never connected: NATS is faked
        published = []

        async def publish(subject, data):
            published.append(json.loads(data))

        owner.nc = SimpleNamespace(publish=publish)
        room = owner_rooms.create(FAST)
        owner_rooms.open_sockets = rooms.MAX_SOCKETS  # every connection this process itself takes is taken
        replies = []

        async def respond(data):
            replies.append(json.loads(data))

        def request(kind: str, **frame) -> SimpleNamespace:
            return SimpleNamespace(subject=f"diavolo.owner.{owner.process}.{kind}", data=json.dumps(frame).encode(),
                                   respond=respond)

        await owner._to_owner(request("open", code=room.code, conn="bea", relay="diavolo.relay.other"))
        await owner._to_owner(request("msg", conn="bea", text=json.dumps({"type": "join", "name": "Bea"})))
        await until(lambda: any(json.loads(frame.get("text", "{}")).get("type") == "joined" for frame in published)
                    or any("close" in frame for frame in published))
        assert replies == [{"ok": True}]
        assert not [frame for frame in published if "close" in frame]
        assert [seat.name for seat in room.table.seats] == ["Bea"]
        await owner._to_owner(request("close", conn="bea"))
        await until(lambda: "bea" not in owner.remote)

    run(scenario())
