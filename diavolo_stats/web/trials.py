"""Trials sent by the browser drill: checked field by field, judged by the rules, logged once.

A browser posts each trial as a JSON object (declared as `TRIAL`). `trial_row`
checks every field and builds the drill log's row with `judged_trial`, as
every drill does: the answer the rules give (`expected`), the answers
counted right (`accepted`) and whether the player's was among them
(`correct`) are worked out from the dice and positions, never taken from the
client. The row's `interface` is `browser`. `TrialStore.add` appends
the row through the drill log's writer (cross-process lock, fsync) unless the
log already holds that session's trial: a trial is identified by its session
id and trial number, so a browser that sends a trial again (it never heard
the answer: the server was killed, the network dropped) stores it once.

The store knows which trials the log holds by reading the log itself: all of
it when the server starts, then, before every append, the lines other
writers (a terminal drill, another server) added since. Checking and
appending happen under one lock per store, so two requests for the same
trial in one server cannot both append.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import threading
import time
import uuid
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from diavolo_stats.core.table_model import check_landed, positions_from_mapping
from diavolo_stats.core.variant import GREY, CommandName, Variant
from diavolo_stats.drill import MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.log import COLUMNS, MAX_SEED, NO_ANSWER, PLAYER_NAME, DrillLog, TrialRow
from diavolo_stats.drill.settings import MAX_FOREPERIOD_MS
from diavolo_stats.drill.trial import TABLE_FIELDS, judged_trial
from diavolo_stats.errors import InputError
from diavolo_stats.validation import (
    Flag,
    Maybe,
    Number,
    OneOf,
    Record,
    Rule,
    Text,
    Whole,
    check_value,
    json_spelled,
)
from diavolo_stats.web.busy import NotStored

BROWSER = "browser"
"""The `interface` of the rows the web drill logs."""
BROWSER_VARIANTS = ("standard", "kids")
"""The games the browser drill offers (each also command-first)."""

MAX_LATENCY_MS = 3_600_000.0
TRIALS_PER_SECOND = 20.0
"""Rows one session may add per second, on average; a person answers a few per second at most."""
TRIAL_BURST = 100
"""Rows one session may add at once: what a page kept while the server was away, sent in one go."""

MAX_SESSIONS_TRACKED = 10_000


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_point(point: object) -> bool:
    return isinstance(point, list) and len(point) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in point)


@dataclasses.dataclass(frozen=True)
class Dice(Rule):
    """The dice values of a roll: a JSON object mapping each color to the list of its dice's values.
    Of `variant`, when given: its colors in order, each with `dice_per_color` whole numbers from 1 to `sides`."""

    variant: Variant | None = None

    def normalize(self, value: Any) -> dict[str, list[int]]:
        if not isinstance(value, Mapping) or not all(isinstance(values, list) for values in value.values()):
            raise ValueError("must map each color to the list of its dice's values")
        if self.variant is not None:
            colors, count, sides = self.variant.colors, self.variant.dice_per_color, self.variant.sides
            if list(value) != list(colors):
                raise ValueError(f"must map the colors {', '.join(colors)}, in that order, to their values")
            for color, values in value.items():
                if len(values) != count or not all(_is_whole(v) and 1 <= v <= sides for v in values):
                    raise ValueError(f"{color} needs {count} whole numbers from 1 to {sides}")
        return {color: list(values) for color, values in value.items()}

    def bad_values(self) -> list[Any]:
        return ["1,2,3", [1, 2, 3], {"black": 3}, None]


@dataclasses.dataclass(frozen=True)
class DieCenters(Rule):
    """Where a roll's dice lie: a JSON object mapping `command` to one [x, y] in mm and each color to a list of
    them (the table's fields may follow). Of `variant`, when given: its colors in order, one point per die, and a
    throw its table allows (every die wholly on it, none overlapping; `table_model.check_landed`)."""

    variant: Variant | None = None

    def normalize(self, value: Any) -> Mapping:
        if not isinstance(value, Mapping):
            raise ValueError("must be a JSON object of die centers")
        centers = {key: points for key, points in value.items() if key not in TABLE_FIELDS}
        for key, points in centers.items():
            shaped = _is_point(points) if key == "command" else isinstance(points, list) and all(map(_is_point, points))
            if not shaped:
                raise ValueError(f"{key} needs {'one' if key == 'command' else 'a list of'} [x, y] in mm")
        if self.variant is not None:
            colors, count = self.variant.colors, self.variant.dice_per_color
            if list(centers) != ["command", *colors]:
                raise ValueError(f"needs the keys command, {', '.join(colors)}")
            short = next((color for color in colors if len(centers[color]) != count), None)
            if short:
                raise ValueError(f"{short} needs {count} [x, y] in mm")
            try:
                check_landed(self.variant.table, positions_from_mapping(colors, count, centers))
            except InputError as error:
                raise ValueError(error.message) from None
        return value

    def bad_values(self) -> list[Any]:
        return [[[1, 2]], "command", {"command": [1]}, {"command": [1, "2"]}, {"black": [1, 2]}, None]


@dataclasses.dataclass(frozen=True)
class Moment(Rule):
    """An ISO 8601 time with its zone (`Z` for UTC), kept as a datetime."""

    def normalize(self, value: Any) -> datetime:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else None
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            raise ValueError("must be an ISO 8601 time with its zone, e.g. 2026-01-31T12:00:00.000Z")
        return moment

    def bad_values(self) -> list[Any]:
        return ["yesterday", "2026-11-30T12:00:00", "", 1764504000, None]


def _answers() -> tuple[str, ...]:
    colors = [color for name in BROWSER_VARIANTS for color in Variant.preset(name).colors]
    return (*dict.fromkeys(colors), GREY, NO_ANSWER)


BOOLEAN = Flag(json=True)
"""true or false, as a web client sends them."""

TRIAL = Record("trial", {
    "session_id": Text(max_length=36, pattern=r"(?i)[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}",
                       described=f"a UUID such as {uuid.UUID(int=0)}"),
    "trial": Whole(1, MAX_TRIALS_PER_SESSION),
    "player": PLAYER_NAME,
    "variant": OneOf(BROWSER_VARIANTS),
    "command_first": BOOLEAN,
    "command": CommandName(),
    "dice": Dice(),
    "positions": DieCenters(),
    "answer": OneOf(_answers()),
    "latency_ms": Maybe(Number(at_least=0, at_most=MAX_LATENCY_MS, unit="ms")),
    "too_early": BOOLEAN,
    "timed_out": BOOLEAN,
    "foreperiod_ms": Maybe(Number(at_least=0, at_most=MAX_FOREPERIOD_MS, unit="ms")),
    "seed": Maybe(Whole(0, MAX_SEED)),
    "timestamp": Moment(),
})
"""What a browser sends per trial, every field required (null where it says so). `expected`, `accepted` and
`correct` are not among them: the server works them out."""


def trial_row(body: object) -> TrialRow:
    """The drill log row of one posted trial (a JSON object), or InputError naming the first bad field.

    The fields are checked as TRIAL declares them, then against the game
    they claim (dice and positions of that variant, positions a throw can
    give); the row is built by `drill.trial.judged_trial`, which works out
    `expected`, `accepted` and `correct` from the roll, with `interface` browser.
    """
    trial = TRIAL.check(body)
    variant = Variant.preset(trial["variant"])
    dice = check_value("dice", trial["dice"], Dice(variant), json_spelled)
    positions = check_value("positions", trial["positions"], DieCenters(variant), json_spelled)
    answer, latency_ms = trial["answer"], trial["latency_ms"]
    if trial["too_early"] and trial["timed_out"]:
        raise InputError("a trial answered too early did not time out; at most one of too_early and timed_out is "
                         "true", field="timed_out")
    if trial["too_early"] or trial["timed_out"]:
        if answer != NO_ANSWER:
            raise InputError(f'must be "{NO_ANSWER}" when the trial was answered too early or timed out',
                             field="answer")
        if latency_ms is not None:
            raise InputError("must be null when there was no answer", field="latency_ms")
        answer = None
    elif answer == NO_ANSWER:
        raise InputError(f'"{NO_ANSWER}" only when too_early or timed_out is true; else a color or {GREY}',
                         field="answer")
    elif latency_ms is None:
        raise InputError("must be the answer's latency, a number of ms, when there was an answer", field="latency_ms")
    else:
        latency_ms = round(float(latency_ms), 1)
    foreperiod_ms = None if trial["foreperiod_ms"] is None else float(trial["foreperiod_ms"])
    return judged_trial(
        variant, trial["command"], dice, positions, answer, latency_ms, interface=BROWSER, player=trial["player"],
        session_id=trial["session_id"], trial=trial["trial"], timestamp=trial["timestamp"],
        command_first=trial["command_first"], too_early=trial["too_early"], foreperiod_ms=foreperiod_ms,
        seed=trial["seed"])


class TooFast(InputError):
    """A session sent more trials a second than a person can answer (HTTP 429)."""


class TrialStore:
    """Adds trials to the drill log at `path`, each (session id, trial number) at most once."""

    def __init__(self, path: str | Path):
        self.log = DrillLog(path)
        self._lock = threading.Lock()
        self._stored: set[tuple[str, int]] = set()
        self._read_up_to = 0  # bytes of the log already read for stored trials
        self._buckets: dict[str, tuple[float, float]] = {}  # session id -> (tokens, when)
        with self._lock:
            self._catch_up()

    def add(self, row: TrialRow) -> bool:
        """Append `row` (from `trial_row`) unless its trial is already in the log: True if it was appended.

        TooFast (an InputError) when the session sends trials faster than TRIALS_PER_SECOND (after a
        burst of TRIAL_BURST); NotStored (HTTP 503) when the log cannot take the row now (disk full, the
        lock held by another program): the trial is valid, and sent again later.
        """
        key = (row.session_id, row.trial)
        with self._lock:
            try:
                self._catch_up()
                if key in self._stored:
                    return False
                self._take_token(row.session_id)
                self.log.append(row)
            except InputError as error:
                if error.field != "log":
                    raise
                raise NotStored(f"log: the trial was not stored ({error.message}); the page sends it again") from None
            self._stored.add(key)
            return True

    def _take_token(self, session_id: str) -> None:
        now = time.monotonic()
        tokens, then = self._buckets.get(session_id, (float(TRIAL_BURST), now))
        tokens = min(float(TRIAL_BURST), tokens + (now - then) * TRIALS_PER_SECOND)
        if tokens < 1:
            raise TooFast(f"more than {TRIALS_PER_SECOND:g} trials a second from one session; send it again "
                             "in a moment", field="trial")
        if len(self._buckets) > MAX_SESSIONS_TRACKED:  # forget sessions whose bucket has refilled
            full = TRIAL_BURST / TRIALS_PER_SECOND
            self._buckets = {key: value for key, value in self._buckets.items() if now - value[1] < full}
        self._buckets[session_id] = (tokens - 1, now)

    def _catch_up(self) -> None:
        """Read the whole lines the log gained since the last look, noting the trials they hold."""
        session_column, trial_column = COLUMNS.index("session_id"), COLUMNS.index("trial")
        try:
            with open(self.log.path, "rb") as file:
                size = file.seek(0, 2)
                if size < self._read_up_to:  # the log was replaced by a shorter one: read it again
                    self._stored.clear()
                    self._read_up_to = 0
                file.seek(self._read_up_to)
                data = file.read()
        except FileNotFoundError:  # deleted: the writer starts it again with a header
            self._stored.clear()
            self._read_up_to = 0
            return
        except OSError as error:
            raise InputError(f"cannot read {self.log.path} ({error.strerror})", field="log") from None
        whole = data[:data.rfind(b"\n") + 1]
        lines = whole.decode("utf-8", errors="replace").splitlines()
        if self._read_up_to == 0:
            lines = lines[1:]  # the header
        for cells in csv.reader(lines):
            if len(cells) > trial_column and cells[trial_column].isdigit():
                self._stored.add((cells[session_column], int(cells[trial_column])))
        self._read_up_to += len(whole)
