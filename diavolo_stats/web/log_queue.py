"""Answers on their way to the drill log: one writer for the server's tables, in batches, kept while the disk says no.

A table's answers go to the server's `LogQueue`, written in batches (group commit) so that many tables cost a
few fsyncs, not one each; a seat is told its answer is stored once it is on disk. Rows the log cannot take now
wait in order and are tried again; past MAX_WAITING a new answer is refused (`NotStored`). Why:
docs/architecture.md, "Answers on their way to the log".
"""

from __future__ import annotations

import asyncio
import sys
import traceback

from starlette.concurrency import run_in_threadpool

from diavolo_stats.drill.log import TrialRow
from diavolo_stats.web.busy import RETRY_AFTER_S, NotStored
from diavolo_stats.web.trials import TrialStore

MAX_WAITING = 100_000
"""Rows kept at most while the log cannot take them (about 100 MB; a day of ten busy rooms)."""


class LogQueue:
    """The rows of the server's tables on their way to `store`'s log, in the order they were put (see the module
    docstring). Used from the event loop's thread."""

    def __init__(self, store: TrialStore, retry_s: float = RETRY_AFTER_S, max_waiting: int = MAX_WAITING):
        self.store, self.retry_s, self.max_waiting = store, retry_s, max_waiting
        self.failure: str | None = None
        """Why the last write failed (NotStored's message), None once a write succeeds."""
        self._waiting: list[TrialRow] = []
        self._put = 0  # rows put since the start
        self._written = 0  # of those, rows on disk (or dropped as unwritable)
        self._waiters: list[tuple[int, bool, asyncio.Future]] = []  # (place, ends on a failure, future)
        self._writer: asyncio.Task | None = None

    def put(self, row: TrialRow) -> int:
        """Queue `row` for the log: its place in line (for `stored`). NotStored past MAX_WAITING rows waiting."""
        if len(self._waiting) >= self.max_waiting:
            raise NotStored(f"log: the answer was not stored: {self.max_waiting:,} answers are waiting for the log "
                            f"({self.failure})")
        self._waiting.append(row)
        self._put += 1
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())
        return self._put

    @property
    def put_so_far(self) -> int:
        """The place in line of the last row put (0: none yet)."""
        return self._put

    async def stored(self, place: int) -> None:
        """Return once the row at `place` (from `put`) and every row before it are on disk."""
        await self._wait(place, until_failure=False)

    async def stored_or_failing(self, place: int) -> bool:
        """Return once the row at `place` and every row before it are on disk (True), or a write has failed and
        they wait for the next try (False): what a round waits for before its result, so the game goes on."""
        await self._wait(place, until_failure=True)
        return self._written >= place

    async def _wait(self, place: int, until_failure: bool) -> None:
        if self._written < place and not (until_failure and self.failure is not None):
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append((place, until_failure, waiter))
            await waiter

    def _wake(self) -> None:
        """Wake the waiters whose rows are on disk, and on a failure those that wait until one."""
        for place, until_failure, waiter in self._waiters:
            if (place <= self._written or (until_failure and self.failure is not None)) and not waiter.done():
                waiter.set_result(None)
        self._waiters = [entry for entry in self._waiters if not entry[2].done()]

    async def flush(self, timeout_s: float) -> int:
        """Wait up to `timeout_s` for every row put to be on disk (the server is stopping): the rows still waiting."""
        try:
            await asyncio.wait_for(self.stored(self._put), timeout_s)
        except asyncio.TimeoutError:
            pass
        return len(self._waiting)

    async def _write(self) -> None:
        while self._waiting:
            batch = list(self._waiting)
            try:
                await run_in_threadpool(self.store.add_rows, batch)
            except NotStored as error:
                self.failure = str(error)
                self._wake()
                await asyncio.sleep(self.retry_s)
                continue
            except Exception:  # a row the log cannot write at all: the others must not wait behind it
                batch = await self._one_by_one(batch)
            self.failure = None
            del self._waiting[:len(batch)]
            self._written += len(batch)
            self._wake()

    async def _one_by_one(self, batch: list[TrialRow]) -> list[TrialRow]:
        """Write `batch` row by row after a batch failed unexpectedly, leaving out (with its traceback on stderr)
        a row that fails alone; the rows dealt with, up to a row the log cannot take now (NotStored)."""
        for done, row in enumerate(batch):
            try:
                await run_in_threadpool(self.store.add_rows, [row])
            except NotStored:
                return batch[:done]
            except Exception:
                print(f"an answer could not be written to the log and is left out: {row}", file=sys.stderr)
                traceback.print_exc()
        return batch
