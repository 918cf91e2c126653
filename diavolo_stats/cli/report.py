"""`diavolo report`: drill logs into summary.csv, PNG charts and a self-contained report.html."""

from __future__ import annotations

import argparse
import gc
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from diavolo_stats.cli.common import add_format_argument, path_type, print_result


def register(subparsers) -> None:
    # Defaults are named, not imported: importing the report (matplotlib, scipy) here would slow
    # every `diavolo` command; `run` takes them from the library.
    parser = subparsers.add_parser(
        "report", handler=run, help="charts and a summary of drill logs (accuracy, latency, learning, tie odds)",
        description="Summarize drill logs per player and command (accuracy with a Wilson 95% interval, "
                    "median latency of correct answers, ex-Gaussian fit), draw the charts and write "
                    "summary.csv, PNG files and one self-contained report.html.")
    parser.add_argument("--log", dest="log_paths", nargs="+", type=path_type(), metavar="PATH",
                        help="drill logs to read (default: $DIAVOLO_LOG, else data/drills.csv)")
    parser.add_argument("--player", dest="players", nargs="+", metavar="NAME",
                        help="only these players (default: everyone)")
    parser.add_argument("--out", dest="out_dir", type=path_type("folder"), metavar="DIR",
                        help="folder to write into, created if needed (default data/reports)")
    parser.add_argument("--simulation", dest="simulation_path", type=path_type(), metavar="FILE.csv",
                        help="saved `diavolo simulate --out` results to set against the exact odds of the game "
                             "of the log they were simulated for (default, and for the log's other games: "
                             "data/simulation_<variant>.csv if present, else a fresh 1,000,000-round simulation)")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    # matplotlib logs a one-time font-cache notice (and a cache-folder warning where $HOME is
    # read-only) on first import: housekeeping, not something the report's reader must see.
    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    # A report is one batch whose objects live to its end: the garbage collector's passes over the hundreds of
    # thousands that pandas, scipy and matplotlib make as they load find nothing worth their time (the report's
    # memory on a million-row log is the same without them). Back on after, for a caller that goes on.
    collecting = gc.isenabled()
    gc.disable()
    try:
        from diavolo_stats.analytics.chart_processes import report_worker

        # Forked first, with the collector off and matplotlib's logging set: it imports pandas and the charts on
        # the other core while this process imports the report.
        with report_worker() as worker:
            from diavolo_stats.analytics.report import DEFAULT_OUT, write_report
            from diavolo_stats.drill.log import default_log_path

            with _freed_pages_kept():
                report = write_report([default_log_path()] if args.log_paths is None else args.log_paths,
                                      DEFAULT_OUT if args.out_dir is None else args.out_dir,
                                      players=args.players, simulation_path=args.simulation_path, worker=worker)
    finally:
        if collecting:
            # What the report made is now the old generation, unscanned (freeze then unfreeze moves every object
            # there): enabling with them young would make the next allocation scan them all (0.1 s on the sample).
            gc.freeze()
            gc.unfreeze()
            gc.enable()
    print_result(report, args.format)
    return 0


@contextmanager
def _freed_pages_kept() -> Iterator[None]:
    """pyarrow's default pool is jemalloc's, where this pyarrow has it, for this one batch; then the one it was.

    Arrow's default pool (mimalloc) gives freed pages back to the system within milliseconds, so the batch's
    Arrow work after the read (columns cast, taken and compared; the log's parser has its own pool,
    `reader.parse_pool`) faults them in again: on the million-row log 0.95 to 1.07 s of system time with this,
    1.06 to 1.30 s without (three runs each, load 4.5 to 5.5). A server keeps the default: it hands its memory
    back after each heavy request (`web.busy`).
    """
    import pyarrow  # the log's reader's: loaded here, not for every `diavolo` command

    pool = pyarrow.default_memory_pool()
    try:
        pyarrow.set_memory_pool(pyarrow.jemalloc_memory_pool())
    except NotImplementedError:  # a pyarrow built without it (Windows)
        pass
    try:
        yield
    finally:
        pyarrow.set_memory_pool(pool)
