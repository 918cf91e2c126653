"""Design experiments: how even a variant is, how much skill matters, how long its games last.

Each plays reference lineups of modelled players through the engine and
reads their tallies: `design_metrics` (balance between equal players and the
win chance of one clearly better player), `skill_gap_curve` (that chance as
the gap grows) and `game_length_frame` (game length per player count and end
rule).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from diavolo_stats.core.seeding import children, root_sequence
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.game.engine import game_chunks, play_games, roll_answers
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import Lineup
from diavolo_stats.game.settings import DEFAULT_DESIGN_GAMES, DEFAULT_MAX_ROUNDS, EndRule, GameRules
from diavolo_stats.game.tally import SHARE_UNITS, GameTally, summarize_games, win_share_dict
from diavolo_stats.stats import Z_95, Estimate, proportion_estimate

SKILL_GAP = 0.8
"""The design metrics' clearly better player: 0.8 times an average player's latencies and error rates.
`preset:expert` (0.6 and 0.5) wins nearly every game against average players, so it could not show a
rule change making skill matter more or less; 0.8 stays clear of both 1/players and 1."""


@dataclass(frozen=True)
class SkillMeasure:
    """The win chance of `better_player` against equals who are all `equals`, beside the `fair_share`
    (1/players) it would have if skill did not matter."""

    better_player: str
    equals: str
    win: Estimate
    fair_share: float

    def as_dict(self) -> dict:
        return {"better_player": self.better_player, "equals": self.equals, **win_share_dict(self.win),
                "fair_share": self.fair_share}


@dataclass(frozen=True)
class CommandReading:
    """How hard a variant's rolls of one command are to read: the `average` player's mean answer time (ms)
    and error rate (probability) on `rolls` of its rolls, each with its 95 % interval."""

    command: Command
    rolls: int
    answer_ms: Estimate
    error_rate: Estimate

    def as_dict(self) -> dict:
        return {"command": self.command.value, "rolls": self.rolls, "mean_answer_ms": self.answer_ms.value,
                "mean_answer_ms_ci95": self.answer_ms.bounds, "error_rate": self.error_rate.value,
                "error_rate_ci95": self.error_rate.bounds}


@dataclass(frozen=True)
class DesignMetrics:
    """Balance, skill and reading of a variant, from `games` games per reference lineup.

    balance: 1 minus the largest gap in win probability between equal players
    (their win probabilities in `equal_win_probabilities`); 1 is perfectly
    even, and sampling noise alone takes about 3 times `standard_error` off it.
    reading: per command of the variant, how slow and error-prone its rolls
    are for an `average` player (`reading_per_command`).
    """

    games: int
    balance: float
    equal_win_probabilities: tuple[float, ...]
    standard_error: float
    skill: SkillMeasure
    reading: tuple[CommandReading, ...]

    def as_dict(self) -> dict:
        """The metrics as plain JSON types, as the game report's document carries them."""
        return {"games": self.games, "balance": self.balance,
                "equal_win_probabilities": list(self.equal_win_probabilities),
                "standard_error": self.standard_error, "skill": self.skill.as_dict(),
                "reading": [reading.as_dict() for reading in self.reading]}


def design_metrics(variant: Variant, player_count: int, games: int = DEFAULT_DESIGN_GAMES,
                   seed: int | np.random.SeedSequence | None = None, rules: GameRules = GameRules(),
                   max_rounds: int = DEFAULT_MAX_ROUNDS) -> DesignMetrics:
    """Balance and skill, from two reference lineups of `player_count` players under these rules.

    balance: between equal players (all `preset:average`). skill: the win
    probability of one clearly better player (`preset:average` with SKILL_GAP
    times the latencies and error rates) against `average` equals.
    """
    equal_seed, skill_seed, reading_seed = children(root_sequence(seed), 3)
    equals = GameTally(player_count)
    for chunk in game_chunks(variant, [PlayerModel.preset("average")] * player_count, games, equal_seed, rules,
                             max_rounds):
        equals.add(chunk)
    equal_wins = equals.wins / SHARE_UNITS / games
    fair_share = 1 / player_count
    better_wins = _better_player_wins(variant, player_count, SKILL_GAP, games, skill_seed, rules, max_rounds)
    return DesignMetrics(
        games=games, balance=float(1 - (equal_wins.max() - equal_wins.min())),
        equal_win_probabilities=tuple(float(p) for p in equal_wins),
        standard_error=math.sqrt(fair_share * (1 - fair_share) / games),
        skill=SkillMeasure(better_player=f"preset:average x{SKILL_GAP:g} latency, x{SKILL_GAP:g} errors",
                           equals="preset:average", win=proportion_estimate(better_wins, games),
                           fair_share=fair_share),
        reading=reading_per_command(variant, games, reading_seed, rules.command_first))


def reading_per_command(variant: Variant, rolls: int, seed: int | np.random.SeedSequence | None = None,
                        command_first: bool = False) -> tuple[CommandReading, ...]:
    """The `average` player's mean answer time and error rate on each command of `variant`, from `rolls`
    rolls of it (about rolls / commands each): the cost of the variant's dice and near ties in time and errors."""
    rng = np.random.default_rng(root_sequence(seed))
    _, features, rolled = roll_answers(variant, rolls, rng, command_first)
    correct, latency_ms = Lineup([PlayerModel.preset("average")]).sample(features, rng)
    readings = []
    for index, command in enumerate(variant.commands):
        chosen = rolled == index
        count = int(chosen.sum())
        if count < 2:
            continue
        times = latency_ms[0, chosen]
        half = Z_95 * float(times.std(ddof=1)) / math.sqrt(count)
        mean = float(times.mean())
        readings.append(CommandReading(command, count, Estimate(mean, mean - half, mean + half),
                                       proportion_estimate(int(count - correct[0, chosen].sum()), count)))
    return tuple(readings)


def skill_gap_curve(variant: Variant, player_count: int, factors: Sequence[float], games: int,
                    seed: int | None = None, rules: GameRules = GameRules(),
                    max_rounds: int = DEFAULT_MAX_ROUNDS) -> pd.DataFrame:
    """How often one player beats `average` equals as their skill gap grows.

    One row per factor: `factor` (the player's latencies and error rates
    are `factor` times average's: below 1 is better), `win_probability`,
    `ci95_low`, `ci95_high` and `fair_share` (1/players).
    """
    rows = []
    for factor, child in zip(factors, children(root_sequence(seed), len(factors))):
        wins = _better_player_wins(variant, player_count, factor, games, child, rules, max_rounds)
        estimate = proportion_estimate(wins, games)
        rows.append({"factor": factor, "win_probability": estimate.value, "ci95_low": estimate.low,
                     "ci95_high": estimate.high, "fair_share": 1 / player_count})
    return pd.DataFrame(rows)


def game_length_frame(variant: Variant, player_counts: Sequence[int], ends: Sequence[EndRule], games: int,
                      seed: int | None = None, max_rounds: int = DEFAULT_MAX_ROUNDS,
                      rules: GameRules = GameRules()) -> pd.DataFrame:
    """Game length between `average` equals, per player count and end rule (`rules` with each end in turn).

    One row per (players, end): `players`, `end`, `mean_rounds`,
    `median_rounds`, `p90_rounds` (rounds), `no_winner` and `grey_share`
    (probabilities).
    """
    rows = []
    cases = [(count, EndRule.parse(end)) for count in player_counts for end in ends]
    for (count, end), child in zip(cases, children(root_sequence(seed), len(cases))):
        summary = summarize_games(play_games(variant, [PlayerModel.preset("average")] * count, games, child,
                                             dataclasses.replace(rules, end=end), max_rounds))
        rows.append({"players": count, "end": end.value, "mean_rounds": summary.rounds.mean,
                     "median_rounds": summary.rounds.median, "p90_rounds": summary.rounds.p90,
                     "no_winner": summary.no_winner, "grey_share": summary.grey_share})
    return pd.DataFrame(rows)


def _better_player_wins(variant: Variant, player_count: int, factor: float, games: int,
                        seed: np.random.SeedSequence, rules: GameRules, max_rounds: int) -> float:
    """Wins (shared wins as fractions) of one `average` player scaled by `factor` against average equals."""
    average = PlayerModel.preset("average")
    lineup = [average.scaled(factor, factor, name=f"average x{factor:g}")] + [average] * (player_count - 1)
    tally = GameTally(player_count)
    for chunk in game_chunks(variant, lineup, games, seed, rules, max_rounds):
        tally.add(chunk)
    return float(tally.wins[0] / SHARE_UNITS)
