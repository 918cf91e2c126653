"""The drill log's one reader: `load_logs` reads drill logs of either schema into one typed frame.

Every drill, analysis and simulation that reads drill logs goes through
`load_logs`. The file is parsed by pyarrow's CSV reader (only the columns
asked for, as Arrow strings) and each column is typed and checked at once
by its rule in `schema.CELLS`, the rules the writer follows. A last line
without its line end is what a crash mid-write left: it is skipped with a
warning. A file holding nothing but the start of the header (a crash while
the log was created) is a new, empty log.
"""

from __future__ import annotations

import csv
import io
import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.core.variant import GREY, Command
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
    AnswerCell,
    TruncatedLogWarning,
    header_version,
    is_header_start,
    os_errors,
    v1_extra_cells,
)
from diavolo_stats.errors import InputError

FIGURE_COLUMNS: tuple[str, ...] = tuple(column for column in COLUMNS if column not in ("dice", "positions", "accepted"))
"""Every column but the roll's JSON cells: what summaries, the adaptive scheduler and player fits read. Leaving
the JSON out makes `load_logs` about four times faster on a large log (each JSON cell is parsed to be checked)."""

LOADED_COLUMNS: tuple[str, ...] = COLUMNS + ("source", "is_tie")
"""The columns of `load_logs`' frame: the file's columns, the file it came from, and whether the roll was a tie."""

_STRING = pd.StringDtype()
_TEXT_COLUMNS = ("session_id", "player", "variant", "app_version", "interface", "dice", "positions", "accepted",
                 "source")


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
    frames = [load_one(Path(path), wanted) for path in paths]
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


def load_one(path: Path, wanted: Sequence[str]) -> pd.DataFrame:
    with os_errors(f"{path}: cannot read the drill log"):
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
    version = header_version(head.split(b"\n")[0].decode("utf-8", errors="replace"))
    if version is None:
        raise InputError(f"{path}: line 1: not a drill log of schema {SCHEMA_VERSION} or 1 "
                         f"(the header must be {COLUMNS[0]},{COLUMNS[1]},...,{COLUMNS[-1]})")
    end = size
    if not tail.endswith(b"\n"):  # every row is written with its line end in one write: this one was cut
        end = tail_start + tail.rfind(b"\n") + 1
        with os_errors(f"{path}: cannot read the drill log"), open(path, "rb") as file:
            line = file.read(end).count(b"\n") + 1
        warnings.warn(f"{path}: line {line} is incomplete (the writer stopped mid-row); skipped "
                      f"(the next drill moves it to {path}.partial)", TruncatedLogWarning, stacklevel=3)
    return _typed(_cells(path, end, wanted, version), str(path), version)




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



def _cells_line_by_line(path: Path, end: int, version: int) -> pd.DataFrame:
    """The cells of every row, (rows, COLUMNS) str, read with Python's csv module one line at a time (a
    version-1 row gets `interface` and `accepted` as version 2 reads them); InputError naming a line that is
    not UTF-8 or not a CSV row of the schema's width."""
    with os_errors(f"{path}: cannot read the drill log"), open(path, "rb") as file:
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
        records.append(cells if columns is COLUMNS else cells + v1_extra_cells(cells))
    return pd.DataFrame(records, columns=list(COLUMNS), dtype=object)



def _typed(frame: pd.DataFrame, source: str, version: int) -> pd.DataFrame:
    """Type and check the text cells of one file of schema `version` (the columns it holds), each column by its
    rule in `CELLS`, then the rules between columns; InputError naming the first bad line."""
    # frame: (rows, some of COLUMNS), every cell text (Arrow strings or str)

    def check(column: str, bad: np.ndarray, problem=None) -> None:
        bad = np.asarray(bad, dtype=bool)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            cell = frame[column].iloc[row]
            raise InputError(f"{source}: line {row + 2}: "
                             + (problem(cell) if problem else CELLS[column].problem(column, cell)))

    typed: dict[str, object] = {}
    for column in frame.columns:
        values, bad = CELLS[column].read(frame[column])
        check(column, bad)
        typed[column] = values
    if "schema_version" in typed:
        check("schema_version", typed["schema_version"] != version,
              lambda cell: f"schema_version must be {version}, as the header says, got {cell!r}")
    if "dice" in typed:
        _check_answers(frame, check)
    typed["source"] = source
    if "expected" in typed:
        typed["is_tie"] = (frame["expected"] == GREY).to_numpy(dtype=bool)
    result = pd.DataFrame(typed, index=frame.index)
    result = result[[column for column in LOADED_COLUMNS if column in result]]
    for column in _TEXT_COLUMNS:
        if column in result:
            result[column] = result[column].astype(_STRING)
    return result


def _check_answers(frame: pd.DataFrame, check) -> None:
    """The rules between the dice and the answers: `expected`, `answer` and `accepted` (those read) name colors
    of the row's dice or grey (`schema.AnswerCell`, `schema.AcceptedCell`), checked once per distinct set of
    colors."""
    codes, color_sets = DICE.colors(frame["dice"])
    for column in ("expected", "answer"):
        if column in frame:
            rule: AnswerCell = CELLS[column]
            bad = np.zeros(len(frame), dtype=bool)
            for code, colors in enumerate(color_sets):  # a few sets of colors: one check each
                rows = codes == code
                bad[rows] = ~frame[column][rows].isin(list(rule.answers(colors))).to_numpy(dtype=bool)
            check(column, bad)
    if "accepted" in frame and "expected" in frame:
        # (accepted, expected, colors) take a handful of distinct values: each is checked once.
        keys = pd.DataFrame({"accepted": frame["accepted"], "expected": frame["expected"], "colors": codes})
        distinct_codes, distinct = pd.factorize(pd.MultiIndex.from_frame(keys))
        fits = np.array([_accepted_fits(text, expected, color_sets[code]) for text, expected, code in distinct],
                        dtype=bool)
        check("accepted", ~fits[distinct_codes])


def _accepted_fits(text: str, expected: str, colors: frozenset[str]) -> bool:
    try:
        accepted = json.loads(text)
    except ValueError:
        return False
    return ACCEPTED.fits(accepted, expected, colors)
