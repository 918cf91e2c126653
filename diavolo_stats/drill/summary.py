"""A drill session's summary: per command, the trials, accuracy and median time, and the change since before."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from diavolo_stats.drill.log.rules import command_order, with_command_labels
from diavolo_stats.drill.performance import performance
from diavolo_stats.results import TextResult, render_aligned, wrap

SUMMARY_COLUMNS = ("command", "trials", "correct", "accuracy_pct", "median_ms", "change_pp", "change_ms",
                   "anticipations", "timed_out", "earlier_trials")
# The table a person reads at the end of a session, in 80 columns, under DrillSummary.sentences().
SUMMARY_TEXT_COLUMNS = SUMMARY_COLUMNS[:7]
# Its headings in words (the CSV and JSON keep the field names): the terminal's table and the browser's.
SUMMARY_HEADINGS = {"command": "command", "trials": "trials", "correct": "correct", "accuracy_pct": "accuracy %",
                    "median_ms": "median ms", "change_pp": "change pts", "change_ms": "change ms"}


@dataclass(frozen=True)
class DrillSummary(TextResult):
    """A session's results: one row per command drilled, then `all`; columns SUMMARY_COLUMNS, whole numbers.

    The figures are `performance`'s, as in `diavolo report`. trials: answered and timed-out trials; correct: right
    answers; accuracy_pct: right answers over trials, in %; median_ms: median latency of the right answers;
    change_pp, change_ms: accuracy (percentage points) and median latency (ms, negative: faster) against the
    player's earlier sessions in this log, which are `earlier_trials` trials; anticipations: keys pressed before a
    roll appeared, counted apart; timed_out: trials with no answer in time. None where there is nothing to compute.
    """

    session_id: str
    player: str
    log: Path
    command_rows: list[dict]

    columns = SUMMARY_COLUMNS

    def rows(self) -> list[dict]:
        """One row per command drilled, then `all`."""
        return list(self.command_rows)

    def document(self) -> dict:
        """Keys `session_id`, `player`, `log` (its path) and `rows`."""
        return {"session_id": self.session_id, "player": self.player, "log": str(self.log),
                "rows": self.rows()}

    def text(self) -> str:
        """The title, the sentences (one fact a line), then the table of SUMMARY_TEXT_COLUMNS; within 80 columns."""
        if not self.command_rows:
            return f"{self.title()}\nno trials were answered"
        sentences = [wrap(sentence, "  ") for sentence in self.sentences()]
        return "\n".join([self.title(), *sentences, "", render_aligned(self.command_rows, SUMMARY_TEXT_COLUMNS,
                                                                         SUMMARY_HEADINGS)])

    def title(self) -> str:
        trials = self.command_rows[-1]["trials"] if self.command_rows else 0
        return wrap(f"drill summary: player {self.player}, {trials} trial{'' if trials == 1 else 's'}, "
                    f"session {self.session_id}, log {self.log}", "  ")

    def sentences(self) -> list[str]:
        """The session in sentences, one fact each, in the order a player asks: the median time of the right
        answers and the accuracy, each with its change since the player's earlier sessions; what those
        changes compare with; the timeouts; the anticipations. Empty when the session has no rows."""
        if not self.command_rows:
            return []
        overall = self.command_rows[-1]
        trials, earlier = overall["trials"], overall["earlier_trials"]
        if not trials:
            lines = ["No trial was answered: every key came before its roll."]
        else:
            if overall["median_ms"] is None:
                lines = ["Median time: none, as no answer was right."]
            else:
                lines = [f"Median time of your right answers: {overall['median_ms']:,} ms"
                         f"{_change(overall['change_ms'], 'ms', 'faster', 'slower')}."]
            lines.append(f"Accuracy: {overall['accuracy_pct']} % ({overall['correct']} of {trials} right)"
                         f"{_change(overall['change_pp'], 'point', 'lower', 'higher')}.")
        lines.append(f"The changes compare with your {earlier:,} earlier trial{'' if earlier == 1 else 's'} "
                     "in this log." if earlier else "No earlier trials of yours in this log to compare with yet.")
        lines.append(f"Timed out (no answer in time): {overall['timed_out']}.")
        lines.append(f"Too early (a key before the roll, not counted as a trial): {overall['anticipations']}.")
        return lines


def _change(change: int | None, unit: str, less: str, more: str) -> str:
    """`, 45 ms faster than before` for a change of -45 ms (`less` is the word for a negative change)."""
    if change is None:
        return ""
    if change == 0:
        return ", the same as before"
    size = abs(change)
    return f", {size:,} {unit}{'' if size == 1 or unit == 'ms' else 's'} {less if change < 0 else more} than before"


def summarize_session(frame: pd.DataFrame, session_id: str, log: Path = Path(), player: str = "") -> DrillSummary:
    """Summary of session `session_id` from `frame` (rows from `load_logs`), against the player's earlier sessions.

    player: who drilled, named in the summary even when the session has no rows yet.
    """
    session = frame.loc[frame["session_id"] == session_id]
    if session.empty:
        return DrillSummary(session_id, player, log, [])
    player = str(session["player"].iloc[0])
    started = session["timestamp"].min()
    starts = frame.loc[frame["player"] == player].groupby("session_id", observed=True)["timestamp"].min()
    earlier_ids = starts.index[(starts < started) & (starts.index != session_id)]
    earlier = frame.loc[frame["session_id"].isin(earlier_ids) & (frame["player"] == player)]
    played = set(session["command"].astype(str))
    commands = [c for c in command_order(played) if c in played]
    shown = dict(zip(session["command"].astype(str), with_command_labels(session[["variant", "command"]])["command"]
                     .astype(str)))  # a game's own command by its label, as reports name it
    rows = [_summary_row(shown[c], session.loc[session["command"] == c], earlier.loc[earlier["command"] == c])
            for c in commands]
    rows.append(_summary_row("all", session, earlier))
    return DrillSummary(session_id, player, log, rows)


def _summary_row(command: str, now: pd.DataFrame, before: pd.DataFrame) -> dict:
    current, earlier = performance(now), performance(before)
    return {
        "command": command, "trials": current["trials"], "correct": current["correct"],
        "accuracy_pct": _rounded(current["accuracy"] * 100), "median_ms": _rounded(current["median_latency_ms"]),
        "change_pp": _rounded((current["accuracy"] - earlier["accuracy"]) * 100),
        "change_ms": _rounded(current["median_latency_ms"] - earlier["median_latency_ms"]),
        "anticipations": current["anticipations"], "timed_out": current["timeouts"],
        "earlier_trials": earlier["trials"],
    }


def _rounded(value: float) -> int | None:
    return None if math.isnan(value) else int(round(value))

