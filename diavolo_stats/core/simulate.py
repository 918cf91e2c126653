"""Monte Carlo tie frequencies: millions of rounds, vectorized, in seeded blocks.

Every round rolls all colored dice (and throws them on the table when `closest` is on the command die) and
resolves every command of the variant on that roll. Block b of BLOCK_ROUNDS rounds is always rolled from the
b-th `SeedSequence.spawn` child of the run's seed; chunks and workers only group blocks, so the same seed gives
the same counts however the work is split.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass

import numpy as np

from diavolo_stats.core.kernel import lookups, tally_block
from diavolo_stats.core.rules import CLOSEST_JUDGING
from diavolo_stats.core.seeding import child, root_sequence
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.core.workers import worker_pool
from diavolo_stats.errors import InputError
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
        """Share of rounds each color (and grey) is the answer, the command die rolled too (repeats counted)."""
        shares = [self.answer_shares(c) for c in self.variant.die]
        return {name: sum(s[name] for s in shares) / len(shares) for name in shares[0]}

    def overall(self) -> Estimate:
        """The overall grey rate: the tie probability averaged over the command die's faces (repeats counted),
        with a 95% interval. Every round resolves every command, so the estimate rests on all the rounds; the
        per-round average of the faces' ties lies in [0, 1], so the Wilson interval of its sum is conservative."""
        die = self.variant.die
        return proportion_estimate(sum(self.ties(c) for c in die) / len(die), self.rounds)

    @property
    def columns(self) -> tuple[str, ...]:
        """Columns of `rows()` (and of the CSV the simulate command saves), in order."""
        shares = tuple(f"share_{name}" for name in (*self.variant.colors, GREY))
        return (*_ROW_COLUMNS, *shares, "dice", "table_model", "seed")

    def document(self) -> dict:
        """The result as one JSON-ready document, with exact values where they exist.

        Keys: `variant`, `rounds`, `seed`, `commands` (per command: `ties`, `rounds`, `tie_probability`, `ci95`,
        `answer_shares`, and `exact` and `z_score` where an exact value exists), `answer_shares` over the whole
        command die, and `table_model` and `closest_judging` when `closest` is simulated.
        """
        from diavolo_stats.core.odds import exact_odds

        variant = self.variant
        try:
            odds = exact_odds(variant) if variant.value_commands else None
        except InputError:  # beyond the exact engine's limits: the simulation stands alone
            odds = None
        exact = odds.tie_probability if odds is not None else {}
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
        overall = self.overall()
        document = {"variant": variant.as_dict(), "rounds": self.rounds, "seed": self.seed,
                    "commands": commands, "answer_shares": self.overall_answer_shares(),
                    "overall": {"faces": len(variant.die), "tie_probability": overall.value, "ci95": overall.bounds}}
        if odds is not None and odds.overall_tie_probability is not None:
            document["overall"]["exact"] = float(odds.overall_tie_probability)
        if any(not c.depends_on_values for c in variant.commands):
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
            positional = not self.variant.command(name).depends_on_values
            row["table_model"] = document.get("table_model", "") if positional else ""
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
        overall = self.overall()
        lines.insert(4, f"overall grey rate (command die of {len(self.variant.die)} faces): {overall.value:.4f} "
                        f"[{overall.low:.4f}, {overall.high:.4f}]")
        if any(not c.depends_on_values for c in self.variant.commands):
            lines += ["", wrap(f"closest: {self.variant.table.describe()}", "  "), wrap(CLOSEST_JUDGING, "  ")]
        return "\n".join(lines)


@checked(variant=Instance(Variant), rounds=Whole(1, MAX_ROUNDS), workers=Whole(1, MAX_WORKERS),
         chunk_rounds=Whole(1, MAX_ROUNDS))
def simulate(variant: Variant, rounds: int, seed: int | None = None, workers: int = 1,
             chunk_rounds: int = DEFAULT_CHUNK_ROUNDS,
             progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Roll `rounds` rounds of `variant` and count each command's answers.

    rounds: 1 to MAX_ROUNDS. seed: any non-negative integer; None draws fresh entropy (reported in the result). workers:
    processes to spread the blocks over, 1 to MAX_WORKERS (no more are started than there are chunks). chunk_rounds:
    rounds handed to a process at a time, rounded up to whole blocks; it sets how often `progress` is called with the
    number of rounds done so far. Neither workers nor chunk_rounds changes the counts.
    """
    root = root_sequence(seed)
    blocks = -(-rounds // BLOCK_ROUNDS)
    blocks_per_chunk = -(-chunk_rounds // BLOCK_ROUNDS)
    chunk_count = -(-blocks // blocks_per_chunk)
    # Generated as they are handed out: a list of 10**12 / 2**21 chunks would itself fill memory.
    chunks = ((first, min(first + blocks_per_chunk, blocks)) for first in range(0, blocks, blocks_per_chunk))
    workers = min(workers, chunk_count)
    lookups(variant)  # built once here, shared with forked workers
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
        totals += tally_block(variant, rng, size)
    return totals


