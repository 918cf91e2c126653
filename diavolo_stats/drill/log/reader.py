"""The drill log: one CSV row per trial, its schema, the writer and THE reader.

Every drill, analysis and simulation that reads drill logs goes through
`load_logs`; every program that writes one goes through `DrillLog`, one
`TrialRow` at a time, so the two always agree on the format below.

The file is UTF-8 CSV, `\\n` line ends, a header line written once when the
file is created, then one line per trial. Each row is written with its line
end in a single `write` under an OS lock on the log file itself (`flock`; no
lock file beside it), then `os.fsync`ed before `DrillLog.append` returns, so
two sessions appending at once never interleave and an answer is on disk
before the next trial is shown. So a last line without its line end is by
construction what a crash mid-write left: the reader skips it with a
warning, and the writer moves it to `<log>.partial` and cuts it off before
it appends the next row. A file holding nothing but the start of the header
(a crash while the log was created) is a new, empty log. The log and
`<log>.partial` are never written through a symbolic link, nor when they are
not regular files. A file that cannot be read or written raises `InputError`
naming it and what failed, never a bare OSError.

Columns (COLUMNS, in this order) and how each cell is written:

- schema_version: 2 (this schema; see "Schema versions" below).
- session_id: text, the same for every row of one session.
- player: text as typed (`check_player`: 1 to 100 characters, no control,
  zero-width or text-direction characters; the reader applies the same
  rule); a name starting with `=`, `+`, `-`, `@` or `'` is written with one
  `'` in front (`files.guard_cell`) so that a spreadsheet shows it as text
  instead of running it as a formula (`load_logs` removes that quote).
- trial: 1, 2, ... within the session (too-early rows have their own number).
- timestamp: ISO 8601 in UTC with microseconds, when the stimulus appeared;
  in a too-early row, when the key was read (no stimulus was shown).
- variant: text naming the game: `standard` or `kids` when it is exactly that
  preset (colors, dice, sides, commands and table), else `custom`.
- dice_per_color: whole number.
- command_first: `true` or `false`.
- command: a command name (`highest-total`, ...).
- dice: JSON, the values per color, `{"black": [2, 3, 6], ...}`.
- positions: JSON, die centers in mm on the table, then the table model's
  fields (`logged_positions`): `{"command": [x, y], "black": [[x, y], ...],
  ..., "scatter_mm": 300.0, "die_mm": 16.0, "tolerance": 0.1}`.
- expected: a color or `grey`, the table's call (`rules.resolve`).
  answer: a color, `grey` or `none`.
- correct: `true` when the answer is one of `accepted`, else `false`.
- too_early, timed_out: `true` or `false`.
- latency_ms: milliseconds from stimulus on screen to key read, 3 decimals;
  empty when there was no answer.
- foreperiod_ms: milliseconds between the fixation mark and the stimulus;
  empty if unknown.
- seed: the session's random seed (whole number 0 to 2**63 - 1), or empty.
- app_version: the version of the program that wrote the row.
- interface: what the player answered on: `terminal` (`diavolo drill`) or
  `browser` (the web drill).
- accepted: JSON list of the answers counted right for the roll, `expected`
  first: one answer, or two for a `closest` roll grey only by the perception
  tolerance (grey and the strictly nearest color; `rules.accepted_answers`).

Schema versions. 1: the first 20 columns (up to `app_version`). 2 adds
`interface` and `accepted`. `load_logs` reads both: a version-1 row loads as
`interface` terminal and `accepted` [expected], keeping its `schema_version`
1. The writer appends only to a version-2 log and never rewrites a log by
itself: a version-1 log is refused, naming `diavolo log upgrade FILE`
(`upgrade_log`), which writes the version-2 file whole and keeps the
original beside it.
"""

from __future__ import annotations

import csv
import dataclasses
import fcntl
import io
import json
import math
import os
import re
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats import __version__
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import GREY, Command
from diavolo_stats.errors import InputError
from diavolo_stats.files import GUARD, fsync_folder, guard_cell, open_regular, write_atomically
from diavolo_stats.results import TextResult
from diavolo_stats.validation import CONTROL, CONTROL_CODES, Rule

SCHEMA_VERSION: int = 2

COLUMNS: tuple[str, ...] = (
    "schema_version", "session_id", "player", "trial", "timestamp", "variant", "dice_per_color",
    "command_first", "command", "dice", "positions", "expected", "answer", "correct", "latency_ms",
    "too_early", "timed_out", "foreperiod_ms", "seed", "app_version", "interface", "accepted",
)

FIGURE_COLUMNS: tuple[str, ...] = tuple(column for column in COLUMNS if column not in ("dice", "positions", "accepted"))
"""Every column but the roll's JSON cells: what summaries, the adaptive scheduler and player fits read. Leaving
the JSON out makes `load_logs` about four times faster on a large log (each JSON cell is parsed to be checked)."""

COLUMNS_V1: tuple[str, ...] = COLUMNS[:-2]
"""The columns of schema version 1: all but `interface` and `accepted`."""

INTERFACES: tuple[str, ...] = ("terminal", "browser")
"""The `interface` values: the terminal drill and the web drill."""

LOADED_COLUMNS: tuple[str, ...] = COLUMNS + ("source", "is_tie")
"""The columns of `load_logs`' frame: the file's columns, the file it came from, and whether the roll was a tie."""

NO_ANSWER = "none"
"""The `answer` of a trial with no answer: timed out, or a key pressed too early."""

LOG_ENV = "DIAVOLO_LOG"
HEADER_LINE = ",".join(COLUMNS)
HEADER_LINE_V1 = ",".join(COLUMNS_V1)
BACKUP_SUFFIX = ".schema1.bak"
"""`diavolo log upgrade` keeps the version-1 original as `<log>` + this."""
MAX_SEED = 2**63 - 1
MAX_PLAYER_LENGTH = 100
LOCK_TIMEOUT_S = 10.0
LOCK_POLL_S = 0.02

# In a name also: zero-width characters, bidi embeddings, overrides and isolates (U+202E turns the
# rest of a line around on screen), word joiners and the byte order mark.
_HIDDEN_CODES = (0x061C, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x206A), 0xFEFF)
# Character classes written with the characters themselves (none is special inside brackets), so that
# Python's `re` and Arrow's RE2 (which does not read \u escapes) read them alike; NUL is checked apart.
_CONTROL_CHARACTERS = "[" + "".join(map(chr, CONTROL_CODES)) + "]"
_NOT_IN_NAME_CHARACTERS = "[" + "".join(map(chr, CONTROL_CODES + _HIDDEN_CODES)) + "]"
_NOT_IN_NAME = re.compile(_NOT_IN_NAME_CHARACTERS + "|\x00")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_BOOLEANS = {"true": True, "false": False}
_STRING = pd.StringDtype()


class TruncatedLogWarning(UserWarning):
    """A drill log ends in an incomplete row (the writer stopped mid-row): skipped by the reader, moved to
    `<log>.partial` by the writer."""


def default_log_path() -> Path:
    """The log a drill appends to: $DIAVOLO_LOG if set, else `data/drills.csv` under the current directory."""
    configured = os.environ.get(LOG_ENV, "").strip()
    return Path(configured) if configured else Path("data") / "drills.csv"


SAMPLE_LOG = Path("data") / "sample_drills.csv"
"""The synthetic drill log shipped with the project (relative to a clone's root), to try commands before drilling."""


def missing_log_message(path: str | Path, *alternatives: str) -> str:
    """One line for a drill log that is not there: drill first, give the shipped sample if it is at hand,
    or any of `alternatives`."""
    suggestions = ["drill first"]
    if SAMPLE_LOG.is_file() and Path(path) != SAMPLE_LOG:
        suggestions.append(f"give the shipped sample, {SAMPLE_LOG.as_posix()}")
    suggestions += alternatives
    listed = suggestions[0] if len(suggestions) == 1 else ", ".join(suggestions[:-1]) + " or " + suggestions[-1]
    return f"no drill log at {str(path)!r}; {listed}"


class PlayerName(Rule):
    """Who drilled: what the drill settings, the log writer and the log reader accept (`player_problem`)."""

    def normalize(self, value: object) -> str:
        problem = player_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    def bad_values(self) -> list:
        return ["", "  ", "tab\there", "zero\u200bwidth", "x" * (MAX_PLAYER_LENGTH + 1), 5, None]


PLAYER_NAME = PlayerName()


def check_player(name: object) -> str:
    """The player name as given, or InputError: any letters, digits, spaces and punctuation, 1 to 100 characters.

    Refused: control characters (tabs, line breaks, NUL), zero-width characters and bidi controls (U+200B to
    U+200F, U+202A to U+202E, U+2060 to U+2069, U+FEFF), which hide or reorder what a name shows.
    """
    problem = player_problem(name)
    if problem:
        raise InputError(problem, field="player")
    return name


def player_problem(name: object) -> str | None:
    """What is wrong with a player name (see `check_player`), or None: the writer's and the reader's one rule."""
    if not isinstance(name, str) or not name.strip():
        return "give a name (any letters, spaces allowed)"
    hidden = _NOT_IN_NAME.search(name)
    if hidden:
        return (f"a name cannot contain control, zero-width or text-direction characters; this one has "
                f"U+{ord(hidden.group()):04X} at position {hidden.start() + 1}")
    if len(name) > MAX_PLAYER_LENGTH:
        return f"at most {MAX_PLAYER_LENGTH} characters, not {len(name)}"
    return None


def logged_positions(positions: Mapping, table: TableModel) -> dict:
    """The `positions` cell of a roll: its die centers (mm) and every field of the table it was thrown on,
    so that a row alone gives its expected answer."""
    return {**positions, **dataclasses.asdict(table)}


@dataclass(frozen=True)
class TrialRow:
    """One trial as the log stores it: every column but `schema_version` (always this schema).

    Checked at construction: a value the schema does not allow raises
    InputError naming its field, so a `TrialRow` can always be written.
    Build one with `drill.trial.judged_trial`, which works out `expected`,
    `accepted` and `correct` from the roll; the column list in the module doc
    says what each field holds.
    """

    session_id: str
    player: str
    trial: int
    timestamp: datetime
    variant: str
    dice_per_color: int
    command_first: bool
    command: Command
    dice: Mapping[str, Sequence[int]]
    positions: Mapping
    expected: str
    answer: str
    correct: bool
    latency_ms: float | None
    too_early: bool
    timed_out: bool
    foreperiod_ms: float | None
    seed: int | None
    interface: str
    accepted: tuple[str, ...]
    app_version: str = __version__

    def __post_init__(self) -> None:
        if isinstance(self.accepted, (list, tuple)):
            object.__setattr__(self, "accepted", tuple(self.accepted))
        cells = dict(zip(COLUMNS, self.cells()))  # every check of the schema
        object.__setattr__(self, "command", Command(cells["command"]))
        object.__setattr__(self, "timestamp", datetime.fromisoformat(cells["timestamp"]))

    def cells(self) -> list[str]:
        """The row's cells in COLUMNS order, as written."""
        return format_row({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})


class DrillLog:
    """An append-only drill log at `path`.

    Creating it creates the file (and its folder) with the header, or checks
    that an existing file's header is this schema and that the file can be
    appended to: InputError naming the file otherwise, and the file is left
    untouched. A file holding nothing but the start of the header (a crash
    while the log was created) is a new, empty log: its header is completed.
    The log must be a regular file, not a symbolic link (so is `<log>.partial`).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        with _os_errors(f"cannot read {self.path}"):
            is_folder = self.path.is_dir() and not self.path.is_symlink()
        if is_folder:
            raise InputError(f"{self.path} is a folder, not a file", field="log")
        with _os_errors(f"cannot create the folder for {self.path}"):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        with self._locked(create=True) as descriptor:
            if _is_header_start(descriptor):
                _replace_content(descriptor, self.path, HEADER_LINE + "\n")
            else:
                self._check_header(descriptor)
        if created:
            _sync_new_entry(self.path)

    def append(self, row: TrialRow) -> None:
        """Write one trial; returns once the row is fsynced."""
        self.append_rows([row])

    def append_rows(self, rows: Sequence[TrialRow]) -> None:
        """Write several trials at once, as `append` writes one, in one write, then fsynced. For rows no
        person is waiting on (a synthetic log); a drill appends each answer as it is given."""
        for row in rows:
            if not isinstance(row, TrialRow):
                raise InputError(f"must be a TrialRow, got {type(row).__name__}", field="row")
        data = "".join(_csv_line(row.cells()) for row in rows).encode("utf-8")
        with self._locked(create=True) as descriptor:
            if _is_header_start(descriptor):  # deleted, emptied or cut since the session started
                _replace_content(descriptor, self.path, HEADER_LINE + "\n")
            else:
                self._end_last_line(descriptor)
            _write_synced(descriptor, self.path, data)

    @contextmanager
    def _locked(self, create: bool) -> Iterator[int]:
        """The log opened for appending, under an exclusive OS lock on the file itself (`flock`), so that
        two sessions appending at once never interleave; no lock file is left beside the log."""
        try:
            descriptor = open_regular(self.path, os.O_RDWR | os.O_APPEND, create=create)
        except InputError as error:
            raise InputError(error.message, field="log") from None
        try:
            waited = 0.0
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if waited >= LOCK_TIMEOUT_S:
                        raise InputError(f"{self.path} stayed locked by another program for "
                                         f"{LOCK_TIMEOUT_S:g} s", field="log") from None
                    time.sleep(LOCK_POLL_S)
                    waited += LOCK_POLL_S
                except OSError as error:
                    raise InputError(f"cannot lock {self.path} ({error.strerror})", field="log") from None
            yield descriptor
        finally:
            os.close(descriptor)  # closing releases the lock

    def _check_header(self, descriptor: int) -> None:
        with _os_errors(f"cannot read {self.path}"):
            first = os.pread(descriptor, len(HEADER_LINE) + 2, 0).split(b"\n")[0]
        header = first.rstrip(b"\r").decode("utf-8", errors="replace")
        if header == HEADER_LINE_V1:
            raise InputError(f"{self.path} is a drill log of schema 1, and this program writes schema "
                             f"{SCHEMA_VERSION}; it was left untouched. Upgrade it with: diavolo log upgrade "
                             f"{self.path}", field="log")
        if header != HEADER_LINE:
            raise InputError(f"{self.path} is not a drill log of schema {SCHEMA_VERSION} (its first line "
                             f"is not the header {COLUMNS[0]},{COLUMNS[1]},...); it was left untouched: "
                             "choose another log file", field="log")

    def _end_last_line(self, descriptor: int) -> None:
        """Make the next row start on a line of its own.

        The writer writes every row with its line end in one write, so a last
        line without one was cut by a crash mid-write: it is appended to
        `<log>.partial`, so nothing a person produced is lost, and cut off
        the log, with a TruncatedLogWarning.
        """
        with _os_errors(f"cannot read {self.path}"):
            size = os.fstat(descriptor).st_size
            if os.pread(descriptor, 1, size - 1) == b"\n":
                return
            # Rows are short: the last line end is in the last few kilobytes.
            start = max(0, size - 65536)
            tail = os.pread(descriptor, size - start, start)
        cut = start + tail.rfind(b"\n") + 1
        if cut == start:
            raise InputError(f"{self.path} has no complete line at its end; it was left untouched", field="log")
        partial = self.path.with_name(self.path.name + ".partial")
        _append_synced(partial, tail[cut - start:] + b"\n")
        with _os_errors(f"cannot cut the incomplete last row off {self.path}"):
            os.ftruncate(descriptor, cut)
            os.fsync(descriptor)
        warnings.warn(f"{self.path}: an incomplete last row (a crash mid-write) was moved to {partial} "
                      "before appending", TruncatedLogWarning, stacklevel=3)


@dataclass(frozen=True)
class LogUpgrade(TextResult):
    """What `upgrade_log` did: the log now of this schema, the original kept as `backup`, and its rows."""

    log: Path
    backup: Path
    row_count: int
    columns: tuple[str, ...] = ("log", "backup", "rows", "schema_version")

    def document(self) -> dict:
        return self.rows()[0]

    def rows(self) -> list[dict]:
        return [{"log": str(self.log), "backup": str(self.backup), "rows": self.row_count,
                 "schema_version": SCHEMA_VERSION}]

    def text(self) -> str:
        return (f"upgraded {self.log} to drill log schema {SCHEMA_VERSION} ({self.row_count} rows); "
                f"the original is kept as {self.backup}")


def upgrade_log(path: str | Path) -> LogUpgrade:
    """Rewrite the version-1 drill log at `path` as version 2, keeping the original as `<path>.schema1.bak`.

    Each row keeps every byte of its version-1 line but the leading version
    (1 becomes 2) and gains `interface` terminal and `accepted` [expected]
    at its end; the header gains the two columns. The backup is written
    first, then the new log replaces the old one whole (temporary file and
    rename). A last line cut mid-write by a crash is carried over as it is
    (the reader skips it; the writer moves it to `<log>.partial`).
    InputError, and nothing written, when `path` is not a version-1 drill
    log (one that `load_logs` reads) or the backup already exists.
    """
    path = Path(path)
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncatedLogWarning)  # the cut line is carried over, not lost
        rows = len(_load_one(path, COLUMNS))  # every row checked before anything is written
    with _os_errors(f"cannot read {path}"):
        data = path.read_bytes()
    text = data.decode("utf-8")
    lines = text.split("\n")
    if _header_version(lines[0]) != 1:
        raise InputError(f"{path} is already a drill log of schema {SCHEMA_VERSION}; nothing to upgrade")
    if backup.exists() or backup.is_symlink():
        raise InputError(f"{backup} exists (an earlier upgrade's backup?); move it away and run again")
    tail = lines.pop()  # "" when the file ends with a line end
    if tail and not lines:  # the header alone, cut before its line end
        lines.append(tail)
        tail = ""
    upgraded = [_v2_line(lines[0], HEADER_LINE)] + [_v2_line(line) for line in lines[1:]]
    write_atomically(backup, data)
    write_atomically(path, "".join(line + "\n" for line in upgraded) + tail)
    return LogUpgrade(log=path, backup=backup, row_count=rows)


def _v2_line(line: str, header: str | None = None) -> str:
    """A version-1 line as version 2: the header replaced, or the row with `2` for its leading `1` and the
    two new cells after its last; a `\r` line end stays at the end."""
    ending = "\r" if line.endswith("\r") else ""
    body = line[:len(line) - len(ending)]
    if header is not None:
        return header + ending
    cells = next(csv.reader([body], strict=True))
    if not body.startswith("1,"):
        raise InputError(f"a row of schema 1 must start with '1,', got {body[:20]!r}")
    return "2" + body[1:] + "," + _csv_line(_v1_extra_cells(cells)).rstrip("\n") + ending


def _is_header_start(descriptor: int) -> bool:
    """Whether the open log holds nothing but the start of the header (or nothing): a log being created."""
    size = os.fstat(descriptor).st_size
    if size > len(HEADER_LINE) + 1:
        return False
    return is_header_start(os.pread(descriptor, size, 0))


def is_header_start(content: bytes) -> bool:
    """Whether `content` (a whole file) is empty or the header cut before its line end: a new, empty log."""
    return b"\n" not in content and HEADER_LINE.encode("ascii").startswith(content.removesuffix(b"\r"))


def is_drill_log(path: Path) -> bool:
    """Whether the file at `path` starts with this schema's header line (or the start of it: a new log)."""
    with _os_errors(f"cannot read {path}"), open(path, "rb") as file:
        start = file.read(len(HEADER_LINE) + 2)
    return is_header_start(start) or start.split(b"\n")[0].rstrip(b"\r") == HEADER_LINE.encode("ascii")


def _replace_content(descriptor: int, path: Path, text: str) -> None:
    with _os_errors(f"cannot write the header of {path}"):
        os.ftruncate(descriptor, 0)
    _write_synced(descriptor, path, text.encode("utf-8"))


def _write_synced(descriptor: int, path: Path, data: bytes) -> None:
    """Write all of `data` to an open file and fsync it; InputError naming the file and what failed."""
    with _os_errors(f"cannot write to {path}"):
        while data:  # os.write may write less than asked (a full disk, a signal)
            data = data[os.write(descriptor, data):]
    with _os_errors(f"cannot save {path} to disk (fsync)"):
        os.fsync(descriptor)


def _append_synced(path: Path, data: bytes) -> None:
    """Append `data` to `path` (created if missing; never through a link) and fsync it."""
    created = not path.exists()
    try:
        descriptor = open_regular(path, os.O_WRONLY | os.O_APPEND, create=True)
    except InputError as error:
        raise InputError(error.message, field="log") from None
    try:
        _write_synced(descriptor, path, data)
    finally:
        os.close(descriptor)
    if created:
        _sync_new_entry(path)


def _sync_new_entry(path: Path) -> None:
    """The new directory entry of `path` must survive a crash too, not only the data."""
    with _os_errors(f"cannot save the folder of {path} to disk (fsync)"):
        fsync_folder(path.parent)


@contextmanager
def _os_errors(failed: str) -> Iterator[None]:
    """Raise an OSError met inside as InputError about the log: `failed` (naming the file), then the system's reason."""
    try:
        yield
    except OSError as error:
        raise InputError(f"{failed} ({error.strerror or error})", field="log") from None


def format_row(row: Mapping) -> list[str]:
    """The cells of one row, in COLUMNS order, as written; InputError naming the column if a value is not allowed."""
    values = {"schema_version": SCHEMA_VERSION, "app_version": __version__, **row}
    unknown = sorted(set(values) - set(COLUMNS))
    missing = [c for c in COLUMNS if c not in values]
    if unknown or missing:
        raise InputError(f"unknown columns {unknown}, missing columns {missing}", field="row")
    cells = {
        "schema_version": _int_cell("schema_version", values["schema_version"], SCHEMA_VERSION, SCHEMA_VERSION),
        "session_id": _text_cell("session_id", values["session_id"]),
        "player": guard_cell(check_player(values["player"])),
        "trial": _int_cell("trial", values["trial"], 1, None),
        "timestamp": _timestamp_cell(values["timestamp"]),
        "variant": _text_cell("variant", values["variant"]),
        "dice_per_color": _int_cell("dice_per_color", values["dice_per_color"], 1, None),
        "command_first": _bool_cell("command_first", values["command_first"]),
        "command": Command.parse(str(values["command"]), "command").value,
        "dice": _json_cell("dice", values["dice"]),
        "positions": _json_cell("positions", values["positions"]),
        "expected": _text_cell("expected", values["expected"]),
        "answer": _text_cell("answer", values["answer"]),
        "correct": _bool_cell("correct", values["correct"]),
        "latency_ms": _float_cell("latency_ms", values["latency_ms"]),
        "too_early": _bool_cell("too_early", values["too_early"]),
        "timed_out": _bool_cell("timed_out", values["timed_out"]),
        "foreperiod_ms": _float_cell("foreperiod_ms", values["foreperiod_ms"]),
        "seed": "" if values["seed"] is None else _int_cell("seed", values["seed"], 0, MAX_SEED),
        "app_version": _text_cell("app_version", values["app_version"]),
        "interface": _text_cell("interface", values["interface"]),
        "accepted": _accepted_cell(values["accepted"]),
    }
    colors = set(json.loads(cells["dice"]))
    if cells["expected"] not in colors | {GREY}:
        raise InputError(f"must be one of the dice colors or grey, got {cells['expected']!r}", field="expected")
    if cells["answer"] not in colors | {GREY, NO_ANSWER}:
        raise InputError(f"must be one of the dice colors, grey or none, got {cells['answer']!r}", field="answer")
    if cells["interface"] not in INTERFACES:
        raise InputError(f"must be one of {', '.join(INTERFACES)}, got {cells['interface']!r}", field="interface")
    accepted = json.loads(cells["accepted"])
    if accepted[0] != cells["expected"] or not set(accepted) <= colors | {GREY}:
        raise InputError(f"must list the expected answer first, then other colors of the dice or grey, "
                         f"got {accepted}", field="accepted")
    _check_outcome(values, cells["answer"], accepted)
    return [cells[c] for c in COLUMNS]


def _accepted_cell(value: object) -> str:
    if isinstance(value, str) or not isinstance(value, Sequence) or not 1 <= len(value) <= 2 or not all(
            isinstance(answer, str) for answer in value) or len(set(value)) != len(value):
        raise InputError(f"must be one or two different answers, got {value!r}", field="accepted")
    return json.dumps(list(value), ensure_ascii=False)


def _check_outcome(values: Mapping, answer: str, accepted: list[str]) -> None:
    """InputError unless correct, too_early, timed_out and latency_ms agree with the answer."""
    if values["correct"] != (answer in accepted):
        raise InputError(f"must be {answer in accepted} for the answer {answer!r} when {accepted} are accepted",
                         field="correct")
    if (values["too_early"] or values["timed_out"]) and answer != NO_ANSWER:
        raise InputError(f"a too-early or timed-out trial has no answer, got {answer!r}", field="answer")
    if values["too_early"] and values["timed_out"]:
        raise InputError("a trial cannot be both too early and timed out", field="timed_out")
    if answer == NO_ANSWER and not (values["too_early"] or values["timed_out"]):
        raise InputError("a trial with no answer is too early or timed out", field="answer")
    if (answer == NO_ANSWER) != (values["latency_ms"] is None):
        raise InputError("an answer has a latency and no answer has none, got "
                         f"{values['latency_ms']!r} for {answer!r}", field="latency_ms")


def _csv_line(cells: list[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(cells)
    return buffer.getvalue()


def _text_cell(column: str, value: object) -> str:
    if not isinstance(value, str) or not value or CONTROL.search(value):
        raise InputError(f"must be non-empty text without control characters, got {value!r}", field=column)
    return value


def _int_cell(column: str, value: object, low: int, high: int | None) -> str:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low or (
            high is not None and value > high):
        allowed = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise InputError(f"must be a whole number {allowed}, got {value!r}", field=column)
    return str(int(value))


def _bool_cell(column: str, value: object) -> str:
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"must be True or False, got {value!r}", field=column)
    return "true" if value else "false"


def _float_cell(column: str, value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) or not (
            math.isfinite(value) and value >= 0):
        raise InputError(f"must be a finite number of 0 or more (ms), or None, got {value!r}", field=column)
    return f"{float(value):.3f}"


def _timestamp_cell(value: object) -> str:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InputError(f"not an ISO 8601 time: {value!r}", field="timestamp") from None
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InputError(f"must be a time with its time zone (UTC), got {value!r}", field="timestamp")
    return value.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _json_cell(column: str, value: object) -> str:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise InputError(f"not JSON: {value[:40]!r}", field=column) from None
    if not isinstance(value, Mapping) or not value:
        raise InputError(f"must be a non-empty JSON object, got {value!r}", field=column)
    if column == "dice":
        for color, faces in value.items():
            if not (isinstance(color, str) and _NAME.match(color) and isinstance(faces, Sequence) and faces
                    and all(isinstance(f, (int, np.integer)) and not isinstance(f, bool) for f in faces)):
                raise InputError(f"each color name needs a list of whole numbers, got {color!r}: {faces!r}",
                                 field="dice")
        value = {color: [int(f) for f in faces] for color, faces in value.items()}
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InputError(f"cannot be written as JSON ({error})", field=column) from None


def load_logs(paths: Sequence[str | Path], columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Every row of the drill logs at `paths`, one frame; never writes.

    Columns: COLUMNS (or only `columns`, a subset of them, in COLUMNS order:
    a large log is read faster and in less memory), then `source` (the file
    the row came from) and `is_tie` (expected == "grey"; when `expected` is
    read). Every check of a column read applies; the cells of columns not
    read are not checked. Dtypes: `timestamp` datetime64[ns, UTC];
    `command` (categories: the six commands in die order), `expected` and
    `answer` category (the same categories, so they compare); `session_id`, `player`, `variant`, `app_version`,
    `source` pandas "string"; `correct`, `too_early`,
    `timed_out`, `command_first`, `is_tie` bool; `latency_ms`, `foreperiod_ms`
    float64 in ms (NaN when empty); `schema_version`, `trial`,
    `dice_per_color` int64; `seed` Int64 (<NA> when empty); `dice` and
    `positions` the JSON text as written (pandas "string"). Player names are as typed (the
    spreadsheet guard removed).

    InputError naming the file (and line) for a missing file, a foreign
    header, a malformed row or a file it cannot read. A last row without
    its line end (a crash mid-write) is skipped with a TruncatedLogWarning
    naming file and line. A file holding only the start of the header is an
    empty log.

    The file is parsed by pyarrow's CSV reader (only the columns asked for,
    as Arrow strings) and checked column by column; a file it cannot parse
    is read again line by line to name the line at fault.
    """
    wanted = _wanted_columns(columns)
    frames = [_load_one(Path(path), wanted) for path in paths]
    if not frames:
        frames = [_typed(_no_rows(wanted), "", SCHEMA_VERSION)]
    drills = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    # Categories once all files are in: per-file categories would not survive the concat.
    if "command" in drills:
        drills["command"] = pd.Categorical(drills["command"], categories=[c.value for c in Command])
    # One set of categories for both, so that `answer == expected` compares them.
    answer_columns = [column for column in ("expected", "answer") if column in drills]
    answers = sorted(set().union(*(drills[column].unique() for column in answer_columns)) | {GREY, NO_ANSWER})
    for column in answer_columns:
        drills[column] = pd.Categorical(drills[column], categories=answers)
    return drills


def _wanted_columns(columns: Sequence[str] | None) -> list[str]:
    if columns is None:
        return list(COLUMNS)
    unknown = [column for column in columns if column not in COLUMNS]
    if unknown or isinstance(columns, str):
        raise InputError(f"unknown columns {unknown or [columns]}; the log has {', '.join(COLUMNS)}", field="columns")
    return [column for column in COLUMNS if column in columns]


def _no_rows(wanted: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame({column: pd.Series([], dtype=object) for column in wanted})


def _load_one(path: Path, wanted: Sequence[str]) -> pd.DataFrame:
    with _os_errors(f"{path}: cannot read the drill log"):
        if not path.exists():
            raise InputError(f"{path}: no such drill log")
        if not path.is_file():
            raise InputError(f"{path}: not a file")
        with open(path, "rb") as file:
            head = file.read(len(HEADER_LINE) + 2)
            size = file.seek(0, os.SEEK_END)
            # Rows are short: the last line end is in the last few kilobytes.
            tail_start = file.seek(max(0, size - 65536))
            tail = file.read()
    if is_header_start(head) and size == len(head):  # a drill stopped before its first answer: an empty log
        return _typed(_no_rows(wanted), str(path), SCHEMA_VERSION)
    version = _header_version(head.split(b"\n")[0].decode("utf-8", errors="replace"))
    if version is None:
        raise InputError(f"{path}: line 1: not a drill log of schema {SCHEMA_VERSION} or 1 "
                         f"(the header must be {COLUMNS[0]},{COLUMNS[1]},...,{COLUMNS[-1]})")
    end = size
    if not tail.endswith(b"\n"):  # every row is written with its line end in one write: this one was cut
        end = tail_start + tail.rfind(b"\n") + 1
        with _os_errors(f"{path}: cannot read the drill log"), open(path, "rb") as file:
            line = file.read(end).count(b"\n") + 1
        warnings.warn(f"{path}: line {line} is incomplete (the writer stopped mid-row); skipped "
                      f"(the next drill moves it to {path}.partial)", TruncatedLogWarning, stacklevel=3)
    return _typed(_cells(path, end, wanted, version), str(path), version)


def _header_version(line: str) -> int | None:
    """The schema version whose header `line` is, or None."""
    return {HEADER_LINE: SCHEMA_VERSION, HEADER_LINE_V1: 1}.get(line.rstrip("\r"))


def _cells(path: Path, end: int, wanted: Sequence[str], version: int) -> pd.DataFrame:
    """The cells of the columns `wanted` in the first `end` bytes of the log (lines 2 on), as Arrow strings;
    a version-1 log's `interface` and `accepted` as version 2 reads them.

    Parsed by pyarrow; if it cannot parse them (a malformed row, text that is
    not UTF-8), the lines are read one by one to raise InputError naming the
    first bad one.
    """
    import pyarrow as pa

    in_file = COLUMNS if version == SCHEMA_VERSION else COLUMNS_V1
    read = [column for column in COLUMNS if column in in_file and (
        column in wanted or (column == "expected" and "accepted" in wanted))]
    size = path.stat().st_size
    source = path if end == size else io.BytesIO(path.read_bytes()[:end])
    try:
        cells = pd.read_csv(source, engine="pyarrow", usecols=read, keep_default_na=False, na_values=[],
                            dtype={column: pd.ArrowDtype(pa.string()) for column in read})
    except (pa.ArrowInvalid, ValueError, UnicodeDecodeError):
        return _cells_line_by_line(path, end, version)[list(wanted)]
    if version != SCHEMA_VERSION:
        if "interface" in wanted:
            cells["interface"] = INTERFACES[0]
        if "accepted" in wanted:
            cells["accepted"] = [json.dumps([expected], ensure_ascii=False) for expected in cells["expected"]]
    return cells[list(wanted)]


def _v1_extra_cells(cells: Sequence[str]) -> list[str]:
    """The `interface` and `accepted` cells of a version-1 row: the terminal, and its expected answer alone."""
    return [INTERFACES[0], json.dumps([cells[COLUMNS.index("expected")]], ensure_ascii=False)]


def _cells_line_by_line(path: Path, end: int, version: int) -> pd.DataFrame:
    """The cells of every row, (rows, COLUMNS) str, read with Python's csv module one line at a time (a
    version-1 row gets `interface` and `accepted` as version 2 reads them); InputError naming a line that is
    not UTF-8 or not a CSV row of the schema's width."""
    with _os_errors(f"{path}: cannot read the drill log"), open(path, "rb") as file:
        data = file.read(end)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{path}: line {line}: not UTF-8 text") from None
    columns = COLUMNS if version == SCHEMA_VERSION else COLUMNS_V1
    records = []
    for number, line in enumerate(text.split("\n")[1:-1], start=2):
        try:
            cells = next(csv.reader([line.rstrip("\r")], strict=True), [])
        except csv.Error as error:
            raise InputError(f"{path}: line {number}: not a CSV row ({error})") from None
        if len(cells) != len(columns):
            raise InputError(f"{path}: line {number}: {len(cells)} cells, the schema has {len(columns)}")
        records.append(cells if columns is COLUMNS else cells + _v1_extra_cells(cells))
    return pd.DataFrame(records, columns=list(COLUMNS), dtype=object)


# A strict, fast form of the dice cell as the writer writes it; other JSON objects are parsed one by one.
_DICE_AS_WRITTEN = r'\{"[a-z][a-z0-9_]*": \[\d+(?:, \d+)*\](?:, "[a-z][a-z0-9_]*": \[\d+(?:, \d+)*\])*\}'


def _has(text: pd.Series, characters: str) -> np.ndarray:
    """Which cells contain any of `characters` (a regex class) or a NUL: (rows,) bool."""
    return (text.str.contains(characters, regex=True) | text.str.contains("\x00", regex=False)).to_numpy(dtype=bool)


def _typed(frame: pd.DataFrame, source: str, version: int) -> pd.DataFrame:
    """Parse and check the text cells of one file of schema `version` (the columns it holds); InputError naming
    the first bad line."""
    # frame: (rows, some of COLUMNS), every cell text (Arrow strings or str)

    def check(column: str, bad: pd.Series | np.ndarray, allowed: str) -> None:
        bad = np.asarray(bad, dtype=bool)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"{source}: line {row + 2}: {column} must be {allowed}, "
                             f"got {frame[column].iloc[row]!r}")

    present = set(frame.columns)
    typed: dict[str, object] = {}
    for column, low in (("schema_version", 1), ("trial", 1), ("dice_per_color", 1)):
        if column in present:
            digits = frame[column].str.fullmatch(r"[0-9]{1,18}").to_numpy(dtype=bool)
            numbers = pd.to_numeric(frame[column].where(digits, "0"), errors="coerce").to_numpy(dtype=np.int64)
            check(column, ~digits | (numbers < low), f"a whole number of at least {low}")
            typed[column] = numbers
    if "schema_version" in present:
        check("schema_version", typed["schema_version"] != version, f"{version}, as the header says")
    if "seed" in present:
        given = (frame["seed"] != "").to_numpy(dtype=bool)
        digits = frame["seed"].str.fullmatch(r"[0-9]{1,19}").to_numpy(dtype=bool)
        seeds = pd.to_numeric(frame["seed"].where(digits, "0"), errors="coerce").to_numpy(dtype=np.uint64)
        check("seed", given & ~(digits & (seeds <= MAX_SEED)), f"a whole number from 0 to {MAX_SEED}, or empty")
        typed["seed"] = pd.array(np.where(given, seeds, 0).astype(np.int64), dtype="Int64")
        typed["seed"][~given] = pd.NA
    for column in ("session_id", "variant", "app_version"):
        if column in present:
            check(column, (frame[column] == "").to_numpy(dtype=bool) | _has(frame[column], _CONTROL_CHARACTERS),
                  "non-empty text without control characters")
            typed[column] = frame[column]
    if "player" in present:
        guarded = frame["player"].str.startswith(GUARD).to_numpy(dtype=bool)
        players = frame["player"].where(~guarded, frame["player"].str.slice(len(GUARD)))
        bad_names = (_has(players, _NOT_IN_NAME_CHARACTERS) | (players.str.len() > MAX_PLAYER_LENGTH).to_numpy(bool)
                     | (players.str.strip() == "").to_numpy(dtype=bool))
        if bad_names.any():  # the writer's rule (`check_player`), with the line it broke
            row = int(np.flatnonzero(bad_names)[0])
            raise InputError(f"{source}: line {row + 2}: player: {player_problem(players.iloc[row])}")
        typed["player"] = players
    if "timestamp" in present:
        typed["timestamp"] = _timestamps(frame["timestamp"], check)
    for column in ("command_first", "correct", "too_early", "timed_out"):
        if column in present:
            is_true = (frame[column] == "true").to_numpy(dtype=bool)
            check(column, ~is_true & (frame[column] != "false").to_numpy(dtype=bool), "true or false")
            typed[column] = is_true
    if "command" in present:
        check("command", ~frame["command"].isin([c.value for c in Command]).to_numpy(dtype=bool), "a command name")
        typed["command"] = frame["command"]
    if "positions" in present:
        for row, text in enumerate(frame["positions"]):
            _json_object(source, row + 2, "positions", text)
        typed["positions"] = frame["positions"]
    if "interface" in present:
        check("interface", ~frame["interface"].isin(list(INTERFACES)).to_numpy(dtype=bool), " or ".join(INTERFACES))
        typed["interface"] = frame["interface"]
    if "dice" in present:
        codes, color_sets = _dice_colors(source, frame["dice"])
        if "accepted" in present:
            check("accepted", [not _accepted_ok(text, expected, color_sets[code]) for text, expected, code
                               in zip(frame["accepted"], frame["expected"], codes)],
                  "a JSON list of the answers counted right, the expected one first")
        for column, others in (("expected", (GREY,)), ("answer", (GREY, NO_ANSWER))):
            if column in present:
                bad = np.zeros(len(frame), dtype=bool)
                for code, colors in enumerate(color_sets):  # a few sets of colors: one check each
                    rows = codes == code
                    bad[rows] = ~frame[column][rows].isin([*colors, *others]).to_numpy(dtype=bool)
                check(column, bad, "a color of the dice or grey" + (", or none" if NO_ANSWER in others else ""))
        typed["dice"] = frame["dice"]
    for column in ("expected", "answer"):
        if column in present:
            check(column, (frame[column] == "").to_numpy(dtype=bool) | _has(frame[column], _CONTROL_CHARACTERS),
                  "a color, grey" + (" or none" if column == "answer" else ""))
            typed[column] = frame[column]
    for column in ("latency_ms", "foreperiod_ms"):
        if column in present:
            given = (frame[column] != "").to_numpy(dtype=bool)
            numbers = pd.to_numeric(frame[column].where(given, "0"), errors="coerce").to_numpy(dtype=np.float64)
            check(column, given & ~(np.isfinite(numbers) & (numbers >= 0)), "a number of ms of 0 or more, or empty")
            typed[column] = np.where(given, numbers, np.nan)
    if "accepted" in present:
        typed["accepted"] = frame["accepted"]
    typed["source"] = source
    if "expected" in present:
        typed["is_tie"] = (frame["expected"] == GREY).to_numpy(dtype=bool)
    result = pd.DataFrame(typed, index=frame.index)
    result = result[[column for column in LOADED_COLUMNS if column in result]]
    for column in ("session_id", "player", "variant", "app_version", "interface", "dice", "positions", "accepted",
                   "source"):
        if column in result:
            result[column] = result[column].astype(_STRING)
    return result


def _timestamps(text: pd.Series, check) -> pd.Series:
    """ISO 8601 times as datetime64[ns, UTC]; Arrow's parser first (fast), pandas' to find a bad one."""
    import pyarrow as pa

    try:
        strings = pa.array(text, type=pa.string(), from_pandas=True)
        parsed = strings.cast(pa.timestamp("us", tz="UTC"))
        return pd.Series(parsed.to_pandas(), index=text.index).astype("datetime64[ns, UTC]")
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        times = pd.to_datetime(text.astype(object), utc=True, format="ISO8601", errors="coerce")
        check("timestamp", times.isna(), "an ISO 8601 time")
        return times.astype("datetime64[ns, UTC]")


def _dice_colors(source: str, dice: pd.Series) -> tuple[np.ndarray, list[frozenset[str]]]:
    """The colors named in each row's dice cell, as (codes: (rows,) int, sets of colors: one per code);
    InputError naming the line of a cell that is not a JSON object.

    Cells as the writer writes them are matched by one regular expression and read by their few distinct
    color lists; any other cell is parsed as JSON.
    """
    as_written = dice.str.fullmatch(_DICE_AS_WRITTEN).to_numpy(dtype=bool)
    # The color names alone, e.g. '{"black": , "red": , "white": }': a handful of distinct values.
    templates = dice.where(as_written, "").str.replace(r"\[[0-9, ]*\]", "", regex=True)
    codes, distinct = pd.factorize(templates)
    color_sets = [frozenset(json.loads(template.replace(": ,", ": 0,").replace(": }", ": 0}"))) if template
                  else frozenset() for template in distinct]
    for row in np.flatnonzero(~as_written):  # written otherwise (by hand?): each parsed as JSON
        colors = frozenset(_json_object(source, int(row) + 2, "dice", dice.iloc[row]))
        if colors not in color_sets:
            color_sets.append(colors)
        codes[row] = color_sets.index(colors)
    return codes, color_sets


def _accepted_ok(text: str, expected: str, colors: set[str]) -> bool:
    """Whether an `accepted` cell is a JSON list of one or two answers, `expected` first, each a color or grey."""
    try:
        accepted = json.loads(text)
    except ValueError:
        return False
    return (isinstance(accepted, list) and 1 <= len(accepted) <= 2 and accepted[0] == expected
            and all(isinstance(answer, str) for answer in accepted)
            and len(set(accepted)) == len(accepted) and set(accepted) <= colors | {GREY})


def _json_object(source: str, line: int, column: str, text: str) -> dict:
    """The JSON object in a cell; InputError naming the line if it is not a non-empty JSON object."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict) or not value:
        raise InputError(f"{source}: line {line}: {column} must be a JSON object, got {text[:40]!r}")
    return value
