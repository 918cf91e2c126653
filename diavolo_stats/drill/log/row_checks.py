"""The rules between a row's cells, checked over a whole file's rows at once: its dice against its answers and its
game's faces, its `accepted` against its `expected`, its command, dice and positions against its game's rules.

Each check calls `refuse(column, refused rows, why for a row)`: the reader leaves those rows out and names why.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np
import pandas as pd

from diavolo_stats.drill.log.cells import json_object
from diavolo_stats.drill.log.dice_cells import DiceRead
from diavolo_stats.drill.log.rules import rules_problems, value_range, values_problem
from diavolo_stats.drill.log.schema import ACCEPTED, CELLS


class Refuse(Protocol):
    """The reader's refusal: a column, its refused rows (rows,) bool, and why for a row (None: the column's rule)."""

    def __call__(self, column: str, bad: np.ndarray, why: Callable[[int], str] | None = None) -> None: ...


def check_rules(cells: pd.DataFrame, refuse: Refuse) -> None:
    """The command, dice and positions (those read) of each row, against the rules its `variant` cell names
    (`rules.rules_problems`)."""
    problems = rules_problems(cells)
    if problems:
        bad = np.zeros(len(cells), dtype=bool)
        bad[list(problems)] = True
        refuse("command", bad, lambda row: " ".join(problems[row]))


ENCODED = ("variant", "expected", "answer", "accepted")
"""The columns `check_roll` checks once per distinct cell, each encoded (`pd.factorize`) before it is given them."""


def check_roll(cells: pd.DataFrame, dice: DiceRead, refuse: Refuse,
               encoded: Mapping[str, tuple[np.ndarray, pd.Index]]) -> None:
    """The dice cell (`dice`: its one read, `dice_cells.read_dice`), and the rules between the dice and the answers:
    `expected`, `answer` and `accepted` (those read) name colors of the row's dice or grey (`schema.AnswerCell`,
    `schema.AcceptedCell`), each checked once per distinct value. encoded: `pd.factorize` of each ENCODED column
    read (worked out beside the dice's read)."""
    codes, color_sets = dice.codes, dice.color_sets  # codes: (rows,) int, -1 where the cell is no roll's dice
    refuse("dice", codes < 0)
    if "variant" in cells:
        _check_faces(cells, encoded["variant"], dice.extremes, refuse)
    for column in ("expected", "answer"):
        if column in cells:
            answers, named = encoded[column]  # answers: (rows,) int, -1 for a missing cell
            # allowed: (color sets + 1, distinct answers + 1) bool; the last row for a refused dice cell (code
            # -1: the dice's refusal, not the answer's), the last column for a missing answer (never allowed)
            allowed = np.zeros((len(color_sets) + 1, len(named) + 1), dtype=bool)
            allowed[-1] = True
            for code, colors in enumerate(color_sets):
                allowed[code, :-1] = [answer in CELLS[column].answers(colors) for answer in named]
            refuse(column, ~allowed[codes, answers])
    if "accepted" in cells and "expected" in cells:
        # (accepted, expected, colors) take a handful of distinct values: each is checked once.
        accepted, accepted_texts = encoded["accepted"]
        expected, expected_texts = encoded["expected"]
        sets = len(color_sets) + 1
        # each: (rows,) int, a row's index into the sorted keys `distinct` (found by hashing: no sort of the rows)
        each, distinct = pd.factorize((accepted.astype(np.int64) * len(expected_texts) + expected) * sets + codes + 1,
                                      sort=True)
        fits = np.array([key % sets == 0 or _accepted_fits(accepted_texts[key // sets // len(expected_texts)],
                                                           expected_texts[key // sets % len(expected_texts)],
                                                           color_sets[key % sets - 1])
                         for key in distinct.tolist()], dtype=bool)
        refuse("accepted", ~fits[each.reshape(-1)])


def _check_faces(cells: pd.DataFrame, variants: tuple[np.ndarray, pd.Index], extremes: np.ndarray,
                 refuse: Refuse) -> None:
    """Each row's dice values (lowest and highest: `extremes` (rows, 2), `read_dice`), against the values its
    `variant`'s dice show (`rules.value_range`, once per distinct cell; variants: the column encoded)."""
    games, distinct = variants  # games: (rows,) int, -1 for a missing cell
    # (distinct + 1,) each: the last for a missing cell, which the variant's own rule refuses
    lowest, highest = np.array([value_range(cell) or (-np.inf, np.inf) for cell in distinct]
                               + [(-np.inf, np.inf)]).T
    bad = ~((extremes[:, 0] >= lowest[games]) & (extremes[:, 1] <= highest[games]))  # NaN (digits past float) too
    refuse("dice", bad, lambda row: "dice must be faces of the row's game: " + (values_problem(
        cells["variant"].iloc[row], json_object(cells["dice"].iloc[row]) or {}) or f"{cells['dice'].iloc[row]!r}"))


def _accepted_fits(text: str, expected: str, colors: frozenset[str]) -> bool:
    try:
        accepted = json.loads(text)
    except ValueError:
        return False
    return ACCEPTED.fits(accepted, expected, colors)
