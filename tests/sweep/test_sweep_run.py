"""A sweep's numbers: exact where exact, simulated within their intervals, the same however the work is split."""

from __future__ import annotations

import json

import pytest
from helpers.cli import run_diavolo

from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import Command
from diavolo_stats.results import Result
from diavolo_stats.stats import proportion_estimate
from diavolo_stats.sweep import COLUMNS, SweepGrid, sweep, variant_seed
from diavolo_stats.sweep.grid import describe_variant

SMALL = SweepGrid(colors_count=(2, 3), dice_per_color=(2, 3), sides=(4, 6), rounds=40_000, seed=5)


@pytest.fixture(scope="module")
def small_result():
    return sweep(SMALL)


def test_one_row_per_variant_and_command_in_grid_order(small_result):
    rows = small_result.rows()
    assert len(rows) == SMALL.size * (len(SMALL.commands) + 1)  # and the overall grey rate
    assert [tuple(row) for row in rows] == [COLUMNS] * len(rows)
    expected = [(len(v.colors), v.dice_per_color, v.sides, name) for v in SMALL.variants
                for name in [*(c.value for c in SMALL.commands), "overall"]]
    assert [(r["colors"], r["dice_per_color"], r["sides"], r["command"]) for r in rows] == expected


def test_value_commands_are_the_exact_odds_of_diavolo_odds(small_result):
    by_variant = {}
    for row in small_result.rows():
        by_variant.setdefault((row["color_names"], row["dice_per_color"], row["sides"]), {})[row["command"]] = row
    for (colors, dice, sides), rows in by_variant.items():
        printed = run_diavolo("odds", "--colors", colors, "--dice-per-color", str(dice), "--sides", str(sides),
                              "--format", "json")
        assert printed.returncode == 0, printed.stderr
        odds = json.loads(printed.stdout)["commands"]
        for name, entry in odds.items():
            row = rows[name]
            assert row["exact_tie_probability"] == row["tie_probability"] == entry["tie_probability"]
            assert row["ci95_low"] == row["ci95_high"] == row["tie_probability"]
            assert row["rounds"] == 0 and row["ties"] is None and row["seed"] is None


def test_closest_is_simulated_within_its_interval(small_result):
    for variant in SMALL.variants:
        row = next(r for r in small_result.rows() if r["command"] == "closest"
                   and r["color_names"] == ",".join(variant.colors) and r["dice_per_color"] == variant.dice_per_color
                   and r["sides"] == variant.sides)
        assert row["exact_tie_probability"] is None and row["rounds"] == SMALL.rounds
        assert row["tie_probability"] == row["ties"] / row["rounds"]
        assert [row["ci95_low"], row["ci95_high"]] == proportion_estimate(row["ties"], row["rounds"]).bounds
        # The same numbers as `diavolo simulate` with the variant's seed (the row says which).
        assert row["seed"] == variant_seed(SMALL.seed, variant)
        alone = simulate(variant.__class__(colors=variant.colors, dice_per_color=variant.dice_per_color,
                                           sides=variant.sides, commands=(Command.CLOSEST,)),
                         SMALL.rounds, seed=row["seed"])
        assert alone.ties(Command.CLOSEST) == row["ties"]
        # An independent run ten times longer lies inside the sweep's interval (at 99.9 %: eight rows are
        # checked at once).
        longer = simulate(alone.variant, 10 * SMALL.rounds, seed=12345)
        wide = proportion_estimate(row["ties"], row["rounds"], confidence=0.999)
        assert wide.low <= longer.tie_probability(Command.CLOSEST) <= wide.high


def test_the_row_reproduces_with_diavolo_simulate(small_result):
    row = next(r for r in small_result.rows() if r["command"] == "closest")
    printed = run_diavolo("simulate", "--colors", row["color_names"], "--dice-per-color", str(row["dice_per_color"]),
                          "--sides", str(row["sides"]), "--commands", "closest", "--rounds", str(row["rounds"]),
                          "--seed", str(row["seed"]), "--format", "json")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["commands"]["closest"]["ties"] == row["ties"]


def test_a_variants_result_does_not_depend_on_the_grid_around_it(small_result):
    other = sweep(SweepGrid(colors_count=(3, 5), dice_per_color=(3,), sides=(6, 8, 10), tolerance=(0.1,),
                            rounds=SMALL.rounds, seed=SMALL.seed))

    def rows_of(result, dice, sides):
        return [{k: v for k, v in r.items() if k != "sweep_id"} for r in result.rows()
                if (r["colors"], r["dice_per_color"], r["sides"]) == (3, dice, sides)]

    assert rows_of(other, 3, 6) == rows_of(small_result, 3, 6) != []


def test_the_result_is_a_result_with_text_for_people(small_result):
    assert isinstance(small_result, Result)
    assert small_result.document()["rows"] == small_result.rows()
    assert small_result.document()["variants"] == SMALL.size
    text = small_result.text()
    assert str(small_result) == text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "closest" in text and "exact" in text


def test_text_stays_within_80_columns_with_every_table_parameter_and_a_target():
    grid = SweepGrid(colors_count=(2, 3), dice_per_color=(1,), sides=(4,), tolerance=(0.05, 0.1),
                     scatter_mm=(250.0, 300.0), die_mm=(12.0, 16.0), rounds=2_000)
    from diavolo_stats.sweep import Target

    result = sweep(grid).meeting(Target.parse("closest=0..1", grid.commands))
    assert "dist" in result.text() and "tol" in result.text()
    assert max(len(line) for line in result.text().splitlines()) <= 80


def test_canonical_description_names_only_what_decides_the_numbers():
    # Where dice land depends on how many each color throws and on the table, not on sides or faces.
    exact_only = SweepGrid(commands=(Command.MOST_ODD,)).variants[0]
    assert set(describe_variant(exact_only)) == {"colors", "counts"}
    simulated = SweepGrid().variants[0]
    assert set(describe_variant(simulated)) == {"colors", "counts", "tolerance", "scatter_mm", "die_mm"}
