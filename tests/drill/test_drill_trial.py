"""`judged_trial`: the one way a trial becomes a log row, its verdict worked out from the roll itself."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone

import numpy as np
import pytest

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import DrillLog, load_logs, logged_positions
from diavolo_stats.drill.log.rules import played_variant
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.errors import InputError

STANDARD = Variant()
DICE = {"black": [2, 3, 6], "red": [3, 5, 5], "white": [1, 5, 6]}
# The command die at (100, 100): red's nearest die at 100 mm, black's at 108 mm, white's at 120 mm.
AMBIGUOUS = {"command": [100.0, 100.0], "black": [[208.0, 100.0], [280.0, 280.0], [280.0, 240.0]],
             "red": [[100.0, 200.0], [240.0, 280.0], [240.0, 240.0]],
             "white": [[100.0, 220.0], [200.0, 280.0], [200.0, 240.0]]}
WHEN = datetime(2026, 1, 5, 9, 30, tzinfo=timezone.utc)


def judge(answer="red", latency_ms=640.0, command="closest", dice=DICE, positions=AMBIGUOUS, variant=STANDARD,
          **changes):
    given = {"interface": "browser", "player": "Ana", "session_id": "s-1", "trial": 1, "timestamp": WHEN,
             **changes}
    return judged_trial(variant, command, dice, positions, answer, latency_ms, **given)


@pytest.mark.parametrize("answer, correct", [("red", True), ("grey", True), ("black", False), ("white", False)])
def test_an_ambiguous_closest_is_right_for_the_nearest_color_and_for_grey(answer, correct):
    row = judge(answer)
    assert (row.expected, row.accepted, row.answer, row.correct) == ("grey", ("grey", "red"), answer, correct)
    assert not row.timed_out and not row.too_early and row.latency_ms == 640.0


def test_the_verdict_comes_from_the_roll_and_the_row_carries_the_whole_table():
    rng = np.random.default_rng(8)
    for _ in range(50):
        rolled = roll(STANDARD, rng)
        resolution = resolve(STANDARD, rolled.command, rolled.dice, rolled.positions)
        row = judge("white", 500.0, rolled.command.value, rolled.dice, rolled.positions)
        assert (row.expected, row.accepted) == (resolution.answer, resolution.accepted)
        assert row.correct == ("white" in resolution.accepted)
        assert row.positions == logged_positions(rolled.positions, STANDARD.table)
        assert row.variant == "standard" and row.interface == "browser" and row.command is rolled.command


def test_no_answer_is_a_timeout_unless_the_key_came_too_early(tmp_path):
    late = judge(None, None)
    early = judge("none", None, too_early=True)
    assert (late.answer, late.timed_out, late.too_early, late.correct) == ("none", True, False, False)
    assert (early.answer, early.timed_out, early.too_early, early.correct) == ("none", False, True, False)
    log = DrillLog(tmp_path / "drills.csv")
    for row in (judge(), late, early):
        log.append(row)
    frame = load_logs([log.path])
    assert frame["interface"].tolist() == ["browser"] * 3
    assert frame["timed_out"].tolist() == [False, True, False]


def test_positions_may_carry_the_variants_own_table():
    with_table = logged_positions(AMBIGUOUS, STANDARD.table)
    assert judge(positions=with_table) == judge()


@pytest.mark.parametrize("changes, field", [
    ({"variant": "standard"}, "variant"),
    ({"command": "fastest"}, "command"),
    ({"command": "most-odd", "variant": Variant(commands=(Command.CLOSEST,))}, "command"),
    ({"dice": {"black": [2, 3, 6], "red": [3, 5, 9], "white": [1, 5, 6]}}, "dice"),
    ({"dice": [2, 3, 6]}, "dice"),
    ({"dice": {"red": [3, 5, 5], "black": [2, 3, 6], "white": [1, 5, 6]}}, "dice"),  # not in the variant's order
    ({"dice": {"black": [2, 3, True], "red": [3, 5, 5], "white": [1, 5, 6]}}, "dice"),
    ({"positions": {**AMBIGUOUS, "red": [[100.0, 200.0], [240.0, 280.0], [245.0, 275.0]]}}, "positions"),  # overlap
    ({"positions": {**AMBIGUOUS, "white": [[4.0, 172.0], [200.0, 280.0], [200.0, 240.0]]}}, "positions"),  # off
    ({"positions": {**AMBIGUOUS, "tolerance": 0.3}}, "positions"),
    ({"positions": {**AMBIGUOUS, "command": [100.0, 900.0]}}, "positions"),
    ({"positions": {**AMBIGUOUS, "blue": [[1.0, 1.0]]}}, "positions"),
    ({"positions": {"command": [1.0, 1.0]}}, "positions"),
    ({"answer": "blue"}, "answer"),
    ({"answer": 3}, "answer"),
    ({"latency_ms": None}, "latency_ms"),
    ({"latency_ms": -5.0}, "latency_ms"),
    ({"latency_ms": float("inf")}, "latency_ms"),
    ({"answer": None}, "latency_ms"),
    ({"too_early": "yes"}, "too_early"),
    ({"too_early": True}, "answer"),
    ({"timed_out": True}, "answer"),
    ({"answer": None, "latency_ms": None, "timed_out": False}, "answer"),
    ({"answer": None, "latency_ms": None, "too_early": True, "timed_out": True}, "timed_out"),
    ({"interface": "phone"}, "interface"),
    ({"player": ""}, "player"),
    ({"player": "tab\there"}, "player"),
    ({"session_id": ""}, "session_id"),
    ({"trial": 0}, "trial"),
    ({"trial": True}, "trial"),
    ({"timestamp": datetime(2026, 1, 5)}, "timestamp"),
    ({"timestamp": "yesterday"}, "timestamp"),
    ({"foreperiod_ms": float("nan")}, "foreperiod_ms"),
    ({"seed": -1}, "seed"),
    ({"command_first": 1}, "command_first"),
])
def test_every_field_is_checked_and_an_error_names_it(changes, field):
    with pytest.raises(InputError) as refused:
        judge(**changes)
    assert str(refused.value).startswith(f"{field}: "), str(refused.value)


def test_another_table_judges_the_same_positions_by_its_own_tolerance():
    strict = dataclasses.replace(STANDARD, table=TableModel(tolerance=0.05))
    row = judge("red", variant=strict)
    assert (row.expected, row.accepted, row.correct) == ("red", ("red",), True)
    assert played_variant(row.variant) == strict


@pytest.mark.parametrize("answer, latency_ms, too_early, timed_out", [
    ("red", 640.0, True, False), ("red", 640.0, False, True), ("none", None, True, True),
    ("none", None, False, False), ("none", 300.0, True, False), ("red", None, False, False)])
def test_the_writer_refuses_the_outcomes_the_gate_refuses_in_the_same_words(answer, latency_ms, too_early, timed_out):
    # One rule (drill.log.check_outcome) for every way a row is made: judged_trial, or a TrialRow built by hand.
    with pytest.raises(InputError) as gate:
        judge(answer, latency_ms, too_early=too_early, timed_out=timed_out)
    good = judge()
    with pytest.raises(InputError) as writer:
        dataclasses.replace(good, answer=answer, correct=answer in good.accepted, latency_ms=latency_ms,
                            too_early=too_early, timed_out=timed_out)
    assert str(writer.value) == str(gate.value)
