"""The adaptive scheduler: which type of roll to drill next, from the player's recent answers.

A type of roll (a cell) is a command and its kind: grey, near tie or clear (`CELL_KINDS`). Like a
spaced-repetition scheduler favouring hard cards, it draws a cell by its expected time per correct answer,
with an EXPLORATION share spread over every cell, then rolls as the game rolls until a roll of that kind comes.
The weighting and why it reads recent answers: docs/architecture.md, "The adaptive scheduler".
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from diavolo_stats.core.rules import Roll, resolve, roll_many
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.drill.log import TrialRow
from diavolo_stats.drill.log.roll import ROLL_COLUMNS, read_rolls
from diavolo_stats.drill.performance import anticipated
from diavolo_stats.drill.roll_features import (
    RollFeatures,
    logged_features,
    played_features,
    readable_command,
    readable_rolls,
)

EXPLORATION = 0.2
RECENT_TRIALS = 40
DEFAULT_LATENCY_MS = 2000.0
PRIOR_ANSWERS = 2
"""Answers of the player's overall median added to each cell's latency (docs/architecture.md)."""

CELL_KINDS = ("clear", "near tie", "one winner", "grey")
"""The kinds of roll of one command; every roll is of exactly one (a near tie is never grey). A command whose
near ties are told (`roll_features.readable_command`) has clear, near-tie and grey rolls; any other, one-winner
and grey rolls."""

SEARCHED_TRIALS = 10 * RECENT_TRIALS
"""A player's rolls of a command, newest first, read for their kind before all are (`recent_history`): ten
times RECENT_TRIALS, as the rarer of clear and near tie is about a sixth of the rolls that are not grey."""

ROLL_BATCH = 32
MAX_ROLLS = 512
"""Rolls of the chosen command drawn (ROLL_BATCH at a time) before a kind is given up as (nearly) impossible."""

HISTORY_COLUMNS = tuple(dict.fromkeys(("player", "timestamp", "variant", "too_early", "correct", "latency_ms")
                                      + ROLL_COLUMNS))
"""The drill log columns `recent_history` reads: `load_logs(paths, columns=HISTORY_COLUMNS)`."""

HISTORY_FRAME = ("player", "timestamp", "command", "kind", "correct", "latency_ms")
"""The columns of a history (`recent_history`, `trial_history`): one answered trial a row, `command` by name."""

CELL_COLUMNS = ("command", "kind", "trials", "correct", "p_correct", "latency_ms", "cost_ms", "probability")


@dataclasses.dataclass(frozen=True)
class ScheduledRoll:
    """The roll to drill next: the cell chosen (`command`, `kind`), the roll, and whether it is of that kind
    (False only when MAX_ROLLS rolls of the command never were: the roll is then of the command alone)."""

    roll: Roll
    command: Command
    kind: str
    of_kind: bool


def roll_kinds(features: RollFeatures) -> np.ndarray:
    """The kind (a CELL_KINDS name) of each roll of a command whose near ties are told: (rolls,) object array."""
    return np.where(features.grey, "grey", np.where(features.near_tie, "near tie", "clear")).astype(object)


def rolled_kinds(variant: Variant, rolls: Sequence[Roll]) -> np.ndarray:
    """The kind of each of some rolls of `variant`, all of one command: (rolls,) object array."""
    if rolls and readable_command(variant, rolls[0].command):
        return roll_kinds(played_features(variant, rolls))
    grey = [resolve(variant, r.command, r.dice, r.positions).answer == GREY for r in rolls]
    return np.where(grey, "grey", "one winner").astype(object)


def recent_history(drills: pd.DataFrame) -> pd.DataFrame:
    """The recent trials (`recent_trials`) of every player of a drill log frame (`load_logs` with
    HISTORY_COLUMNS, or rows of one, typed as it types them), too-early rows left out.

    Only the rows that can be recent are read for their kind: a grey roll is known from `is_tie`; of each
    player's other rolls of a command the last SEARCHED_TRIALS first, all of them if those hold fewer than
    RECENT_TRIALS of a kind. The result is that of every row read.
    """
    # Row positions of the answered trials, oldest first; the rolls' values are only ever read at the few rows
    # read for their kind.
    stamps = drills["timestamp"].dt.tz_convert(None).to_numpy()
    answered = np.flatnonzero(~anticipated(drills))
    order = answered[np.argsort(stamps[answered], kind="stable")]
    players = pd.factorize(drills["player"])[0][order]
    commands = pd.factorize(drills["command"])[0][order]
    rolls = read_rolls(drills)
    grey = rolls.grey[order]
    # Rows whose near ties are told: those the models read (`readable_rolls`).
    telling = readable_rolls(rolls)[order] & ~grey
    # One number per player and command: the groups whose kinds are read; with the row's class, the cells'.
    command_group = players.astype(np.int64) * (commands.max(initial=0) + 1) + commands
    group = command_group * 3 + np.where(grey, 0, np.where(telling, 1, 2))
    from_last = pd.Series(group).groupby(group).cumcount(ascending=False).to_numpy()  # 0: the group's newest
    kinds = np.where(grey, "grey", "one winner").astype(object)  # until a roll whose near ties are told is read

    def read(rows: np.ndarray) -> None:  # rows: (rows,) bool over `order`, `telling`
        kinds[rows] = roll_kinds(logged_features(rolls.take(order[rows])))

    searched = telling & (from_last < SEARCHED_TRIALS)
    read(searched)
    # A group whose last SEARCHED_TRIALS rows hold fewer than RECENT_TRIALS of a kind: all its rows are read.
    held = pd.crosstab(command_group[searched], kinds[searched]).reindex(columns=list(CELL_KINDS[:2]), fill_value=0)
    longer = np.unique(command_group[telling & (from_last >= SEARCHED_TRIALS)])
    short = held.index[(held.min(axis=1) < RECENT_TRIALS).to_numpy()].intersection(longer)
    rest = telling & ~searched & np.isin(command_group, short)
    if rest.any():
        read(rest)
    wanted = ~telling & (from_last < RECENT_TRIALS) | searched | rest
    chosen = drills.iloc[order[wanted]]
    return recent_trials(_history(chosen["player"].to_numpy(dtype=object), stamps[order[wanted]],
                                  chosen["command"].astype(str).to_numpy(dtype=object), kinds[wanted],
                                  chosen["correct"].to_numpy(dtype=bool),
                                  chosen["latency_ms"].to_numpy(dtype=np.float64)))


def trial_history(variant: Variant, rows: Sequence[TrialRow]) -> pd.DataFrame:
    """The history of some rows of `variant` a drill has just logged (too-early ones left out), as
    `recent_history` gives it (all of them)."""
    answered = [row for row in rows if not row.too_early]
    kinds = [rolled_kinds(variant, [Roll(row.command, dict(row.dice), row.positions)])[0] for row in answered]
    return _history(np.array([row.player for row in answered], dtype=object),
                    pd.to_datetime([row.timestamp for row in answered], utc=True).tz_convert(None).to_numpy(),
                    np.array([str(row.command) for row in answered], dtype=object), np.array(kinds, dtype=object),
                    np.array([row.correct for row in answered], dtype=bool),
                    np.array([np.nan if row.latency_ms is None else row.latency_ms for row in answered]))


def _history(*columns: np.ndarray) -> pd.DataFrame:
    frame = pd.DataFrame(dict(zip(HISTORY_FRAME, columns)))
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    return frame.sort_values("timestamp", kind="stable", ignore_index=True)


def recent_trials(history: pd.DataFrame) -> pd.DataFrame:
    """Of a history (HISTORY_FRAME), the last RECENT_TRIALS trials of each player's cells, oldest first: all
    that `cell_weights` reads, so a long history can be kept short."""
    ordered = history.sort_values("timestamp", kind="stable")
    return ordered.groupby(["player", "command", "kind"], sort=False).tail(RECENT_TRIALS).reset_index(drop=True)


@functools.lru_cache(maxsize=64)
def variant_cells(variant: Variant) -> tuple[tuple[Command, str], ...]:
    """The (command, kind) cells a drill of `variant` deals, in its commands' order, then CELL_KINDS order: those
    seen in MAX_ROLLS rolls of the command (drawn with a fixed seed, so always the same cells)."""
    cells = []
    for command in variant.commands:
        single = dataclasses.replace(variant, commands=(command,))
        seen = set(rolled_kinds(single, roll_many(single, MAX_ROLLS, np.random.default_rng(0))))
        cells += [(command, kind) for kind in CELL_KINDS if kind in seen]
    return tuple(cells)


def cell_weights(history: pd.DataFrame, cells: Sequence[tuple[Command, str]]) -> pd.DataFrame:
    """One row per (command, kind) cell of `cells` (`variant_cells`), in that order: CELL_COLUMNS.

    history: one player's trials (`recent_history`, `trial_history`; any order).
    `probability` sums to 1.
    """
    ordered = history.sort_values("timestamp", kind="stable")
    # per answered trial, oldest first: (trials,) arrays
    names = ordered["command"].astype(str).to_numpy(dtype=object)
    kinds = ordered["kind"].to_numpy(dtype=object)
    correct = ordered["correct"].to_numpy(dtype=bool)
    latency_ms = ordered["latency_ms"].to_numpy(dtype=np.float64)
    trials = []
    for command, kind in cells:
        recent = np.flatnonzero((names == str(command)) & (kinds == kind))[-RECENT_TRIALS:]
        trials.append((command, kind, recent, recent[correct[recent]]))
    answered_right = np.concatenate([right for *_, right in trials])
    overall_ms = float(np.median(latency_ms[answered_right])) if len(answered_right) else DEFAULT_LATENCY_MS
    rows = []
    for command, kind, recent, right in trials:
        p_correct = (len(right) + 1) / (len(recent) + 2)
        median_ms = float(np.median(latency_ms[right])) if len(right) else overall_ms
        cell_ms = (len(right) * median_ms + PRIOR_ANSWERS * overall_ms) / (len(right) + PRIOR_ANSWERS)
        rows.append((command, kind, len(recent), len(right), p_correct, cell_ms, cell_ms / p_correct))
    weights = pd.DataFrame(rows, columns=list(CELL_COLUMNS[:-1]))
    squared = weights["cost_ms"].to_numpy() ** 2
    weights["probability"] = (1 - EXPLORATION) * squared / squared.sum() + EXPLORATION / len(weights)
    return weights


def pick_cell(history: pd.DataFrame, cells: Sequence[tuple[Command, str]],
              rng: np.random.Generator) -> tuple[Command, str]:
    """The (command, kind) of `cells` to drill next, drawn with `cell_weights` probabilities."""
    weights = cell_weights(history, cells)
    return cells[int(rng.choice(len(weights), p=weights["probability"].to_numpy()))]


def roll_of_kind(variant: Variant, command: Command, kind: str, rng: np.random.Generator) -> tuple[Roll, bool]:
    """A roll of `command` of `kind` (a CELL_KINDS name), and True; (a roll of `command`, False) if MAX_ROLLS
    rolls gave none of that kind."""
    single = dataclasses.replace(variant, commands=(command,))
    for _ in range(MAX_ROLLS // ROLL_BATCH):
        rolls = roll_many(single, ROLL_BATCH, rng)
        found = np.flatnonzero(rolled_kinds(single, rolls) == kind)
        if found.size:
            return rolls[int(found[0])], True
    return rolls[-1], False


def adaptive_roll(variant: Variant, history: pd.DataFrame, rng: np.random.Generator) -> ScheduledRoll:
    """The next roll of a drill of `variant` for the player of `history`: of the cell `pick_cell` chooses."""
    command, kind = pick_cell(history, variant_cells(variant), rng)
    rolled, of_kind = roll_of_kind(variant, command, kind, rng)
    return ScheduledRoll(rolled, command, kind, of_kind)
