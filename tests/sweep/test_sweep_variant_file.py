"""A sweep of a variant file's game: the grid flags vary the file, a row per variant gives the overall grey
rate, closest is simulated once per geometry, and --nearest ranks near misses."""

from __future__ import annotations

import math
from pathlib import Path

from diavolo_stats.cli import main
from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.variant import Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.sweep import SweepGrid, Target, sweep
from diavolo_stats.sweep import run as sweep_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"


def test_closest_is_simulated_once_per_geometry_and_reused_across_sides(monkeypatch):
    calls = []
    simulate_closest = sweep_run.closest_ties

    def counted(variant, rounds, seed):
        calls.append(variant)
        return simulate_closest(variant, rounds, seed)

    monkeypatch.setattr(sweep_run, "closest_ties", counted)
    result = sweep(SweepGrid(colors_count=(2, 3), sides=(4, 6, 8), rounds=20_000, seed=3))
    assert len(calls) == 2  # one geometry per number of colors, whatever the sides
    closest = [row for row in result.rows() if row["command"] == "closest"]
    for colors in (2, 3):
        rows = [{k: v for k, v in row.items() if k != "sides"} for row in closest if row["colors"] == colors]
        assert len(rows) == 3 and rows[0] == rows[1] == rows[2]


def test_a_row_per_variant_gives_the_overall_grey_rate_of_the_files_die():
    base = read_variant(EXAMPLES / "sixes.toml")
    grid = SweepGrid(base=base, dice_per_color=(2, 3), commands=tuple(c for c in base.commands
                                                                      if c.depends_on_values))
    rows = sweep(grid).rows()
    for variant in grid.variants:
        overall = [row for row in rows if row["command"] == "overall"
                   and row["dice_per_color"] == variant.dice_per_color]
        assert len(overall) == 1
        exact = exact_odds(variant).overall_tie_probability
        # The mean of the rows' floats: the exact fraction to the last bits of a float.
        assert overall[0]["tie_probability"] == overall[0]["exact_tie_probability"]
        assert math.isclose(overall[0]["tie_probability"], float(exact), rel_tol=1e-12)
        # most-sixes is two of the five faces left on the die.
        assert [str(c) for c in variant.die].count("most-sixes") == 2


def test_the_overall_interval_comes_from_the_simulated_closest_faces():
    grid = SweepGrid(rounds=50_000, seed=2)
    rows = {row["command"]: row for row in sweep(grid).rows()}
    closest, overall = rows["closest"], rows["overall"]
    value_faces = [rows[name]["tie_probability"] for name in rows if name not in ("closest", "overall")]
    assert overall["exact_tie_probability"] is None
    assert overall["ci95_low"] == (sum(value_faces) + closest["ci95_low"]) / 6
    assert overall["ci95_high"] == (sum(value_faces) + closest["ci95_high"]) / 6


def test_sides_replace_a_files_faces_and_a_grid_keeps_them_otherwise():
    base = read_variant(EXAMPLES / "custom-faces.toml")
    kept = SweepGrid(base=base, dice_per_color=(2, 3), commands=(base.command("most-alike"),)).variants
    assert all(v.die_faces == (2, 3, 3, 4, 4, 5) for v in kept)
    replaced = SweepGrid(base=base, sides=(4, 6), commands=(base.command("most-alike"),)).variants
    assert [v.die_faces for v in replaced] == [(1, 2, 3, 4), (1, 2, 3, 4, 5, 6)]


def test_target_overall_keeps_the_variants_in_range_and_nearest_ranks_near_misses():
    grid = SweepGrid(dice_per_color=(1, 2, 3, 4), commands=tuple(c for c in Variant().commands
                                                                  if c.depends_on_values))
    result = sweep(grid)
    overall = {row["dice_per_color"]: row["tie_probability"] for row in result.rows() if row["command"] == "overall"}
    low = sorted(overall.values())[1]
    kept = result.meeting(Target.parse(f"overall={low}..{low}", grid.commands))
    assert {row["dice_per_color"] for row in kept.rows()} == {d for d, p in overall.items() if p == low}
    nowhere = Target.parse("overall=0.99..1", grid.commands)
    assert result.meeting(nowhere).rows() == []
    nearest = result.meeting(nowhere, nearest=2).rows()
    ranked = sorted(overall, key=lambda d: 0.99 - overall[d])[:2]
    assert sorted({row["dice_per_color"] for row in nearest}) == sorted(ranked)
    distances = [row["target_distance"] for row in nearest if row["command"] == "overall"]
    assert distances == sorted(distances) and distances[0] == 0.99 - max(overall.values())


def test_sweep_on_the_command_line_takes_a_variant_file_and_nearest(capsys):
    assert main(["sweep", "--variant", str(EXAMPLES / "tie-break.toml"), "--dice-per-color", "2,3",
                 "--commands", "highest-die,highest-die-broken", "--target", "overall=0.99..1", "--nearest", "1",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "highest-die-broken" in out and "overall" in out and "target_distance" in out
    assert main(["sweep", "--nearest", "2"]) == 2
    assert "--nearest: needs a target" in capsys.readouterr().err
