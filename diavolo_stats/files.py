"""How the project writes files: whole or not at all, never through a link, CSV cells guarded.

Every file the project writes goes through `write_atomically`: the bytes go
to a temporary file beside the target, are flushed and fsynced, and the
temporary file is renamed over the target, so a reader sees the old file
whole or the new one whole. A target that is a symbolic link, or exists and
is not a regular file (a folder, a FIFO, a device), is refused before any
byte is written.

Every CSV cell the project writes goes through `guard_cell`: text that a
spreadsheet would run as a formula (starting with =, +, -, @, a tab or a
carriage return) gets a leading apostrophe, and `unguard_cell` takes it off
again when the project reads its own files back. Numbers stay numbers.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from diavolo_stats.errors import InputError

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula."""

GUARD = "'"
"""The prefix that makes a spreadsheet show a cell as text."""


def guard_cell(value: object) -> object:
    """`value` with a leading apostrophe if it is text a spreadsheet would run as a formula; else unchanged."""
    if isinstance(value, str) and (value.startswith(FORMULA_STARTS) or value.startswith(GUARD)):
        # A text that already starts with the guard is guarded too, so that reading it back is exact.
        return GUARD + value
    return value


def unguard_cell(value: object) -> object:
    """The text `guard_cell` was given: one leading apostrophe removed from guarded text."""
    if isinstance(value, str) and value.startswith(GUARD):
        return value[len(GUARD):]
    return value


def check_target(path: Path) -> None:
    """InputError unless `path` may be written: not a link, and a regular file if it exists, in a folder that does."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_symlink():
        raise InputError(f"{str(path)!r} is a symbolic link; write to the file itself")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise InputError(f"cannot use {str(path)!r} ({error.strerror})") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"{str(path)!r} is a folder, not a file")
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(f"{str(path)!r} is not a regular file")
    if not folder.is_dir():
        raise InputError(f"folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (mode is not None and not os.access(path, os.W_OK)):
        raise InputError(f"cannot write to {str(path)!r}")


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path` through a temporary file and a rename.

    An existing file is replaced whole or not at all; a link or a file that
    is not regular is refused (InputError) before anything is written.
    """
    path = Path(path)
    check_target(path)
    folder = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); give it the permissions any new file gets.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
