"""The server's JSON: a client's body, checked before and once parsed, and its answers (`JSONAnswer`), strict.

A body is at most `security.MAX_BODY_BYTES`, UTF-8, one JSON value nested at most MAX_DEPTH deep (counted on
the bytes, so deep nesting costs one pass, not the parser's stack), with numbers of at most
`validation.MAX_DIGITS` digits, none past a float and no NaN or Infinity (Python's parser reads both; JSON
has neither). Every text is Unicode characters (a lone surrogate is refused naming its field) and an object
gives each key once (parsers differ on which of two counts). Why: docs/architecture.md, "Client bodies".
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from starlette.responses import JSONResponse

from diavolo_stats.errors import InputError
from diavolo_stats.validation import MAX_DIGITS, SURROGATE, json_spelled, shown

MAX_DEPTH = 8
"""Objects and lists nested in a body at most (a trial needs 4: the trial, positions, a color, a point)."""

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


class LongNumber:
    """A number longer than MAX_DIGITS, as its digits: neither a number nor text, so every rule refuses it."""

    def __init__(self, digits: str):
        self.digits = digits

    def __str__(self) -> str:
        return self.digits

    __repr__ = __str__  # an error message quotes the digits (cut to validation.MAX_SHOWN)


def _number(text: str) -> int | str:
    return int(text) if len(text.lstrip("-")) <= MAX_DIGITS else LongNumber(text)


class _NotJSON(ValueError):
    """A constant Python's json module reads but JSON (RFC 8259) has not: NaN, Infinity, -Infinity."""


def _constant(name: str) -> Any:
    raise _NotJSON(f"{name} is not a JSON number")


class _PastFloat(ValueError):
    """A number JSON spells but a float cannot hold (1e999), which Python's json module reads as an infinity."""


def _fraction(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _PastFloat(shown(text, str))
    return value


class _KeyTwice(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) < len(pairs):
        seen: set[str] = set()
        raise _KeyTwice(next(key for key, _ in pairs if key in seen or seen.add(key)))
    return value


def parse_body(body: bytes, name: str) -> Any:
    """The JSON value of a request body, or InputError (field `name`, or the field holding a bad text)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("the body must be one JSON object in UTF-8", field=name) from None
    depth = nesting(body)
    if depth > MAX_DEPTH:
        raise InputError(f"objects and lists may be nested at most {MAX_DEPTH} deep, got {depth:,}", field=name)
    try:
        value = json.loads(text, parse_int=_number, parse_float=_fraction, parse_constant=_constant,
                           object_pairs_hook=_object)
    except _KeyTwice as error:
        raise InputError(f"the key {shown(error.key, json_spelled)} is given twice in one object; each key once",
                         field=name) from None
    except _NotJSON as error:
        raise InputError(f"the body must be one JSON object, and {error}", field=name) from None
    except _PastFloat as error:
        raise InputError(f"{error} is past the largest number a body may hold, about {sys.float_info.max:.1e}",
                         field=name) from None
    except ValueError:
        raise InputError("the body must be one JSON object", field=name) from None
    _check_texts(value, name)
    return value


def nesting(body: bytes) -> int:
    """How deep the objects and lists of the JSON `body` nest (its strings left out)."""
    codes = np.frombuffer(_JSON_STRING.sub(b'""', body), dtype=np.uint8)
    steps = np.isin(codes, (ord("{"), ord("["))).astype(np.int32) - np.isin(codes, (ord("}"), ord("]")))
    return int(np.cumsum(steps).max(initial=0))


def _check_texts(value: Any, field: str, top: bool = True) -> None:
    """InputError naming `field` (at the top, each key of the object) if a text in `value` is no Unicode."""
    if isinstance(value, str):
        found = SURROGATE.search(value)
        if found:
            raise InputError(f"must be text of Unicode characters, got a lone surrogate "
                             f"(U+{ord(found.group()):04X}), which UTF-8 cannot spell", field=field)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_texts(key, field, top=False)
            _check_texts(item, key if top else field, top=False)
    elif isinstance(value, list):
        for item in value:
            _check_texts(item, field, top=False)


class JSONAnswer(JSONResponse):
    """A JSON response, strict JSON: a figure that is no number (NaN, an infinity) is written null, what the
    pages read as none (a summary's median of no right answer is null too), never NaN, which no JSON parser
    but Python's reads. A response with none is written as Starlette writes it."""

    def render(self, content: Any) -> bytes:
        return _strictly(super().render, content)


def message_text(message: Any) -> str:
    """A WebSocket message's text, strict JSON as `JSONAnswer` writes a response: a figure that is no number null."""
    return _strictly(partial(json.dumps, allow_nan=False), message)


def _strictly(write: Callable[[Any], Any], value: Any) -> Any:
    """`write(value)`, a writer that refuses a float that is no number (`allow_nan=False`); where it does, that of
    `value` with each such float None: the common case pays nothing more."""
    try:
        return write(value)
    except ValueError:
        return write(_finite(value))


def _finite(value: Any) -> Any:
    """`value` with every float that is no number (NaN, an infinity) made None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
