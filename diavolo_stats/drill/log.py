"""The drill log: one CSV row per trial, its schema, the writer and THE reader.

Every drill, analysis and simulation that reads drill logs goes through
`load_logs`; every program that writes one goes through `DrillLog`, one
`TrialRow` at a time, so the two always agree on the format below.

The file is UTF-8 CSV, `\\n` line ends, a header line written once when the
file is created, then one line per trial. Each row is written with a single
`write` under a cross-process file lock (`<log>.lock`, next to the log), then
flushed and `os.fsync`ed before `DrillLog.append` returns, so two sessions
appending at once never interleave and an answer is on disk before the next
trial is shown. A last line without its line end is kept when it is whole
(the header, or a row that passes every check: an editor may drop the final
line end); the writer then adds the line end before the next row. Otherwise
it is what a crash mid-write left: the reader skips it with a warning, and
the writer moves it to `<log>.partial` and cuts it off before it appends the
next row. A file that cannot be read or written raises `InputError` naming
it and what failed, never a bare OSError.

Columns (COLUMNS, in this order) and how each cell is written:

- schema_version: 2 (this schema; see "Schema versions" below).
- session_id: text, the same for every row of one session.
- player: text as typed; a name starting with `=`, `+`, `-`, `@` or `'`
  is written with one `'` in front so that a spreadsheet shows it as text
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
import io
import json
import math
import os
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from filelock import FileLock, Timeout

from diavolo_stats import __version__
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import GREY, Command
from diavolo_stats.errors import InputError
from diavolo_stats.files import write_atomically

SCHEMA_VERSION: int = 2

COLUMNS: tuple[str, ...] = (
    "schema_version", "session_id", "player", "trial", "timestamp", "variant", "dice_per_color",
    "command_first", "command", "dice", "positions", "expected", "answer", "correct", "latency_ms",
    "too_early", "timed_out", "foreperiod_ms", "seed", "app_version", "interface", "accepted",
)

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

# Leading characters a spreadsheet reads as the start of a formula, and the
# quote that escapes them (itself escaped so that the guard is reversible).
_FORMULA_START = ("=", "+", "-", "@", "'")
_GUARD = "'"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_BOOLEANS = {"true": True, "false": False}
_TEXT_COLUMNS = ("session_id", "player", "variant", "command", "expected", "answer", "app_version", "interface")
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


def check_player(name: object) -> str:
    """The player name as given, or InputError: any letters, digits, spaces and punctuation, 1 to 100 characters."""
    if not isinstance(name, str) or not name.strip():
        raise InputError("give a name (any letters, spaces allowed)", field="player")
    if _CONTROL.search(name):
        raise InputError("a name cannot contain control characters such as tabs or line breaks", field="player")
    if len(name) > MAX_PLAYER_LENGTH:
        raise InputError(f"at most {MAX_PLAYER_LENGTH} characters, got {len(name)}", field="player")
    return name


def logged_positions(positions: Mapping, table: TableModel) -> dict:
    """The `positions` cell of a roll: its die centers (mm) and every field of the table it was thrown on,
    so that a row alone gives its expected answer."""
    return {**positions, **dataclasses.asdict(table)}


def guard_formula(text: str) -> str:
    """`text` as stored in the CSV: one `'` in front when a spreadsheet would read it as a formula."""
    return _GUARD + text if text.startswith(_FORMULA_START) else text


def unguard_formula(text: str) -> str:
    """The inverse of `guard_formula`."""
    return text[len(_GUARD):] if text.startswith(_GUARD) else text


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
    untouched.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        with _os_errors(f"cannot read {self.path}"):
            is_folder = self.path.is_dir()
        if is_folder:
            raise InputError(f"{self.path} is a folder, not a file", field="log")
        with _os_errors(f"cannot create the folder for {self.path}"):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._has_content():
            self._check_header()  # read only: a foreign file gets no lock file beside it
            # Refused now, not at the first answer: opening for append changes nothing.
            with _os_errors(f"cannot append to {self.path}"):
                os.close(os.open(self.path, os.O_WRONLY | os.O_APPEND))
            return
        with self._locked():
            if self._has_content():  # another session created it meanwhile
                self._check_header()
            else:
                self._write(HEADER_LINE + "\n")

    def append(self, row: TrialRow) -> None:
        """Write one trial; returns once the row is fsynced."""
        if not isinstance(row, TrialRow):
            raise InputError(f"must be a TrialRow, got {type(row).__name__}", field="row")
        line = _csv_line(row.cells())
        with self._locked():
            if self._has_content():
                self._end_last_line()
            else:  # deleted or emptied since the session started
                self._write(HEADER_LINE + "\n")
            self._write(line)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        lock = FileLock(self.lock_path, timeout=LOCK_TIMEOUT_S)
        try:
            lock.acquire()
        except Timeout:
            raise InputError(f"{self.lock_path} stayed locked for {LOCK_TIMEOUT_S:g} s; "
                             "is another program holding it?", field="log") from None
        except OSError as error:
            raise InputError(f"cannot lock {self.lock_path} ({error.strerror})", field="log") from None
        try:
            yield
        finally:
            lock.release()

    def _has_content(self) -> bool:
        with _os_errors(f"cannot read {self.path}"):
            try:
                return self.path.stat().st_size > 0
            except FileNotFoundError:
                return False

    def _check_header(self) -> None:
        with _os_errors(f"cannot read {self.path}"), open(self.path, "rb") as file:
            first = file.readline(len(HEADER_LINE) + 3)
        header = first.rstrip(b"\r\n").decode("utf-8", errors="replace")
        if header == HEADER_LINE_V1:
            raise InputError(f"{self.path} is a drill log of schema 1, and this program writes schema "
                             f"{SCHEMA_VERSION}; it was left untouched. Upgrade it with: diavolo log upgrade "
                             f"{self.path}", field="log")
        if header != HEADER_LINE:
            raise InputError(f"{self.path} is not a drill log of schema {SCHEMA_VERSION} (its first line "
                             f"is not the header {COLUMNS[0]},{COLUMNS[1]},...); it was left untouched: "
                             "choose another log file", field="log")

    def _end_last_line(self) -> None:
        """Make the next row start on a line of its own.

        A last line without its line end is kept when it is whole (an editor
        dropped the line end), and gets its line end. Otherwise a crash cut it
        mid-write: it is appended to `<log>.partial`, so nothing a person
        produced is lost, and cut off the log.
        """
        with _os_errors(f"cannot read {self.path}"), open(self.path, "rb") as file:
            size = file.seek(0, os.SEEK_END)
            file.seek(size - 1)
            if file.read(1) == b"\n":
                return
            # Rows are short: the last line end is in the last few kilobytes.
            start = file.seek(max(0, size - 65536))
            tail = file.read()
        cut = start + tail.rfind(b"\n") + 1
        fragment = tail[cut - start:]
        if _is_whole_line(fragment.decode("utf-8", errors="replace"), first=cut == 0):
            self._write("\n")
            return
        if cut == start:
            raise InputError(f"{self.path} has no complete line at its end; it was left untouched", field="log")
        partial = self.path.with_name(self.path.name + ".partial")
        _append_synced(partial, fragment + b"\n")
        with _os_errors(f"cannot cut the incomplete last row off {self.path}"), open(self.path, "rb+") as file:
            file.truncate(cut)
            os.fsync(file.fileno())
        warnings.warn(f"{self.path}: an incomplete last row (a crash mid-write) was moved to {partial} "
                      "before appending", TruncatedLogWarning, stacklevel=3)

    def _write(self, text: str) -> None:
        _append_synced(self.path, text.encode("utf-8"))


@dataclass(frozen=True)
class LogUpgrade:
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

    __str__ = text


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
        rows = len(_load_one(path))  # every row checked before anything is written
    with _os_errors(f"cannot read {path}"):
        data = path.read_bytes()
    text = data.decode("utf-8")
    lines = text.split("\n")
    if _header_version(lines[0]) != 1:
        raise InputError(f"{path} is already a drill log of schema {SCHEMA_VERSION}; nothing to upgrade")
    if backup.exists() or backup.is_symlink():
        raise InputError(f"{backup} exists (an earlier upgrade's backup?); move it away and run again")
    tail = lines.pop()  # "" when the file ends with a line end
    if tail and (not lines or _is_whole_line(tail, first=False, version=1)):
        lines.append(tail)  # whole: it gets its line end
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


def _append_synced(path: Path, data: bytes) -> None:
    """Append `data` to `path` (created if missing) and fsync it; InputError naming the file and what failed."""
    with _os_errors(f"cannot open {path} for appending"):
        created = not path.exists()
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        with _os_errors(f"cannot write to {path}"):
            while data:  # os.write may write less than asked (a full disk, a signal)
                data = data[os.write(descriptor, data):]
        with _os_errors(f"cannot save {path} to disk (fsync)"):
            os.fsync(descriptor)
    finally:
        with _os_errors(f"cannot close {path}"):
            os.close(descriptor)
    if created:
        # The new directory entry must survive a crash too, not only the data.
        with _os_errors(f"cannot save the folder of {path} to disk (fsync)"):
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)


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
        "player": guard_formula(check_player(values["player"])),
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
    if not isinstance(value, str) or not value or _CONTROL.search(value):
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


def load_logs(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Every row of the drill logs at `paths`, one frame; never writes.

    Columns: COLUMNS, then `source` (the file the row came from) and `is_tie`
    (expected == "grey"). Rows of a version-1 log keep `schema_version` 1
    and get `interface` "terminal" and `accepted` [expected]. Dtypes: `timestamp` datetime64[ns, UTC];
    `command` (categories: the six commands in die order), `expected` and
    `answer` category (the same categories, so they compare); `session_id`, `player`, `variant`, `app_version`,
    `interface`, `source` pandas "string"; `correct`, `too_early`,
    `timed_out`, `command_first`, `is_tie` bool; `latency_ms`, `foreperiod_ms`
    float64 in ms (NaN when empty); `schema_version`, `trial`,
    `dice_per_color` int64; `seed` Int64 (<NA> when empty); `dice`,
    `positions` and `accepted` the JSON text as written. Player names are as typed (the
    spreadsheet guard removed).

    InputError naming the file (and line) for a missing file, a foreign
    header, a malformed row or a file it cannot read. A last row without
    its line end is read when it is whole; if not (a crash mid-write) it is
    skipped with a TruncatedLogWarning naming file and line.
    """
    frames = [_load_one(Path(path)) for path in paths]
    if not frames:
        frames = [_typed(pd.DataFrame(columns=list(COLUMNS), dtype=object), "", SCHEMA_VERSION)]
    drills = pd.concat(frames, ignore_index=True)
    # Categories once all files are in: per-file categories would not survive the concat.
    drills["command"] = pd.Categorical(drills["command"], categories=[c.value for c in Command])
    # One set of categories for both, so that `answer == expected` compares them.
    answers = sorted(set(drills["expected"]) | set(drills["answer"]) | {GREY, NO_ANSWER})
    for column in ("expected", "answer"):
        drills[column] = pd.Categorical(drills[column], categories=answers)
    return drills


def _load_one(path: Path) -> pd.DataFrame:
    with _os_errors(f"{path}: cannot read the drill log"):
        if not path.exists():
            raise InputError(f"{path}: no such drill log")
        if not path.is_file():
            raise InputError(f"{path}: not a file")
        data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{path}: line {line}: not UTF-8 text") from None
    version = _header_version(text.split("\n", 1)[0])
    lines = text.split("\n")
    tail = lines.pop()  # "" when the file ends with a line end
    if tail and _is_whole_line(tail, first=not lines, version=version):
        lines.append(tail)  # an editor dropped the last line end
    elif tail and lines:
        warnings.warn(f"{path}: line {len(lines) + 1} is incomplete (the writer stopped mid-row); skipped",
                      TruncatedLogWarning, stacklevel=3)
    if not lines or version is None:
        raise InputError(f"{path}: line 1: not a drill log of schema {SCHEMA_VERSION} or 1 "
                         f"(the header must be {COLUMNS[0]},{COLUMNS[1]},...,{COLUMNS[-1]})")
    return _typed(_cells(str(path), lines[1:], version), str(path), version)


def _header_version(line: str) -> int | None:
    """The schema version whose header `line` is, or None."""
    return {HEADER_LINE: SCHEMA_VERSION, HEADER_LINE_V1: 1}.get(line.rstrip("\r"))


def _is_whole_line(line: str, first: bool, version: int | None = SCHEMA_VERSION) -> bool:
    """Whether a last line without its line end is whole: a header (as the first line), or a row that
    passes every check of the schema `version`."""
    if first:
        return _header_version(line) is not None
    if version is None:
        return False
    try:
        _typed(_cells("", [line], version), "", version)
    except InputError:
        return False
    return True


def _cells(source: str, lines: Sequence[str], version: int) -> pd.DataFrame:
    """The cells of the rows `lines` (line 2 on), (rows, COLUMNS) str; InputError naming a line that is not
    a CSV row of the schema's width. A version-1 row gets `interface` and `accepted` as version 2 reads it."""
    columns = COLUMNS if version == SCHEMA_VERSION else COLUMNS_V1
    records = []
    for number, line in enumerate(lines, start=2):
        try:
            cells = next(csv.reader([line.rstrip("\r")], strict=True), [])
        except csv.Error as error:
            raise InputError(f"{source}: line {number}: not a CSV row ({error})") from None
        if len(cells) != len(columns):
            raise InputError(f"{source}: line {number}: {len(cells)} cells, the schema has {len(columns)}")
        records.append(cells if columns is COLUMNS else cells + _v1_extra_cells(cells))
    return pd.DataFrame(records, columns=list(COLUMNS), dtype=object)


def _v1_extra_cells(cells: Sequence[str]) -> list[str]:
    """The `interface` and `accepted` cells of a version-1 row: the terminal, and its expected answer alone."""
    return [INTERFACES[0], json.dumps([cells[COLUMNS.index("expected")]], ensure_ascii=False)]


def _typed(frame: pd.DataFrame, source: str, version: int) -> pd.DataFrame:
    """Parse and check the text cells of one file of schema `version`; InputError naming the first bad line."""
    # frame: (rows, COLUMNS) object, every cell a str

    def check(column: str, bad: pd.Series | np.ndarray, allowed: str) -> None:
        bad = np.asarray(bad, dtype=bool)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"{source}: line {row + 2}: {column} must be {allowed}, "
                             f"got {frame[column].iloc[row]!r}")

    typed: dict[str, object] = {}
    for column, low in (("schema_version", 1), ("trial", 1), ("dice_per_color", 1)):
        numbers = pd.to_numeric(frame[column].where(frame[column].str.fullmatch(r"\d{1,18}")), errors="coerce")
        check(column, ~(numbers >= low), f"a whole number of at least {low}")
        typed[column] = numbers.astype(np.int64)
    check("schema_version", typed["schema_version"] != version, f"{version}, as the header says")
    seeds = [int(text) if text.isascii() and text.isdigit() else -1 for text in frame["seed"]]
    check("seed", [not (text == "" or 0 <= seed <= MAX_SEED) for text, seed in zip(frame["seed"], seeds)],
          f"a whole number from 0 to {MAX_SEED}, or empty")
    typed["seed"] = pd.array([seed if text else None for text, seed in zip(frame["seed"], seeds)], dtype="Int64")
    for column in ("session_id", "player", "variant", "app_version"):
        check(column, frame[column] == "", "non-empty text")
    typed["session_id"] = frame["session_id"]
    typed["player"] = frame["player"].map(unguard_formula)
    typed["variant"] = frame["variant"]
    typed["app_version"] = frame["app_version"]
    timestamps = pd.to_datetime(frame["timestamp"], utc=True, format="ISO8601", errors="coerce")
    check("timestamp", timestamps.isna(), "an ISO 8601 time")
    typed["timestamp"] = timestamps.astype("datetime64[ns, UTC]")
    for column in ("command_first", "correct", "too_early", "timed_out"):
        check(column, ~frame[column].isin(list(_BOOLEANS)), "true or false")
        typed[column] = frame[column].map(_BOOLEANS).astype(bool)
    check("command", ~frame["command"].isin([c.value for c in Command]), "a command name")
    typed["command"] = frame["command"]
    colors = [_json_colors(source, row + 2, dice, positions)
              for row, (dice, positions) in enumerate(zip(frame["dice"], frame["positions"]))]
    check("expected", [e not in c and e != GREY for e, c in zip(frame["expected"], colors)],
          "a color of the dice or grey")
    check("answer", [a not in c and a not in (GREY, NO_ANSWER) for a, c in zip(frame["answer"], colors)],
          "a color of the dice, grey or none")
    check("interface", ~frame["interface"].isin(list(INTERFACES)), " or ".join(INTERFACES))
    typed["interface"] = frame["interface"]
    check("accepted", [not _accepted_ok(text, expected, dice_colors)
                       for text, expected, dice_colors in zip(frame["accepted"], frame["expected"], colors)],
          "a JSON list of the answers counted right, the expected one first")
    typed["accepted"] = frame["accepted"]
    typed["expected"] = frame["expected"]
    typed["answer"] = frame["answer"]
    typed["dice"] = frame["dice"]
    typed["positions"] = frame["positions"]
    for column in ("latency_ms", "foreperiod_ms"):
        given = frame[column] != ""
        numbers = pd.to_numeric(frame[column].where(given), errors="coerce").astype(np.float64)
        check(column, given & ~(np.isfinite(numbers) & (numbers >= 0)), "a number of ms of 0 or more, or empty")
        typed[column] = numbers
    typed["source"] = source
    typed["is_tie"] = (frame["expected"] == GREY).astype(bool)
    result = pd.DataFrame(typed, index=frame.index)[list(LOADED_COLUMNS)]
    for column in _TEXT_COLUMNS + ("source",):
        result[column] = result[column].astype(_STRING)
    return result


def _accepted_ok(text: str, expected: str, colors: set[str]) -> bool:
    """Whether an `accepted` cell is a JSON list of one or two answers, `expected` first, each a color or grey."""
    try:
        accepted = json.loads(text)
    except ValueError:
        return False
    return (isinstance(accepted, list) and 1 <= len(accepted) <= 2 and accepted[0] == expected
            and all(isinstance(answer, str) for answer in accepted)
            and len(set(accepted)) == len(accepted) and set(accepted) <= colors | {GREY})


def _json_colors(source: str, line: int, dice: str, positions: str) -> set[str]:
    """The colors named in a row's dice; InputError if dice or positions is not a JSON object."""
    for column, text in (("dice", dice), ("positions", positions)):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict) or not value:
            raise InputError(f"{source}: line {line}: {column} must be a JSON object, got {text[:40]!r}")
        if column == "dice":
            colors = set(value)
    return colors
