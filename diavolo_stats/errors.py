"""The one error type for bad input from a person."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class InputError(ValueError):
    """A value a user gave is not allowed.

    `field` is the Python name of what was wrong (e.g. `dice_per_color`), or None when the message names the
    thing itself (a file, a line of a file). The message says what is wrong and what is allowed in one line:
    `str(error)` reads `dice_per_color: must be at least 1, got 0`. The command line turns the field into its
    flag, prints the line and exits with status 2.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


@contextmanager
def about(field: str) -> Iterator[None]:
    """Say an InputError raised inside as a problem with `field` (e.g. a file error about an output folder)."""
    try:
        yield
    except InputError as error:
        raise InputError(error.message, field=field) from None
