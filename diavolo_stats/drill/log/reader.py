"""The drill log's one reader: `load_logs` reads drill logs of either schema into one typed frame.

`load_logs` reads whole files, `FollowedLog` one file as it grows (the rows appended since its last look) and
`load_rows` a few rows of large files again by their line. pyarrow parses the columns asked for as text, and each
is typed and checked by its rule in `schema.CELLS`, the rules the writer follows.

Why it works as it does: docs/architecture.md, "The drill log's reader".
"""

from __future__ import annotations

import csv
import io
import json
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.core.variant import GREY
from diavolo_stats.core.workers import threads
from diavolo_stats.drill.log import line_marks
from diavolo_stats.drill.log.dice_cells import read_dice
from diavolo_stats.drill.log.roll import listed
from diavolo_stats.drill.log.row_checks import ENCODED, Refuse, check_roll, check_rules
from diavolo_stats.drill.log.rules import command_order
from diavolo_stats.drill.log.schema import (
    CELLS,
    COLUMNS,
    COLUMNS_V1,
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
from diavolo_stats.files import not_a_file
from diavolo_stats.results import counted

FIGURE_COLUMNS: tuple[str, ...] = tuple(column for column in COLUMNS if column not in ("dice", "positions", "accepted"))
"""Every column but the roll's JSON cells: what summaries, the adaptive scheduler and player fits read (the JSON
cells are the bulk of a log's bytes)."""

NAMES = ("session_id", "player")
"""The columns of names a frame of the reader holds as categories in their sorted order, as a groupby of their text
would order them: every summary groups by them, where a million names hashed again cost more than the grouping."""

CATEGORIZED = (*NAMES, "command", "expected", "answer")
"""The columns a frame of the reader holds as categories (`_categorized`)."""

LOADED_COLUMNS: tuple[str, ...] = COLUMNS + ("source", "is_tie", "color_dice", "dice_values")
"""The columns of `load_logs`' frame: the file's columns, the file it came from, whether the roll was a tie, and
the dice cell's numbers (then, with lines=True, `line`: the row's line in its file)."""

_STRING = pd.StringDtype()
_TEXT_COLUMNS = ("variant", "app_version", "interface", "dice", "positions", "accepted")


MAX_NAMED = 5
"""A SkippedRowsWarning names at most this many lines, and counts the rest."""

BLOCK_BYTES = 4 << 20
"""Arrow parses a log this many bytes at a time (four times its default: a third fewer pages touched on a large
log); the reader marks which line holds the first byte of each block (`line_marks.LineMarks`)."""


def parse_pool():
    """The Arrow memory pool the reader parses a log in: jemalloc's, where this pyarrow has it, else Arrow's default.

    Arrow's default (mimalloc) hands freed pages back to the system at once, so a fresh process's first large
    read faults its parser's pages in again, block after block: on the million-row log 0.43 to 1.33 s of system
    time, against 0.36 to 0.64 s in jemalloc's pool, which keeps freed pages for reuse. A server hands both pools'
    unused pages back after each heavy request (`web.busy`)."""
    import pyarrow as pa

    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:  # a pyarrow built without it (Windows)
        return pa.default_memory_pool()


class SkippedRowsWarning(UserWarning):
    """Rows of a drill log the reader cannot use (a cell its column's rule refuses, a line that is not a row of
    the schema): skipped, named by line, so that no row can stop a report, a drill or a page."""


def load_logs(paths: Sequence[str | Path], columns: Sequence[str] | None = None, lines: bool = False) -> pd.DataFrame:
    """Every row of the drill logs at `paths`, one frame, every column read typed and checked; never writes.

    columns: a subset of COLUMNS, read in COLUMNS order (a large log reads faster), else all. Then `source` (the
    file), `is_tie` (with `expected`), and with `dice` its numbers, `color_dice` and `dice_values`; lines: a last
    column `line`, each row's line in its file, by which `load_rows` reads rows again. The dtypes and the checks
    between columns: docs/architecture.md, "The drill log's reader". A row that breaks a rule is skipped with one
    SkippedRowsWarning per file naming its lines, a last row without its line end (a crash mid-write) with a
    TruncatedLogWarning; InputError naming a file that is missing, foreign or unreadable.
    """
    wanted = _wanted_columns(columns)
    frames = [FollowedLog(path, wanted, lines).new_rows(warn_cut=True)[0] for path in paths]
    if not frames:
        frames = [_no_rows(wanted, None, lines)]
    return _categorized(_joined(frames))


def kept_rows(drills: pd.DataFrame, kept: np.ndarray) -> pd.DataFrame:
    """The rows of `drills` (a frame from `load_logs`) where `kept` ((rows,) bool) is True, as `drills[kept]` gives
    them. Column by column: Arrow filters a text column chunk by chunk, where a frame's take first copies all of a
    column's chunks into one (tens of MB for a large log's session ids, most of it the system's zeroing); each
    column taken is the frame's as it is (copy=False: pandas would copy the numbers into blocks again)."""
    return pd.DataFrame({column: drills[column].array[kept] for column in drills.columns}, index=drills.index[kept],
                        copy=False)


def load_rows(rows: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The rows `rows` of some drill logs read again from their files with `columns`, as `load_logs(paths,
    columns, lines=True)` gives them; the bytes of their lines are the only ones parsed.

    rows: from `load_logs(..., lines=True)`, with at least `source`, `line`, `session_id` and `trial` (InputError
    without). Every check of `columns` applies; a row the schema refuses is skipped without a warning (`load_logs`
    warned of it). Rows come file by file, in the order of `rows`' first row of each, in line order. A line that
    holds another trial than at the first read, or a file that ends before it, was replaced or rewritten since:
    InputError naming it. How lines are found: docs/architecture.md, "The drill log's reader".
    """
    wanted = _wanted_columns(columns)
    missing = [column for column in ("source", "line", "session_id", "trial") if column not in rows]
    if missing:
        raise InputError(f"load_rows needs each row's {', '.join(missing)}: read the rows with load_logs(..., "
                         "lines=True) and their session_id and trial", field="rows")
    read = _wanted_columns([*wanted, "session_id", "trial"])  # which trial each line holds, to check it
    frames = []
    for source, known in rows.groupby(rows["source"].astype(str), sort=False):
        known = known.drop_duplicates("line").sort_values("line")
        again = _rows_at(Path(source), known["line"].to_numpy(dtype=np.int64), read)
        at = np.searchsorted(known["line"].to_numpy(dtype=np.int64), again["line"].to_numpy(dtype=np.int64))
        moved = np.flatnonzero((known["session_id"].to_numpy(dtype=object)[at]
                                != again["session_id"].to_numpy(dtype=object))
                               | (known["trial"].to_numpy(dtype=np.int64)[at] != again["trial"].to_numpy()))
        if len(moved):
            raise InputError(f"{source}: line {int(again['line'].iloc[moved[0]])} no longer holds the trial read "
                             "there: the drill log was replaced or rewritten while it was read; read it again",
                             field="log")
        frames.append(again.drop(columns=[column for column in ("session_id", "trial") if column not in wanted]))
    if not frames:
        frames = [_no_rows(wanted, None, lines=True)]
    return _categorized(_joined(frames))


def _rows_at(path: Path, lines: np.ndarray, columns: Sequence[str]) -> pd.DataFrame:
    """The rows at `lines` (sorted, unique, from 2) of the log at `path`, `columns` typed and checked (with
    `source`, `is_tie` and `line`; not categorized), the rows the schema refuses left out; InputError when the
    file is not a drill log or ends before one of the lines."""
    with _opened(path) as (descriptor, status, head):
        header = _header(path, head, status.st_size)
        runs = None
        if header is not None:
            known = line_marks.MARKS.of((status.st_dev, status.st_ino), header[1])
            marks = np.vstack([[len(header[1]), 2], known])
            runs = line_marks.line_runs(descriptor, marks, status.st_size, lines)
        if runs is None:
            raise InputError(f"{path}: the drill log ends before line {int(lines[-1])}, read before: it was replaced "
                             "or cut while it was read; read it again", field="log")
        cells, found, _, _ = _cells(_Span(descriptor, runs), columns, header[0])
    return _typed(cells, columns, str(path), header[0], found, with_lines=True)[0]


class FollowedLog:
    """One drill log, read as it grows: `frame` and `new_rows` read only the lines appended since the last look.

    A drill log is append-only. If the file at `path` is another one than
    before (its device and inode differ), is shorter than what was read, or
    its header changed, the log was replaced: it is read again from its
    start. lines: each row's line in the file as a last column `line`, as
    `load_logs(..., lines=True)`. Safe to share between threads.
    """

    def __init__(self, path: str | Path, columns: Sequence[str] | None = None, lines: bool = False):
        self.path = Path(path)
        self.columns = _wanted_columns(columns)
        self.lines = lines
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
        """Every row of the log now, as `load_logs([path], columns, lines)` gives them (shared: do not change it)."""
        with self._lock:
            rows, restarted = self._read(warn_cut=False)
            if restarted or self._frame is None:
                self._frame = _categorized(rows)
            elif len(rows):
                self._frame = _appended(self._frame, rows)
            return self._frame

    def new_rows(self, warn_cut: bool = False) -> tuple[pd.DataFrame, bool]:
        """(rows, restarted): the rows appended since the last look, typed as `load_logs` types them but for the
        order of the categories of CATEGORIZED (the file's own, as they come); restarted: they are every row of the
        file (the first look, or the log was replaced). warn_cut: a TruncatedLogWarning for a last line without its
        line end (else that line is read once it is whole)."""
        with self._lock:
            return self._read(warn_cut)

    def _read(self, warn_cut: bool) -> tuple[pd.DataFrame, bool]:
        """The rows from the last look to the file's last line end."""
        path = self.path
        with _opened(path) as (descriptor, status, head):
            restarted = ((status.st_dev, status.st_ino) != self._identity or status.st_size < self._offset
                         or not head.startswith(self._header))
            if restarted:
                self._start_over((status.st_dev, status.st_ino))
            if self._offset == 0:
                header = _header(path, head, status.st_size)
                if header is None:  # stopped before its first answer
                    return _no_rows(self.columns, str(path), self.lines), restarted
                self._version, self._header = header
                self._offset, self._line = len(self._header), 2
            end = _last_line_end(descriptor, self._offset, status.st_size)
            span = _Span(descriptor, [(self._offset, end, self._line)])
            cells, lines, problems, read_lines = _cells(span, self.columns, self._version)
            line_marks.MARKS.add((status.st_dev, status.st_ino), self._header, span.marks, whole=self._line == 2)
        if warn_cut and end < status.st_size:  # every row is written with its line end in one write: this was cut
            warnings.warn(f"{path}: line {self._line + read_lines} is incomplete (the writer stopped mid-row); "
                          f"skipped (the next drill moves it to {path}.partial)", TruncatedLogWarning, stacklevel=4)
        self._offset, self._line = end, self._line + read_lines
        rows, refused = _typed(cells, self.columns, str(path), self._version, lines, self.lines)
        problems = sorted(problems + refused)
        if problems:
            named = "; ".join(f"line {line}: {problem}" for line, problem in problems[:MAX_NAMED])
            more = f"; and {len(problems) - MAX_NAMED} more" if len(problems) > MAX_NAMED else ""
            counted = "1 row that breaks" if len(problems) == 1 else f"{len(problems)} rows that break"
            warnings.warn(f"{path}: skipped {counted} the drill log's schema: {named}{more}", SkippedRowsWarning,
                          stacklevel=4)
        return rows, restarted


@contextmanager
def _opened(path: Path) -> Iterator[tuple[int, os.stat_result, bytes]]:
    """(descriptor, status, first bytes: the header and a little more) of the drill log at `path`, open for
    reading; InputError naming it when it is missing, not a file, or cannot be read."""
    with os_errors(f"{path}: cannot read the drill log"):
        if not path.exists():
            raise InputError(f"{path}: no such drill log")
        if not path.is_file():
            raise InputError(not_a_file(path))
        with open(path, "rb") as file:
            descriptor = file.fileno()
            yield descriptor, os.fstat(descriptor), os.pread(descriptor, len(HEADER_LINE) + 2, 0)


def _header(path: Path, head: bytes, size: int) -> tuple[int, bytes] | None:
    """(schema version, header line with its line end) of the log of `size` bytes at `path` that starts with
    `head`; None when it holds only the start of the header (a crash while it was created: a new, empty log).
    InputError when it is not a drill log."""
    if is_header_start(head) and size == len(head):
        return None
    version = header_version(head.split(b"\n")[0].decode("utf-8", errors="replace"))
    if version is None or b"\n" not in head:
        raise InputError(f"{path}: line 1: not a drill log of schema {SCHEMA_VERSION} or 1 "
                         f"(the header must be {COLUMNS[0]},{COLUMNS[1]},...,{COLUMNS[-1]})")
    return version, head[:head.index(b"\n") + 1]


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


def _checked_columns(wanted: Sequence[str]) -> list[str]:
    """The columns read to type and check `wanted`: with the dice, the `variant`, whose dice's faces they must
    show."""
    return [column for column in COLUMNS if column in wanted or (column == "variant" and "dice" in wanted)]


def _no_rows(wanted: Sequence[str], source: str | None, lines: bool) -> pd.DataFrame:
    """No rows, with the columns and dtypes of `wanted` read from the file `source` (None: from no file, so
    `source` has no category)."""
    empty = pd.DataFrame({column: pd.Series([], dtype=object) for column in wanted})
    rows = _typed(empty, wanted, source or "", SCHEMA_VERSION, np.zeros(0, dtype=np.int64), lines)[0]
    return rows if source is not None else rows.assign(source=rows["source"].cat.remove_categories([""]))


def _joined(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The frames of some files one after the other, numbered from 0; each column of categories (`source`, and
    CATEGORIZED as read) of them all: the categories of each file's, joined in order (pd.concat makes text of
    categories that differ)."""
    if len(frames) == 1:
        return frames[0]
    joined = {column: list(dict.fromkeys(value for frame in frames for value in frame[column].cat.categories))
              for column in frames[0] if isinstance(frames[0][column].dtype, pd.CategoricalDtype)}
    return pd.concat([frame.assign(**{column: frame[column].cat.set_categories(categories)
                                      for column, categories in joined.items()}) for frame in frames],
                     ignore_index=True)


def _categorized(drills: pd.DataFrame) -> pd.DataFrame:
    """CATEGORIZED as categories in their order: NAMES sorted, the commands in die order; one set for both answers,
    so that `answer == expected` compares them. Each as read (a category of its file's own, `_typed`) is encoded by
    its codes, not its text."""
    for column in NAMES:
        if column in drills:
            drills[column] = drills[column].cat.reorder_categories(sorted(drills[column].cat.categories))
    encoded = {column: pd.factorize(drills[column]) for column in CATEGORIZED
               if column in drills and column not in NAMES}
    if "command" in encoded:
        drills["command"] = _categorical(*encoded["command"], command_order(encoded["command"][1]))
    answer_columns = [column for column in ("expected", "answer") if column in encoded]
    answers = sorted(set().union(*(encoded[column][1] for column in answer_columns)) | {GREY, NO_ANSWER})
    for column in answer_columns:
        drills[column] = _categorical(*encoded[column], answers)
    return drills


def _categorical(codes: np.ndarray, values: pd.Index, categories: Sequence[str]) -> pd.Categorical:
    """The cells `values[codes]` (codes (rows,) int, as pd.factorize gives them) as a Categorical of `categories`,
    which hold every value."""
    where = pd.Index(categories).get_indexer(values)
    return pd.Categorical.from_codes(np.append(where, -1)[codes], categories=categories)  # -1: a missing cell


def _appended(drills: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """The `_categorized` frame `drills` with the new `rows` after it, categorized alike."""
    names = [column for column in NAMES if column in drills]
    for column in names:
        known = drills[column].cat.categories
        if not set(rows[column].unique()) <= set(known):  # a new session, a new player
            drills = drills.assign(**{column: drills[column].cat.set_categories(sorted({*known, *rows[column]}))})
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
                          for column in (*names, "command", *answer_columns) if column in rows})
    return pd.concat([drills, rows], ignore_index=True)


class _Span(io.RawIOBase):
    """Runs of whole lines of an open file, read by pyarrow one after the other as one text: each run is (first
    byte, byte past its last line end, its first line). Counts the line ends of each run as it gives them, and
    marks the line that holds the first byte of each block it gives."""

    def __init__(self, descriptor: int, runs: Sequence[tuple[int, int, int]]):
        self.descriptor, self.runs = descriptor, [run for run in runs if run[1] > run[0]]
        self.run, self.position = 0, self.runs[0][0] if self.runs else 0
        self.counts = [0] * len(self.runs)  # line ends given, per run
        self.marks: list[tuple[int, int]] = []  # (byte, the line holding it)

    @property
    def line_ends(self) -> int:
        return sum(self.counts)

    def lines(self) -> np.ndarray:
        """The line of each line given, (line ends,) int64."""
        if not self.runs:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([np.arange(first, first + count, dtype=np.int64)
                               for (_, _, first), count in zip(self.runs, self.counts)])

    def numbered(self) -> Iterator[tuple[int, bytes]]:
        """(line, its bytes without the line end) for every line of the runs, read at once."""
        for start, end, first in self.runs:
            yield from enumerate(os.pread(self.descriptor, end - start, start).split(b"\n")[:-1], start=first)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        """At most `size` bytes (pyarrow asks for a block at a time), from one run: read from the file as they are
        given (io.RawIOBase's own `read` would read them into a new buffer, then copy that)."""
        while self.run < len(self.runs) and self.position >= self.runs[self.run][1]:
            self.run += 1
            self.position = self.runs[self.run][0] if self.run < len(self.runs) else self.position
        if self.run == len(self.runs):
            return b""
        self.marks.append((self.position, self.runs[self.run][2] + self.counts[self.run]))
        left = self.runs[self.run][1] - self.position
        data = os.pread(self.descriptor, left if size < 0 else min(size, left), self.position)
        if not data:  # the file is shorter than it was: nothing more to give
            self.run = len(self.runs)
            return b""
        self.position += len(data)
        self.counts[self.run] += int(np.count_nonzero(np.frombuffer(data, np.uint8) == line_marks.NEWLINE))
        return data


def _cells(span: _Span, wanted: Sequence[str],
           version: int) -> tuple[pd.DataFrame, np.ndarray, list[tuple[int, str]], int]:
    """The cells of the columns `wanted` (and those read to check them, `_checked_columns`) in the lines of
    `span` of an open log of schema `version`, as text; a version-1 log's `interface` and `accepted` as version 2
    reads them.

    Returns (cells (rows, checked columns) text, the line of each row (rows,) int64, the lines skipped as
    [(line, why)], the number of lines read). Parsed by pyarrow; if it cannot parse them (a malformed
    row, text that is not UTF-8), the lines are read one by one and those that are not rows are skipped.
    """
    import pyarrow as pa
    from pyarrow import csv as arrow_csv

    in_file = COLUMNS if version == SCHEMA_VERSION else COLUMNS_V1
    checked = _checked_columns(wanted)
    read = [column for column in COLUMNS if column in in_file and (
        column in checked or (column == "expected" and "accepted" in wanted))]
    if not span.runs:
        return pd.DataFrame({column: pd.Series([], dtype=object) for column in wanted}), np.zeros(0, np.int64), [], 0
    try:
        table = arrow_csv.read_csv(
            span, read_options=arrow_csv.ReadOptions(column_names=list(in_file), block_size=BLOCK_BYTES),
            parse_options=arrow_csv.ParseOptions(ignore_empty_lines=False),
            convert_options=arrow_csv.ConvertOptions(include_columns=read, strings_can_be_null=False,
                                                     column_types={column: pa.string() for column in read}),
            memory_pool=parse_pool())
    except (pa.ArrowInvalid, ValueError, UnicodeDecodeError):
        table = None
    if table is None or table.num_rows != span.line_ends:  # a malformed line: each read on its own
        cells, lines, problems, read_lines = _cells_line_by_line(span, version)
        return cells[checked], lines, problems, read_lines
    cells = table.to_pandas(types_mapper=pd.ArrowDtype)
    if version != SCHEMA_VERSION:
        if "interface" in wanted:
            cells["interface"] = INTERFACES[0]
        if "accepted" in wanted:
            cells["accepted"] = [json.dumps([expected], ensure_ascii=False) for expected in cells["expected"]]
    return cells[checked], span.lines(), [], span.line_ends


def _cells_line_by_line(span: _Span, version: int) -> tuple[pd.DataFrame, np.ndarray, list[tuple[int, str]], int]:
    """As `_cells`, every column, read with Python's csv module one line at a time: a line that is not UTF-8 or
    not a CSV row of the schema's width is skipped, and said why."""
    columns = COLUMNS if version == SCHEMA_VERSION else COLUMNS_V1
    records, lines, problems, read_lines = [], [], [], 0
    for number, raw in span.numbered():
        read_lines += 1
        try:
            cells = next(csv.reader([raw.decode("utf-8").rstrip("\r")], strict=True), [])
        except UnicodeDecodeError:
            problems.append((number, "not UTF-8 text"))
            continue
        except csv.Error as error:
            problems.append((number, f"not a CSV row ({error})"))
            continue
        if len(cells) != len(columns):
            problems.append((number, f"{counted(len(cells), 'cell')}, the schema has {len(columns)}"))
            continue
        records.append(cells if columns is COLUMNS else cells + v1_extra_cells(cells))
        lines.append(number)
    frame = pd.DataFrame(records, columns=list(COLUMNS), dtype=object)
    return frame, np.array(lines, dtype=np.int64), problems, read_lines


def _typed(cells: pd.DataFrame, wanted: Sequence[str], source: str, version: int, lines: np.ndarray,
           with_lines: bool) -> tuple[pd.DataFrame, list[tuple[int, str]]]:
    """The rows of one file of schema `version`, the columns `wanted` typed by their column's rule in `CELLS`,
    then checked by the rules between the columns `cells` holds; a row any rule refuses is left out. with_lines:
    `lines` as the column `line`. Returns (rows, the rows left out as [(line, why)])."""
    # cells: (rows, some of COLUMNS) text (Arrow strings or str); lines: (rows,) int64, each row's line in the file
    checks: list[tuple[np.ndarray, Callable[[int], str]]] = []  # (refused (rows,) bool, why for a row)
    typed: dict[str, object] = {}
    # The longest work first: the dice's read and checks, the game's rules and the positions' regular expression
    # over half a log's bytes. Arrow's and numpy's kernels release the GIL, so they run side by side.
    # Each column of CATEGORIZED read, and each the dice's checks take once per distinct cell, is encoded once.
    encoded = [column for column in CATEGORIZED if column in wanted and not CELLS[column].categorical]
    if "dice" in cells:
        encoded = list(dict.fromkeys([*(column for column in ENCODED if column in cells), *encoded]))
    encodings = _Encodings(cells)
    with ThreadPoolExecutor(max_workers=threads()) as pool:
        roll = pool.submit(_roll, cells, encodings) if "dice" in cells else None
        for column in encoded:  # queued after the dice's read, so that the other thread starts on them first
            pool.submit(encodings, column)
        rules = pool.submit(_checks_of, cells, check_rules)
        reads = {column: pool.submit(CELLS[column].read, cells[column])
                 for column in sorted(wanted, key=lambda column: column != "positions") if column != "dice"}
        for column in wanted:  # the dice are checked with the answers, between the columns
            if column in reads:
                typed[column], bad = reads[column].result()
                checks.append(_rows_refused(cells, column, bad))
        if "schema_version" in typed:
            checks.append(_rows_refused(cells, "schema_version", typed["schema_version"] != version,
                                   lambda row: f"schema_version must be {version}, as the header says, got "
                                               f"{cells['schema_version'].iloc[row]!r}"))
        if roll is not None:
            roll_checks, rolled = roll.result()
            checks += roll_checks
            typed.update(rolled)
        checks += rules.result()
        for column in CATEGORIZED:  # as categories of their own (`_categorized` orders them: not a row hashed again)
            if column in typed and not CELLS[column].categorical:
                typed[column] = pd.Categorical.from_codes(*encodings(column))
    typed["source"] = pd.Categorical.from_codes(np.zeros(len(cells), dtype=np.int8), categories=[source])
    if "expected" in typed:
        typed["is_tie"] = (cells["expected"] == GREY).to_numpy(dtype=bool)
    if with_lines:
        typed["line"] = lines
    rows = pd.DataFrame(typed, index=cells.index, copy=False)  # each column as read: no block copied together
    rows = rows[[column for column in (*LOADED_COLUMNS, "line") if column in rows]]
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


def _rows_refused(cells: pd.DataFrame, column: str, bad: np.ndarray,
             why: Callable[[int], str] | None = None) -> tuple[np.ndarray, Callable[[int], str]]:
    """A check of the rows of `cells`: (refused (rows,) bool, why a row is refused: `why`, else the rule of
    `column` in `CELLS` about its cell)."""
    return (np.asarray(bad, dtype=bool),
            why or (lambda row: CELLS[column].problem(column, cells[column].iloc[row])))


def _checks_of(cells: pd.DataFrame, check: Callable[[pd.DataFrame, Refuse], None]) -> list[
        tuple[np.ndarray, Callable[[int], str]]]:
    """The refusals `check(cells, refuse)` makes (a check of `row_checks`), as `_rows_refused` gives them."""
    checks: list[tuple[np.ndarray, Callable[[int], str]]] = []
    check(cells, lambda column, bad, why=None: checks.append(_rows_refused(cells, column, bad, why)))
    return checks


class _Encodings:
    """The cells of one read encoded column by column (`pd.factorize`), each once: by the first thread to ask for
    it, which the others asking wait for (so a pool of one thread never waits for a task of its own queue)."""

    def __init__(self, cells: pd.DataFrame):
        self.cells = cells
        self._lock = threading.Lock()
        self._encoded: dict[str, Future] = {}

    def __call__(self, column: str) -> tuple[np.ndarray, pd.Index]:
        with self._lock:
            first = column not in self._encoded
            encoded = self._encoded.setdefault(column, Future())
        if first:
            try:
                encoded.set_result(pd.factorize(self.cells[column]))
            except BaseException as error:  # a Ctrl-C too: whoever waits for it ends with it
                encoded.set_exception(error)
                raise
        return encoded.result()


def _roll(cells: pd.DataFrame, encodings: _Encodings) -> tuple[list[tuple[np.ndarray, Callable[[int], str]]],
                                                                dict]:
    """The checks of the dice cells against the answers and the game's faces (`row_checks.check_roll`) and the
    typed columns of the roll: `dice`, `color_dice` and `dice_values` (the dice cells read once, here, for their
    checks and their numbers). encodings: the ENCODED columns the checks take, worked out on the reader's other
    threads meanwhile."""
    dice = read_dice(cells["dice"])
    encoded = {column: encodings(column) for column in ENCODED if column in cells}
    checks = _checks_of(cells, lambda cells, refuse: check_roll(cells, dice, refuse, encoded))
    return checks, {"dice": cells["dice"], "color_dice": listed(dice.color_dice, dice.counts[:, 0], cells.index),
                    "dice_values": listed(dice.values, dice.counts[:, 1], cells.index)}
