"""`diavolo odds`: exact tie and answer probabilities of a variant's value commands."""

from __future__ import annotations

import argparse

from diavolo_stats.cli.common import (
    add_format_argument,
    add_variant_arguments,
    render_csv,
    render_json,
    render_table,
    variant_from_args,
)
from diavolo_stats.core.odds import exact_odds


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "odds", help="exact tie odds and each color's chance of being the answer",
        description="Exact probabilities (fractions) of a tie (grey) and of each color being the answer, "
                    "per value command. closest depends on where the dice land: use `diavolo simulate`.")
    add_variant_arguments(parser)
    add_format_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    odds = exact_odds(variant_from_args(args))
    if args.format == "json":
        print(render_json(odds.to_document()))
    elif args.format == "csv":
        rows = odds.rows()
        if odds.closest_note is not None:
            # One row per command of the variant: closest has no numbers, only why.
            rows.append({"command": "closest", "note": odds.closest_note})
        print(render_csv(rows, odds.columns() + ["note"]))
    else:
        lines = [f"Exact odds: {odds.variant.describe()}"]
        rows = odds.rows()
        if rows:
            lines.append(render_table(rows, odds.columns()))
        if odds.closest_note is not None:
            lines.append(odds.closest_note)
        print("\n".join(lines))
    return 0
