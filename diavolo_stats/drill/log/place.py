"""Where a drill log is: $DIAVOLO_LOG, else `data/drills.csv`; the shipped sample; what to say when none is there."""

from __future__ import annotations

import os
from pathlib import Path

LOG_ENV = "DIAVOLO_LOG"


def default_log_path() -> Path:
    """The log a drill appends to: $DIAVOLO_LOG if set, else `data/drills.csv` under the current directory."""
    configured = os.environ.get(LOG_ENV, "").strip()
    return Path(configured) if configured else Path("data") / "drills.csv"


SAMPLE_LOG = Path("data") / "sample_drills.csv"
"""The synthetic drill log shipped with the project (relative to a clone's root), to try commands before drilling."""


def missing_log_message(path: str | Path, *alternatives: str) -> str:
    """One line for a drill log that is not there: drill first, give the shipped sample if it is at hand,
    or any of `alternatives`."""
    suggestions = ["drill first"]
    if SAMPLE_LOG.is_file() and Path(path) != SAMPLE_LOG:
        suggestions.append(f"give the shipped sample, {SAMPLE_LOG.as_posix()}")
    suggestions += alternatives
    listed = suggestions[0] if len(suggestions) == 1 else ", ".join(suggestions[:-1]) + " or " + suggestions[-1]
    return f"no drill log at {str(path)!r}; {listed}"
