"""The `diavolo` command: a thin skin over the library.

Each subcommand lives in its own module with a `register(subparsers)`
function that adds its parser and sets `handler`, a function taking the
parsed arguments and returning an exit status. Every handler calls one public
library function and prints what it returns.
"""

from __future__ import annotations

import importlib
import sys

from diavolo_stats import __version__
from diavolo_stats.cli.common import OneLineErrorParser, error_line, fail
from diavolo_stats.errors import InputError

# Subcommand modules, in the order `diavolo --help` lists them.
SUBCOMMANDS = ("odds", "simulate", "sweep", "drill", "log", "synth-log", "report", "players", "game", "minodice",
               "serve")


def build_parser() -> OneLineErrorParser:
    parser = OneLineErrorParser(
        prog="diavolo",
        description="Tie odds, simulation, reaction drills and analytics for Diavolo and Minodice.",
    )
    parser.add_argument("--version", action="version", version=f"diavolo_stats {__version__}")
    subparsers = parser.add_subparsers(dest="subcommand", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"diavolo_stats.cli.{name.replace('-', '_')}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except InputError as error:
        return fail(error_line(error, parser, args))
    except KeyboardInterrupt:
        print("diavolo: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `diavolo ... | head`: the reader left; nothing more to say.
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
