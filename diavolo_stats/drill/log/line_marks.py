"""Where a drill log's lines start: the marks its reads leave, and counting line ends from them.

`load_rows` reads a few rows again by their line. It finds where each starts by
counting line ends (numpy, SCAN_BYTES at a time), from the last place before it
whose line a read of the file marked (`LineMarks`) rather than from the header.

Why it works as it does: docs/architecture.md, "The drill log's reader".
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

SCAN_BYTES = 1 << 20
"""`load_rows` counts a file's line ends this many bytes at a time, to find where the lines it reads start."""

MARKED_LOGS = 16
"""The reader keeps the line marks of at most this many logs, those read last."""

NEWLINE = ord("\n")


class LineMarks:
    """Which line holds the first byte of each block the reader gave Arrow, for the logs read last (MARKED_LOGS),
    by file (device, inode) and header: where `load_rows` starts counting line ends, near the lines it reads
    again, instead of at the header. A drill log is only appended to, so a mark holds while the file is the same
    one; a log replaced is another file, with no marks, and a read from the header on replaces a file's marks.
    A log emptied and written again in place before the next read can make a mark wrong; `load_rows` still gives
    no row but the trial asked for, since it checks the trial each line holds (see docs/architecture.md)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._logs: dict[tuple[int, int], tuple[bytes, np.ndarray]] = {}  # by file: (header, marks)

    def add(self, identity: tuple[int, int], header: bytes, marks: Sequence[tuple[int, int]], whole: bool) -> None:
        """Keep `marks` [(byte, the line holding it)] of the log `identity` (st_dev, st_ino) whose header is
        `header`, with those kept of it; whole: a read from the header on, whose marks replace those kept."""
        new = np.array(marks, dtype=np.int64).reshape(-1, 2)
        with self._lock:
            kept = self._logs.pop(identity, None)
            if kept is not None and kept[0] == header and not whole:
                both = np.concatenate([kept[1], new])
                new = both[np.unique(both[:, 0], return_index=True)[1]]
            self._logs[identity] = (header, new)  # the last read last: the first is the one to drop
            while len(self._logs) > MARKED_LOGS:
                del self._logs[next(iter(self._logs))]

    def of(self, identity: tuple[int, int], header: bytes) -> np.ndarray:
        """The marks kept of that log, (marks, 2) int64, (byte, line) by byte; none when its header changed."""
        with self._lock:
            kept = self._logs.get(identity)
        return kept[1] if kept is not None and kept[0] == header else np.zeros((0, 2), dtype=np.int64)


MARKS = LineMarks()


def line_runs(descriptor: int, marks: np.ndarray, size: int,
              lines: np.ndarray) -> list[tuple[int, int, int]] | None:
    """The runs of consecutive lines among `lines` (sorted, unique, from 2) of the open log of `size` bytes, as
    (first byte, byte past the last line end, first line), found by counting line ends from the last of `marks`
    before each line end wanted; None when the file ends before the last of `lines`.

    marks: (marks, 2) int64, (byte, the line holding it) by byte, the first the header's end (line 2)."""
    ends_wanted = np.union1d(lines - 1, lines)  # a line starts where the one before it ends
    ends = np.empty(len(ends_wanted), dtype=np.int64)  # the byte past each of those lines' line end
    found = int(ends_wanted[0] == 1)
    ends[:found] = marks[0, 0]  # the header, line 1
    position, line = 0, 2  # `line`: the line holding byte `position`
    while found < len(ends_wanted):
        mark = marks[np.searchsorted(marks[:, 1], ends_wanted[found], side="right") - 1]
        if mark[0] > position:  # lines not wanted up to a mark: counting starts again there
            position, line = int(mark[0]), int(mark[1])
        if position >= size:
            break
        block = os.pread(descriptor, min(SCAN_BYTES, size - position), position)
        if not block:
            break
        is_end = np.frombuffer(block, np.uint8) == NEWLINE
        count = int(np.count_nonzero(is_end))  # lines `line` to `line + count - 1` end in this block
        last = int(np.searchsorted(ends_wanted, line + count))
        if last > found:
            ends[found:last] = position + np.flatnonzero(is_end)[ends_wanted[found:last] - line] + 1
            found = last
        position, line = position + len(block), line + count
    if found < len(ends_wanted):
        return None
    firsts = np.flatnonzero(np.diff(lines, prepend=-1) != 1)  # where each run of consecutive lines starts
    lasts = np.append(firsts[1:], len(lines)) - 1
    starts, stops = ends[np.searchsorted(ends_wanted, lines[firsts] - 1)], ends[np.searchsorted(ends_wanted,
                                                                                               lines[lasts])]
    return [(int(begin), int(stop), int(first)) for begin, stop, first in zip(starts, stops, lines[firsts])]
