"""Monte Carlo tie frequencies: millions of rounds, vectorized, in seeded blocks.

Every simulated round rolls all colored dice (and throws them on the table
when `closest` is on the command die) and resolves every command of the
variant on that roll, so each command's frequency rests on all the rounds.

Repeatability: round b * BLOCK_ROUNDS .. (b + 1) * BLOCK_ROUNDS - 1 is always
rolled by the generator seeded with the b-th `SeedSequence.spawn` child of the
run's seed. Chunks (the work handed to a process at a time) and workers only
group blocks, so the same seed gives the same counts however the work is split.

Speed: the five value commands are read from precomputed tables rather than
computed from dice. When all joint outcomes fit in JOINT_LOOKUP_LIMIT entries
(the standard game: 6**9), one 32-bit draw per round indexes a table holding
every command's answer, packed in 16 bits, and a histogram counts them.
Otherwise, when one color's outcomes fit in COLOR_LOOKUP_LIMIT, each color's
outcome is one draw that indexes per-command figure tables, and only the
comparison across colors is computed per round. Beyond that (many dice or
sides per color) the dice themselves are rolled and reduced.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass

import numpy as np

from diavolo_stats.core.rules import CLOSEST_JUDGING, answers, count_answers, figures, winners
from diavolo_stats.core.seeding import child, root_sequence
from diavolo_stats.core.table_model import throw_on_grid
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.core.workers import worker_pool
from diavolo_stats.results import TextResult, render_fitted, wrap
from diavolo_stats.stats import Estimate, proportion_estimate
from diavolo_stats.validation import Instance, Whole, checked

BLOCK_ROUNDS = 1 << 18
"""Rounds per seeding block: the unit of randomness, fixed so results never depend on the split."""

DEFAULT_CHUNK_ROUNDS = 1 << 21

MAX_ROUNDS = 10**12
"""The most rounds one run takes: about a day of one core's work. Memory stays flat up to it (the chunks are
generated as they are handed out, and only counts are kept); more is refused."""

MAX_WORKERS = 4 * (os.cpu_count() or 1)
"""The most worker processes a run may ask for: 4 per CPU. A run never starts more workers than it has chunks."""
JOINT_LOOKUP_LIMIT = 1 << 24
COLOR_LOOKUP_LIMIT = 1 << 16


_ROW_COLUMNS = ("command", "rounds", "ties", "tie_probability", "ci95_low", "ci95_high", "exact_tie_probability",
                "z_score")

TEXT_COLUMNS = ("command", "ties", "tie_probability", "ci95_low", "ci95_high", "exact_tie_probability", "z_score")
"""The columns `text()` shows (the rounds are in its header); narrow headers keep it within 80 columns."""
TEXT_HEADERS = {"tie_probability": "p_tie", "exact_tie_probability": "exact"}


@dataclass(frozen=True)
class SimulationResult(TextResult):
    """Counted answers of a simulation.

    counts: per command, how many rounds each color was the answer (in
    `variant.colors` order), then how many were ties (grey).
    seed: the entropy the run used; pass it back to repeat the run exactly.
    """

    variant: Variant
    rounds: int
    seed: int
    counts: Mapping[Command, tuple[int, ...]]

    def ties(self, command: Command) -> int:
        """Rounds in which `command` ended in a tie."""
        return self.counts[command][-1]

    def tie_probability(self, command: Command) -> float:
        """Share of rounds that tie under `command` (probability)."""
        return self.ties(command) / self.rounds

    def ci95(self, command: Command) -> Estimate:
        """The tie probability with its Wilson 95% confidence interval."""
        return proportion_estimate(self.ties(command), self.rounds)

    def answer_shares(self, command: Command) -> dict[str, float]:
        """Share of rounds each color (and grey) was the answer under `command`."""
        names = self.variant.colors + (GREY,)
        return {name: count / self.rounds for name, count in zip(names, self.counts[command])}

    def overall_answer_shares(self) -> dict[str, float]:
        """Share of rounds each color (and grey) is the answer, the command die rolled too."""
        shares = [self.answer_shares(c) for c in self.variant.commands]
        return {name: sum(s[name] for s in shares) / len(shares) for name in shares[0]}

    @property
    def columns(self) -> tuple[str, ...]:
        """Columns of `rows()` (and of the CSV the simulate command saves), in order."""
        shares = tuple(f"share_{name}" for name in (*self.variant.colors, GREY))
        return (*_ROW_COLUMNS, *shares, "dice", "table_model", "seed")

    def document(self) -> dict:
        """The result as one JSON-ready document, with exact values where they exist.

        Keys: `variant`, `rounds`, `seed`, `commands` (each command name mapped to
        `ties`, `rounds`, `tie_probability`, `ci95` [low, high], `answer_shares`,
        and, for commands with an exact value, `exact` and `z_score`: the distance
        from it in standard errors), `answer_shares` over the whole command die,
        and `table_model` and `closest_judging` (ties are the table's call; judging a
        player also accepts the strictly nearest color) when `closest` is simulated.
        """
        from diavolo_stats.core.odds import exact_odds

        variant = self.variant
        exact = exact_odds(variant).tie_probability if variant.value_commands else {}
        commands = {}
        for command in variant.commands:
            probability = self.tie_probability(command)
            interval = self.ci95(command)
            entry = {
                "ties": self.ties(command),
                "rounds": self.rounds,
                "tie_probability": probability,
                "ci95": interval.bounds,
                "answer_shares": self.answer_shares(command),
            }
            if command in exact:
                truth = float(exact[command])
                standard_error = math.sqrt(truth * (1 - truth) / self.rounds)
                entry["exact"] = truth
                entry["z_score"] = (probability - truth) / standard_error if standard_error else 0.0
            commands[command.value] = entry
        document = {"variant": variant.as_dict(), "rounds": self.rounds, "seed": self.seed,
                    "commands": commands, "answer_shares": self.overall_answer_shares()}
        if Command.CLOSEST in variant.commands:
            document["table_model"] = variant.table.describe()
            document["closest_judging"] = CLOSEST_JUDGING
        return document

    def rows(self) -> list[dict]:
        """One flat row per command: the figures of `document()`, each answer's share, the dice and the seed."""
        document = self.document()
        rows = []
        for name, entry in document["commands"].items():
            row = {
                "command": name,
                "rounds": entry["rounds"],
                "ties": entry["ties"],
                "tie_probability": entry["tie_probability"],
                "ci95_low": entry["ci95"][0],
                "ci95_high": entry["ci95"][1],
                "exact_tie_probability": entry.get("exact"),
                "z_score": entry.get("z_score"),
            }
            row.update({f"share_{answer}": share for answer, share in entry["answer_shares"].items()})
            row["dice"] = self.variant.label
            row["table_model"] = document.get("table_model", "") if name == Command.CLOSEST.value else ""
            row["seed"] = self.seed
            rows.append(row)
        return rows

    def text(self) -> str:
        """The variant and seed, each command's tie frequency against the exact value, each answer's share."""
        rows = self.rows()
        shares = [column for column in self.columns if column.startswith("share_")]
        lines = [wrap(f"Diavolo simulation: {self.variant.describe()}", "  "),
                 f"{self.rounds:,} rounds, seed {self.seed}", "",
                 render_fitted(rows, TEXT_COLUMNS, keep=4, headers=TEXT_HEADERS), "",
                 "Share of rounds each answer is right:",
                 render_fitted(rows, ["command", *shares], keep=2)]
        if Command.CLOSEST in self.variant.commands:
            lines += ["", wrap(f"closest: {self.variant.table.describe()}", "  "), wrap(CLOSEST_JUDGING, "  ")]
        return "\n".join(lines)


@checked(variant=Instance(Variant), rounds=Whole(1, MAX_ROUNDS), workers=Whole(1, MAX_WORKERS),
         chunk_rounds=Whole(1, MAX_ROUNDS))
def simulate(variant: Variant, rounds: int, seed: int | None = None, workers: int = 1,
             chunk_rounds: int = DEFAULT_CHUNK_ROUNDS,
             progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Roll `rounds` rounds of `variant` and count each command's answers.

    rounds: 1 to MAX_ROUNDS. seed: any non-negative integer; None draws fresh
    entropy (reported in the result). workers: processes to spread the blocks
    over, 1 to MAX_WORKERS (no more are started than there are chunks).
    chunk_rounds: rounds handed to a process at a time, rounded up to whole
    blocks; it sets how often `progress` is called with the number of rounds
    done so far. Neither workers nor chunk_rounds changes the counts.
    """
    root = root_sequence(seed)
    blocks = -(-rounds // BLOCK_ROUNDS)
    blocks_per_chunk = -(-chunk_rounds // BLOCK_ROUNDS)
    chunk_count = -(-blocks // blocks_per_chunk)
    # Generated as they are handed out: a list of 10**12 / 2**21 chunks would itself fill memory.
    chunks = ((first, min(first + blocks_per_chunk, blocks)) for first in range(0, blocks, blocks_per_chunk))
    workers = min(workers, chunk_count)
    _lookups(variant)  # built once here, shared with forked workers
    totals = np.zeros((len(variant.commands), len(variant.colors) + 1), dtype=np.int64)
    done = 0

    def add(chunk: tuple[int, int], counts: np.ndarray) -> None:
        nonlocal done
        totals[...] += counts
        done += min(chunk[1] * BLOCK_ROUNDS, rounds) - chunk[0] * BLOCK_ROUNDS
        if progress is not None:
            progress(done)

    if workers == 1:
        for chunk in chunks:
            add(chunk, _tally_chunk(variant, root, rounds, chunk))
    else:
        _tally_in_processes(variant, root, rounds, chunks, workers, add)
    counts = {command: tuple(int(v) for v in row) for command, row in zip(variant.commands, totals)}
    return SimulationResult(variant=variant, rounds=rounds, seed=int(root.entropy), counts=counts)


def _tally_in_processes(variant, root, rounds, chunks, workers, add) -> None:
    # Forked workers share the lookup arrays built in this process; elsewhere each worker builds its own.
    pool = worker_pool(workers)
    try:
        # At most two chunks per worker in flight: memory stays flat however many chunks there are.
        pending = {pool.submit(_tally_chunk, variant, root, rounds, chunk): chunk
                   for chunk in itertools.islice(chunks, 2 * workers)}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                add(pending.pop(future), future.result())
                for chunk in itertools.islice(chunks, 1):
                    pending[pool.submit(_tally_chunk, variant, root, rounds, chunk)] = chunk
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _tally_chunk(variant: Variant, root: np.random.SeedSequence, rounds: int, chunk: tuple[int, int]) -> np.ndarray:
    """Answer counts over blocks chunk[0]..chunk[1]-1: (commands, colors + 1) int64, grey last."""
    totals = np.zeros((len(variant.commands), len(variant.colors) + 1), dtype=np.int64)
    for block in range(*chunk):
        rng = np.random.default_rng(child(root, block))
        size = min(BLOCK_ROUNDS, rounds - block * BLOCK_ROUNDS)
        totals += _tally_block(variant, rng, size)
    return totals


def _tally_block(variant: Variant, rng: np.random.Generator, rounds: int) -> np.ndarray:
    """Roll `rounds` rounds and count the answers: (commands, colors + 1) int64, grey last."""
    lookups = _lookups(variant)
    colors = len(variant.colors)
    per_command: dict[Command, np.ndarray] = {}
    if lookups.joint_words:
        joint = rng.integers(0, lookups.joint_size, size=rounds, dtype=np.uint32)
        for word, commands in lookups.joint_words:
            histogram = np.bincount(np.take(word, joint), minlength=1 << (lookups.code_bits * len(commands)))
            per_command.update(_unpack(histogram, commands, lookups.code_bits, colors))
    elif lookups.color_figures:
        outcomes = rng.integers(0, lookups.color_outcomes, size=(colors, rounds), dtype=np.uint16)
        for command, lookup in lookups.color_figures.items():
            per_command[command] = count_answers(winners(command, np.take(lookup, outcomes)), colors)
    elif variant.value_commands:
        dice = rng.integers(1, variant.sides + 1, size=(colors, variant.dice_per_color, rounds), dtype=np.uint8)
        for command in variant.value_commands:
            per_command[command] = count_answers(winners(command, figures(command, dice)), colors)
    if Command.CLOSEST in variant.commands:
        positions = throw_on_grid(variant.table, 1 + variant.dice_count, rounds, rng)
        per_command[Command.CLOSEST] = count_answers(answers(variant, Command.CLOSEST, positions=positions), colors)
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


@dataclass(frozen=True)
class _Lookups:
    """Lookup arrays for a variant's value commands (see the module docstring)."""

    joint_size: int = 0
    code_bits: int = 0
    joint_words: tuple = ()  # ((uint16 lookup over joint outcomes, commands packed in it), ...)
    color_outcomes: int = 0
    color_figures: Mapping[Command, np.ndarray] | None = None  # command -> (outcomes,) uint8 or int16


def _narrowest(lookup: np.ndarray) -> np.ndarray:
    """The lookup as uint8 when its figures fit: comparisons on bytes run twice as wide."""
    return lookup.astype(np.uint8) if lookup.min() >= 0 and lookup.max() < 256 else lookup


@functools.lru_cache(maxsize=8)
def _lookups(variant: Variant) -> _Lookups:
    commands = variant.value_commands
    if not commands:
        return _Lookups()
    outcomes_per_color = variant.sides ** variant.dice_per_color
    if outcomes_per_color > COLOR_LOOKUP_LIMIT:
        return _Lookups()
    colors = len(variant.colors)
    # Every outcome of one color's dice, in base-`sides` order: (1, dice_per_color, outcomes) uint8.
    faces = np.indices((variant.sides,) * variant.dice_per_color, dtype=np.uint8)
    faces = faces.reshape(1, variant.dice_per_color, -1) + 1
    color_figures = {c: _narrowest(figures(c, faces)[0]) for c in commands}
    joint_size = outcomes_per_color ** colors
    if joint_size > JOINT_LOOKUP_LIMIT:
        # uint16 even for small ranges: numpy draws bounded uint16 several times faster than uint8.
        return _Lookups(color_outcomes=outcomes_per_color, color_figures=color_figures)
    # Answer code + 1 (0 = grey) of every joint outcome, packed a few commands to a 16-bit word
    # so that one histogram of at most 4096 bins counts them all.
    bits = colors.bit_length()
    per_word = max(1, 12 // bits)
    words = []
    for start in range(0, len(commands), per_word):
        packed = tuple(commands[start:start + per_word])
        word = np.zeros(joint_size, dtype=np.uint16)
        for i, command in enumerate(packed):
            word |= _joint_codes(command, color_figures[command], colors) << np.uint16(bits * i)
        words.append((word, packed))
    return _Lookups(joint_size=joint_size, code_bits=bits, joint_words=tuple(words))


def _joint_codes(command: Command, one_color: np.ndarray, colors: int) -> np.ndarray:
    """Answer code + 1 (0 = grey) of every joint outcome: (outcomes ** colors,) uint16.

    Joint outcome j = o_0 * K**(C-1) + ... + o_(C-1), K outcomes per color. Built
    one outcome of the first color at a time, so the temporaries stay small.
    """
    # one_color: (outcomes,) figure of each outcome of one color
    outcomes = len(one_color)
    rest = (outcomes,) * (colors - 1)
    # The other colors' figures over their joint outcomes: (colors - 1, outcomes ** (colors - 1)).
    def along(color: int) -> np.ndarray:
        shape = [outcomes if axis == color else 1 for axis in range(colors - 1)]
        return np.broadcast_to(one_color.reshape(shape), rest).reshape(-1)

    others = np.stack([along(color) for color in range(colors - 1)])
    codes = np.empty((outcomes, others.shape[1]), dtype=np.uint16)
    figures_now = np.empty((colors, others.shape[1]), dtype=one_color.dtype)
    figures_now[1:] = others
    for first in range(outcomes):
        figures_now[0] = one_color[first]
        codes[first] = winners(command, figures_now) + 1  # GREY_CODE + 1 == 0
    return codes.reshape(-1)
