"""The rolls of a drill log frame as arrays: what every reader of the rolls needs, from the typed frame.

`read_rolls` gives the command and whether it is built in, the colors, the dice of each and their values
(which `load_logs` read once, with its checks), the table's call and the command first. Positions are read
from their cells when first asked for, and only for the rows kept by then (`LoggedRolls.take`), so a reader
that needs a few rows' positions reads only those.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from diavolo_stats.core.table_model import TABLE_FIELDS
from diavolo_stats.core.variant import ALL_COMMANDS, GREY
from diavolo_stats.drill.log.cells import POSITIONS_IN_ORDER

ROLL_COLUMNS = ("dice_per_color", "command_first", "command", "dice", "positions", "expected")
"""The drill log columns `read_rolls` reads (`load_logs(paths, columns=...)` with what else a reader needs; with
`dice`, the frame has the dice's numbers)."""

_KEYS_AND_BRACKETS = r'"[^"]*"\s*:\s*|[{}\[\]]'


@dataclass(frozen=True)
class LoggedRolls:
    """The rolls of some rows of a drill log, one entry per row, in row order.

    command: (rows,) int8 index into ALL_COMMANDS, -1 for a command of the row's own rules. colors, dice_per_color
    (as logged), dice: (rows,) int16. even: every color rolled dice_per_color dice. grey: the table's call was
    grey. command_first: the command die was shown first (all (rows,) bool). values: (rows, most dice) uint8, the
    dice values, colors in the cell's order, 0 past a row's dice.
    """

    command: np.ndarray
    colors: np.ndarray
    dice_per_color: np.ndarray
    dice: np.ndarray
    even: np.ndarray
    grey: np.ndarray
    command_first: np.ndarray
    values: np.ndarray
    positions_cells: pd.Series = dataclasses.field(repr=False)

    def __len__(self) -> int:
        return len(self.command)

    @property
    def builtin(self) -> np.ndarray:
        """(rows,) bool: the command is one of ALL_COMMANDS."""
        return self.command >= 0

    @cached_property
    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """Where the dice lay, for the rows of a built-in command decided by positions (`closest`): ((rows,
        1 + most dice, 2) float32 mm, the command die first, NaN past a row's dice and on every other row;
        the table's tolerance: (rows,) float32, NaN on the other rows)."""
        by_position = np.array([not command.depends_on_values for command in ALL_COMMANDS])
        return _positions(self.positions_cells, self.dice,
                          self.builtin & by_position[np.maximum(self.command, 0)])

    def take(self, index: np.ndarray) -> LoggedRolls:
        """The rolls at `index` (an index array or a mask), in that order; positions already read are taken too,
        others are read later for these rows only."""
        taken = LoggedRolls(*(getattr(self, name)[index] for name in _ARRAYS),
                            positions_cells=self.positions_cells.iloc[index])
        if "positions" in self.__dict__:
            landed, tolerance = self.__dict__["positions"]
            taken.__dict__["positions"] = (landed[index], tolerance[index])
        return taken


_ARRAYS = ("command", "colors", "dice_per_color", "dice", "even", "grey", "command_first", "values")


def read_rolls(drills: pd.DataFrame) -> LoggedRolls:
    """The rolls of every row of a drill log frame (`load_logs` with ROLL_COLUMNS, or more), in row order."""
    named = drills["command"]
    kinds, found = ((named.cat.codes.to_numpy(), named.cat.categories)
                    if isinstance(named.dtype, pd.CategoricalDtype) else pd.factorize(named))
    by_name = {command.value: index for index, command in enumerate(ALL_COMMANDS)}
    # The last for a code of -1 (a missing cell, never in a frame load_logs gives).
    command = np.array([by_name.get(str(name), -1) for name in found] + [-1], dtype=np.int8)[kinds]
    color_dice = unlisted(drills["color_dice"])  # (rows, most colors), 0 past a row's colors
    rolled = color_dice > 0  # every color of a roll has a die
    per_color = drills["dice_per_color"].to_numpy(dtype=np.int16)
    return LoggedRolls(command=command, colors=rolled.sum(axis=1).astype(np.int16), dice_per_color=per_color,
                       dice=color_dice.sum(axis=1, dtype=np.int16),
                       even=((color_dice == per_color[:, None]) | ~rolled).all(axis=1) & rolled.any(axis=1),
                       grey=drills["expected"].eq(GREY).to_numpy(dtype=bool),
                       command_first=drills["command_first"].to_numpy(dtype=bool),
                       values=unlisted(drills["dice_values"]),
                       positions_cells=drills["positions"].reset_index(drop=True))


def listed(padded: np.ndarray, lengths: np.ndarray, index: pd.Index) -> pd.Series:
    """A column of lists of uint8 (pd.ArrowDtype), row i the first lengths[i] numbers of padded[i]: how the typed
    frame holds a row's several numbers (padded: (rows, most) uint8; lengths: (rows,) int)."""
    import pyarrow as pa

    flat = padded[np.arange(padded.shape[1]) < np.asarray(lengths)[:, None]]
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int32)
    lists = pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat, type=pa.uint8()))
    return pd.Series(lists, dtype=pd.ArrowDtype(lists.type), index=index)


def unlisted(column: pd.Series) -> np.ndarray:
    """A column of `listed` lists as (rows, the longest list) uint8, 0 past a row's numbers."""
    import pyarrow as pa

    lists = pa.array(column.array)
    lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    lengths = lists.value_lengths().to_numpy(zero_copy_only=False).astype(np.int64)
    padded = np.zeros((len(lengths), int(lengths.max(initial=0))), dtype=np.uint8)
    padded[np.arange(padded.shape[1]) < lengths[:, None]] = lists.flatten().to_numpy(zero_copy_only=False)
    return padded


def _numbers(cells: pd.Series, counts: np.ndarray) -> np.ndarray:
    """Every number of some JSON cells, `counts` (rows,) of them each, in order: (rows, most) float64, 0 past a
    row's numbers. The keys and brackets are dropped and the numbers read in one pass."""
    joined = ", ".join(cells.astype(str).str.replace(_KEYS_AND_BRACKETS, "", regex=True).tolist())
    flat = np.fromstring(joined, sep=",", dtype=np.float64) if joined else np.zeros(0)
    counts = counts.astype(np.int64)
    table = np.zeros((len(counts), int(counts.max(initial=0))))
    row = np.repeat(np.arange(len(counts)), counts)
    column = np.arange(len(flat)) - np.repeat(np.cumsum(counts) - counts, counts)
    table[row, column] = flat
    return table


def _positions(cells: pd.Series, dice: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # returns: (rows, 1 + most dice, 2) float32 mm and (rows,) float32, NaN where not `wanted`
    landed = np.full((len(cells), 1 + int(dice.max(initial=0)), 2), np.nan, dtype=np.float32)
    tolerance = np.full(len(cells), np.nan, dtype=np.float32)
    rows = np.flatnonzero(wanted)
    text = cells.iloc[rows].astype(str)
    as_written = text.str.fullmatch(POSITIONS_IN_ORDER).to_numpy(dtype=bool)
    counts = 2 * (1 + dice[rows].astype(np.int64)) + len(TABLE_FIELDS)  # the points, then the table's fields
    numbers = np.zeros((len(rows), int(counts.max(initial=0))))
    if as_written.any():
        read = _numbers(text[as_written], counts[as_written])
        numbers[as_written, : read.shape[1]] = read
    for at in np.flatnonzero(~as_written):
        cell = json.loads(text.iloc[at])
        points = [cell["command"]] + [point for key, value in cell.items()
                                      if key != "command" and key not in TABLE_FIELDS for point in value]
        flat = [*np.ravel(points), *(cell[key] for key in TABLE_FIELDS)]
        numbers[at, : len(flat)] = flat
    for size in np.unique(dice[rows]):
        same = dice[rows] == size
        points = 1 + int(size)
        landed[rows[same], :points] = numbers[same, : 2 * points].reshape(-1, points, 2)
        tolerance[rows[same]] = numbers[same, 2 * points + TABLE_FIELDS.index("tolerance")]
    return landed, tolerance
