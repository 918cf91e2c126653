"""What every subcommand shares: one-line errors, output formats, variant flags."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from diavolo_stats.errors import InputError

EXIT_USAGE = 2
FORMATS = ("table", "csv", "json")


def fail(message: str) -> int:
    """Print a one-line error and return the usage exit status."""
    print(f"diavolo: error: {message}", file=sys.stderr)
    return EXIT_USAGE


class OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, with no usage dump."""

    def error(self, message: str):  # type: ignore[override]
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def add_format_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=FORMATS, default="table",
        help="table for people (default), csv or json for scripts",
    )


def positive_int(flag: str, minimum: int = 1):
    """An argparse type: a whole number of at least `minimum`, named by its flag in errors."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{flag} must be at least {minimum}, got {value}")
        return value

    return parse


def non_negative_float(flag: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a number, got {text!r}") from None
        if not value >= 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"{flag} must be a finite number of 0 or more, got {text}")
        return value

    return parse


def writable_path(flag: str):
    """An argparse type: a file path whose folder exists and can be written, checked before any work."""

    def parse(text: str) -> Path:
        path = Path(text)
        folder = path.parent if str(path.parent) else Path(".")
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{flag} must be a file path, {text!r} is a folder")
        if not folder.is_dir():
            raise argparse.ArgumentTypeError(f"{flag}: folder {str(folder)!r} does not exist")
        import os

        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise argparse.ArgumentTypeError(f"{flag}: cannot write to {text!r}")
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
    return value


def require(condition: bool, message: str) -> None:
    """Raise InputError(message) unless condition holds."""
    if not condition:
        raise InputError(message)
