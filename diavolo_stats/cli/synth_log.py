"""`diavolo synth-log`: a seeded synthetic drill log of modelled players, for demos and the notebooks."""

from __future__ import annotations

import argparse

from diavolo_stats.cli.common import SEED, add_format_argument, path_type, print_result, value_type
from diavolo_stats.drill import MAX_TRIALS_PER_SESSION
from diavolo_stats.validation import Whole


def register(subparsers) -> None:
    # Defaults are named, not imported, so that building the parser stays light; `run` fills them in.
    parser = subparsers.add_parser(
        "synth-log", handler=run, help="write a synthetic drill log (modelled players, seeded)",
        description="Simulate players drilling: real rolls answered by player models that improve "
                    "session by session, written through the drill log writer. Players are logged as "
                    "synthetic-<name>. The same arguments always write the same file.")
    parser.add_argument("--log", dest="path", required=True, type=path_type(), metavar="PATH",
                        help="the log file to write")
    parser.add_argument("--players", dest="player_specs", nargs="+", metavar="SPEC",
                        help="preset:novice|average|expert or a player .toml file "
                             "(default: preset:novice preset:average preset:expert)")
    parser.add_argument("--sessions", type=value_type(Whole(1)), default=6, metavar="N",
                        help="sessions per player, one a day (default 6)")
    parser.add_argument("--trials", type=value_type(Whole(1, MAX_TRIALS_PER_SESSION)), default=60, metavar="N",
                        help=f"trials per session, 1 to {MAX_TRIALS_PER_SESSION:,} (default 60)")
    parser.add_argument("--seed", type=value_type(SEED), default=7, metavar="S", help="random seed (default 7)")
    parser.add_argument("--variant", dest="variant_names", nargs="+", choices=("standard", "kids"),
                        default=["standard"], metavar="NAME",
                        help="game drilled, standard or kids; several take turns, session by session "
                             "(default standard)")
    parser.add_argument("--no-practice", dest="practice", action="store_false",
                        help="every session as practised (default: early sessions slower, more errors)")
    parser.add_argument("--replace", action="store_true",
                        help="write over an existing file (default: refuse, so a real log is never lost)")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    from diavolo_stats.analytics.synthetic import DEFAULT_PLAYERS, write_synthetic_log

    players = DEFAULT_PLAYERS if args.player_specs is None else args.player_specs
    print_result(write_synthetic_log(args.path, players, sessions=args.sessions, trials=args.trials, seed=args.seed,
                                     variant_names=args.variant_names, practice=args.practice,
                                     replace=args.replace), args.format)
    return 0
