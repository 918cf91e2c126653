"""`diavolo log upgrade FILE`: rewrite a drill log of an older schema as the current one, keeping a backup."""

from __future__ import annotations

import argparse

from diavolo_stats.cli.common import add_format_argument, path_type, print_result


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "log", help="look after drill logs (upgrade an older schema)",
        description="Look after drill log files.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    upgrade = actions.add_parser(
        "upgrade", handler=run_upgrade,
        help="rewrite a schema-1 drill log as schema 2, keeping the original as FILE.schema1.bak",
        description="Rewrite a drill log of schema 1 as schema 2: every row is kept as it was, with the "
                    "columns interface (terminal) and accepted (its expected answer) added. The original "
                    "is kept beside it as FILE.schema1.bak; the new log replaces it whole.")
    upgrade.add_argument("path", type=path_type(), metavar="FILE", help="the drill log to upgrade")
    add_format_argument(upgrade)


def run_upgrade(args: argparse.Namespace) -> int:
    from diavolo_stats.drill.log import upgrade_log

    print_result(upgrade_log(args.path), args.format)
    return 0
