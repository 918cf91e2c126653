"""The simulator's kernel: a variant's commands compiled once into lookup tables, then one block of rounds counted.

Every value command, built-in or the designer's own, is compiled the same way, so a round costs about one draw
and a table look-up however the command is defined. The three paths by size: docs/architecture.md, "The
simulation kernel".
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from diavolo_stats.core.rules import answers, color_scores, count_answers, roll_values, scores, winners
from diavolo_stats.core.table_model import throw_on_grid
from diavolo_stats.core.variant import Command, Variant

JOINT_LOOKUP_LIMIT = 1 << 24
COLOR_LOOKUP_LIMIT = 1 << 16


@dataclass(frozen=True)
class Lookups:
    """Lookup arrays for a variant's value commands (see the module docstring).

    color_scores: per command, one (outcomes,) rank table shared by every color when all colors roll the
    same dice, else one table per color.
    """

    joint_size: int = 0
    code_bits: int = 0
    joint_words: tuple = ()  # ((uint16 lookup over joint outcomes, commands packed in it), ...)
    color_outcomes: tuple[int, ...] = ()
    color_scores: Mapping[Command, np.ndarray | tuple[np.ndarray, ...]] | None = None


def tally_block(variant: Variant, rng: np.random.Generator, rounds: int) -> np.ndarray:
    """Roll `rounds` rounds and count the answers: (commands, colors + 1) int64, grey last."""
    tables = lookups(variant)
    colors = len(variant.colors)
    per_command: dict[Command, np.ndarray] = {}
    if tables.joint_words:
        joint = rng.integers(0, tables.joint_size, size=rounds, dtype=np.uint32)
        for word, commands in tables.joint_words:
            histogram = np.bincount(np.take(word, joint), minlength=1 << (tables.code_bits * len(commands)))
            per_command.update(_unpack(histogram, commands, tables.code_bits, colors))
    elif tables.color_scores:
        if len(set(tables.color_outcomes)) == 1:
            outcomes = rng.integers(0, tables.color_outcomes[0], size=(colors, rounds), dtype=np.uint16)
        else:
            outcomes = [rng.integers(0, size, size=rounds, dtype=np.uint16) for size in tables.color_outcomes]
        for command, lookup in tables.color_scores.items():
            ranks = (np.take(lookup, outcomes) if isinstance(lookup, np.ndarray)
                     else np.stack([np.take(table, drawn) for table, drawn in zip(lookup, outcomes)]))
            per_command[command] = count_answers(winners(command, ranks), colors)
    elif variant.value_commands:
        if variant.standard_dice:
            dice = rng.integers(1, variant.sides + 1, size=(colors, variant.dice_per_color, rounds), dtype=np.uint8)
        else:
            dice = roll_values(variant, rounds, rng)
        for command in variant.value_commands:
            per_command[command] = count_answers(winners(command, scores(variant, command, dice)), colors)
    positional = [c for c in variant.commands if not c.depends_on_values]
    if positional:
        positions = throw_on_grid(variant.table, 1 + variant.dice_count, rounds, rng)
        for command in positional:
            per_command[command] = count_answers(answers(variant, command, positions=positions), colors)
    return np.array([per_command[c] for c in variant.commands], dtype=np.int64)


def _unpack(histogram: np.ndarray, commands: tuple[Command, ...], bits: int,
            colors: int) -> dict[Command, np.ndarray]:
    """Split a histogram of packed answer words into each command's counts."""
    # histogram: (2 ** (bits * commands),) int64
    words = np.arange(len(histogram))
    mask = (1 << bits) - 1
    # Codes above `colors` never occur: their bins hold zero and are cut off.
    return {command: np.roll(np.bincount((words >> (bits * i)) & mask, weights=histogram,
                                         minlength=1 << bits)[: colors + 1].astype(np.int64), -1)
            for i, command in enumerate(commands)}


def _dense_ranks(per_color: list[np.ndarray]) -> list[np.ndarray]:
    """The scores ranked 0, 1, ... across every color, in the narrowest dtype: comparisons on bytes run twice as
    wide, and equal scores keep equal ranks, so the answers are unchanged."""
    _, ranks = np.unique(np.concatenate(per_color), return_inverse=True)
    dtype = np.uint8 if ranks.max(initial=0) < 256 else np.uint16 if ranks.max() < 1 << 16 else np.int64
    ranks = ranks.astype(dtype)
    bounds = np.cumsum([0, *map(len, per_color)])
    return [ranks[bounds[c]:bounds[c + 1]] for c in range(len(per_color))]


def _color_outcomes(count: int, faces: tuple[int, ...]) -> np.ndarray:
    """Every roll of one color's dice, in base-len(faces) order, first die most significant: (count, outcomes)
    uint8 face values."""
    index = np.indices((len(faces),) * count, dtype=np.uint8).reshape(count, -1)
    return np.asarray(faces, dtype=np.uint8)[index]


@functools.lru_cache(maxsize=8)
def lookups(variant: Variant) -> Lookups:
    """The variant's value commands compiled to lookup tables, built once per variant (and shared with forked
    workers)."""
    commands = variant.value_commands
    sizes = tuple(len(faces) ** count for count, faces in zip(variant.counts, variant.color_faces))
    if not commands or max(sizes) > COLOR_LOOKUP_LIMIT:
        return Lookups()
    shared = len(set(zip(variant.counts, variant.color_faces))) == 1
    outcomes = [_color_outcomes(count, faces) for count, faces in zip(variant.counts, variant.color_faces)]
    color_tables = {}
    for command in commands:
        ranked = _dense_ranks([color_scores(variant, command, rolled) for rolled in outcomes])
        color_tables[command] = ranked[0] if shared else tuple(ranked)
    joint_size = int(np.prod(sizes, dtype=np.int64))
    if joint_size > JOINT_LOOKUP_LIMIT:
        # uint16 even for small ranges: numpy draws bounded uint16 several times faster than uint8.
        return Lookups(color_outcomes=sizes, color_scores=color_tables)
    # Answer code + 1 (0 = grey) of every joint outcome, packed a few commands to a 16-bit word
    # so that one histogram of at most 4096 bins counts them all.
    colors = len(variant.colors)
    bits = colors.bit_length()
    per_word = max(1, 12 // bits)
    words = []
    for start in range(0, len(commands), per_word):
        packed = tuple(commands[start:start + per_word])
        word = np.zeros(joint_size, dtype=np.uint16)
        for i, command in enumerate(packed):
            tables = color_tables[command]
            per_color = [tables] * colors if isinstance(tables, np.ndarray) else list(tables)
            word |= _joint_codes(command, per_color) << np.uint16(bits * i)
        words.append((word, packed))
    return Lookups(joint_size=joint_size, code_bits=bits, joint_words=tuple(words))


def _joint_codes(command: Command, per_color: list[np.ndarray]) -> np.ndarray:
    """Answer code + 1 (0 = grey) of every joint outcome: (prod of outcomes,) uint16.

    Joint outcome j = o_0 * (K_1 ... K_(C-1)) + ... + o_(C-1), K_c the outcomes of
    color c. Built one outcome of the first color at a time, so the temporaries stay small.
    """
    # per_color: per color, (outcomes,) rank of each of its outcomes
    rest = tuple(len(table) for table in per_color[1:])

    # The other colors' ranks over their joint outcomes: (colors - 1, prod(rest)).
    def along(color: int) -> np.ndarray:
        shape = [rest[axis] if axis == color else 1 for axis in range(len(rest))]
        return np.broadcast_to(per_color[color + 1].reshape(shape), rest).reshape(-1)

    others = np.stack([along(color) for color in range(len(rest))])
    first = per_color[0]
    codes = np.empty((len(first), others.shape[1]), dtype=np.uint16)
    ranks_now = np.empty((len(per_color), others.shape[1]), dtype=np.result_type(*per_color))
    ranks_now[1:] = others
    for outcome in range(len(first)):
        ranks_now[0] = first[outcome]
        codes[outcome] = winners(command, ranks_now) + 1  # GREY_CODE + 1 == 0
    return codes.reshape(-1)
