"""Play's opponents fitted from a large drill log: the time and the server's memory of one game, of the next, of
one after the log grew, and of six at once.

Starts `diavolo serve` on a copy of a synthetic log (written once with
`diavolo synth-log`, kept in --cache, as `bench_report.py` does; or --log
FILE), then opens the Play page and starts games against synthetic-average
fitted from the log: the first (the log read and fitted), the next (the fit
kept), one after a row was appended (the new row read, the players fitted
again), then six at once after another row (at most `web.busy.HEAVY_AT_ONCE`
fit at once; the others are answered 503 to try again) and six at once more.
Each line gives the statuses, the seconds and the server's peak resident
memory (VmRSS) meanwhile. The load average is printed with the figures: the
machine may be shared.

    python benchmarks/bench_play_fitted.py [--cache DIR] [--rows 1000000] [--log FILE]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import at_once, load_average, log_arguments, request, rss_bytes, synthetic_log  # noqa: E402

from diavolo_stats.core.rules import roll  # noqa: E402
from diavolo_stats.core.variant import Variant  # noqa: E402
from diavolo_stats.drill.log import DrillLog  # noqa: E402
from diavolo_stats.drill.trial import judged_trial  # noqa: E402
from diavolo_stats.web.busy import HEAVY_AT_ONCE  # noqa: E402


def grow(log: Path, player: str, trial: int) -> None:
    """One more answer of `player`'s at the end of `log`, as a drill session appends it."""
    rolled = roll(Variant(), np.random.default_rng(trial))
    DrillLog(log).append_rows([judged_trial(Variant(), rolled.command, rolled.dice, rolled.positions, "grey", 900.0,
                                            interface="terminal", player=player, session_id="bench-grow",
                                            trial=trial, timestamp=datetime.now(timezone.utc))])


def report(what: str, results: list[tuple[int, float]], peak: int) -> None:
    statuses = sorted({status for status, _ in results})
    counts = ", ".join(f"{sum(s == status for s, _ in results)} x {status}" for status in statuses)
    slowest = {status: max(seconds for s, seconds in results if s == status) for status in statuses}
    print(f"{what}: {counts}; slowest " + ", ".join(f"{status} {seconds:.2f} s" for status, seconds in
                                                     slowest.items()) + f"; server peak {peak / 1e9:.2f} GB",
          flush=True)


def main() -> None:
    parser = log_arguments(__doc__.splitlines()[0], 1_000_000)
    parser.add_argument("--log", type=Path, help="this log (copied) instead of a synthetic one")
    parser.add_argument("--opponent", default="synthetic-average", help="the player of the log to play against")
    args = parser.parse_args()
    game = {"player": "Bench", "opponents": [args.opponent]}
    source = args.log or synthetic_log(args.cache, args.rows)
    folder = Path(tempfile.mkdtemp(prefix="bench-play-"))
    log = folder / "drills.csv"
    shutil.copyfile(source, log)  # the benchmark appends to its copy
    print(f"load average before: {load_average()}")
    server = subprocess.Popen([sys.executable, "-m", "diavolo_stats", "serve", "--port", "0", "--log", str(log)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = next(word for word in server.stdout.readline().split() if word.startswith("http://")).rstrip("/")
        games = f"{url}/api/play/games"
        print(f"log: {source.name}, {log.stat().st_size / 1e6:.0f} MB; at most {HEAVY_AT_ONCE} heavy requests at "
              f"once; server memory at start {rss_bytes(server.pid) / 1e9:.2f} GB", flush=True)
        report("the Play page", *at_once(server.pid, [lambda: request(f"{url}/play")]))
        report("the Play page again", *at_once(server.pid, [lambda: request(f"{url}/play")]))
        report("first game against a fitted opponent", *at_once(server.pid, [lambda: request(games, game)]))
        report("the next game, the log unchanged", *at_once(server.pid, [lambda: request(games, game)]))
        grow(log, args.opponent, 1)
        report("a game once the log grew by a row", *at_once(server.pid, [lambda: request(games, game)]))
        grow(log, args.opponent, 2)
        report("six games at once once the log grew", *at_once(server.pid, [lambda: request(games, game)] * 6))
        report("six games at once, the log unchanged", *at_once(server.pid, [lambda: request(games, game)] * 6))
        print(f"load average after: {load_average()}")
    finally:
        server.kill()
        server.wait(10)
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
