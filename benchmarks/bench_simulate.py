"""Simulator speed and memory, each figure printed with the reference it is divided by.

    python benchmarks/bench_simulate.py            # everything (about 5 minutes on 2 cores)
    python benchmarks/bench_simulate.py --quick    # skip the 10**9-round memory run

The reference is the raw cost of the dice: numpy drawing nine uint8 dice per
round. All rates are rounds per second, measured in this one run; ratios, not
the absolute figures, are what carry from one machine to another.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import subprocess
import sys
import time

import numpy as np

from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import Command, Variant


def best_rate(function, rounds: int, repeats: int = 3) -> float:
    """Rounds per second of the fastest of `repeats` calls of function()."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return rounds / best


def raw_dice_rate(variant: Variant, rounds: int = 1 << 22) -> float:
    rng = np.random.default_rng(0)
    return best_rate(lambda: rng.integers(1, variant.sides + 1, size=(rounds, variant.dice_count), dtype=np.uint8),
                     rounds)


def straightforward_numpy_rate(rounds: int = 1 << 20) -> float:
    """The five value commands the obvious numpy way: dice (rounds, colors, dice), reductions per command."""
    rng = np.random.default_rng(0)

    def run():
        dice = rng.integers(1, 7, size=(rounds, 3, 3), dtype=np.uint8)
        figures = [dice.sum(axis=2), -dice.sum(axis=2, dtype=np.int16), dice.max(axis=2) - dice.min(axis=2),
                   (dice % 2).sum(axis=2), dice.max(axis=2)]
        return [np.bincount(np.where((f == f.max(axis=1, keepdims=True)).sum(axis=1) == 1,
                                     f.argmax(axis=1), 3), minlength=4) for f in figures]

    return best_rate(run, rounds)


def pure_python_rate(rounds: int = 20_000) -> float:
    """The five value commands in a plain Python loop."""
    generator = random.Random(0)

    def run():
        ties = [0] * 5
        for _ in range(rounds):
            dice = [[generator.randint(1, 6) for _ in range(3)] for _ in range(3)]
            figures = [[sum(d) for d in dice], [-sum(d) for d in dice], [max(d) - min(d) for d in dice],
                       [sum(v % 2 for v in d) for d in dice], [max(d) for d in dice]]
            for index, values in enumerate(figures):
                ties[index] += values.count(max(values)) > 1
        return ties

    return best_rate(run, rounds, repeats=1)


def simulate_rate(variant: Variant, rounds: int, workers: int = 1) -> float:
    simulate(variant, 1 << 16, seed=0, workers=1)  # build the lookup tables outside the timing
    return best_rate(lambda: simulate(variant, rounds, seed=1, workers=workers), rounds, repeats=2)


def values_only(variant: Variant) -> Variant:
    return dataclasses.replace(variant, commands=variant.value_commands)


def memory_run(rounds: int, workers: int) -> dict:
    """Simulate the standard game (all six commands) in a fresh process; its peak memory in MB."""
    # The main process's peak is VmHWM: Linux carries ru_maxrss over from the parent
    # across fork and exec, so here it would report this benchmark's own size.
    code = f"""
import json, resource, time
from pathlib import Path
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import Variant
start = time.perf_counter()
simulate(Variant(), {rounds}, seed=1, workers={workers})
status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
print(json.dumps({{"seconds": time.perf_counter() - start,
    "parent_mb": int(status["VmHWM"].split()[0]) / 1024,
    "largest_worker_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}}))
"""
    return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                     check=True).stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 10**9-round memory run")
    args = parser.parse_args()

    standard = Variant()
    raw = raw_dice_rate(standard)
    print(f"reference: raw dice, integers(1, 7, size=(N, 9), uint8): {raw / 1e6:8.1f} M rounds/s")
    rng = np.random.default_rng(0)
    packed = best_rate(lambda: rng.integers(0, 6**9, size=1 << 22, dtype=np.uint32), 1 << 22)
    print(f"  (one 32-bit draw per round for all nine dice: {packed / 1e6:.1f} M rounds/s, {packed / raw:.2f}x)")
    print()
    print("five value commands, standard game")
    for label, rate in [("pure Python loop", pure_python_rate()),
                        ("straightforward numpy", straightforward_numpy_rate()),
                        ("diavolo_stats.core.simulate", simulate_rate(values_only(standard), 1 << 26))]:
        print(f"  {label:24s} {rate / 1e6:9.3f} M rounds/s  {rate / raw:7.3f}x raw dice   (target for simulate: 1.0x)")
    print()
    print("five value commands, other variants (each against its own raw dice: target 0.5x)")
    for label, variant in [("kids (2 dice per color)", Variant.preset("kids")),
                           ("2 colors", Variant(colors=("black", "red"))),
                           ("4 colors", Variant(colors=("black", "red", "white", "blue"))),
                           ("d8", Variant(sides=8)),
                           ("4 dice per color", Variant(dice_per_color=4)),
                           ("5 colors, 2d10", Variant(colors=("a", "b", "c", "d", "e"), dice_per_color=2, sides=10)),
                           ("8 colors", Variant(colors=tuple("abcdefgh"))),
                           ("3d20", Variant(sides=20)),
                           ("7 dice per color (no table)", Variant(dice_per_color=7)),
                           ("12 dice per color (no table)", Variant(dice_per_color=12))]:
        variant_raw = raw_dice_rate(variant)
        rate = simulate_rate(values_only(variant), 1 << 24)
        print(f"  {label:28s} {rate / 1e6:8.2f} M rounds/s  {rate / variant_raw:6.2f}x its raw dice "
              f"({variant_raw / 1e6:.1f} M/s)")
    print()
    rate = simulate_rate(standard, 1 << 24)
    print(f"all six commands (closest thrown on the table): {rate / 1e6:.2f} M rounds/s  "
          f"{rate / raw:.3f}x raw dice   (target 0.2x)")
    closest_only = simulate_rate(Variant(commands=(Command.CLOSEST,)), 1 << 23)
    print(f"  closest alone: {closest_only / 1e6:.2f} M rounds/s  {closest_only / raw:.3f}x raw dice")
    print()
    one = simulate_rate(values_only(standard), 1 << 27, workers=1)
    two = simulate_rate(values_only(standard), 1 << 27, workers=2)
    print(f"workers: 1 -> {one / 1e6:.1f} M rounds/s, 2 -> {two / 1e6:.1f} M rounds/s: {two / one:.2f}x "
          f"(target 1.7x)")
    one = simulate_rate(standard, 1 << 25, workers=1)
    two = simulate_rate(standard, 1 << 25, workers=2)
    print(f"  all six commands: 1 -> {one / 1e6:.1f} M rounds/s, 2 -> {two / 1e6:.1f} M rounds/s: {two / one:.2f}x")
    if not args.quick:
        print()
        for workers in (1, 2):
            figures = memory_run(10**9, workers)
            peak = f"peak memory {figures['parent_mb']:.0f} MB main process"
            if workers > 1:
                peak += f", {figures['largest_worker_mb']:.0f} MB largest worker"
            print(f"10**9 rounds, all six commands, {workers} worker(s): {figures['seconds']:.0f} s, {peak} "
                  f"(target under 256 MB)")


if __name__ == "__main__":
    main()
