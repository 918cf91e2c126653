"""Tie frequency tables: the exact engine and saved simulation results, side by side."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers.cli import REPO
from scipy import stats

from diavolo_stats.analytics.tie_frequency import (
    FRAME_COLUMNS,
    SIMULATION_COLUMNS,
    closest_by_tolerance,
    convergence,
    load_simulation,
    odds_by_parameter,
    simulation_frame,
    tie_frequency_frame,
)
from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.stats import proportion_estimate

SHIPPED = REPO / "data" / "simulation_standard.csv"


def test_table_sets_exact_odds_beside_the_simulation_and_its_interval():
    variant = Variant()
    result = simulate(variant, 100_000, seed=5)
    table = tie_frequency_frame(variant, simulation_frame(result)).set_index("command")
    assert list(table.columns) == list(FRAME_COLUMNS[1:])
    exact = exact_odds(variant).tie_probability
    for command in variant.commands:
        row = table.loc[command.value]
        assert row["simulated_tie_probability"] == result.tie_probability(command)
        estimate = result.ci95(command)
        assert (row["ci95_low"], row["ci95_high"]) == pytest.approx((estimate.low, estimate.high))
        assert row["rounds"] == 100_000
        if command is Command.CLOSEST:
            assert math.isnan(row["exact_tie_probability"]) and pd.isna(row["exact_in_interval"])
        else:
            assert row["exact_tie_probability"] == float(exact[command])
            assert Fraction(row["exact_tie_fraction"]) == exact[command]
            assert row["exact_in_interval"] == (row["ci95_low"] <= row["exact_tie_probability"] <= row["ci95_high"])


def test_shipped_simulation_agrees_with_the_exact_engine():
    saved = load_simulation(SHIPPED)
    table = tie_frequency_frame(Variant(), saved)
    assert table["rounds"].min() >= 10_000_000
    # One command in twenty misses its 95 % interval by chance, so five commands are held to the
    # simulation's own 99.9 % interval: the standard error of `rounds` Bernoulli trials.
    values = table.dropna(subset=["exact_tie_probability"])
    error = np.sqrt(values["exact_tie_probability"] * (1 - values["exact_tie_probability"]) / values["rounds"])
    z = (values["simulated_tie_probability"] - values["exact_tie_probability"]) / error
    assert (np.abs(z) < stats.norm.ppf(0.9995)).all(), z


def test_saved_results_round_trip_through_csv(tmp_path):
    variant = Variant.preset("kids")
    frame = simulation_frame(simulate(variant, 50_000, seed=2))
    path = tmp_path / "kids.csv"
    frame.to_csv(path, index=False)
    saved = tie_frequency_frame(variant, load_simulation(path))
    fresh = tie_frequency_frame(variant, frame)
    pd.testing.assert_frame_equal(saved, fresh)


def test_results_for_another_game_are_refused(tmp_path):
    kids = simulation_frame(simulate(Variant.preset("kids"), 10_000, seed=1))
    path = tmp_path / "kids.csv"
    kids.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"kids\.csv: simulated for black,red,white;2d6, not for black,red,white;3d6"):
        tie_frequency_frame(Variant(), load_simulation(path))


def test_missing_or_foreign_simulation_file_is_named(tmp_path):
    with pytest.raises(InputError, match="nowhere.csv.*no such file"):
        load_simulation(tmp_path / "nowhere.csv")
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match="foreign.csv.*missing columns " + ", ".join(SIMULATION_COLUMNS)):
        load_simulation(foreign)


@pytest.mark.parametrize("column", ["rounds", "ties", "tie_probability", "ci95_low", "ci95_high"])
@pytest.mark.parametrize("value, shown", [("about 0.1", "'about 0.1'"), ("inf", "'inf'"), ("", "nothing")])
def test_a_bad_number_is_named_by_file_line_and_column(tmp_path, column, value, shown):
    saved = pd.read_csv(SHIPPED, dtype=str, keep_default_na=False)
    saved.loc[2, column] = value  # the third row: line 4, after the header
    path = tmp_path / "edited.csv"
    saved.to_csv(path, index=False)
    with pytest.raises(InputError, match=rf"edited\.csv' line 4: {column} must be a finite number, got {shown}$"):
        load_simulation(path)


def test_blank_lines_do_not_shift_the_line_named(tmp_path):
    lines = SHIPPED.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace(",0.", ",zero.", 1)  # tie_probability of the second row
    path = tmp_path / "blank.csv"
    path.write_text("\n".join([lines[0], "", *lines[1:], ""]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 4: tie_probability must be a finite number, got 'zero."):
        load_simulation(path)


def test_convergence_intervals_narrow_and_hold_the_exact_value():
    growth = convergence(Variant(commands=(Command.MOST_ODD,)), [1_000, 10_000, 100_000], seed=3)
    widths = (growth["ci95_high"] - growth["ci95_low"]).tolist()
    assert growth["rounds"].tolist() == [1_000, 10_000, 100_000]
    assert widths[0] > widths[1] > widths[2]
    # Width shrinks like 1/sqrt(rounds): ten times the rounds, about 1/3.16 of the width.
    assert widths[1] / widths[2] == pytest.approx(math.sqrt(10), rel=0.1)
    # Each run's 95 % interval misses by chance one time in twenty, so the exact value is held to
    # the simulation's 99.9 % interval (z = 3.29) instead.
    for row in growth.itertuples():
        ties = round(row.simulated_tie_probability * row.rounds)
        estimate = proportion_estimate(ties, row.rounds, confidence=0.999)
        assert row.exact_tie_probability in estimate, row


def test_odds_by_parameter_are_the_exact_odds_of_each_variant():
    odds = odds_by_parameter("dice_per_color", [2, 3])
    kids = exact_odds(Variant.preset("kids")).tie_probability
    two = odds[odds["dice_per_color"] == 2].set_index("command")["exact_tie_probability"]
    assert {c.value: float(p) for c, p in kids.items()} == two.to_dict()
    by_colors = odds_by_parameter("colors", [4])
    assert by_colors["exact_tie_probability"].tolist() == pytest.approx(
        [float(p) for p in exact_odds(Variant(colors=("black", "red", "white", "blue"))).tie_probability.values()])
    with pytest.raises(InputError, match="parameter"):
        odds_by_parameter("table", [1])


def test_closest_ties_grow_with_the_perception_tolerance():
    closest = closest_by_tolerance([0.05, 0.1, 0.2], rounds=20_000, seed=4)
    # Same throws at every tolerance: a wider tolerance can only turn more rounds into ties.
    assert closest["simulated_tie_probability"].is_monotonic_increasing
    assert closest["simulated_tie_probability"].iloc[-1] > closest["ci95_high"].iloc[0]
