"""The kinds of cell of the drill log: how one column's values are written and a column of cells is read back.

`schema.CELLS` gives each column its kind, a `Cell` (docs/architecture.md, "The drill log's cells"). Reading is
vectorized (numpy, pandas and Arrow's kernels, no Python loop over rows for cells as the writer writes them),
because the reader reads logs of a million rows. The timestamps' range is stated here, once, for the writer and
the reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd

from diavolo_stats.core.table_model import TABLE_FIELDS
from diavolo_stats.core.variant import COLOR_NAME, GREY
from diavolo_stats.drill import MAX_SEED
from diavolo_stats.errors import InputError
from diavolo_stats.files import GUARD, guard_cell
from diavolo_stats.names import _NOT_IN_NAME_CHARACTERS, MAX_PLAYER_LENGTH, check_player, player_problem
from diavolo_stats.results import counted
from diavolo_stats.validation import CONTROL, CONTROL_CODES, Flag, Maybe, Number, OneOf, Rule, Whole, check_value

_CONTROL_CHARACTERS = "[" + "".join(map(chr, CONTROL_CODES)) + "]"


def _has(text: pd.Series, characters: str) -> np.ndarray:
    """Which cells contain any of `characters` (a regex class of characters outside printable ASCII: controls,
    separators, hidden marks) or a NUL: (rows,) bool. A column whose bytes are all printable ASCII has none, and
    is answered without a regex (most logs: a million rows' regexes took a third of `load_logs`)."""
    if _printable_ascii(text):
        return np.zeros(len(text), dtype=bool)
    return (text.str.contains(characters, regex=True) | text.str.contains("\x00", regex=False)).to_numpy(dtype=bool)


def per_distinct(text: pd.Series, refused: Callable[[pd.Series], np.ndarray]) -> np.ndarray:
    """Which cells `refused` refuses, (rows,) bool, asked once per distinct cell (`refused` is given those,
    (distinct,) text, and returns (distinct,) bool): for a column of a few names, encoding it costs less than
    checking every cell."""
    codes, distinct = pd.factorize(text)
    return np.append(np.asarray(refused(pd.Series(distinct, dtype=object)), dtype=bool), True)[codes]  # -1: missing


def _printable_ascii(text: pd.Series) -> bool:
    """Whether every byte of the cells of `text` is printable ASCII (0x20 to 0x7E), read from Arrow's buffer of
    their bytes (a superset of them, for a slice); False for text that is not held by Arrow."""
    if not isinstance(text.dtype, pd.ArrowDtype):
        return False
    for chunk in _arrow_text(text).chunks:
        data = chunk.buffers()[2]
        if data is not None and data.size:
            values = np.frombuffer(data, dtype=np.uint8)
            if values.min() < 0x20 or values.max() > 0x7E:
                return False
    return True


def _arrow_text(text: pd.Series):
    """The cells of `text` as a pyarrow ChunkedArray of strings (the one Arrow holds, else converted)."""
    import pyarrow as pa

    held = pa.array(text.array) if isinstance(text.dtype, pd.ArrowDtype) else pa.array(
        text, type=pa.string(), from_pandas=True)
    return held if isinstance(held, pa.ChunkedArray) else pa.chunked_array([held])


def _digits(text: pd.Series, most: int) -> np.ndarray:
    """Which cells are 1 to `most` of the digits 0-9, (rows,) bool: Arrow's ASCII-decimal test and byte length
    (what the regular expression [0-9]{1,most} fullmatches, without a regex)."""
    import pyarrow.compute as pc

    held = _arrow_text(text)
    return pc.and_(pc.ascii_is_decimal(held), pc.less_equal(pc.binary_length(held), most)).to_numpy()


def _cell_numbers(text: pd.Series, dtype: type) -> np.ndarray:
    """The numbers in cells of text, (rows,) of `dtype` (NaN, or 0 for whole numbers, where a cell is none): Arrow's
    cast at once, pandas' to find the cells it refuses."""
    import pyarrow as pa

    try:
        return pa.array(text, type=pa.string(), from_pandas=True).cast(pa.from_numpy_dtype(dtype)).to_numpy(
            zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        numbers = pd.to_numeric(text.astype(object), errors="coerce")
        return numbers.fillna(0 if np.issubdtype(dtype, np.integer) else np.nan).to_numpy(dtype=dtype)


def _refusal(rule: Rule) -> str:
    """What `rule` allows, in the words of its refusal ('a whole number from 1 to 2')."""
    try:
        rule.normalize(object())  # no rule here accepts a bare object
    except ValueError as error:
        return str(error).removeprefix("must be ")
    raise AssertionError(f"{rule} accepts anything")


class Cell:
    """How one column's values are written and read back.

    `write(value)`: the cell's text, or InputError (field: the column) saying
    what is allowed. `read(text)`: (typed values, refused), `text` a column
    of cells (rows,) as text, refused (rows,) bool. `allowed`: what a cell
    must be, as the reader says of a refused one. `categorical`: `read` gives
    a pandas Categorical (an encoding the reader need not make again).
    """

    allowed: str
    categorical = False

    def write(self, column: str, value: object) -> str:
        raise NotImplementedError

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        raise NotImplementedError

    def problem(self, column: str, cell: str) -> str:
        """Why the reader refuses `cell`."""
        return f"{column} must be {self.allowed}, got {cell!r}"


@dataclass(frozen=True)
class WholeCell(Cell):
    """A whole number from `low` to `high` (no bound when None), written in digits; `optional`: or empty."""

    low: int
    high: int | None = None
    optional: bool = False

    @property
    def rule(self) -> Rule:
        whole = Whole(self.low, self.high)
        return Maybe(whole) if self.optional else whole

    @property
    def allowed(self) -> str:
        return _refusal(self.rule) + (", or empty" if self.optional else "")

    def write(self, column: str, value: object) -> str:
        if isinstance(value, np.integer):
            value = int(value)
        value = check_value(column, value, self.rule)
        return "" if value is None else str(value)

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        # text: (rows,) str -> (rows,) int64, or Int64 with <NA> for an empty optional cell
        given = (text != "").to_numpy(dtype=bool)
        digits = _digits(text, 19)
        numbers = _cell_numbers(text.where(digits, "0"), np.uint64)
        fits = digits & (numbers >= self.low) & (numbers <= (MAX_SEED if self.high is None else self.high))
        values = np.where(fits, numbers, 0).astype(np.int64)
        if not self.optional:
            return values, ~fits
        typed = pd.array(values, dtype="Int64")
        typed[~given] = pd.NA
        return typed, given & ~fits


@dataclass(frozen=True)
class TextCell(Cell):
    """Non-empty text without control characters, written as it is."""

    allowed = "non-empty text without control characters"

    def write(self, column: str, value: object) -> str:
        if not isinstance(value, str) or not value or CONTROL.search(value):
            raise InputError(f"must be {self.allowed}, got {value!r}", field=column)
        return value

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        return text, (text == "").to_numpy(dtype=bool) | _has(text, _CONTROL_CHARACTERS)


@dataclass(frozen=True)
class PlayerCell(Cell):
    """A player's name (`check_player`), guarded against spreadsheet formulas (`files.guard_cell`)."""

    allowed = "a player's name"
    categorical = True

    def write(self, column: str, value: object) -> str:
        return guard_cell(check_player(value))

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        # Each distinct cell unguarded and checked once; two cells can read as one name ("'=x" and "=x").
        codes, cells = pd.factorize(text)
        names = _unguarded(pd.Series(cells, dtype=object))
        refused = (_has(names, _NOT_IN_NAME_CHARACTERS) | (names.str.len() > MAX_PLAYER_LENGTH).to_numpy(bool)
                   | (names.str.strip() == "").to_numpy(dtype=bool))
        of_cell, players = pd.factorize(names)
        return (pd.Categorical.from_codes(np.append(of_cell, -1)[codes], categories=players),  # -1: missing
                np.append(refused, True)[codes])

    def problem(self, column: str, cell: str) -> str:
        return f"{column}: {player_problem(_unguarded(pd.Series([cell])).iloc[0])}"


def _unguarded(text: pd.Series) -> pd.Series:
    guarded = text.str.startswith(GUARD).to_numpy(dtype=bool)
    return text.where(~guarded, text.str.slice(len(GUARD))) if guarded.any() else text


EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)
"""A timestamp is from EARLIEST up to, not including, LATEST (UTC): the one range the writer and the reader
allow (a time outside it is no drill's, and pandas cannot hold every such time)."""
MAX_AHEAD = timedelta(days=1)
"""The writer refuses a timestamp further than this ahead of its own clock."""
_MICROSECONDS = timedelta(microseconds=1)


@dataclass(frozen=True)
class TimeCell(Cell):
    """A time with its zone from EARLIEST to LATEST, written in UTC, ISO 8601 with microseconds, and at most
    MAX_AHEAD past the writer's clock; read as datetime64[ns, UTC]."""

    allowed = (f"an ISO 8601 time with its zone from {EARLIEST:%Y-%m-%d} to "
               f"{LATEST - timedelta(days=1):%Y-%m-%d} (UTC)")

    def write(self, column: str, value: object) -> str:
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                raise InputError(f"not an ISO 8601 time: {value!r}", field=column) from None
        if not isinstance(value, datetime) or value.tzinfo is None:
            raise InputError(f"must be a time with its time zone (UTC), got {value!r}", field=column)
        try:
            utc = value.astimezone(timezone.utc)
        except OverflowError:  # e.g. 0001-01-01 at +14:00 is before the first day Python holds
            utc = None
        if utc is None or not EARLIEST <= utc < LATEST:
            raise InputError(f"must be {self.allowed}, got {value.isoformat()!r}", field=column)
        ahead = utc - datetime.now(timezone.utc)
        if ahead > MAX_AHEAD:
            raise InputError(f"{value.isoformat()!r} is more than {counted(MAX_AHEAD.days, 'day')} ahead of this "
                             "computer's clock", field=column)
        return utc.isoformat(timespec="microseconds")

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        # text: (rows,) str -> (rows,) datetime64[ns, UTC] (the epoch where refused)
        import pyarrow as pa

        try:
            strings = pa.array(text, type=pa.string(), from_pandas=True)
            micros = strings.cast(pa.timestamp("us", tz="UTC")).cast(pa.int64()).to_numpy(zero_copy_only=False)
            parsed = np.ones(len(text), dtype=bool)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):  # some cell Arrow cannot read
            micros, parsed = _micros_one_by_one(text)
        bad = ~parsed | (micros < _micros(EARLIEST)) | (micros >= _micros(LATEST))
        nanos = (np.where(bad, 0, micros) * 1000).astype("datetime64[ns]")
        return pd.Series(pd.DatetimeIndex(nanos).tz_localize(timezone.utc), index=text.index), bad


def _micros(moment: datetime) -> int:
    return (moment - datetime(1970, 1, 1, tzinfo=timezone.utc)) // _MICROSECONDS


def _micros_one_by_one(text: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Microseconds since 1970 of each ISO 8601 time with its zone, (rows,) int64, and which were read, (rows,)
    bool: for a column some cell of which Arrow's parser refuses."""
    micros = np.zeros(len(text), dtype=np.int64)
    parsed = np.zeros(len(text), dtype=bool)
    for row, cell in enumerate(text):
        try:
            moment = datetime.fromisoformat(cell.replace("Z", "+00:00"))
            if moment.tzinfo is not None:
                micros[row], parsed[row] = _micros(moment), True
        except (ValueError, OverflowError):
            pass
    return micros, parsed


@dataclass(frozen=True)
class FlagCell(Cell):
    """True or False, written `true` or `false`."""

    @property
    def allowed(self) -> str:
        return _refusal(Flag(json=True))

    def write(self, column: str, value: object) -> str:
        if isinstance(value, np.bool_):
            value = bool(value)
        return "true" if check_value(column, value, Flag(json=True)) else "false"

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        is_true = (text == "true").to_numpy(dtype=bool)
        return is_true, ~is_true & (text != "false").to_numpy(dtype=bool)


@dataclass(frozen=True)
class ChoiceCell(Cell):
    """One of a few names (a command, an interface), written as it is."""

    choices: tuple[str, ...]

    @property
    def allowed(self) -> str:
        return _refusal(OneOf(self.choices))

    def write(self, column: str, value: object) -> str:
        return check_value(column, getattr(value, "value", value), OneOf(self.choices))

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        return text, ~text.isin(list(self.choices)).to_numpy(dtype=bool)


@dataclass(frozen=True)
class MillisecondsCell(Cell):
    """A number of ms of 0 or more, written with 3 decimals; None (no such time) is written empty."""

    @property
    def allowed(self) -> str:
        return _refusal(Number(at_least=0, unit="ms")) + ", or empty"

    def write(self, column: str, value: object) -> str:
        if isinstance(value, np.number):
            value = value.item()
        value = check_value(column, value, Maybe(Number(at_least=0, unit="ms")))
        return "" if value is None else f"{float(value):.3f}"

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        # text: (rows,) str -> (rows,) float64 ms, NaN for an empty cell
        given = (text != "").to_numpy(dtype=bool)
        numbers = _cell_numbers(text.where(given, "0"), np.float64)
        return np.where(given, numbers, np.nan), given & ~(np.isfinite(numbers) & (numbers >= 0))


@dataclass(frozen=True)
class JsonObjectCell(Cell):
    """A non-empty JSON object (the roll's dice or positions), written by `json.dumps`. `as_written`: a regular
    expression that the cells json.dumps writes for this column match (and only JSON objects do)."""

    as_written: str
    allowed = "a JSON object"

    def write(self, column: str, value: object) -> str:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise InputError(f"not JSON: {value[:40]!r}", field=column) from None
        if not isinstance(value, Mapping) or not value:
            raise InputError(f"must be a non-empty JSON object, got {value!r}", field=column)
        value = self.written(column, value)
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise InputError(f"cannot be written as JSON ({error})", field=column) from None

    def written(self, column: str, value: Mapping) -> Mapping:
        return value

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        """Cells of the form the writer writes are matched at once by `as_written`; any other is parsed."""
        as_written = text.str.fullmatch(self.as_written).to_numpy(dtype=bool)
        return text, _not_json_objects(text, as_written)

    def problem(self, column: str, cell: str) -> str:
        return f"{column} must be {self.allowed}, got {cell[:40]!r}"


# The forms json.dumps gives a roll's cells: a number, the dice cell and the positions cell. Matched by Arrow's RE2
# at once; a cell of another form (written by hand?) is parsed as JSON.
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_KEY = f'"{COLOR_NAME}"'
_LIST = r"\[[0-9]+(?:, [0-9]+)*\]"
DICE_AS_WRITTEN = rf"\{{{_KEY}: {_LIST}(?:, {_KEY}: {_LIST})*\}}"
"""A dice cell as json.dumps writes it. Each of its character classes holds all ten digits or none (`read_dice`
relies on it)."""
_POINT = rf"\[{_NUMBER}, {_NUMBER}\]"
POSITIONS_AS_WRITTEN = rf'\{{"command": {_POINT}(?:, {_KEY}: (?:\[{_POINT}(?:, {_POINT})*\]|{_NUMBER}))*\}}'
"""A positions cell as json.dumps writes one: a JSON object (what the reader checks at once)."""
POSITIONS_IN_ORDER = (rf'\{{"command": {_POINT}, (?:{_KEY}: \[{_POINT}(?:, {_POINT})*\], )+'
                      + ", ".join(f'"{key}": {_NUMBER}' for key in TABLE_FIELDS) + r"\}")
"""A positions cell as `schema.logged_positions` writes it: the command die, each color's dice, then the table's
fields in TableModel's order (its last number the tolerance), so that its numbers are read in one pass
(`roll.read_rolls`). Matching it costs the reader a third more than POSITIONS_AS_WRITTEN, so the reader checks
with that one and the rolls match this one on the few rows whose positions they read."""


def _not_json_objects(text: pd.Series, as_written: np.ndarray) -> np.ndarray:
    """Which cells are not a non-empty JSON object, (rows,) bool: those `as_written` (rows,) bool are; the others
    are parsed one by one."""
    bad = np.zeros(len(text), dtype=bool)
    for row in np.flatnonzero(~as_written):
        bad[row] = json_object(text.iloc[row]) is None
    return bad


@dataclass(frozen=True)
class AnswerCell(TextCell):
    """An answer (`expected`, or the player's `answer`): a color of the roll's dice, grey, or one of `others`."""

    others: tuple[str, ...] = ()

    def answers(self, colors: frozenset[str]) -> frozenset[str]:
        """The cells allowed in a row whose dice have `colors`."""
        return frozenset(colors) | {GREY, *self.others}

    @property
    def allowed(self) -> str:
        return "a color of the dice, " + " or ".join((GREY, *self.others))


@dataclass(frozen=True)
class AcceptedCell(Cell):
    """The answers counted right: a JSON list of one or two different answers, the expected one first, each a
    color of the dice or grey."""

    allowed = "a JSON list of the answers counted right, the expected one first"

    def write(self, column: str, value: object) -> str:
        if isinstance(value, str) or not isinstance(value, Sequence) or not 1 <= len(value) <= 2 or not all(
                isinstance(answer, str) for answer in value) or len(set(value)) != len(value):
            raise InputError(f"must be one or two different answers, got {value!r}", field=column)
        return json.dumps(list(value), ensure_ascii=False)

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        return text, np.zeros(len(text), dtype=bool)  # checked against the row's dice by `fits`

    @staticmethod
    def fits(accepted: object, expected: str, colors: frozenset[str]) -> bool:
        """Whether `accepted` (the cell's JSON, parsed) is allowed in a row whose dice have `colors`."""
        return (isinstance(accepted, list) and 1 <= len(accepted) <= 2 and accepted[0] == expected
                and all(isinstance(answer, str) for answer in accepted)
                and len(set(accepted)) == len(accepted) and set(accepted) <= colors | {GREY})


def json_object(text: str) -> dict | None:
    """The non-empty JSON object in a cell, or None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and value else None

