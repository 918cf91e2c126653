"""A room socket's outbox: its messages in order, and stopped for good at whatever point of a send it is
stopped."""

from __future__ import annotations

import asyncio

from helpers.asyncio_run import run

from diavolo_stats.web.sockets import Outbox


class Socket:
    """A socket that takes every message at once."""

    def __init__(self):
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)


def test_an_outbox_stopped_at_any_point_of_a_send_sends_no_more_and_its_task_ends():
    async def stopped_after(turns: int) -> tuple[list[str], bool]:
        socket = Socket()
        outbox = Outbox(socket, lambda _, __: None)
        outbox.send("first")
        for _ in range(turns):  # the event loop's turns: each step of the send, one at a time
            await asyncio.sleep(0)
        outbox.close()
        outbox.send("second")
        for _ in range(10):
            await asyncio.sleep(0)
        return socket.sent, outbox._task.done()

    async def main():
        return [await stopped_after(turns) for turns in range(8)]

    for turns, (sent, ended) in enumerate(run(main())):
        assert "second" not in sent and ended, turns  # a stop meeting a finished send ends it too (not 5 s later)
