"""The range a page asks a roll's foreperiod to be drawn from: the drill's, the Play page's and a room's."""

from __future__ import annotations

import dataclasses
from typing import Any

from diavolo_stats.drill.settings import MAX_FOREPERIOD_MS
from diavolo_stats.validation import Rule, Several, Whole


@dataclasses.dataclass(frozen=True)
class Foreperiod(Rule):
    """The range a roll's foreperiod is drawn from, shortest and longest ms: `MIN,MAX`, or one value for both."""

    bounds: Several = Several(Whole(0, MAX_FOREPERIOD_MS, unit="ms"), most=2, unique=False, noun="bound")

    def normalize(self, value: Any) -> tuple[int, int]:
        bounds = self.bounds.normalize(value)
        if bounds[0] > bounds[-1]:
            raise ValueError("need MIN,MAX with MIN <= MAX")
        return bounds[0], bounds[-1]

    def from_text(self, text: str) -> Any:
        return self.bounds.from_text(text)

    def bad_values(self) -> list[Any]:
        return [*self.bounds.bad_values(), (900, 600)]

    def bad_texts(self) -> list[str]:
        return [*self.bounds.bad_texts(), "900,600", "1,2,3"]
