"""What the latency chart draws, worked out from the rows without matplotlib: each command's players' correct
latencies, where the axis ends, and each fit's curve.

`diavolo report` works them out in the process that read the rows and sends them to the one that draws
(`report`), which then needs neither the rows nor pandas nor scipy (each fit's density).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from diavolo_stats.analytics.chart_data import (
    LATENCY_UNIT_MS,
    MIN_HISTOGRAM_ANSWERS,
    PERCENT_PER_UNIT,
    LatencyFigures,
)
from diavolo_stats.drill.log.rules import command_order
from diavolo_stats.drill.performance import grouped_performance
from diavolo_stats.stats import ExGaussian

# Quantile of all latencies that ends the histogram axis: one 9-second lapse would squash the rest.
LATENCY_AXIS_QUANTILE = 0.99


def latency_figures(drills: pd.DataFrame, fits: Mapping[tuple[str, str], ExGaussian] | None = None) -> LatencyFigures:
    """The latency chart's figures of `drills` (`charts.latency_chart`), with the curves of `fits` ((command,
    player) -> ex-Gaussian, `summaries.summary_fits`) where given."""
    answers = correct_latencies(drills)
    most = {}  # command -> the most correct answers one player has at it
    for (command, _), (_, latencies) in answers.items():
        most[command] = max(most.get(command, 0), latencies.size)
    order = [command for command in command_order(list(most)) if command in most]  # built-ins, then a game's own
    commands = [command for command in order if most[command] >= MIN_HISTOGRAM_ANSWERS]
    left_out = [command for command in order if command not in commands]
    top, slower = (_latency_axis_end(np.concatenate([latencies for _, latencies in answers.values()])) if commands
                   else (0.0, 0))
    figures = LatencyFigures(answers, commands, left_out, most, top, slower, None)
    if fits is None:
        return figures
    grid = figures.grid
    return dataclasses.replace(figures, curves={
        pair: PERCENT_PER_UNIT * fits[pair].pdf(grid) for pair, (_, latencies) in answers.items()
        if pair[0] in commands and latencies.size >= MIN_HISTOGRAM_ANSWERS and pair in fits})


def correct_latencies(drills: pd.DataFrame) -> dict[tuple[str, str], tuple[dict, np.ndarray]]:
    """(command, player) -> (their `performance` figures, their correct latencies in ms), for each player who
    drilled the command, from one pass over the rows (a report's log can hold a million)."""
    command_codes, commands = pd.factorize(drills["command"])
    player_codes, players = pd.factorize(drills["player"])
    commands, players = [str(command) for command in commands], [str(player) for player in players]
    pairs = grouped_performance(drills, command_codes * len(players) + player_codes, len(commands) * len(players))
    return {pair: (figures, latencies)
            for pair, (figures, latencies) in zip(itertools.product(commands, players), pairs)
            if figures["trials"] + figures["anticipations"]}


def _latency_axis_end(latencies: np.ndarray) -> tuple[float, int]:
    """Where the latency axis ends (ms: the LATENCY_AXIS_QUANTILE, rounded up to whole LATENCY_UNIT_MS) and how
    many answers are slower."""
    top = float(np.quantile(latencies, LATENCY_AXIS_QUANTILE))
    top = max(LATENCY_UNIT_MS, LATENCY_UNIT_MS * np.ceil(top / LATENCY_UNIT_MS))
    return top, int((latencies > top).sum())
