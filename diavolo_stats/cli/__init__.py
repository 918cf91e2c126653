"""The `diavolo` command: a thin skin over the library.

Each subcommand lives in its own module with a `register(subparsers)`
function that adds its parser with its `handler`, a function taking the
parsed arguments and returning an exit status. Every handler calls one public
library function and prints what it returns.
"""

import sys

# Subcommand modules, in the order `diavolo --help` lists them.
SUBCOMMANDS = ("odds", "simulate", "sweep", "drill", "log", "synth-log", "report", "players", "game", "minodice",
               "serve")


def build_parser(argv: list[str] | None = None):
    """The `diavolo` parser with every subcommand's (a `common.OneLineErrorParser`); when `argv` starts with a
    subcommand's name, with that one's alone: each subcommand's module loads the defaults it shows, and one
    command need not load the others' (Minodice's dice alone take a tenth of a second)."""
    import importlib

    from diavolo_stats import __version__
    from diavolo_stats.cli.common import OneLineErrorParser

    parser = OneLineErrorParser(
        prog="diavolo",
        description="Tie odds, simulation, reaction drills and analytics for Diavolo and Minodice.",
    )
    parser.add_argument("--version", action="version", version=f"diavolo_stats {__version__}")
    subparsers = parser.add_subparsers(dest="subcommand", metavar="COMMAND", required=True)
    for name in argv[:1] if argv and argv[0] in SUBCOMMANDS else SUBCOMMANDS:
        importlib.import_module(f"diavolo_stats.cli.{name.replace('-', '_')}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `diavolo ARGV` (default: the process's arguments); the exit status.

    Ctrl-C at any moment, while the command's modules load included, ends it
    with one line and status 130 (`interrupted`). This file imports nothing but
    `sys` (loaded with the interpreter), so no start-up work happens outside
    this function; the program's entry point, `diavolo_stats.__main__.main`,
    loads this file under the same guard.
    """
    try:
        return _run(argv)
    except KeyboardInterrupt:
        return interrupted()


def interrupted() -> int:
    """Say that Ctrl-C stopped the command, in one line; the exit status (130, as a shell gives 128 + SIGINT)."""
    print("diavolo: interrupted", file=sys.stderr)
    return 130


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    # What the library warns of (a row a reader skipped, a cut last row moved aside) is news to the user,
    # not a bug report: one line, like an error, without Python's file, line and source excerpt.
    print(f"diavolo: warning: {message}", file=sys.stderr)


def _run(argv: list[str] | None) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _warning_line
        return _command(argv)


def _command(argv: list[str] | None) -> int:
    from diavolo_stats.cli.common import error_line, fail
    from diavolo_stats.errors import InputError

    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except InputError as error:
        return fail(error_line(error, args))
    except BrokenPipeError:
        # `diavolo ... | head`: the reader left; nothing more to say.
        sys.stderr.close()
        return 0
    except OSError as error:
        # The system refused: a full disk, a folder this process may not write, a device gone.
        return fail(f"{error.filename}: {error.strerror}" if error.filename else str(error.strerror or error))

