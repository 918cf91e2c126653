"""The drill log's schema: its columns (`COLUMNS`) and ONE rule per column (`CELLS`) that both the writer and
the reader follow, so what one writes the other reads.

Each cell's format, the two schema versions and how a version-1 row loads
are the manual's drill log page (docs/reference/drill-log.md); how the cells
check each other is in docs/architecture.md ("The drill log's cells").
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from diavolo_stats import __version__
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import GREY, PRESETS, Command
from diavolo_stats.drill import MAX_SEED
from diavolo_stats.drill.log.cells import (  # noqa: F401 (EARLIEST, LATEST, MAX_AHEAD: the time rule, stated there)
    DICE_AS_WRITTEN,
    EARLIEST,
    LATEST,
    MAX_AHEAD,
    POSITIONS_AS_WRITTEN,
    AcceptedCell,
    AnswerCell,
    Cell,
    ChoiceCell,
    FlagCell,
    JsonObjectCell,
    MillisecondsCell,
    PlayerCell,
    TextCell,
    TimeCell,
    WholeCell,
)
from diavolo_stats.drill.log.dice_cells import DiceCell
from diavolo_stats.drill.log.rules import CommandCell, VariantCell, played_variant, row_problem, values_problem
from diavolo_stats.errors import InputError

SCHEMA_VERSION: int = 2

COLUMNS: tuple[str, ...] = (
    "schema_version", "session_id", "player", "trial", "timestamp", "variant", "dice_per_color",
    "command_first", "command", "dice", "positions", "expected", "answer", "correct", "latency_ms",
    "too_early", "timed_out", "foreperiod_ms", "seed", "app_version", "interface", "accepted",
)

COLUMNS_V1: tuple[str, ...] = COLUMNS[:-2]
"""The columns of schema version 1: all but `interface` and `accepted`."""

TERMINAL_INTERFACE = "terminal"
BROWSER_INTERFACE = "browser"
GAME_INTERFACE = "game"
INTERFACES: tuple[str, ...] = (TERMINAL_INTERFACE, BROWSER_INTERFACE, GAME_INTERFACE)
"""The `interface` values: the terminal drill, the web drill, and a game played in the browser (`diavolo serve`'s
Play page and rooms)."""

NO_ANSWER = "none"
"""The `answer` of a trial with no answer: timed out, or a key pressed too early."""

HEADER_LINE = ",".join(COLUMNS)
HEADER_LINE_V1 = ",".join(COLUMNS_V1)


class TruncatedLogWarning(UserWarning):
    """A drill log ends in an incomplete row (the writer stopped mid-row): skipped by the reader, moved to
    `<log>.partial` by the writer."""


def logged_positions(positions: Mapping, table: TableModel) -> dict:
    """The `positions` cell of a roll: its die centers (mm) and every field of the table it was thrown on,
    so that a row alone gives its expected answer."""
    return {**positions, **dataclasses.asdict(table)}



DICE = DiceCell(DICE_AS_WRITTEN)
EXPECTED = AnswerCell(others=())
ANSWER = AnswerCell(others=(NO_ANSWER,))
ACCEPTED = AcceptedCell()

CELLS: dict[str, Cell] = {
    "schema_version": WholeCell(1, SCHEMA_VERSION),
    "session_id": TextCell(),
    "player": PlayerCell(),
    "trial": WholeCell(1),
    "timestamp": TimeCell(),
    "variant": VariantCell(),
    "dice_per_color": WholeCell(1),
    "command_first": FlagCell(),
    "command": CommandCell(),
    "dice": DICE,
    "positions": JsonObjectCell(POSITIONS_AS_WRITTEN),
    "expected": EXPECTED,
    "answer": ANSWER,
    "correct": FlagCell(),
    "latency_ms": MillisecondsCell(),
    "too_early": FlagCell(),
    "timed_out": FlagCell(),
    "foreperiod_ms": MillisecondsCell(),
    "seed": WholeCell(0, MAX_SEED, optional=True),
    "app_version": TextCell(),
    "interface": ChoiceCell(INTERFACES),
    "accepted": ACCEPTED,
}
"""Each column's rule, in COLUMNS order: what the writer writes and the reader reads."""



def format_row(row: Mapping) -> list[str]:
    """The cells of one row, in COLUMNS order, as written; InputError naming the column if a value is not allowed."""
    values = {"schema_version": SCHEMA_VERSION, "app_version": __version__, **row}
    unknown = sorted(set(values) - set(COLUMNS))
    missing = [c for c in COLUMNS if c not in values]
    if unknown or missing:
        raise InputError(f"unknown columns {unknown}, missing columns {missing}", field="row")
    if values["schema_version"] != SCHEMA_VERSION:
        raise InputError(f"must be {SCHEMA_VERSION}, got {values['schema_version']!r}", field="schema_version")
    cells = {column: rule.write(column, values[column]) for column, rule in CELLS.items()}
    colors = frozenset(json.loads(cells["dice"]))
    for column, rule in (("expected", EXPECTED), ("answer", ANSWER)):
        if cells[column] not in rule.answers(colors):
            raise InputError(f"must be {rule.allowed}, got {cells[column]!r}", field=column)
    accepted = json.loads(cells["accepted"])
    if not ACCEPTED.fits(accepted, cells["expected"], colors):
        raise InputError(f"must list the expected answer first, then other colors of the dice or grey, "
                         f"got {accepted}", field="accepted")
    game = None if cells["variant"] in PRESETS else played_variant(cells["variant"])
    problem = row_problem(game, cells["command"], json.loads(cells["dice"]), json.loads(cells["positions"]))
    if problem:
        raise InputError(problem[1], field=problem[0])
    problem = values_problem(cells["variant"], json.loads(cells["dice"]))
    if problem:
        raise InputError(problem, field="dice")
    _check_outcome(values, cells["answer"], accepted)
    return [cells[c] for c in COLUMNS]


def _check_outcome(values: Mapping, answer: str, accepted: list[str]) -> None:
    """InputError unless correct agrees with the answer and the outcome holds (`check_outcome`)."""
    if values["correct"] != (answer in accepted):
        raise InputError(f"must be {answer in accepted} for the answer {answer!r} when {accepted} are accepted",
                         field="correct")
    check_outcome(answer, values["latency_ms"], values["too_early"], values["timed_out"])


def check_outcome(answer: str, latency_ms: float | None, too_early: bool, timed_out: bool | None = None) -> bool:
    """Whether a trial timed out, from its answer (`none` for no answer) and whether a key came too early:
    InputError naming the field unless they agree with `latency_ms` (an answer has one, no answer none) and
    with `timed_out` when it is given (None: work it out)."""
    if too_early and timed_out:
        raise InputError("a trial answered too early did not time out; at most one of too_early and timed_out "
                         "is true", field="timed_out")
    if answer != NO_ANSWER and (too_early or timed_out):
        raise InputError(f"must be {NO_ANSWER} when the trial was answered too early or timed out", field="answer")
    if answer == NO_ANSWER and timed_out is False and not too_early:
        raise InputError(f"{NO_ANSWER} only when too_early or timed_out is true; else a color or {GREY}",
                         field="answer")
    if answer == NO_ANSWER and latency_ms is not None:
        raise InputError("must be empty when there was no answer: no answer has a latency", field="latency_ms")
    if answer != NO_ANSWER and latency_ms is None:
        raise InputError("must be the answer's latency, a number of ms, when there was an answer", field="latency_ms")
    return answer == NO_ANSWER and not too_early


def csv_line(cells: Sequence[str]) -> str:
    """One row of cells as a CSV line with its `\\n`."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(cells)
    return buffer.getvalue()


def v1_extra_cells(cells: Sequence[str]) -> list[str]:
    """The `interface` and `accepted` cells of a version-1 row: the terminal, and its expected answer alone."""
    return [INTERFACES[0], json.dumps([cells[COLUMNS.index("expected")]], ensure_ascii=False)]


def header_version(line: str) -> int | None:
    """The schema version whose header `line` is, or None."""
    return {HEADER_LINE: SCHEMA_VERSION, HEADER_LINE_V1: 1}.get(line.rstrip("\r"))


def is_header_start(content: bytes) -> bool:
    """Whether `content` (a whole file) is empty or the header cut before its line end: a new, empty log."""
    return b"\n" not in content and HEADER_LINE.encode("ascii").startswith(content.removesuffix(b"\r"))


@contextmanager
def os_errors(failed: str) -> Iterator[None]:
    """Raise an OSError met inside as InputError about the log: `failed` (naming the file), then the system's reason."""
    try:
        yield
    except OSError as error:
        raise InputError(f"{failed} ({error.strerror or error})", field="log") from None


@dataclass(frozen=True)
class TrialRow:
    """One trial as the log stores it: every column but `schema_version` (always this schema).

    Checked at construction: a value the schema does not allow raises
    InputError naming its field, so a `TrialRow` can always be written.
    Build one with `drill.trial.judged_trial`, which works out `expected`,
    `accepted` and `correct` from the roll; the column list in the module doc
    says what each field holds.
    """

    session_id: str
    player: str
    trial: int
    timestamp: datetime
    variant: str
    dice_per_color: int
    command_first: bool
    command: Command
    dice: Mapping[str, Sequence[int]]
    positions: Mapping
    expected: str
    answer: str
    correct: bool
    latency_ms: float | None
    too_early: bool
    timed_out: bool
    foreperiod_ms: float | None
    seed: int | None
    interface: str
    accepted: tuple[str, ...]
    app_version: str = __version__

    def __post_init__(self) -> None:
        if isinstance(self.accepted, (list, tuple)):
            object.__setattr__(self, "accepted", tuple(self.accepted))
        # Every check of the schema; the cells are kept, to be written as they are (not formatted again).
        object.__setattr__(self, "_cells", tuple(format_row({f.name: getattr(self, f.name)
                                                              for f in dataclasses.fields(self)})))
        cells = dict(zip(COLUMNS, self._cells))
        if not isinstance(self.command, Command):  # a built-in's name (format_row checked it is one)
            object.__setattr__(self, "command", Command(cells["command"]))
        object.__setattr__(self, "timestamp", datetime.fromisoformat(cells["timestamp"]))

    def cells(self) -> list[str]:
        """The row's cells in COLUMNS order, as written: formatted once, when the row was made."""
        return list(self._cells)
