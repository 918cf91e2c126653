"""Exact odds the slow, obvious way: resolve every joint roll with `rules.answers`.

For checking `odds.exact_odds` on small variants (the tests compare them to
the fraction): the same resolver the simulator uses, over every roll of
every die, in chunks of a few MB however large the variant.
"""

from __future__ import annotations

from fractions import Fraction
from math import prod

import numpy as np

from diavolo_stats.core.odds import ExactOdds
from diavolo_stats.core.rules import answers, count_answers
from diavolo_stats.core.variant import GREY, Variant
from diavolo_stats.errors import InputError

BRUTE_FORCE_MAX_ROLLS = 2**25
"""Largest number of joint rolls `brute_force_odds` enumerates (the standard game has `6**9`, about 10 million)."""

# Rows resolved at once: a few MB of dice and figures per chunk, however large the variant.
_CHUNK_ROWS = 1 << 18


def brute_force_odds(variant: Variant) -> ExactOdds:
    """Exact odds by resolving every joint roll with `rules.answers`, in chunks.

    Raises InputError when the variant has more than 2**25 joint rolls (the product over every die of its
    number of faces).
    """
    colors = len(variant.colors)
    # Every die in throw order, each with its faces: (dice,) tuples.
    die_faces = [faces for count, faces in zip(variant.counts, variant.color_faces) for _ in range(count)]
    sizes = [len(faces) for faces in die_faces]
    total = prod(sizes)
    if total > BRUTE_FORCE_MAX_ROLLS:
        raise InputError(f"brute force needs {total} rolls (every face of every die); at most 2**25 allowed",
                         field="variant")
    # Each chunk fixes the leading dice and holds every combination of the trailing ones.
    trailing = 1
    while trailing < len(sizes) and prod(sizes[-(trailing + 1):]) <= _CHUNK_ROWS:
        trailing += 1
    leading = len(sizes) - trailing
    # grid: (trailing, rows) face indices of the trailing dice
    grid = np.indices(sizes[leading:], dtype=np.uint8).reshape(trailing, -1)
    values = np.empty((len(sizes), grid.shape[1]), dtype=np.uint8)
    for die in range(leading, len(sizes)):
        values[die] = np.asarray(die_faces[die], dtype=np.uint8)[grid[die - leading]]
    bounds = np.cumsum((0, *variant.counts))
    # per color, a (count, rows) view of values
    per_color = [values[bounds[c]:bounds[c + 1]] for c in range(colors)]
    tallies = {command: np.zeros(colors + 1, dtype=np.int64) for command in variant.value_commands}
    for prefix in np.ndindex(*sizes[:leading]):
        for die, index in enumerate(prefix):
            values[die] = die_faces[die][index]
        for command in variant.value_commands:
            tallies[command] += count_answers(answers(variant, command, per_color), colors)
    tie_probability, answer_probability = {}, {}
    for command, tally in tallies.items():
        by_answer = {color: Fraction(int(n), total) for color, n in zip(variant.colors, tally[:colors])}
        by_answer[GREY] = Fraction(int(tally[colors]), total)
        tie_probability[command] = by_answer[GREY]
        answer_probability[command] = by_answer
    return ExactOdds(variant, tie_probability, answer_probability)
