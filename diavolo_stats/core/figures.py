"""The figures a command compares: each color's number for a roll, named in a small vocabulary.

A figure is written as text in a variant file (`sum`, `count:=6`,
`nth-highest:2`, ...) and parsed once into a `DiceFigure`. Each figure answers
two questions with one definition of what it means:

Why it works as it does: docs/architecture.md, "Figures of a roll".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from diavolo_stats.errors import InputError

VOCABULARY = ("sum", "max", "min", "spread", "distinct", "most-alike", "nth-highest:K", "count:odd",
              "count:even", "count:=V", "count:>=V", "count:<=V", "distance")
"""Every figure a command may compare, as a variant file writes it (K a die's rank, V a face value)."""

_ORDINALS = ("", "highest", "second-highest", "third-highest", "fourth-highest", "fifth-highest", "sixth-highest",
             "seventh-highest", "eighth-highest", "ninth-highest", "tenth-highest", "eleventh-highest",
             "twelfth-highest")
_FACE_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
               "twelve")
_PLAIN = {"sum", "max", "min", "spread", "distinct", "most-alike", "distance"}
_NTH = re.compile(r"nth-highest:([0-9]{1,3})")
_COUNT = re.compile(r"count:(odd|even|=|>=|<=)(-?[0-9]{1,4})?")


@dataclass(frozen=True)
class DiceFigure:
    """One figure of the vocabulary: its `kind`, and the rank K or the test of `count` (`test`, `value`)."""

    kind: str
    rank: int = 0
    test: str = ""
    value: int = 0

    @classmethod
    def parse(cls, text: Any) -> DiceFigure:
        """The figure `text` names; ValueError listing the vocabulary when it names none."""
        if isinstance(text, DiceFigure):
            return text
        if not isinstance(text, str):
            raise ValueError(f"must be a figure, one of {', '.join(VOCABULARY)}")
        text = text.strip()
        if text in _PLAIN:
            return cls(text)
        nth = _NTH.fullmatch(text)
        if nth and int(nth.group(1)) >= 1:
            return cls("nth-highest", rank=int(nth.group(1)))
        count = _COUNT.fullmatch(text)
        if count and (count.group(2) is None) == (count.group(1) in ("odd", "even")):
            return cls("count", test=count.group(1), value=int(count.group(2) or 0))
        raise ValueError(f"unknown figure; allowed: {', '.join(VOCABULARY)}")

    def __str__(self) -> str:
        if self.kind == "nth-highest":
            return f"nth-highest:{self.rank}"
        if self.kind == "count":
            return f"count:{self.test}" + ("" if self.test in ("odd", "even") else str(self.value))
        return self.kind

    def words(self, value: float) -> str:
        """The figure's `value` as a person says it: `total 14`, `highest die 6`, `2 sixes`, `3 alike`,
        `1 odd die`, `2 dice of 5 or more`, `nearest die 23.4 mm` (a distance in mm, the others whole)."""
        if self.kind == "distance":
            return f"nearest die {value:.1f} mm"
        value = int(value)
        if self.kind in ("sum", "max", "min", "spread", "nth-highest"):
            noun = {"sum": "total", "max": "highest die", "min": "lowest die", "spread": "spread"}.get(
                self.kind) or (f"{_ORDINALS[self.rank]} die" if self.rank < len(_ORDINALS)
                               else f"{self.rank}th-highest die")
            return f"{noun} {value}"
        if self.kind == "distinct":
            return f"{value} different value{'' if value == 1 else 's'}"
        if self.kind == "most-alike":
            return "no two alike" if value <= 1 else f"{value} alike"
        dice = "die" if value == 1 else "dice"
        if self.test in ("odd", "even"):
            return f"{value} {self.test} {dice}"
        if self.test == "=":
            if 0 <= self.value < len(_FACE_NAMES):
                name = _FACE_NAMES[self.value]
                return f"{value} {name if value == 1 else name + ('es' if name.endswith('x') else 's')}"
            return f"{value} {dice} showing {self.value}"
        return f"{value} {dice} of {self.value} or {'more' if self.test == '>=' else 'less'}"

    def amount(self, value: float) -> str:
        """The figure's `value` alone, as a comparison lists the other colors': `12`, or `41.0 mm` for a distance."""
        return f"{value:.1f} mm" if self.kind == "distance" else str(int(value))

    @property
    def by_position(self) -> bool:
        """True for `distance`: decided by where the dice land, not by their values."""
        return self.kind == "distance"

    def check_dice(self, count: int, faces: tuple[int, ...]) -> None:
        """InputError unless this figure means something for a color of `count` dice with `faces`."""
        if self.kind == "nth-highest" and self.rank > count:
            raise InputError(f"nth-highest:{self.rank} needs {self.rank} dice; a color has {count}", field="figure")
        if self.kind == "count" and self.test == "=" and self.value not in faces:
            raise InputError(f"count:={self.value}: no die shows {self.value} (faces {', '.join(map(str, faces))})",
                             field="figure")

    def counts_face(self, face: int) -> bool:
        """For `count`: whether a die showing `face` is counted."""
        return {"odd": face % 2 == 1, "even": face % 2 == 0, "=": face == self.value,
                ">=": face >= self.value, "<=": face <= self.value}[self.test]

    def bounds(self, count: int, faces: tuple[int, ...]) -> tuple[int, int]:
        """The smallest and largest figure a color of `count` dice with `faces` can show."""
        low, high = min(faces), max(faces)
        if self.kind == "sum":
            return count * low, count * high
        if self.kind in ("max", "min", "nth-highest"):
            return low, high
        if self.kind == "spread":
            return 0, high - low
        if self.kind == "distinct":
            return 1, min(count, len(set(faces)))
        if self.kind in ("most-alike", "count"):
            return (1 if self.kind == "most-alike" else 0), count
        raise ValueError(f"{self} is decided by positions, not values")

    def of(self, values: np.ndarray) -> np.ndarray:
        """Each roll's figure: (rounds,) int16 from one color's dice values, or (colors, rounds) int16 from every
        color's at once when the colors roll as many dice."""
        # values: (dice, rounds) or (colors, dice, rounds) uint8, face values; the dice axis is -2
        if self.kind == "sum":
            return values.sum(axis=-2, dtype=np.int16)
        if self.kind == "max":
            return values.max(axis=-2).astype(np.int16)
        if self.kind == "min":
            return values.min(axis=-2).astype(np.int16)
        if self.kind == "spread":
            return values.max(axis=-2).astype(np.int16) - values.min(axis=-2)
        if self.kind == "count":
            if self.test in ("odd", "even"):
                odd = (values & 1).sum(axis=-2, dtype=np.int16)
                return odd if self.test == "odd" else values.shape[-2] - odd
            tested = (values == self.value if self.test == "=" else values >= self.value if self.test == ">="
                      else values <= self.value)
            return tested.sum(axis=-2, dtype=np.int16)
        ordered = np.sort(values, axis=-2)
        if self.kind == "nth-highest":
            return ordered[..., -self.rank, :].astype(np.int16)
        if self.kind == "distinct":
            return 1 + (ordered[..., 1:, :] != ordered[..., :-1, :]).sum(axis=-2, dtype=np.int16)
        if self.kind == "most-alike":
            run = np.ones(values.shape[:-2] + values.shape[-1:], dtype=np.int16)
            best = run.copy()
            for index in range(1, ordered.shape[-2]):
                same = ordered[..., index, :] == ordered[..., index - 1, :]
                run = np.where(same, run + 1, 1).astype(np.int16)
                np.maximum(best, run, out=best)
            return best
        raise ValueError(f"{self} is decided by positions, not values; use table_model.nearest_distances")

    def start(self) -> Any:
        """The evaluator's state before any face value is seen (see `fold`)."""
        return (None, None) if self.kind == "spread" else None if self.kind in ("max", "min", "nth-highest") else 0

    def fold(self, state: Any, face: int, count: int, before: int, dice: int) -> Any:
        """The state once `count` of the color's `dice` show `face`, faces visited in increasing order,
        `before` dice showing smaller faces. `result(state)` is the figure once every face is seen."""
        if self.kind == "sum":
            return state + face * count
        if self.kind == "count":
            return state + count if self.counts_face(face) else state
        if count == 0:
            return state
        # The highest face is known once the last dice are placed: until then it is left out of the state,
        # which keeps the states few.
        last = before + count == dice
        if self.kind == "max":
            return face if last else None
        if self.kind == "min":
            return face if state is None else state
        if self.kind == "spread":
            return (face if state[0] is None else state[0], face if last else None)
        if self.kind == "distinct":
            return state + 1
        if self.kind == "most-alike":
            return max(state, count)
        if self.kind == "nth-highest":
            # The K-th highest of `dice` is the (dice - K + 1)-th smallest.
            position = dice - self.rank + 1
            return face if before < position <= before + count else state
        raise ValueError(f"{self} is decided by positions, not values")

    def result(self, state: Any) -> int:
        """The figure a folded `state` stands for."""
        return state[1] - state[0] if self.kind == "spread" else state
