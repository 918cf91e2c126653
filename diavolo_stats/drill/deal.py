"""A deal: one roll as every table shows it (the drill in a terminal or a browser, a game on the Play page or in
a room), with its resolution, the wait before it appears, and its wire form.

Beside the roll (`rules.roll`) and its answer (`rules.resolve`), a deal holds the foreperiod, drawn after the
roll from the same generator so that a seed and a trial number give the same roll and wait wherever they are
dealt; the JSON a page paints it from; and the log row of an answer to it, built by `judged_trial`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from diavolo_stats.core.rules import Resolution, Roll, resolve, roll
from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.log import TrialRow
from diavolo_stats.drill.trial import CheckedRoll, checked_roll


@dataclass(frozen=True)
class Deal:
    """One roll dealt: the game, the roll, its resolution, and its foreperiod (ms from the fixation mark to
    the roll on screen)."""

    variant: Variant
    roll: Roll
    resolution: Resolution
    foreperiod_ms: int

    @classmethod
    def throw(cls, variant: Variant, rng: np.random.Generator, foreperiod_ms: tuple[int, int],
              rolled: Roll | None = None) -> Deal:
        """The next deal from `rng`: a roll of `variant` (or `rolled`, one a scheduler chose from `rng`), then
        its foreperiod, a whole number of ms from the (shortest, longest) range `foreperiod_ms`."""
        rolled = roll(variant, rng) if rolled is None else rolled
        shortest, longest = foreperiod_ms
        return cls(variant, rolled, resolve(variant, rolled.command, rolled.dice, rolled.positions),
                   int(rng.integers(shortest, longest + 1)))

    def wire(self) -> dict:
        """What a page paints the deal from, as JSON types: the command, the dice per color, where every die
        lies (mm, `rules.Roll.positions`) and the foreperiod (ms)."""
        return {"command": self.roll.command.value,
                "dice": {color: list(values) for color, values in self.roll.dice.items()},
                "positions": self.roll.positions, "foreperiod_ms": self.foreperiod_ms}

    def judged(self, answer: str | None, latency_ms: float | None, *, timestamp: datetime | str,
               **trial: Any) -> TrialRow:
        """The drill log row of `answer` (a color, grey, or None for none) to this deal, `latency_ms` after it
        appeared at `timestamp`: `judged_trial` with this deal's roll and foreperiod; `trial` holds its other
        fields (interface, player, session_id, trial, too_early, seed, ...)."""
        return self.checked.row(answer, latency_ms, timestamp=timestamp, foreperiod_ms=float(self.foreperiod_ms),
                                **trial)

    @functools.cached_property
    def checked(self) -> CheckedRoll:
        """The roll checked as `judged_trial` checks a trial's, once per deal (every seat's answer is a row)."""
        return checked_roll(self.variant, self.roll.command, self.roll.dice, self.roll.positions)
