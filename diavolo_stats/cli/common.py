"""What every subcommand shares: one-line errors, output formats, variant flags."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from diavolo_stats.core.variant_file import variant_named
from diavolo_stats.errors import InputError
from diavolo_stats.files import check_target, csv_text, too_long, write_atomically
from diavolo_stats.results import FORMATS, Result, render
from diavolo_stats.validation import FilePath, Rule, Whole, check_value, declared

EXIT_USAGE = 2


def one_line(message: str) -> str:
    """`message` on one line: a line break that slipped in (a file name holding one) shown as \\n."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


def fail(message: str) -> int:
    """Print a one-line error and return the usage exit status."""
    print(f"diavolo: error: {one_line(message)}", file=sys.stderr)
    return EXIT_USAGE


_ARGPARSE_NAMING = re.compile(r"^argument (\S+): ")
"""How argparse names the flag (or argument) a refusal is about: `argument --out: ...`."""


def _flag_first(message: str) -> str:
    """An argparse refusal in the library's form, `--out: ...`: the flag (its longest spelling) first, as
    `error_line` names a field's flag."""
    return _ARGPARSE_NAMING.sub(lambda named: max(named[1].split("/"), key=len) + ": ", message)


class Subcommand(NamedTuple):
    """A subcommand as its parent parser lists it: its one-line help and its own parser."""

    help: str
    parser: OneLineErrorParser


class OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, with no usage dump, in the form every error has.

    It knows the flag a user types for each destination (`flag_for`), so that a library error about a parameter
    names the flag; a subcommand's parser is carried in the parsed arguments (`COMMAND_PARSER`). It lists what it
    accepts without argparse's private attributes, for the manual and the tests: `options()`, `sections()`,
    `subcommands()` and `walk()`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Before ArgumentParser adds --help through add_argument.
        self.flags: dict[str, str] = {}
        self._sections: dict[str, list[argparse.Action]] = {"arguments": [], "options": []}
        self._subcommands: dict[str, Subcommand] = {}
        super().__init__(*args, **kwargs)
        self.set_defaults(**{COMMAND_PARSER: self})

    def error(self, message: str):  # type: ignore[override]
        sys.exit(fail(_flag_first(message)))

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        return self._named(super().add_argument(*args, **kwargs))

    def add_argument_group(self, *args: Any, **kwargs: Any):
        return self._naming(super().add_argument_group(*args, **kwargs))

    def add_mutually_exclusive_group(self, *args: Any, **kwargs: Any):
        return self._naming(super().add_mutually_exclusive_group(*args, **kwargs))

    def add_subparsers(self, **kwargs: Any):
        """argparse's, with each subcommand added recorded for `subcommands()`; `add_parser(name, handler=run,
        ...)` sets the function that runs it (`handler`: parsed arguments to exit status)."""
        action = super().add_subparsers(**kwargs)
        add_parser = action.add_parser

        def add(name: str, handler: Callable[[argparse.Namespace], int] | None = None,
                **options: Any) -> OneLineErrorParser:
            parser = add_parser(name, **options)
            if handler is not None:  # a command that runs (not one that only holds subcommands)
                parser.set_defaults(handler=handler)
            self._subcommands[name] = Subcommand(options.get("help") or "", parser)
            return parser

        action.add_parser = add
        return action

    def flag_for(self, dest: str) -> str | None:
        """The flag (its longest spelling) or the positional argument that sets `dest`, or None."""
        return self.flags.get(dest)

    def sections(self) -> dict[str, list[argparse.Action]]:
        """Each section of `--help` (`arguments`, `options`, then each argument group by its title) and the
        arguments and options it lists, in that order (`--help` itself among the options; no subcommands); a
        section with none is left out, as `--help` leaves it out."""
        return {title: list(actions) for title, actions in self._sections.items() if actions}

    def options(self) -> list[argparse.Action]:
        """Every argument and option of this parser, in `--help` order (its subcommands' are theirs)."""
        return [action for actions in self.sections().values() for action in actions]

    def subcommands(self) -> dict[str, Subcommand]:
        """Each subcommand's name and its help and parser, in the order `--help` lists them."""
        return dict(self._subcommands)

    def walk(self) -> Iterator[OneLineErrorParser]:
        """This parser, then every subcommand's parser and theirs, depth first."""
        yield self
        for subcommand in self._subcommands.values():
            yield from subcommand.parser.walk()

    def _named(self, action: argparse.Action, section: str | None = None) -> argparse.Action:
        self.flags[action.dest] = (max(action.option_strings, key=len) if action.option_strings
                                   else action.metavar or action.dest)
        if section is None:
            section = "options" if action.option_strings else "arguments"
        self._sections.setdefault(section, []).append(action)
        return action

    def _naming(self, group):
        """`group` with its add_argument recording the flags here too, in the group's section (a mutually
        exclusive group without a title is listed among the options, as `--help` lists it)."""
        add, section = group.add_argument, group.title
        if section is not None:
            self._sections.setdefault(section, [])  # --help lists a group where it was made
        group.add_argument = lambda *args, **kwargs: self._named(add(*args, **kwargs), section)
        return group


COMMAND_PARSER = "command_parser"
"""The parsed arguments' attribute holding the parser of the (sub)command they were parsed by."""


class Typed(tuple):
    """The items a list flag's text was read into, which an error quoting the list whole quotes as it was typed
    (`got 'red,red'`, not `got ('red', 'red')`), wherever the library checks it; a tuple in every other way."""

    text: str

    def __new__(cls, items: Sequence[Any], text: str) -> Typed:
        typed = super().__new__(cls, items)
        typed.text = text
        return typed

    def __repr__(self) -> str:
        return repr(self.text)


def read_text(rule: Rule, text: str) -> Any:
    """The value a flag's `text` stands for, read by `rule.from_text`, not yet checked; a list as `Typed`."""
    value = rule.from_text(text)
    return Typed(value, text) if isinstance(value, tuple) else value


def value_type(rule: Rule):
    """An argparse type: the value a flag's text stands for (`read_text`) kept as `rule` keeps it (the library's
    own check), refused with the library's message (argparse names the flag)."""

    def parse(text: str) -> Any:
        try:
            return check_value("", read_text(rule, text), rule)
        except InputError as error:
            raise argparse.ArgumentTypeError(error.message) from None

    return parse


def read_type(rule: Rule):
    """An argparse type: the value a flag's text stands for (`read_text`), not yet checked, for a flag the
    library checks against another flag's value (`--commands`: among a `--variant` file's own)."""
    return lambda text: read_text(rule, text)


SEED = Whole(0)
"""A seed: a whole number of 0 or more."""


def add_seed_argument(parser: argparse.ArgumentParser) -> None:
    """`--seed` of a command that draws fresh entropy without one and prints it, so any run can be repeated."""
    parser.add_argument("--seed", type=value_type(SEED), metavar="S",
                        help="make the run repeatable: a whole number of 0 or more (default: fresh entropy, printed)")


def add_format_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=FORMATS, default="table",
        help="table for people (default), csv or json for scripts",
    )


def path_type(noun: str = "file"):
    """An argparse type for a flag that names a file (or a folder, `noun`): the path as typed, refused when it is
    empty or blank (`FilePath`), which names nothing, where `Path("")` would be the current folder and `x or
    DEFAULT` would put the default in its place, and when it is too long for the system (`files.too_long`),
    which each of its later uses would meet without knowing the flag."""
    check = value_type(FilePath(noun))

    def parse(text: str) -> str:
        check(text)
        problem = too_long(text)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return text

    return parse


def writable_path():
    """An argparse type: a file path that may be written (not empty, `path_type`; `files.check_target`: no link,
    no device, a folder that exists), checked before any work."""

    def parse(text: str) -> Path:
        path_type()(text)
        try:
            check_target(Path(text))
        except InputError as error:
            raise argparse.ArgumentTypeError(error.message) from None
        return Path(text)

    return parse


def add_out_argument(parser: argparse.ArgumentParser, rows: str) -> None:
    """`--out FILE.csv`: also save `rows` as CSV, whole or not at all and never through a link, the path checked
    (`writable_path`) before any work."""
    parser.add_argument("--out", type=writable_path(), metavar="FILE.csv",
                        help=f"also save {rows} as CSV (written whole or not at all; not through a link)")


def print_result(result: Result, output_format: str) -> None:
    """Print any command's result in the chosen `--format` (the one printer every subcommand uses)."""
    print(render(result, output_format))


def save_csv(path: Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """Save rows as CSV for `--out` (`files.csv_text`: cells guarded), whole or not at all, never through a link."""
    write_atomically(path, csv_text(rows, columns))


def error_line(error: InputError, args: argparse.Namespace) -> str:
    """A library error as the command line says it: the field named by the flag that sets it.

    The flag is the option of the (sub)command `args` were parsed by whose
    `dest` is the error's field (each option's dest is the library's parameter
    name); an error about no field, or a field no option sets, is printed as it is.
    """
    flag = getattr(args, COMMAND_PARSER).flag_for(error.field) if error.field is not None else None
    return f"{flag}: {error.message}" if flag is not None else str(error)


def add_variant_arguments(parser: argparse.ArgumentParser, table: bool = True) -> None:
    """The flags that choose a game variant (and, with `table`, the table model for `closest`)."""
    from diavolo_stats.core.variant import MAX_COLORS, MAX_DICE_PER_COLOR, MAX_SIDES, PRESETS, Variant

    lists = declared(Variant, ("colors", "commands"))[0]
    group = parser.add_argument_group("game variant")
    group.add_argument("--variant", default="standard", metavar="NAME|FILE",
                       help=f"the game to start from: a preset ({' or '.join(PRESETS)}: 3 or 2 dice per color) "
                            "or a variant file (.toml) with its own dice, commands and command die")
    group.add_argument("--dice-per-color", type=value_type(Whole(1, MAX_DICE_PER_COLOR)), metavar="N",
                       help=f"dice in each color, 1 to {MAX_DICE_PER_COLOR} (overrides the preset)")
    group.add_argument("--colors", type=value_type(lists["colors"]), metavar="C1,C2,...",
                       help=f"2 to {MAX_COLORS} color names, comma-separated (default black,red,white)")
    group.add_argument("--sides", type=value_type(Whole(2, MAX_SIDES)), metavar="N",
                       help=f"faces per die, 2 to {MAX_SIDES} (default 6)")
    group.add_argument("--commands", type=read_type(lists["commands"]), metavar="CMD,...",
                       help="commands on the command die, comma-separated (default: all six, or a variant file's die)")
    if table:
        from diavolo_stats.core.table_model import MAX_SCATTER_MM, MAX_TOLERANCE, TableModel

        defaults, rules = TableModel(), declared(TableModel, ("tolerance", "scatter_mm", "die_mm"))[0]
        group.add_argument("--tolerance", type=value_type(rules["tolerance"]), default=defaults.tolerance,
                           help="closest: distances within this fraction of the nearest tie, "
                                f"0 to {MAX_TOLERANCE:g} (default {defaults.tolerance})")
        group.add_argument("--scatter-mm", type=value_type(rules["scatter_mm"]), default=defaults.scatter_mm,
                           help="closest: side of the square the dice land in, mm, larger than the die and at most "
                                f"{MAX_SCATTER_MM:g} (default {defaults.scatter_mm:g})")
        group.add_argument("--die-mm", type=value_type(rules["die_mm"]), default=defaults.die_mm,
                           help=f"closest: edge of a die, mm, above 0 (default {defaults.die_mm:g})")


def variant_from_args(args: argparse.Namespace):
    """The Variant the variant flags describe; InputError (naming the field) if it is not allowed."""
    import dataclasses

    from diavolo_stats.core.table_model import TableModel

    base = variant_named(args.variant)
    changes: dict[str, Any] = {}
    if args.dice_per_color is not None:
        changes["dice_per_color"] = args.dice_per_color
    if args.sides is not None:
        changes["sides"] = args.sides
        changes["faces"] = None  # dice valued 1..sides, in place of the file's faces
    if args.colors is not None:
        changes["colors"] = args.colors
    if args.commands is not None:
        changes["commands"] = base.commands_named(args.commands)
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
