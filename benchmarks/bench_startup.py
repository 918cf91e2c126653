"""How fast the command line starts: `diavolo --version` and `diavolo odds` against importing numpy.

Run: python benchmarks/bench_startup.py [--runs N]

Each command runs N times as a user runs it (`python -m diavolo_stats ...`, a
new interpreter each time), interleaved with `python -c "import numpy"`, the
floor any numpy program pays. Prints the median wall time of each and the
ratios measured in this one run, beside their targets (--version within 3x,
odds within 4x), and the load average: on a busy machine every figure grows,
the ratios much less. Nothing is asserted: machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

TARGETS = {"--version": 3.0, "odds": 4.0}
COMMANDS = {
    "import numpy": [sys.executable, "-c", "import numpy"],
    "--version": [sys.executable, "-m", "diavolo_stats", "--version"],
    "odds": [sys.executable, "-m", "diavolo_stats", "odds"],
}


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="runs of each command (default 21)")
    runs = parser.parse_args().runs
    for command in COMMANDS.values():  # warm the file cache: the first run of each reads its files from disk
        seconds(command)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, command in COMMANDS.items():
            times[name].append(seconds(command))
    median = {name: statistics.median(values) for name, values in times.items()}
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"start-up, median of {runs} runs (load average {load}):")
    for name, value in median.items():
        print(f"  {name:<13} {value * 1e3:7.1f} ms")
    for name, target in TARGETS.items():
        ratio = median[name] / median["import numpy"]
        print(f"  diavolo {name} / import numpy: {ratio:.2f}x (target at most {target:g}x)")


if __name__ == "__main__":
    main()
