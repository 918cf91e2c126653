"""Fair reaction races over real connections: each seat's round trips, the window a claimed time is held in, and
the grace before a devil is awarded.

`RoundTrips` keeps a seat's latest round trips; `claim_window` and `judge_claim` bound what a page may claim by
what the server saw, and `settled_below_ms` and `grace_ms` say when an answer can no longer be overtaken. The
window's reasoning: docs/architecture.md, "Fair races".
"""

from __future__ import annotations

import collections
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, replace

RECENT_TRIPS = 32
"""Round trips kept per seat: at one ping a second, the last half minute of its link."""
MAX_PENDING_PINGS = 8
"""Pings awaiting their pong per seat; an older one is forgotten (its pong, if it comes, is no sample)."""
TOLERANCE_MS = 25.0
"""The timers' granularity, page and server: how far outside its window an honest trip may seem to fall."""
JITTER_FACTOR = 4.0
"""The longest trip is the median plus this many times the jitter (median less minimum) of the recent trips."""
UNMEASURED_TRIP_MS = 500.0
"""The longest trip of a seat no pong has come back from yet (a phone on a busy network takes a few hundred ms)."""
MIN_ONE_WAY_TRIPS = 3
"""Round trips a seat needs before its shortest one-way delay is taken from them (0 before): one trip through a
busy server or network can be hundreds of ms slower than the link, and would hold honest claims down."""
MAX_TRIP_MS = 1500.0
"""The longest trip any seat is allowed, however slow its pongs: a seat cannot stretch the round's grace further."""
RESOLUTION_MS = 1000 / 60
"""Reactions further apart than this are awarded in their true order: a page times from the frame that painted
the roll, one frame of a 60 Hz display."""
PLAUSIBLE_QUANTILE = 0.001
"""A claim under this quantile of the player's fitted latency is flagged as implausible."""


class RoundTrips:
    """One seat's round trips on its own socket: `ping` when a ping is sent, `pong` when its answer comes;
    times in ms on the server's monotonic clock."""

    def __init__(self) -> None:
        self._recent: collections.deque[float] = collections.deque(maxlen=RECENT_TRIPS)
        self._pending: dict[int, float] = {}
        self._next_id = 0

    def ping(self, now_ms: float) -> int:
        """A new ping's id, to send to the page (which echoes it in its pong)."""
        ping_id, self._next_id = self._next_id, self._next_id + 1
        self._pending[ping_id] = now_ms
        while len(self._pending) > MAX_PENDING_PINGS:
            del self._pending[next(iter(self._pending))]
        return ping_id

    def pong(self, ping_id: int, now_ms: float) -> float | None:
        """The round trip the pong of `ping_id` completes, ms (kept), or None for no ping awaiting it."""
        sent_ms = self._pending.pop(ping_id, None)
        if sent_ms is None:
            return None
        trip_ms = max(now_ms - sent_ms, 0.0)
        self._recent.append(trip_ms)
        return trip_ms

    def add(self, trip_ms: float) -> None:
        """Keep a round trip measured elsewhere (another process's socket, a simulation), ms."""
        self._recent.append(max(float(trip_ms), 0.0))

    @property
    def count(self) -> int:
        return len(self._recent)

    @property
    def min_ms(self) -> float | None:
        """The fastest recent round trip, ms (None before any)."""
        return min(self._recent) if self._recent else None

    @property
    def median_ms(self) -> float | None:
        """The median recent round trip, ms (None before any)."""
        return statistics.median(self._recent) if self._recent else None

    @property
    def jitter_ms(self) -> float:
        """How far the recent round trips spread above the fastest: median less minimum, ms (0 before any)."""
        return self.median_ms - self.min_ms if self._recent else 0.0

    @property
    def shortest_one_way_ms(self) -> float:
        """The least a message takes one way, as far as round trips tell: half the fastest, less the jitter, ms
        (0 before MIN_ONE_WAY_TRIPS trips)."""
        return max(self.min_ms / 2 - self.jitter_ms, 0.0) if self.count >= MIN_ONE_WAY_TRIPS else 0.0

    @property
    def longest_ms(self) -> float:
        """The longest an answer's trip is taken to last (roll down, answer up), ms: the median plus
        JITTER_FACTOR jitters plus TOLERANCE_MS, at most MAX_TRIP_MS; UNMEASURED_TRIP_MS before any pong."""
        if not self._recent:
            return UNMEASURED_TRIP_MS
        return min(self.median_ms + JITTER_FACTOR * self.jitter_ms + TOLERANCE_MS, MAX_TRIP_MS)

    def as_dict(self) -> dict:
        """The seat's link as the round's record states it (ms, None before any pong)."""
        return {"trips": self.count, "min_ms": _tenth_ms(self.min_ms), "median_ms": _tenth_ms(self.median_ms),
                "longest_ms": _tenth_ms(self.longest_ms)}


@dataclass(frozen=True)
class JudgedClaim:
    """What a seat's claimed reaction counts for.

    claimed_ms: the page's measure. latency_ms: the claim held inside [earliest_ms, latest_ms], the window the
    server's own timing allows. held: None (the claim was inside), "earliest" (faster than the network allows),
    "latest" (slower than the time the server saw pass), "resent" (a reloaded page's clock: the server's
    measure alone, `judge_resent`) or "final" (counted after the grabs already final, `held_after`).
    implausible: the claim is under the player's fitted model's PLAUSIBLE_QUANTILE quantile. All in ms.
    """

    claimed_ms: float
    latency_ms: float
    earliest_ms: float
    latest_ms: float
    held: str | None
    implausible: bool

    def as_dict(self) -> dict:
        return {"claimed_ms": _tenth_ms(self.claimed_ms), "latency_ms": _tenth_ms(self.latency_ms),
                "earliest_ms": _tenth_ms(self.earliest_ms), "latest_ms": _tenth_ms(self.latest_ms),
                "held": self.held, "implausible": self.implausible}


def claim_window(seen_ms: float, trips: RoundTrips) -> tuple[float, float]:
    """(earliest, latest) reaction in ms a seat's answer can honestly claim, `seen_ms` after the roll appeared
    by the server's clock (from its first send to that seat until the answer came, less the foreperiod)."""
    return seen_ms - trips.longest_ms, seen_ms - trips.shortest_one_way_ms + TOLERANCE_MS


def judge_claim(claimed_ms: float, seen_ms: float, trips: RoundTrips,
                plausible_ms: float | None = None) -> JudgedClaim:
    """A claimed reaction (ms) held inside its `claim_window`; flagged when under `plausible_ms` (the player's
    PLAUSIBLE_QUANTILE quantile, None: no model to ask)."""
    earliest, latest = claim_window(seen_ms, trips)
    latency = min(max(claimed_ms, earliest), latest)
    held = "earliest" if claimed_ms < earliest else "latest" if claimed_ms > latest else None
    return JudgedClaim(claimed_ms, latency, earliest, latest, held,
                       plausible_ms is not None and claimed_ms < plausible_ms)


def judge_resent(claimed_ms: float, seen_ms: float, trips: RoundTrips) -> JudgedClaim:
    """A claim from a page sent the roll again (a reload: its clock started again when the roll came back),
    counted by the server alone: `seen_ms` less the seat's shortest one-way delay, held "resent"."""
    earliest, latest = claim_window(seen_ms, trips)
    return JudgedClaim(claimed_ms, seen_ms - trips.shortest_one_way_ms, earliest, latest, "resent", False)


def held_after(claim: JudgedClaim, after_ms: float) -> JudgedClaim:
    """`claim` counted at `after_ms`, held "final": it came once the grabs up to there were awarded final, and
    a grab awarded is not taken back."""
    return replace(claim, latency_ms=after_ms, held="final")


def grace_ms(trips: Iterable[RoundTrips]) -> float:
    """The round's grace window, ms: the longest trip of its seats (0 for none). A devil is awarded once that
    long has passed after its holder's reaction for every seat still to answer."""
    return max((seat.longest_ms for seat in trips), default=0.0)


def settled_below_ms(waiting: Iterable[tuple[float, RoundTrips]]) -> float:
    """Judged latencies under this many ms are final: no answer still to come can be judged faster.

    waiting: for each seat still to answer, the ms since the roll appeared there by the server's clock (its
    `seen_ms` now, from the first send) and its round trips. Infinite when no seat is waited for.
    """
    return min((seen_ms - seat.longest_ms for seen_ms, seat in waiting), default=math.inf)


def _tenth_ms(value: float | None) -> float | None:
    return None if value is None else round(float(value), 1)
