"""A token bucket: how fast one client (a drill session, a room's connection) may send.

A bucket holds at most `burst` tokens and gains `rate` a second; every
message takes one, and one that finds none is refused. Where a client is
away long enough, its bucket is full again and may be forgotten.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    """At most `rate` messages a second on average, `burst` at once (times from `clock`, in seconds)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.clock = float(rate), float(burst), clock
        self.tokens, self.when = self.burst, clock()

    def take(self) -> bool:
        """Take a token: whether there was one."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.when) * self.rate)
        self.when = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def refilled(self, now: float) -> bool:
        """Whether the bucket is full again by `now` (its client may be forgotten)."""
        return now - self.when >= self.burst / self.rate
