"""The terminal drill: show a roll, time the answer key, log the trial, give feedback.

A trial is a fixation mark for a random foreperiod, then every die at its
place and the command as a label. The latency runs from the whole frame's
one `os.write` to the key `blessed` reads (`time.perf_counter_ns` both); the
row is appended and fsynced before the feedback and the next trial. Keys
too early, time-outs, `q`, Ctrl-C and teaching are the terminal drill guide's.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.deal import Deal
from diavolo_stats.drill.log import FIGURE_COLUMNS, MAX_SEED, TERMINAL_INTERFACE, DrillLog, TrialRow, load_logs
from diavolo_stats.drill.scheduler import HISTORY_COLUMNS, adaptive_roll, recent_history, recent_trials, trial_history
from diavolo_stats.drill.screen import Screen, TableLayout, table_layout, terminal_size_needed
from diavolo_stats.drill.settings import HELP_KEY, QUIT_KEY, DrillSettings
from diavolo_stats.drill.summary import DrillSummary, summarize_session
from diavolo_stats.drill.teaching import help_lines, intro_lines
from diavolo_stats.errors import InputError

SIZE_POLL_NS = 100_000_000  # how often a wait looks at the terminal's size while a roll is on screen


class _Quit(Exception):
    """The player asked to stop."""


class _Help(Exception):
    """The player asked for the commands (`?`)."""


class _Resized(Exception):
    """The terminal was made smaller while a roll was on screen or about to be."""


class _Interrupts:
    """SIGINT raises KeyboardInterrupt, except while a row is being written: then just after."""

    def __init__(self):
        self.deferring = False
        self.pending = False

    def __enter__(self) -> _Interrupts:
        self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc_info) -> None:
        signal.signal(signal.SIGINT, self.previous)

    def _handle(self, signum, frame) -> None:
        if self.deferring:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def deferred(self) -> Iterator[None]:
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


def finished(settings: DrillSettings, shown: int, elapsed_s: float) -> bool:
    """Whether a session that has shown `shown` trials in `elapsed_s` seconds starts no more: its trials are all
    shown, or its minutes are up (a trial under way when they run out is finished, not cut)."""
    if settings.trials is not None:
        return shown >= settings.trials
    return elapsed_s >= settings.minutes * 60


def progress(settings: DrillSettings, shown: int, elapsed_s: float) -> str:
    """The next trial's place in the session, as its screen says it: "trial 4 of 30" or "trial 4, 1:59 left"."""
    if settings.trials is not None:
        return f"trial {shown + 1} of {settings.trials}"
    left = max(0.0, settings.minutes * 60 - elapsed_s)
    return f"trial {shown + 1}, {int(left // 60)}:{int(left % 60):02d} left"


class _Session:
    def __init__(self, settings: DrillSettings, log: DrillLog, terminal, history: pd.DataFrame | None):
        self.settings = settings
        self.log = log
        self.term = terminal
        self.screen = Screen(terminal, settings)
        self.history = history
        self.seed = settings.seed if settings.seed is not None else int(np.random.SeedSequence().entropy % MAX_SEED)
        self.rng = np.random.default_rng(self.seed)
        self.session_id = str(uuid.uuid4())
        self.rows_logged = 0
        self.shown = 0
        self.started = time.monotonic()
        self.output = sys.stdout.fileno()

    def run(self, intro: bool) -> None:
        """Run the session; `intro`: open with the introduction screen."""
        with self.term.fullscreen(), self.term.hidden_cursor(), self.term.cbreak(), _Interrupts() as interrupts:
            self.interrupts = interrupts
            try:
                if intro:
                    try:
                        for page in self.screen.pages(intro_lines(self.settings)):
                            self._show(page)
                            self._key_until(None)
                    except _Help:
                        self._commands()
                while not self._finished():
                    try:
                        self._trial(self._wait_for_room())
                    except _Help:
                        self._commands()
                    except _Resized:
                        pass  # the next trial waits for room, saying what size is needed
            except (_Quit, KeyboardInterrupt):
                pass

    def _commands(self) -> None:
        """Show the commands screen until any key (page by page, a key each, when it is taller than the terminal)."""
        for page in self.screen.pages(help_lines(self.settings.variant)):
            self._show(page)
            self._key_until(None, helps=False)

    def _finished(self) -> bool:
        return finished(self.settings, self.shown, time.monotonic() - self.started)

    def _progress(self) -> str:
        return progress(self.settings, self.shown, time.monotonic() - self.started)

    def _show(self, frame: str) -> None:
        sys.stdout.flush()
        data = frame.encode("utf-8")
        while data:
            data = data[os.write(self.output, data):]

    def _key_until(self, deadline_ns: int | None, size: tuple[int, int] | None = None,
                   helps: bool = True) -> tuple[str | None, int]:
        """The next key pressed before `time.perf_counter_ns()` reaches `deadline_ns` (None: no deadline), and
        when it was read (perf_counter_ns, taken right after the read); (None, now) at the deadline.

        `q` quits (_Quit); `?` asks for the commands (_Help) when `helps`;
        with `size` (columns, rows), a terminal made smaller than that ends
        the wait (_Resized), noticed within SIZE_POLL_NS.
        """
        while True:
            now_ns = time.perf_counter_ns()
            if deadline_ns is not None and now_ns >= deadline_ns:
                return None, now_ns
            if size is not None and (self.term.width < size[0] or self.term.height < size[1]):
                raise _Resized
            wait_ns = SIZE_POLL_NS if deadline_ns is None else deadline_ns - now_ns
            if size is not None:
                wait_ns = min(wait_ns, SIZE_POLL_NS)
            key = self.term.inkey(timeout=wait_ns / 1e9)
            read_ns = time.perf_counter_ns()
            if key == QUIT_KEY:
                raise _Quit
            if key == HELP_KEY and helps:
                raise _Help
            if key:
                return str(key), read_ns

    def _wait_for_room(self) -> TableLayout:
        """The table's layout in the terminal as it is now; while it is too small (resized), say so and wait."""
        needed = terminal_size_needed(self.settings.variant.table)
        while (layout := self.screen.layout()) is None:
            self._show(self.screen.too_small(needed))
            self._key_until(time.perf_counter_ns() + 250_000_000, helps=False)
        return layout

    def _next_deal(self) -> Deal:
        variant = self.settings.variant
        rolled = adaptive_roll(variant, self.history, self.rng).roll if self.settings.adaptive else None
        return Deal.throw(variant, self.rng, self.settings.foreperiod_ms, rolled)

    def _trial(self, layout: TableLayout) -> None:
        """One trial: the fixation mark, the roll, the answer (logged), the feedback.

        An anticipation (a key during the foreperiod, or an answer under
        MIN_LATENCY_MS after the roll) is logged as too early, with no answer,
        and ends the trial (the caller runs it again). `?` (_Help) or a terminal made smaller (_Resized) before the
        answer abandon the trial unlogged.
        """
        settings = self.settings
        size = (self.term.width, self.term.height)  # the layout's; smaller would crop the roll
        deal = self._next_deal()
        rolled = deal.roll
        number = self.rows_logged + 1  # the log's trial number: an anticipation has its own
        shown = self.shown + 1  # the player's: answers and timeouts only
        progress = self._progress()
        clean = ("", "")  # the last trial's feedback stays with its roll
        stimulus = self.screen.stimulus(layout, progress, rolled, clean, f"answer now (trial {shown})")
        shown_first = rolled.command if settings.command_first else None
        self.term.flushinp()  # keys pressed during the last feedback are not early answers
        self._show(self.screen.fixation(layout, progress, shown_first, clean, f"get ready (trial {shown})"))
        key, _ = self._key_until(time.perf_counter_ns() + deal.foreperiod_ms * 1_000_000, size)
        if key is not None:
            self._log(number, deal, datetime.now(timezone.utc), None, True)
            self._show(self.screen.fixation(layout, progress, shown_first, self.screen.too_early(),
                                            f"too early (trial {shown})"))
            self._pause()
            return
        self._show(stimulus)
        shown_ns = time.perf_counter_ns()
        shown_at = datetime.now(timezone.utc)
        answer = None
        deadline_ns = shown_ns + int(settings.timeout_s * 1e9)
        while answer is None:
            key, read_ns = self._key_until(deadline_ns, size)
            if key is None:
                break
            answer = next((a for a, k in settings.keys.items() if key.lower() == k), None)
        latency_ms = (read_ns - shown_ns) / 1e6 if answer is not None else None
        if latency_ms is not None and latency_ms < MIN_LATENCY_MS:
            # Faster than a person reads the roll: the key was pressed before it was seen, as every reader counts it.
            self._log(number, deal, shown_at, None, True)
            self._show(self.screen.stimulus(layout, progress, rolled, self.screen.too_early(latency_ms),
                                            f"too early (trial {shown})"))
            self._pause()
            return
        row = self._log(number, deal, shown_at, answer, False, latency_ms)
        self.shown += 1
        feedback = self.screen.feedback(deal.resolution, answer, row.latency_ms)  # the time as logged
        self._show(self.screen.stimulus(layout, progress, rolled, feedback, f"answered (trial {shown})"))
        self._pause()

    def _pause(self) -> None:
        """Keep the feedback on screen for feedback_ms; `q` still quits, `?` shows the commands."""
        end_ns = time.perf_counter_ns() + self.settings.feedback_ms * 1_000_000
        while self._key_until(end_ns)[0] is not None:
            pass

    def _log(self, number: int, deal: Deal, when: datetime, answer: str | None, too_early: bool,
             latency_ms: float | None = None) -> TrialRow:
        """Append the trial to the log (a Ctrl-C waits until it is on disk); the row written."""
        row = deal.judged(answer, latency_ms, timestamp=when, interface=TERMINAL_INTERFACE,
                          player=self.settings.player, session_id=self.session_id, trial=number,
                          command_first=self.settings.command_first, too_early=too_early, seed=self.seed)
        with self.interrupts.deferred():
            self.log.append(row)
        self.rows_logged += 1
        if self.settings.adaptive and not row.too_early:
            self.history = recent_trials(pd.concat([self.history, trial_history(self.settings.variant, [row])],
                                                   ignore_index=True))
        return row


def run_drill(settings: DrillSettings) -> DrillSummary:
    """Run one drill session in this terminal and return its summary (read back from the log).

    InputError when stdin or stdout is not a terminal, when it cannot show
    colors (NO_COLOR), when it is too small, or when the log is not a drill
    log of this schema. Ends normally on `q`, Ctrl-C, the last trial or the
    last minute. A player with no rows in the log first sees the
    introduction (unless `settings.intro` is False).
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise InputError("the drill needs an interactive terminal (stdin and stdout must be a TTY); "
                         "run it in a terminal window, not through a pipe or a file")
    import blessed  # only the drill needs a terminal library

    terminal = blessed.Terminal()
    if not terminal.does_styling:
        raise InputError("the drill draws colored dice at places on the screen, and this terminal has styling "
                         "turned off (NO_COLOR is set); run it without NO_COLOR")
    needed = terminal_size_needed(settings.variant.table)
    if table_layout(terminal.width, terminal.height, settings.variant.table) is None:
        raise InputError(f"the drill needs a terminal of at least {needed[0]}x{needed[1]} "
                         f"(columns x rows); this one is {terminal.width}x{terminal.height}")
    log = DrillLog(settings.log)
    theirs = _player_rows(log.path, settings.player, settings.adaptive)
    session = _Session(settings, log, terminal, recent_history(theirs) if settings.adaptive else None)
    session.run(intro=settings.intro and theirs.empty)
    return summarize_session(load_logs([log.path], columns=FIGURE_COLUMNS), session.session_id, log.path,
                             settings.player)


def _player_rows(path: Path, player: str, adaptive: bool) -> pd.DataFrame:
    """The player's rows in the log: with what the adaptive scheduler reads (the roll's cells, to tell its
    kind) when `adaptive`, else only who played (a first session opens with the introduction)."""
    frame = load_logs([path], columns=HISTORY_COLUMNS if adaptive else ("player",))
    return frame.loc[frame["player"] == player]
