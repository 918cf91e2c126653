"""How `diavolo report` scales with the drill log: seconds and peak memory at 100k, 300k and 1M rows.

Writes three synthetic drill logs with `diavolo synth-log` (three preset
players; sessions of up to 10,000 trials), kept in a cache folder so that a
second run skips the slow writing, then runs `diavolo report` on each as a
user would, in a child process, with saved simulation results (so no fresh
simulation is timed). Prints wall-clock and CPU seconds, the child's peak
resident memory (`ru_maxrss` of the waited-for child), the log's size, and
the CPU cost per row relative to the smallest log: linear growth keeps that
ratio near 1 (a fixed part, imports and drawing, makes it fall).
Targets: the 1,000,000-row log in under 10 s and under 1 GB peak.

It also times `load_logs` on each log with every column against
`FIGURE_COLUMNS` (all but the roll's JSON cells), which is what a drill's
end-of-session summary, the adaptive drill and player fits read, and, on
the largest log, `load_logs` and `diavolo report` against
`pandas.read_csv(engine="pyarrow")` of the same file, as ratios measured in
this run, each the best of three timings taken in turn (targets: within 4x and 6x).

    python benchmarks/bench_report.py [--cache DIR] [--rows 100000 300000 1000000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from diavolo_stats.drill import MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.log import FIGURE_COLUMNS, load_logs

REPO = Path(__file__).resolve().parent.parent
SIMULATION = REPO / "data" / "simulation_standard.csv"
PLAYERS = ("preset:novice", "preset:average", "preset:expert")
TARGET_S = 10.0
TARGET_BYTES = 1 << 30
TARGET_LOAD_RATIO = 4.0
TARGET_REPORT_RATIO = 6.0
RATIO_RUNS = 3


def _verdict(ratio: float, target: float) -> str:
    return "met" if ratio <= target else "MISSED"


def diavolo(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "diavolo_stats", *args], cwd=cwd, capture_output=True, text=True,
                          check=True)


def synthetic_log(cache: Path, rows: int) -> Path:
    """A log of at least `rows` rows (just over: whole sessions of equal length per player), written once."""
    sessions = -(-rows // (len(PLAYERS) * MAX_TRIALS_PER_SESSION))
    trials = -(-rows // (len(PLAYERS) * sessions))
    path = cache / f"drills_{len(PLAYERS)}x{sessions}x{trials}.csv"
    if not path.exists():
        start = time.perf_counter()
        diavolo("synth-log", "--log", str(path), "--players", *PLAYERS, "--sessions", str(sessions),
                "--trials", str(trials), "--seed", "11", cwd=cache)
        print(f"  (wrote {path.name} in {time.perf_counter() - start:.0f} s)", flush=True)
    return path


def timed_report(log: Path, out: Path) -> tuple[float, float, int]:
    """Wall-clock seconds, CPU seconds (user + system) and peak resident bytes of `diavolo report` on `log`,
    run as a child process. On a shared machine the CPU seconds are the steadier figure."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "diavolo_stats", "report", "--log", str(log), "--out",
                                str(out), "--simulation", str(SIMULATION), "--format", "json"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"report failed: {process.stderr.read().decode()}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024  # Linux reports kilobytes


def timed_load(log: Path, columns) -> float:
    """Seconds `load_logs` takes to read `log` (only `columns`, when given), in this process."""
    start = time.perf_counter()
    load_logs([log], columns=columns)
    return time.perf_counter() - start


def timed_read_csv(log: Path) -> float:
    """Seconds `pandas.read_csv` takes to read `log` with its fastest engine (pyarrow), in this process."""
    import pandas as pd

    start = time.perf_counter()
    pd.read_csv(log, engine="pyarrow")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "diavolo_bench_report")
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 300_000, 1_000_000])
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {', '.join(f'{v:.2f}' for v in os.getloadavg())}; CPUs: {os.cpu_count()}")
    results = []
    for rows in sorted(args.rows):
        log = synthetic_log(args.cache, rows)
        lines = sum(1 for _ in open(log, "rb")) - 1
        seconds, cpu, peak = min(timed_report(log, args.cache / "report") for _ in range(2))
        results.append((lines, seconds, cpu, peak, log.stat().st_size))
    first_rows, _, first_cpu, _, _ = results[0]
    for lines, seconds, cpu, peak, size in results:
        per_row = (cpu / lines) / (first_cpu / first_rows)
        print(f"{lines:>9,} rows ({size / 1e6:6.1f} MB): {seconds:6.2f} s wall, {cpu:6.2f} s CPU, "
              f"peak {peak / 2**20:7.1f} MiB, {cpu / lines * 1e6:6.2f} us CPU per row "
              f"({per_row:.2f}x the smallest log's)")
    lines, seconds, _, peak, _ = results[-1]
    print(f"largest log: {lines:,} rows in {seconds:.2f} s (target under {TARGET_S:g} s: "
          f"{'met' if seconds < TARGET_S else 'MISSED'}), peak {peak / 2**30:.2f} GiB (target under 1 GiB: "
          f"{'met' if peak < TARGET_BYTES else 'MISSED'})")
    for rows in sorted(args.rows):
        log = synthetic_log(args.cache, rows)
        every, figures = (min(timed_load(log, columns) for _ in range(2)) for columns in (None, FIGURE_COLUMNS))
        print(f"load_logs of {log.name}: every column {every:.2f} s, FIGURE_COLUMNS {figures:.2f} s "
              f"({every / figures:.1f}x faster)")
    largest = synthetic_log(args.cache, max(args.rows))
    # Each the best of RATIO_RUNS, taken in turn, so that a moment of load elsewhere slows none of them alone.
    reads, loads, reports = [], [], []
    for _ in range(RATIO_RUNS):
        reads.append(timed_read_csv(largest))
        loads.append(timed_load(largest, None))
        reports.append(timed_report(largest, args.cache / "report")[0])
    read, every, report = min(reads), min(loads), min(reports)
    print(f"{largest.name}: pandas.read_csv (pyarrow) {read:.2f} s; load_logs {every:.2f} s = {every / read:.2f}x "
          f"(target within {TARGET_LOAD_RATIO:g}x: {_verdict(every / read, TARGET_LOAD_RATIO)}); diavolo report "
          f"{report:.2f} s = {report / read:.2f}x (target within {TARGET_REPORT_RATIO:g}x: "
          f"{_verdict(report / read, TARGET_REPORT_RATIO)}); best of {RATIO_RUNS} each")
    print(f"load average after: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
