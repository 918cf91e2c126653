"""The grid of a sweep: how values are written, what a grid refuses, and each variant's own seed."""

from __future__ import annotations

import pytest

from diavolo_stats.core.variant import Command
from diavolo_stats.errors import InputError
from diavolo_stats.sweep import MAX_VARIANTS, PALETTE, SweepGrid, parse_values, variant_seed


@pytest.mark.parametrize("text, integer, values", [
    ("4,6,8", True, (4, 6, 8)),
    ("2..6", True, (2, 3, 4, 5, 6)),
    ("2..4,8", True, (2, 3, 4, 8)),
    ("2..10:4", True, (2, 6, 10)),
    ("5", True, (5,)),
    ("0.05..0.2:0.05", False, (0.05, 0.1, 0.15, 0.2)),
    ("0.1, 0.3", False, (0.1, 0.3)),
    ("300", False, (300.0,)),
])
def test_values_are_lists_ranges_and_mixes(text, integer, values):
    assert parse_values(text, "sides", integer) == values


@pytest.mark.parametrize("text, integer, fragment", [
    ("", True, "empty list"),
    ("4,,6", True, "has an empty value (nothing between two commas, or at an end), got '4,,6'"),
    ("4..", True, "empty range"),
    ("..6", True, "empty range"),
    ("6..2", True, "reversed range"),
    ("0.3..0.1:0.1", False, "reversed range"),
    ("0.1..0.3", False, "needs a step"),
    ("2..7:2", True, "whole steps"),
    ("0.1..0.25:0.1", False, "whole steps"),
    ("2..6,4", True, "4 given twice"),
    ("\u0666", True, "is not a value"),  # Arabic-Indic six: only ASCII digits are numbers
    ("six", True, "is not a value"),
    ("1.5", True, "is not a value"),
])
def test_malformed_values_are_refused_naming_the_field(text, integer, fragment):
    with pytest.raises(InputError) as caught:
        parse_values(text, "sides", integer)
    assert caught.value.field == "sides"
    assert fragment in caught.value.message


def test_variants_are_every_combination_in_grid_order():
    grid = SweepGrid(colors_count=(2, 4), dice_per_color=(1, 3), sides=(6,), commands=(Command.HIGHEST_DIE,))
    assert grid.size == 4
    assert [(len(v.colors), v.dice_per_color) for v in grid.variants] == [(2, 1), (2, 3), (4, 1), (4, 3)]
    assert grid.variants[2].colors == PALETTE[:4]


def test_table_model_values_multiply_only_a_grid_with_closest():
    grid = SweepGrid(sides=(4, 6), tolerance=(0.05, 0.1, 0.2))
    assert grid.size == 6
    assert {v.table.tolerance for v in grid.variants} == {0.05, 0.1, 0.2}
    with pytest.raises(InputError) as caught:
        SweepGrid(commands=(Command.HIGHEST_TOTAL,), tolerance=(0.05, 0.1))
    assert caught.value.field == "tolerance" and "closest only" in caught.value.message


@pytest.mark.parametrize("changes, field, fragment", [
    ({"tolerance": (1.5,)}, "tolerance", "from 0 to 1"),
    ({"tolerance": (-0.1,)}, "tolerance", "from 0 to 1"),
    ({"colors_count": (1, 2)}, "colors_count", "from 2 to 8"),
    ({"sides": (1,)}, "sides", "from 2 to 100"),
    ({"dice_per_color": ()}, "dice_per_color", "at least one value"),
    ({"rounds": 0}, "rounds", "whole number from 1"),
    ({"colors": ("black", "grey")}, "colors", "reserved"),
])
def test_values_out_of_range_are_refused(changes, field, fragment):
    with pytest.raises(InputError) as caught:
        SweepGrid(**changes)
    assert field in str(caught.value) and fragment in str(caught.value)


def test_a_grid_of_one_variant_and_one_round_says_each_in_the_singular():
    line = SweepGrid(commands=(Command.CLOSEST,), rounds=1).describe()
    assert line.startswith("1 variant: ") and "closest simulated, 1 round per variant," in line
    assert SweepGrid(commands=(Command.CLOSEST,), rounds=1_000, sides=(4, 6)).describe().startswith("2 variants: ")


def test_a_grid_over_the_maximum_says_how_to_split_it():
    with pytest.raises(InputError) as caught:
        SweepGrid(colors_count=tuple(range(2, 9)), dice_per_color=tuple(range(1, 13)), sides=tuple(range(2, 101)),
                  tolerance=tuple(i / 10 for i in range(11)), die_mm=(10.0, 12.0))
    message = str(caught.value)
    assert f"{MAX_VARIANTS:,}" in message and "split it" in message


def test_a_variant_that_does_not_fit_the_table_is_named():
    with pytest.raises(InputError) as caught:
        SweepGrid(colors_count=(8,), dice_per_color=(12,), scatter_mm=(100.0,))
    assert "8 colors, 12d6" in str(caught.value)


def test_a_variants_seed_comes_from_its_parameters_not_its_place_in_the_grid():
    small = SweepGrid(dice_per_color=(3,), sides=(6,))
    large = SweepGrid(colors_count=(2, 3, 4), dice_per_color=(1, 2, 3), sides=(4, 6, 8), seed=0)
    variant = small.variants[0]
    same = next(v for v in large.variants if v == variant)
    assert variant_seed(0, variant) == variant_seed(0, same)
    assert variant_seed(1, variant) != variant_seed(0, variant)
    seeds = {variant_seed(0, v) for v in large.variants}
    # Every geometry (colors and dice thrown) its own stream, shared by the sides: where dice land does not
    # depend on their values.
    assert len(seeds) == len(large.colors_count) * len(large.dice_per_color)
    assert len({variant_seed(0, v) for v in large.variants if v.sides == 6}) == len(seeds)
    assert all(0 <= seed < 2**63 for seed in seeds)


def test_the_seed_is_stable_across_runs():
    # A digest, not Python's hash(): the same in every process (PYTHONHASHSEED changes hash() per run).
    import subprocess
    import sys

    code = ("from diavolo_stats.sweep import SweepGrid, variant_seed; "
            "print(variant_seed(7, SweepGrid().variants[0]))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": str(salt)}).stdout for salt in (1, 2)}
    assert outputs == {f"{variant_seed(7, SweepGrid().variants[0])}\n"}


def test_identity_changes_with_the_grid_rounds_and_seed():
    base = SweepGrid(sides=(4, 6))
    assert base.identity() == SweepGrid(sides=(4, 6)).identity()
    assert len({base.identity(), SweepGrid(sides=(4, 8)).identity(), SweepGrid(sides=(4, 6), seed=1).identity(),
                SweepGrid(sides=(4, 6), rounds=10).identity()}) == 4
