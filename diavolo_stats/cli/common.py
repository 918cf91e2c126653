"""What every subcommand shares: one-line errors, output formats, variant flags."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from diavolo_stats.errors import InputError
from diavolo_stats.files import guard_cell

EXIT_USAGE = 2
FORMATS = ("table", "csv", "json")


def fail(message: str) -> int:
    """Print a one-line error and return the usage exit status."""
    print(f"diavolo: error: {message}", file=sys.stderr)
    return EXIT_USAGE


class OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, with no usage dump, in the form every error has."""

    def error(self, message: str):  # type: ignore[override]
        sys.exit(fail(message))


def add_format_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=FORMATS, default="table",
        help="table for people (default), csv or json for scripts",
    )


def positive_int(minimum: int = 1):
    """An argparse type: a whole number of at least `minimum` (argparse names the flag in errors)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def non_negative_float():
    """An argparse type: a finite number of 0 or more."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        if not value >= 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be a finite number of 0 or more, got {text}")
        return value

    return parse


def writable_path():
    """An argparse type: a file path whose folder exists and can be written, checked before any work."""

    def parse(text: str) -> Path:
        path = Path(text)
        folder = path.parent if str(path.parent) else Path(".")
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
        if not folder.is_dir():
            raise argparse.ArgumentTypeError(f"folder {str(folder)!r} does not exist")
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise argparse.ArgumentTypeError(f"cannot write to {text!r}")
        return path

    return parse


def render_table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """Rows as an aligned plain-text table; numbers right-aligned."""
    cells = [[_cell(row.get(column)) for column in columns] for row in rows]
    widths = [max([len(column)] + [len(line[i]) for line in cells]) for i, column in enumerate(columns)]
    numeric = [all(isinstance(row.get(column), (int, float)) or row.get(column) is None for row in rows)
               for column in columns]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(columns), line(["-" * w for w in widths])] + [line(c) for c in cells])


def render_csv(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_cell(v) for k, v in row.items()})
    return buffer.getvalue().rstrip("\n")


def render_json(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    return str(value)


def _csv_cell(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return json.dumps(value)
    return guard_cell(value)


def error_line(error: InputError, parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """A library error as the command line says it: the field named by its flag.

    The flag is the option, among the parsers `args` went through, whose `dest`
    is the error's field (each option's dest is the library's parameter name);
    an error about no field, or a field no option sets, is printed as it is.
    """
    if error.field is None:
        return error.message
    for action in _actions_used(parser, args):
        if action.dest == error.field:
            name = max(action.option_strings, key=len) if action.option_strings else action.metavar or action.dest
            return f"{name}: {error.message}"
    return str(error)


def _actions_used(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[argparse.Action]:
    """The actions of `parser` and of every subcommand parser `args` chose, outermost first."""
    actions = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and getattr(args, action.dest, None) in action.choices:
            actions += _actions_used(action.choices[getattr(args, action.dest)], args)
    return actions


def add_variant_arguments(parser: argparse.ArgumentParser, table: bool = True) -> None:
    """The flags that choose a game variant (and, with `table`, the table model for `closest`)."""
    from diavolo_stats.core.variant import PRESETS

    group = parser.add_argument_group("game variant")
    group.add_argument("--variant", choices=tuple(PRESETS), default="standard",
                       help="preset to start from: standard (3 dice per color) or kids (2)")
    group.add_argument("--dice-per-color", type=positive_int(), metavar="N",
                       help="dice in each color (overrides the preset)")
    group.add_argument("--colors", metavar="C1,C2,...", help="color names, comma-separated (default black,red,white)")
    group.add_argument("--sides", type=positive_int(2), metavar="N", help="faces per die (default 6)")
    group.add_argument("--commands", metavar="CMD,...",
                       help="commands on the command die, comma-separated (default: all six)")
    if table:
        from diavolo_stats.core.table_model import TableModel

        defaults = TableModel()
        group.add_argument("--tolerance", type=non_negative_float(), default=defaults.tolerance,
                           help="closest: distances within this fraction of the nearest tie "
                                f"(default {defaults.tolerance})")
        group.add_argument("--scatter-mm", type=non_negative_float(), default=defaults.scatter_mm,
                           help=f"closest: side of the square the dice land in, mm (default {defaults.scatter_mm:g})")
        group.add_argument("--die-mm", type=non_negative_float(), default=defaults.die_mm,
                           help=f"closest: edge of a die, mm (default {defaults.die_mm:g})")


def variant_from_args(args: argparse.Namespace):
    """The Variant the variant flags describe; InputError (naming the field) if it is not allowed."""
    import dataclasses

    from diavolo_stats.core.table_model import TableModel
    from diavolo_stats.core.variant import Command, Variant

    base = Variant.preset(args.variant)
    changes: dict[str, Any] = {}
    if args.dice_per_color is not None:
        changes["dice_per_color"] = args.dice_per_color
    if args.sides is not None:
        changes["sides"] = args.sides
    if args.colors is not None:
        changes["colors"] = tuple(c.strip() for c in args.colors.split(","))
    if args.commands is not None:
        changes["commands"] = tuple(Command.parse(c) for c in args.commands.split(",") if c.strip())
    if hasattr(args, "tolerance"):
        changes["table"] = TableModel(scatter_mm=args.scatter_mm, die_mm=args.die_mm, tolerance=args.tolerance)
    return dataclasses.replace(base, **changes)


def progress_bar(total: int, unit: str):
    """A progress callback for `total` units drawn on stderr, or None when output is not a terminal.

    Returns (callback, close). The bar appears only once a run has taken a second.
    """
    if not (sys.stderr.isatty() and sys.stdout.isatty()):
        return None, lambda: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, unit_scale=True, delay=1.0, leave=False, file=sys.stderr)

    def update(done: int) -> None:
        bar.update(done - bar.n)

    return update, bar.close
