"""The --adaptive scheduler drills more where the player is slow or wrong, and still shows everything."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import ALL_COMMANDS, GREY, Command, Variant
from diavolo_stats.drill.scheduler import EXPLORATION, adaptive_roll, cell_weights, pick_cell


def history(rows: list[tuple[Command, bool, bool, float]]) -> pd.DataFrame:
    """(command, tie, correct, latency_ms) per answered trial, in time order."""
    return pd.DataFrame({
        "timestamp": pd.date_range("2024-01-01", periods=len(rows), freq="s", tz="UTC"),
        "command": [c.value for c, _, _, _ in rows], "is_tie": [t for _, t, _, _ in rows],
        "correct": [ok for _, _, ok, _ in rows], "latency_ms": [ms for _, _, _, ms in rows],
        "too_early": [False] * len(rows),
    })


def practised(hard: Command, slow: Command) -> pd.DataFrame:
    """Every cell answered 20 times at 900 ms, all right; `hard` half wrong; `slow` at 2500 ms."""
    rows = []
    for command in ALL_COMMANDS:
        for tie in (False, True):
            for index in range(20):
                correct = not (command is hard and index % 2)
                rows.append((command, tie, correct, 2500.0 if command is slow else 900.0))
    return history(rows)


def command_shares(table: pd.DataFrame) -> pd.Series:
    return table.groupby(table["command"].map(lambda c: c.value))["probability"].sum()


def test_probabilities_cover_every_command_and_tie_status_and_sum_to_one():
    table = cell_weights(practised(Command.MOST_ODD, Command.CLOSEST), ALL_COMMANDS)
    assert len(table) == 2 * len(ALL_COMMANDS)
    assert table["probability"].sum() == pytest.approx(1.0)
    assert (table["probability"] >= EXPLORATION / len(table) - 1e-12).all()


def test_with_no_history_every_cell_is_equally_likely():
    table = cell_weights(history([]), ALL_COMMANDS)
    assert np.allclose(table["probability"], 1 / len(table))


def test_a_command_answered_wrong_or_slowly_is_favoured_and_every_command_still_shows():
    hard, slow = Command.MOST_ODD, Command.CLOSEST
    past = practised(hard, slow)
    rng = np.random.default_rng(2024)
    picks = Counter(pick_cell(past, ALL_COMMANDS, rng)[0] for _ in range(1000))
    others = [c for c in ALL_COMMANDS if c not in (hard, slow)]
    assert picks[hard] > 2 * max(picks[c] for c in others)
    assert picks[slow] > 2 * max(picks[c] for c in others)
    assert all(picks[c] > 0 for c in ALL_COMMANDS)


def test_ties_are_favoured_where_the_player_misses_ties():
    rows = [(command, tie, not tie or index % 2 == 0, 900.0)
            for command in ALL_COMMANDS for tie in (False, True) for index in range(20)]
    table = cell_weights(history(rows), ALL_COMMANDS)
    tie_share = table.loc[table["tie"], "probability"].sum()
    assert tie_share > 0.6


def test_only_the_commands_being_practised_are_picked():
    subset = (Command.HIGHEST_DIE, Command.LOWEST_TOTAL)
    rng = np.random.default_rng(5)
    picks = {pick_cell(practised(Command.MOST_ODD, Command.CLOSEST), subset, rng)[0] for _ in range(200)}
    assert picks == set(subset)


def test_too_early_rows_do_not_count_as_reading_a_roll():
    past = practised(Command.MOST_ODD, Command.CLOSEST)
    early = past.iloc[:40].assign(too_early=True, correct=False, latency_ms=np.nan)
    assert cell_weights(pd.concat([past, early]), ALL_COMMANDS).equals(cell_weights(past, ALL_COMMANDS))


def test_same_seed_same_picks():
    past = practised(Command.MOST_ODD, Command.CLOSEST)
    rng, again = np.random.default_rng(9), np.random.default_rng(9)
    assert [pick_cell(past, ALL_COMMANDS, rng) for _ in range(50)] == \
        [pick_cell(past, ALL_COMMANDS, again) for _ in range(50)]


def test_an_adaptive_roll_is_of_the_picked_command_and_tie_status():
    variant = Variant()
    past = practised(Command.MOST_ODD, Command.CLOSEST)
    kinds = set()
    for seed in range(30):
        command, tie = pick_cell(past, variant.commands, np.random.default_rng(seed))
        rolled = adaptive_roll(variant, past, np.random.default_rng(seed))
        assert rolled.command is command
        assert (resolve(variant, command, rolled.dice, rolled.positions).answer == GREY) is tie
        kinds.add(tie)
    assert kinds == {False, True}
