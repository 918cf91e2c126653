"""What the server pays per summary and adaptive roll on a large drill log, once it has read it.

The web drill reads the log through `drill.log.FollowedLog`: the whole log
once, then only the rows appended since. This takes the 1,000,000-row log of
`bench_report.py` (written once into its cache), copies it, opens a
`web.trials.TrialStore` on the copy, and times, in one run:

- a full read of the figures (`load_logs(FIGURE_COLUMNS)`), the cost of every
  summary and adaptive roll before;
- the store's first look (the same full read, plus the trials it holds, read
  at the first stored trial);
- the first adaptive roll: the store reads the log's roll columns once
  (`drill.scheduler.HISTORY_COLUMNS`, with the dice and positions that tell
  each roll's type) and keeps each player's recent trials by type;
- a trial stored, then a session summary; a trial stored, then an adaptive
  roll: each as the server answers them, reading only the row just appended.

It prints each figure and its ratio to the full read, with the load average.

    python benchmarks/bench_followed_log.py [--cache DIR] [--rows 1000000] [--repeat 5]
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from datetime import datetime, timezone
from pathlib import Path

from bench_common import load_average, log_arguments, seconds, synthetic_log

from diavolo_stats.drill.log import FIGURE_COLUMNS, load_logs
from diavolo_stats.drill.summary import summarize_session
from diavolo_stats.web.api import next_roll
from diavolo_stats.web.trials import TrialStore, trial_row

SESSION = str(uuid.UUID(int=2026))


def stored_trial(store: TrialStore, number: int) -> None:
    """Trial `number` of the benchmark's session, as a browser sends it, stored."""
    rolled = next_roll(store, {"seed": "5", "trial": str(number)})
    store.add(trial_row({
        "session_id": SESSION, "trial": number, "player": "bench", "variant": "standard", "command_first": False,
        "command": rolled["command"], "dice": rolled["dice"], "positions": rolled["positions"],
        "answer": rolled["expected"], "latency_ms": 600.0, "too_early": False, "timed_out": False,
        "foreperiod_ms": float(rolled["foreperiod_ms"]), "seed": 5,
        "timestamp": datetime.now(timezone.utc).isoformat()}))


def main() -> None:
    parser = log_arguments(__doc__.splitlines()[0], 1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {load_average()}")
    source = synthetic_log(args.cache, args.rows)
    with tempfile.TemporaryDirectory(dir=args.cache) as folder:
        log = Path(folder) / "drills.csv"
        shutil.copyfile(source, log)
        full = min(seconds(lambda: load_logs([log], columns=FIGURE_COLUMNS)) for _ in range(2))
        store = TrialStore(log)
        first_look = seconds(store.figures) + seconds(lambda: stored_trial(store, 1))
        first_roll = seconds(lambda: next_roll(store, {"seed": "5", "trial": "99", "adaptive": "true",
                                                       "player": "bench"}))
        summaries, rolls = [], []
        for repeat in range(args.repeat):
            stored_trial(store, 2 + 2 * repeat)
            summaries.append(seconds(lambda: summarize_session(store.figures(), SESSION, log, "bench")))
            stored_trial(store, 3 + 2 * repeat)
            query = {"seed": "5", "trial": str(100 + repeat), "adaptive": "true", "player": "bench"}
            rolls.append(seconds(lambda query=query: next_roll(store, query)))
        rows = len(store.figures())
    print(f"{rows:,} rows: a full read of FIGURE_COLUMNS {full:.2f} s; the server's first look {first_look:.2f} s "
          f"({first_look / full:.2f}x); the first adaptive roll {first_roll:.2f} s ({first_roll / full:.2f}x)")
    print(f"after a trial is stored: a session summary {min(summaries):.3f} s ({min(summaries) / full:.3f}x the full "
          f"read), an adaptive roll {min(rolls):.3f} s ({min(rolls) / full:.3f}x); best of {args.repeat}")
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
