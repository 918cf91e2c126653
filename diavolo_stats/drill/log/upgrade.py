"""`upgrade_log`: a drill log of schema 1 rewritten whole as schema 2, the original kept beside it."""

from __future__ import annotations

import csv
import warnings
from dataclasses import dataclass
from pathlib import Path

from diavolo_stats.drill.log.reader import SkippedRowsWarning, load_logs
from diavolo_stats.drill.log.schema import (
    HEADER_LINE,
    SCHEMA_VERSION,
    TruncatedLogWarning,
    csv_line,
    header_version,
    os_errors,
    v1_extra_cells,
)
from diavolo_stats.errors import InputError, about
from diavolo_stats.files import write_atomically
from diavolo_stats.results import TextResult, counted

BACKUP_SUFFIX = ".schema1.bak"
"""`diavolo log upgrade` keeps the version-1 original as `<log>` + this."""


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
        return (f"upgraded {self.log} to drill log schema {SCHEMA_VERSION} ({counted(self.row_count, 'row')}); "
                f"the original is kept as {self.backup}")


def upgrade_log(path: str | Path) -> LogUpgrade:
    """Rewrite the version-1 drill log at `path` as version 2, keeping the original as `<path>.schema1.bak`.

    Each row keeps every byte of its line but the leading version (1 becomes 2) and gains `interface` terminal and
    `accepted` [expected]; the header gains the two columns. The backup is written first, then the log is replaced
    whole; a last line cut by a crash is carried over as it is. InputError, and nothing written, when `path` is not
    a version-1 drill log (one `load_logs` reads) or the backup already exists.
    """
    path = Path(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncatedLogWarning)  # the cut line is carried over, not lost
        warnings.simplefilter("error", SkippedRowsWarning)  # every row checked before anything is written
        try:
            with about("path"):
                rows = len(load_logs([path]))
        except SkippedRowsWarning as skipped:
            raise InputError(f"{skipped}; nothing was upgraded: mend or remove those lines first") from None
    backup = path.with_name(path.name + BACKUP_SUFFIX)  # a file's name: load_logs refuses a folder ('.', '/')
    with os_errors(f"cannot read {path}"):
        data = path.read_bytes()
    text = data.decode("utf-8")
    lines = text.split("\n")
    if header_version(lines[0]) != 1:
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
    return "2" + body[1:] + "," + csv_line(v1_extra_cells(cells)).rstrip("\n") + ending

