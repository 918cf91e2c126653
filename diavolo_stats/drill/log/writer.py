"""The drill log's writer: `DrillLog` appends rows under a lock on the file, each fsynced, and repairs a crash.

Two sessions appending at once never interleave, and an answer is on disk before the next trial is shown. It
appends only to a log of this schema and never rewrites one by itself: a version-1 log is refused, naming
`diavolo log upgrade FILE`. The lock, the fsync and what a crash leaves: docs/architecture.md, "The drill log's
file".
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.drill.log.reader import FollowedLog
from diavolo_stats.drill.log.schema import (
    COLUMNS,
    HEADER_LINE,
    HEADER_LINE_V1,
    SCHEMA_VERSION,
    TrialRow,
    TruncatedLogWarning,
    csv_line,
    is_header_start,
    os_errors,
)
from diavolo_stats.errors import InputError, about
from diavolo_stats.files import fsync_folder, open_regular

StoredTrial = tuple[str, tuple[str, ...], bool]
"""A trial as the log holds it: its expected answer, the answers accepted, and whether it was correct."""

LOCK_TIMEOUT_S = 10.0
LOCK_POLL_S = 0.02


class DrillLog:
    """An append-only drill log at `path`, a regular file (so is `<log>.partial`), never a symbolic link.

    Creating it creates the file (and its folder) with the header, completes a header cut by a crash, or checks
    that an existing file's header is this schema and that it can be appended to: InputError naming the file
    otherwise, the file untouched. Before every append, under the lock, the log must be the same file (device and
    inode) with the same header: one moved or copied over it is refused, one deleted or emptied is started again.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        with os_errors(f"cannot create the folder for {self.path}"):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        self._identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the log this writer appends to
        self._state = threading.Lock()  # the trials known stored (`append_once`), shared by this writer's threads
        self._stored: dict[str, dict[int, StoredTrial]] = {}  # session id -> its trials in the log
        self._followed: FollowedLog | None = None
        with self._locked(create=True) as descriptor:
            self._check_file(descriptor)
        if created:
            _sync_new_entry(self.path)

    def append(self, row: TrialRow) -> None:
        """Write one trial; returns once the row is fsynced."""
        self.append_rows([row])

    def append_rows(self, rows: Sequence[TrialRow]) -> None:
        """Write several trials at once, as `append` writes one, in one write, then fsynced. For rows no
        person is waiting on (a synthetic log); a drill appends each answer as it is given."""
        data = _lines(rows)
        with self._locked(create=True) as descriptor:
            self._check_file(descriptor)
            self._end_last_line(descriptor)
            _write_synced(descriptor, self.path, data)

    def stored(self, session_id: str, trial: int) -> StoredTrial | None:
        """What the log holds of that trial (its expected answer, the answers accepted, whether it was
        correct), or None when the log does not hold it; reads only the rows appended since the last look."""
        with self._state, self._locked(create=True) as descriptor:
            self._check_file(descriptor)
            self._catch_up()
            return self._stored.get(session_id, {}).get(trial)

    def append_once(self, row: TrialRow,
                    before_append: Callable[[], None] | None = None) -> tuple[bool, StoredTrial]:
        """Append `row` unless the log already holds its trial (the same session id and trial number): whether
        it was appended, and the trial as the log holds it (the first one stored, for a trial sent again).

        The check and the append happen under the log's lock, so two programs (two servers) sending the same
        trial store it once. `before_append` is called under the lock once the trial is known new, and may
        refuse it by raising.
        """
        data = _lines([row])
        with self._state, self._locked(create=True) as descriptor:
            self._check_file(descriptor)
            self._end_last_line(descriptor)
            self._catch_up()
            known = self._stored.get(row.session_id, {}).get(row.trial)
            if known is not None:
                return False, known
            if before_append is not None:
                before_append()
            _write_synced(descriptor, self.path, data)
            stored = (row.expected, tuple(row.accepted), row.correct)
            self._stored.setdefault(row.session_id, {})[row.trial] = stored
            return True, stored

    def _catch_up(self) -> None:
        """Note the trials of the rows the log gained since the last look (all of them, the first time)."""
        if self._followed is None:
            self._followed = FollowedLog(self.path, ["session_id", "trial", "expected", "correct", "accepted"])
        rows, restarted = self._followed.new_rows()
        if restarted:
            self._stored = {}
        if rows.empty:
            return
        # A handful of distinct (expected, accepted, correct): one tuple each, shared by their rows.
        expected, expected_texts = pd.factorize(rows["expected"])
        accepted, accepted_texts = pd.factorize(rows["accepted"])
        keys = (accepted.astype(np.int64) * len(expected_texts) + expected) * 2 + rows["correct"].to_numpy(dtype=int)
        distinct, each = np.unique(keys, return_inverse=True)
        kinds = np.empty(len(distinct), dtype=object)
        for index, key in enumerate(distinct.tolist()):
            kinds[index] = (str(expected_texts[key // 2 % len(expected_texts)]),
                            _accepted_answers(accepted_texts[key // 2 // len(expected_texts)]), bool(key % 2))
        of_rows, trials = kinds[each.reshape(-1)], rows["trial"].to_numpy()
        for session_id, positions in rows.groupby("session_id", sort=False, observed=True).indices.items():
            self._stored.setdefault(str(session_id), {}).update(zip(trials[positions].tolist(), of_rows[positions]))

    def _check_file(self, descriptor: int) -> None:
        """The open log is this writer's, with the header: a new or emptied file gets the header; a file that is
        not the one opened first (moved over it) or whose header is not this schema's is refused."""
        with os_errors(f"cannot read {self.path}"):
            status = os.fstat(descriptor)
        identity = (status.st_dev, status.st_ino)
        if _is_header_start(descriptor):  # new, or deleted, emptied or cut since the session started
            _replace_content(descriptor, self.path, HEADER_LINE + "\n")
        elif self._identity is not None and identity != self._identity:
            raise InputError(f"{self.path} was replaced by another file since this program opened it; nothing "
                             "was appended to it. Start again to use the new file, or choose another log",
                             field="log")
        else:
            self._check_header(descriptor)
        self._identity = identity

    @contextmanager
    def _locked(self, create: bool) -> Iterator[int]:
        """The log opened for appending, under an exclusive OS lock on the file itself (`flock`), so that
        two sessions appending at once never interleave; no lock file is left beside the log."""
        with about("log"):
            descriptor = open_regular(self.path, os.O_RDWR | os.O_APPEND, create=create)
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
        with os_errors(f"cannot read {self.path}"):
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
        with os_errors(f"cannot read {self.path}"):
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
        with os_errors(f"cannot cut the incomplete last row off {self.path}"):
            os.ftruncate(descriptor, cut)
            os.fsync(descriptor)
        warnings.warn(f"{self.path}: an incomplete last row (a crash mid-write) was moved to {partial} "
                      "before appending", TruncatedLogWarning, stacklevel=3)



def _accepted_answers(accepted: str) -> tuple[str, ...]:
    """The answers of an `accepted` cell (a JSON list); none for a cell that is not one."""
    try:
        answers = json.loads(accepted)
    except ValueError:
        return ()
    return tuple(map(str, answers)) if isinstance(answers, list) else ()


def _lines(rows: Sequence[TrialRow]) -> bytes:
    """The CSV lines of `rows`, UTF-8; InputError unless each is a TrialRow."""
    for row in rows:
        if not isinstance(row, TrialRow):
            raise InputError(f"must be a TrialRow, got {type(row).__name__}", field="row")
    return "".join(csv_line(row.cells()) for row in rows).encode("utf-8")


def _is_header_start(descriptor: int) -> bool:
    """Whether the open log holds nothing but the start of the header (or nothing): a log being created."""
    size = os.fstat(descriptor).st_size
    if size > len(HEADER_LINE) + 1:
        return False
    return is_header_start(os.pread(descriptor, size, 0))



def is_drill_log(path: Path) -> bool:
    """Whether the file at `path` starts with this schema's header line (or the start of it: a new log)."""
    with os_errors(f"cannot read {path}"), open(path, "rb") as file:
        start = file.read(len(HEADER_LINE) + 2)
    return is_header_start(start) or start.split(b"\n")[0].rstrip(b"\r") == HEADER_LINE.encode("ascii")


def _replace_content(descriptor: int, path: Path, text: str) -> None:
    with os_errors(f"cannot write the header of {path}"):
        os.ftruncate(descriptor, 0)
    _write_synced(descriptor, path, text.encode("utf-8"))


def _write_synced(descriptor: int, path: Path, data: bytes) -> None:
    """Write all of `data` to an open file and fsync it; InputError naming the file and what failed."""
    with os_errors(f"cannot write to {path}"):
        while data:  # os.write may write less than asked (a full disk, a signal)
            data = data[os.write(descriptor, data):]
    with os_errors(f"cannot save {path} to disk (fsync)"):
        os.fsync(descriptor)


def _append_synced(path: Path, data: bytes) -> None:
    """Append `data` to `path` (created if missing; never through a link) and fsync it."""
    created = not path.exists()
    with about("log"):
        descriptor = open_regular(path, os.O_WRONLY | os.O_APPEND, create=True)
    try:
        _write_synced(descriptor, path, data)
    finally:
        os.close(descriptor)
    if created:
        _sync_new_entry(path)


def _sync_new_entry(path: Path) -> None:
    """The new directory entry of `path` must survive a crash too, not only the data."""
    with os_errors(f"cannot save the folder of {path} to disk (fsync)"):
        fsync_folder(path.parent)

