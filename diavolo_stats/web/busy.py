"""What the server cannot do now but will later: answered 503 with `Retry-After`, which the pages ask again.

Two things: the heavy requests (those that read the whole log, fit its players, simulate or count a designer's
exact odds), of which at most HEAVY_AT_ONCE run at once (`Heavy`); and a trial the log could not take (a full
disk, another program's lock), which the page keeps and sends again until it is stored.
"""

from __future__ import annotations

import asyncio
import ctypes
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from diavolo_stats.core.budget import Stopped, WorkBudget
from diavolo_stats.drill.log.reader import parse_pool

HEAVY_AT_ONCE = 2
"""Heavy requests running at once (the machine's cores are shared with the drill); more get 503 at once."""
RETRY_AFTER_S = 1
"""The `Retry-After` of a 503: seconds after which asking again may succeed."""
LEFT_POLL_S = 0.25
"""How often a heavy request whose work can be stopped looks whether its client is still there, s."""

T = TypeVar("T")


class Busy(Exception):
    """The server cannot answer this now; asking again after RETRY_AFTER_S may succeed (HTTP 503)."""


class NotStored(Busy):
    """A valid trial the log could not take now (disk full, lock held by another program): the page keeps it
    and sends it again."""


class Heavy:
    """At most `at_once` heavy requests at a time, each run in a worker thread; Busy beyond that."""

    def __init__(self, at_once: int = HEAVY_AT_ONCE):
        self._slots = threading.BoundedSemaphore(at_once)
        self.at_once = at_once

    async def run(self, what: str, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in a worker thread once a slot is free now, else Busy naming `what` is waiting."""
        if not self._slots.acquire(blocking=False):
            raise Busy(f"busy: the server computes at most {self.at_once} summaries, reports, adaptive rolls, "
                       f"simulations, edited variants' odds or fitted players at once; ask for {what} again in a "
                       "moment")
        try:
            return await run_in_threadpool(function, *args)
        finally:
            self._slots.release()
            _return_memory()


    async def run_while_asked(self, what: str, request: Request, budget: WorkBudget, function: Callable[..., T],
                              *args: Any) -> T:
        """As `run`, with `budget` (which `function` spends) stopped when the client that sent `request` leaves:
        the work ends at its next step and the slot is free again (Busy, which nobody reads)."""
        async def watch() -> None:
            while not await request.is_disconnected():
                await asyncio.sleep(LEFT_POLL_S)
            budget.stop()

        watcher = asyncio.create_task(watch())
        try:
            return await self.run(what, function, *args)
        except Stopped:
            raise Busy(f"{what}: stopped, the client left") from None
        finally:
            watcher.cancel()


def _return_memory() -> None:
    """Hand the memory a heavy request freed back to the system (glibc keeps it in its arenas otherwise, and
    Arrow's allocators, the log's parser's (`reader.parse_pool`) and the default that the rest of Arrow's work
    draws on, their own: a burst of reports, or the first adaptive roll's read of every roll's dice and
    positions, would leave the server large for good); glibc's part only where there is glibc."""
    import pyarrow  # loaded already: the log's reader reads through it

    for pool in (pyarrow.default_memory_pool(), parse_pool()):  # the same pool twice where the default is jemalloc's
        pool.release_unused()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _glibc()
