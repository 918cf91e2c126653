"""The reaction drill: show a roll, time the answer key, log the trial, give feedback.

A trial: the fixation mark `+` for a random foreperiod (600 to 1500 ms by
default, so the onset cannot be anticipated), then the stimulus: every die
drawn at its place on the table and the command shown as a label. The
latency runs from the moment the whole stimulus frame has been written to the
terminal (one `os.write`) to the moment the answer key is read, both with
`time.perf_counter_ns`. The trial is appended to the log (fsynced) before the
feedback is shown and before the next trial starts.

Choices the issue left open:

- A key pressed during the foreperiod is an anticipation: logged as its own
  row with `too_early = true`, `answer = none`, `correct = false`, no
  latency, and the roll that was about to be shown; "too early" is shown,
  and the trial is run again with a new roll. Anticipations are not answers:
  they do not count towards `trials` nor in the trial number shown, and the
  summary, like `diavolo report` (`drill.performance`), leaves them out of
  the trials, the accuracy and the latencies and counts them apart.
- A key that is not an answer key during the stimulus is ignored.
- No answer within the timeout: a row with `answer = none`,
  `timed_out = true`, `correct = false`, no latency; it counts as a trial
  and as a wrong answer.
- `minutes`: no new trial starts once that many minutes have passed since the
  session started; the trial on screen at that moment is finished.
- `q` or Ctrl-C abandon the trial on screen (it is not logged) and end the
  session with its summary. A Ctrl-C that arrives while a row is being
  written waits until the row is on disk.
- With `command_first`, the command label appears with the fixation mark,
  and the latency runs from the dice appearing.
- Teaching: a player's first session (no rows of theirs in the log) opens
  with a one-screen introduction that any key dismisses (`intro=False`
  skips it); `?` at any time shows the six commands and grey, each with a
  worked example; a trial not yet answered is then run again with a new
  roll (it is not logged). Feedback stays with its roll: the next fixation
  mark comes on a clean screen.
- A terminal made smaller while a roll is on screen (or about to be) would
  crop it: the trial is abandoned (not logged), the drill says what size it
  needs, and runs the trial again with a new roll once the window is large
  enough.

The terminal is handled by `blessed` (cbreak input, alternate screen, true
colors, positioning; a maintained, pure-Python library), but each answer key
is timestamped by this module right after `Terminal.inkey` returns it.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.core.rules import Resolution, Roll, resolve, roll
from diavolo_stats.core.table_model import TableModel, positions_from_mapping
from diavolo_stats.core.variant import ALL_COMMANDS, GREY, Command, Variant
from diavolo_stats.drill import DEFAULT_TRIALS, MAX_SESSION_MINUTES, MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.log import (
    FIGURE_COLUMNS,
    MAX_SEED,
    PLAYER_NAME,
    DrillLog,
    TrialRow,
    default_log_path,
    load_logs,
)
from diavolo_stats.drill.performance import performance
from diavolo_stats.drill.scheduler import adaptive_roll
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.errors import InputError
from diavolo_stats.results import TextResult, render_aligned, wrap
from diavolo_stats.validation import (
    Configuration,
    FilePath,
    Flag,
    Instance,
    Maybe,
    Number,
    Several,
    TextMap,
    Whole,
    setting,
)

FOREPERIOD_MS = (600, 1500)
TIMEOUT_S = 10.0
FEEDBACK_MS = 1200
QUIT_KEY = "q"
HELP_KEY = "?"
SIZE_POLL_NS = 100_000_000  # how often a wait looks at the terminal's size while a roll is on screen
GREY_KEY = "g"
MAX_FOREPERIOD_MS = 60_000
MAX_SIDES_SHOWN = 99

MIN_WIDTH, MIN_HEIGHT = 80, 24
PANEL_WIDTH = 36  # the column right of the table: command, keys, progress
BOTTOM_LINES = 3  # feedback, its reason, and the status line
# Positions are logged (and drawn) rounded to 0.1 mm, so two dice may come this much closer than die_mm.
ROUNDING_MM = 0.1



@dataclass(frozen=True)
class Look:
    """How a die (or the table) is painted: background and digit colors, as RGB for terminals with 256
    or more colors (blessed picks the nearest it has) and as basic colors for 8- and 16-color terminals,
    where the nearest color would paint a black die the color of the table."""

    background: tuple[int, int, int]
    digit: tuple[int, int, int]
    basic_background: str
    basic_digit: str


DIE_LOOKS: dict[str, Look] = {
    "black": Look((25, 25, 25), (255, 255, 255), "black", "white"),
    "red": Look((205, 30, 40), (255, 255, 255), "red", "white"),
    "white": Look((245, 245, 245), (0, 0, 0), "white", "black"),
    "blue": Look((40, 90, 220), (255, 255, 255), "blue", "white"),
    "green": Look((70, 190, 80), (0, 0, 0), "green", "black"),
    "yellow": Look((240, 210, 40), (0, 0, 0), "yellow", "black"),
    "orange": Look((245, 130, 30), (0, 0, 0), "yellow", "black"),
    "purple": Look((130, 60, 180), (255, 255, 255), "magenta", "white"),
    "pink": Look((240, 130, 190), (0, 0, 0), "magenta", "black"),
    "brown": Look((125, 75, 40), (255, 255, 255), "yellow", "white"),
    "cyan": Look((60, 200, 220), (0, 0, 0), "cyan", "black"),
}
COMMAND_DIE_LOOK = Look((150, 150, 150), (0, 0, 0), "cyan", "black")
FELT_LOOK = Look((24, 92, 56), (255, 255, 255), "green", "white")
COMMAND_CODES = {
    Command.HIGHEST_TOTAL: "HT", Command.LOWEST_TOTAL: "LT", Command.LARGEST_SPREAD: "LS",
    Command.MOST_ODD: "MO", Command.HIGHEST_DIE: "HD", Command.CLOSEST: "CL",
}

SUMMARY_COLUMNS = ("command", "trials", "correct", "accuracy_pct", "median_ms", "change_pp", "change_ms",
                   "anticipations", "timed_out", "earlier_trials")
# What a person reads at the end of a session, in 80 columns; the rest goes in DrillSummary.footer().
SUMMARY_TEXT_COLUMNS = SUMMARY_COLUMNS[:7]


@dataclass(frozen=True)
class DrillSettings(Configuration):
    """One drill session.

    trials: trials to show (default 30), or None with `minutes`: how long new
    trials start, in minutes. timeout_s: seconds to wait for an answer.
    foreperiod_ms: (shortest, longest) wait between the fixation mark and the
    stimulus, drawn uniformly in whole ms. feedback_ms: how long the feedback
    stays before the next trial. keys: answer (color or grey) -> key; by
    default each color's first letter and `g` for grey. seed: for the rolls
    and foreperiods (a fresh one, logged, when None). log: the CSV (default
    `default_log_path()`). intro: open a player's first session (no rows of
    theirs in the log) with the introduction screen.
    """

    player: str = setting(rule=PLAYER_NAME)
    variant: Variant = setting(default_factory=Variant, rule=Instance(Variant))
    trials: int | None = setting(None, Maybe(Whole(1, MAX_TRIALS_PER_SESSION)))
    minutes: float | None = setting(None, Maybe(Number(above=0, at_most=MAX_SESSION_MINUTES, unit="minutes")))
    command_first: bool = setting(False, Flag())
    adaptive: bool = setting(False, Flag())
    seed: int | None = setting(None, Maybe(Whole(0, MAX_SEED)))
    log: Path | None = setting(None, Maybe(FilePath()))
    timeout_s: float = setting(TIMEOUT_S, Number(above=0, at_most=3600, unit="s"))
    foreperiod_ms: tuple[int, int] = setting(FOREPERIOD_MS, Several(Whole(0, MAX_FOREPERIOD_MS, unit="ms"), least=2,
                                                                    most=2, unique=False, noun="bound"))
    feedback_ms: int = setting(FEEDBACK_MS, Whole(0, MAX_FOREPERIOD_MS, unit="ms"))
    keys: Mapping[str, str] | None = setting(None, Maybe(TextMap()))
    intro: bool = setting(True, Flag())

    def check(self) -> None:
        unknown = [c for c in self.variant.colors if c not in DIE_LOOKS]
        if unknown:
            raise InputError(f"the drill has no screen color for {', '.join(unknown)}; "
                             f"it knows {', '.join(DIE_LOOKS)}", field="colors")
        # Every die is drawn on the table, even when `closest` is not drilled.
        self.variant.table.check_fits(1 + self.variant.dice_count)
        if self.variant.sides > MAX_SIDES_SHOWN:
            raise InputError(f"the drill shows faces up to {MAX_SIDES_SHOWN}, got {self.variant.sides}", field="sides")
        if self.trials is not None and self.minutes is not None:
            raise InputError("give a number of trials or of minutes, not both", field="trials")
        if self.trials is None and self.minutes is None:
            object.__setattr__(self, "trials", DEFAULT_TRIALS)
        shortest, longest = self.foreperiod_ms
        if shortest > longest:
            raise InputError(f"need whole ms MIN,MAX with MIN <= MAX, got {shortest},{longest}", field="foreperiod_ms")
        object.__setattr__(self, "keys", _answer_keys(self.variant, self.keys or {}))
        object.__setattr__(self, "log", Path(self.log) if self.log is not None else default_log_path())


def _answer_keys(variant: Variant, chosen: Mapping[str, str]) -> dict[str, str]:
    """Answer -> key for every color and grey: the chosen ones, else the color's first letter (grey: g)."""
    answers = variant.colors + (GREY,)
    unknown = [a for a in chosen if a not in answers]
    if unknown:
        raise InputError(f"{', '.join(unknown)} is not an answer; answers: {', '.join(answers)}", field="keys")
    keys = {a: str(chosen.get(a, GREY_KEY if a == GREY else a[0])).lower() for a in answers}
    for answer, key in keys.items():
        if len(key) != 1 or not key.isprintable() or key == " ":
            raise InputError(f"{answer} needs a single printable key, got {key!r}", field="keys")
        if key in (QUIT_KEY, HELP_KEY):
            raise InputError(f"{key!r} {'quits the drill' if key == QUIT_KEY else 'shows the commands'}; "
                             f"choose another key for {answer}", field="keys")
    shared = sorted({k for k in keys.values() if list(keys.values()).count(k) > 1})
    if shared:
        raise InputError(f"{', '.join(shared)} would answer two colors; set them apart, "
                         "e.g. black=k,blue=u", field="keys")
    return keys


# ----------------------------------------------------------------- the screen

@dataclass(frozen=True)
class TableLayout:
    """Where the table is drawn: `rows` x `cols` cells from the top left, and each die's box size in cells.

    One mm is `rows / scatter_mm` rows down and twice that many columns
    across, because a terminal cell is about twice as tall as it is wide:
    distances look as they would on the table. A die's box is the die's size
    rounded down, so dice that do not overlap on the table do not overlap on
    screen either.
    """

    rows: int
    cols: int
    rows_per_mm: float
    cols_per_mm: float
    box_rows: int
    box_cols: int

    def box_origin(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        """The (row, col) of the top left cell of the box of a die centered at (x, y) mm."""
        # floor(v + 0.5), unlike round(), moves by exactly k when v moves by a whole k: boxes keep apart.
        row = math.floor(y_mm * self.rows_per_mm - self.box_rows / 2 + 0.5)
        col = math.floor(x_mm * self.cols_per_mm - self.box_cols / 2 + 0.5)
        return row, col


def table_rows_needed(table: TableModel) -> int:
    """The fewest terminal rows that show `table` with every die at least 1 row by 2 columns, apart."""
    return math.ceil(table.scatter_mm / (table.die_mm - min(ROUNDING_MM, table.die_mm / 2)))


def terminal_size_needed(table: TableModel) -> tuple[int, int]:
    """(columns, rows) the drill needs for this table: at least 80 x 24."""
    rows = table_rows_needed(table)
    return max(MIN_WIDTH, 2 * rows + PANEL_WIDTH + 1), max(MIN_HEIGHT, rows + BOTTOM_LINES)


def table_layout(width: int, height: int, table: TableModel) -> TableLayout | None:
    """The table's place in a `width` x `height` terminal, or None if it is too small for it."""
    needed_width, needed_height = terminal_size_needed(table)
    if width < needed_width or height < needed_height:
        return None
    rows = min(height - BOTTOM_LINES, (width - PANEL_WIDTH - 1) // 2)
    rows_per_mm = rows / table.scatter_mm
    # A die's box must fit within the smallest gap between two logged dice.
    smallest_gap = table.die_mm - min(ROUNDING_MM, table.die_mm / 2)
    return TableLayout(rows=rows, cols=2 * rows, rows_per_mm=rows_per_mm, cols_per_mm=2 * rows_per_mm,
                       box_rows=math.floor(smallest_gap * rows_per_mm),
                       box_cols=math.floor(smallest_gap * 2 * rows_per_mm))


class Screen:
    """Builds each frame of the drill as one string, written with one `os.write`."""

    def __init__(self, terminal, settings: DrillSettings):
        self.term = terminal
        self.settings = settings
        self.legend = ("   ".join(f"{key} {answer}" for answer, key in settings.keys.items())
                       + f"   {QUIT_KEY} quit   {HELP_KEY} the commands")

    def layout(self) -> TableLayout | None:
        return table_layout(self.term.width, self.term.height, self.settings.variant.table)

    def fixation(self, layout: TableLayout, progress: str, command: Command | None, feedback: tuple[str, str],
                 status: str) -> str:
        """The foreperiod: an empty table with `+` at its center (and the command, if shown first)."""
        term = self.term
        center = term.move_yx(layout.rows // 2, layout.cols // 2) + self._paint(FELT_LOOK) + "+"
        return (self._base(layout, progress, command, feedback) + center + term.normal
                + self._status(status))

    def stimulus(self, layout: TableLayout, progress: str, rolled: Roll, feedback: tuple[str, str],
                 status: str) -> str:
        """The roll: every die at its place, the command label; `status` is written last (the onset marker)."""
        variant = self.settings.variant
        points = positions_from_mapping(variant.colors, variant.dice_per_color, rolled.positions)
        boxes = [self._box(layout, points[0], COMMAND_DIE_LOOK, COMMAND_CODES[rolled.command])]
        for index, (color, values) in enumerate(rolled.dice.items()):
            for die, value in enumerate(values):
                point = points[1 + index * variant.dice_per_color + die]
                boxes.append(self._box(layout, point, DIE_LOOKS[color], str(value).center(layout.box_cols)))
        return self._base(layout, progress, rolled.command, feedback) + "".join(boxes) + self._status(status)

    def page(self, lines: list[str]) -> str:
        """A screen of text (the introduction, the commands), each line cut to the terminal's width."""
        term = self.term
        return term.home + term.normal + term.clear + "".join(
            term.move_yx(row, 0) + line[:term.width] for row, line in enumerate(lines[:term.height]))

    def too_small(self, needed: tuple[int, int]) -> str:
        """What a window made too small shows, in lines short enough for any window."""
        return self.page([
            "The drill needs a terminal of at least",
            f"{needed[0]}x{needed[1]} (columns x rows); this one is {self.term.width}x{self.term.height}.",
            "Enlarge the window: the trial starts again,",
            "with a new roll, once it is large enough.",
            f"Press {QUIT_KEY} to quit.",
        ])

    def _base(self, layout: TableLayout, progress: str, command: Command | None, feedback: tuple[str, str]) -> str:
        term = self.term
        felt = self._paint(FELT_LOOK) + " " * layout.cols + term.normal
        parts = [term.home, term.normal, term.clear]
        parts += [term.move_yx(row, 0) + felt for row in range(layout.rows)]
        left = layout.cols + 2
        width = min(term.width - left, PANEL_WIDTH)
        player = self.settings.player if len(self.settings.player) <= width - 8 else \
            self.settings.player[:width - 9] + "…"
        parts += [term.move_yx(0, left) + term.bold("DIAVOLO DRILL"),
                  term.move_yx(1, left) + f"player {player}",
                  term.move_yx(2, left) + progress]
        if command is not None:
            label = f" {command.value.replace('-', ' ').upper()} ({COMMAND_CODES[command]}) ".center(width - 2)
            parts += [term.move_yx(4, left) + "┌" + "─" * (width - 2) + "┐",
                      term.move_yx(5, left) + "│" + term.bold_reverse(label) + "│",
                      term.move_yx(6, left) + "└" + "─" * (width - 2) + "┘"]
        legend_lines = _wrap(self.legend, width)
        parts += [term.move_yx(8 + i, left) + line for i, line in enumerate(legend_lines)]
        headline, reason = feedback
        bottom = term.height - BOTTOM_LINES
        parts += [term.move_yx(bottom, 0) + headline, term.move_yx(bottom + 1, 0) + term.dim(reason[:term.width])]
        return "".join(parts)

    def _paint(self, look: Look) -> str:
        term = self.term
        if term.number_of_colors >= 256:
            return term.on_color_rgb(*look.background) + term.color_rgb(*look.digit) + term.bold
        return getattr(term, f"on_{look.basic_background}") + getattr(term, look.basic_digit) + term.bold

    def _box(self, layout: TableLayout, point: np.ndarray, look: Look, label: str) -> str:
        term = self.term
        row, col = layout.box_origin(float(point[0]), float(point[1]))
        paint = self._paint(look)
        middle = layout.box_rows // 2
        blank = " " * layout.box_cols
        return "".join(term.move_yx(row + r, col) + paint + (label if r == middle else blank) + term.normal
                       for r in range(layout.box_rows))

    def _status(self, status: str) -> str:
        return self.term.move_yx(self.term.height - 1, 0) + self.term.normal + status

    def feedback(self, resolution: Resolution, answer: str | None, timed_out: bool) -> tuple[str, str]:
        """The two feedback lines: right or wrong with the answers counted right, and the one-line why."""
        term = self.term
        right = " or ".join(resolution.accepted) + (" (both count)" if len(resolution.accepted) > 1 else "")
        if timed_out:
            headline = term.bold_yellow(f"NO ANSWER within {self.settings.timeout_s:g} s") + f": the answer is {right}"
        elif answer in resolution.accepted:
            others = [a for a in resolution.accepted if a != answer]
            headline = term.bold_green("RIGHT") + f": {answer}" + (f" ({others[0]} counts too)" if others else "")
        else:
            headline = term.bold_red("WRONG") + f": you said {answer}, the answer is {right}"
        return headline, resolution.reason

    def too_early(self) -> tuple[str, str]:
        return (self.term.bold_yellow("TOO EARLY") + ": wait for the dice before answering",
                "that key was not counted as an answer; the trial starts again with a new roll")


EXAMPLE_DICE = {"black": (2, 3, 6), "red": (3, 5, 5), "white": (1, 5, 6)}
"""The rulebook's worked example, used by the commands screen when the game has its colors and dice."""
EXAMPLE_SEED = 0
"""Seeds the throw the commands screen works `closest` on (and its dice, for other games)."""
COMMAND_RULES = {
    Command.HIGHEST_TOTAL: "the color whose dice add up to the most",
    Command.LOWEST_TOTAL: "the color whose dice add up to the least",
    Command.LARGEST_SPREAD: "the largest gap between a color's highest and lowest die",
    Command.MOST_ODD: "the color with the most dice showing an odd number",
    Command.HIGHEST_DIE: "the color with the single highest die",
    Command.CLOSEST: "the color with a die nearest the command die",
}


def intro_lines(settings: DrillSettings) -> list[str]:
    """The introduction a player's first session opens with: one 80 x 24 screen."""
    keys = "   ".join(f"{key} {answer}" for answer, key in settings.keys.items())
    codes = [f"{COMMAND_CODES[c]} {c.value.replace('-', ' '):<16}" for c in settings.variant.commands]
    return [
        f"WELCOME TO THE DIAVOLO DRILL, {settings.player[:40]}",
        "",
        "Each trial shows a + on the table: look at it and wait. Then the roll appears:",
        "the colored dice where they landed, and the grey command die with the code of",
        "its command (the command is also written out on the right).",
        "Find the color that wins the command and press its key, as fast as you can:",
        f"    {keys}",
        "Grey is a tie: two or more colors share the winning figure.",
        "",
        "The commands:",
        *("    " + "  ".join(codes[i:i + 3]).rstrip() for i in range(0, len(codes), 3)),
        "",
        "Your time runs from the moment the dice appear. A key pressed before they",
        "appear is too early: it is noted apart, and the trial starts again.",
        f"Every answer is saved at once; {QUIT_KEY} quits at any time.",
        "",
        f"Press {HELP_KEY} at any time to see every command worked on an example.",
        "",
        "Press any key to start.",
    ]


def help_lines(variant: Variant) -> list[str]:
    """The commands screen (`?`): the six commands and grey, each worked on one example roll."""
    thrown = roll(variant, np.random.default_rng(EXAMPLE_SEED))
    rulebook = tuple(EXAMPLE_DICE) == variant.colors and variant.dice_per_color == 3 and variant.sides >= 6
    dice = dict(EXAMPLE_DICE) if rulebook else thrown.dice
    shown = "   ".join(f"{color} {' '.join(map(str, values))}" for color, values in dice.items())
    lines = ["THE COMMANDS AND GREY", f"worked on one roll: {shown}", ""]
    ties = []
    for command in ALL_COMMANDS:
        resolution = resolve(variant, command, dice, thrown.positions)
        lines += [f"{COMMAND_CODES[command]}  {command.value.replace('-', ' ')}: {COMMAND_RULES[command]}",
                  f"      {resolution.reason}"]
        if resolution.answer == GREY:
            ties.append(COMMAND_CODES[command])
    return lines + [
        "grey  a tie: two or more colors share the winning figure" + (f" ({', '.join(ties)} above)" if ties else ""),
        f"      closest: distances within {variant.table.tolerance:.0%} tie; then the nearest color counts too",
        "",
        "any key: back to the drill (a roll not yet answered is replaced by a new one)",
    ]


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split("   "):
        if line and len(line) + 3 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line}   {word}" if line else word
    return lines + [line]


# --------------------------------------------------------------- the session

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


class _Session:
    def __init__(self, settings: DrillSettings, log: DrillLog, terminal, history: pd.DataFrame):
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
                    self._show(self.screen.page(intro_lines(self.settings)))
                    try:
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
        """Show the commands screen until any key."""
        self._show(self.screen.page(help_lines(self.settings.variant)))
        self._key_until(None, helps=False)

    def _finished(self) -> bool:
        if self.settings.trials is not None:
            return self.shown >= self.settings.trials
        return time.monotonic() - self.started >= self.settings.minutes * 60

    def _progress(self) -> str:
        if self.settings.trials is not None:
            return f"trial {self.shown + 1} of {self.settings.trials}"
        left = max(0.0, self.settings.minutes * 60 - (time.monotonic() - self.started))
        return f"trial {self.shown + 1}, {int(left // 60)}:{int(left % 60):02d} left"

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

    def _next_roll(self) -> Roll:
        variant = self.settings.variant
        if self.settings.adaptive:
            return adaptive_roll(variant, self.history, self.rng)
        return roll(variant, self.rng)

    def _trial(self, layout: TableLayout) -> None:
        """One trial: the fixation mark, the roll, the answer (logged), the feedback.

        An anticipation is logged and ends the trial (the caller runs it
        again). `?` (_Help) or a terminal made smaller (_Resized) before the
        answer abandon the trial unlogged.
        """
        settings = self.settings
        variant = settings.variant
        size = (self.term.width, self.term.height)  # the layout's; smaller would crop the roll
        rolled = self._next_roll()
        resolution = resolve(variant, rolled.command, rolled.dice, rolled.positions)
        foreperiod_ms = int(self.rng.integers(settings.foreperiod_ms[0], settings.foreperiod_ms[1] + 1))
        number = self.rows_logged + 1  # the log's trial number: an anticipation has its own
        shown = self.shown + 1  # the player's: answers and timeouts only
        progress = self._progress()
        clean = ("", "")  # the last trial's feedback stays with its roll
        stimulus = self.screen.stimulus(layout, progress, rolled, clean, f"answer now (trial {shown})")
        shown_first = rolled.command if settings.command_first else None
        self.term.flushinp()  # keys pressed during the last feedback are not early answers
        self._show(self.screen.fixation(layout, progress, shown_first, clean, f"get ready (trial {shown})"))
        key, _ = self._key_until(time.perf_counter_ns() + foreperiod_ms * 1_000_000, size)
        if key is not None:
            self._log(number, rolled, foreperiod_ms, datetime.now(timezone.utc), None, True)
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
        self._log(number, rolled, foreperiod_ms, shown_at, answer, False, latency_ms)
        self.shown += 1
        feedback = self.screen.feedback(resolution, answer, answer is None)
        self._show(self.screen.stimulus(layout, progress, rolled, feedback, f"answered (trial {shown})"))
        self._pause()

    def _pause(self) -> None:
        """Keep the feedback on screen for feedback_ms; `q` still quits, `?` shows the commands."""
        end_ns = time.perf_counter_ns() + self.settings.feedback_ms * 1_000_000
        while self._key_until(end_ns)[0] is not None:
            pass

    def _log(self, number: int, rolled: Roll, foreperiod_ms: int, when: datetime, answer: str | None,
             too_early: bool, latency_ms: float | None = None) -> None:
        row = judged_trial(
            self.settings.variant, rolled.command, rolled.dice, rolled.positions, answer, latency_ms,
            interface="terminal", player=self.settings.player, session_id=self.session_id, trial=number,
            timestamp=when, command_first=self.settings.command_first, too_early=too_early,
            foreperiod_ms=float(foreperiod_ms), seed=self.seed)
        with self.interrupts.deferred():
            self.log.append(row)
        self.rows_logged += 1
        if self.settings.adaptive:
            self.history = pd.concat([self.history, _history_row(row)], ignore_index=True)


def _history_row(row: TrialRow) -> pd.DataFrame:
    """The columns the adaptive scheduler reads, for a row just logged."""
    return pd.DataFrame([{
        "timestamp": pd.Timestamp(row.timestamp), "command": row.command.value, "is_tie": row.expected == GREY,
        "too_early": row.too_early, "correct": row.correct,
        "latency_ms": np.nan if row.latency_ms is None else row.latency_ms,
    }])


# --------------------------------------------------------------- the summary

@dataclass(frozen=True)
class DrillSummary(TextResult):
    """A session's results: one row per command drilled, then `all`; columns SUMMARY_COLUMNS.

    The figures are `performance`'s, as in `diavolo report`:
    trials: answered and timed-out trials (anticipations left out); correct:
    right answers; accuracy_pct: right answers over trials, in % (a timeout
    counts as wrong); median_ms: median latency of the right answers;
    change_pp: accuracy minus the accuracy in the player's earlier sessions
    in this log, in percentage points; change_ms: median latency minus the
    earlier one, in ms (negative: faster); anticipations: keys pressed
    before a roll (of that command) appeared, counted apart; timed_out:
    trials with no answer in time; earlier_trials: the trials those changes
    compare with. None where there is nothing to compute. Whole numbers,
    rounded.
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
        """The title, the table of SUMMARY_TEXT_COLUMNS and the footer; within 80 columns."""
        if not self.command_rows:
            return f"{self.title()}\nno trials were answered"
        return "\n".join([self.title(), render_aligned(self.command_rows, SUMMARY_TEXT_COLUMNS), self.footer()])

    def title(self) -> str:
        trials = self.command_rows[-1]["trials"] if self.command_rows else 0
        return wrap(f"drill summary: player {self.player}, {trials} trial{'' if trials == 1 else 's'}, "
                    f"session {self.session_id}, log {self.log}", "  ")

    def footer(self) -> str:
        """The counts the table leaves out: anticipations, timeouts, and what the changes compare with."""
        if not self.command_rows:
            return ""
        overall = self.command_rows[-1]
        return "\n".join([
            wrap(f"anticipations (keys before the roll, not counted as trials): {overall['anticipations']}; "
                 f"timed out: {overall['timed_out']}"),
            wrap(f"changes against {overall['earlier_trials']} earlier trials of {self.player} in this log")])


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
    commands = [c.value for c in Command if (session["command"] == c.value).any()]
    rows = [_summary_row(c, session.loc[session["command"] == c], earlier.loc[earlier["command"] == c])
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


# ---------------------------------------------------------------- the entry

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
    history = _player_history(log.path, settings.player)
    session = _Session(settings, log, terminal, history)
    session.run(intro=settings.intro and history.empty)
    return summarize_session(load_logs([log.path], columns=FIGURE_COLUMNS), session.session_id, log.path,
                             settings.player)


def _player_history(path: Path, player: str) -> pd.DataFrame:
    frame = load_logs([path], columns=FIGURE_COLUMNS)
    return frame.loc[frame["player"] == player]
