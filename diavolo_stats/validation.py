"""Validation declared once: each setting's type and allowed range, checked by one helper.

A configuration class declares each field with `setting(default, rule)` (checked, maybe normalized, at
construction; then its own `check()` states the rules between fields); a function declares its parameters with
`@checked(name=rule, ...)`; named inputs from outside (a JSON object, a query string) are a `Record`. A bad value
is an InputError whose `field` is the name. Why: docs/architecture.md, "Declared rules".
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import math
import numbers
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from diavolo_stats.errors import InputError

RULE = "rule"
"""The dataclass field metadata key that holds a field's rule."""

CONFIGURATIONS: list[type] = []
"""Every configuration class, in the order their modules were imported."""

CHECKED_FUNCTIONS: list[Callable] = []
"""Every function whose parameters are declared with `checked`."""

CONTROL_CODES = (*range(0x01, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)
"""Control characters (C0, DEL, C1) and the line and paragraph separators: never in text. NUL is apart
(`CONTROL`), as Arrow's regex engine cannot take it inside a character class."""
SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: JSON and Python text can hold one, UTF-8 (a file, a log) cannot."""
CONTROL = re.compile("[" + "".join(map(chr, CONTROL_CODES)) + "]|\x00")

RECORDS: list[Record] = []
"""Every declared Record (the named inputs of a JSON object or a query string)."""

# Plain ASCII digits only: Python's int() and float() also take "١٠٠", "１００" and "1_000".
WHOLE_NUMBER = re.compile(r"[0-9]+", re.ASCII)
DECIMAL_NUMBER = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", re.ASCII)
MAX_DIGITS = 40
"""Longer numbers are refused before they are converted (no count or seed the project takes is that long)."""

MAX_SHOWN = 40
"""An error message quotes at most this many characters of a value given, then "..."."""


class Rule:
    """What one setting accepts. `normalize` returns the value to keep, or raises ValueError saying why not."""

    def normalize(self, value: Any) -> Any:
        raise NotImplementedError

    def bad_values(self) -> list[Any]:
        """Values this rule must refuse: the wrong type, a bool for a number, NaN, infinity, out of range, empty."""
        raise NotImplementedError

    def from_text(self, text: str) -> Any:
        """The value a query string's `text` stands for, for `normalize` to check (text it cannot read stays text,
        which `normalize` then refuses)."""
        return text

    def bad_texts(self) -> list[str]:
        """Query-string text this rule must refuse (by default its bad values that are text)."""
        return [value for value in self.bad_values() if isinstance(value, str)]


def shown(value: Any, spelled: Callable[[Any], str] = repr) -> str:
    """`value` as an error message quotes it: spelled by `spelled`, cut to MAX_SHOWN characters."""
    text = spelled(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


def json_spelled(value: Any) -> str:
    """`value` as JSON spells it (true, null, "text"): how a message to a web client quotes what it sent."""
    return json.dumps(value, default=str)


def empty_item(items: Iterable[Any], noun: str, allowed: str | None = None) -> str | None:
    """Why a list is refused when one of its `items` (its text split at the commas, or its values) is empty text,
    in the words of every list: `has an empty NOUN (nothing between two commas, or at an end)`, or, given what is
    `allowed`, `is empty; ALLOWED` when the whole text was blank (its one item); else None."""
    items = list(items)
    if allowed is not None and len(items) == 1 and isinstance(items[0], str) and not items[0].strip():
        return f"is empty; {allowed}"
    if any(isinstance(item, str) and not item.strip() for item in items):
        return f"has an empty {noun} (nothing between two commas, or at an end)"
    return None


class Refused(ValueError):
    """A rule's refusal of one part of the value it checks (an item of a list): the message quotes that part."""

    def __init__(self, message: str, part: Any) -> None:
        super().__init__(message)
        self.part = part


def check_value(name: str, value: Any, rule: Rule, spelled: Callable[[Any], str] = repr, *,
                text: bool = False) -> Any:
    """`value` as `rule` keeps it; InputError naming `name` if it is not allowed, quoting the value `shown`
    (or the part of it that was refused).

    text: `value` is a query string's text, read by the rule's `from_text` first (the message quotes the text).
    """
    try:
        return rule.normalize(rule.from_text(value) if text and isinstance(value, str) else value)
    except ValueError as error:
        got = error.part if isinstance(error, Refused) else value
        raise InputError(f"{error}, got {shown(got, spelled)}", field=name) from None


@dataclasses.dataclass(frozen=True)
class Whole(Rule):
    """A whole number from `low` to `high` (no upper bound when None); never a bool."""

    low: int
    high: int | None = None
    unit: str = ""

    def normalize(self, value: Any) -> int:
        unit = f" {self.unit}" if self.unit else ""
        allowed = (f"a whole number{unit} from {self.low:,} to {self.high:,}" if self.high is not None
                   else f"a whole number{unit} of {self.low:,} or more")
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(f"must be {allowed}")
        if value < self.low or (self.high is not None and value > self.high):
            raise ValueError(f"must be {allowed}")
        return int(value)

    def from_text(self, text: str) -> Any:
        written = text.strip()
        unsigned = written[1:] if written[:1] in ("+", "-") else written
        return int(written) if len(written) <= MAX_DIGITS and WHOLE_NUMBER.fullmatch(unsigned) else text

    def bad_values(self) -> list[Any]:
        bad = ["3", 1.5, True, math.nan, math.inf, self.low - 1, None]
        return bad + ([self.high + 1] if self.high is not None else [])

    def bad_texts(self) -> list[str]:
        return (["two", "1.5", "true", "", "\u0661", "1_000", "1" * 5000, str(self.low - 1)]
                + ([str(self.high + 1)] if self.high is not None else []))


@dataclasses.dataclass(frozen=True)
class Number(Rule):
    """A finite number within the bounds given (`above`/`at_least`, `below`/`at_most`); never a bool."""

    above: float | None = None
    at_least: float | None = None
    below: float | None = None
    at_most: float | None = None
    unit: str = ""

    def normalize(self, value: Any) -> Any:
        if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
                or (self.above is not None and not value > self.above)
                or (self.at_least is not None and not value >= self.at_least)
                or (self.below is not None and not value < self.below)
                or (self.at_most is not None and not value <= self.at_most)):
            raise ValueError(f"must be {self.describe()}")
        return value

    def describe(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        if self.at_least is not None and self.at_most is not None:
            return f"a number from {self.at_least:g} to {self.at_most:g}{unit}"
        bounds = [f"above {self.above:g}{unit}" if self.above is not None else "",
                  f"of {self.at_least:g}{unit} or more" if self.at_least is not None else "",
                  f"below {self.below:g}{unit}" if self.below is not None else "",
                  f"at most {self.at_most:g}{unit}" if self.at_most is not None else ""]
        bounds = [bound for bound in bounds if bound]
        return "a number " + " and ".join(bounds) if bounds else "a finite number"

    def from_text(self, text: str) -> Any:
        written = text.strip()
        unsigned = written[1:] if written[:1] in ("+", "-") else written
        return float(written) if len(written) <= MAX_DIGITS and DECIMAL_NUMBER.fullmatch(unsigned) else text

    def bad_values(self) -> list[Any]:
        bad: list[Any] = ["3", True, math.nan, math.inf, -math.inf, None]
        low = self.above if self.above is not None else self.at_least
        high = self.below if self.below is not None else self.at_most
        if low is not None:
            bad.append(low if self.above is not None else low - 1)
        if high is not None:
            bad.append(high if self.below is not None else high + 1)
        return bad

    def bad_texts(self) -> list[str]:
        numbers_refused = [value for value in self.bad_values() if isinstance(value, float | int)
                           and not isinstance(value, bool)]
        return ["fast", "true", "", "\u0661", "1_000", "nan", *map(str, numbers_refused)]


@dataclasses.dataclass(frozen=True)
class Flag(Rule):
    """True or False (not 0, 1 or "true"); `json`: the message spells them true and false, as JSON and TOML do."""

    json: bool = False

    def normalize(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise ValueError("must be true or false" if self.json else "must be True or False")
        return value

    def from_text(self, text: str) -> Any:
        return {"true": True, "false": False}.get(text, text)

    def bad_values(self) -> list[Any]:
        return ["true", 1, None]

    def bad_texts(self) -> list[str]:
        return ["yes", "1", "True", ""]


@dataclasses.dataclass(frozen=True)
class OneOf(Rule):
    """One of a few named options (text)."""

    options: tuple[str, ...]

    def normalize(self, value: Any) -> str:
        if not isinstance(value, str) or value not in self.options:
            raise ValueError(f"must be one of {', '.join(self.options)}")
        return value

    def bad_values(self) -> list[Any]:
        return ["no-such-option", "", 1, None]


@dataclasses.dataclass(frozen=True)
class Text(Rule):
    """Non-empty text of at most `max_length` characters, without control characters, matching `pattern`."""

    max_length: int = 100
    pattern: str | None = None
    described: str = "non-empty text without control characters"
    forbidden: tuple[str, ...] = ()
    reserved_for: str = "something else"

    def normalize(self, value: Any) -> str:
        if (not isinstance(value, str) or not value.strip() or CONTROL.search(value)
                or (self.pattern and not re.fullmatch(self.pattern, value))):
            raise ValueError(f"must be {self.described}")
        if len(value) > self.max_length:
            raise ValueError(f"must be at most {self.max_length} characters")
        if value in self.forbidden:
            raise ValueError(f"{value!r} is reserved for {self.reserved_for}")
        return value

    def bad_values(self) -> list[Any]:
        return ["", "  ", "tab\there", "x" * (self.max_length + 1), 5, None, *self.forbidden]


@dataclasses.dataclass(frozen=True)
class Instance(Rule):
    """An object of `kind` (another configuration, already checked when it was made)."""

    kind: type

    def normalize(self, value: Any) -> Any:
        if not isinstance(value, self.kind):
            raise ValueError(f"must be a {self.kind.__name__}")
        return value

    def bad_values(self) -> list[Any]:
        return ["text", 1, None]


@dataclasses.dataclass(frozen=True)
class Several(Rule):
    """A sequence (not text) of `least` to `most` items, each kept as `item` keeps it; a tuple. `how_many`: that
    count as a message says it, where the numbers alone would say it badly."""

    item: Rule
    least: int = 1
    most: int | None = None
    unique: bool = True
    noun: str = "item"
    how_many: str = ""

    def normalize(self, value: Any) -> tuple:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise ValueError(f"must be a list of {self.noun}s")
        count = (self.how_many if self.how_many else f"{self.least} {self.noun}s" if self.least == self.most
                 else f"{self.least} to {self.most} {self.noun}s" if self.most is not None
                 else f"at least one {self.noun}" if self.least == 1 else f"at least {self.least} {self.noun}s")
        problem = empty_item(value, self.noun, f"give {count}, separated by commas")
        if problem is not None:
            raise ValueError(problem)
        items = tuple(self._item(item) for item in value)
        if not (self.least <= len(items) and (self.most is None or len(items) <= self.most)):
            raise Refused(f"need {count}", len(items))
        repeated = sorted({str(item) for item in items if items.count(item) > 1})
        if self.unique and repeated:
            raise ValueError(f"{', '.join(repeated)} repeated; each {self.noun} once")
        return items

    def _item(self, item: Any) -> Any:
        try:
            return self.item.normalize(item)
        except Refused:
            raise
        except ValueError as error:
            message = str(error)
            raise Refused(f"each {self.noun} {message}" if message.startswith("must") else message, item) from None

    def from_text(self, text: str) -> Any:
        """Comma-separated items: `black,red,white`; an empty item stays "" (refused). Blank text is no item
        where the list may have none, else one empty item: refused as empty, not as a list too short."""
        if not text.strip() and self.least == 0:
            return ()
        return tuple(self.item.from_text(item.strip()) if item.strip() else "" for item in text.split(","))

    def bad_values(self) -> list[Any]:
        bad: list[Any] = ["text", 5, None] + ([()] if self.least >= 1 else [])
        # A list holding bad items.
        bad += [(item,) * max(self.least, 1) for item in self.item.bad_values() if item is not None][:3]
        return bad

    def bad_texts(self) -> list[str]:
        # A bad item must show once stripped; commas would split it.
        items = [item for item in self.item.bad_texts() if item.strip() == item and item and "," not in item]
        return ([""] if self.least >= 1 else []) + [","] + [",".join([item] * max(self.least, 1))
                                                            for item in items][:3]


@dataclasses.dataclass(frozen=True)
class FilePath(Rule):
    """A file's path (or a folder's, with `noun="folder"`), as text or a Path; kept as a Path. Empty or blank
    text names nothing and is refused: `Path("")` would be the current folder."""

    noun: str = "file"

    def normalize(self, value: Any) -> Path:
        if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
            raise ValueError(f"must be a {self.noun} path")
        if "\x00" in str(value):  # no system has such a name; os.stat would raise ValueError
            raise ValueError(f"must be a {self.noun} path without a NUL character")
        return Path(value)

    def bad_values(self) -> list[Any]:
        return ["", 5, None, "a\x00b"]


@dataclasses.dataclass(frozen=True)
class TextMap(Rule):
    """A mapping of text to text (e.g. answer -> key); kept as a dict. As text, `pair` items (NAME=VALUE)
    separated by commas."""

    pair: str = "NAME=VALUE"

    def normalize(self, value: Any) -> dict[str, str]:
        problem = (empty_item(value.split(","), self.pair, f"give {self.pair} pairs, separated by commas")
                   if isinstance(value, str) else None)
        if problem is not None:  # text `from_text` could not read as pairs
            raise ValueError(problem)
        if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in value.items()):
            raise ValueError(f"must map text to text: {self.pair} pairs separated by commas")
        return dict(value)

    def from_text(self, text: str) -> Any:
        """`black=j,red=k`: each name stripped of spaces, each value as written; text with an item that is no
        pair (an empty one included, and empty text: given, it changes no default) stays text."""
        pairs = [item.partition("=") for item in text.split(",")]
        if any(not sep for _, sep, _ in pairs):
            return text
        return {name.strip(): value for name, _, value in pairs}

    def bad_values(self) -> list[Any]:
        return ["black=k", 5, {"black": 5}, None]

    def bad_texts(self) -> list[str]:
        return ["black", "black=k,red", "black:k", "black=k,,red=j", ""]


@dataclasses.dataclass(frozen=True)
class Maybe(Rule):
    """None, or a value `rule` accepts."""

    rule: Rule

    def normalize(self, value: Any) -> Any:
        return None if value is None else self.rule.normalize(value)

    def from_text(self, text: str) -> Any:
        return self.rule.from_text(text)

    def bad_values(self) -> list[Any]:
        return [value for value in self.rule.bad_values() if value is not None]

    def bad_texts(self) -> list[str]:
        return self.rule.bad_texts()


def setting(default: Any = dataclasses.MISSING, rule: Rule | None = None, *,
            default_factory: Callable[[], Any] | Any = dataclasses.MISSING) -> Any:
    """A dataclass field declared with its rule."""
    return dataclasses.field(default=default, default_factory=default_factory, metadata={RULE: rule})


def check_fields(instance: Any) -> None:
    """Check every field of a frozen dataclass against its declared rule, keeping the normalized values."""
    for field in dataclasses.fields(instance):
        rule = field.metadata.get(RULE)
        if rule is not None:
            value = getattr(instance, field.name)
            kept = check_value(field.name, value, rule)
            if kept is not value:
                object.__setattr__(instance, field.name, kept)


class Configuration:
    """Base of every configuration class (a frozen dataclass whose fields are declared with `setting`).

    Its fields are checked at construction, each by its rule; `check()`
    then states the rules between fields. Every subclass is listed in
    CONFIGURATIONS for the shared bad-value test.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        CONFIGURATIONS.append(cls)

    def __post_init__(self) -> None:
        check_fields(self)
        self.check()

    def check(self) -> None:
        """Rules between fields, once each field is known to be allowed on its own."""


def checked(**rules: Rule) -> Callable[[Callable], Callable]:
    """Declare a function's parameters: each named one is checked (and normalized) before the function runs."""

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)
        unknown = set(rules) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{function.__qualname__} has no parameter {', '.join(sorted(unknown))}")

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind_partial(*args, **kwargs)
            for name, rule in rules.items():
                if name in bound.arguments:
                    bound.arguments[name] = check_value(name, bound.arguments[name], rule)
            return function(*bound.args, **bound.kwargs)

        call.rules = rules  # type: ignore[attr-defined]
        CHECKED_FUNCTIONS.append(call)
        return call

    return decorate


class Record:
    """The named inputs a web client sends at once: a JSON object's fields or a query string's parameters.

    name: what the whole is (the field of an error about it). rules: each name and its rule, in the order they
    are checked. defaults: the value of a name left out (trusted, not checked); a name without one is required.
    text: the values are a query string's text, read by each rule's `from_text` first. noun: what a name is called
    in messages (`field`, `parameter`). Every Record is listed in RECORDS for the shared bad-value test.
    """

    def __init__(self, name: str, rules: Mapping[str, Rule], *, defaults: Mapping[str, Any] | None = None,
                 text: bool = False, noun: str = "field") -> None:
        self.name, self.rules, self.defaults = name, dict(rules), dict(defaults or {})
        self.text, self.noun = text, noun
        if not set(self.defaults) <= set(self.rules):
            raise TypeError(f"record {name} has defaults for undeclared names")
        RECORDS.append(self)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(name for name in self.rules if name not in self.defaults)

    def check(self, given: object) -> dict[str, Any]:
        """Every declared name's value: `given`'s as its rule keeps it, else its default.

        InputError naming the first name not allowed: one `given` does not
        declare (listing those it does), a required one missing; else every
        value its rule refuses, each said as `name: what is wrong`, joined by
        "; " (the error's field is the first), so a form can mark them all.
        """
        if not isinstance(given, Mapping):
            raise InputError(f"must be one object of named {self.noun}s, got {shown(given, json_spelled)}",
                             field=self.name)
        unknown = [name for name in given if name not in self.rules]
        if unknown:
            raise InputError(f"unknown {self.noun}; allowed: {', '.join(self.rules)}", field=shown(unknown[0], str))
        missing = [name for name in self.required if name not in given]
        if missing:
            raise InputError(f"missing; required {self.noun}s: {', '.join(self.required)}", field=missing[0])
        checked, refused = {}, []
        for name, rule in self.rules.items():
            try:
                checked[name] = (check_value(name, given[name], rule, json_spelled, text=self.text) if name in given
                                 else self.defaults[name])
            except InputError as error:
                refused.append(error)
        if refused:
            raise InputError("; ".join([refused[0].message, *map(str, refused[1:])]), field=refused[0].field)
        return checked


def declared(cls: type, names: Sequence[str]) -> tuple[dict[str, Rule], dict[str, Any]]:
    """The rules and defaults configuration class `cls` declares for its fields `names`: to take them in a Record."""
    fields = {field.name: field for field in dataclasses.fields(cls)}
    return {name: fields[name].metadata[RULE] for name in names}, {name: fields[name].default for name in names}
