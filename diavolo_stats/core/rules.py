"""How a roll is resolved: each color's figure for the command, then the winner or grey.

`resolve` explains a single roll (the answer, the figures and a one-line why, for a drill or a person);
`answers` resolves millions of rolls at once as numpy arrays. Both share one implementation. For `closest`
the answer is the table's call (within the perception tolerance it is grey), while judging a player also
accepts the strictly nearest color (`accepted_answers`): docs/architecture.md, "The table model".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from diavolo_stats.core.table_model import nearest_distances, positions_from_mapping, positions_to_mapping, throw
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.errors import InputError

GREY_CODE = -1
"""In answer arrays, a color is its index in `Variant.colors`; a tie is GREY_CODE."""

CLOSEST_JUDGING = "closest ties: the table's call; drill and games also accept the nearest color"
"""One line (80 columns) printed with `closest` tie figures: they count the table's call (colors within the
tolerance tie), while judging a player also accepts the strictly nearest color (`accepted_answers`)."""


def criterion_scales(variant: Variant, command: Command) -> list[tuple[int, int]]:
    """Per criterion of the command's chain, the smallest and largest figure any color can show."""
    scales = []
    for criterion in command.chain:
        bounds = [criterion.figure.bounds(count, faces) for count, faces in zip(variant.counts, variant.color_faces)]
        scales.append((min(low for low, _ in bounds), max(high for _, high in bounds)))
    return scales


def color_scores(variant: Variant, command: Command, values: np.ndarray) -> np.ndarray:
    """One color's score for a value command: (rounds,) int, higher better (see `_chain_score`)."""
    # values: (dice, rounds) uint8, the color's face values
    return _chain_score(variant, command, values)


def scores(variant: Variant, command: Command, dice: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """Each color's score for a value command: (colors, rounds) int, higher better (see `_chain_score`)."""
    # dice: (colors, dice_per_color, rounds) uint8, every color at once; or per color (count, rounds) uint8
    if isinstance(dice, np.ndarray) and dice.ndim == 3:
        return _chain_score(variant, command, dice)
    return np.stack([_chain_score(variant, command, np.asarray(values)) for values in dice])


def _chain_score(variant: Variant, command: Command, values: np.ndarray) -> np.ndarray:
    """The whole chain of a command in one number per roll, higher better, of the shape of one figure.

    Each criterion's figure, turned so that the better end is larger and
    shifted to start at 0, is a digit in a mixed radix whose digits are the
    criteria in order, so comparing scores compares the chains criterion by
    criterion. The first digit needs no shift (it moves every color alike), so
    one criterion is its figure, or minus it: int16, as fast as figures are.
    """
    # values: (dice, rounds) or (colors, dice, rounds) uint8 -> (rounds,) or (colors, rounds)
    first = command.chain[0]
    figure = first.figure.of(values)
    if len(command.chain) == 1:
        return figure if first.highest else -figure
    scales = criterion_scales(variant, command)
    widths = [high - low + 1 for low, high in scales]
    # The first digit is not shifted: it spans up to its largest absolute figure.
    spans = [max(abs(scales[0][0]), abs(scales[0][1])) + 1, *widths[1:]]
    dtype = np.int32 if np.prod(spans, dtype=np.float64) < 2**30 else np.int64
    score = (figure if first.highest else -figure).astype(dtype)
    for criterion, (low, high), width in zip(command.chain[1:], scales[1:], widths[1:]):
        figure = criterion.figure.of(values).astype(dtype)
        score *= width
        score += figure - low if criterion.highest else high - figure
    return score


def figures(command: Command, dice: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """Each color's figure of the command's first criterion, as a person reads it: (colors, rounds) int16
    (a total, a count, a die; not turned for the direction: see `scores` for what decides)."""
    # dice: (colors, dice_per_color, rounds) uint8, or per color (count, rounds) uint8
    return np.stack([command.figure.of(np.asarray(values)) for values in dice])


def sharing_best(command: Command, figures: np.ndarray, tolerance: float = 0.0) -> np.ndarray:
    """Which colors share the winning figure of each round: (colors, rounds) bool.

    figures: for a value command its scores (`scores`, higher better); for `distance` (closest) each color's
    nearest distance, colors within `(1 + tolerance)` times the smallest sharing it.
    """
    # figures: (colors, rounds) int or float32
    if not command.depends_on_values:
        return figures <= figures.min(axis=0) * (1 + tolerance)
    return figures == figures.max(axis=0)


def winners(command: Command, figures: np.ndarray, tolerance: float = 0.0) -> np.ndarray:
    """The answer code of each round: the winning color's index, or GREY_CODE when
    two or more colors share the winning figure (see `sharing_best`)."""
    # figures: (colors, rounds) int or float32 -> (rounds,) int8
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
    # figures: (colors, rounds) int or float32 -> (2, rounds) int8
    table_call = winners(command, figures, tolerance)
    if command.depends_on_values or tolerance == 0:
        return np.stack([table_call, table_call])
    # A color alone within the tolerance is alone without it: row 1 differs only where row 0 is grey.
    return np.stack([table_call, winners(command, figures)])


def answers(variant: Variant, command: Command, dice: np.ndarray | Sequence[np.ndarray] | None = None,
            positions: np.ndarray | None = None) -> np.ndarray:
    """Answer codes for many rolls: (rounds,) int8, a color index or GREY_CODE.

    Value commands need `dice`: one (colors, dice_per_color, rounds) array when every color rolls as many dice,
    or one (count, rounds) array per color; `closest` needs `positions` (from `table.throw`).
    """
    # dice: (colors, dice_per_color, rounds) uint8 or per color (count, rounds) uint8;
    # positions: (1 + dice, 2, rounds) mm
    if not command.depends_on_values:
        distances = nearest_distances(positions, len(variant.colors), variant.counts)
        return winners(command, distances, variant.table.tolerance)
    return winners(command, scores(variant, command, dice))


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

    answer: a color name or "grey", the table's call. figures: each color's figure (a count or total, or a distance
    in mm for `closest`). reason: one line such as `red: total 13 > 12 white, 11 black`. accepted: the answers
    counted right, `answer` first (`accepted_answers`).
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
    die = variant.die
    commands = rng.integers(len(die), size=count)
    values = roll_values(variant, count, rng)
    landed = throw(variant.table, 1 + variant.dice_count, count, rng)  # (dice, 2, count) mm
    rows = [color.T.tolist() for color in values]  # per color, (count, dice) values
    return [Roll(command=die[int(command)],
                 dice={color: tuple(row[index]) for color, row in zip(variant.colors, rows)},
                 positions=positions_to_mapping(variant.colors, variant.counts, landed[:, :, index]))
            for index, command in enumerate(commands)]


def roll_values(variant: Variant, rounds: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Every color's dice for `rounds` rounds: per color a (count, rounds) uint8 array of face values."""
    if variant.standard_dice:
        # values: (rounds, colors, dice_per_color), one draw for all colors
        values = rng.integers(1, variant.sides + 1, size=(rounds, len(variant.colors), variant.dice_per_color))
        return [values[:, color, :].T.astype(np.uint8) for color in range(len(variant.colors))]
    rolled = []
    for count, faces in zip(variant.counts, variant.color_faces):
        # Faces are drawn by index: repeated values are as likely as their faces are many.
        index = rng.integers(0, len(faces), size=(count, rounds))
        rolled.append(np.asarray(faces, dtype=np.uint8)[index])
    return rolled


def resolve(variant: Variant, command: Command, dice: Mapping[str, Sequence[int]],
            positions: Mapping | None = None) -> Resolution:
    """Resolve one roll: the answer, each color's figure and a one-line reason.

    dice: values per color, e.g. {"black": [2, 3, 6], ...}. positions: the
    throw as given by `Roll.positions`, needed for `closest` only.
    """
    values = _dice_arrays(variant, dice)
    tolerance = variant.table.tolerance
    if not command.depends_on_values:
        if positions is None:
            raise InputError("the closest command needs where the dice lie", field="positions")
        landed = positions_from_mapping(variant.colors, variant.counts, positions)
        color_figures = nearest_distances(landed[:, :, None], len(variant.colors), variant.counts)
        shown: dict[str, Any] = {c: round(float(f), 1) for c, f in zip(variant.colors, color_figures[:, 0])}
        chains = {c: (shown[c],) for c in variant.colors}
    else:
        color_figures = scores(variant, command, values)
        chains = {c: tuple(int(criterion.figure.of(v)[0]) for criterion in command.chain)
                  for c, v in zip(variant.colors, values)}
        shown = {c: chain[0] for c, chain in chains.items()}
    # The exact figures decide; `shown` (rounded to 0.1 mm) only explains.
    tied = [c for c, shares in zip(variant.colors, sharing_best(command, color_figures, tolerance)[:, 0]) if shares]
    names = (*variant.colors, GREY)  # GREY_CODE (-1) indexes the last
    accepted = tuple(dict.fromkeys(names[code] for code in accepted_answers(command, color_figures, tolerance)[:, 0]))
    # Best first: the highest score, or the shortest distance.
    better = -color_figures[:, 0] if command.depends_on_values else color_figures[:, 0]
    order = [variant.colors[i] for i in sorted(range(len(variant.colors)),
                                                key=lambda i: (variant.colors[i] not in tied, better[i]))]
    return Resolution(command, accepted[0], shown, _reason(command, tied, order, chains, tolerance), accepted)


def _dice_arrays(variant: Variant, dice: Mapping[str, Sequence[int]]) -> list[np.ndarray]:
    """Per color, its dice as a (count, 1) uint8 array; InputError for a roll the variant's dice cannot show."""
    problem = dice_problem(variant, dice)
    if problem:
        raise InputError(problem, field="dice")
    return [np.array(list(dice[color]), dtype=np.uint8)[:, None] for color in variant.colors]


def dice_problem(variant: Variant, dice: Mapping[str, Sequence[int]]) -> str | None:
    """What is wrong with `dice` (values per color) as a roll of the variant's dice, or None: every color of the
    variant, as many values as it rolls dice, each a face its dice show (`Variant.counts`, `color_faces`)."""
    if set(dice) != set(variant.colors):
        return f"need exactly the colors {', '.join(variant.colors)}, got {', '.join(map(str, dice))}"
    for color, count, faces in zip(variant.colors, variant.counts, variant.color_faces):
        row = list(dice[color]) if isinstance(dice[color], (list, tuple)) else dice[color]
        if not isinstance(row, list) or len(row) != count or not all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v in faces for v in row):
            shows = (f"from 1 to {len(faces)}" if faces == tuple(range(1, len(faces) + 1))
                     else f"among {', '.join(map(str, sorted(set(faces))))}")
            return f"{color} needs {count} values {shows}, got {row}"
    return None


def _reason(command: Command, tied: list[str], order: list[str], chains: dict[str, tuple], tolerance: float) -> str:
    """The one-line why, each figure in its own words (`DiceFigure.words`): `black: 2 sixes > 1 red, 1 white`,
    `grey: black and white tie at highest die 6 > 5 red`; a tie-break in turn, among the colors still tied:
    `black and red tie at highest die 6 > 4 white; then red: total 12 > 8 black`.

    tied: the colors sharing the winning chain, as the rules decided it; order: every color, best first; both
    for closest, whose tolerance decides. A value command's steps are worked out from `chains` (each color's
    figure of each criterion, the variant's colors in order): the mixed-radix score compares them so too.
    """
    if not command.depends_on_values:
        figure = command.figure
        rest = ", ".join(f"{figure.amount(chains[c][0])} {c}" for c in order[len(tied):])
        if len(tied) == 1:
            head = f"{tied[0]}: {figure.words(chains[tied[0]][0])}"
        else:
            head = ("grey: " + " ~ ".join(f"{c} {figure.amount(chains[c][0])}" for c in tied)
                    + f" (within {tolerance:.0%})")
        return f"{head} < {rest}" if rest else head
    steps, contenders = [], list(chains)  # the variant's colors, in order
    for index, criterion in enumerate(command.chain):
        values = {c: chains[c][index] for c in contenders}
        best = (max if criterion.highest else min)(values.values())
        sharing = [c for c in contenders if values[c] == best]
        others = sorted((c for c in contenders if values[c] != best), key=lambda c: values[c],
                        reverse=criterion.highest)
        words = criterion.figure.words(best)
        if len(sharing) == 1:
            step = f"{sharing[0]}: {words}"
        elif index and len(sharing) == len(contenders):
            step = f"still tied at {words}"
        else:
            step = f"{_names(sharing)} tie at {words}"
        if others:
            step += f" {'>' if criterion.highest else '<'} " + ", ".join(
                f"{criterion.figure.amount(values[c])} {c}" for c in others)
        steps.append(step)
        contenders = sharing
        if len(sharing) == 1:
            break
    return ("" if len(contenders) == 1 else "grey: ") + "; then ".join(steps)


def _names(colors: list[str]) -> str:
    """`black and red`, `black, red and white`."""
    return colors[0] if len(colors) == 1 else ", ".join(colors[:-1]) + " and " + colors[-1]
