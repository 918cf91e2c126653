"""One room: its seats, their keys and connections, and the game it plays round by round on a `game.live.Table`.

A room only carries messages to and from its table: it deals each round to every connection, takes the seats'
answers, awards the grabs once final and settles the round; `rooms.Rooms` opens rooms and serves their
connections. Why it works as it does: docs/architecture.md, "Rooms".
"""

from __future__ import annotations

import asyncio
import collections
import secrets
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from starlette.websockets import WebSocket

from diavolo_stats.errors import InputError
from diavolo_stats.game.live import Table
from diavolo_stats.game.settings import MAX_PLAYERS
from diavolo_stats.web.bodies import message_text
from diavolo_stats.web.bucket import TokenBucket
from diavolo_stats.web.log_queue import LogQueue

MAX_SOCKETS_PER_ROOM = 2 * MAX_PLAYERS
"""Connections per room: a seat each, room for reloads whose old connection has not closed yet, the host."""
MAX_SOCKETS_PER_SEAT = 2
"""Connections one seat's key may hold: its page, and a reload whose old connection has not closed yet."""
JOINS_PER_SECOND = 1.0
JOIN_BURST = 10
"""Rejoins per second of one seat's key, after a burst (a phone reloading)."""
IDLE_ROUNDS = 2
UNSAVED_NOTICE_S = 2.0
"""How long an answer may take to reach the disk before its seat is told why it has not yet."""


class RoomRefusal(Exception):
    """A connection broke a bound: it is closed with `code` and the reason."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason


@dataclass
class Room:
    """One room: its table (`live.Table`: seats, game, the round on it), its seats' keys and connections, and
    the task that plays its rounds."""

    code: str
    host_key: str
    options: dict
    address: str  # of the host who opened it
    table: Table
    queue: LogQueue
    handling_ms: collections.deque
    drawn: dict  # what the pages draw the game's rolls with (`trials.drawn_game`) and its answer keys
    storing_ms: collections.deque
    keys: list[str] = field(default_factory=list)  # per seat: the key a reload gives to take the seat back
    connections: list[set] = field(default_factory=list)  # per seat: its open sockets
    watchers: set = field(default_factory=set)
    hosts: set = field(default_factory=set)  # the connections that gave the host's key
    task: asyncio.Task | None = None
    fitting: asyncio.Task | None = None
    fit_done: bool = False  # the people's models asked of the log: a person with none now is not checked
    awarded: dict = field(default_factory=dict)  # the devils left as everyone was last told
    everyone_answered: asyncio.Event = field(default_factory=asyncio.Event)
    grabbed: asyncio.Event = field(default_factory=asyncio.Event)  # set by each answer taken
    someone_joined: asyncio.Event = field(default_factory=asyncio.Event)
    last_seen: float = field(default_factory=time.monotonic)
    acknowledging: set = field(default_factory=set)  # the tasks telling seats their answers are stored
    outboxes: dict = field(default_factory=dict)  # per socket, its Outbox
    seat_joins: list = field(default_factory=list)  # per seat: its key's TokenBucket of joins

    @property
    def sockets(self) -> set:
        return {socket for sockets in self.connections for socket in sockets} | self.watchers

    def away(self, seat: int) -> bool:
        return not self.connections[seat]

    def seat_of(self, socket: WebSocket) -> int | None:
        """The seat `socket` holds now (None: it watches, or left): seats freed before it move it up."""
        return next((seat for seat, sockets in enumerate(self.connections) if socket in sockets), None)

    def idle(self, seat: int) -> bool:
        return self.table.seats[seat].missed >= IDLE_ROUNDS

    def phase(self) -> str:
        if self.table.referee is None:
            return "lobby"
        return "over" if self.table.over else "playing"

    def seat_states(self) -> list[dict]:
        return [{"name": seat.name, "gems": gems, "away": self.away(index), "idle": self.idle(index),
                 "fitted": seat.fitted is not None,
                 "unchecked": self.fit_done and seat.model is None and seat.fitted is None}
                for index, (seat, gems) in enumerate(zip(self.table.seats, self.table.gems()))]

    def state(self, seat: int | None, host: bool) -> dict:
        return {"type": "state", "code": self.code, "phase": self.phase(), "host": host, "you": seat,
                "seats": self.seat_states(), **self.drawn, "timeout_s": self.options["timeout_s"],
                "feedback_ms": self.options["feedback_ms"], "devils": self.options["devils"],
                "end": str(self.options["end"])}

    def join(self, asked: dict, socket: WebSocket) -> tuple[int | None, bool]:
        """Seat (or watcher) for a connection's join message: (seat or None, whether it is the host's)."""
        host = asked["host_key"] is not None and secrets.compare_digest(asked["host_key"], self.host_key)
        if len(self.sockets) >= MAX_SOCKETS_PER_ROOM:
            raise RoomRefusal(1008, f"room {self.code} has its {MAX_SOCKETS_PER_ROOM} connections")
        if host:
            self.hosts.add(socket)
        if asked["seat_key"] is not None:
            for index, key in enumerate(self.keys):
                if secrets.compare_digest(asked["seat_key"], key):
                    if len(self.connections[index]) >= MAX_SOCKETS_PER_SEAT:
                        raise RoomRefusal(1008, f"this seat has its {MAX_SOCKETS_PER_SEAT} connections open")
                    if not self.seat_joins[index].take():
                        raise RoomRefusal(1008, f"this seat rejoined more than {JOINS_PER_SECOND:g} times a second")
                    self.connections[index].add(socket)
                    self.someone_joined.set()
                    return index, host
        if asked["name"] is None:
            if not host:
                raise RoomRefusal(1008, "name: give a name to take a seat")
            self.watchers.add(socket)
            return None, host
        try:
            seat = self.table.join(asked["name"])
        except InputError as error:
            raise RoomRefusal(1008, f"room {self.code}: {error}") from None
        self.keys.append(secrets.token_urlsafe(16))
        self.connections.append({socket})
        self.seat_joins.append(TokenBucket(JOINS_PER_SECOND, JOIN_BURST))
        return seat, host

    def leave(self, socket: WebSocket) -> bool:
        """Take `socket` out of the room; True when its seat left with it (away, or freed before the game)."""
        outbox = self.outboxes.pop(socket, None)
        if outbox is not None:
            outbox.close()
        self.watchers.discard(socket)
        self.hosts.discard(socket)
        seat = self.seat_of(socket)
        self.last_seen = time.monotonic()
        if seat is None:
            return False
        self.connections[seat].discard(socket)
        if not self.away(seat):
            return False
        if self.table.referee is None:
            self.table.leave(seat)
            for per_seat in (self.keys, self.connections, self.seat_joins):
                del per_seat[seat]
        self._check_answered()
        return True

    def start(self, fit: Callable[[list[str]], Awaitable[dict]]) -> None:
        """Start the game; `fit` gives the people's own fitted models by name (`Rooms.fitted`)."""
        if self.task is not None and not self.task.done():
            raise InputError("the game is already being played", field="start")
        self.table.start()
        self.task = asyncio.create_task(self._play())
        self.fitting = asyncio.create_task(self._fit_people(fit))

    def stop(self) -> None:
        """Cancel the room's game and the fit of its people's models, so that a room closed leaves no task."""
        for task in (self.task, self.fitting):
            if task is not None:
                task.cancel()

    async def _fit_people(self, fit: Callable[[list[str]], Awaitable[dict]]) -> None:
        """Each person's own fitted model from the drill log, whose quantile flags an implausible claim; the
        game does not wait for it (a large log takes seconds), and everyone is told who has one. A fit that fails
        is said in the server's log; the game goes on, its people unchecked, as the end of the game says."""
        try:
            fitted = await fit([seat.name for seat in self.table.seats if seat.model is None])
        except Exception:  # a log that cannot be read, or the server's own fault
            traceback.print_exc()
            fitted = {}
        for seat in self.table.seats:
            seat.fitted = fitted.get(seat.name, seat.fitted)
        self.fit_done = True
        if fitted:
            await self.broadcast_states()

    async def answer(self, seat: int | None, asked: dict, at: float, socket: WebSocket,
                     received: float) -> dict | None:
        """Take a seat's answer (received at `at`, the table's clock; `received`, perf_counter's) to the round on
        the table: everyone is told the grab at once, the seat that its answer is stored once it is on disk
        (`LogQueue`); what to tell that seat now, if anything."""
        if seat is None:
            return {"type": "error", "message": "a screen that only watches has no answer to give"}
        taken = self.table.answer(seat, asked["round"], asked["answer"], round(float(asked["latency_ms"]), 1),
                                  asked["timestamp"], at)
        acknowledging = asyncio.create_task(self._acknowledge(socket, asked["round"], self.queue.put_so_far,
                                                              received))
        self.acknowledging.add(acknowledging)
        acknowledging.add_done_callback(self.acknowledging.discard)
        self.awarded = self.table.award(self._expected())
        await self.broadcast({"type": "grabbed", "round": asked["round"], "seat": seat, "devils_left": self.awarded})
        self.handling_ms.append(1000 * (time.perf_counter() - received))
        self.grabbed.set()
        self._check_answered()
        return None if taken.counted else {"type": "refused", "round": asked["round"], "message": taken.reason}

    async def _acknowledge(self, socket: WebSocket, round_number: int, place: int, received: float) -> None:
        """Tell `socket` its answer to `round_number` (the queue's row `place`) is stored once it is on disk;
        meanwhile, once, why the log does not take it yet."""
        told = False
        while True:
            try:
                await asyncio.wait_for(self.queue.stored(place), UNSAVED_NOTICE_S)
                break
            except asyncio.TimeoutError:
                if self.queue.failure is not None and not told:
                    told = True
                    await self.send(socket, {"type": "unsaved", "round": round_number,
                                              "message": f"your answer counts, but is not on disk yet: "
                                                         f"{self.queue.failure}"})
        self.storing_ms.append(1000 * (time.perf_counter() - received))
        await self.send(socket, {"type": "stored", "round": round_number})

    def _expected(self) -> list[int]:
        """The seats the round waits for: still in, connected, not idle."""
        return [seat for seat in self.table.referee.seats_in if not self.away(seat) and not self.idle(seat)]

    def _check_answered(self) -> None:
        if self.table.deal is not None and set(self._expected()) <= self.table.answered():
            self.everyone_answered.set()

    async def broadcast_states(self) -> None:
        """Everyone's view of the room (each their own: their seat, whether they host)."""
        for seat, sockets in enumerate(self.connections):
            for socket in list(sockets):
                await self.send(socket, self.state(seat, socket in self.hosts))
        for socket in list(self.watchers):
            await self.send(socket, self.state(None, True))

    async def send_roll(self, seat: int | None, socket: WebSocket) -> None:
        """The round on the table to one connection of `seat` (None: a watcher), with the devils left as everyone
        was last told (a grab not yet final is not shown); the table notes the send."""
        await self.send(socket, {"type": "roll", **self.table.send(seat), "devils_left": self.awarded})

    async def send(self, socket: WebSocket, message: dict) -> None:
        """Queue `message` for `socket` (`sockets.Outbox`: it never waits on the socket)."""
        outbox = self.outboxes.get(socket)
        if outbox is not None:
            outbox.send(message_text(message))

    async def broadcast(self, message: dict) -> None:
        """`message` to every socket of the room at once (each its own queue)."""
        text = message_text(message)
        for socket in list(self.sockets):
            outbox = self.outboxes.get(socket)
            if outbox is not None:
                outbox.send(text)

    async def _play(self) -> None:
        try:
            await self._rounds()
        except Exception as error:  # the server's own fault: said in its log, and to the room
            traceback.print_exc()
            await self.broadcast({"type": "error", "message": f"the game stopped: internal error ({error})"})

    async def _rounds(self) -> None:
        table = self.table
        while not table.over:
            await self._someone_back()
            await self._deal()
            await self._answers()
            await self._settle()
            await asyncio.sleep(self.options["feedback_ms"] / 1000)
        await self.broadcast({"type": "over", "winners": list(table.referee.winners),
                              "outcome": table.referee.outcome.label, "rounds": table.round_log(),
                              "engine_check": table.engine_check(), "seats": self.seat_states()})

    async def _someone_back(self) -> None:
        """While nobody still in is connected, the game waits for someone to come back."""
        while all(self.away(seat) for seat in self.table.referee.seats_in):
            self.someone_joined.clear()
            await self.someone_joined.wait()

    async def _deal(self) -> None:
        """The next round's roll, to every connection: the table notes every send before the first goes out, so each
        gets the roll as dealt, before any answer to it came."""
        self.table.deal_next()
        self.everyone_answered = asyncio.Event()
        self.awarded = self.table.devils_left()
        sends = [(seat, socket) for seat, sockets in enumerate(self.connections) for socket in list(sockets)]
        sends += [(None, socket) for socket in list(self.watchers)]
        messages = [(socket, {"type": "roll", **self.table.send(seat)}) for seat, socket in sends]
        for socket, message in messages:
            await self.send(socket, message)
        self._check_answered()  # no one to wait for (every player still in is away or idle)

    async def _answers(self) -> None:
        """Until every seat the round waits for answered, or the time is up and the round's grace after it (the
        longest trip of its slowest link). Meanwhile a grab is awarded once final (no seat still to answer
        could be judged faster, `Table.final_at`): everyone is sent the devils left then."""
        loop = asyncio.get_running_loop()
        deadline = (loop.time() + self.table.deal.foreperiod_ms / 1000 + self.options["timeout_s"]
                    + self.table.grace_ms() / 1000)
        while not self.everyone_answered.is_set() and (left_s := deadline - loop.time()) > 0:
            final_at = self.table.final_at(self._expected())
            wait_s = left_s if final_at is None else min(left_s, max(final_at - self.table.clock(), 0.0) + 1e-3)
            self.grabbed.clear()
            waits = {asyncio.ensure_future(self.grabbed.wait()), asyncio.ensure_future(self.everyone_answered.wait())}
            done, pending = await asyncio.wait(waits, timeout=wait_s, return_when=asyncio.FIRST_COMPLETED)
            for waiting in pending:
                waiting.cancel()
            if not done and (left := self.table.award(self._expected())) != self.awarded:
                self.awarded = left
                await self.broadcast({"type": "devils", "round": self.table.number, "devils_left": left})

    async def _settle(self) -> None:
        """Referee the round (the seats away logged nothing), and tell everyone once its rows are on disk (or
        the log said why not)."""
        absent = [seat for seat in range(len(self.table.seats)) if self.away(seat)]
        self.table.settle(absent)
        # The result once the round's answers are on disk, or the log has said why not (the game goes on).
        await self.queue.stored_or_failing(self.queue.put_so_far)
        await self.broadcast({"type": "result", "round": self.table.round_document(),
                              "devils_left": self.table.devils_left(), "seats": self.seat_states()})
