"""`diavolo simulate`: Monte Carlo tie frequency of every command."""

from __future__ import annotations

from diavolo_stats.cli.common import (
    add_format_argument,
    add_out_argument,
    add_seed_argument,
    add_variant_arguments,
    print_result,
    progress_bar,
    save_csv,
    value_type,
    variant_from_args,
)
from diavolo_stats.core.simulate import DEFAULT_CHUNK_ROUNDS, MAX_ROUNDS, MAX_WORKERS, simulate


def register(subparsers) -> None:
    # Each count is read by the rule `simulate` declares for it, not stated again here.
    counts = {name: value_type(simulate.rules[name]) for name in ("rounds", "workers", "chunk_rounds")}
    parser = subparsers.add_parser(
        "simulate", handler=run, help="estimate each command's tie frequency by rolling many rounds",
        description="Roll many rounds (vectorized, in seeded blocks) and report, for every command, "
                    "how often it ties, with a 95% interval and the distance from the exact value.")
    parser.add_argument("--rounds", type=counts["rounds"], default=1_000_000, metavar="N",
                        help=f"rounds to roll, 1 to {MAX_ROUNDS:,} (default 1,000,000); memory stays flat")
    add_seed_argument(parser)
    parser.add_argument("--workers", type=counts["workers"], default=1, metavar="W",
                        help=f"processes to spread the rounds over, 1 to {MAX_WORKERS} here (4 per CPU; default 1); "
                             "never more than there are chunks")
    parser.add_argument("--chunk-rounds", type=counts["chunk_rounds"], default=DEFAULT_CHUNK_ROUNDS,
                        metavar="N", help=f"rounds handed to a process at a time, 1 to {MAX_ROUNDS:,} "
                                          f"(default {DEFAULT_CHUNK_ROUNDS:,}); does not change the numbers")
    add_out_argument(parser, "the result table, one row per command,")
    add_format_argument(parser)
    add_variant_arguments(parser)


def run(args) -> int:
    update, close = progress_bar(args.rounds, "rounds")
    try:
        result = simulate(variant_from_args(args), args.rounds, seed=args.seed, workers=args.workers,
                          chunk_rounds=args.chunk_rounds, progress=update)
    finally:
        close()
    if args.out is not None:
        save_csv(args.out, result.rows(), result.columns)
    print_result(result, args.format)
    return 0
