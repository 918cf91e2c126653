"""Running a coroutine to its end from a test, whatever else the test process runs."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """`asyncio.run(coroutine)` on a thread of its own: the browser tests' Playwright keeps an event loop running
    on the main thread for the whole session, where `asyncio.run` refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()
