"""Sending to a room's WebSockets: each socket its own bounded queue and deadline, so one that never reads holds
up nobody.

A room hands a message to every socket's `Outbox` at once (`send` never waits); each outbox's task sends in
order. A socket whose queue holds SEND_QUEUE messages, or whose send is not taken within SEND_DEADLINE_S, is
dropped: its outbox calls `on_drop`, which takes it out of its room and ends its connection's handler.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.websockets import WebSocket

SEND_QUEUE = 64
"""Messages waiting for one socket at most (a game sends a few a round)."""
SEND_DEADLINE_S = 5.0
"""How long one message may take to be taken by a socket's connection before the socket is dropped."""


class Outbox:
    """The messages on their way to `socket`, sent in order by a task of its own; `on_drop(outbox, reason)` once,
    when the socket is dropped (queue full, deadline passed, or the connection gone)."""

    def __init__(self, socket: WebSocket, on_drop: Callable[[Outbox, str], None]):
        self.socket, self.on_drop = socket, on_drop
        self.dropped: str | None = None
        """Why the socket was dropped, None while it is not."""
        self._queue: asyncio.Queue[str] = asyncio.Queue(maxsize=SEND_QUEUE)
        self._task = asyncio.create_task(self._send_all())

    def send(self, text: str) -> None:
        """Queue `text` for the socket, at once; past SEND_QUEUE messages waiting, the socket is dropped."""
        if self.dropped is not None:
            return
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop(f"{SEND_QUEUE} messages were waiting for it")

    def drop(self, reason: str) -> None:
        """Stop sending to the socket and tell `on_drop` why (once)."""
        if self.dropped is not None:
            return
        self.dropped = reason
        self._task.cancel()
        self.on_drop(self, reason)

    def close(self) -> None:
        """Stop sending (the connection closed on its own)."""
        self.dropped = self.dropped or "closed"
        self._task.cancel()

    async def stop(self) -> None:
        """Stop sending, and return once no message of this outbox can still reach the socket (a last one, such as
        why it is closed, may then be sent directly)."""
        self.close()
        await asyncio.wait({self._task}, timeout=SEND_DEADLINE_S)

    async def _send_all(self) -> None:
        # Checked after each send, not only by the cancel: asyncio.wait_for before Python 3.12 swallows a cancel
        # that meets a send just taken, which left this task waiting for a message no one sends.
        while self.dropped is None:
            text = await self._queue.get()
            try:
                await asyncio.wait_for(self.socket.send_text(text), SEND_DEADLINE_S)
            except asyncio.TimeoutError:
                self.drop(f"a message was not taken within {SEND_DEADLINE_S:g} s")
                return
            except Exception:  # the connection is gone: its handler leaves the room
                self.drop("the connection closed")
                return
            finally:
                self._queue.task_done()
