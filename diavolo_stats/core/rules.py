"""How a roll is resolved: each color's figure for the command, then the winner or grey.

Two entry points share one implementation: `resolve` explains a single roll
(what a drill or a person needs: the answer, the figures and a one-line why),
`answers` resolves millions of rolls at once as numpy arrays.

The answer is the table's call: for `closest`, colors whose nearest dice lie
within the perception tolerance tie (grey), which is how often a table will
call it a tie, and what tie frequencies count. Judging a player is kinder:
the rulebook says the nearest color wins, so on such a roll the strictly
nearest color is right too (`accepted_answers`): the drill and the game
simulator accept both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from diavolo_stats.core.table_model import nearest_distances, positions_from_mapping, positions_to_mapping, throw
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.errors import InputError

GREY_CODE = -1
"""In answer arrays, a color is its index in `Variant.colors`; a tie is GREY_CODE."""

# Commands won by the smallest figure; all others by the largest.
SMALLEST_WINS = frozenset({Command.LOWEST_TOTAL, Command.CLOSEST})

CLOSEST_JUDGING = "closest ties: the table's call; drill and games also accept the nearest color"
"""One line (80 columns) printed with `closest` tie figures: they count the table's call (colors within the
tolerance tie), while judging a player also accepts the strictly nearest color (`accepted_answers`)."""

def figures(command: Command, dice: np.ndarray) -> np.ndarray:
    """Each color's figure for a value command: (colors, rounds) int16.

    Sum of the dice for the totals, highest minus lowest for the spread, the
    count of odd dice for most-odd, the highest die for highest-die.
    """
    # dice: (colors, dice_per_color, rounds) uint8, values 1..sides. Color-major so that
    # every reduction runs over contiguous rows, which numpy vectorizes.
    if command in (Command.HIGHEST_TOTAL, Command.LOWEST_TOTAL):
        return dice.sum(axis=1, dtype=np.int16)
    if command is Command.LARGEST_SPREAD:
        return dice.max(axis=1).astype(np.int16) - dice.min(axis=1)
    if command is Command.MOST_ODD:
        return (dice & 1).sum(axis=1, dtype=np.int16)
    if command is Command.HIGHEST_DIE:
        return dice.max(axis=1).astype(np.int16)
    raise ValueError(f"{command} is decided by positions, not values; use nearest_distances")


def sharing_best(command: Command, figures: np.ndarray, tolerance: float = 0.0) -> np.ndarray:
    """Which colors share the winning figure of each round: (colors, rounds) bool.

    For `closest`, colors whose distance is within `(1 + tolerance)` times the
    smallest; for value commands, colors with exactly the best figure.
    """
    # figures: (colors, rounds) int16 or float32
    if command in SMALLEST_WINS:
        best = figures.min(axis=0)
        return figures <= best * (1 + tolerance) if command is Command.CLOSEST else figures == best
    return figures == figures.max(axis=0)


def winners(command: Command, figures: np.ndarray, tolerance: float = 0.0) -> np.ndarray:
    """The answer code of each round: the winning color's index, or GREY_CODE when
    two or more colors share the winning figure (see `sharing_best`)."""
    # figures: (colors, rounds) int16 or float32 -> (rounds,) int8
    sharing = sharing_best(command, figures, tolerance)
    sharers = sharing.sum(axis=0, dtype=np.int8)
    # Where exactly one color shares the best figure, the sum of index x sharing is its index.
    winner = np.zeros(sharing.shape[1:], dtype=np.int8)
    for color in range(1, len(sharing)):
        winner += sharing[color] * np.int8(color)
    # winner where one color is best alone, else GREY_CODE (-1), in plain int8 arithmetic:
    # several times faster than np.where with a mask.
    alone = (sharers == 1).view(np.int8)
    winner += 1
    winner *= alone
    winner -= 1
    return winner


def accepted_answers(command: Command, figures: np.ndarray, tolerance: float = 0.0) -> np.ndarray:
    """The answers counted right for each round: (2, rounds) int8 answer codes.

    Row 0 is the table's answer (`winners` with the tolerance); row 1 the
    rulebook's (`winners` without it: the strictly best figure). They differ
    only for a `closest` roll that is grey by the tolerance alone; then row 1
    is the strictly nearest color, and both answers are right.
    """
    # figures: (colors, rounds) int16 or float32 -> (2, rounds) int8
    table_call = winners(command, figures, tolerance)
    if command is not Command.CLOSEST or tolerance == 0:
        return np.stack([table_call, table_call])
    # A color alone within the tolerance is alone without it: row 1 differs only where row 0 is grey.
    return np.stack([table_call, winners(command, figures)])


def answers(variant: Variant, command: Command, dice: np.ndarray | None = None,
            positions: np.ndarray | None = None) -> np.ndarray:
    """Answer codes for many rolls: (rounds,) int8, a color index or GREY_CODE.

    Value commands need `dice` (colors, dice_per_color, rounds); `closest`
    needs `positions` (from `table.throw`).
    """
    # dice: (colors, dice_per_color, rounds) uint8; positions: (1 + colors * dice_per_color, 2, rounds) mm
    if command is Command.CLOSEST:
        distances = nearest_distances(positions, len(variant.colors), variant.dice_per_color)
        return winners(command, distances, variant.table.tolerance)
    return winners(command, figures(command, dice))


def count_answers(codes: np.ndarray, colors: int) -> np.ndarray:
    """How often each answer came up: (colors + 1,) int64, each color in order, then grey."""
    # codes: (rounds,) int8, a color index or GREY_CODE
    # One compare-and-count pass per answer beats a histogram on so few bins.
    return np.array([np.count_nonzero(codes == code) for code in (*range(colors), GREY_CODE)], dtype=np.int64)


@dataclass(frozen=True)
class Roll:
    """One round as a person sees it: the command, each color's dice, and where every die lies (mm)."""

    command: Command
    dice: dict[str, tuple[int, ...]]
    positions: dict


@dataclass(frozen=True)
class Resolution:
    """The answer to one roll, and why.

    answer: a color name or "grey", the table's call. figures: each color's
    figure (a count or total, or a distance in mm for `closest`). reason: one
    line such as `red: 13 > 12 white > 11 black`. accepted: the answers
    counted right, `answer` first (see `accepted_answers`): one, or for a
    `closest` roll grey only by the tolerance, grey and the strictly nearest
    color.
    """

    command: Command
    answer: str
    figures: dict[str, float]
    reason: str
    accepted: tuple[str, ...]


def roll(variant: Variant, rng: np.random.Generator) -> Roll:
    """Roll the command die and every colored die, and throw them on the table."""
    return roll_many(variant, 1, rng)[0]


def roll_many(variant: Variant, count: int, rng: np.random.Generator) -> list[Roll]:
    """`count` rolls drawn at once (all command dice, then all colored dice, then every throw): much faster
    than `count` calls of `roll`, though not the same rolls (the generator is read in another order)."""
    commands = rng.integers(len(variant.commands), size=count)
    # values: (count, colors, dice_per_color); landed: (dice, 2, count) mm
    values = rng.integers(1, variant.sides + 1, size=(count, len(variant.colors), variant.dice_per_color))
    landed = throw(variant.table, 1 + variant.dice_count, count, rng)
    return [Roll(command=variant.commands[int(command)],
                 dice={color: tuple(int(v) for v in row) for color, row in zip(variant.colors, rolled.tolist())},
                 positions=positions_to_mapping(variant.colors, variant.dice_per_color, landed[:, :, index]))
            for index, (command, rolled) in enumerate(zip(commands, values))]


def resolve(variant: Variant, command: Command, dice: Mapping[str, Sequence[int]],
            positions: Mapping | None = None) -> Resolution:
    """Resolve one roll: the answer, each color's figure and a one-line reason.

    dice: values per color, e.g. {"black": [2, 3, 6], ...}. positions: the
    throw as given by `Roll.positions`, needed for `closest` only.
    """
    values = _dice_array(variant, dice)
    if command is Command.CLOSEST:
        if positions is None:
            raise InputError("the closest command needs where the dice lie", field="positions")
        landed = positions_from_mapping(variant.colors, variant.dice_per_color, positions)
        color_figures = nearest_distances(landed[:, :, None], len(variant.colors), variant.dice_per_color)
        shown = {c: round(float(f), 1) for c, f in zip(variant.colors, color_figures[:, 0])}
    else:
        color_figures = figures(command, values[:, :, None])
        shown = {c: int(f) for c, f in zip(variant.colors, color_figures[:, 0])}
    # The exact figures decide; `shown` (rounded to 0.1 mm) only explains.
    tolerance = variant.table.tolerance
    tied = [c for c, shares in zip(variant.colors, sharing_best(command, color_figures, tolerance)[:, 0]) if shares]
    names = (*variant.colors, GREY)  # GREY_CODE (-1) indexes the last
    accepted = tuple(dict.fromkeys(names[code] for code in accepted_answers(command, color_figures, tolerance)[:, 0]))
    return Resolution(command, accepted[0], shown, _reason(command, tied, shown, tolerance), accepted)


def _dice_array(variant: Variant, dice: Mapping[str, Sequence[int]]) -> np.ndarray:
    if set(dice) != set(variant.colors):
        raise InputError(f"need exactly the colors {', '.join(variant.colors)}, got {', '.join(dice)}", field="dice")
    rows = []
    for color in variant.colors:
        row = list(dice[color])
        if len(row) != variant.dice_per_color or not all(
                isinstance(v, (int, np.integer)) and 1 <= v <= variant.sides for v in row):
            raise InputError(f"{color} needs {variant.dice_per_color} values "
                             f"from 1 to {variant.sides}, got {row}", field="dice")
        rows.append(row)
    return np.array(rows, dtype=np.uint8)


def _reason(command: Command, tied: list[str], shown: dict[str, float], tolerance: float) -> str:
    """`red: 13 > 12 white > 11 black`, or `grey: black = white at 6 > 5 red`.

    tied: the colors sharing the winning figure, as the rules decided it.
    """
    smallest = command in SMALLEST_WINS
    order = sorted(shown, key=lambda c: (c not in tied, shown[c] if smallest else -shown[c]))
    unit = " mm" if command is Command.CLOSEST else ""
    sign = "<" if smallest else ">"
    rest = [f"{shown[c]}{unit} {c}" for c in order[len(tied):]]
    if len(tied) == 1:
        head = f"{tied[0]}: {shown[tied[0]]}{unit}"
    elif command is Command.CLOSEST:
        head = "grey: " + " ~ ".join(f"{c} {shown[c]} mm" for c in tied) + f" (within {tolerance:.0%})"
    else:
        head = "grey: " + " = ".join(tied) + f" at {shown[tied[0]]}"
    return f" {sign} ".join([head] + rest)
