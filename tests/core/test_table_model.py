"""The table model: dice land inside the scatter area, never on each other, repeatably."""

from __future__ import annotations

import numpy as np
import pytest

from diavolo_stats.core.table_model import (
    TableModel,
    nearest_distances,
    positions_from_mapping,
    positions_to_mapping,
    throw,
)


@pytest.mark.parametrize("model", [TableModel(), TableModel(scatter_mm=130, die_mm=20)])
def test_dice_never_overlap_and_stay_on_the_table(model):
    positions = throw(model, 10, 20_000, np.random.default_rng(3))  # (dice, 2, rounds)
    assert positions.shape == (10, 2, 20_000)
    half = model.die_mm / 2
    assert positions.min() >= half - 1e-3 and positions.max() <= model.scatter_mm - half + 1e-3
    for a in range(10):
        for b in range(a):
            apart = np.abs(positions[a] - positions[b])  # (2, rounds)
            assert not np.any((apart[0] < model.die_mm - 1e-3) & (apart[1] < model.die_mm - 1e-3))


def test_a_crowded_table_still_lands_every_die_uniformly():
    model = TableModel(scatter_mm=130, die_mm=20)  # 10 dice cover 24% of the area, near the limit
    positions = throw(model, 10, 20_000, np.random.default_rng(4))
    # The command die lands first, on an empty table: uniform over the allowed square.
    xs = positions[0, 0]
    counts, _ = np.histogram(xs, bins=4, range=(10, 120))
    expected = len(xs) / 4
    assert ((counts - expected) ** 2 / expected).sum() < 16.27  # chi-square, 3 df, p = 0.001


def test_the_same_seed_gives_the_same_throw():
    a = throw(TableModel(), 10, 1000, np.random.default_rng(9))
    b = throw(TableModel(), 10, 1000, np.random.default_rng(9))
    assert np.array_equal(a, b)


def test_nearest_distance_is_center_to_center_to_the_closest_die_of_each_color():
    positions = np.array([[0, 0], [3, 4], [30, 40], [6, 8], [0, 1]], dtype=np.float32)  # command, 2 colors x 2
    distances = nearest_distances(positions[:, :, None], 2, 2)
    assert distances[:, 0].tolist() == [5.0, 1.0]


def test_positions_round_trip_through_the_log_mapping():
    positions = throw(TableModel(), 10, 1, np.random.default_rng(1))[:, :, 0]
    colors = ("black", "red", "white")
    mapping = positions_to_mapping(colors, 3, positions)
    assert set(mapping) == {"command", *colors} and len(mapping["red"]) == 3
    back = positions_from_mapping(colors, 3, mapping)
    assert np.allclose(back, positions, atol=0.05)
