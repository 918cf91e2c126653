"""A player's weak spots by roll type, from their fitted model: what near ties, grey and more dice cost them.

`reading_costs` reads them from one fitted player (`game.specs.fit_players`), as `diavolo players` gives its
figures: each feature of a roll that costs the player time or accuracy, in words (`wording`), named only when its
whole interval is a cost and at least MIN_FEATURE_ANSWERS of the player's answers had it.

Why it works as it does: docs/architecture.md, "Weak spots by roll".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from diavolo_stats.analytics import wording
from diavolo_stats.analytics.player_figures import FigureDraws, figure_draws, informed_answers
from diavolo_stats.core.variant import ALL_COMMANDS
from diavolo_stats.drill.log import kept_rows, load_rows
from diavolo_stats.drill.performance import anticipated
from diavolo_stats.errors import InputError
from diavolo_stats.game.reading_fit import FIT_COLUMNS, PlayerReading, ReadingFit
from diavolo_stats.game.settings import DEFAULT_MODEL
from diavolo_stats.game.specs import fit_players
from diavolo_stats.stats import Estimate

RECENT_ANSWERS = 2000
"""Each player's most recent answers (trials that are not anticipations) the weak spots are fitted on."""

MIN_FEATURE_ANSWERS = 10
"""The fewest of the player's own answers on rolls with a feature for that feature to be named a weak spot."""

COSTS_SHOWN = 3
"""At most this many weak spots in time, and as many in accuracy."""

COLUMNS = ("session_id", "player", "timestamp", "trial", "too_early", "latency_ms")
"""The drill log columns `roll_weak_spots` needs in its frame (with `source` and `line`, as `load_logs(...,
lines=True)` adds them): which answers are each player's most recent, and where to read the rest of them (the
session and trial: which trial a line must still hold, `load_rows`)."""


@dataclass(frozen=True)
class ReadingCost:
    """One weak spot: the figure (its `diavolo players` name) and its Estimate as that command prints it, its
    unit (ms or probability), the player's answers it rests on, and a sentence saying what it costs them."""

    figure: str
    estimate: Estimate
    unit: str
    answers: int
    sentence: str


@dataclass(frozen=True)
class RollWeakSpots:
    """One player's weak spots by roll type: `costs` (time first, then accuracy, costliest first), the answers
    the fit of the player rests on (0 when not fitted) and `note`, why nothing is named ("" when something is)."""

    player: str
    costs: tuple[ReadingCost, ...]
    answers: int
    note: str

    def as_dict(self) -> dict:
        """The JSON form: `answers`, `note` and each cost's figure, value, interval, unit, answers, sentence."""
        return {"answers": self.answers, "note": self.note, "weak_spots": [
            {"figure": cost.figure, "value": cost.estimate.value, "interval": cost.estimate.bounds,
             "unit": cost.unit, "answers": cost.answers, "sentence": cost.sentence} for cost in self.costs]}


def reading_costs(reading: PlayerReading, count: int = COSTS_SHOWN,
                  confidence: float = 0.95) -> tuple[ReadingCost, ...]:
    """A fitted player's weak spots (see the module docstring): at most `count` costing time, costliest first,
    then at most `count` costing accuracy, each a sentence such as "near ties on highest total cost you 180 ms
    (120-240 ms), from 57 of your answers" or "you answer grey right 71 % of the time (60-80 %) vs 90 %
    otherwise, from 40 of your answers"."""
    draws = figure_draws(reading)
    informed = informed_answers(reading)
    otherwise = np.mean([draws[f"accuracy {command}"].values for command in ALL_COMMANDS], axis=0)  # (draws,)
    time_costs, accuracy_costs = [], []
    for label, figure in draws.items():
        answers = informed[figure.coefficient]
        what = _feature(label)
        if what is None or answers < MIN_FEATURE_ANSWERS:
            continue
        shown = figure.estimate(confidence)
        if figure.unit == "ms":
            if shown.low > 0:
                time_costs.append((shown.value, ReadingCost(label, shown, "ms", answers,
                                                            wording.reading_cost(what, shown, answers))))
            continue
        if label == "accuracy per extra die":
            lost = FigureDraws(-figure.values, figure.unit, figure.coefficient).estimate(confidence)
            sentence = wording.reading_cost(what, lost, answers, unit="points")
        else:
            base = otherwise if label == "accuracy on grey" else draws[label.replace("near tie ", "")].values
            on = base + figure.values if label.startswith("accuracy near tie ") else figure.values
            lost = FigureDraws(base - on, figure.unit, figure.coefficient).estimate(confidence)
            sentence = wording.reading_accuracy(what, FigureDraws(on, "probability", "").estimate(confidence),
                                                float(np.median(base)), answers)
        if lost.low > 0:
            accuracy_costs.append((lost.value, ReadingCost(label, shown, figure.unit, answers, sentence)))
    ranked = [sorted(costs, key=lambda pair: -pair[0])[:count] for costs in (time_costs, accuracy_costs)]
    return tuple(cost for costs in ranked for _, cost in costs)


def recent_answers(drills: pd.DataFrame) -> pd.DataFrame:
    """Each player's most recent RECENT_ANSWERS answers (not anticipations: `performance.anticipated`) of `drills`
    (with COLUMNS), in the log's order."""
    answered = np.flatnonzero(~anticipated(drills))  # (answers,) row positions
    codes, names = pd.factorize(drills["player"])
    players = codes.astype(np.min_scalar_type(-len(names) - 1))[answered]  # narrow: a radix sort, a light take
    stamps = drills["timestamp"].array.asi8  # ns since 1970 (UTC), no Timestamp objects
    # Player by player, oldest first, the log's order on ties. A log is written as its answers come, so each
    # player's rows are in time order already, most often: then a stable sort by player alone gives that order,
    # where a sort by both keys costs ten times as long. Arrays of a million rows are few and narrow here: in a
    # fresh process, each new one costs its pages.
    rows = answered[np.argsort(players, kind="stable")]  # (answers,) row positions, player by player
    counts = np.bincount(players, minlength=len(names))
    ends = np.cumsum(counts)  # one past each player's last answer in `rows`
    in_order = stamps[rows]
    if not np.isin(np.flatnonzero(in_order[1:] < in_order[:-1]), ends - 1).all():  # a player's time goes back
        rows = answered[np.lexsort((stamps[answered], players))]
    kept = np.zeros(len(drills), dtype=bool)
    for start, end in zip(ends - counts, ends):
        kept[rows[max(end - RECENT_ANSWERS, start): end]] = True
    return kept_rows(drills, kept)


def roll_weak_spots(drills: pd.DataFrame, players: Sequence[str],
                    model: str = DEFAULT_MODEL) -> dict[str, RollWeakSpots]:
    """The weak spots by roll type of each of `players` (see the module docstring), from a drill log frame
    read with COLUMNS and lines=True (or with FIT_COLUMNS); every player of the frame is fitted with them (the
    club they borrow from), by `model` (one of `settings.MODELS`). A player who cannot be fitted, or every player
    when a log was replaced since `drills` was read (`load_rows`), gets a note saying why instead."""
    return weak_spots_to_fit(drills, players, model)()


def weak_spots_to_fit(drills: pd.DataFrame, players: Sequence[str],
                      model: str = DEFAULT_MODEL) -> Callable[[], dict[str, RollWeakSpots]]:
    """`roll_weak_spots(drills, players, model)` as a call that fits them, to make later or in another process
    (it pickles): the rows it fits are read here and now (`recent_rows`), where the read of `drills` left its
    logs' line marks; a forked process has none and would count a large log's line ends from its header."""
    try:
        rows = recent_rows(drills)
    except InputError as error:
        return partial(_unfitted, players, _no_fit(error))
    return partial(fitted_weak_spots, rows, players, model)


def fitted_weak_spots(rows: pd.DataFrame, players: Sequence[str],
                      model: str = DEFAULT_MODEL) -> dict[str, RollWeakSpots]:
    """`roll_weak_spots` of the rows `recent_rows` gives: every player of them fitted by `model`, then the weak
    spots of each of `players`."""
    try:
        fit = fit_players(rows, model)
    except InputError as error:
        return _unfitted(players, _no_fit(error))
    spots = {}
    for player in players:
        try:
            reading = fit.player(player)
        except InputError as error:
            spots[player] = RollWeakSpots(player, (), 0, _no_fit(error))
            continue
        costs = reading_costs(reading)
        note = "" if costs else (
            f"no feature of a roll costs you time or accuracy, as far as your {reading.answers} most recent "
            f"answers show: a near tie, grey or an extra die is named when its whole 95 % interval is a cost "
            f"and at least {MIN_FEATURE_ANSWERS} of your answers had it")
        spots[player] = RollWeakSpots(player, costs, reading.answers, note)
    return spots


def fit_recent(drills: pd.DataFrame, model: str = DEFAULT_MODEL) -> ReadingFit:
    """Every player of a drill log frame (COLUMNS and lines=True, or FIT_COLUMNS) fitted by `model` on their
    `recent_rows`. InputError as `fit_players`, or as `load_rows` when a log was replaced since `drills` was
    read."""
    return fit_players(recent_rows(drills), model)


def recent_rows(drills: pd.DataFrame) -> pd.DataFrame:
    """Each player's RECENT_ANSWERS most recent answers of a drill log frame (COLUMNS and lines=True, or
    FIT_COLUMNS) with FIT_COLUMNS, what a fit reads: the work bounded by the players, not by the log's length.
    Without FIT_COLUMNS the rows are read again from the logs (`load_rows`); InputError as `load_rows` when a log
    was replaced since `drills` was read."""
    if set(FIT_COLUMNS) <= set(drills.columns):
        return recent_answers(drills)
    # only the columns that find the rest of each answer: a take from a text column of a large log is dear
    return load_rows(recent_answers(drills[[*COLUMNS, "source", "line"]]), FIT_COLUMNS)


def _unfitted(players: Sequence[str], note: str) -> dict[str, RollWeakSpots]:
    return {player: RollWeakSpots(player, (), 0, note) for player in players}


def _no_fit(error: InputError) -> str:
    return f"no weak spot by roll type: {error.message}"


def _feature(label: str) -> str | None:
    """The words for the feature a figure is the cost of; None for a figure that is no feature's cost."""
    for prefix in ("accuracy near tie ", "near tie "):
        if label.startswith(prefix):
            return f"near ties on {label.removeprefix(prefix).replace('-', ' ')}"
    return {"grey": "grey rolls", "accuracy on grey": "grey", "per extra die": "each extra die",
            "accuracy per extra die": "each extra die"}.get(label)
