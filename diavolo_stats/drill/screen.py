"""The terminal drill's screen: where the table and each die go, and every frame as one string.

One mm of the table is a fixed number of rows down and twice as many columns
across (a cell is about twice as tall as wide); the panel right of the table
holds the command, the keys and the progress; the bottom lines the feedback,
its reason on up to two lines.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass

import numpy as np

from diavolo_stats.core.rules import Resolution, Roll
from diavolo_stats.core.table_model import TableModel, positions_from_mapping
from diavolo_stats.core.variant import Command
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.looks import COMMAND_DIE_LOOK, DIE_LOOKS, FELT_LOOK, Look
from diavolo_stats.drill.settings import HELP_KEY, QUIT_KEY, DrillSettings
from diavolo_stats.drill.teaching import command_codes

MIN_WIDTH, MIN_HEIGHT = 80, 24
PANEL_WIDTH = 36  # the column right of the table: command, keys, progress
REASON_LINES = 2  # a tie-break worked step by step runs past one line of 80 columns
BOTTOM_LINES = 2 + REASON_LINES  # feedback, its reason, and the status line
# Positions are logged (and drawn) rounded to 0.1 mm, so two dice may come this much closer than die_mm.
ROUNDING_MM = 0.1


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
        self.codes = command_codes(settings.variant)
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
        points = iter(positions_from_mapping(variant.colors, variant.counts, rolled.positions))
        boxes = [self._box(layout, next(points), COMMAND_DIE_LOOK, self.codes[rolled.command])]
        for color, values in rolled.dice.items():  # the points are the colors' dice in order
            for value in values:
                boxes.append(self._box(layout, next(points), DIE_LOOKS[color], str(value).center(layout.box_cols)))
        return self._base(layout, progress, rolled.command, feedback) + "".join(boxes) + self._status(status)

    def page(self, lines: list[str]) -> str:
        """A screen of text (the introduction, the commands), each line cut to the terminal's width."""
        term = self.term
        return term.home + term.normal + term.clear + "".join(
            term.move_yx(row, 0) + line[:term.width] for row, line in enumerate(lines[:term.height]))

    def pages(self, lines: list[str]) -> list[str]:
        """A text taller than the terminal as `page`s of its height, each but the last ending with a line that
        says a key shows the next (the commands of a game with many of them)."""
        if len(lines) <= self.term.height:
            return [self.page(lines)]
        per_page = max(1, self.term.height - 1)
        chunks = [lines[start:start + per_page] for start in range(0, len(lines), per_page)]
        return [self.page(chunk + ([f"any key: the next page ({number} of {len(chunks)})"]
                                   if number < len(chunks) else []))
                for number, chunk in enumerate(chunks, start=1)]

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
            code = f" ({self.codes[command]}) "
            label = (" " + command.label.upper()[:width - 3 - len(code)] + code).center(width - 2)
            parts += [term.move_yx(4, left) + "┌" + "─" * (width - 2) + "┐",
                      term.move_yx(5, left) + "│" + term.bold_reverse(label) + "│",
                      term.move_yx(6, left) + "└" + "─" * (width - 2) + "┘"]
        legend_lines = _wrap(self.legend, width)
        parts += [term.move_yx(8 + i, left) + line for i, line in enumerate(legend_lines)]
        headline, reason = feedback
        bottom = term.height - BOTTOM_LINES
        reason_lines = textwrap.wrap(reason, term.width, max_lines=REASON_LINES, placeholder=" …")
        parts += [term.move_yx(bottom, 0) + headline]
        parts += [term.move_yx(bottom + 1 + row, 0) + term.dim(line) for row, line in enumerate(reason_lines)]
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

    def feedback(self, resolution: Resolution, answer: str | None, latency_ms: float | None) -> tuple[str, str]:
        """The two feedback lines: right or wrong with the answer's time (no answer: the timeout) and the
        answers counted right, then the one-line why."""
        term = self.term
        right = " or ".join(resolution.accepted) + (" (both count)" if len(resolution.accepted) > 1 else "")
        if answer is None:
            headline = term.bold_yellow(f"NO ANSWER within {self.settings.timeout_s:g} s") + f": the answer is {right}"
        elif answer in resolution.accepted:
            others = [a for a in resolution.accepted if a != answer]
            headline = (term.bold_green("RIGHT") + f": {answer}, {latency_ms:.0f} ms"
                        + (f" ({others[0]} counts too)" if others else ""))
        else:
            headline = term.bold_red("WRONG") + f": you said {answer}, {latency_ms:.0f} ms; the answer is {right}"
        return headline, resolution.reason

    def too_early(self, latency_ms: float | None = None) -> tuple[str, str]:
        """The feedback to a key before the roll (`latency_ms` None) or an answer `latency_ms` after it, under
        the human floor: pressed before the dice were seen."""
        if latency_ms is None:
            headline = self.term.bold_yellow("TOO EARLY") + ": wait for the dice before answering"
        else:
            headline = (self.term.bold_yellow("TOO EARLY") + f": {latency_ms:.0f} ms, under the {MIN_LATENCY_MS:g} ms "
                        "anyone needs to see the dice")
        return headline, "that key was not counted as an answer; the trial starts again with a new roll"


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split("   "):
        if line and len(line) + 3 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line}   {word}" if line else word
    return lines + [line]

