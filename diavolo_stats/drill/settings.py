"""One drill session's settings and the drill's defaults: lengths, waits, answer keys.

`DrillSettings` is what the terminal drill runs; the defaults beside it are
the ones the browser drill, the synthetic log and the command line's help
state too. Importing this module loads no terminal library and no pandas.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diavolo_stats.core.variant import GREY, Variant
from diavolo_stats.drill import DEFAULT_TRIALS, MAX_SEED, MAX_SESSION_MINUTES, MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.log.place import default_log_path
from diavolo_stats.drill.looks import check_colors
from diavolo_stats.errors import InputError
from diavolo_stats.files import not_a_file
from diavolo_stats.names import PLAYER_NAME
from diavolo_stats.validation import (
    Configuration,
    FilePath,
    Flag,
    Instance,
    Maybe,
    Number,
    Rule,
    Several,
    TextMap,
    Whole,
    setting,
)

FOREPERIOD_MS = (600, 1500)
TIMEOUT_S = 10.0
FEEDBACK_MS = 1200
QUIT_KEY = "q"
HELP_KEY = "?"
GREY_KEY = "g"
MAX_FOREPERIOD_MS = 60_000
MAX_TIMEOUT_S = 3600.0
MAX_SIDES_SHOWN = 99


@dataclass(frozen=True)
class Foreperiod(Rule):
    """The range a roll's foreperiod is drawn from, shortest and longest ms: `MIN,MAX`, or one value for both
    (a drill session's, and the one a page asks for)."""

    bounds: Several = Several(Whole(0, MAX_FOREPERIOD_MS, unit="ms"), most=2, unique=False, noun="bound",
                              how_many="1 or 2 bounds (one wait, or MIN,MAX)")

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


@dataclass(frozen=True)
class DrillSettings(Configuration):
    """One drill session.

    trials: trials to show (default 30), or None with `minutes`: how long new trials start. timeout_s: seconds to
    wait for an answer. foreperiod_ms: (shortest, longest) wait between the fixation mark and the roll, drawn
    uniformly in whole ms. feedback_ms: how long the feedback stays. keys: answer (color or grey) -> key; by
    default each color's first letter and `g`. seed: for the rolls and foreperiods (a fresh one, logged, when None).
    log: the CSV (default `default_log_path()`). intro: open a player's first session with the introduction screen.
    """

    player: str = setting(rule=PLAYER_NAME)
    variant: Variant = setting(default_factory=Variant, rule=Instance(Variant))
    trials: int | None = setting(None, Maybe(Whole(1, MAX_TRIALS_PER_SESSION)))
    minutes: float | None = setting(None, Maybe(Number(above=0, at_most=MAX_SESSION_MINUTES, unit="minutes")))
    command_first: bool = setting(False, Flag())
    adaptive: bool = setting(False, Flag())
    seed: int | None = setting(None, Maybe(Whole(0, MAX_SEED)))
    log: Path | None = setting(None, Maybe(FilePath()))
    timeout_s: float = setting(TIMEOUT_S, Number(above=0, at_most=MAX_TIMEOUT_S, unit="s"))
    foreperiod_ms: tuple[int, int] = setting(FOREPERIOD_MS, Foreperiod())
    feedback_ms: int = setting(FEEDBACK_MS, Whole(0, MAX_FOREPERIOD_MS, unit="ms"))
    keys: Mapping[str, str] | None = setting(None, Maybe(TextMap(pair="ANSWER=KEY")))
    intro: bool = setting(True, Flag())

    def check(self) -> None:
        check_colors(self.variant.colors)
        # Every die is drawn on the table, even when `closest` is not drilled.
        self.variant.table.check_fits(1 + self.variant.dice_count)
        highest = max(max(faces) for faces in self.variant.color_faces)
        if highest > MAX_SIDES_SHOWN:
            raise InputError(f"the drill shows faces up to {MAX_SIDES_SHOWN}, got {highest}",
                             field="sides" if self.variant.standard_dice else "faces")
        if self.trials is not None and self.minutes is not None:
            raise InputError("give a number of trials or of minutes, not both", field="trials")
        if self.trials is None and self.minutes is None:
            object.__setattr__(self, "trials", DEFAULT_TRIALS)
        object.__setattr__(self, "keys", answer_keys(self.variant, self.keys or {}))
        object.__setattr__(self, "log", Path(self.log) if self.log is not None else default_log_path())
        problem = not_a_file(self.log)  # refused here, before the drill asks for a terminal
        if problem is not None:
            raise InputError(problem, field="log")


def answer_keys(variant: Variant, chosen: Mapping[str, str]) -> dict[str, str]:
    """Answer -> key for every color and grey: the chosen ones, else by default grey g and each color the first
    letter of its name that grey and the colors before it have not taken (green: e, beside grey)."""
    answers = variant.colors + (GREY,)
    unknown = [a for a in chosen if a not in answers]
    if unknown:
        raise InputError(f"{', '.join(unknown)} is not an answer; answers: {', '.join(answers)}", field="keys")
    defaults = {GREY: GREY_KEY}
    for color in variant.colors:
        free = [letter for letter in color if letter.isalpha() and letter not in (*defaults.values(), QUIT_KEY)]
        defaults[color] = free[0] if free else color[0]  # no letter free: the clash is named below
    keys = {a: str(chosen.get(a, defaults[a])).lower() for a in answers}
    for answer, key in keys.items():
        if len(key) != 1 or not key.isprintable() or key == " ":
            raise InputError(f"{answer} needs a single printable key, got {key!r}", field="keys")
        if key in (QUIT_KEY, HELP_KEY):
            raise InputError(f"{key!r} {'quits the drill' if key == QUIT_KEY else 'shows the commands'}; "
                             f"choose another key for {answer}", field="keys")
    shared = sorted({k for k in keys.values() if list(keys.values()).count(k) > 1})
    if shared:
        raise InputError(f"{', '.join(shared)} would answer two colors; set them apart, "
                         "e.g. black=k,blue=u", field="keys")
    return keys
