"""`diavolo odds`: exact tie and answer probabilities of a variant's value commands."""

from __future__ import annotations

import argparse

from diavolo_stats.cli.common import add_format_argument, add_variant_arguments, print_result, variant_from_args
from diavolo_stats.core.odds import exact_odds


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "odds", handler=run, help="exact tie odds and each color's chance of being the answer",
        description="Exact probabilities (fractions) of a tie (grey) and of each color being the answer, "
                    "per value command. closest depends on where the dice land: use `diavolo simulate`.")
    add_variant_arguments(parser)
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    print_result(exact_odds(variant_from_args(args)), args.format)
    return 0
