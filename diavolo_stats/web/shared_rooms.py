"""Rooms shared by many `diavolo serve` processes through a NATS server (opt-in: the serve command's NATS URL).

Each room has one owner, the process it was opened on, which referees it with its one `live.Table` and writes
its answers to its log. A room's code is claimed in NATS's key-value store, so the code works on every process;
a seat whose page reached another process is relayed to the owner, whose own connection handler
(`Rooms.serve`) serves it on a `RemoteSocket`, held to every bound a local seat is. Why: docs/architecture.md,
"Rooms across processes".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from diavolo_stats.errors import InputError
from diavolo_stats.validation import Text

KV_BUCKET = "diavolo_rooms"
CLAIM_TTL_S = 120.0
"""A room's code is forgotten this long after its owner's last renewal (an owner killed leaves it this long)."""
RENEW_S = 30.0
HEARTBEAT_S = 1.0
OWNER_SILENT_S = 4.0
"""A relay that hears no heartbeat from a room's owner this long asks it, and tells its seats the room ended
when it does not answer this long either (a process that stopped has no one to answer: that is at once)."""
OUTAGE_LIMIT_S = 30.0
"""NATS down this long: a relayed page asking to rejoin is told the room ended."""
OPEN_TIMEOUT_S = 3.0
NATS_CONNECT_TIMEOUT_S = 10.0
"""How long `serve` waits for the NATS server at start-up before it gives up, in one line."""
NATS_URL = Text(max_length=2000, described="the URL of a NATS server (nats://host:4222)")
"""What `serve` takes for `nats`, checked before anything listens: blank text names no server."""
MAX_QUEUED = 64
"""Frames from a relayed seat waiting for the owner's room to read them; past it the connection is dropped."""
MAX_FRAME_BYTES = 4096
"""The largest relayed frame read before it is parsed (a room's own bound is smaller; the owner refuses past it)."""
ENDED = "the room ended: the server refereeing it stopped (every answer it acknowledged is logged)"
LINK_DOWN = "the servers' link (NATS) is down: the room waits for it, joining again…"
LINK_LOST = f"the room ended: the servers' link (NATS) was down for more than {OUTAGE_LIMIT_S:g} s"


class RemoteSocket:
    """A seat's connection held by another process, as the owner's room sees it: a WebSocket's interface whose
    frames come and go over NATS."""

    def __init__(self, code: str, send: Callable[[dict], Awaitable[None]]):
        self.path_params = {"code": code}
        self._send = send
        self._frames: asyncio.Queue = asyncio.Queue(MAX_QUEUED)
        self.closed = False

    def feed(self, frame: dict) -> None:
        """A frame from the relay (`websocket.receive` with text, or `websocket.disconnect`)."""
        try:
            self._frames.put_nowait(frame)
        except asyncio.QueueFull:  # a relay flooding faster than the room reads: the seat is dropped
            self._frames = asyncio.Queue(1)
            self._frames.put_nowait({"type": "websocket.disconnect", "code": 1008})

    async def accept(self) -> None:
        pass

    async def receive(self) -> dict:
        return await self._frames.get()

    async def send_text(self, text: str) -> None:
        if self.closed:
            raise WebSocketDisconnect(1000)
        await self._send({"text": text})

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if not self.closed:
            self.closed = True
            await self._send({"close": code, "reason": reason})


class SharedRooms:
    """This process's part in rooms shared through the NATS server at `url`: its rooms' code claims, their
    relayed seats, and the relays of its own seats to rooms other processes own."""

    def __init__(self, rooms, url: str, prefix: str = "diavolo"):
        self.rooms, self.url, self.prefix = rooms, url, prefix
        self.process = uuid.uuid4().hex[:12]
        self.nc = None
        self.kv = None
        self.remote: dict[str, RemoteSocket] = {}  # relayed connections to this process's rooms, by id
        self.relayed: dict[str, tuple[WebSocket, str]] = {}  # this process's sockets to others' rooms: (socket, owner)
        self.heard: dict[str, float] = {}  # owner process -> when its last heartbeat came (monotonic s)
        self.down_since: float | None = None
        self._tasks: list[asyncio.Task] = []
        rooms.claim, rooms.relay = self.claim, self.relay

    # ---------------------------------------------------------------------------------------------- life

    async def start(self) -> None:
        """Connect to NATS and take part; InputError (field `nats`) when it cannot be reached."""
        try:
            import nats
            from nats.js.api import KeyValueConfig
        except ImportError:
            raise InputError("sharing rooms needs the nats extra: pip install 'diavolo_stats[nats]'",
                             field="nats") from None
        try:
            self.nc = nats.NATS()
            await asyncio.wait_for(self.nc.connect(
                self.url, connect_timeout=2, allow_reconnect=True, max_reconnect_attempts=-1, reconnect_time_wait=0.5,
                error_cb=self._error, disconnected_cb=self._disconnected, reconnected_cb=self._reconnected),
                NATS_CONNECT_TIMEOUT_S)
            js = self.nc.jetstream()
            self.kv = await js.create_key_value(KeyValueConfig(bucket=KV_BUCKET, ttl=CLAIM_TTL_S, history=1))
        except Exception as error:
            if self.nc is not None and not self.nc.is_closed:
                with contextlib.suppress(Exception):  # a client that never connected fails to close (nats-py)
                    await self.nc.close()
            reason = str(error) or type(error).__name__.replace("TimeoutError",
                                                                f"no answer in {NATS_CONNECT_TIMEOUT_S:g} s")
            raise InputError(f"cannot reach the NATS server at {self.url} ({reason}); is it running, with JetStream "
                             "(nats-server -js)?", field="nats") from None
        await self.nc.subscribe(f"{self.prefix}.owner.{self.process}.*", cb=self._to_owner)
        await self.nc.subscribe(f"{self.prefix}.relay.{self.process}", cb=self._to_relay)
        await self.nc.subscribe(f"{self.prefix}.alive.*", cb=self._alive)
        self._tasks = [asyncio.create_task(self._beat()), asyncio.create_task(self._renew()),
                       asyncio.create_task(self._watch())]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self.nc is not None and not self.nc.is_closed:
            await self.nc.close()

    async def _disconnected(self) -> None:
        self.down_since = time.monotonic()
        for socket in list(self.remote.values()):  # the owner's side: relayed seats are away until they rejoin
            socket.feed({"type": "websocket.disconnect", "code": 1012})
        for socket, _ in list(self.relayed.values()):  # the relay's side: the page rejoins once the link is back
            await _tell(socket, {"type": "error", "message": LINK_DOWN}, 1012)

    async def _reconnected(self) -> None:
        self.down_since = None
        now = time.monotonic()  # the owners' heartbeats were not heard while the link was down
        self.heard = {owner: now for owner in self.heard}

    async def _error(self, error: Exception) -> None:
        """The client's errors while it reconnects: the disconnected and reconnected callbacks say what matters
        (without this, nats-py prints a traceback each attempt)."""

    # ---------------------------------------------------------------------------------------------- codes

    async def claim(self, code: str) -> bool:
        """Claim `code` for a room of this process: False when another process holds it."""
        from nats.js.errors import KeyWrongLastSequenceError

        try:
            await self.kv.create(code, self.process.encode())
        except KeyWrongLastSequenceError:
            return False
        return True

    async def _owner(self, code: str) -> str | None:
        from nats.js.errors import KeyNotFoundError

        try:
            entry = await self.kv.get(code)
        except KeyNotFoundError:
            return None
        return entry.value.decode() if entry.value else None

    async def _beat(self) -> None:
        """The heartbeat of this process's rooms, on its own: nothing it waits for can silence it."""
        while True:
            try:
                await self.nc.publish(f"{self.prefix}.alive.{self.process}", b"")
            except Exception:  # NATS down: the callbacks say so; the beat goes on once it is back
                pass
            await asyncio.sleep(HEARTBEAT_S)

    async def _renew(self) -> None:
        """The renewal of this process's rooms' codes, every RENEW_S, all at once (one request each)."""
        while True:
            await asyncio.sleep(RENEW_S)
            await asyncio.gather(*(self.kv.put(code, self.process.encode()) for code in list(self.rooms.rooms)),
                                 return_exceptions=True)  # NATS down: renewed next time

    async def _alive(self, message) -> None:
        self.heard[message.subject.rsplit(".", 1)[1]] = time.monotonic()

    async def _watch(self) -> None:
        """Tell each relayed seat whose room's owner went silent, and did not answer when asked, that the room
        ended (a busy owner, or a busy relay that read no heartbeat for a while, is asked before any seat is)."""
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            if self.down_since is not None:
                continue
            now = time.monotonic()
            silent = {owner for _, owner in self.relayed.values() if now - self.heard.get(owner, now) > OWNER_SILENT_S}
            gone = [owner for owner, alive in zip(silent, await asyncio.gather(*map(self._answers, silent)))
                    if not alive]
            for conn, (socket, owner) in list(self.relayed.items()):
                if owner in gone:
                    self.relayed.pop(conn, None)
                    await _tell(socket, {"type": "closed", "message": ENDED}, 4410)

    async def _answers(self, owner: str) -> bool:
        """Whether process `owner` answers a request within OWNER_SILENT_S (one that stopped has no responder)."""
        try:
            await self.nc.request(f"{self.prefix}.owner.{owner}.alive", b"{}", timeout=OWNER_SILENT_S)
        except Exception:
            return False
        self.heard[owner] = time.monotonic()
        return True

    # ---------------------------------------------------------------------------------------------- the owner

    async def _to_owner(self, message) -> None:
        kind = message.subject.rsplit(".", 1)[1]
        frame = json.loads(message.data)
        if kind == "alive":
            await message.respond(b"{}")
        elif kind == "open":
            code, conn, relay = frame["code"], frame["conn"], frame["relay"]
            if code not in self.rooms.rooms:
                await message.respond(json.dumps({"error": "no such room: check the code on the host's screen"})
                                      .encode())
                return
            socket = RemoteSocket(code, lambda out: self._publish(relay, {"conn": conn, **out}))
            self.remote[conn] = socket
            await message.respond(b'{"ok": true}')
            asyncio.create_task(self._serve_remote(conn, socket))
        elif (socket := self.remote.get(frame.get("conn"))) is not None:
            socket.feed({"type": "websocket.receive", "text": frame["text"]} if kind == "msg" else
                        {"type": "websocket.disconnect", "code": 1000})

    async def _serve_remote(self, conn: str, socket: RemoteSocket) -> None:
        try:
            await self.rooms.serve(socket)  # its connection is counted by the process it reached
        finally:
            self.remote.pop(conn, None)
            await socket.close()

    async def _publish(self, subject: str, payload: dict) -> None:
        try:
            await self.nc.publish(subject, json.dumps(payload).encode())
        except Exception:  # NATS down: the relay's side tells its page
            raise WebSocketDisconnect(1012) from None

    # ---------------------------------------------------------------------------------------------- the relay

    async def relay(self, socket: WebSocket, code: str) -> None:
        """Carry `socket` (a page on this process) to room `code`, owned by another process, until either ends."""
        await socket.accept()
        if self.down_since is not None:
            lost = time.monotonic() - self.down_since > OUTAGE_LIMIT_S
            await _tell(socket, {"type": "closed" if lost else "error", "message": LINK_LOST if lost else LINK_DOWN},
                        4410 if lost else 1013)
            return
        owner = await self._owner(code)
        if owner is None:
            await _tell(socket, {"type": "closed", "message": "no such room: check the code on the host's screen"},
                        4404)
            return
        conn = uuid.uuid4().hex
        owner_subject = f"{self.prefix}.owner.{owner}"
        try:
            reply = json.loads((await self.nc.request(f"{owner_subject}.open", json.dumps(
                {"code": code, "conn": conn, "relay": f"{self.prefix}.relay.{self.process}"}).encode(),
                timeout=OPEN_TIMEOUT_S)).data)
        except Exception:  # no owner answering: it stopped
            reply = {"error": ENDED}
        if "error" in reply:
            await _tell(socket, {"type": "closed", "message": reply["error"]}, 4404)
            return
        self.relayed[conn] = (socket, owner)
        self.heard[owner] = time.monotonic()  # it just answered
        try:
            while conn in self.relayed:
                frame = await socket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                text = frame.get("text")
                if text is None or len(text) > MAX_FRAME_BYTES:  # the owner's room refuses smaller ones
                    await _tell(socket, {"type": "closed", "message": "messages are JSON text of at most "
                                                                      f"{MAX_FRAME_BYTES} bytes"}, 1009)
                    break
                await self.nc.publish(f"{owner_subject}.msg", json.dumps({"conn": conn, "text": text}).encode())
        except Exception:  # the page or NATS went away
            pass
        finally:
            if self.relayed.pop(conn, None) is not None:
                try:
                    await self.nc.publish(f"{owner_subject}.close", json.dumps({"conn": conn}).encode())
                except Exception:
                    pass

    async def _to_relay(self, message) -> None:
        frame = json.loads(message.data)
        socket, _ = self.relayed.get(frame["conn"], (None, None))
        if socket is None:
            return
        try:
            if "text" in frame:
                await socket.send_text(frame["text"])
            else:
                self.relayed.pop(frame["conn"], None)
                await socket.close(frame["close"], frame["reason"][:120])
        except Exception:  # the page went away: its own loop ends the relay
            pass


async def _tell(socket: Any, message: dict, code: int) -> None:
    try:
        await socket.send_text(json.dumps(message))
        await socket.close(code, message["message"][:120])
    except Exception:  # already gone
        pass
