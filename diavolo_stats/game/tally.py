"""What a set of games adds up to: wins, outcomes, game length and drama, counted chunk by chunk.

`GameTally` counts the records of the engine (`engine.GameRecords`) one
chunk at a time, so memory does not grow with the games; its `summary` is a
`GameSummary`, the typed figures `diavolo game` reports (`as_dict` gives
them as the JSON document carries them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from types import MappingProxyType

import numpy as np

from diavolo_stats.game.engine import GameRecords, Outcome
from diavolo_stats.game.settings import GameRules
from diavolo_stats.stats import Estimate, proportion_estimate

SHARE_UNITS = 60
"""Every win share (1, 1/2, ... 1/6) is a whole number of 60ths: wins are counted in these units, exactly,
so totals do not depend on how the games were grouped."""


@dataclass(frozen=True)
class PlayerWins:
    """One player's win probability (sole wins count 1, a win shared by k players 1/k each) with its Wilson 95 %
    interval; for shared wins the interval is conservative, as a share in [0, 1] with mean p varies at most as
    much as a 0/1 outcome."""

    name: str
    win: Estimate

    def as_dict(self) -> dict:
        return {"name": self.name, **win_share_dict(self.win)}


@dataclass(frozen=True)
class GameLengths:
    """Game length in rounds: mean, median, 90th percentile and longest."""

    mean: float
    median: float
    p90: float
    max: int


@dataclass(frozen=True)
class Drama:
    """The winner's worst deficit behind the leader, in gems (mean over games with a winner), and the share of
    won games whose winner was behind at some point; both None when no game had a winner."""

    winner_worst_deficit: float | None
    comeback_share: float | None


@dataclass(frozen=True)
class GameSummary:
    """The figures of a set of games played under `rules` (at most `max_rounds` rounds each).

    players: each player's wins, in seat order. no_winner: share of games no
    one won (all out together, or the round limit). outcomes: games per
    `Outcome` label. rounds: game length. grey_share: share of all rounds
    played that were ties. gems_lost_per_round: gems lost by all players
    together per round. lead_changes_per_game: mean changes of the sole leader.
    """

    games: int
    rules: GameRules
    max_rounds: int
    players: tuple[PlayerWins, ...]
    no_winner: float
    outcomes: MappingProxyType[str, int]
    rounds: GameLengths
    grey_share: float
    gems_lost_per_round: float
    lead_changes_per_game: float
    drama: Drama

    @property
    def round_limit_games(self) -> int:
        """Games stopped at `max_rounds`, with no winner."""
        return self.outcomes[Outcome.ROUND_LIMIT.label]

    def as_dict(self) -> dict:
        """The figures as plain JSON types, in the order the report's document carries them."""
        return {"games": self.games, **self.rules.as_dict(), "max_rounds": self.max_rounds,
                "players": [player.as_dict() for player in self.players], "no_winner": self.no_winner,
                "outcomes": dict(self.outcomes), "round_limit_games": self.round_limit_games,
                "rounds": asdict(self.rounds), "grey_share": self.grey_share,
                "gems_lost_per_round": self.gems_lost_per_round,
                "lead_changes_per_game": self.lead_changes_per_game, "drama": asdict(self.drama)}


def win_share_dict(win: Estimate) -> dict:
    """`win_probability` and its 95 % interval `ci95` [low, high], as the game report's documents carry them."""
    return {"win_probability": win.value, "ci95": win.bounds}


class GameTally:
    """What `summarize_games` reports, added up one chunk of games at a time (memory does not grow with games)."""

    def __init__(self, players: int):
        self.games = 0
        self.wins = np.zeros(players, dtype=np.int64)  # in SHARE_UNITS
        self.outcomes = np.zeros(len(Outcome), dtype=np.int64)
        self.rounds_histogram = np.zeros(1, dtype=np.int64)  # games per number of rounds
        self.grey_rounds = self.gems_lost = self.lead_changes = 0
        self.deficit_units = self.won_games = self.comebacks = 0

    def add(self, records: GameRecords) -> GameTally:
        """Count the games of `records` in; returns the tally."""
        self.games += records.games
        units = np.rint(records.win_share * SHARE_UNITS).astype(np.int64)
        self.wins += units.sum(axis=0)
        self.outcomes += np.bincount(records.outcome, minlength=len(Outcome))
        histogram = np.bincount(records.rounds)
        size = max(len(histogram), len(self.rounds_histogram))
        self.rounds_histogram = np.pad(self.rounds_histogram, (0, size - len(self.rounds_histogram)))
        self.rounds_histogram[:len(histogram)] += histogram
        self.grey_rounds += int(records.grey_rounds.sum(dtype=np.int64))
        self.gems_lost += int(records.gems_lost.sum(dtype=np.int64))
        self.lead_changes += int(records.lead_changes.sum(dtype=np.int64))
        won = np.isfinite(records.winner_worst_deficit)
        # The deficit is a share-weighted mean of whole gems: a whole number of 60ths too.
        self.deficit_units += int(np.rint(records.winner_worst_deficit[won] * SHARE_UNITS).sum())
        self.won_games += int(won.sum())
        self.comebacks += int((records.winner_worst_deficit[won] > 0).sum())
        return self

    def rounds_percentile(self, percent: float) -> float:
        """The `percent` percentile of game length in rounds, as `np.percentile` (linear) gives it."""
        position = (self.games - 1) * percent / 100
        below = int(math.floor(position))
        cumulative = np.cumsum(self.rounds_histogram)
        low, high = (int(np.searchsorted(cumulative, k, side="right")) for k in (below, min(below + 1, self.games - 1)))
        return low + (position - below) * (high - low)

    def summary(self, names: Sequence[str], rules: GameRules, max_rounds: int) -> GameSummary:
        """The figures of the games counted so far, the players named `names` (in seat order)."""
        games = self.games
        total_rounds = int((self.rounds_histogram * np.arange(len(self.rounds_histogram))).sum())
        no_winner = self.outcomes[Outcome.ALL_OUT] + self.outcomes[Outcome.ROUND_LIMIT]
        return GameSummary(
            games=games, rules=rules, max_rounds=max_rounds,
            players=tuple(PlayerWins(name, proportion_estimate(float(won / SHARE_UNITS), games))
                          for name, won in zip(names, self.wins)),
            no_winner=float(no_winner / games),
            outcomes=MappingProxyType({outcome.label: int(self.outcomes[outcome]) for outcome in Outcome}),
            rounds=GameLengths(mean=float(total_rounds / games), median=float(self.rounds_percentile(50)),
                               p90=float(self.rounds_percentile(90)),
                               max=int(np.flatnonzero(self.rounds_histogram)[-1])),
            grey_share=float(self.grey_rounds / total_rounds),
            gems_lost_per_round=float(self.gems_lost / total_rounds),
            lead_changes_per_game=float(self.lead_changes / games),
            drama=Drama(winner_worst_deficit=self.deficit_units / SHARE_UNITS / self.won_games
                        if self.won_games else None,
                        comeback_share=self.comebacks / self.won_games if self.won_games else None))


def summarize_games(records: GameRecords, names: Sequence[str] | None = None) -> GameSummary:
    """The figures of a set of games held in memory (`GameSummary`); `names` default to the players' own."""
    names = list(names) if names is not None else [player.name for player in records.players]
    return GameTally(len(records.players)).add(records).summary(names, records.rules, records.max_rounds)
