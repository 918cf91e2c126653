"""What makes a roll hard to read: the features a player's answer time and accuracy depend on.

A roll is described by its command, the colored dice in play, whether the answer is grey, whether the best
two figures are a near tie, and whether the command die was shown first. The figures are the rules' own
(`rules.figures`, `table_model.nearest_distances`), so a feature means what the table sees. What a near tie
is: docs/architecture.md, "Roll features".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from diavolo_stats.core.rules import GREY_CODE, Roll, answers, figures, winners
from diavolo_stats.core.table_model import nearest_distances, positions_from_mapping
from diavolo_stats.core.variant import ALL_COMMANDS, Command, Variant
from diavolo_stats.drill.log.roll import LoggedRolls

NEAR_TIE_RATIO = 1.25
"""For `closest`: a winner whose nearest die is at most this many times nearer than the runner-up's is a near tie."""

REFERENCE_DICE = 9
"""The dice of the box (3 colors x 3 dice): the roll every player figure is quoted on."""


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


def readable_rolls(rolls: LoggedRolls) -> np.ndarray:
    """Which logged rolls the players' models read: (rows,) bool. A built-in command (a command of a game's own
    is read as the built-in of its kind only by `skill_command`, not here), on colors that each rolled the
    row's dice per color (the features count colors x dice per color)."""
    return rolls.builtin & rolls.even


def readable_command(variant: Variant, command: Command) -> bool:
    """Whether the models read the rolls of `command` in `variant`, as `readable_rolls` reads a logged roll."""
    return command.builtin and len(set(variant.counts)) == 1


def logged_features(rolls: LoggedRolls) -> RollFeatures:
    """The features of logged rolls (`drill.log.read_rolls`), in row order; the near ties of the rolls that
    are not `readable_rolls` are not told (False).

    Grey is the table's call as logged (`expected`); the near tie is worked
    out from the dice (or, for `closest`, the positions) of the row.
    """
    near_tie = np.zeros(len(rolls), dtype=bool)
    readable = np.flatnonzero(readable_rolls(rolls))
    group_keys = pd.DataFrame({"command": rolls.command[readable], "colors": rolls.colors[readable],
                               "per_color": rolls.dice_per_color[readable]})
    for (command_code, colors, dice_per_color), index in group_keys.groupby(
            ["command", "colors", "per_color"], sort=False).indices.items():
        command, rows = ALL_COMMANDS[command_code], readable[index]
        dice = colors * dice_per_color
        if not command.depends_on_values:
            landed, tolerance = rolls.positions
            # landed: (rows, 1 + dice, 2) -> (1 + dice, 2, rows), the rules' layout
            found = roll_features(command, colors, dice_per_color, tolerance=tolerance[rows],
                                  positions=np.ascontiguousarray(landed[rows, : 1 + dice].transpose(1, 2, 0)))
        else:
            # values: (rows, colors * dice_per_color) -> (colors, dice_per_color, rows), the rules' layout
            values = rolls.values[rows, :dice]
            found = roll_features(command, colors, dice_per_color,
                                  dice=np.ascontiguousarray(values.T.reshape(colors, dice_per_color, -1)))
        near_tie[rows] = found.near_tie
    return RollFeatures(command=rolls.command, dice=rolls.dice.astype(np.int16), near_tie=near_tie,
                        grey=rolls.grey, command_first=rolls.command_first)
