"""The --adaptive scheduler drills more of the roll types where the player is slow or wrong, and still shows
everything."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from diavolo_stats.analytics.synthetic import write_reading_log
from diavolo_stats.core.rules import resolve, roll_many
from diavolo_stats.core.variant import ALL_COMMANDS, GREY, Command, Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill import scheduler
from diavolo_stats.drill.log import DrillLog, load_logs, read_rolls
from diavolo_stats.drill.roll_features import logged_features, played_features
from diavolo_stats.drill.scheduler import (
    EXPLORATION,
    HISTORY_COLUMNS,
    RECENT_TRIALS,
    adaptive_roll,
    cell_weights,
    pick_cell,
    recent_history,
    recent_trials,
    roll_kinds,
    roll_of_kind,
    trial_history,
    variant_cells,
)
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, ReadingModel
from diavolo_stats.stats import proportion_estimate
from diavolo_stats.web.trials import TrialStore

CELLS = variant_cells(Variant())


def history(rows: list[tuple[Command, str, bool, float]]) -> pd.DataFrame:
    """(command, kind, correct, latency_ms) per answered trial, in time order."""
    return pd.DataFrame({
        "player": ["Ann"] * len(rows),
        "timestamp": pd.date_range("2024-01-01", periods=len(rows), freq="s", tz="UTC"),
        "command": [c.value for c, _, _, _ in rows], "kind": [k for _, k, _, _ in rows],
        "correct": [ok for _, _, ok, _ in rows], "latency_ms": [ms for _, _, _, ms in rows],
    })


def practised(hard: Command, slow: Command) -> pd.DataFrame:
    """Every cell answered 20 times at 900 ms, all right; `hard` half wrong; `slow` at 2500 ms."""
    rows = []
    for command, kind in CELLS:
        for index in range(20):
            correct = not (command is hard and index % 2)
            rows.append((command, kind, correct, 2500.0 if command is slow else 900.0))
    return history(rows)


def kinds_of(variant: Variant, rolls) -> list[tuple[Command, str]]:
    """Each roll's (command, kind) as `roll_features` tells it."""
    return list(zip([roll.command for roll in rolls], roll_kinds(played_features(variant, rolls))))


TOLD = ("clear", "near tie", "grey")
"""The kinds of a command whose near ties are told."""


def test_the_standard_game_deals_every_kind_of_every_command():
    assert CELLS == tuple((command, kind) for command in ALL_COMMANDS for kind in TOLD)
    assert variant_cells(Variant.preset("kids")) == CELLS


def test_probabilities_cover_every_cell_sum_to_one_and_keep_the_exploration_share():
    table = cell_weights(practised(Command.MOST_ODD, Command.CLOSEST), CELLS)
    assert len(table) == len(CELLS) == 3 * len(ALL_COMMANDS)
    assert table["probability"].sum() == pytest.approx(1.0)
    assert (table["probability"] >= EXPLORATION / len(table) - 1e-12).all()


def test_with_no_history_every_cell_is_equally_likely():
    table = cell_weights(history([]), CELLS)
    assert np.allclose(table["probability"], 1 / len(table))


def test_a_command_answered_wrong_or_slowly_is_favoured_and_every_command_still_shows():
    hard, slow = Command.MOST_ODD, Command.CLOSEST
    past = practised(hard, slow)
    rng = np.random.default_rng(2024)
    picks = Counter(pick_cell(past, CELLS, rng)[0] for _ in range(1000))
    others = [c for c in ALL_COMMANDS if c not in (hard, slow)]
    assert picks[hard] > 2 * max(picks[c] for c in others)
    assert picks[slow] > 2 * max(picks[c] for c in others)
    assert all(picks[c] > 0 for c in ALL_COMMANDS)


def test_grey_rolls_are_favoured_where_the_player_misses_them():
    rows = [(command, kind, kind != "grey" or index % 2 == 0, 900.0)
            for command, kind in CELLS for index in range(20)]
    table = cell_weights(history(rows), CELLS)
    grey = table["kind"] == "grey"
    assert table.loc[grey, "probability"].min() > table.loc[~grey, "probability"].max()
    # Half wrong costs 1.9 times the time per right answer of all right: 3.6 times the weight, 58 % in all.
    assert table.loc[grey, "probability"].sum() > 1.5 * grey.mean()


def test_one_slow_answer_in_a_cell_drilled_once_weighs_less_than_many():
    cell = (Command.HIGHEST_DIE, "near tie")
    rows = [(command, kind, True, 900.0) for command, kind in CELLS if (command, kind) != cell for _ in range(20)]
    once = cell_weights(history(rows + [(*cell, True, 9000.0)]), CELLS).iloc[CELLS.index(cell)]
    often = cell_weights(history(rows + [(*cell, True, 9000.0)] * 20), CELLS).iloc[CELLS.index(cell)]
    halfway = (900.0 + 9000.0) / 2
    # One answer at 9 s is pulled toward the player's 900 ms, past halfway; twenty are nearly their own median.
    assert 900.0 < once["latency_ms"] < halfway < often["latency_ms"] < 9000.0
    assert once["probability"] < often["probability"]


def test_only_the_commands_being_practised_are_picked():
    variant = Variant(commands=(Command.HIGHEST_DIE, Command.LOWEST_TOTAL))
    rng = np.random.default_rng(5)
    picks = {pick_cell(practised(Command.MOST_ODD, Command.CLOSEST), variant_cells(variant), rng)[0]
             for _ in range(200)}
    assert picks == set(variant.commands)


def test_a_kind_the_variant_cannot_deal_is_no_cell_and_asked_for_says_so():
    # Two-sided dice: the best die beats the next by one at most, so no highest-die roll is clear.
    variant = Variant(sides=2)
    assert (Command.HIGHEST_DIE, "clear") not in variant_cells(variant)
    assert (Command.HIGHEST_DIE, "near tie") in variant_cells(variant)
    rolled, of_kind = roll_of_kind(variant, Command.HIGHEST_DIE, "clear", np.random.default_rng(3))
    assert not of_kind and rolled.command is Command.HIGHEST_DIE


@pytest.mark.parametrize("name", ["standard", "kids"])
def test_a_roll_of_a_type_is_of_that_type_for_every_type(name):
    variant = Variant.preset(name)
    rng = np.random.default_rng(17)
    for command, kind in variant_cells(variant):
        for _ in range(5):
            rolled, of_kind = roll_of_kind(variant, command, kind, rng)
            assert of_kind
            assert kinds_of(variant, [rolled]) == [(command, kind)]
            assert (resolve(variant, command, rolled.dice, rolled.positions).answer == GREY) is (kind == "grey")


def test_an_adaptive_roll_is_of_the_cell_it_chose():
    variant = Variant()
    past = practised(Command.MOST_ODD, Command.CLOSEST)
    chosen = set()
    for seed in range(40):
        scheduled = adaptive_roll(variant, past, np.random.default_rng(seed))
        assert scheduled.of_kind
        assert kinds_of(variant, [scheduled.roll]) == [(scheduled.command, scheduled.kind)]
        assert (scheduled.command, scheduled.kind) == pick_cell(past, CELLS, np.random.default_rng(seed))
        chosen.add(scheduled.kind)
    assert chosen == set(TOLD)


def test_same_seed_same_rolls():
    past = practised(Command.MOST_ODD, Command.CLOSEST)
    rng, again = np.random.default_rng(9), np.random.default_rng(9)
    first = [adaptive_roll(Variant(), past, rng) for _ in range(30)]
    assert first == [adaptive_roll(Variant(), past, again) for _ in range(30)]
    assert len({(s.command, s.kind) for s in first}) > 1


SLOW_ON = Command.HIGHEST_TOTAL
"""The command whose near ties the synthetic player reads slowly."""


@pytest.fixture(scope="module")
def slow_on_near_ties(tmp_path_factory):
    """A synthetic player, average in everything but near ties on SLOW_ON: 2.5 times the reading time."""
    average = ReadingModel.from_player(PlayerModel.preset("average"))
    time = list(average.time)
    time[COEFFICIENTS.index(f"near_tie:{SLOW_ON}")] += math.log(2.5)
    path = tmp_path_factory.mktemp("adaptive") / "drills.csv"
    write_reading_log(path, [replace(average, name="ann", time=tuple(time))], sessions=4, trials=300, seed=3,
                      practice=False)
    return load_logs([path], columns=HISTORY_COLUMNS)


def test_near_ties_the_player_reads_slowly_are_drilled_more_than_uniform_rolls_deal_them(slow_on_near_ties):
    variant = Variant()
    past = recent_history(slow_on_near_ties)
    draws = 400
    rng = np.random.default_rng(21)
    adaptive = kinds_of(variant, [adaptive_roll(variant, past, rng).roll for _ in range(draws)])
    uniform = kinds_of(variant, roll_many(variant, draws, np.random.default_rng(21)))
    asked = (SLOW_ON, "near tie")
    more, plain = proportion_estimate(adaptive.count(asked), draws), proportion_estimate(uniform.count(asked), draws)
    # The two 95 % intervals do not overlap: the adaptive share is the larger beyond the draws' chance.
    assert more.low > plain.high, (more, plain)
    # And it is the player's history that does it: with none, the cell gets its even share.
    rng = np.random.default_rng(21)
    fresh = kinds_of(variant, [adaptive_roll(variant, past.iloc[:0], rng).roll for _ in range(draws)])
    assert more.low > proportion_estimate(fresh.count(asked), draws).high
    # Every other type still shows at least at the exploration share, within its own interval.
    for cell in CELLS:
        assert proportion_estimate(adaptive.count(cell), draws).high >= EXPLORATION / len(CELLS), cell


def every_trial(drills: pd.DataFrame) -> pd.DataFrame:
    """Every answered trial of a log frame with its kind, each read from its dice and positions."""
    answered = drills.loc[~drills["too_early"]]
    return pd.DataFrame({"player": answered["player"].astype(str).to_numpy(),
                         "timestamp": answered["timestamp"].to_numpy(),
                         "command": answered["command"].astype(str).to_numpy(),
                         "kind": roll_kinds(logged_features(read_rolls(answered))),
                         "correct": answered["correct"].to_numpy(), "latency_ms": answered["latency_ms"].to_numpy()})


@pytest.mark.parametrize("searched", [50, 150, scheduler.SEARCHED_TRIALS])
def test_the_recent_history_is_the_last_trials_of_each_type_of_every_trial(slow_on_near_ties, monkeypatch,
                                                                            searched):
    # However few of a command's rolls are read first for their kind, the result is that of reading all.
    monkeypatch.setattr(scheduler, "SEARCHED_TRIALS", searched)
    everything = every_trial(slow_on_near_ties)
    kept = recent_history(slow_on_near_ties)
    assert len(kept) < len(everything)
    assert kept.groupby(["command", "kind"]).size().max() == RECENT_TRIALS
    expected = everything.sort_values("timestamp", kind="stable").groupby(["command", "kind"]).tail(RECENT_TRIALS)
    assert kept.reset_index(drop=True).equals(recent_trials(expected).reset_index(drop=True))
    assert cell_weights(kept, CELLS).equals(cell_weights(everything, CELLS))


def test_too_early_rows_do_not_count_as_reading_a_roll(slow_on_near_ties):
    early = slow_on_near_ties.copy()
    last = early.index[-30:]  # the newest rows: each would be among the recent trials of its type
    early.loc[last, "too_early"] = True
    assert recent_history(early).equals(recent_history(slow_on_near_ties.drop(index=last)))


def test_the_server_keeps_each_players_recent_trials_as_a_whole_read_gives_them(tmp_path):
    # The web drill's store reads the log once, then only the rows appended since: the same recent trials.
    average = ReadingModel.from_player(PlayerModel.preset("average"))
    log, more = tmp_path / "drills.csv", tmp_path / "more.csv"
    write_reading_log(log, [replace(average, name="ann"), replace(average, name="bo")], sessions=2, trials=120)
    store = TrialStore(log)
    first = store.recent_trials("synthetic-ann")
    assert len(first) and set(first["player"]) == {"synthetic-ann"}
    # Rows of other sessions whose times fall among the first ones' (the same days), appended as a drill does.
    write_reading_log(more, [replace(average, name="ann")], sessions=3, trials=120, seed=8)
    with open(log, "a", encoding="utf-8") as file:
        file.writelines(more.read_text(encoding="utf-8").splitlines(keepends=True)[1:])
    whole = recent_history(load_logs([log], columns=HISTORY_COLUMNS))
    for player in ("synthetic-ann", "synthetic-bo"):
        expected = whole.loc[whole["player"] == player].reset_index(drop=True)
        assert store.recent_trials(player).reset_index(drop=True).equals(expected), player
    assert not store.recent_trials("synthetic-ann").equals(first)
    assert store.recent_trials("nobody").empty


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"


@pytest.mark.parametrize("name", ["sixes", "tie-break", "custom-faces", "uneven-colors"])
def test_a_variant_files_commands_are_drilled_by_type_and_its_rows_read_back_by_type(tmp_path, name):
    variant = read_variant(EXAMPLES / f"{name}.toml")
    cells = variant_cells(variant)
    for command in variant.commands:
        kinds = {kind for drilled, kind in cells if drilled == command}
        # Near ties are told for a built-in command on as many dice in every color; otherwise grey or one winner.
        assert kinds == (set(TOLD) if command.builtin and len(set(variant.counts)) == 1 else {"grey", "one winner"})
    rng = np.random.default_rng(2)
    rows = []
    for number, (command, kind) in enumerate(cells, start=1):
        rolled, of_kind = roll_of_kind(variant, command, kind, rng)
        assert of_kind and rolled.command == command
        assert (resolve(variant, command, rolled.dice, rolled.positions).answer == GREY) is (kind == "grey")
        rows.append(judged_trial(variant, rolled.command, rolled.dice, rolled.positions, GREY, 900.0,
                                 interface="terminal", player="Ann", session_id="s", trial=number,
                                 timestamp=datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=number)))
    # Logged and read back, or kept as the drill logs them, each row is of the type it was drawn as.
    log = DrillLog(tmp_path / "drills.csv")
    log.append_rows(rows)
    read_back = recent_history(load_logs([log.path], columns=HISTORY_COLUMNS))
    kept = trial_history(variant, rows)
    for history in (read_back, kept):
        assert list(zip(history["command"], history["kind"])) == [(str(command), kind) for command, kind in cells]
    assert adaptive_roll(variant, read_back, np.random.default_rng(1)).of_kind
