"""The adaptive scheduler: which kind of roll to drill next, from the player's history.

A kind of roll (a "cell") is a command together with whether the roll is a
tie (answer grey) or not: reading "grey" under `highest-die` is a different
skill from spotting the winner. Like a spaced-repetition scheduler favouring
hard cards, the scheduler shows more often the cells where the player is slow
or wrong, and every cell now and then.

The weighting, per cell, over its most recent RECENT_TRIALS answered trials
(too-early rows say nothing about reading a roll and are left out):

- `p_correct = (correct + 1) / (trials + 2)`: the accuracy with one right and
  one wrong answer added, so a cell never drilled counts as a coin flip and
  one lucky answer does not make a cell look mastered;
- `latency_ms`: the median latency of its correct answers; with none yet, the
  player's median over all cells (DEFAULT_LATENCY_MS with no history at all);
- `cost_ms = latency_ms / p_correct`: the expected time spent per correct
  answer, which grows both when the player is slow and when they are wrong;
- `probability = (1 - EXPLORATION) * cost_ms**2 / sum(cost_ms**2) + EXPLORATION / cells`:
  squaring the cost makes a cell that takes twice as long per correct answer
  come up four times as often; the EXPLORATION share, spread evenly, keeps
  every cell in the rotation however well it is known.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from diavolo_stats.core.rules import Roll, resolve, roll
from diavolo_stats.core.variant import GREY, Command, Variant

EXPLORATION = 0.2
RECENT_TRIALS = 40
DEFAULT_LATENCY_MS = 2000.0
# Rejection sampling for a tie (or a non-tie) gives up after this many rolls,
# for variants where the asked-for kind is (nearly) impossible.
MAX_ROLLS = 500

CELL_COLUMNS = ("command", "tie", "trials", "correct", "p_correct", "latency_ms", "cost_ms", "probability")


def cell_weights(history: pd.DataFrame, commands: Sequence[Command]) -> pd.DataFrame:
    """One row per (command, tie) cell, in `commands` order, non-tie first: CELL_COLUMNS.

    history: one player's rows as `drill_log.load_logs` returns them (any
    order; sorted by timestamp here). `probability` sums to 1.
    """
    answered = history.loc[~history["too_early"].to_numpy(bool)].sort_values("timestamp", kind="stable")
    # per answered trial, oldest first: (trials,) arrays
    names = answered["command"].to_numpy(dtype=object)
    ties = answered["is_tie"].to_numpy(dtype=bool)
    correct = answered["correct"].to_numpy(dtype=bool)
    latency_ms = answered["latency_ms"].to_numpy(dtype=np.float64)
    overall_ms = float(np.median(latency_ms[correct])) if correct.any() else DEFAULT_LATENCY_MS
    cells = []
    for command in commands:
        for tie in (False, True):
            recent = np.flatnonzero((names == command.value) & (ties == tie))[-RECENT_TRIALS:]
            right = recent[correct[recent]]
            p_correct = (len(right) + 1) / (len(recent) + 2)
            cell_ms = float(np.median(latency_ms[right])) if len(right) else overall_ms
            cells.append((command, tie, len(recent), len(right), p_correct, cell_ms, cell_ms / p_correct))
    weights = pd.DataFrame(cells, columns=list(CELL_COLUMNS[:-1]))
    squared = weights["cost_ms"].to_numpy() ** 2
    weights["probability"] = (1 - EXPLORATION) * squared / squared.sum() + EXPLORATION / len(weights)
    return weights


def pick_cell(history: pd.DataFrame, commands: Sequence[Command], rng: np.random.Generator) -> tuple[Command, bool]:
    """The (command, tie) to drill next, drawn with `cell_weights` probabilities."""
    weights = cell_weights(history, commands)
    index = int(rng.choice(len(weights), p=weights["probability"].to_numpy()))
    # The cells are `commands` in order, each non-tie then tie.
    return commands[index // 2], bool(weights["tie"].iloc[index])


def adaptive_roll(variant: Variant, history: pd.DataFrame, rng: np.random.Generator) -> Roll:
    """A roll of the cell `pick_cell` chooses: rolled with `rules.roll` until its tie status matches.

    If MAX_ROLLS rolls never give the asked-for tie status (a variant where it
    cannot happen), the last roll of the chosen command is returned.
    """
    command, tie = pick_cell(history, variant.commands, rng)
    single = dataclasses.replace(variant, commands=(command,))
    for _ in range(MAX_ROLLS):
        rolled = roll(single, rng)
        if (resolve(variant, command, rolled.dice, rolled.positions).answer == GREY) == tie:
            break
    return rolled
