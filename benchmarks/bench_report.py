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
end-of-session summary, the adaptive drill and player fits read. On the
largest log it times `pandas.read_csv` of the file with its default engine
and with pyarrow, says which is faster, and sets against the default
engine `load_logs` (target within 3x), `diavolo report` (within 6x) and the
first visit of the progress page `/me` of a newly made app (within 3x), as
ratios measured in this run, each the best of three timings taken in turn.
Last, `diavolo report` of the shipped 1,080-row sample against a child
process that only imports the report's libraries (pandas, pyarrow,
matplotlib's Figure and Agg canvas, scipy.optimize; target within 1.5x).
Every child runs with the program's own OpenBLAS setting, as `diavolo` does.
Each line says met or MISSED. The package's bytecode is written first
(`compileall`), as installing it does: the libraries load theirs, and where
PYTHONDONTWRITEBYTECODE is set an editable install would otherwise compile
every module of the package at each run.

    python benchmarks/bench_report.py [--cache DIR] [--rows 100000 300000 1000000] [--ratios-only]
"""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
import time
from pathlib import Path

from bench_common import load_average, log_arguments, seconds, synthetic_log

from diavolo_stats.__main__ import OPENBLAS_SPIN
from diavolo_stats.drill.log import FIGURE_COLUMNS, load_logs

REPO = Path(__file__).resolve().parent.parent
SIMULATION = REPO / "data" / "simulation_standard.csv"
TARGET_S = 10.0
TARGET_BYTES = 1 << 30
TARGET_LOAD_RATIO = 3.0
TARGET_REPORT_RATIO = 6.0
TARGET_PROGRESS_RATIO = 3.0
TARGET_SAMPLE_RATIO = 1.5
RATIO_RUNS = 3
SAMPLE = REPO / "data" / "sample_drills.csv"
LIBRARIES = ("import pandas, pyarrow, scipy.optimize, matplotlib.figure, matplotlib.backends.backend_agg")
"""What the report imports before it does anything (the reference the sample's report is divided by)."""
FIRST_VISIT = """
import sys, time
from starlette.testclient import TestClient
from diavolo_stats.web.app import create_app

with TestClient(create_app(sys.argv[1]), base_url="http://127.0.0.1") as client:
    start = time.perf_counter()
    response = client.get("/me")
    seconds = time.perf_counter() - start
response.raise_for_status()
print(seconds)
"""
"""A new app's first visit of /me (the server reads the log then), timed from the request to the page."""


def _verdict(ratio: float, target: float) -> str:
    return "met" if ratio <= target else "MISSED"


def timed_report(log: Path, out: Path) -> tuple[float, float, int]:
    """Wall-clock seconds, CPU seconds (user + system) and peak resident bytes of `diavolo report` on `log`,
    run as a child process. On a shared machine the CPU seconds are the steadier figure."""
    return timed_child(["-m", "diavolo_stats", "report", "--log", str(log), "--out", str(out), "--simulation",
                        str(SIMULATION), "--format", "json"])


def as_the_program() -> dict[str, str]:
    """The environment of a child timed here: the program's own setting of OpenBLAS (`__main__.main` sets it before
    numpy loads), so that a reference (the libraries' import, a server's first visit) loads numpy as `diavolo` does."""
    environment = dict(os.environ)
    environment.setdefault("OPENBLAS_THREAD_TIMEOUT", OPENBLAS_SPIN)
    return environment


def timed_child(arguments: list[str]) -> tuple[float, float, int]:
    """Wall-clock seconds, CPU seconds and peak resident bytes of `python *arguments` as a child process."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=as_the_program())
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(arguments[:3])} failed: {process.stderr.read().decode()}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024  # Linux reports kilobytes


def timed_load(log: Path, columns) -> float:
    """Seconds `load_logs` takes to read `log` (only `columns`, when given), in this process."""
    return seconds(lambda: load_logs([log], columns=columns))


def timed_read_csv(log: Path, engine: str | None) -> float:
    """Seconds `pandas.read_csv` takes to read `log` with `engine` (None: its default), in this process."""
    import pandas as pd

    return seconds(lambda: pd.read_csv(log, **({"engine": engine} if engine else {})))


def timed_first_visit(log: Path) -> float:
    """Seconds of the first visit of /me on a new app serving `log`, in a child process."""
    visit = subprocess.run([sys.executable, "-c", FIRST_VISIT, str(log)], capture_output=True, text=True,
                           check=True, env=as_the_program())
    return float(visit.stdout.split()[-1])


def main() -> None:
    parser = log_arguments(__doc__.splitlines()[0], [100_000, 300_000, 1_000_000])
    parser.add_argument("--ratios-only", action="store_true",
                        help="only the ratios to read_csv and the sample's report (skip the scaling table)")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {load_average()}")
    compileall.compile_dir(REPO / "diavolo_stats", quiet=1)
    print("the package's bytecode written beside its modules, as an install writes it")
    if not args.ratios_only:
        scaling(args.cache, args.rows)
    ratios(args.cache, max(args.rows))
    print(f"load average after: {load_average()}")


def scaling(cache: Path, sizes: list[int]) -> None:
    """The report's seconds, CPU and peak memory at each size; load_logs with every column and FIGURE_COLUMNS."""
    results = []
    for rows in sorted(sizes):
        log = synthetic_log(cache, rows)
        lines = sum(1 for _ in open(log, "rb")) - 1
        seconds, cpu, peak = min(timed_report(log, cache / "report") for _ in range(2))
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
    for rows in sorted(sizes):
        log = synthetic_log(cache, rows)
        every, figures = (min(timed_load(log, columns) for _ in range(2)) for columns in (None, FIGURE_COLUMNS))
        print(f"load_logs of {log.name}: every column {every:.2f} s, FIGURE_COLUMNS {figures:.2f} s "
              f"({every / figures:.1f}x faster)")


def ratios(cache: Path, rows: int) -> None:
    """load_logs, the report and the first /me visit against read_csv (both engines) on the log of `rows`, and the
    sample's report against importing its libraries."""
    largest = synthetic_log(cache, rows)
    # Each the best of RATIO_RUNS, taken in turn, so that a moment of load elsewhere slows none of them alone.
    timings: dict[str, list[float]] = {"default": [], "pyarrow": [], "load": [], "report": [], "visit": []}
    for _ in range(RATIO_RUNS):
        timings["default"].append(timed_read_csv(largest, None))
        timings["pyarrow"].append(timed_read_csv(largest, "pyarrow"))
        timings["load"].append(timed_load(largest, None))
        timings["report"].append(timed_report(largest, cache / "report")[0])
        timings["visit"].append(timed_first_visit(largest))
    best = {name: min(values) for name, values in timings.items()}
    faster, slower = sorted(("default", "pyarrow"), key=best.get)
    print(f"{largest.name}, best of {RATIO_RUNS} each: pandas.read_csv with its default engine "
          f"{best['default']:.2f} s, with pyarrow {best['pyarrow']:.2f} s "
          f"(the {faster} engine is faster, by {best[slower] / best[faster]:.2f}x)")
    read = best["default"]
    for name, label, target in (("load", "load_logs, every column", TARGET_LOAD_RATIO),
                                ("report", "diavolo report", TARGET_REPORT_RATIO),
                                ("visit", "first /me visit", TARGET_PROGRESS_RATIO)):
        ratio = best[name] / read
        print(f"  {label}: {best[name]:.2f} s = {ratio:.2f}x read_csv's default engine "
              f"({best[name] / best['pyarrow']:.2f}x pyarrow's; target within {target:g}x the default: "
              f"{_verdict(ratio, target)})")
    imports, sample = [], []
    for _ in range(RATIO_RUNS):
        imports.append(timed_child(["-c", LIBRARIES])[0])
        sample.append(timed_report(SAMPLE, cache / "sample-report")[0])
    ratio = min(sample) / min(imports)
    print(f"{SAMPLE.name}: diavolo report {min(sample):.2f} s, importing its libraries {min(imports):.2f} s: "
          f"{ratio:.2f}x (target within {TARGET_SAMPLE_RATIO:g}x: {_verdict(ratio, TARGET_SAMPLE_RATIO)}); "
          f"best of {RATIO_RUNS} each")


if __name__ == "__main__":
    main()
