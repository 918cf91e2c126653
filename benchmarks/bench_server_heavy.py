"""The server under many heavy requests at once: statuses, times and its memory, on a large drill log.

Starts `diavolo serve` on a synthetic log (written once with `diavolo
synth-log`, kept in --cache, as `bench_report.py` does), then sends --clients
adaptive rolls at once (the first reads the log's rolls, dice and positions
included, to keep each player's recent trials by type of roll), twice, and
prints how many were answered 200 and how many 503 (beyond
`web.busy.HEAVY_AT_ONCE`), the time of each kind, and the server's resident
memory (VmRSS) before, at its peak while they run, and after. The load
average is printed with the figures: the machine may be shared.

    python benchmarks/bench_server_heavy.py [--cache DIR] [--rows 300000] [--clients 10]
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import at_once, load_average, log_arguments, request, rss_bytes, synthetic_log  # noqa: E402

from diavolo_stats.web.busy import HEAVY_AT_ONCE  # noqa: E402


def main() -> None:
    parser = log_arguments(__doc__.splitlines()[0], 300_000)
    parser.add_argument("--clients", type=int, default=10)
    args = parser.parse_args()
    log = synthetic_log(args.cache, args.rows)
    print(f"load average before: {load_average()}")
    server = subprocess.Popen([sys.executable, "-m", "diavolo_stats", "serve", "--port", "0", "--log", str(log)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = next(word for word in server.stdout.readline().split() if word.startswith("http://")).rstrip("/")
        idle = rss_bytes(server.pid)
        roll = f"{url}/api/roll?seed=1&trial=1&adaptive=true&player=synthetic-expert"
        print(f"log: {log.name}, {log.stat().st_size / 1e6:.0f} MB; at most {HEAVY_AT_ONCE} heavy requests at once")
        one_status, one_s = request(roll)
        time.sleep(1)
        warm = rss_bytes(server.pid)
        print(f"one adaptive roll alone: status {one_status} in {one_s:.2f} s; server memory at start "
              f"{idle / 1e9:.2f} GB, 1 s after this roll {warm / 1e9:.2f} GB")
        for round_number in (1, 2):
            results, peak = at_once(server.pid, [lambda: request(roll)] * args.clients)
            ok = [s for status, s in results if status == 200]
            busy = [s for status, s in results if status == 503]
            print(f"round {round_number}: {args.clients} adaptive rolls at once: {len(ok)} answered 200 "
                  f"(slowest {max(ok, default=0):.2f} s), {len(busy)} answered 503 "
                  f"(slowest {max(busy, default=0) * 1000:.0f} ms), others {len(results) - len(ok) - len(busy)}")
            print(f"  server memory: peak {peak / 1e9:.2f} GB, 1 s after {rss_bytes(server.pid) / 1e9:.2f} GB")
        print(f"load average after: {load_average()}")
    finally:
        server.kill()
        server.wait(10)


if __name__ == "__main__":
    main()
