"""How the project reads a TOML file (a variant, a player, a dice file): bounded before it is parsed.

Only a regular file is read (a link to one is followed; a folder, FIFO or device is refused, and the open never
waits on a FIFO), at most MAX_TOML_BYTES + 1 bytes. Nesting, dotted keys and digits are bounded before and
after Python's parser sees the text. Every failure is one InputError naming the file. The bounds and why:
docs/architecture.md, "Reading TOML files".
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from diavolo_stats.errors import InputError
from diavolo_stats.files import wrong_kind
from diavolo_stats.validation import MAX_DIGITS

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

MAX_TOML_BYTES = 1 << 20
"""Bytes of a TOML file at most (1 MiB); one byte more is read to tell a longer file."""
MAX_TOML_DEPTH = 8
"""Tables and arrays nested in a TOML file at most (a variant file needs 3: `[dice.white]`'s faces)."""

_SET_ASIDE = re.compile("|".join((
    r'"""(?:\\.|[^\\])*?""""{0,2}',  # a multi-line basic string (it may end in one or two more quotes)
    r"'''[\s\S]*?''''{0,2}",  # a multi-line literal string
    r'"(?:[^"\\\n]|\\.)*"',  # a basic string
    r"'[^'\n]*'",  # a literal string
    r"#[^\n]*",  # a comment
)))
"""Strings (the four kinds) and comments: what the depth and number checks leave out."""
_DOTTED_KEY = re.compile(r'(?<![A-Za-z0-9_-])(?:[A-Za-z0-9_-]+|"")(?:[ \t]*\.[ \t]*(?:[A-Za-z0-9_-]+|""))+')
_BARE_NUMBER = re.compile(r"(?<![A-Za-z0-9_-])[+-]?[0-9][0-9A-Za-z_]*")


def read_toml(path: str | Path, source: str | None = None) -> dict[str, Any]:
    """The document of the TOML file at `path`; InputError `source: what is wrong` (the path unless
    `source` names the file otherwise) if it cannot be read or is not allowed (see the module's docstring)."""
    path = Path(path)
    source = str(path) if source is None else source
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise InputError(f"{source}: cannot read it ({error.strerror})") from None
    except ValueError:  # a NUL character, which no file name holds
        raise InputError(f"{source}: cannot read it (a file name holds no NUL character)") from None
    try:
        problem = wrong_kind(os.fstat(descriptor).st_mode)
        if problem is not None:
            raise InputError(f"{source}: {problem}; give a TOML file")
        stream = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    with stream:
        try:
            data = stream.read(MAX_TOML_BYTES + 1)
        except OSError as error:
            raise InputError(f"{source}: cannot read it ({error.strerror})") from None
    return parse_toml(data, source)


def parse_toml(data: bytes | str, source: str) -> dict[str, Any]:
    """The document of TOML text (bytes in UTF-8), checked as `read_toml` checks a file's; InputError
    `source: what is wrong`."""
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > MAX_TOML_BYTES:
        raise InputError(f"{source}: a TOML file is at most {MAX_TOML_BYTES:,} bytes (1 MiB)")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        text.encode("utf-8")  # a str may hold a lone surrogate, which no file can
        if "\x00" in text:
            raise ValueError("NUL")
    except ValueError:
        raise InputError(f"{source}: not a text file; TOML is text in UTF-8") from None
    _check_text(text, source)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{source}: not valid TOML: {' '.join(str(error).split())}") from None
    depth = _depth(document) - 1
    if depth > MAX_TOML_DEPTH:
        raise InputError(f"{source}: tables and arrays nest {depth} deep; at most {MAX_TOML_DEPTH}")
    return document


def _check_text(text: str, source: str) -> None:
    """InputError if the text, strings and comments set aside, nests too deep or holds too long a number."""
    bare = _SET_ASIDE.sub(lambda found: '""' + "\n" * found.group().count("\n"), text)  # lines kept
    for match in _DOTTED_KEY.finditer(bare):
        parts = match.group().count(".") + 1
        if parts > MAX_TOML_DEPTH + 1:
            raise InputError(f"{source}: line {_line(bare, match.start())}: a dotted key of {parts:,} parts; "
                             f"tables nest at most {MAX_TOML_DEPTH} deep")
    nesting = 0
    for at, mark in ((m.start(), m.group()) for m in re.finditer(r"[\[\]{}]", bare)):
        nesting += 1 if mark in "[{" else -1
        if nesting > MAX_TOML_DEPTH:
            raise InputError(f"{source}: line {_line(bare, at)}: arrays and tables nest more than "
                             f"{MAX_TOML_DEPTH} deep; at most {MAX_TOML_DEPTH}")
    for match in _BARE_NUMBER.finditer(bare):
        digits = _digits_written(match.group().lstrip("+-"))
        if digits > MAX_DIGITS:
            raise InputError(f"{source}: line {_line(bare, match.start())}: a number of {digits:,} digits; "
                             f"numbers are at most {MAX_DIGITS} digits")


def _digits_written(number: str) -> int:
    """How many digits a number (no sign) is written with: hexadecimal ones after 0x, none of its prefix."""
    if number[:2] in ("0x", "0o", "0b"):
        return len(re.findall("[0-9A-Fa-f]", number[2:]))
    return len(re.findall("[0-9]", number))


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _depth(value: Any) -> int:
    """How deep tables and arrays nest in `value` (0 for a plain value)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0
