"""Logs whose charts are awkward to lay out, and the chart calls a report of each makes.

`case_log(case, folder)` writes the case's log in `folder` (a new one: rows are added to a log there);
`chart_calls(case, folder)` returns the (chart, args, kwargs) of every chart `analytics.report` draws of it (and the
narrow learning curve of `/me` for "narrow"), without drawing them.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from diavolo_stats.analytics import report
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.game.players import PlayerModel
from helpers.cli import REPO
from helpers.drill_logs import DAY_ONE, answered, modelled_rows, write_log

LONG_NAME = "Maximiliana Bartholomew-Featherstonehaugh of Llanfairpwll"[:55]
ALIKE_NAMES = ("Tournament player from the north", "Tournament player from the south")
"""Two names that share more than a chart's cut (`charts.NAME_CHARACTERS`)."""
CASES = ("sample", "long name", "alike long names", "14 players", "sixes", "one command", "every command left out",
         "narrow", "5-digit latencies")


def case_log(case: str, folder: Path) -> Path:
    average, expert = PlayerModel.preset("average"), PlayerModel.preset("expert")
    if case in ("sample", "narrow"):
        return REPO / "data" / "sample_drills.csv"
    if case == "long name":
        rows = modelled_rows(LONG_NAME, average, 60, 1) + modelled_rows(LONG_NAME, average, 60, 2)
        rows += modelled_rows("bo", expert, 60, 3)
    elif case == "alike long names":
        rows = [row for seed, name in enumerate(ALIKE_NAMES, 1) for session in (seed, seed + 2)
                for row in modelled_rows(name, average if seed == 1 else expert, 60, session)]
    elif case == "14 players":
        rows = [row for number in range(14) for seed in (2 * number + 1, 2 * number + 2)
                for row in modelled_rows(f"player {number + 1:02}", average if number % 2 else expert, 30, seed)]
    elif case == "sixes":
        sixes = read_variant(REPO / "examples" / "variants" / "sixes.toml")
        rows = modelled_rows("ann", average, 60, 3, variant=sixes) + modelled_rows("bo", expert, 60, 4)
    elif case == "one command":
        rows = [answered("ann", session, "highest-total", "red", 900.0 + 25 * i,
                         start=DAY_ONE + timedelta(days=day)) for day, session in enumerate(("s1", "s2"))
                for i in range(8)]
    elif case == "every command left out":
        commands = [command.value for command in Variant().commands]
        rows = [answered("ann", "s1", command, "red", 900.0) for command in commands if command != "closest"]
    elif case == "5-digit latencies":
        rows = [answered(player, f"{player}{day}", command, "red", 12_000.0 + 4_000 * i + 9_000 * day,
                         start=DAY_ONE + timedelta(days=day))
                for player in ("ann", "bo") for day in range(3)
                for command in (Command.HIGHEST_TOTAL.value, Command.LOWEST_TOTAL.value) for i in range(6)]
    else:
        raise ValueError(case)
    return write_log(folder / "log.csv", rows, numbered=True)


def chart_calls(case: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple, dict]]:
    """Every chart call of the report of `case`'s log (one process, nothing drawn); for "narrow", the learning
    curve as `/me` draws it on a phone."""
    calls = []
    monkeypatch.setattr(report, "report_chart_png",
                        lambda chart, *args, **kwargs: calls.append((chart, args, kwargs)) or b"")
    monkeypatch.chdir(folder)  # where a fresh simulation is saved
    report.build_report([case_log(case, folder)], simulation_path=REPO / "data" / "simulation_standard.csv")
    if case == "narrow":
        return [(chart, args, {"narrow": True}) for chart, args, _ in calls if chart == "learning_curve_chart"]
    return calls
