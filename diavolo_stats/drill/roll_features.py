"""What makes a roll hard to read: the features a player's answer time and accuracy depend on.

Each roll is described by its command, the colored dice in play (colors x
dice per color), whether the best figure is shared (the answer is grey),
whether the best and second-best figures are a near tie, and whether the
command die was shown before the dice. The figures are the rules' own
(`rules.figures`, `table_model.nearest_distances`), so a feature means what the
table sees.

A near tie is a roll with one winner whose figure beats the runner-up by the
smallest step the figure has: one pip of a total, a spread or a highest die,
one odd die. For `closest` the figure is a distance, and a near tie is a
winner whose nearest die is within NEAR_TIE_RATIO of the runner-up's (a ratio
within the table's tolerance is already grey).

Two roads lead here, both vectorized: `roll_features` from dice and position
arrays (the game simulator, synthetic logs) and `logged_features` from a drill
log's `dice` and `positions` cells, read by `drill.log.load_logs`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from diavolo_stats.core.rules import GREY_CODE, Roll, answers, figures, winners
from diavolo_stats.core.table_model import nearest_distances, positions_from_mapping
from diavolo_stats.core.variant import ALL_COMMANDS, COLOR_NAME, Command, Variant

NEAR_TIE_RATIO = 1.25
"""For `closest`: a winner whose nearest die is at most this many times nearer than the runner-up's is a near tie."""

REFERENCE_DICE = 9
"""The dice of the box (3 colors x 3 dice): the roll every player figure is quoted on."""

FEATURE_COLUMNS = ("command", "dice", "near_tie", "grey", "command_first")
"""The columns of a `RollFeatures.frame()`, one row per roll."""

LOG_FEATURE_COLUMNS = ("dice_per_color", "command_first", "command", "dice", "positions", "expected")
"""The drill log columns `logged_features` reads (with what a fit needs, they go to `load_logs`)."""


@dataclass(frozen=True)
class RollFeatures:
    """The features of many rolls, one entry per roll.

    command: (rolls,) int8 index into ALL_COMMANDS; dice: (rolls,) int16 colored
    dice in play; near_tie, grey, command_first: (rolls,) bool.
    """

    command: np.ndarray
    dice: np.ndarray
    near_tie: np.ndarray
    grey: np.ndarray
    command_first: np.ndarray

    def __len__(self) -> int:
        return len(self.command)

    def frame(self) -> pd.DataFrame:
        """The features as a data frame, FEATURE_COLUMNS, the command by name."""
        names = np.array([command.value for command in ALL_COMMANDS])
        return pd.DataFrame({"command": names[self.command], "dice": self.dice, "near_tie": self.near_tie,
                             "grey": self.grey, "command_first": self.command_first})

    def take(self, index: np.ndarray) -> RollFeatures:
        """The rolls at `index` (an index array or a mask), in that order."""
        return RollFeatures(*(getattr(self, name)[index] for name in _FIELDS))

    @classmethod
    def joined(cls, parts: list[RollFeatures]) -> RollFeatures:
        """Several runs of rolls one after another."""
        return cls(*(np.concatenate([getattr(part, name) for part in parts]) for name in _FIELDS))


_FIELDS = ("command", "dice", "near_tie", "grey", "command_first")


# The built-in whose skill a player brings to a command of the designer's own, by its figure: reading a
# total, a single die, a gap, a count of dice, or distances.
_SKILL_OF_FIGURE = {"sum": (Command.HIGHEST_TOTAL, Command.LOWEST_TOTAL), "max": (Command.HIGHEST_DIE,) * 2,
                    "min": (Command.HIGHEST_DIE,) * 2, "nth-highest": (Command.HIGHEST_DIE,) * 2,
                    "spread": (Command.LARGEST_SPREAD,) * 2, "count": (Command.MOST_ODD,) * 2,
                    "distinct": (Command.MOST_ODD,) * 2, "most-alike": (Command.MOST_ODD,) * 2,
                    "distance": (Command.CLOSEST,) * 2}


def skill_command(command: Command) -> Command:
    """The built-in command whose skill (accuracy, latency) a player brings to `command`: itself for a
    built-in; for a command of a variant file, the built-in reading the same kind of figure (a total: highest-
    or lowest-total by the direction; a single die: highest-die; a count of dice: most-odd; ...)."""
    if command.builtin:
        return command
    highest, lowest = _SKILL_OF_FIGURE[command.figure.kind]
    return highest if command.chain[0].highest else lowest


def near_ties(command: Command, color_figures: np.ndarray, answer_codes: np.ndarray) -> np.ndarray:
    """Which rolls are near ties (see the module docstring): (rounds,) bool, never on a grey roll."""
    # color_figures: (colors, rounds) int16, or float32 mm for closest; answer_codes: (rounds,) int8
    ordered = np.sort(color_figures, axis=0)
    if not command.chain[0].highest:
        best, second = ordered[0], ordered[1]
    else:
        best, second = ordered[-1], ordered[-2]
    if not command.depends_on_values:
        close = second <= best * NEAR_TIE_RATIO
    else:
        close = np.abs(best.astype(np.int32) - second) == 1
    return close & (answer_codes != GREY_CODE)


def roll_features(command: Command, color_count: int, dice_per_color: int, dice: np.ndarray | None = None,
                  positions: np.ndarray | None = None, tolerance: float = 0.0,
                  command_first: bool = False) -> RollFeatures:
    """The features of many rolls of one command: value commands need `dice`, `closest` needs `positions`.

    `tolerance` is the table's (`TableModel.tolerance`), which makes near distances grey.
    """
    # dice: (colors, dice_per_color, rounds) uint8; positions: (1 + colors * dice_per_color, 2, rounds) mm
    if not command.depends_on_values:
        color_figures = nearest_distances(positions, color_count, dice_per_color)
        codes = winners(command, color_figures, tolerance)
    else:
        color_figures = figures(command, dice)
        # The drill's commands are the built-ins, one criterion each: the figure, turned to its better end, decides.
        codes = winners(command, color_figures if command.chain[0].highest else -color_figures)
    return figure_features(command, color_figures, codes, color_count * dice_per_color, command_first)


def figure_features(command: Command, color_figures: np.ndarray, answer_codes: np.ndarray, dice: int,
                    command_first: bool = False) -> RollFeatures:
    """The features of many rolls of one command whose figures (of its first criterion, as a person reads
    them) and answers are already worked out. A designer's command is read as the built-in of its kind
    (`skill_command`); its near ties are on its first criterion."""
    # color_figures: (colors, rounds) int16, or distances for closest; answer_codes: (rounds,) int8, the table's call
    rounds = color_figures.shape[1]
    return RollFeatures(command=np.full(rounds, ALL_COMMANDS.index(skill_command(command)), dtype=np.int8),
                        dice=np.full(rounds, dice, dtype=np.int16),
                        near_tie=near_ties(command, color_figures, answer_codes), grey=answer_codes == GREY_CODE,
                        command_first=np.full(rounds, bool(command_first)))


def played_features(variant: Variant, rolls: Sequence[Roll], command_first: bool = False) -> RollFeatures:
    """The features of some rolls as `rules.roll_many` gives them, in order (a session's rolls), each resolved
    by the variant's own rules (its dice per color, its commands' tie-breaks), as the game engine resolves them."""
    parts, order = [], []
    for command in variant.commands:
        index = [i for i, played in enumerate(rolls) if played.command is command]
        if not index:
            continue
        if not command.depends_on_values:
            # positions: (1 + dice, 2, rolls) mm
            positions = np.stack([positions_from_mapping(variant.colors, variant.counts, rolls[i].positions)
                                  for i in index], axis=2)
            color_figures = nearest_distances(positions, len(variant.colors), variant.counts)
            codes = answers(variant, command, positions=positions)
        else:
            # dice: per color (count, rolls) uint8
            dice = [np.array([rolls[i].dice[color] for i in index], dtype=np.uint8).T for color in variant.colors]
            color_figures = figures(command, dice)
            codes = answers(variant, command, dice=dice)
        parts.append(figure_features(command, color_figures, codes, variant.dice_count, command_first))
        order.extend(index)
    return RollFeatures.joined(parts).take(np.argsort(np.array(order, dtype=np.int64), kind="stable"))


def logged_features(drills: pd.DataFrame) -> RollFeatures:
    """The features of every row of a drill log frame (`load_logs` with LOG_FEATURE_COLUMNS), in row order.

    Grey is the table's call as logged (`expected`); the near tie is worked
    out from the dice (or, for `closest`, the positions) of the row.
    """
    rows = len(drills)
    commands = drills["command"].cat.codes.to_numpy(dtype=np.int8)  # categories are the commands in die order
    per_color = drills["dice_per_color"].to_numpy(dtype=np.int64)
    # Each color's dice are one [...] group of the cell: counting them counts the colors.
    dice_cells = drills["dice"]
    color_count = dice_cells.str.count(r"\[").to_numpy(dtype=np.int64)
    near_tie = np.zeros(rows, dtype=bool)
    grey = (drills["expected"] == "grey").to_numpy(dtype=bool)
    group_keys = pd.DataFrame({"command": commands, "colors": color_count, "per_color": per_color})
    for (command_code, colors, dice_per_color), index in group_keys.groupby(
            ["command", "colors", "per_color"], sort=False).indices.items():
        command = ALL_COMMANDS[command_code]
        if not command.depends_on_values:
            landed, tolerance = _positions(drills["positions"].iloc[index], colors * dice_per_color)
            found = roll_features(command, colors, dice_per_color, positions=landed, tolerance=tolerance)
        else:
            values = _numbers(dice_cells.iloc[index], colors * dice_per_color).astype(np.uint8)
            # values: (rows, colors * dice_per_color) -> (colors, dice_per_color, rows), the rules' layout
            found = roll_features(command, colors, dice_per_color,
                                  dice=np.ascontiguousarray(values.T.reshape(colors, dice_per_color, -1)))
        near_tie[index] = found.near_tie
    return RollFeatures(command=commands, dice=(color_count * per_color).astype(np.int16), near_tie=near_tie,
                        grey=grey, command_first=drills["command_first"].to_numpy(dtype=bool))


def _numbers(cells: pd.Series, per_row: int) -> np.ndarray:
    """Every number of some JSON cells holding `per_row` numbers each, in order: (rows, per_row) float64.
    The keys and brackets are dropped, the numbers read in one pass."""
    joined = ", ".join(cells.str.replace(r'"[^"]*"\s*:\s*|[{}\[\]]', "", regex=True).tolist())
    numbers = np.fromstring(joined, sep=",", dtype=np.float64) if joined else np.zeros(0)
    return numbers.reshape(len(cells), per_row)


_POSITIONS_KEYS = rf'"command": \[[^\]]*\], (?:"{COLOR_NAME}": \[[^"]*\], )+"scatter_mm": [^,]+, ' \
                  r'"die_mm": [^,]+, "tolerance": [^,}]+'


def _positions(cells: pd.Series, dice: int) -> tuple[np.ndarray, np.ndarray]:
    """The throws of some positions cells: ((1 + dice, 2, rows) float32 mm, tolerance: (rows,) float32).

    Cells as the writer writes them (command die, each color's dice, then the
    table's fields) are read in one pass; any other order is parsed as JSON.
    """
    text = cells.astype(str)
    as_written = text.str.fullmatch(r"\{" + _POSITIONS_KEYS + r"\}").to_numpy(dtype=bool)
    numbers = np.empty((len(text), 2 * (1 + dice) + 3))
    if as_written.any():
        numbers[as_written] = _numbers(text[as_written], numbers.shape[1])
    for row in np.flatnonzero(~as_written):
        cell = json.loads(text.iloc[row])
        points = [cell["command"]] + [point for key, value in cell.items()
                                      if key not in ("command", "scatter_mm", "die_mm", "tolerance")
                                      for point in value]
        numbers[row] = [*np.ravel(points), cell["scatter_mm"], cell["die_mm"], cell["tolerance"]]
    landed = numbers[:, : 2 * (1 + dice)].reshape(len(text), 1 + dice, 2).transpose(1, 2, 0)
    return np.ascontiguousarray(landed, dtype=np.float32), numbers[:, -1].astype(np.float32)
