"""The one shape every command's result has: a document, rows and text.

Every public function behind a `diavolo` command returns an object with
these three faces, so that the command line prints any result the same way
(as json, csv or a table, and saves it to a file) and a notebook that prints a
result sees what the command line prints.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


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
