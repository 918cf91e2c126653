"""Rooms: friends at one table, each on their own phone, the server throwing the dice.

The host opens a room (`POST /api/rooms`); each player joins it by its code and holds a WebSocket
(`/ws/rooms/CODE`) for the whole game. This module keeps the server's rooms and serves each connection, from
its join message to its close, within the bounds stated below; one room and its game are `room_game.Room`.

Why it works as it does: docs/architecture.md, "Rooms".
"""

from __future__ import annotations

import asyncio
import collections
import json
import math
import secrets
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.log import PLAYER_NAME
from diavolo_stats.drill.settings import MAX_TIMEOUT_S, answer_keys
from diavolo_stats.errors import InputError
from diavolo_stats.game.live import RESULT_MS, Table
from diavolo_stats.game.settings import MAX_PLAYERS, GameRules
from diavolo_stats.game.specs import fit_named
from diavolo_stats.validation import Flag, Maybe, Number, OneOf, Record, Text, Whole
from diavolo_stats.web.bodies import JSONAnswer, parse_body
from diavolo_stats.web.bucket import TokenBucket
from diavolo_stats.web.busy import NotStored
from diavolo_stats.web.game_form import GAME_DEFAULTS, GAME_FIELDS, game_form
from diavolo_stats.web.log_queue import LogQueue
from diavolo_stats.web.room_game import Room, RoomRefusal
from diavolo_stats.web.security import room_link
from diavolo_stats.web.sockets import SEND_DEADLINE_S, Outbox
from diavolo_stats.web.templating import templates
from diavolo_stats.web.trials import (
    ANSWER_NAME,
    Moment,
    TrialStore,
    drawn_game,
    drilled_variant,
)

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"
"""Room codes use capital letters but I and O, which read as 1 and 0 across a room."""
CODE_LENGTH = 8
"""24**8, about 1.1e11 codes: with every room open and WRONG_CODES_PER_S, a guesser from one address finds one
in about a thousand years (the manual gives the sums)."""
MAX_ROOMS = 50
MAX_ROOMS_PER_ADDRESS = 3
"""Rooms one address may have open at once (a host opens one; a family two or three)."""
MAX_SOCKETS = 400
"""WebSockets open at once in all rooms, joined or not: below `server.MAX_CONNECTIONS` (500), so the pages and
the API stay answered with every room full."""
JOIN_TIMEOUT_S = 5.0
"""A WebSocket must send its join message within this long of opening, or it is closed."""
ADDRESS_JOINS_PER_SECOND = 10.0
ADDRESS_JOIN_BURST = MAX_SOCKETS
"""Joins per second from one address, after a burst (a club behind one router joins at once)."""
WRONG_CODES_PER_S = 0.05
WRONG_CODE_BURST = 5
"""Connections to a room code that is not open, per second per address, after a burst (typos)."""
MAX_ADDRESSES = 10_000
"""Addresses whose join limits are kept (the longest unseen forgotten first)."""
MAX_MESSAGE_BYTES = 1024
MESSAGES_PER_SECOND = 10.0
MESSAGE_BURST = 20
ROOM_IDLE_S = 1800.0
PING_INTERVAL_S = 1.0
"""How often each seat's link is measured (a ping after its last pong, or after PONG_WAIT_S without one)."""
PONG_WAIT_S = 5.0
FIT_AGE_S = 600.0
"""A player's own model, which flags their implausible claims, is fitted from the log at most this often."""
CLOSING_WRITE_S = 10.0
"""How long a stopping server still tries to write the answers waiting for the log."""
HANDLING_SAMPLES = 100_000
"""The most answer handling times kept (the benchmark's figures)."""

ROOM = Record("room", {**GAME_FIELDS, "feedback_ms": Whole(0, 60_000, unit="ms")},
              defaults={**GAME_DEFAULTS, "feedback_ms": RESULT_MS})
"""A room's game, as the host chooses it: the variant (a preset, or SERVED: the server's variant file), the
readings, the waits before and after a roll and the seconds to answer one (from when it was sent, with its
foreperiod and the round's grace)."""

KEY = Text(max_length=64, pattern=r"[A-Za-z0-9_-]+", described="a key this server gave")
"""A seat's or the host's key, as `secrets.token_urlsafe` writes it."""

JOIN = Record("join", {
    "type": OneOf(("join",)),
    "name": Maybe(PLAYER_NAME),
    "seat_key": Maybe(KEY),
    "host_key": Maybe(KEY),
}, defaults={"name": None, "seat_key": None, "host_key": None})
"""A connection's first message: a name for a new seat, or the key of the seat it had (a reload); the host's
key for the host's screen, which may also only watch (no name)."""

GRAB_MESSAGE = Record("grab", {
    "type": OneOf(("answer",)),
    "round": Whole(1, 10**6),
    "answer": ANSWER_NAME,
    "latency_ms": Number(at_least=0, at_most=1000 * MAX_TIMEOUT_S, unit="ms"),
    "timestamp": Moment(),
})
"""A seat's grab: the round, the answer, and its latency from the painted frame."""

PONG = Record("pong", {"type": OneOf(("pong",)), "id": Whole(0, 2**53)})
"""A page's answer to the server's ping, at once: its link's round trip."""

START = Record("start", {"type": OneOf(("start",)), "again": Flag(json=True)}, defaults={"again": False})
"""The host starts the game (or, once it is over, another one with the same seats)."""



class Rooms:
    """The rooms of this server, their players' answers logged through `store` and timed by `clock` (seconds,
    monotonic)."""

    def __init__(self, store: TrialStore, token: str | None = None, clock: Callable[[], float] = time.monotonic,
                 held: Variant | None = None):
        self.store, self.token, self.clock, self.held = store, token, clock, held
        self.rooms: dict[str, Room] = {}
        self.queue = LogQueue(store)
        self.handling_ms: collections.deque = collections.deque(maxlen=HANDLING_SAMPLES)
        """Per answer, ms from its message received to the broadcast that follows it sent."""
        self._fits: dict[str, tuple[float, Any]] = {}  # by name: when fitted (monotonic s), the model or None
        self._fitting = asyncio.Lock()
        self.storing_ms: collections.deque = collections.deque(maxlen=HANDLING_SAMPLES)
        """Per answer, ms from its message received to its row on disk."""
        self.open_sockets = 0
        self._joins = _PerAddress(ADDRESS_JOINS_PER_SECOND, ADDRESS_JOIN_BURST)
        self._wrong_codes = _PerAddress(WRONG_CODES_PER_S, WRONG_CODE_BURST)
        self.claim: Callable[[str], Awaitable[bool]] | None = None
        """Rooms shared by several processes (`shared_rooms`): claims a new room's code, False when taken."""
        self.relay: Callable[[Any, str], Awaitable[None]] | None = None
        """Rooms shared by several processes: carries a connection to a room this process does not hold."""

    async def fitted(self, names: list[str]) -> dict:
        """The players `names`' own fitted models from the log (`specs.fit_named`), by name, for those it fits:
        one fit at a time, each name fitted again at most every FIT_AGE_S (a large log takes seconds of CPU)."""
        async with self._fitting:
            now = time.monotonic()
            stale = [name for name in names if now - self._fits.get(name, (-math.inf, None))[0] > FIT_AGE_S]
            if stale:
                fitted = await run_in_threadpool(fit_named, self.store.log.path, stale)
                self._fits.update({name: (now, fitted.get(name)) for name in stale})
            return {name: self._fits[name][1] for name in names if self._fits[name][1] is not None}

    async def open(self, body: object, address: str = "") -> Room:
        """A new room (`create`) opened from `address`, its code claimed among the processes sharing rooms when
        they are."""
        while True:
            room = self.create(body, address)
            if self.claim is None or await self.claim(room.code):
                return room
            del self.rooms[room.code]

    def create(self, body: object, address: str = "") -> Room:
        """A new room for the host's choices (`ROOM`), opened from `address`; InputError when MAX_ROOMS are open,
        or MAX_ROOMS_PER_ADDRESS of that address."""
        options = ROOM.check(body)
        self._drop_idle()
        if len(self.rooms) >= MAX_ROOMS:
            raise InputError(f"this server has its {MAX_ROOMS} rooms open; try again once one is done", field="room")
        if sum(room.address == address for room in self.rooms.values()) >= MAX_ROOMS_PER_ADDRESS:
            raise InputError(f"your address has {MAX_ROOMS_PER_ADDRESS} rooms open on this server; play in one, "
                             f"or wait until one nobody is in closes", field="room")
        while True:
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                break
        variant = drilled_variant(options["variant"], self.held)
        table = Table(variant, GameRules(end=options["end"], devils=options["devils"]),
                      options["foreperiod_ms"], np.random.default_rng(), self.queue.put, clock=self.clock)
        room = Room(code=code, host_key=secrets.token_urlsafe(16), options=options, address=address, table=table,
                    queue=self.queue, handling_ms=self.handling_ms, storing_ms=self.storing_ms,
                    drawn=drawn_game(variant) | {"keys": answer_keys(variant, {})})
        self.rooms[code] = room
        return room

    async def close(self) -> None:
        """Stop every room's game and write the answers still waiting (the server is stopping; up to
        CLOSING_WRITE_S, after which what could not be written is said on stderr)."""
        for room in self.rooms.values():
            room.stop()
        lost = await self.queue.flush(CLOSING_WRITE_S)
        if lost:
            print(f"{lost} room answers could not be written to {self.store.log.path} before the server stopped: "
                  f"{self.queue.failure}", file=sys.stderr)

    def _drop_idle(self) -> None:
        now = time.monotonic()
        for code, room in list(self.rooms.items()):
            if not room.sockets and now - room.last_seen > ROOM_IDLE_S:
                room.stop()
                del self.rooms[code]

    async def connect(self, socket: WebSocket) -> None:
        """One connection to a room, from its join message until it closes. Past MAX_SOCKETS open, refused
        before it is accepted (HTTP 403)."""
        if self.open_sockets >= MAX_SOCKETS:
            await socket.close(1013, "the server has all the connections it takes; try again in a moment")
            return
        self.open_sockets += 1
        try:
            await self.serve(socket)
        finally:
            self.open_sockets -= 1

    async def serve(self, socket: WebSocket) -> None:
        """A connection to a room, from its join message until it closes; `connect` bounds this server's own, a
        seat relayed from another process (`shared_rooms`) is bounded there."""
        code = str(socket.path_params["code"]).upper()
        room = self.rooms.get(code)
        if room is None and self.relay is not None:
            await self.relay(socket, code)
            return
        client = getattr(socket, "client", None)  # a relayed seat's (shared_rooms) has none here
        address = client.host if client else ""
        await socket.accept()
        if room is None:
            if not self._wrong_codes.take(address):
                await _close(socket, 1008, f"more than {WRONG_CODES_PER_S:g} wrong room codes a second from your "
                                           "address: wait a minute")
            else:
                await _close(socket, 4404, "no such room: check the code on the host's screen")
            return
        limiter = TokenBucket(MESSAGES_PER_SECOND, MESSAGE_BURST)
        pinger, ponged = None, asyncio.Event()
        handler = asyncio.current_task()
        outbox = Outbox(socket, lambda _, __: handler.cancel())
        try:
            try:
                asked = JOIN.check(await asyncio.wait_for(_receive(socket, limiter), JOIN_TIMEOUT_S))
            except asyncio.TimeoutError:
                raise RoomRefusal(1008, f"send the join message within {JOIN_TIMEOUT_S:g} s") from None
            if not self._joins.take(address):
                raise RoomRefusal(1008, f"more than {ADDRESS_JOINS_PER_SECOND:g} joins a second from your address")
            seats, away = len(room.table.seats), {index for index in range(len(room.table.seats)) if room.away(index)}
            seat, host = room.join(asked, socket)
            room.outboxes[socket] = outbox
            room.last_seen = time.monotonic()
            await room.send(socket, {"type": "joined", "seat": seat, "host": host,
                                      "seat_key": room.keys[seat] if seat is not None else None})
            if seat is not None and (seat >= seats or seat in away):
                await room.broadcast_states()  # a new seat, or one back: everyone sees it
            else:
                await room.send(socket, room.state(seat, host))  # one more screen of a seat present: nothing changed
            if room.table.deal is not None:
                await room.send_roll(seat, socket)  # a reload mid-round: the roll on the table, timed from before
            if seat is not None:
                pinger = asyncio.create_task(self._ping(room, socket, ponged))
            while True:
                message = await _receive(socket, limiter)
                received, at = time.perf_counter(), self.clock()
                kind = message.get("type") if isinstance(message, dict) else None
                seat = room.seat_of(socket)
                try:
                    if kind == "answer":
                        reply = await room.answer(seat, GRAB_MESSAGE.check(message), at, socket, received)
                    elif kind == "pong" and seat is not None:
                        room.table.pong(seat, PONG.check(message)["id"], at)
                        ponged.set()
                        reply = None
                    elif kind == "start" and host:
                        START.check(message)
                        room.start(self.fitted)
                        reply = None
                    else:
                        reply = {"type": "error", "message": "send an answer (or, from the host's screen, start)"}
                except (InputError, NotStored) as error:
                    reply = {"type": "error", "message": str(error)}
                if reply is not None:
                    await room.send(socket, reply)
        except InputError as error:
            await outbox.stop()
            await _close(socket, 1008, str(error))
        except RoomRefusal as refused:
            await outbox.stop()
            await _close(socket, refused.code, refused.reason)
        except WebSocketDisconnect:
            pass
        except asyncio.CancelledError:
            if outbox.dropped is None or outbox.dropped == "closed":
                raise
            handler.uncancel()  # dropped by its outbox: a socket that stopped reading
        finally:
            if pinger is not None:
                pinger.cancel()
            outbox.close()
            if room.leave(socket):
                await room.broadcast_states()

    async def _ping(self, room: Room, socket: WebSocket, ponged: asyncio.Event) -> None:
        """Measure the link of the seat `socket` holds, for as long as it does: a ping, then the next
        PING_INTERVAL_S after its pong (or after PONG_WAIT_S without one)."""
        while (seat := room.seat_of(socket)) is not None:
            ponged.clear()
            await room.send(socket, {"type": "ping", "id": room.table.ping(seat, self.clock())})
            try:
                await asyncio.wait_for(ponged.wait(), PONG_WAIT_S)
            except asyncio.TimeoutError:
                pass
            await asyncio.sleep(PING_INTERVAL_S)


class _PerAddress:
    """A TokenBucket per client address, the MAX_ADDRESSES seen last."""

    def __init__(self, per_second: float, burst: int):
        self.per_second, self.burst = per_second, burst
        self._buckets: collections.OrderedDict[str, TokenBucket] = collections.OrderedDict()

    def take(self, address: str) -> bool:
        bucket = self._buckets.pop(address, None) or TokenBucket(self.per_second, self.burst)
        self._buckets[address] = bucket
        while len(self._buckets) > MAX_ADDRESSES:
            self._buckets.popitem(last=False)
        return bucket.take()


async def _receive(socket: WebSocket, limiter: TokenBucket) -> Any:
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise RoomRefusal(1003, "messages are JSON text")
    data = text.encode("utf-8")
    if len(data) > MAX_MESSAGE_BYTES:
        raise RoomRefusal(1009, f"a message has at most {MAX_MESSAGE_BYTES} bytes")
    if not limiter.take():
        raise RoomRefusal(1008, f"more than {MESSAGES_PER_SECOND:g} messages a second")
    try:
        return parse_body(data, "message")  # as an HTTP body: depth, keys once, numbers' length, Unicode
    except InputError as error:
        raise RoomRefusal(1007, str(error)) from None


async def _close(socket: WebSocket, code: int, reason: str) -> None:
    """Tell `socket` why it is closed and close it, within SEND_DEADLINE_S (a socket that does not read is left
    to its connection's end)."""
    try:
        await asyncio.wait_for(socket.send_text(json.dumps({"type": "closed", "message": reason})), SEND_DEADLINE_S)
        await asyncio.wait_for(socket.close(code, reason[:120]), SEND_DEADLINE_S)
    except Exception:  # already gone, or not reading
        pass


def join_qr(address: str) -> str:
    """A QR code of `address` (a room's join link), as an SVG data URI a page shows as an image."""
    import segno

    return segno.make(address, error="m").svg_data_uri(scale=5, border=2, dark="#1d1d1f")


def routes(rooms: Rooms) -> list:
    """The room page, room creation and the rooms' WebSocket."""
    async def page(request: Request):
        return templates.TemplateResponse(request, "room.html", {
            **game_form(rooms.held),
            "code_length": CODE_LENGTH, "max_players": MAX_PLAYERS, "log": rooms.store.log.path,
            "guest": getattr(request.state, "guest", None), "shared": rooms.relay is not None})

    async def create(request: Request) -> JSONAnswer:
        body = parse_body(await request.body(), "room")
        room = await rooms.open(body, request.client.host if request.client else "")
        # The link the host's screen shows, with the room's pass on a server with a token (never the token,
        # which opens every page); and as a QR code for the others' phones, of the address the host's page
        # was opened at. typed: whether the code typed on /room admits too (no token to hold).
        join = room_link(room.code, rooms.token)
        return JSONAnswer({"code": room.code, "host_key": room.host_key, "join": join, "typed": not rooms.token,
                             "join_qr": join_qr(str(request.base_url).rstrip("/") + join)}, status_code=201)

    return [Route("/room", page), Route("/api/rooms", create, methods=["POST"]),
            WebSocketRoute("/ws/rooms/{code}", rooms.connect)]
