"""Sweep throughput: closest variants over one process, two, and a local Dask cluster; the exact-only grid.

    python benchmarks/bench_sweep.py                 # about 200 closest variants at 10**6 rounds each
    python benchmarks/bench_sweep.py --variants 40 --rounds 200000    # a quick look

Targets: two workers at least 1.7x one; Dask within 15 % of two local
processes; the exact-only grid (2 to 8 colors, 1 to 8 dice, sides 4, 6, 8,
10, 12, 20: 336 variants) under 2 s. The three closest runs must give the
same rows (checked). The machine may be shared: the load average is printed
with the figures, and ratios, measured in this one run, are what carry over.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from diavolo_stats.core.variant import VALUE_COMMANDS, Command
from diavolo_stats.sweep import SweepGrid, sweep
from diavolo_stats.sweep.run import local_cluster


def closest_grid(variants: int, rounds: int) -> SweepGrid:
    """About `variants` closest variants: 2 to 6 colors, 1 to 4 dice, and as many tolerances as it takes."""
    tolerances = max(1, round(variants / 20))
    return SweepGrid(colors_count=(2, 3, 4, 5, 6), dice_per_color=(1, 2, 3, 4), commands=(Command.CLOSEST,),
                     tolerance=tuple(round(0.02 * (index + 1), 2) for index in range(tolerances)), rounds=rounds,
                     seed=1)


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=200, help="closest variants (default 200)")
    parser.add_argument("--rounds", type=int, default=1_000_000, help="rounds per variant (default 10**6)")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} processors")

    exact = SweepGrid(colors_count=tuple(range(2, 9)), dice_per_color=tuple(range(1, 9)),
                      sides=(4, 6, 8, 10, 12, 20), commands=VALUE_COMMANDS)
    sweep(SweepGrid(commands=VALUE_COMMANDS))  # imports and caches warm
    _, exact_s = timed(lambda: sweep(exact))
    with tempfile.TemporaryDirectory() as folder:
        _, exact_file_s = timed(lambda: sweep(exact, out=Path(folder) / "exact.csv"))
    print(f"exact-only grid, {exact.size} variants: {exact_s:.2f} s (target under 2 s); "
          f"{exact_file_s:.2f} s saving each variant to a CSV as it finishes")

    grid = closest_grid(args.variants, args.rounds)
    print(f"closest grid: {grid.size} variants x {grid.rounds:,} rounds")
    one, one_s = timed(lambda: sweep(grid, workers=1))
    two, two_s = timed(lambda: sweep(grid, workers=2))
    # As `--scheduler local:2` starts it: two single-threaded worker processes on loopback.
    cluster, start_s = timed(lambda: local_cluster(2))
    with cluster:
        # Workers import the library on their first task: warm them up, as a long-lived cluster would be.
        sweep(closest_grid(20, 1000), scheduler=cluster.scheduler_address)
        on_dask, dask_s = timed(lambda: sweep(grid, scheduler=cluster.scheduler_address))
    assert one.rows() == two.rows() == on_dask.rows(), "the three runs differ"
    for name, seconds in (("one worker", one_s), ("two workers", two_s), ("Dask, two workers", dask_s)):
        print(f"  {name:18s} {seconds:7.1f} s  {grid.size / seconds:7.2f} variants/s")
    print(f"  (Dask cluster start-up, not counted: {start_s:.1f} s)")
    print(f"two workers / one: {one_s / two_s:.2f}x (target at least 1.7x)")
    print(f"Dask / local processes: {two_s / dask_s:.2f} of the local rate (target at least 0.85)")
    print("same rows in all three runs: yes")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
