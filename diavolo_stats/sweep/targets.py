"""Targets: keep the variants whose tie probabilities lie in given ranges, nearest the ranges' centers first.

A target is written `highest-total=0.10..0.20,closest=..0.15`: per command (or `overall`) a range, either end
open, or one value. A variant meets it when every listed command lies in its range (for a simulated command,
its whole 95 % interval); those that do are ranked by Euclidean distance from the ranges' centers, and when none
does, `near_misses` ranks every variant by how far outside it lies. More: docs/guides/sweep.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from diavolo_stats.core.commands import BUILTIN_COMMANDS
from diavolo_stats.core.variant import Command
from diavolo_stats.errors import InputError
from diavolo_stats.validation import empty_item, shown

OVERALL = "overall"
"""A target on the overall grey rate: the tie probability averaged over the command die's faces."""

_PROBABILITY = r"[0-9]+(?:\.[0-9]+)?|\.[0-9]+"


@dataclass(frozen=True)
class TargetRange:
    """The allowed tie probabilities of one command: `low` to `high`, both included."""

    command: str  # a command's name, or "overall"
    low: float
    high: float

    @property
    def center(self) -> float:
        return (self.low + self.high) / 2

    def holds(self, low: float, high: float) -> bool:
        """True when the interval `low`..`high` (one value when equal) lies wholly in the range."""
        return self.low <= low and high <= self.high


@dataclass(frozen=True)
class Target:
    """Ranges that every kept variant meets, one per listed command."""

    ranges: tuple[TargetRange, ...]

    @classmethod
    def parse(cls, text: str, commands: Sequence[Command]) -> Target:
        """The target `text` describes, over the sweep's `commands`; InputError if malformed."""
        items = [part.strip() for part in text.split(",")]
        problem = empty_item(items, "COMMAND=RANGE") if len(items) > 1 else None  # blank: no COMMAND=RANGE
        if problem is not None:
            raise InputError(f"{problem}, got {shown(text)}", field="target")
        ranges = []
        for item in items:
            name, equals, bounds = item.partition("=")
            if not equals:
                raise InputError(f"{item!r} is not COMMAND=RANGE, e.g. highest-total=0.10..0.20", field="target")
            command = name.strip()
            if command != OVERALL and command not in BUILTIN_COMMANDS and command not in map(str, commands):
                allowed = ", ".join([*(c.value for c in commands), OVERALL])
                raise InputError(f"unknown command {command!r}; allowed: {allowed}", field="target")
            if command != OVERALL and command not in map(str, commands):
                raise InputError(f"{command} is not among the sweep's commands", field="target")
            if any(r.command == command for r in ranges):
                raise InputError(f"{command} listed twice; one range per command", field="target")
            ranges.append(TargetRange(command, *_bounds(bounds.strip(), item)))
        return cls(tuple(ranges))

    def describe(self) -> str:
        return ", ".join(f"{r.command} {r.low:g}..{r.high:g}" for r in self.ranges)


def _bounds(text: str, item: str) -> tuple[float, float]:
    single = re.fullmatch(_PROBABILITY, text, flags=re.ASCII)
    if single:
        low = high = float(text)
    else:
        match = re.fullmatch(rf"({_PROBABILITY})?\.\.({_PROBABILITY})?", text, flags=re.ASCII)
        if match is None or match.groups() == (None, None):
            raise InputError(f"{item!r}: the range must be like 0.10..0.20, ..0.15 or 0.3..", field="target")
        low = float(match.group(1)) if match.group(1) is not None else 0.0
        high = float(match.group(2)) if match.group(2) is not None else 1.0
    if not 0 <= low <= high <= 1:
        raise InputError(f"{item!r}: a range of probabilities from 0 to 1, the smaller end first", field="target")
    return low, high


def select(rows: Sequence[dict], target: Target, variant_key: Callable[[dict], tuple]) -> list[dict]:
    """The rows of the variants meeting `target`, nearest first, each with its `target_distance`.

    `rows` are a sweep's rows (one per variant and command); `variant_key`
    names a row's variant. A variant's rows stay together and in their order.
    """
    variants: dict[tuple, list[dict]] = {}
    for row in rows:
        variants.setdefault(variant_key(row), []).append(row)
    kept = []
    for variant_rows in variants.values():
        by_command = {row["command"]: row for row in variant_rows}
        squares = 0.0
        for wanted in target.ranges:
            row = by_command[wanted.command]
            if not wanted.holds(row["ci95_low"], row["ci95_high"]):
                break
            squares += (row["tie_probability"] - wanted.center) ** 2
        else:
            kept.append((math.sqrt(squares), variant_rows))
    kept.sort(key=lambda pair: pair[0])  # stable: equal distances stay in grid order
    return [{**row, "target_distance": distance} for distance, variant_rows in kept for row in variant_rows]



def near_misses(rows: Sequence[dict], target: Target, variant_key: Callable[[dict], tuple],
                count: int) -> list[dict]:
    """The rows of the `count` variants nearest `target`, nearest first, each with its `target_distance`: how far
    its tie probabilities lie outside the ranges (Euclidean, in probability; 0 inside)."""
    variants: dict[tuple, list[dict]] = {}
    for row in rows:
        variants.setdefault(variant_key(row), []).append(row)
    ranked = []
    for variant_rows in variants.values():
        by_command = {row["command"]: row["tie_probability"] for row in variant_rows}
        outside = [max(wanted.low - by_command[wanted.command], by_command[wanted.command] - wanted.high, 0.0)
                   for wanted in target.ranges]
        ranked.append((math.sqrt(sum(gap * gap for gap in outside)), variant_rows))
    ranked.sort(key=lambda pair: pair[0])  # stable: equal distances stay in grid order
    return [{**row, "target_distance": distance} for distance, variant_rows in ranked[:count] for row in variant_rows]
