"""The one shape every command's result has: a document, rows and text.

Every public function behind a `diavolo` command returns an object with
these three faces, so that the command line prints any result the same way
(as json, csv or a table, and saves it to a file) and a notebook that prints a
result sees what the command line prints.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from diavolo_stats.files import csv_text


@runtime_checkable
class Result(Protocol):
    """What a command returns."""

    columns: tuple[str, ...]
    """The CSV columns of `rows()`, in order."""

    def document(self) -> dict[str, Any]:
        """The whole result as JSON-ready data (the command line's json format)."""
        ...

    def rows(self) -> list[dict[str, Any]]:
        """The result as flat rows, one dict per row keyed by `columns` (the command line's csv format)."""
        ...

    def text(self) -> str:
        """The result for people, at most 80 columns wide (the command line's table format); also `str(result)`."""
        ...


class TextResult:
    """A result printed as its text: `print(result)` in a notebook shows what the command line shows."""

    def text(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text()


class NotedRows(TextResult):
    """A result shown as its `text_columns` aligned in columns, then its `notes()`, one paragraph each."""

    text_columns: tuple[str, ...]

    def notes(self) -> list[str]:
        return []

    def text(self) -> str:
        notes = [wrap(note) for note in self.notes()]
        aligned = render_fitted(self.rows(), self.text_columns, keep=2)
        return "\n".join([aligned, "", *notes]) if notes else aligned


TEXT_WIDTH = 80
"""The widest line `text()` gives (a terminal's usual width)."""

FORMATS = ("table", "csv", "json")
"""How a result can be printed: `text()`, `rows()` as CSV, `document()` as JSON."""


def render(result: Result, output_format: str) -> str:
    """`result` printed in `output_format` (one of FORMATS)."""
    if output_format == "json":
        return render_json(result.document())
    if output_format == "csv":
        return render_csv(result.rows(), result.columns)
    return result.text()


def render_aligned(rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
                 headers: Mapping[str, str] | None = None, digits: int = 6) -> str:
    """Rows as an aligned plain-text table, numbers right-aligned, floats with `digits` decimals;
    `headers` renames columns for display."""
    titles = [(headers or {}).get(column, column) for column in columns]
    cells = [[_cell(row.get(column), digits) for column in columns] for row in rows]
    widths = [max([len(title)] + [len(line[i]) for line in cells]) for i, title in enumerate(titles)]
    numeric = [all(isinstance(row.get(column), (int, float)) or row.get(column) is None for row in rows)
               for column in columns]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(titles), line(["-" * w for w in widths])] + [line(c) for c in cells])


def render_fitted(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], keep: int = 1,
                         headers: Mapping[str, str] | None = None, digits: int = 6) -> str:
    """`render_aligned` of as many leading `columns` as fit TEXT_WIDTH (at least `keep`), saying what was left out."""
    for count in range(len(columns), keep - 1, -1):
        aligned = render_aligned(rows, columns[:count], headers, digits)
        if count == keep or max(len(line) for line in aligned.splitlines()) <= TEXT_WIDTH:
            break
    left_out = columns[count:]
    if left_out:
        aligned += "\n" + wrap(f"(not shown, too wide: {', '.join(left_out)}; print as csv or json for them)")
    return aligned


def render_csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """Rows as CSV for stdout (`files.csv_text`: every cell guarded), without the last line end."""
    return csv_text(rows, columns).rstrip("\n")


def render_json(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


def counted(number: int, noun: str) -> str:
    """`number` and its `noun` as a result's text says them: "1 variant", "2,000 variants" (a plural in s)."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def wrap(text: str, indent: str = "") -> str:
    """A line of prose folded to TEXT_WIDTH columns (continuation lines indented by `indent`)."""
    return textwrap.fill(text, TEXT_WIDTH, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False)


def _cell(value: Any, digits: int = 6) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_cell(v, digits) for v in value) + "]"
    return str(value)

