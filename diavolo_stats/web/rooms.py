"""Rooms: friends at one table, each on their own phone, the server throwing the dice.

The host creates a room (`POST /api/rooms`) and its screen shows the room's
short code; each player opens the room page on their phone, types the code
and a name, and holds a WebSocket (`/ws/rooms/CODE`, through Starlette on
uvicorn) for the whole game. Every round the server throws the dice and
sends the roll to every seat; each page paints it after the foreperiod and
measures its player's reaction from the frame that painted it (as the
drill does); the server awards the devils in order of those latencies
(`referee.Referee`), once every player still in has answered or the time is
up, and sends everyone the round. Each human answer is written to the drill
log through the drill's gate (`judged_trial`, `interface` game, a session
id per seat and game, the round as `trial`) and writer (fsynced, once).

What a client claims is checked, not trusted: an answer is refused (it
grabs nothing, and is logged as given) when its latency is below
MIN_ANSWER_MS (100 ms: no person answers a visual choice faster;
`drill.MIN_LATENCY_MS`) or longer than the time the server has seen pass
since it sent the roll, less the foreperiod. A seat grabs once: no swapping.

Bounds: MAX_ROOMS rooms, MAX_PLAYERS seats and MAX_SOCKETS_PER_ROOM
connections per room, MAX_MESSAGE_BYTES per message and MESSAGES_PER_SECOND
per connection (after a burst of MESSAGE_BURST); a connection past a bound
is closed. A room nobody is connected to for ROOM_IDLE_S is dropped. A seat
whose connections all closed is marked away, one that let IDLE_ROUNDS rounds
pass unanswered is marked idle, and the round goes on without waiting for
either; a page that reloads sends its seat's key and gets its seat back.
Names are checked as the drill log checks them and sent as data; the pages
put them in as text. A room sees only its own seats and rounds.
"""

from __future__ import annotations

import asyncio
import collections
import json
import secrets
import time
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlencode

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import GREY, Variant
from diavolo_stats.drill.log import NO_ANSWER, PLAYER_NAME
from diavolo_stats.drill.settings import FEEDBACK_MS, FOREPERIOD_MS, TIMEOUT_S, answer_keys
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.errors import InputError
from diavolo_stats.game.engine import START_GEMS
from diavolo_stats.game.referee import Grab, Referee, engine_mismatches
from diavolo_stats.game.settings import DEVILS, MAX_PLAYERS, MIN_PLAYERS, EndRule, EndRuleName, GameRules
from diavolo_stats.validation import Flag, Maybe, Number, OneOf, Record, Text, Whole
from diavolo_stats.web.api import Foreperiod
from diavolo_stats.web.play import GAME_INTERFACE, MIN_ANSWER_MS
from diavolo_stats.web.trials import BROWSER_VARIANTS, Moment, TrialStore

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"
"""Room codes use capital letters but I and O, which read as 1 and 0 across a room."""
CODE_LENGTH = 4
MAX_ROOMS = 50
MAX_SOCKETS_PER_ROOM = 2 * MAX_PLAYERS
"""Connections per room: a seat each, room for reloads whose old connection has not closed yet, the host."""
MAX_MESSAGE_BYTES = 1024
MESSAGES_PER_SECOND = 10.0
MESSAGE_BURST = 20
ROOM_IDLE_S = 1800.0
IDLE_ROUNDS = 2
ANSWER_GRACE_S = 1.0
"""After the answer time is up, how long the server still waits for answers on their way."""
TIMING_SLACK_MS = 25.0
"""A claimed latency may exceed the server's own measure of the time that passed by this much (timer granularity)."""
HANDLING_SAMPLES = 100_000
"""The most answer handling times kept (the benchmark's figures)."""

ROOM = Record("room", {
    "variant": OneOf(BROWSER_VARIANTS),
    "devils": OneOf(DEVILS),
    "end": EndRuleName(),
    "foreperiod_ms": Foreperiod(),
    "feedback_ms": Whole(0, 60_000, unit="ms"),
}, defaults={"variant": "standard", "devils": "rulebook", "end": EndRule.LAST_STANDING,
             "foreperiod_ms": FOREPERIOD_MS, "feedback_ms": max(FEEDBACK_MS, 2500)})
"""A room's game, as the host chooses it: the variant, the readings, and the waits before and after a roll."""

JOIN = Record("join", {
    "type": OneOf(("join",)),
    "name": Maybe(PLAYER_NAME),
    "seat_key": Maybe(Text(max_length=64)),
    "host_key": Maybe(Text(max_length=64)),
}, defaults={"name": None, "seat_key": None, "host_key": None})
"""A connection's first message: a name for a new seat, or the key of the seat it had (a reload); the host's
key for the host's screen, which may also only watch (no name)."""

GRAB_MESSAGE = Record("grab", {
    "type": OneOf(("answer",)),
    "round": Whole(1, 10**6),
    "answer": OneOf((*dict.fromkeys(c for v in BROWSER_VARIANTS for c in Variant.preset(v).colors), GREY)),
    "latency_ms": Number(at_least=0, at_most=1000 * TIMEOUT_S, unit="ms"),
    "timestamp": Moment(),
})
"""A seat's grab: the round, the answer, and its latency from the painted frame."""

START = Record("start", {"type": OneOf(("start",)), "again": Flag(json=True)}, defaults={"again": False})
"""The host starts the game (or, once it is over, another one with the same seats)."""


class RoomRefusal(Exception):
    """A connection broke a bound: it is closed with `code` and the reason."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason


@dataclass
class Seat:
    name: str
    key: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    sockets: set = field(default_factory=set)
    missed: int = 0  # rounds in a row without an answer
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    @property
    def away(self) -> bool:
        return not self.sockets

    @property
    def idle(self) -> bool:
        return self.missed >= IDLE_ROUNDS


@dataclass
class _Answer:
    answer: str
    latency_ms: float
    timestamp: Any
    counted: bool


@dataclass
class Room:
    """One room: its seats, its game and the round on the table."""

    code: str
    host_key: str
    options: dict
    store: TrialStore
    handling_ms: collections.deque
    seats: list[Seat] = field(default_factory=list)
    watchers: set = field(default_factory=set)
    hosts: set = field(default_factory=set)  # the connections that gave the host's key
    referee: Referee | None = None
    task: asyncio.Task | None = None
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    current: dict | None = None  # the roll on the table, as sent
    sent_at: float = 0.0
    answers: dict[int, _Answer] = field(default_factory=dict)
    everyone_answered: asyncio.Event = field(default_factory=asyncio.Event)
    someone_joined: asyncio.Event = field(default_factory=asyncio.Event)
    last_seen: float = field(default_factory=time.monotonic)

    @property
    def variant(self) -> Variant:
        return Variant.preset(self.options["variant"])

    @property
    def sockets(self) -> set:
        return {socket for seat in self.seats for socket in seat.sockets} | self.watchers

    def phase(self) -> str:
        if self.referee is None:
            return "lobby"
        return "over" if self.referee.over else "playing"

    def state(self, seat: int | None, host: bool) -> dict:
        gems = self.referee.gems if self.referee else (START_GEMS,) * len(self.seats)
        return {"type": "state", "code": self.code, "phase": self.phase(), "host": host, "you": seat,
                "seats": [{"name": s.name, "gems": g, "away": s.away, "idle": s.idle}
                          for s, g in zip(self.seats, gems)],
                "game": self.variant.as_dict(), "timeout_s": TIMEOUT_S, "feedback_ms": self.options["feedback_ms"],
                "devils": self.options["devils"], "end": str(self.options["end"])}

    def join(self, asked: dict, socket: WebSocket) -> tuple[int | None, bool]:
        """Seat (or watcher) for a connection's join message: (seat or None, whether it is the host's)."""
        host = asked["host_key"] is not None and secrets.compare_digest(asked["host_key"], self.host_key)
        if len(self.sockets) >= MAX_SOCKETS_PER_ROOM:
            raise RoomRefusal(1008, f"room {self.code} has its {MAX_SOCKETS_PER_ROOM} connections")
        if host:
            self.hosts.add(socket)
        if asked["seat_key"] is not None:
            for index, seat in enumerate(self.seats):
                if secrets.compare_digest(asked["seat_key"], seat.key):
                    seat.sockets.add(socket)
                    self.someone_joined.set()
                    return index, host
        if asked["name"] is None:
            if not host:
                raise RoomRefusal(1008, "name: give a name to take a seat")
            self.watchers.add(socket)
            return None, host
        if self.referee is not None:
            raise RoomRefusal(1008, f"room {self.code} is playing; new players join before the game starts")
        if len(self.seats) >= MAX_PLAYERS:
            raise RoomRefusal(1008, f"room {self.code} has its {MAX_PLAYERS} players")
        if any(seat.name.casefold() == asked["name"].casefold() for seat in self.seats):
            raise RoomRefusal(1008, f"name: someone in room {self.code} is already called that")
        self.seats.append(Seat(asked["name"], sockets={socket}))
        return len(self.seats) - 1, host

    def leave(self, socket: WebSocket) -> None:
        self.watchers.discard(socket)
        self.hosts.discard(socket)
        for seat in self.seats:
            seat.sockets.discard(socket)
        self.last_seen = time.monotonic()
        self._check_answered()

    def start(self) -> None:
        if self.task is not None and not self.task.done():
            raise InputError("the game is already being played", field="start")
        if len(self.seats) < MIN_PLAYERS:
            raise InputError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players", field="start")
        for seat in self.seats:
            seat.session_id, seat.missed = str(uuid.uuid4()), 0
        rules = GameRules(end=self.options["end"], devils=self.options["devils"])
        self.referee = Referee(names=tuple(seat.name for seat in self.seats), colors=self.variant.colors, rules=rules)
        self.task = asyncio.create_task(self._play())

    async def answer(self, seat: int | None, asked: dict) -> dict | None:
        """Take a seat's answer to the round on the table; what to tell that seat, if anything."""
        if seat is None or self.current is None or asked["round"] != self.current["round"]:
            return {"type": "error", "message": f"round {asked['round']} is not on the table"}
        if seat in self.answers:
            return {"type": "error", "message": "you grabbed already: one devil per player, no swapping"}
        if seat not in self.referee.seats_in:
            return {"type": "error", "message": "you are out of this game"}
        seen_ms = 1000 * (time.monotonic() - self.sent_at) - self.current["foreperiod_ms"] + TIMING_SLACK_MS
        latency_ms = round(float(asked["latency_ms"]), 1)
        reason = (f"faster than a person can answer (under {MIN_ANSWER_MS:g} ms): it grabs nothing"
                  if latency_ms < MIN_ANSWER_MS else
                  "slower than the time since the roll was sent: it grabs nothing" if latency_ms > seen_ms else None)
        if asked["answer"] not in (*self.variant.colors, GREY):
            return {"type": "error", "message": f"answer: one of {', '.join((*self.variant.colors, GREY))}"}
        self.answers[seat] = _Answer(asked["answer"], latency_ms, asked["timestamp"], reason is None)
        self.seats[seat].missed = 0
        await self.broadcast({"type": "grabbed", "round": self.current["round"], "seat": seat})
        self._check_answered()
        return {"type": "refused", "round": self.current["round"], "message": reason} if reason else None

    def _expected(self) -> list[int]:
        """The seats the round waits for: still in, connected, not idle."""
        return [s for s in self.referee.seats_in if not self.seats[s].away and not self.seats[s].idle]

    def _check_answered(self) -> None:
        if self.current is not None and all(seat in self.answers for seat in self._expected()):
            self.everyone_answered.set()

    async def broadcast_states(self) -> None:
        """Everyone's view of the room (each their own: their seat, whether they host)."""
        for seat_index, seat in enumerate(self.seats):
            for socket in list(seat.sockets):
                await self._send(socket, self.state(seat_index, socket in self.hosts))
        for socket in list(self.watchers):
            await self._send(socket, self.state(None, True))

    async def _send(self, socket: WebSocket, message: dict) -> None:
        try:
            await socket.send_text(json.dumps(message))
        except Exception:  # a connection that just closed: its own handler marks the seat away
            self.leave(socket)

    async def broadcast(self, message: dict) -> None:
        text = json.dumps(message)
        for socket in list(self.sockets):
            try:
                await socket.send_text(text)
            except Exception:  # a connection that just closed: its own handler marks the seat away
                self.leave(socket)

    async def _play(self) -> None:
        try:
            await self._rounds()
        except Exception as error:  # the server's own fault: said in its log, and to the room
            traceback.print_exc()
            await self.broadcast({"type": "error", "message": f"the game stopped: internal error ({error})"})

    async def _rounds(self) -> None:
        variant = self.variant
        while not self.referee.over:
            while all(self.seats[seat].away for seat in self.referee.seats_in):
                # Nobody still in is connected: the game waits for someone to come back.
                self.someone_joined.clear()
                await self.someone_joined.wait()
            number = len(self.referee.rounds) + 1
            thrown = roll(variant, self.rng)
            resolution = resolve(variant, thrown.command, thrown.dice, thrown.positions)
            shortest, longest = self.options["foreperiod_ms"]
            self.answers, self.everyone_answered = {}, asyncio.Event()
            self.current = {"type": "roll", "round": number, "command": thrown.command.value,
                            "dice": {c: list(v) for c, v in thrown.dice.items()}, "positions": thrown.positions,
                            "foreperiod_ms": int(self.rng.integers(shortest, longest + 1)),
                            "devils_per_color": self.referee.devils(), "seats_in": list(self.referee.seats_in)}
            self.sent_at = time.monotonic()
            await self.broadcast(self.current)
            self._check_answered()  # no one to wait for (every player still in is away or idle)
            try:
                await asyncio.wait_for(self.everyone_answered.wait(),
                                       self.current["foreperiod_ms"] / 1000 + TIMEOUT_S + ANSWER_GRACE_S)
            except asyncio.TimeoutError:
                pass
            answers, sent, self.current = self.answers, self.current, None
            grabs = [Grab(seat, a.answer, a.latency_ms) for seat, a in answers.items() if a.counted]
            record = self.referee.play(thrown.command.value, resolution.accepted, resolution.reason, grabs)
            rows = []  # (seat, answer or None): the answers to log, judged and written off the event loop
            for seat in record.order + tuple(s for s in range(len(self.seats)) if s not in record.order):
                if record.gems_before[seat] == 0:
                    continue
                given = answers.get(seat)
                if given is None:
                    self.seats[seat].missed += 1
                    if self.seats[seat].away:
                        continue  # no one was there to answer
                rows.append((self.seats[seat].name, self.seats[seat].session_id, given))
            await run_in_threadpool(_log_answers, self.store, variant, thrown, number, float(sent["foreperiod_ms"]),
                                    rows)
            answered = {seat: a.answer for seat, a in answers.items()}
            await self.broadcast({"type": "result", "round": record.as_dict(), "answered": answered,
                                  "seats": self.state(None, False)["seats"]})
            await asyncio.sleep(self.options["feedback_ms"] / 1000)
        check = engine_mismatches(self.referee.colors, self.referee.rounds, self.referee.rules)
        await self.broadcast({"type": "over", "winners": list(self.referee.winners),
                              "outcome": self.referee.outcome.label,
                              "rounds": [record.as_dict() for record in self.referee.rounds],
                              "engine_check": {"rounds": len(self.referee.rounds), "mismatches": check},
                              "seats": self.state(None, False)["seats"]})


def _log_answers(store: TrialStore, variant: Variant, thrown: Any, number: int, foreperiod_ms: float,
                 answers: list[tuple[str, str, _Answer | None]]) -> None:
    """Each seat's answer to round `number` (None: none in time) as its drill log row, judged by the drill's gate
    and written by the log's writer."""
    for player, session_id, given in answers:
        store.add(judged_trial(
            variant, thrown.command, thrown.dice, thrown.positions, given.answer if given else NO_ANSWER,
            given.latency_ms if given else None, interface=GAME_INTERFACE, player=player, session_id=session_id,
            trial=number, timestamp=given.timestamp if given else datetime.now(timezone.utc),
            foreperiod_ms=foreperiod_ms))

class Rooms:
    """The rooms of this server, their players' answers logged through `store`."""

    def __init__(self, store: TrialStore, token: str | None = None):
        self.store, self.token = store, token
        self.rooms: dict[str, Room] = {}
        self.handling_ms: collections.deque = collections.deque(maxlen=HANDLING_SAMPLES)
        """Per answer, ms from its message received to the broadcast that follows it sent."""

    def create(self, body: object) -> Room:
        """A new room for the host's choices (`ROOM`); InputError when MAX_ROOMS are open."""
        options = ROOM.check(body)
        self._drop_idle()
        if len(self.rooms) >= MAX_ROOMS:
            raise InputError(f"this server has its {MAX_ROOMS} rooms open; try again once one is done", field="room")
        while True:
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                break
        room = Room(code=code, host_key=secrets.token_urlsafe(16), options=options, store=self.store,
                    handling_ms=self.handling_ms)
        self.rooms[code] = room
        return room

    def close(self) -> None:
        """Stop every room's game (the server is stopping)."""
        for room in self.rooms.values():
            if room.task is not None:
                room.task.cancel()

    def _drop_idle(self) -> None:
        now = time.monotonic()
        for code, room in list(self.rooms.items()):
            if not room.sockets and now - room.last_seen > ROOM_IDLE_S:
                if room.task is not None:
                    room.task.cancel()
                del self.rooms[code]

    async def connect(self, socket: WebSocket) -> None:
        """One connection to a room, from its join message until it closes."""
        room = self.rooms.get(str(socket.path_params["code"]).upper())
        await socket.accept()
        if room is None:
            await socket.close(4404, "no such room: check the code on the host's screen")
            return
        limiter = _Limiter()
        seat = None
        try:
            asked = JOIN.check(await _receive(socket, limiter))
            seat, host = room.join(asked, socket)
            room.last_seen = time.monotonic()
            await socket.send_text(json.dumps({"type": "joined", "seat": seat, "host": host,
                                               "seat_key": room.seats[seat].key if seat is not None else None}))
            await room.broadcast_states()
            if room.current is not None:
                await socket.send_text(json.dumps(room.current))  # a reload mid-round: the roll on the table
            while True:
                message = await _receive(socket, limiter)
                received = time.perf_counter()
                kind = message.get("type") if isinstance(message, dict) else None
                try:
                    if kind == "answer":
                        reply = await room.answer(seat, GRAB_MESSAGE.check(message))
                        room.handling_ms.append(1000 * (time.perf_counter() - received))
                    elif kind == "start" and host:
                        START.check(message)
                        room.start()
                        reply = None
                    else:
                        reply = {"type": "error", "message": "send an answer (or, from the host's screen, start)"}
                except InputError as error:
                    reply = {"type": "error", "message": str(error)}
                if reply is not None:
                    await socket.send_text(json.dumps(reply))
        except InputError as error:
            await _close(socket, 1008, str(error))
        except RoomRefusal as refused:
            await _close(socket, refused.code, refused.reason)
        except WebSocketDisconnect:
            pass
        finally:
            room.leave(socket)
            if seat is not None:
                await room.broadcast_states()


class _Limiter:
    """A connection's messages: at most MESSAGES_PER_SECOND on average, MESSAGE_BURST at once."""

    def __init__(self):
        self.tokens, self.when = float(MESSAGE_BURST), time.monotonic()

    def take(self) -> None:
        now = time.monotonic()
        self.tokens = min(float(MESSAGE_BURST), self.tokens + (now - self.when) * MESSAGES_PER_SECOND)
        self.when = now
        if self.tokens < 1:
            raise RoomRefusal(1008, f"more than {MESSAGES_PER_SECOND:g} messages a second")
        self.tokens -= 1


async def _receive(socket: WebSocket, limiter: _Limiter) -> Any:
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise RoomRefusal(1003, "messages are JSON text")
    if len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
        raise RoomRefusal(1009, f"a message has at most {MAX_MESSAGE_BYTES} bytes")
    limiter.take()
    try:
        return json.loads(text)
    except ValueError:
        raise RoomRefusal(1003, "messages are JSON objects") from None


async def _close(socket: WebSocket, code: int, reason: str) -> None:
    try:
        await socket.send_text(json.dumps({"type": "closed", "message": reason}))
        await socket.close(code, reason[:120])
    except Exception:  # already gone
        pass


def join_qr(address: str) -> str:
    """A QR code of `address` (a room's join link), as an SVG data URI a page shows as an image."""
    import segno

    return segno.make(address, error="m").svg_data_uri(scale=5, border=2, dark="#1d1d1f")


def routes(rooms: Rooms) -> list:
    """The room page, room creation and the rooms' WebSocket."""
    from diavolo_stats.web.pages import templates

    async def page(request: Request):
        keys = answer_keys(Variant(), {})
        return templates.TemplateResponse(request, "room.html", {
            "variants": BROWSER_VARIANTS, "devils": DEVILS, "ends": [end.value for end in EndRule], "keys": keys,
            "code_length": CODE_LENGTH, "max_players": MAX_PLAYERS, "log": rooms.store.log.path})

    async def create(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            raise InputError("the body must be one JSON object", field="room") from None
        room = rooms.create(body)
        # The link the host's screen shows: with the server's token, which every page of it already carries.
        join = f"/room?{urlencode({'code': room.code, **({'token': rooms.token} if rooms.token else {})})}"
        # And as a QR code for the others' phones, of the address the host's page was opened at.
        return JSONResponse({"code": room.code, "host_key": room.host_key, "join": join,
                             "join_qr": join_qr(str(request.base_url).rstrip("/") + join)}, status_code=201)

    return [Route("/room", page), Route("/api/rooms", create, methods=["POST"]),
            WebSocketRoute("/ws/rooms/{code}", rooms.connect)]
