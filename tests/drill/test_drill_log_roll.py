"""A drill log's rolls read once into arrays: every row's dice and positions as numbers, however the cell was
spaced, and which rows the players' models read."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from helpers.cli import REPO
from helpers.drill_logs import modelled_rows, write_log

from diavolo_stats.core.variant import ALL_COMMANDS, Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.log import load_logs, read_rolls
from diavolo_stats.drill.roll_features import logged_features, readable_rolls
from diavolo_stats.game.players import PlayerModel

VARIANTS = {"box": Variant(), "kids": Variant.preset("kids"),
            "uneven": read_variant(REPO / "examples" / "variants" / "uneven-colors.toml"),
            "sixes": read_variant(REPO / "examples" / "variants" / "sixes.toml")}


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """(the rows written, the frame load_logs reads back), 60 rows of each variant."""
    player = PlayerModel.preset("average")
    rows = [row for seed, variant in enumerate(VARIANTS.values())
            for row in modelled_rows(f"p{seed}", player, 60, seed, variant)]
    path = write_log(tmp_path_factory.mktemp("roll") / "drills.csv", rows)
    return rows, load_logs([path])


def test_every_rows_dice_and_positions_are_its_numbers(logged):
    rows, frame = logged
    rolls = read_rolls(frame)
    landed, tolerance = rolls.positions
    for index, row in enumerate(rows):
        faces = [face for color_faces in row.dice.values() for face in color_faces]
        assert rolls.dice[index] == len(faces) and rolls.colors[index] == len(row.dice)
        assert rolls.values[index, : len(faces)].tolist() == faces
        assert rolls.command[index] == (ALL_COMMANDS.index(row.command) if row.command in ALL_COMMANDS else -1)
        if rolls.command[index] == ALL_COMMANDS.index("closest"):
            points = [row.positions["command"], *(p for color in row.dice for p in row.positions[color])]
            assert landed[index, : len(points)].tolist() == np.float32(points).tolist()
            assert tolerance[index] == np.float32(row.positions["tolerance"])
        else:
            assert np.isnan(tolerance[index])


def test_a_cell_spaced_or_ordered_otherwise_reads_the_same(logged, tmp_path):
    _, frame = logged
    with open(frame["source"].iloc[0], newline="", encoding="utf-8") as log:
        table = list(csv.reader(log))
    dice, positions = table[0].index("dice"), table[0].index("positions")
    for cells in table[1:]:
        cells[dice] = json.dumps(json.loads(cells[dice]), separators=(",", ":"))
        # The table's fields first, then the dice: not the writer's order.
        cells[positions] = json.dumps(dict(sorted(json.loads(cells[positions]).items(),
                                                  key=lambda item: item[0] != "tolerance")))
    with open(tmp_path / "respaced.csv", "w", newline="", encoding="utf-8") as log:
        csv.writer(log, lineterminator="\n").writerows(table)
    as_written, otherwise = read_rolls(frame), read_rolls(load_logs([tmp_path / "respaced.csv"]))
    assert np.array_equal(as_written.values, otherwise.values)
    for read, again in zip(as_written.positions, otherwise.positions):
        assert np.array_equal(read, again, equal_nan=True)
    assert np.array_equal(logged_features(as_written).near_tie, logged_features(otherwise).near_tie)


def test_the_models_read_built_in_commands_on_even_colors_only(logged):
    rows, frame = logged
    readable = readable_rolls(read_rolls(frame))
    for index, row in enumerate(rows):
        even = len({len(faces) for faces in row.dice.values()}) == 1
        assert readable[index] == (row.command in ALL_COMMANDS and even)
    assert readable.any() and not readable.all()


def test_taking_rows_before_reading_values_reads_the_same(logged):
    _, frame = logged
    rolls = read_rolls(frame)
    index = np.flatnonzero(readable_rolls(rolls))[::3]
    taken_first = read_rolls(frame).take(index)
    assert np.array_equal(taken_first.values, rolls.values[index][:, : taken_first.values.shape[1]])
    assert np.array_equal(logged_features(taken_first).near_tie, logged_features(rolls).near_tie[index])
