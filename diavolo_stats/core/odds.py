"""Exact odds of each answer, tie (grey) included, for the value commands of a variant.

The colors are independent and identically distributed, so a command's odds
follow from one color's distribution of the command's figure: a color is the
answer alone when its figure is v and every other color's is strictly worse,
so P(color c alone) = sum_v n(v) * L(v)^(colors - 1) / (sides^dice)^colors,
where n(v) counts one color's outcomes with figure v and L(v) those strictly
worse than v. Everything else is a tie. Counts are Python integers (exact for
any size) and become `fractions.Fraction` at the end; no joint roll is ever
enumerated, so the standard game takes well under a millisecond.

`brute_force_odds` enumerates every joint roll through `rules.answers`, the
same resolver the simulator uses, to check the fast method on small variants.

`closest` depends on where the dice land, not on their values: it has no
exact value here (see `diavolo simulate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from diavolo_stats.core.rules import SMALLEST_WINS, answers, count_answers
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.results import TextResult, render_fitted, wrap

BRUTE_FORCE_MAX_ROLLS = 2**25
"""Largest number of joint rolls `brute_force_odds` enumerates (the standard game has `6**9`, about 10 million)."""

# Rows resolved at once by brute force: a few MB of dice and figures per chunk, however large the variant.
_BRUTE_FORCE_CHUNK_ROWS = 1 << 18

CLOSEST_NOTE = ("closest depends on where the dice land, not on their values: it has no exact value; "
                "estimate it with `diavolo simulate`")


@dataclass(frozen=True)
class ExactOdds(TextResult):
    """Exact probabilities of each answer for the value commands of `variant`.

    tie_probability: per value command, the probability that the answer is grey.
    answer_probability: per value command, each color name and "grey" mapped to
    the probability that it is the answer; these sum to 1.
    `closest` has no entry: it depends on where the dice land (see `closest_note`).
    """

    variant: Variant
    tie_probability: dict[Command, Fraction]
    answer_probability: dict[Command, dict[str, Fraction]]

    def __post_init__(self) -> None:
        expected = set(self.variant.value_commands)
        if set(self.tie_probability) != expected or set(self.answer_probability) != expected:
            raise ValueError(f"tie_probability, answer_probability: need exactly the value commands "
                             f"{', '.join(c.value for c in self.variant.value_commands) or '(none)'}")
        names = {*self.variant.colors, GREY}
        for command, by_answer in self.answer_probability.items():
            if set(by_answer) != names or sum(by_answer.values()) != 1:
                raise ValueError(f"answer_probability: {command} needs every color and grey, summing to 1")
            if by_answer[GREY] != self.tie_probability[command]:
                raise ValueError(f"answer_probability: {command} grey differs from its tie_probability")

    @property
    def closest_note(self) -> str | None:
        """Why `closest` has no exact value, when it is among the variant's commands; else None."""
        return CLOSEST_NOTE if Command.CLOSEST in self.variant.commands else None

    @property
    def columns(self) -> tuple[str, ...]:
        """Columns of `rows()`: command, tie_fraction, tie_probability, p_<color> per color, note."""
        return ("command", "tie_fraction", "tie_probability", *(f"p_{c}" for c in self.variant.colors), "note")

    def rows(self) -> list[dict[str, Any]]:
        """One row per command of the variant: for a value command the tie as "p/q" and as a float and each
        color's probability (float); for `closest` only the note saying why it has no exact value."""
        rows = [
            {"command": command.value,
             "tie_fraction": fraction_text(tie),
             "tie_probability": float(tie),
             **{f"p_{c}": float(self.answer_probability[command][c]) for c in self.variant.colors}}
            for command, tie in self.tie_probability.items()
        ]
        if self.closest_note is not None:
            rows.append({"command": Command.CLOSEST.value, "note": self.closest_note})
        return rows

    def text(self) -> str:
        """The variant, a table of the value commands' odds, and the note on `closest`."""
        lines = [wrap(f"Exact odds: {self.variant.describe()}", "  ")]
        value_rows = [row for row in self.rows() if "note" not in row]
        if value_rows:
            lines.append(render_fitted(value_rows, self.columns[:-1], keep=3))
        if self.closest_note is not None:
            lines.append(wrap(self.closest_note))
        return "\n".join(lines)

    def document(self) -> dict[str, Any]:
        """The JSON document `diavolo odds` prints as json (described in the manual, docs/reference/contracts.md)."""
        document: dict[str, Any] = {
            "variant": self.variant.as_dict(),
            "commands": {
                command.value: {
                    "tie_probability": float(tie),
                    "tie_fraction": fraction_text(tie),
                    "answer_probability": {a: float(p) for a, p in self.answer_probability[command].items()},
                    "answer_fraction": {a: fraction_text(p) for a, p in self.answer_probability[command].items()},
                }
                for command, tie in self.tie_probability.items()
            },
        }
        if self.closest_note is not None:
            document["closest"] = {"exact": None, "note": self.closest_note}
        return document


def fraction_text(value: Fraction) -> str:
    """`value` as "p/q" in lowest terms, always with a denominator ("0/1", "1/1")."""
    return f"{value.numerator}/{value.denominator}"


def exact_odds(variant: Variant) -> ExactOdds:
    """Exact probabilities (Fractions) of each answer for every value command of `variant`.

    Works from one color's distribution of the figure; never enumerates joint rolls.
    """
    colors = len(variant.colors)
    tie_probability: dict[Command, Fraction] = {}
    answer_probability: dict[Command, dict[str, Fraction]] = {}
    for command in variant.value_commands:
        alone = _sole_win_probabilities(command, variant.dice_per_color, variant.sides, colors)
        tie = 1 - sum(alone)
        tie_probability[command] = tie
        answer_probability[command] = {**dict(zip(variant.colors, alone)), GREY: tie}
    return ExactOdds(variant, tie_probability, answer_probability)


@lru_cache(maxsize=1024)
def _sole_win_probabilities(command: Command, dice_per_color: int, sides: int,
                            colors: int) -> tuple[Fraction, ...]:
    """Per color, the probability that it alone has the best figure for `command`."""
    counts = figure_counts(command, dice_per_color, sides)
    if command in SMALLEST_WINS:
        # Order every distribution from worst to best: for the lowest total, larger is worse.
        counts = counts[::-1]
    outcomes = sides**dice_per_color
    wins = _sole_win_counts([counts] * colors)
    return tuple(Fraction(w, outcomes**colors) for w in wins)


def _sole_win_counts(worst_to_best: Sequence[Sequence[int]]) -> list[int]:
    """Per color, the joint outcomes in which it alone has the best figure.

    Each color's counts list its outcomes per figure value, from the worst value
    to the best, over one common list of values. Colors are independent, so the
    count for color c is sum_v n_c(v) * prod over the others of L_d(v), with
    L_d(v) the outcomes of color d strictly worse than v.
    """
    below = []
    for counts in worst_to_best:
        strictly_worse, running = [], 0
        for count in counts:
            strictly_worse.append(running)
            running += count
        below.append(strictly_worse)
    wins = []
    for c, counts in enumerate(worst_to_best):
        others = [below[d] for d in range(len(worst_to_best)) if d != c]
        total = 0
        for v, count in enumerate(counts):
            if count:
                product = count
                for strictly_worse in others:
                    product *= strictly_worse[v]
                total += product
        wins.append(total)
    return wins


def figure_counts(command: Command, dice_per_color: int, sides: int) -> list[int]:
    """How many of one color's `sides**dice_per_color` outcomes give each figure, in increasing order.

    Index 0 is the smallest possible figure: a total of dice_per_color, a
    spread of 0, no odd die, a highest die of 1.
    """
    if command in (Command.HIGHEST_TOTAL, Command.LOWEST_TOTAL):
        return _total_counts(dice_per_color, sides)
    if command is Command.HIGHEST_DIE:
        # The highest die is at most m in m**dice of the outcomes.
        return [m**dice_per_color - (m - 1) ** dice_per_color for m in range(1, sides + 1)]
    if command is Command.LARGEST_SPREAD:
        # Dice all within [a, a + w]: (w + 1)**dice outcomes; by inclusion-exclusion,
        # exactly min a and max a + w: (w+1)**d - 2 w**d + (w-1)**d, for sides - w values of a.
        d = dice_per_color
        return [sides] + [(sides - w) * ((w + 1) ** d - 2 * w**d + (w - 1) ** d) for w in range(1, sides)]
    if command is Command.MOST_ODD:
        odd_faces, even_faces = (sides + 1) // 2, sides // 2
        return [comb(dice_per_color, k) * odd_faces**k * even_faces ** (dice_per_color - k)
                for k in range(dice_per_color + 1)]
    raise ValueError(f"{command} is decided by positions, not values; it has no exact odds")


def _total_counts(dice_per_color: int, sides: int) -> list[int]:
    """Outcomes per total, totals dice_per_color..dice_per_color * sides."""
    # One more die convolves with a run of `sides` ones: a sliding-window sum over a prefix sum.
    counts = [1] * sides
    for _ in range(dice_per_color - 1):
        prefix = [0]
        for count in counts:
            prefix.append(prefix[-1] + count)
        width = len(counts) + sides - 1
        counts = [prefix[min(k + 1, len(counts))] - prefix[max(k + 1 - sides, 0)] for k in range(width)]
    return counts


def brute_force_odds(variant: Variant) -> ExactOdds:
    """Exact odds by resolving every joint roll with `rules.answers`, in chunks.

    For checking `exact_odds` on small variants: raises InputError when the
    variant has more than 2**25 joint rolls (sides**(colors * dice_per_color)).
    """
    colors, dice = len(variant.colors), variant.dice_per_color
    die_count = colors * dice
    total = variant.sides**die_count
    if total > BRUTE_FORCE_MAX_ROLLS:
        raise InputError(f"brute force needs sides**(colors*dice_per_color) = {variant.sides}**{die_count} "
                         f"= {total} rolls; at most 2**25 allowed", field="variant")
    # Each chunk fixes the leading dice and holds every combination of the trailing ones.
    trailing = 1
    while trailing < die_count and variant.sides ** (trailing + 1) <= _BRUTE_FORCE_CHUNK_ROWS:
        trailing += 1
    leading = die_count - trailing
    # grid: (trailing, sides**trailing) uint8, values 1..sides
    grid = np.indices((variant.sides,) * trailing, dtype=np.uint8).reshape(trailing, -1) + 1
    rows = grid.shape[1]
    flat = np.empty((die_count, rows), dtype=np.uint8)
    flat[leading:] = grid
    # dice: (colors, dice_per_color, rows) uint8, a view of flat (color-major, as rules.answers takes it)
    dice_view = flat.reshape(colors, dice, rows)
    tallies = {command: np.zeros(colors + 1, dtype=np.int64) for command in variant.value_commands}
    for prefix in np.ndindex(*(variant.sides,) * leading):
        flat[:leading] = np.array(prefix, dtype=np.uint8)[:, None] + 1
        for command in variant.value_commands:
            tallies[command] += count_answers(answers(variant, command, dice_view), colors)
    tie_probability, answer_probability = {}, {}
    for command, tally in tallies.items():
        by_answer = {color: Fraction(int(n), total) for color, n in zip(variant.colors, tally[:colors])}
        by_answer[GREY] = Fraction(int(tally[colors]), total)
        tie_probability[command] = by_answer[GREY]
        answer_probability[command] = by_answer
    return ExactOdds(variant, tie_probability, answer_probability)
