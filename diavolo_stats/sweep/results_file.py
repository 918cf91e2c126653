"""The sweep's output file: rows written as each variant finishes, a run resumed where it stopped.

Rows go to a CSV journal (the file itself for `.csv`, `FILE.parquet.journal.csv` for `.parquet`), one write and
an fsync per finished variant, so a crash loses at most the variants in flight and a cut can only be in the last
line. When the sweep completes, the whole file is written again in grid order through `files.write_atomically`.
Resuming keeps the variants whose rows are all there and refuses a file of another sweep (`sweep_id`).
"""

from __future__ import annotations

import csv
import errno
import io
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from diavolo_stats.errors import InputError, about
from diavolo_stats.files import check_target, guard_cell, unguard_cell, write_atomically
from diavolo_stats.sweep.result import COLUMNS, FLOAT_COLUMNS, INTEGER_COLUMNS, variant_key

SUFFIXES = (".csv", ".parquet")
JOURNAL_SUFFIX = ".journal.csv"
SYNC_INTERVAL_S = 0.2


def check_output(path: Path) -> None:
    """InputError unless `path` names a file a sweep can write: a `.csv` or `.parquet` file it may write."""
    if path.name.lower() in SUFFIXES:  # a hidden file's whole name: Path(".csv").suffix is ""
        raise InputError(f"{str(path)!r}: the file name needs a name before .csv or .parquet (sweep.csv)",
                         field="out")
    if path.suffix.lower() not in SUFFIXES:
        raise InputError(f"{str(path)!r}: the file name must end in .csv or .parquet", field="out")
    if path.suffix.lower() == ".parquet":
        _check_target(_journal_path(path))
    _check_target(path)


def _check_target(path: Path) -> None:
    with about("out"):
        check_target(path)


class ResultsFile:
    """The rows of one sweep on disk: `done` holds those already there; `append` adds a variant's."""

    def __init__(self, path: Path, sweep_id: str, commands_per_variant: int, resume: bool) -> None:
        self.path = Path(path)
        check_output(self.path)
        self.parquet = self.path.suffix.lower() == ".parquet"
        self.journal = _journal_path(self.path) if self.parquet else self.path
        existing = [p for p in {self.path, self.journal} if p.exists()]
        if existing and not resume:
            raise InputError(f"{str(existing[0])!r} exists; resume it or choose another file", field="out")
        self._descriptor: int | None = None
        self.done: dict[tuple, list[dict]] = {}
        if self.journal.exists():
            rows, cut = _read_csv(self.journal)
        elif self.path.exists():
            rows, cut = _read_parquet(self.path), False
        else:
            rows, cut = [], False
        foreign = sorted({row["sweep_id"] for row in rows} - {sweep_id})
        if foreign:
            raise InputError(f"{str(self.path)!r} holds a sweep of another grid or seed (sweep_id {foreign[0]}, "
                             f"this one {sweep_id}); run it with its own flags or choose another file", field="out")
        for row in rows:
            self.done.setdefault(variant_key(row), []).append(row)
        whole = {key: rows for key, rows in self.done.items() if len(rows) == commands_per_variant}
        if cut or len(whole) != len(self.done) or not self.journal.exists():
            # Keep only whole variants: a run killed while writing left a cut tail.
            write_atomically(self.journal, _csv_text([row for rows in whole.values() for row in rows], header=True))
        self.done = whole

        self._descriptor = os.open(self.journal, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
        self._synced_at = time.monotonic()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        try:
            self.close()
        except OSError:
            if kind is None:  # else the error already on its way (a full disk, most often) is the one to say
                raise

    def append(self, rows: Sequence[dict[str, Any]], sync: bool = True) -> None:
        """Write one variant's rows in one write; fsync them before returning.

        sync=False, for variants answered back to back in this process (exact
        values take milliseconds, an fsync tens of them): fsync only when the
        last one is SYNC_INTERVAL_S old, so at most that much work awaits the disk.
        """
        data = _csv_text(rows, header=False).encode("utf-8")
        try:
            if os.write(self._descriptor, data) != len(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            if sync or time.monotonic() - self._synced_at >= SYNC_INTERVAL_S:
                os.fsync(self._descriptor)
                self._synced_at = time.monotonic()
        except OSError as error:  # a full disk: the variants fsynced before stay, for --resume
            raise InputError(f"cannot write {str(self.journal)!r} ({error.strerror}); resuming continues from "
                             "the variants it holds", field="out") from None

    def close(self) -> None:
        """fsync what is written and close the journal (rows stay; `finish` writes the whole file)."""
        if self._descriptor is not None:
            try:
                os.fsync(self._descriptor)
            finally:
                os.close(self._descriptor)
                self._descriptor = None

    def finish(self, rows: Sequence[dict[str, Any]]) -> None:
        """Write the whole sweep, rows in grid order, atomically; a Parquet file replaces its journal."""
        if self.parquet:
            import pandas as pd

            buffer = io.BytesIO()
            frame = pd.DataFrame(list(rows), columns=list(COLUMNS))
            for column in ("ties", "seed"):
                frame[column] = frame[column].astype("Int64")
            frame.to_parquet(buffer, index=False)
            write_atomically(self.path, buffer.getvalue())
            self.close()
            self.journal.unlink()
        else:
            self.close()
            write_atomically(self.path, _csv_text(rows, header=True))


def _journal_path(path: Path) -> Path:
    return path.with_name(path.name + JOURNAL_SUFFIX)


def _csv_text(rows: Sequence[dict[str, Any]], header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header:
        writer.writerow(COLUMNS)
    for row in rows:
        # repr of a float reads back to the same float, so a resumed file equals an uninterrupted one.
        writer.writerow(["" if row[c] is None else repr(row[c]) if isinstance(row[c], float) else guard_cell(row[c])
                         for c in COLUMNS])
    return buffer.getvalue()


def _read_csv(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """The rows of a journal, and whether its last line was cut (and so left out)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {str(path)!r} ({error})", field="out") from None
    cut = bool(text) and not text.endswith("\n")
    lines = text.split("\n")[:-1]  # the piece after the last newline: empty, or a cut line
    records = list(csv.reader(lines))
    if not records or tuple(records[0]) != COLUMNS:
        raise InputError(f"{str(path)!r} is not a sweep result (its header differs)", field="out")
    rows = []
    for number, record in enumerate(records[1:], start=2):
        if len(record) != len(COLUMNS):
            raise InputError(f"line {number} of {str(path)!r} is not a sweep row", field="out")
        try:
            rows.append({column: _parse(column, unguard_cell(cell)) for column, cell in zip(COLUMNS, record)})
        except ValueError:
            raise InputError(f"line {number} of {str(path)!r} is not a sweep row", field="out") from None
    return rows, cut


def _parse(column: str, cell: str) -> Any:
    if cell == "":
        return None
    if column in INTEGER_COLUMNS:
        return int(cell)
    if column in FLOAT_COLUMNS:
        return float(cell)
    return cell


def _read_parquet(path: Path) -> list[dict[str, Any]]:
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read {str(path)!r} as a sweep result ({error})", field="out") from None
    if tuple(frame.columns) != COLUMNS:
        raise InputError(f"{str(path)!r} is not a sweep result (its columns differ)", field="out")
    return [{column: _from_parquet(column, value) for column, value in record.items()}
            for record in frame.to_dict("records")]


def _from_parquet(column: str, value: Any) -> Any:
    import pandas as pd

    if value is None or pd.isna(value):
        return None
    if column in INTEGER_COLUMNS:
        return int(value)
    if column in FLOAT_COLUMNS:
        return float(value)
    return str(value)
