"""How the project writes files: whole or not at all, never through a link, CSV cells guarded.

Every file goes through `write_atomically` (or `atomic_file` when written piece by piece): a temporary file
beside the target, flushed, fsynced and renamed over it, so a reader sees the old file or the new one whole.
A target that is a link or not a regular file is refused before any byte is written. A folder of files (the
report) goes through `write_folder`, built beside its target and swapped in whole.
"""

from __future__ import annotations

import csv
import ctypes
import ctypes.util
import errno
import io
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

from diavolo_stats.errors import InputError
from diavolo_stats.validation import shown

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


def wrong_kind(mode: int) -> str | None:
    """What a file of `mode` (its status' st_mode) is, in the words every error about it uses, when it is not a
    regular file: a folder, or a FIFO, device or socket, which a read would block on or never end; else None."""
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    return None if stat.S_ISREG(mode) else "is not a regular file (a FIFO, a device or a socket)"


def not_a_file(path: str | Path) -> str | None:
    """Why `path` is not a regular file (through a link), as an error says it (`'PATH' ` and its `wrong_kind`);
    None when it is a regular file or is not there (an empty text names no file, though `Path("")` is the current
    folder). Checked from its status, without opening it."""
    if path == "":
        return None
    try:
        problem = wrong_kind(Path(path).stat().st_mode)
    except (OSError, ValueError):  # not there, or no name the system has (too long, a NUL character)
        return None
    return None if problem is None else f"{str(path)!r} {problem}"


def too_long(path: str | Path) -> str | None:
    """Why the system would refuse `path` as too long, in the words every error about it uses (`'PATH' has a name
    of N bytes; ...`, what the system allows after the semicolon); None when it fits, or where the system does not
    say its limits (Windows: its own error says it). The limits are the system's own (`os.pathconf`: NAME_MAX for
    each name, PATH_MAX for the whole), read where the path starts."""
    if not hasattr(os, "pathconf"):
        return None
    start = os.sep if os.path.isabs(path) else os.curdir
    try:
        name_max, path_max = os.pathconf(start, "PC_NAME_MAX"), os.pathconf(start, "PC_PATH_MAX")
        longest = max((len(os.fsencode(part)) for part in Path(path).parts), default=0)
        whole = len(os.fsencode(path))
    except (OSError, ValueError):  # a system without these limits, or text no file name can hold
        return None
    if longest > name_max:
        return f"{shown(str(path))} has a name of {longest:,} bytes; the system allows at most {name_max:,} in a name"
    if whole >= path_max:  # PATH_MAX counts the NUL that ends the path
        return f"{shown(str(path))} is {whole:,} bytes long; the system allows at most {path_max - 1:,} in a path"
    return None


def check_target(path: str | Path) -> None:
    """InputError unless `path` may be written: not a link, and a regular file if it exists, in a folder that does."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:  # a name the system refuses (too long) fails each of these
        if path.is_symlink():
            raise InputError(f"{str(path)!r} is a symbolic link; write to the file itself")
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            mode = None
        folder_exists = folder.is_dir()
    except OSError as error:
        raise InputError(f"cannot use {str(path)!r} ({error.strerror})") from None
    problem = not_a_file(path)
    if problem is not None:
        raise InputError(problem)
    if not folder_exists:
        raise InputError(f"folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (mode is not None and not os.access(path, os.W_OK)):
        raise InputError(f"cannot write to {str(path)!r}")


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _new_file_mode() -> int:
    """The permissions a new file gets under the current umask (mkstemp makes private 0600 files)."""
    return 0o666 & ~_umask()


def fsync_folder(folder: Path) -> None:
    """Make a rename or a new entry in `folder` survive a crash."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextmanager
def atomic_file(path: str | Path, text: bool = True) -> Iterator[IO]:
    """A stream to write `path` with: a temporary file beside it, renamed over `path` when the block ends.

    An exception inside the block (Ctrl-C included) removes the temporary
    file and leaves `path` as it was; an error of the system's (a full disk)
    is then an InputError naming `path`. A link or a file that is not regular is
    refused (InputError) before anything is written. Text is UTF-8 with `\\n` line ends.
    """
    path = Path(path)
    check_target(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:  # a folder this process may not write after all (read-only, an ACL, a quota)
        raise InputError(f"cannot write {str(path)!r} ({error.strerror})") from None
    try:
        os.chmod(temporary, _new_file_mode())
        with os.fdopen(handle, "wb") as raw:
            stream = io.TextIOWrapper(raw, encoding="utf-8", newline="") if text else raw
            yield stream
            stream.flush()
            os.fsync(raw.fileno())
        os.replace(temporary, path)
        fsync_folder(folder)
    except OSError as error:  # a full disk, most often: the old file stays, the temporary goes
        Path(temporary).unlink(missing_ok=True)
        raise InputError(f"cannot write {str(path)!r} ({error.strerror}); it is left as it was") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path` through a temporary file and a rename (see `atomic_file`)."""
    with atomic_file(path, text=False) as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)


def open_regular(path: str | Path, flags: int, create: bool = False) -> int:
    """A descriptor of `path` opened with `flags`, never through a link and only on a regular file.

    O_NOFOLLOW refuses a link; O_NONBLOCK keeps a FIFO from blocking the open
    until it is refused. With `create` a missing file is created (0644 under
    the umask). InputError naming the path and what is wrong with it.
    """
    path = Path(path)
    try:
        descriptor = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | (os.O_CREAT if create else 0), 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise InputError(f"{str(path)!r} is a symbolic link; use the file itself") from None
        if error.errno == errno.EISDIR:
            raise InputError(f"{str(path)!r} {wrong_kind(stat.S_IFDIR)}") from None
        raise InputError(f"cannot open {str(path)!r} ({error.strerror})") from None
    problem = wrong_kind(os.fstat(descriptor).st_mode)
    if problem is not None:
        os.close(descriptor)
        raise InputError(f"{str(path)!r} {problem}")
    os.set_blocking(descriptor, True)
    return descriptor


# -- CSV: one writer that guards cells, one reader that takes the guard off ------------------------


def csv_text(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """Rows (dicts) as CSV text with a header: `columns` in order, `\\n` line ends, every cell guarded.

    Lists and tuples are written as JSON; None as an empty cell; keys not in `columns` are left out.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([guard_cell(column) for column in columns])
    for row in rows:
        writer.writerow([_csv_cell(row.get(column)) for column in columns])
    return buffer.getvalue()


def _csv_cell(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return json.dumps(value)
    return "" if value is None else guard_cell(value)


def guarded_frame(frame):
    """`frame` (a pandas DataFrame) with every text cell passed through `guard_cell`; numbers untouched.

    Vectorized per column; the frame given is not changed.
    """
    import pandas as pd

    guarded = {}
    for column in frame.columns:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.cat.rename_categories([guard_cell(c) for c in values.cat.categories])
        elif values.dtype == object or isinstance(values.dtype, pd.StringDtype):
            risky = values.str.startswith(FORMULA_STARTS + (GUARD,)).fillna(False).astype(bool)
            if risky.any():
                values = values.where(~risky, GUARD + values.astype(object).where(risky, ""))
        guarded[column] = values
    return pd.DataFrame(guarded, index=frame.index)


def write_frame_csv(stream: IO[str], frame, header: bool = True) -> None:
    """Write a DataFrame to a text stream as CSV (no index, `\\n` line ends), every text cell guarded."""
    guarded_frame(frame).to_csv(stream, index=False, header=header, lineterminator="\n")


def frame_csv_text(frame) -> str:
    """A DataFrame as CSV text, as `write_frame_csv` writes it."""
    buffer = io.StringIO()
    write_frame_csv(buffer, frame)
    return buffer.getvalue()


def read_frame_csv(source, **options):
    """A CSV the project wrote, read with pandas (`options` go to `pandas.read_csv`), the guard taken off
    every text cell."""
    import pandas as pd

    frame = pd.read_csv(source, **options)
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object or isinstance(values.dtype, pd.StringDtype):
            guarded = values.str.startswith(GUARD).fillna(False).astype(bool)
            if guarded.any():
                frame[column] = values.where(~guarded, values.astype(object).where(guarded, "x").str[len(GUARD):])
    frame.columns = [unguard_cell(column) for column in frame.columns]
    return frame


# -- A folder of files, swapped in whole --------------------------------------------------------------


def check_folder(folder: Path, may_replace: Callable[[str], bool]) -> None:
    """InputError unless `folder` may be replaced by `write_folder`.

    It may be missing, or a real folder (not a link) holding only regular
    files (no links, no folders) whose names `may_replace` accepts: replacing
    it must lose nothing that is not ours to replace.
    """
    if folder.is_symlink():
        raise InputError(f"{str(folder)!r} is a symbolic link; give the folder itself")
    if not folder.exists():
        parent = _existing_parent(folder)
        if not os.access(parent, os.W_OK):
            raise InputError(f"cannot create {str(folder)!r} (no write permission in {str(parent)!r})")
        return
    if not folder.is_dir():
        raise InputError(f"{str(folder)!r} is not a folder")
    try:
        members = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:
        raise InputError(f"cannot read the folder {str(folder)!r} ({error.strerror})") from None
    for entry in members:
        where = str(folder / entry.name)
        if entry.is_symlink():
            raise InputError(f"{where!r} is a symbolic link; the folder must hold only report files")
        if not entry.is_file(follow_symlinks=False):
            raise InputError(f"{where!r} is not a regular file; the folder must hold only report files")
        if not may_replace(entry.name):
            raise InputError(f"{str(folder)!r} holds {entry.name!r}, which is not a report file; "
                             "choose a new or empty folder")
    parent = folder.parent if str(folder.parent) else Path(".")
    if not os.access(parent, os.W_OK):
        raise InputError(f"cannot replace {str(folder)!r} (no write permission in {str(parent)!r})")


def _existing_parent(folder: Path) -> Path:
    parent = folder.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"cannot create {str(folder)!r}: {str(parent)!r} is not a folder")
    return parent


def write_folder(folder: str | Path, files: Mapping[str, bytes], may_replace: Callable[[str], bool]) -> None:
    """Make `folder` hold exactly `files` (name -> bytes), whole or not at all.

    The files are written to a new folder beside `folder`, fsynced, and the
    two folders are swapped in one rename (Linux `renameat2` RENAME_EXCHANGE),
    so a reader sees the old folder whole or the new one whole; the old one is
    then removed. Where the exchange is not available the old folder is
    moved aside first (an instant without either). `check_folder` runs first.
    The files are fsynced all at once, one thread each: the file system then
    commits them together, where one after another each waits for its own
    commit.
    """
    folder = Path(folder)
    check_folder(folder, may_replace)
    parent = folder.parent if str(folder.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create {str(parent)!r} ({error.strerror})") from None
    draft = Path(tempfile.mkdtemp(dir=parent, prefix=f".{folder.name}.", suffix=".tmp"))
    try:
        os.chmod(draft, 0o777 & ~_umask())  # mkdtemp makes it private (0700)
        with ExitStack() as opened:
            streams = [opened.enter_context(open(draft / name, "xb")) for name in files]
            for stream, data in zip(streams, files.values()):
                stream.write(data)
                stream.flush()
            with ThreadPoolExecutor(max_workers=max(len(streams), 1)) as flushing:
                list(flushing.map(os.fsync, [stream.fileno() for stream in streams]))
        fsync_folder(draft)
        if folder.exists():
            _exchange(draft, folder)  # the old report is now at `draft`
        else:
            os.rename(draft, folder)
        fsync_folder(parent)
    except OSError as error:
        raise InputError(f"cannot write {str(folder)!r} ({error.strerror})") from None
    finally:
        shutil.rmtree(draft, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> None:
    """Swap two folders' names in one step where the system can; else move `second` aside, then `first` in."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is not None:
        if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
            return
        if ctypes.get_errno() not in (errno.EINVAL, errno.ENOSYS, errno.EXDEV):
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    aside = Path(tempfile.mkdtemp(dir=second.parent, prefix=f".{second.name}.", suffix=".old"))
    os.rename(second, aside / second.name)
    os.rename(first, second)
    os.rename(aside / second.name, first)
    aside.rmdir()
