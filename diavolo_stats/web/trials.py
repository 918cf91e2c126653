"""Trials sent by the browser drill: checked field by field, judged by the rules, logged once.

`trial_row` checks a posted trial (declared as `TRIAL`) and builds its row with `judged_trial`, as every drill
does, so the verdict is worked out from the roll, never taken from the client; its `interface` is `browser`.
`TrialStore.add` appends it unless the log already holds that session's trial number, so a browser that sends a
trial again (it never heard the answer) stores it once. Why: docs/architecture.md, "Trials from the browser".
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diavolo_stats.core.commands import COMMAND_NAME, NAME_RULE
from diavolo_stats.core.variant import COLOR_NAME, COLOR_RULE, GREY, Variant
from diavolo_stats.drill import MAX_TRIALS_PER_SESSION, MIN_LATENCY_MS
from diavolo_stats.drill.log import (
    BROWSER_INTERFACE,
    MAX_SEED,
    NO_ANSWER,
    PLAYER_NAME,
    DrillLog,
    FollowedLog,
    StoredTrial,
    TrialRow,
)
from diavolo_stats.drill.log.rules import rules_cell
from diavolo_stats.drill.log.schema import EARLIEST, LATEST, MAX_AHEAD
from diavolo_stats.drill.scheduler import HISTORY_COLUMNS, HISTORY_FRAME, recent_history, recent_trials
from diavolo_stats.drill.settings import MAX_FOREPERIOD_MS
from diavolo_stats.drill.teaching import command_words
from diavolo_stats.drill.trial import Dice, DieCenters, judged_trial
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
    json_spelled,
)
from diavolo_stats.web.bucket import TokenBucket
from diavolo_stats.web.busy import NotStored

if TYPE_CHECKING:
    import pandas as pd

PAGE_COLUMNS = ("session_id", "player", "trial", "timestamp", "variant", "command", "correct", "latency_ms",
                "too_early", "timed_out")
"""What the session summaries and the progress page read of a row (`TrialStore.figures`), with its line: their
figures, each command by its label (a game's own named by its variant), and where each player's latest answers
are read again (`load_rows` checks the trial a line holds). Only these are typed: a large log reads faster."""

ANSWER_COLUMNS = ("session_id", "player", "trial", "timestamp", "too_early", "latency_ms")
"""What finding each player's latest answers reads of a row (`TrialStore.latest_answers`), with its line."""

BROWSER_VARIANTS = ("standard", "kids")
"""The games the browser drill offers (each also command-first)."""
SERVED = "served"
"""The browser drill's name for the game the server holds (a variant file, as
`app.state.variant`) when it is not a preset: its rules are the file's."""
GAME_NAME = OneOf((*BROWSER_VARIANTS, SERVED))
"""The game a page asks for: a preset's name, or SERVED (`drilled_variant` says which the server has)."""


def drill_variants(held: Variant | None) -> tuple[str, ...]:
    """The games the browser drill offers: the presets, and SERVED when the server holds a game that is none."""
    return BROWSER_VARIANTS if held is None or rules_cell(held) in BROWSER_VARIANTS else (*BROWSER_VARIANTS, SERVED)


def offered_games(held: Variant | None) -> dict[str, str]:
    """The games a page offers (`drill_variants(held)`), each with the name it shows: a preset's own, the
    file's for SERVED."""
    return {name: (f"{held.name or 'the variant file'} (the server's)" if name == SERVED else name)
            for name in drill_variants(held)}


def drawn_game(variant: Variant) -> dict:
    """What a page draws a game's rolls with, as JSON types: the game (`Variant.as_dict`), its commands' words
    (`teaching.command_words`) and whether its dice show pips (every face 1 to 6), else numerals."""
    return {"game": variant.as_dict(), "commands": command_words(variant),
            "pips": all(set(faces) <= set(range(1, 7)) for faces in variant.color_faces)}


def default_drill_variant(held: Variant | None) -> str:
    """The game the drill's setup offers first: the server's own (SERVED, or the preset it holds), else the box."""
    offered = drill_variants(held)
    if SERVED in offered:
        return SERVED
    return rules_cell(held) if held is not None and rules_cell(held) in offered else offered[0]


def drilled_variant(name: str, held: Variant | None) -> Variant:
    """The game a browser drill named `name` plays: a preset, or for SERVED the server's (`held`);
    InputError naming `variant` when the server holds no such game."""
    if name == SERVED:
        if held is None or SERVED not in drill_variants(held):
            raise InputError("the server holds no variant file; allowed: " + ", ".join(BROWSER_VARIANTS),
                             field="variant")
        return held
    return Variant.preset(name)

MAX_LATENCY_MS = 3_600_000.0
"""The longest latency a browser trial may report: an hour, in ms (a page left open on a roll)."""

TRIALS_PER_SECOND = 20.0
"""Rows one session may add per second, on average; a person answers a few per second at most."""
TRIAL_BURST = 100
"""Rows one session may add at once: what a page kept while the server was away, sent in one go."""

MAX_SESSIONS_TRACKED = 10_000


@dataclasses.dataclass(frozen=True)
class Moment(Rule):
    """An ISO 8601 time with its zone (`Z` for UTC), kept as a datetime in UTC, within the drill log's range
    (`EARLIEST` to `LATEST`) and at most `MAX_AHEAD` ahead of this computer's clock (a page's clock may be
    somewhat off; a trial from next year is forged): the log schema's rule, checked here to answer 400."""

    def normalize(self, value: Any) -> datetime:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else None
            if moment is not None and moment.tzinfo is not None:
                moment = moment.astimezone(timezone.utc)
        except (ValueError, OverflowError):  # not ISO 8601, or its zone moves it out of the calendar
            moment = None
        if moment is None or moment.tzinfo is None or not EARLIEST <= moment < LATEST:
            raise ValueError(f"must be an ISO 8601 time with its zone from {EARLIEST:%Y-%m-%d} to "
                             f"{LATEST:%Y-%m-%d}, e.g. 2026-01-31T12:00:00.000Z")
        if moment - datetime.now(timezone.utc) > MAX_AHEAD:
            raise ValueError(f"must be at most {MAX_AHEAD.days} day ahead of the server's clock")
        return moment

    def bad_values(self) -> list[Any]:
        return ["yesterday", "2026-11-30T12:00:00", "", 1764504000, None, "2099-01-01T00:00:00Z",
                "0001-01-01T00:00:00+14:00"]


BOOLEAN = Flag(json=True)
"""true or false, as a web client sends them."""

ANSWER_NAME = Text(max_length=COLOR_RULE.max_length, pattern=COLOR_NAME,
              described=f"a color of the game, {GREY} or {NO_ANSWER}")
"""An answer as a page sends it: a color's name (which colors the game has is `core.variant.check_answer`'s
to say), grey, or none."""

TRIAL = Record("trial", {
    "session_id": Text(max_length=36, pattern=r"(?i)[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}",
                       described=f"a UUID such as {uuid.UUID(int=0)}"),
    "trial": Whole(1, MAX_TRIALS_PER_SESSION),
    "player": PLAYER_NAME,
    "variant": GAME_NAME,
    "command_first": BOOLEAN,
    "command": Text(max_length=NAME_RULE.max_length, pattern=COMMAND_NAME, described="a command's name"),
    "dice": Dice(),
    "positions": DieCenters(),
    # A color's name, grey or none; which colors the trial's game has is `judged_trial`'s check.
    "answer": ANSWER_NAME,
    "latency_ms": Maybe(Number(at_least=MIN_LATENCY_MS, at_most=MAX_LATENCY_MS, unit="ms")),
    "too_early": BOOLEAN,
    "timed_out": Maybe(BOOLEAN),
    "foreperiod_ms": Maybe(Number(at_least=0, at_most=MAX_FOREPERIOD_MS, unit="ms")),
    "seed": Maybe(Whole(0, MAX_SEED)),
    "timestamp": Moment(),
}, defaults={"timed_out": None})
"""What a browser sends per trial, every field required (null where it says so) but `timed_out`, which
`judged_trial` works out (and checks when it is sent). `expected`, `accepted` and `correct` are not among them:
the server works them out."""


def trial_row(body: object, held: Variant | None = None) -> TrialRow:
    """The drill log row of one posted trial (a JSON object), or InputError naming the first bad field.
    held: the game the server holds, the one a trial of variant SERVED is judged by (`drilled_variant`).

    The fields are checked as TRIAL declares them; the row is built by `drill.trial.judged_trial`, with
    `interface` browser.
    """
    trial = TRIAL.check(body)
    latency_ms = trial["latency_ms"]
    foreperiod_ms = trial["foreperiod_ms"]
    return judged_trial(
        drilled_variant(trial["variant"], held), trial["command"], trial["dice"], trial["positions"], trial["answer"],
        None if latency_ms is None else round(float(latency_ms), 1), interface=BROWSER_INTERFACE,
        player=trial["player"], session_id=trial["session_id"], trial=trial["trial"], timestamp=trial["timestamp"],
        command_first=trial["command_first"], too_early=trial["too_early"], timed_out=trial["timed_out"],
        foreperiod_ms=None if foreperiod_ms is None else float(foreperiod_ms), seed=trial["seed"],
        spelled=json_spelled)


@contextlib.contextmanager
def _not_stored(what: str, then: str, every_error: bool = False) -> Iterator[None]:
    """An InputError of the log (disk full, lock held; any InputError with `every_error`) as NotStored, saying
    `what` was not stored and what happens `then`."""
    try:
        yield
    except InputError as error:
        if error.field != "log" and not every_error:
            raise
        raise NotStored(f"log: {what} not stored ({error.message}); {then}") from None


class TooFast(InputError):
    """A session sent more trials a second than a person can answer (HTTP 429)."""


Verdict = StoredTrial
"""A stored trial's `expected`, `accepted` and `correct`: what the server answers about it."""


class TrialStore:
    """Adds trials to the drill log at `path`, each (session id, trial number) at most once, and reads it back."""

    def __init__(self, path: str | Path):
        self.log = DrillLog(path)
        self._lock = threading.Lock()  # the token buckets
        self._buckets: dict[str, TokenBucket] = {}  # per session id
        self._figures = FollowedLog(path, PAGE_COLUMNS, lines=True)
        self._rolls = FollowedLog(path, HISTORY_COLUMNS)
        self._rolls_lock = threading.Lock()
        self._recent: dict[str, pd.DataFrame] = {}  # player -> recent_trials of their history
        self._answers = FollowedLog(path, ANSWER_COLUMNS, lines=True)
        self._answers_lock = threading.Lock()
        self._latest: pd.DataFrame | None = None  # each player's latest answers of the rows read so far
        self._players = FollowedLog(path, ("player",))
        self._players_lock = threading.Lock()
        self._names: set[str] = set()  # every player of the log read so far

    def stored(self, session_id: str, trial: int) -> Verdict | None:
        """The verdict of that trial as the log holds it, None when the log does not hold it."""
        with _not_stored("the trial was", "the page sends it again", every_error=True):
            return self.log.stored(session_id, trial)

    def add(self, row: TrialRow) -> tuple[bool, Verdict]:
        """Append `row` (from `trial_row`) unless its trial is already in the log: whether it was appended,
        and the verdict of the trial as stored (the first one, for a trial sent again with another answer).

        TooFast (an InputError) when the session sends trials faster than TRIALS_PER_SECOND (after a
        burst of TRIAL_BURST); NotStored (HTTP 503) when the log cannot take the row now (disk full, the
        lock held by another program): the trial is valid, and sent again later.
        """
        with _not_stored("the trial was", "the page sends it again"):
            return self.log.append_once(row, before_append=lambda: self._take_token(row.session_id))

    def add_rows(self, rows: Sequence[TrialRow]) -> None:
        """Append `rows`, trials the log cannot hold yet (a live table's, each logged once by its table), in one
        write and one fsync; NotStored when the log cannot take them now, and none of them is stored."""
        with _not_stored("the answers were", "the server keeps them and tries again"):
            self.log.append_rows(rows)

    def figures(self) -> pd.DataFrame:
        """The log's rows now, PAGE_COLUMNS and each row's line as `load_logs(..., lines=True)` reads them (what
        the session summaries and the progress page read): read once, then only the rows appended since (shared:
        do not change it)."""
        return self._figures.frame()

    def recent_trials(self, player: str) -> pd.DataFrame:
        """`player`'s recent trials by type of roll, as `drill.scheduler.recent_trials` keeps them (HISTORY_FRAME;
        shared: do not change it): the log read once, then only the rows appended since."""
        import pandas as pd

        with self._rolls_lock:
            rows, restarted = self._rolls.new_rows()
            if restarted:
                self._recent = {}
            if len(rows):
                for name, theirs in recent_history(rows).groupby("player", sort=False):
                    known = self._recent.get(name)
                    self._recent[name] = recent_trials(theirs if known is None else pd.concat([known, theirs]))
            found = self._recent.get(player)
            return pd.DataFrame(columns=list(HISTORY_FRAME)) if found is None else found

    def latest_answers(self) -> pd.DataFrame:
        """Each player's RECENT_ANSWERS most recent answers (`roll_weak_spots.recent_answers`), ANSWER_COLUMNS and
        their lines, the same as of the whole log: the log read once, then only the rows appended since, merged
        with the answers kept (shared: do not change it). InputError when there is no log."""
        import pandas as pd

        from diavolo_stats.analytics.roll_weak_spots import recent_answers

        with self._answers_lock:
            rows, restarted = self._answers.new_rows()
            if restarted or self._latest is None:
                self._latest = recent_answers(rows)
            elif len(rows):
                self._latest = recent_answers(pd.concat([self._latest, rows], ignore_index=True))
            return self._latest

    def players(self) -> list[str]:
        """The log's players, sorted (none before the log exists): the log read once, then only the rows appended
        since, as the Play page lists them on every visit."""
        with self._players_lock:
            if not self.log.path.is_file():
                return []
            rows, restarted = self._players.new_rows()
            if restarted:
                self._names = set()
            self._names.update(map(str, rows["player"].unique()))
            return sorted(self._names)

    def _take_token(self, session_id: str) -> None:
        with self._lock:
            if len(self._buckets) > MAX_SESSIONS_TRACKED:  # forget sessions whose bucket has refilled
                now = time.monotonic()
                self._buckets = {key: bucket for key, bucket in self._buckets.items() if not bucket.refilled(now)}
            bucket = self._buckets.setdefault(session_id, TokenBucket(TRIALS_PER_SECOND, TRIAL_BURST, time.monotonic))
            if not bucket.take():
                raise TooFast(f"more than {TRIALS_PER_SECOND:g} trials a second from one session; send it again "
                              "in a moment", field="trial")
