"""Trials sent by the browser drill: checked field by field, judged by the rules, logged once.

A browser posts each trial as a JSON object (`TRIAL_FIELDS`). `trial_row`
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
import math
import threading
import time
import uuid
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from diavolo_stats.core.table_model import check_landed, positions_from_mapping
from diavolo_stats.core.variant import GREY, Variant
from diavolo_stats.drill.log import COLUMNS, MAX_SEED, NO_ANSWER, DrillLog, TrialRow
from diavolo_stats.drill.session import MAX_FOREPERIOD_MS
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.errors import InputError

BROWSER = "browser"
"""The `interface` of the rows the web drill logs."""
BROWSER_VARIANTS = ("standard", "kids")
"""The games the browser drill offers (each also command-first)."""

MAX_TRIALS_PER_SESSION = 10_000
MAX_LATENCY_MS = 3_600_000.0
TRIALS_PER_SECOND = 20.0
"""Rows one session may add per second, on average; a person answers a few per second at most."""
TRIAL_BURST = 100
"""Rows one session may add at once: what a page kept while the server was away, sent in one go."""

MAX_SESSIONS_TRACKED = 10_000

TRIAL_FIELDS = ("session_id", "trial", "player", "variant", "command_first", "command", "dice", "positions",
                "answer", "latency_ms", "too_early", "timed_out", "foreperiod_ms", "seed", "timestamp")
"""What a browser sends per trial. `expected` and `correct` are not among them: the server works them out."""

_TABLE_FIELDS = ("scatter_mm", "die_mm", "tolerance")


def trial_row(trial: object) -> TrialRow:
    """The drill log row of one posted trial (a JSON object), or InputError naming the first bad field.

    The JSON is checked here (types, ranges, where the dice lie); the row is
    built by `drill.trial.judged_trial`, which works out `expected`,
    `accepted` and `correct` from the roll, with `interface` browser.
    """
    if not isinstance(trial, Mapping):
        raise InputError("send one JSON object per trial", field="trial")
    unknown = sorted(set(trial) - set(TRIAL_FIELDS))
    if unknown:
        raise InputError("not a field of a trial (the server works out expected and correct itself); "
                         f"fields: {', '.join(TRIAL_FIELDS)}", field=str(unknown[0]))
    missing = [name for name in TRIAL_FIELDS if name not in trial]
    if missing:
        raise InputError("missing", field=missing[0])
    session_id = trial["session_id"]
    if not isinstance(session_id, str) or not _is_uuid(session_id):
        raise InputError(f"must be a UUID such as {uuid.UUID(int=0)}, got {str(session_id)[:40]!r}",
                         field="session_id")
    number = _whole("trial", trial["trial"], 1, MAX_TRIALS_PER_SESSION)
    name = trial["variant"]
    if name not in BROWSER_VARIANTS:
        raise InputError(f"must be one of {', '.join(BROWSER_VARIANTS)}, got {str(name)[:40]!r}", field="variant")
    variant = Variant.preset(name)
    command_first = _boolean("command_first", trial["command_first"])
    dice = _dice(variant, trial["dice"])
    positions = _checked_positions(variant, trial["positions"])
    too_early = _boolean("too_early", trial["too_early"])
    timed_out = _boolean("timed_out", trial["timed_out"])
    if too_early and timed_out:
        raise InputError("a trial answered too early did not time out; at most one of too_early and timed_out",
                         field="timed_out")
    answer, latency_ms = trial["answer"], trial["latency_ms"]
    if too_early or timed_out:
        if answer != NO_ANSWER:
            raise InputError(f"must be {NO_ANSWER!r} when the trial was answered too early or timed out",
                             field="answer")
        if latency_ms is not None:
            raise InputError("must be null when there was no answer", field="latency_ms")
        answer = None
    else:
        if answer not in (*variant.colors, GREY):
            raise InputError(f"must be one of {', '.join((*variant.colors, GREY))}, got {str(answer)[:40]!r}",
                             field="answer")
        latency_ms = round(_number("latency_ms", latency_ms, MAX_LATENCY_MS), 1)
    foreperiod_ms = None if trial["foreperiod_ms"] is None else _number(
        "foreperiod_ms", trial["foreperiod_ms"], MAX_FOREPERIOD_MS)
    seed = None if trial["seed"] is None else _whole("seed", trial["seed"], 0, MAX_SEED)
    return judged_trial(
        variant, trial["command"], dice, positions, answer, latency_ms, interface=BROWSER, player=trial["player"],
        session_id=session_id, trial=number, timestamp=_timestamp(trial["timestamp"]), command_first=command_first,
        too_early=too_early, foreperiod_ms=foreperiod_ms, seed=seed)


def _is_uuid(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text.lower()
    except ValueError:
        return False


def _whole(field: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"must be a whole number from {low} to {high}, got {str(value)[:40]!r}", field=field)
    return value


def _number(field: str, value: object, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and 0 <= value <= high):
        raise InputError(f"must be a finite number of ms from 0 to {high:g}, got {str(value)[:40]!r}", field=field)
    return float(value)


def _boolean(field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"must be true or false, got {str(value)[:40]!r}", field=field)
    return value


def _dice(variant: Variant, dice: object) -> dict[str, list[int]]:
    if not isinstance(dice, Mapping) or list(dice) != list(variant.colors):
        raise InputError(f"must map the colors {', '.join(variant.colors)}, in that order, to their values",
                         field="dice")
    for color, values in dice.items():
        if not isinstance(values, list) or len(values) != variant.dice_per_color or not all(
                isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= variant.sides for v in values):
            raise InputError(f"{color} needs {variant.dice_per_color} whole numbers from 1 to {variant.sides}, "
                             f"got {str(values)[:60]}", field="dice")
    return {color: list(values) for color, values in dice.items()}


def _checked_positions(variant: Variant, positions: object) -> Mapping:
    """`positions` once its die centers are checked to be a throw the table allows: every die wholly on it,
    none overlapping (the table's own fields, if given, are checked by `judged_trial`)."""
    if not isinstance(positions, Mapping):
        raise InputError("must be a JSON object of die centers", field="positions")
    centers = {key: value for key, value in positions.items() if key not in _TABLE_FIELDS}
    if list(centers) != ["command", *variant.colors]:
        raise InputError(f"needs the keys command, {', '.join(variant.colors)}", field="positions")
    for key, value in centers.items():
        points = [value] if key == "command" else value
        count = 1 if key == "command" else variant.dice_per_color
        if not (isinstance(points, list) and len(points) == count and all(_is_point(p) for p in points)):
            raise InputError(f"{key} needs {'one point' if count == 1 else count} [x, y] in mm", field="positions")
    check_landed(variant.table, positions_from_mapping(variant.colors, variant.dice_per_color, centers))
    return positions


def _is_point(point: object) -> bool:
    return isinstance(point, list) and len(point) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in point)


def _timestamp(value: object) -> datetime:
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            moment = None
        if moment is not None and moment.tzinfo is not None:
            return moment
    raise InputError(f"must be an ISO 8601 time with its zone, e.g. 2026-01-31T12:00:00.000Z, got {str(value)[:40]!r}",
                     field="timestamp")


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

        InputError when the session sends trials faster than TRIALS_PER_SECOND (after a burst of
        TRIAL_BURST), or when the log cannot be written.
        """
        key = (row.session_id, row.trial)
        with self._lock:
            self._catch_up()
            if key in self._stored:
                return False
            self._take_token(row.session_id)
            self.log.append(row)
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
