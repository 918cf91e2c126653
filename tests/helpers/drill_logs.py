"""The one way the tests build drill logs: rows through the drill's own writer, on the rulebook's worked example
unless a test says otherwise."""

from __future__ import annotations

import dataclasses
import fcntl
import json
import threading
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from diavolo_stats.core.rules import GREY_CODE, resolve, roll
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.drill.log import COLUMNS_V1, DrillLog, TrialRow, csv_line
from diavolo_stats.drill.roll_features import played_features
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.game.reading import Lineup

# The rulebook's worked example: red wins highest-total (13 > 12 > 11); highest-die is a tie
# (a six in black and in white), so its answer is grey.
DICE = {"black": [2, 3, 6], "red": [3, 5, 5], "white": [1, 5, 6]}
POSITIONS = {"command": [150.0, 150.0], "black": [[20.0, 20.0], [40.0, 20.0], [60.0, 20.0]],
             "red": [[20.0, 60.0], [40.0, 60.0], [60.0, 60.0]], "white": [[20.0, 90.0], [40.0, 90.0], [60.0, 90.0]],
             "tolerance": 0.1}
DAY_ONE = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def trial_row(trial: int = 1, **changes) -> TrialRow:
    """A valid row of the worked-example roll answered right in 812.25 ms; `changes` replace its fields
    (`accepted` follows `expected` unless given)."""
    row = {
        "session_id": "session-a", "player": "Ana", "trial": trial,
        "timestamp": datetime(2024, 5, 1, 12, 0, trial % 60, 123456, tzinfo=timezone.utc),
        "variant": "standard", "dice_per_color": 3, "command_first": False, "command": "highest-total",
        "dice": DICE, "positions": POSITIONS, "expected": "red", "answer": "red", "correct": True,
        "latency_ms": 812.25, "too_early": False, "timed_out": False, "foreperiod_ms": 900.0, "seed": 7,
        "interface": "terminal",
    }
    row.update(changes)
    row.setdefault("accepted", (row["expected"],))
    return TrialRow(**row)


def answered(player: str, session: str, command: str, answer: str, latency_ms: float | None,
             start: datetime = DAY_ONE, too_early: bool = False, **changes) -> TrialRow:
    """`player` answering `answer` to `command` on the worked-example roll (no latency: a timeout); `expected`
    and `correct` follow from the rules engine. Trial 1 at `start`: `write_log(..., numbered=True)` numbers them."""
    expected = resolve(Variant(), Command(command), DICE).answer
    timed_out = latency_ms is None and not too_early
    return trial_row(1, player=player, session_id=session, command=command, expected=expected, answer=answer,
                     latency_ms=latency_ms, timed_out=timed_out, too_early=too_early, timestamp=start,
                     correct=answer == expected and not too_early and not timed_out, foreperiod_ms=800.0,
                     seed=1, **changes)


def modelled_rows(player: str, model, trials: int, seed: int, variant: Variant | None = None,
                  command_first: bool = False) -> list[TrialRow]:
    """`trials` rows of a player model (`game.players.PlayerModel`) answering real rolls of `variant` (default:
    the box's game), one session a seed, three seconds apart."""
    variant = variant or Variant()
    rng = np.random.default_rng(seed)
    start = datetime(2024, 5, 1, tzinfo=timezone.utc)
    session = str(uuid.UUID(int=seed))
    codes = {answer: code for code, answer in enumerate(variant.colors)} | {GREY: GREY_CODE}
    rows = []
    for trial in range(1, trials + 1):
        rolled = roll(variant, rng)
        accepted = resolve(variant, rolled.command, rolled.dice, rolled.positions).accepted
        grabbed, latency = Lineup([model]).respond(np.array([[codes[accepted[0]]], [codes[accepted[-1]]]], np.int8),
                                                   played_features(variant, [rolled], command_first),
                                                   len(variant.colors), rng)
        answer = GREY if grabbed[0, 0] == GREY_CODE else variant.colors[grabbed[0, 0]]
        rows.append(judged_trial(variant, rolled.command, rolled.dice, rolled.positions, answer,
                                 float(latency[0, 0]), interface="terminal", player=player, session_id=session,
                                 trial=trial, timestamp=start + timedelta(seconds=3 * trial), foreperiod_ms=800.0,
                                 seed=seed, command_first=command_first))
    return rows


def write_log(path: Path, rows: Iterable[TrialRow], numbered: bool = False) -> Path:
    """Append `rows` to the drill log at `path` through the drill's own writer; its path. With `numbered`, each
    session's rows are numbered 1, 2, ... in the order given, a second apart after their timestamp."""
    rows = list(rows)
    if numbered:
        counts: dict[str, int] = {}
        for index, row in enumerate(rows):
            counts[row.session_id] = counts.get(row.session_id, 0) + 1
            rows[index] = dataclasses.replace(row, trial=counts[row.session_id],
                                              timestamp=row.timestamp + timedelta(seconds=counts[row.session_id]))
    DrillLog(path).append_rows(rows)
    return path


def appended(path: Path, *rows: TrialRow) -> DrillLog:
    """The drill log at `path` opened for writing, `rows` appended to it one at a time, as a drill appends them."""
    log = DrillLog(path)
    for row in rows:
        log.append(row)
    return log


def write_v1_log(path: Path, rows: list[TrialRow], tail: str = "", crlf_row: int | None = None) -> bytes:
    """A log as the version-1 writer wrote it (schema_version 1, no interface or accepted), then `tail`; its bytes.
    `crlf_row` ends that line (0: the header) with CRLF."""
    lines = [",".join(COLUMNS_V1) + "\n"] + [v1_line(row) for row in rows]
    if crlf_row is not None:
        lines[crlf_row] = lines[crlf_row][:-1] + "\r\n"
    data = ("".join(lines) + tail).encode("utf-8")
    path.write_bytes(data)
    return data


def v1_line(row: TrialRow) -> str:
    """The row as the version-1 writer wrote it."""
    cells = row.cells()[:len(COLUMNS_V1)]
    return csv_line(["1", *cells[1:]])


def expected_from_row(row) -> str:
    """The answer the rules engine gives from the logged dice and positions alone."""
    dice = json.loads(row["dice"])
    positions = json.loads(row["positions"])
    variant = Variant(colors=tuple(dice), dice_per_color=int(row["dice_per_color"]),
                      table=TableModel(scatter_mm=positions["scatter_mm"], die_mm=positions["die_mm"],
                                       tolerance=positions["tolerance"]))
    return resolve(variant, Command(row["command"]), dice, positions).answer


def lock_waits(monkeypatch) -> threading.Event:
    """An event set once a drill-log writer finds its log locked by another writer (it then waits its turn)."""
    waiting, flock = threading.Event(), fcntl.flock

    def watched(descriptor, operation):
        try:
            return flock(descriptor, operation)
        except BlockingIOError:
            waiting.set()
            raise

    monkeypatch.setattr(fcntl, "flock", watched)
    return waiting
