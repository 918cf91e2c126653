"""A budget of work for one computation, and a switch that stops it: what a server gives each request's exact odds.

The budget counts steps of the exact engine's dynamic program (`distributions.figure_distribution`), not wall
time, so a variant is answered the same way on a quiet machine and a loaded one. Past the budget the work ends
with one InputError; once `stop` is called (from another thread, when the client has left) it ends at its next
step with `Stopped`.
"""

from __future__ import annotations

import threading

from diavolo_stats.errors import InputError


class Stopped(Exception):
    """The computation was stopped from outside before it finished."""


class WorkBudget:
    """At most `steps` steps of work for `what` (the words a refusal names it by)."""

    def __init__(self, steps: int, what: str):
        self.steps, self.what, self.spent = steps, what, 0
        self._stopped = threading.Event()

    def spend(self, steps: int) -> None:
        """Count `steps` more steps; Stopped once `stop` was called, InputError past the budget."""
        self.spent += steps
        if self._stopped.is_set():
            raise Stopped(self.what)
        if self.spent > self.steps:
            raise InputError(f"the exact odds need more than {self.steps:,} steps of work, {self.what}; "
                             "`diavolo odds` computes them without this bound, `diavolo simulate` estimates them",
                             field="commands")

    def stop(self) -> None:
        """Stop the work at its next step (safe from any thread)."""
        self._stopped.set()
