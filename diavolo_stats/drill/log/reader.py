"""The drill log's one reader: `load_logs` reads drill logs of either schema into one typed frame.

Every drill, analysis, simulation and page that reads drill logs goes
through this module: `load_logs` reads whole files, `FollowedLog` reads one
file as it grows (the rows appended since its last look), and `load_rows`
reads a few rows of large files a span at a time (the roll's cells of some
answers, without holding those of every answer). A file is parsed
by pyarrow's CSV reader (only the columns asked for, as Arrow strings) and
each column is typed and checked at once by its rule in `schema.CELLS`, the
rules the writer follows.

No row can stop a reader: a row it cannot use (a cell its column's rule
refuses, the wrong number of cells, text that is not UTF-8) is skipped,
with one SkippedRowsWarning per read naming the lines. A last line without
its line end is what a crash mid-write left: it is skipped with a
TruncatedLogWarning. A file holding nothing but the start of the header (a
crash while the log was created) is a new, empty log. What stops a read is
only what is wrong with the file as a whole: missing, unreadable, or not a
drill log (its first line is not a header of schema 1 or 2).
"""

from __future__ import annotations

import csv
import io
import json
import os
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.core.variant import GREY
from diavolo_stats.drill.log.rules import command_order, rules_problems
from diavolo_stats.drill.log.schema import (
    ACCEPTED,
    CELLS,
    COLUMNS,
    COLUMNS_V1,
    DICE,
    HEADER_LINE,
    INTERFACES,
    NO_ANSWER,
    SCHEMA_VERSION,
    TruncatedLogWarning,
    header_version,
    is_header_start,
    os_errors,
    v1_extra_cells,
)
from diavolo_stats.errors import InputError

FIGURE_COLUMNS: tuple[str, ...] = tuple(column for column in COLUMNS if column not in ("dice", "positions", "accepted"))
"""Every column but the roll's JSON cells: what summaries, the adaptive scheduler and player fits read (the JSON
cells are the bulk of a log's bytes)."""

LOADED_COLUMNS: tuple[str, ...] = COLUMNS + ("source", "is_tie")
"""The columns of `load_logs`' frame: the file's columns, the file it came from, and whether the roll was a tie."""

_STRING = pd.StringDtype()
_TEXT_COLUMNS = ("session_id", "player", "variant", "app_version", "interface", "dice", "positions", "accepted",
                 "source")


MAX_NAMED = 5
"""A SkippedRowsWarning names at most this many lines, and counts the rest."""

SPAN_BYTES = 1 << 25
"""`load_rows` reads a file this many bytes at a time (whole lines): its memory is a span's and the kept rows'."""


class SkippedRowsWarning(UserWarning):
    """Rows of a drill log the reader cannot use (a cell its column's rule refuses, a line that is not a row of
    the schema): skipped, named by line, so that no row can stop a report, a drill or a page."""


def load_logs(paths: Sequence[str | Path], columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Every row of the drill logs at `paths`, one frame; never writes.

    Columns: COLUMNS (or only `columns`, a subset of them, in COLUMNS order:
    a large log is read faster and in less memory), then `source` (the file
    the row came from) and `is_tie` (expected == "grey"; when `expected` is
    read). Every check of a column read applies; the cells of columns not
    read are not checked; a row's command, dice and positions are checked
    against the rules its `variant` cell names (`rules`). Dtypes: `timestamp`
    datetime64[ns, UTC]; `command` (categories: the six commands in die
    order, then the commands of games' own rules as first seen), `expected` and
    `answer` category (the same categories, so they compare); `session_id`,
    `player`, `variant`, `app_version`, `interface`, `source` pandas
    "string"; `correct`, `too_early`, `timed_out`, `command_first`, `is_tie`
    bool; `latency_ms`, `foreperiod_ms` float64 in ms (NaN when empty);
    `schema_version`, `trial`, `dice_per_color` int64; `seed` Int64 (<NA>
    when empty); `dice`, `positions` and `accepted` the JSON text as written
    (pandas "string"). Player names are as typed (the spreadsheet guard
    removed).

    A row that breaks a rule of the schema is skipped, with one
    SkippedRowsWarning per file naming its lines. A last row without its
    line end (a crash mid-write) is skipped with a TruncatedLogWarning naming
    file and line. A file holding only the start of the header is an empty
    log. InputError naming the file for a missing file, a foreign header or a
    file it cannot read.
    """
    wanted = _wanted_columns(columns)
    frames = [FollowedLog(path, wanted).new_rows(warn_cut=True)[0] for path in paths]
    if not frames:
        frames = [_no_rows(wanted, "")]
    drills = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    return _categorized(drills)


def load_rows(paths: Sequence[str | Path], columns: Sequence[str],
              keep: Callable[[pd.DataFrame], np.ndarray]) -> pd.DataFrame:
    """The rows of the drill logs at `paths` that `keep` keeps, as `load_logs(paths, columns)` gives them.

    `keep` is given the cells of `columns` of some rows as text (as written, a frame of Arrow strings) and
    returns which to keep, (rows,) bool; only the rows kept are typed and checked. A file is read SPAN_BYTES at
    a time, so a few rows of a log of a million cost the memory of a span, not of the log's cells. Rows the
    schema refuses are skipped without a warning: `load_rows` is a second look at logs `load_logs` has read
    (and warned about); InputError as `load_logs`.
    """
    wanted = _wanted_columns(columns)
    frames = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedRowsWarning)
        for path in paths:
            log = FollowedLog(path, wanted)
            while True:
                start = log._offset
                rows, _ = log._read(warn_cut=False, span_bytes=SPAN_BYTES, keep=keep)
                frames.append(rows)
                if log._offset == start:
                    break
    drills = pd.concat(frames, ignore_index=True) if frames else _no_rows(wanted, "")
    return _categorized(drills)


class FollowedLog:
    """One drill log, read as it grows: `frame` and `new_rows` read only the lines appended since the last look.

    A drill log is append-only. If the file at `path` is another one than
    before (its device and inode differ), is shorter than what was read, or
    its header changed, the log was replaced: it is read again from its
    start. Safe to share between threads.
    """

    def __init__(self, path: str | Path, columns: Sequence[str] | None = None):
        self.path = Path(path)
        self.columns = _wanted_columns(columns)
        self._lock = threading.Lock()
        self._frame: pd.DataFrame | None = None  # every row read so far, as `frame` gives them
        self._start_over(None)

    def _start_over(self, identity: tuple[int, int] | None) -> None:
        self._identity = identity  # (st_dev, st_ino) of the file read
        self._header = b""  # its header line, with its line end
        self._version = SCHEMA_VERSION
        self._offset = 0  # bytes read: whole lines
        self._line = 1  # the number of the next line to read, once the header is read

    def frame(self) -> pd.DataFrame:
        """Every row of the log now, as `load_logs([path], columns)` gives them (shared: do not change it)."""
        with self._lock:
            rows, restarted = self._read(warn_cut=False)
            if restarted or self._frame is None:
                self._frame = _categorized(rows)
            elif len(rows):
                self._frame = _appended(self._frame, rows)
            return self._frame

    def new_rows(self, warn_cut: bool = False) -> tuple[pd.DataFrame, bool]:
        """(rows, restarted): the rows appended since the last look, typed as `load_logs` types them but for the
        categories of `command`, `expected` and `answer`; restarted: they are every row of the file (the first
        look, or the log was replaced). warn_cut: a TruncatedLogWarning for a last line without its line end (else
        that line is read once it is whole)."""
        with self._lock:
            return self._read(warn_cut)

    def _read(self, warn_cut: bool, span_bytes: int | None = None,
              keep: Callable[[pd.DataFrame], np.ndarray] | None = None) -> tuple[pd.DataFrame, bool]:
        """The rows from the last look to the file's last line end (at most `span_bytes` of them, whole lines:
        at least one), only those `keep` keeps (see `load_rows`)."""
        path = self.path
        with os_errors(f"{path}: cannot read the drill log"):
            if not path.exists():
                raise InputError(f"{path}: no such drill log")
            if not path.is_file():
                raise InputError(f"{path}: not a file")
            with open(path, "rb") as file:
                status = os.fstat(file.fileno())
                head = os.pread(file.fileno(), len(HEADER_LINE) + 2, 0)
                restarted = ((status.st_dev, status.st_ino) != self._identity or status.st_size < self._offset
                             or not head.startswith(self._header))
                if restarted:
                    self._start_over((status.st_dev, status.st_ino))
                if self._offset == 0:
                    if is_header_start(head) and status.st_size == len(head):  # stopped before its first answer
                        return _no_rows(self.columns, str(path)), restarted
                    self._version = header_version(head.split(b"\n")[0].decode("utf-8", errors="replace"))
                    if self._version is None or b"\n" not in head:
                        raise InputError(f"{path}: line 1: not a drill log of schema {SCHEMA_VERSION} or 1 "
                                         f"(the header must be {COLUMNS[0]},{COLUMNS[1]},...,{COLUMNS[-1]})")
                    self._header = head[:head.index(b"\n") + 1]
                    self._offset, self._line = len(self._header), 2
                end = _last_line_end(file.fileno(), self._offset, status.st_size)
                if span_bytes is not None and end > self._offset + span_bytes:
                    stop = _last_line_end(file.fileno(), self._offset, self._offset + span_bytes)
                    end = stop if stop > self._offset else end  # a line longer than the span: the rest at once
                cells, lines, problems, read_lines = _cells(file.fileno(), self._offset, end, self.columns,
                                                            self._version, self._line)
        if keep is not None:
            kept = np.asarray(keep(cells), dtype=bool)
            cells, lines = cells.loc[kept].reset_index(drop=True), lines[kept]
        if warn_cut and end < status.st_size:  # every row is written with its line end in one write: this was cut
            warnings.warn(f"{path}: line {self._line + read_lines} is incomplete (the writer stopped mid-row); "
                          f"skipped (the next drill moves it to {path}.partial)", TruncatedLogWarning, stacklevel=4)
        self._offset, self._line = end, self._line + read_lines
        rows, refused = _typed(cells, str(path), self._version, lines)
        problems = sorted(problems + refused)
        if problems:
            named = "; ".join(f"line {line}: {problem}" for line, problem in problems[:MAX_NAMED])
            more = f"; and {len(problems) - MAX_NAMED} more" if len(problems) > MAX_NAMED else ""
            counted = "1 row that breaks" if len(problems) == 1 else f"{len(problems)} rows that break"
            warnings.warn(f"{path}: skipped {counted} the drill log's schema: {named}{more}", SkippedRowsWarning,
                          stacklevel=4)
        return rows, restarted


def _last_line_end(descriptor: int, start: int, size: int) -> int:
    """The offset just past the last line end in bytes `start` to `size` of the open file, or `start`."""
    end = size
    while end > start:
        chunk_start = max(start, end - 65536)  # rows are short: the last line end is in the last few kilobytes
        found = os.pread(descriptor, end - chunk_start, chunk_start).rfind(b"\n")
        if found >= 0:
            return chunk_start + found + 1
        end = chunk_start
    return start


def _wanted_columns(columns: Sequence[str] | None) -> list[str]:
    if columns is None:
        return list(COLUMNS)
    unknown = [column for column in columns if column not in COLUMNS]
    if unknown or isinstance(columns, str):
        raise InputError(f"unknown columns {unknown or [columns]}; the log has {', '.join(COLUMNS)}", field="columns")
    return [column for column in COLUMNS if column in columns]


def _no_rows(wanted: Sequence[str], source: str) -> pd.DataFrame:
    empty = pd.DataFrame({column: pd.Series([], dtype=object) for column in wanted})
    return _typed(empty, source, SCHEMA_VERSION, np.zeros(0, dtype=np.int64))[0]


def _categorized(drills: pd.DataFrame) -> pd.DataFrame:
    """`command`, `expected` and `answer` as categories: the commands in die order; one set for both answers, so
    that `answer == expected` compares them."""
    if "command" in drills:
        drills["command"] = pd.Categorical(drills["command"], categories=command_order(drills["command"].unique()))
    answer_columns = [column for column in ("expected", "answer") if column in drills]
    answers = sorted(set().union(*(drills[column].unique() for column in answer_columns)) | {GREY, NO_ANSWER})
    for column in answer_columns:
        drills[column] = pd.Categorical(drills[column], categories=answers)
    return drills


def _appended(drills: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """The `_categorized` frame `drills` with the new `rows` after it, categorized alike."""
    answer_columns = [column for column in ("expected", "answer") if column in drills]
    if answer_columns:
        known = drills[answer_columns[0]].cat.categories
        new = set().union(*(rows[column].unique() for column in answer_columns)) - set(known)
        if new:  # an answer not seen before (a custom game's color): every answer column gets it
            drills = drills.assign(**{column: drills[column].cat.set_categories(sorted(set(known) | new))
                                      for column in answer_columns})
    if "command" in drills:
        commands = command_order([*drills["command"].cat.categories, *rows["command"].unique()])
        if len(commands) > len(drills["command"].cat.categories):  # a command of a game's own, first seen
            drills = drills.assign(command=drills["command"].cat.set_categories(commands))
    rows = rows.assign(**{column: pd.Categorical(rows[column], categories=drills[column].cat.categories)
                          for column in ("command", *answer_columns) if column in rows})
    return pd.concat([drills, rows], ignore_index=True)


class _Span(io.RawIOBase):
    """Bytes `start` to `end` of an open file, read by pyarrow, counting the line ends it gives."""

    def __init__(self, descriptor: int, start: int, end: int):
        self.descriptor, self.position, self.end, self.line_ends = descriptor, start, end, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = os.pread(self.descriptor, min(len(buffer), self.end - self.position), self.position)
        buffer[:len(data)] = data
        self.position += len(data)
        self.line_ends += data.count(b"\n")
        return len(data)


def _cells(descriptor: int, start: int, end: int, wanted: Sequence[str], version: int,
           first_line: int) -> tuple[pd.DataFrame, np.ndarray, list[tuple[int, str]], int]:
    """The cells of the columns `wanted` in bytes `start` to `end` of the open log (whole lines, the first one
    line `first_line`), as text; a version-1 log's `interface` and `accepted` as version 2 reads them.

    Returns (cells (rows, wanted) text, the line of each row (rows,) int64, the lines skipped as
    [(line, why)], the number of lines read). Parsed by pyarrow; if it cannot parse them (a malformed
    row, text that is not UTF-8), the lines are read one by one and those that are not rows are skipped.
    """
    import pyarrow as pa
    from pyarrow import csv as arrow_csv

    in_file = COLUMNS if version == SCHEMA_VERSION else COLUMNS_V1
    read = [column for column in COLUMNS if column in in_file and (
        column in wanted or (column == "expected" and "accepted" in wanted))]
    if end == start:
        return pd.DataFrame({column: pd.Series([], dtype=object) for column in wanted}), np.zeros(0, np.int64), [], 0
    span = _Span(descriptor, start, end)
    try:
        table = arrow_csv.read_csv(
            span, read_options=arrow_csv.ReadOptions(column_names=list(in_file)),
            parse_options=arrow_csv.ParseOptions(ignore_empty_lines=False),
            convert_options=arrow_csv.ConvertOptions(include_columns=read, strings_can_be_null=False,
                                                     column_types={column: pa.string() for column in read}))
    except (pa.ArrowInvalid, ValueError, UnicodeDecodeError):
        table = None
    if table is None or table.num_rows != span.line_ends:  # a malformed line: each read on its own
        cells, lines, problems, read_lines = _cells_line_by_line(descriptor, start, end, version, first_line)
        return cells[list(wanted)], lines, problems, read_lines
    cells = table.to_pandas(types_mapper=pd.ArrowDtype)
    if version != SCHEMA_VERSION:
        if "interface" in wanted:
            cells["interface"] = INTERFACES[0]
        if "accepted" in wanted:
            cells["accepted"] = [json.dumps([expected], ensure_ascii=False) for expected in cells["expected"]]
    lines = np.arange(first_line, first_line + len(cells), dtype=np.int64)
    return cells[list(wanted)], lines, [], span.line_ends


def _cells_line_by_line(descriptor: int, start: int, end: int, version: int,
                        first_line: int) -> tuple[pd.DataFrame, np.ndarray, list[tuple[int, str]], int]:
    """As `_cells`, every column, read with Python's csv module one line at a time: a line that is not UTF-8 or
    not a CSV row of the schema's width is skipped, and said why."""
    data = os.pread(descriptor, end - start, start)
    columns = COLUMNS if version == SCHEMA_VERSION else COLUMNS_V1
    records, lines, problems = [], [], []
    raw_lines = data.split(b"\n")[:-1]
    for number, raw in enumerate(raw_lines, start=first_line):
        try:
            cells = next(csv.reader([raw.decode("utf-8").rstrip("\r")], strict=True), [])
        except UnicodeDecodeError:
            problems.append((number, "not UTF-8 text"))
            continue
        except csv.Error as error:
            problems.append((number, f"not a CSV row ({error})"))
            continue
        if len(cells) != len(columns):
            problems.append((number, f"{len(cells)} cells, the schema has {len(columns)}"))
            continue
        records.append(cells if columns is COLUMNS else cells + v1_extra_cells(cells))
        lines.append(number)
    frame = pd.DataFrame(records, columns=list(COLUMNS), dtype=object)
    return frame, np.array(lines, dtype=np.int64), problems, len(raw_lines)


def _typed(cells: pd.DataFrame, source: str, version: int,
           lines: np.ndarray) -> tuple[pd.DataFrame, list[tuple[int, str]]]:
    """The rows of one file of schema `version` (the columns it holds) typed by their column's rule in `CELLS`,
    then checked by the rules between columns; a row any rule refuses is left out. Returns (rows, the rows left
    out as [(line, why)])."""
    # cells: (rows, some of COLUMNS) text (Arrow strings or str); lines: (rows,) int64, each row's line in the file
    checks: list[tuple[np.ndarray, Callable[[int], str]]] = []  # (refused (rows,) bool, why for a row)

    def refuse(column: str, bad: np.ndarray, why: Callable[[int], str] | None = None) -> None:
        checks.append((np.asarray(bad, dtype=bool),
                       why or (lambda row: CELLS[column].problem(column, cells[column].iloc[row]))))

    typed: dict[str, object] = {}
    for column in cells.columns:
        if column != "dice":  # the dice are read with the answers, below
            typed[column], bad = CELLS[column].read(cells[column])
            refuse(column, bad)
    if "schema_version" in typed:
        refuse("schema_version", typed["schema_version"] != version,
               lambda row: f"schema_version must be {version}, as the header says, got "
                           f"{cells['schema_version'].iloc[row]!r}")
    if "dice" in cells:
        typed["dice"] = cells["dice"]
        _check_roll(cells, refuse)
    elif "command" in cells:
        _check_rules(cells, refuse)
    typed["source"] = source
    if "expected" in typed:
        typed["is_tie"] = (cells["expected"] == GREY).to_numpy(dtype=bool)
    rows = pd.DataFrame(typed, index=cells.index)
    rows = rows[[column for column in LOADED_COLUMNS if column in rows]]
    for column in _TEXT_COLUMNS:
        if column in rows:
            rows[column] = rows[column].astype(_STRING)
    refused = np.logical_or.reduce([bad for bad, _ in checks]) if checks else np.zeros(len(cells), dtype=bool)
    if not refused.any():
        return rows, []
    problems = []
    for row in np.flatnonzero(refused):
        why = next(why for bad, why in checks if bad[row]) if len(problems) < MAX_NAMED else None
        problems.append((int(lines[row]), why(int(row)) if why else ""))
    return rows.loc[~refused].reset_index(drop=True), problems


def _check_rules(cells: pd.DataFrame, refuse) -> None:
    """The command, dice and positions (those read) of each row, against the rules its `variant` cell names
    (`rules.rules_problems`)."""
    problems = rules_problems(cells)
    if problems:
        bad = np.zeros(len(cells), dtype=bool)
        bad[list(problems)] = True
        refuse("command", bad, lambda row: " ".join(problems[row]))


def _check_roll(cells: pd.DataFrame, refuse) -> None:
    """The dice cell, and the rules between the dice and the answers: `expected`, `answer` and `accepted` (those
    read) name colors of the row's dice or grey (`schema.AnswerCell`, `schema.AcceptedCell`), each checked once
    per distinct value."""
    codes, color_sets = DICE.colors(cells["dice"])  # codes: (rows,) int, -1 where the cell is no JSON object
    refuse("dice", codes < 0)
    for column in ("expected", "answer"):
        if column in cells:
            bad = np.zeros(len(cells), dtype=bool)
            for code, colors in enumerate(color_sets):  # a few sets of colors: one check each
                rows = codes == code
                bad[rows] = ~cells[column][rows].isin(list(CELLS[column].answers(colors))).to_numpy(dtype=bool)
            refuse(column, bad)
    if "accepted" in cells and "expected" in cells:
        # (accepted, expected, colors) take a handful of distinct values: each is checked once.
        accepted, accepted_texts = pd.factorize(cells["accepted"])
        expected, expected_texts = pd.factorize(cells["expected"])
        sets = len(color_sets) + 1
        distinct, each = np.unique((accepted.astype(np.int64) * len(expected_texts) + expected) * sets + codes + 1,
                                   return_inverse=True)
        fits = np.array([key % sets == 0 or _accepted_fits(accepted_texts[key // sets // len(expected_texts)],
                                                           expected_texts[key // sets % len(expected_texts)],
                                                           color_sets[key % sets - 1])
                         for key in distinct.tolist()], dtype=bool)
        refuse("accepted", ~fits[each.reshape(-1)])
    _check_rules(cells, refuse)


def _accepted_fits(text: str, expected: str, colors: frozenset[str]) -> bool:
    try:
        accepted = json.loads(text)
    except ValueError:
        return False
    return ACCEPTED.fits(accepted, expected, colors)
