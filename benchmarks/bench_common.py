"""What the benchmarks on a large drill log share: the synthetic log (written once into a cache folder), its
command-line arguments, the load average, a timer, and a server process's memory while requests run at once."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

from diavolo_stats.drill import MAX_TRIALS_PER_SESSION

PLAYERS = ("preset:novice", "preset:average", "preset:expert")
"""The synthetic log's players."""
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "diavolo_bench_report"


def log_arguments(description: str, rows: int | list[int]) -> argparse.ArgumentParser:
    """A parser with --cache (where synthetic logs are kept) and --rows (`rows`: one size, or several)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--rows", type=int, default=rows, **({"nargs": "+"} if isinstance(rows, list) else {}))
    return parser


def load_average() -> str:
    """The load averages over 1, 5 and 15 minutes and the machine's cores, for a benchmark's first and last lines."""
    return f"{', '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores"


def diavolo(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`diavolo *args` run in a child process in `cwd`; CalledProcessError when it fails."""
    return subprocess.run([sys.executable, "-m", "diavolo_stats", *args], cwd=cwd, capture_output=True, text=True,
                          check=True)


def synthetic_log(cache: Path, rows: int) -> Path:
    """A log of at least `rows` rows (just over: whole sessions of equal length per player) in `cache`, written
    once by `diavolo synth-log`."""
    cache.mkdir(parents=True, exist_ok=True)
    sessions = -(-rows // (len(PLAYERS) * MAX_TRIALS_PER_SESSION))
    trials = -(-rows // (len(PLAYERS) * sessions))
    path = cache / f"drills_{len(PLAYERS)}x{sessions}x{trials}.csv"
    if not path.exists():
        start = time.perf_counter()
        diavolo("synth-log", "--log", str(path), "--players", *PLAYERS, "--sessions", str(sessions),
                "--trials", str(trials), "--seed", "11", cwd=cache)
        print(f"  (wrote {path.name} in {time.perf_counter() - start:.0f} s)", flush=True)
    return path


def seconds(work: Callable[[], object]) -> float:
    """Wall-clock seconds `work()` takes, in this process."""
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def rss_bytes(pid: int) -> int:
    """Process `pid`'s resident memory now (VmRSS), bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def at_once(pid: int, calls: Sequence[Callable[[], tuple[int, float]]]) -> tuple[list[tuple[int, float]], int]:
    """Each of `calls` (a request: its status and seconds) on a thread of its own, all at once: their results, and
    process `pid`'s peak resident memory meanwhile (looked at every 50 ms); returns 1 s after the last answer."""
    results: list[tuple[int, float]] = []
    peak, stop = [rss_bytes(pid)], threading.Event()

    def watch() -> None:
        while not stop.wait(0.05):
            peak.append(rss_bytes(pid))

    watcher = threading.Thread(target=watch)
    watcher.start()
    threads = [threading.Thread(target=lambda call=call: results.append(call())) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    watcher.join()
    time.sleep(1)
    return results, max(peak)


def request(url: str, body: dict | None = None) -> tuple[int, float]:
    """GET `url`, or POST `body` to it as the page does: its status and seconds (an error's body printed)."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    origin = url.split("/", 3)[:3]
    sent = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json",
                                                          "Origin": "/".join(origin)})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(sent, timeout=1200) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
        if status != 503:
            print(f"  {status}: {error.read().decode('utf-8', 'replace')[:300]}")
    return status, time.perf_counter() - start
