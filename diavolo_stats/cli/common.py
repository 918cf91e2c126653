"""What every subcommand shares: one-line errors, output formats, variant flags."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from diavolo_stats.errors import InputError
from diavolo_stats.files import check_target, csv_text, write_atomically
from diavolo_stats.results import FORMATS, Result, render
from diavolo_stats.validation import DECIMAL_NUMBER, MAX_DIGITS, WHOLE_NUMBER

EXIT_USAGE = 2


def one_line(message: str) -> str:
    """`message` on one line: a line break that slipped in (a file name holding one) shown as \\n."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


def fail(message: str) -> int:
    """Print a one-line error and return the usage exit status."""
    print(f"diavolo: error: {one_line(message)}", file=sys.stderr)
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




def whole_number(text: str) -> int | None:
    """The number `text` writes in plain ASCII digits (at most MAX_DIGITS), else None."""
    text = text.strip()
    return int(text) if len(text) <= MAX_DIGITS and WHOLE_NUMBER.fullmatch(text) else None


def positive_int(minimum: int = 1, maximum: int | None = None):
    """An argparse type: a whole number in ASCII digits from `minimum` to `maximum` (argparse names the flag)."""
    allowed = f"from {minimum:,} to {maximum:,}" if maximum is not None else f"of at least {minimum}"

    def parse(text: str) -> int:
        value = whole_number(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"must be a whole number {allowed} in digits 0-9, got {text!r}")
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"must be a whole number {allowed}, got {value:,}")
        return value

    return parse


def non_negative_float(maximum: float | None = None):
    """An argparse type: a number in ASCII digits (a point and an exponent allowed) from 0 to `maximum`."""
    allowed = f"from 0 to {maximum:g}" if maximum is not None else "of 0 or more"

    def parse(text: str) -> float:
        if not DECIMAL_NUMBER.fullmatch(text.strip()) or len(text) > MAX_DIGITS:
            raise argparse.ArgumentTypeError(f"must be a number {allowed} in digits 0-9, got {text!r}")
        value = float(text)
        if value == float("inf") or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"must be a number {allowed}, got {text}")
        return value

    return parse


def writable_path():
    """An argparse type: a file path that may be written (`files.check_target`: no link, no device, a folder
    that exists), checked before any work."""

    def parse(text: str) -> Path:
        try:
            check_target(Path(text))
        except InputError as error:
            raise argparse.ArgumentTypeError(error.message) from None
        return Path(text)

    return parse


def print_result(result: Result, output_format: str) -> None:
    """Print any command's result in the chosen `--format` (the one printer every subcommand uses)."""
    print(render(result, output_format))


def save_csv(path: Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """Save rows as CSV for `--out` (`files.csv_text`: cells guarded), whole or not at all, never through a link."""
    write_atomically(path, csv_text(rows, columns))


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
    from diavolo_stats.core.variant import MAX_COLORS, MAX_DICE_PER_COLOR, MAX_SIDES, PRESETS

    group = parser.add_argument_group("game variant")
    group.add_argument("--variant", default="standard", metavar="NAME|FILE",
                       help=f"the game to start from: a preset ({' or '.join(PRESETS)}: 3 or 2 dice per color) "
                            "or a variant file (.toml) with its own dice, commands and command die")
    group.add_argument("--dice-per-color", type=positive_int(1, MAX_DICE_PER_COLOR), metavar="N",
                       help=f"dice in each color, 1 to {MAX_DICE_PER_COLOR} (overrides the preset)")
    group.add_argument("--colors", metavar="C1,C2,...",
                       help=f"2 to {MAX_COLORS} color names, comma-separated (default black,red,white)")
    group.add_argument("--sides", type=positive_int(2, MAX_SIDES), metavar="N",
                       help=f"faces per die, 2 to {MAX_SIDES} (default 6)")
    group.add_argument("--commands", metavar="CMD,...",
                       help="commands on the command die, comma-separated (default: all six, or a variant file's die)")
    if table:
        from diavolo_stats.core.table_model import MAX_SCATTER_MM, MAX_TOLERANCE, TableModel

        defaults = TableModel()
        group.add_argument("--tolerance", type=non_negative_float(MAX_TOLERANCE), default=defaults.tolerance,
                           help="closest: distances within this fraction of the nearest tie, "
                                f"0 to {MAX_TOLERANCE:g} (default {defaults.tolerance})")
        group.add_argument("--scatter-mm", type=non_negative_float(MAX_SCATTER_MM), default=defaults.scatter_mm,
                           help="closest: side of the square the dice land in, mm, larger than the die and at most "
                                f"{MAX_SCATTER_MM:g} (default {defaults.scatter_mm:g})")
        group.add_argument("--die-mm", type=non_negative_float(), default=defaults.die_mm,
                           help=f"closest: edge of a die, mm, above 0 (default {defaults.die_mm:g})")


def variant_from_args(args: argparse.Namespace):
    """The Variant the variant flags describe; InputError (naming the field) if it is not allowed."""
    import dataclasses

    from diavolo_stats.core.table_model import TableModel
    from diavolo_stats.core.variant import Variant

    base = Variant.named(args.variant)
    changes: dict[str, Any] = {}
    if args.dice_per_color is not None:
        changes["dice_per_color"] = args.dice_per_color
    if args.sides is not None:
        changes["sides"] = args.sides
        changes["faces"] = None  # dice valued 1..sides, in place of the file's faces
    if args.colors is not None:
        changes["colors"] = tuple(c.strip() for c in args.colors.split(","))
    if args.commands is not None:
        changes["commands"] = tuple(base.command(c) for c in args.commands.split(",") if c.strip())
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

    # Millions of rounds read best as 1.00M; a few hundred variants as whole numbers, not 25.0/200.
    bar = tqdm(total=total, unit=unit, unit_scale=total >= 10_000, delay=1.0, leave=False, file=sys.stderr)

    def update(done: int) -> None:
        bar.update(done - bar.n)

    return update, bar.close
