"""The rolls this server dealt: a posted trial must be on one of them.

`Deals.check` refuses a posted trial whose roll the server did not deal for its (seed, trial number): dice the
seed never rolled, a command changed after the fact. A roll forgotten or never seen (a server restarted) is
dealt again from its seed, unless it was adaptive. How many are kept and why: docs/architecture.md, "Trials
from the browser".
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from diavolo_stats.core.table_model import TABLE_FIELDS
from diavolo_stats.errors import InputError

MAX_REMEMBERED = 50_000
"""(seed, trial) pairs whose deals are remembered (about 250 bytes each: some 12 MB in all)."""
DIGEST_BYTES = 16
REDEALT_ATTEMPTS = 8
"""Attempts of a trial dealt again from its seed when its deal is not remembered."""


def fingerprint(command: Any, dice: Mapping, positions: Mapping) -> bytes:
    """A digest of what a roll shows: its command, dice and die centers (not the table's fields), the same
    whether a center is spelled 150 or 150.0 (JavaScript writes no `.0`)."""
    centers = {key: _floats(value) for key, value in positions.items() if key not in TABLE_FIELDS}
    text = json.dumps([getattr(command, "value", command), dice, centers], sort_keys=True)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=DIGEST_BYTES).digest()


def _holds(dealt: bytes, mark: bytes) -> bool:
    return any(dealt[start:start + DIGEST_BYTES] == mark for start in range(0, len(dealt), DIGEST_BYTES))


def _floats(value: Any) -> Any:
    return [_floats(item) for item in value] if isinstance(value, (list, tuple)) else float(value)


class Deals:
    """What this server dealt, per (seed, trial number)."""

    def __init__(self, remembered: int = MAX_REMEMBERED):
        self._lock = threading.Lock()
        self._dealt: OrderedDict[tuple[int, int], bytes] = OrderedDict()  # digests, DIGEST_BYTES each
        self.remembered = remembered

    def deal(self, seed: int, trial: int, roll: Mapping[str, Any]) -> None:
        """Remember `roll` (an /api/roll answer) as dealt for `seed` and `trial`."""
        mark = fingerprint(roll["command"], roll["dice"], roll["positions"])
        with self._lock:
            dealt = self._dealt.get((seed, trial), b"")
            if not _holds(dealt, mark):
                self._dealt[(seed, trial)] = dealt + mark
            self._dealt.move_to_end((seed, trial))
            while len(self._dealt) > self.remembered:
                self._dealt.popitem(last=False)

    def check(self, seed: int | None, trial: int, command: str, dice: Mapping, positions: Mapping,
              redeal: Callable[[int, int, int], Mapping[str, Any]]) -> None:
        """InputError unless this roll was dealt for `seed` and `trial`: remembered, or given again by
        `redeal(seed, trial, attempt)` (the roll /api/roll deals, not adaptive) for an early attempt."""
        if seed is None:
            raise InputError("must be the seed the session's rolls were dealt for, got null", field="seed")
        mark = fingerprint(command, dice, positions)
        with self._lock:
            if _holds(self._dealt.get((seed, trial), b""), mark):
                return
        for attempt in range(REDEALT_ATTEMPTS):
            again = redeal(seed, trial, attempt)
            if fingerprint(again["command"], again["dice"], again["positions"]) == mark:
                return
        raise InputError(f"this server dealt no such roll for seed {seed}, trial {trial}: post the trials of "
                         "the rolls it dealt (GET /api/roll)", field="dice")
