"""Whole Diavolo games between modelled players, many thousands at once.

The games run in lockstep: every round rolls the dice for all unfinished
games with numpy, resolves them with `rules.answers` (`table.throw_on_grid` first for
`closest`), samples every player's answer and latency (`players.Lineup`),
lets players grab in order of latency and scores the round (`play_round`).
Finished games leave the working arrays, so late rounds cost little.

The rules (the rules page, docs/rules.md): each player grabs at most one
devil; devils in play per color are one fewer than the players still in, at
most 3 (`GameRules.devils` "rulebook"; "review" drops the cap), plus one
grey; a player whose chosen color has no devil left gets none. A color
answer: a holder of that color keeps their gems, everyone else loses one. A
tie (grey): the holder of the grey devil gains one (never above 5), everyone
else loses one. A player at 0 gems is out. A `closest` roll that is grey
only by the perception tolerance accepts both answers (`rules.accepted_answers`):
the grey holder gains one and a holder of the strictly nearest color keeps
their gems.

End rules (`EndRule`): `last-standing` (the rulebook; the last player holding
gems wins, no winner when the last players go out together) and `first-out`
(the French review: the game ends at the first elimination and the most gems
wins, shared on equal gems; if everyone went out at once nobody holds gems
and there is no winner). A game reaching `max_rounds` stops with no winner
and is counted apart.

The readings a game is played under are one `GameRules`: the end rule, the
devils per color, and whether the command die is shown first (which changes
the players, not the dice: players fitted from a drill log use the rows of
that variant).

Repeatability: games g * CHUNK_GAMES .. (g + 1) * CHUNK_GAMES - 1 are played
by the generator seeded with the g-th `SeedSequence.spawn` child of the seed.
The chunk size is a fixed constant, not a setting, so the same seed and the
same number of games always give the same games, and there is no batch
size that could change them. Every full chunk's games stay the same when
more games are asked for; only a partial last chunk changes (it draws
fewer games from its stream).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from enum import Enum, IntEnum
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.core import seeding
from diavolo_stats.core.rules import GREY_CODE, accepted_answers, answers
from diavolo_stats.core.seeding import children, root_sequence
from diavolo_stats.core.table_model import nearest_distances, throw_on_grid
from diavolo_stats.core.variant import ALL_COMMANDS, Command, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.files import atomic_file, check_target, write_frame_csv
from diavolo_stats.game.players import Lineup, PlayerModel, players_from_specs
from diavolo_stats.results import TextResult, render_fitted, wrap
from diavolo_stats.stats import proportion_estimate
from diavolo_stats.validation import (
    Configuration,
    Flag,
    Instance,
    Maybe,
    OneOf,
    Rule,
    Whole,
    check_value,
    checked,
    setting,
)

START_GEMS = 5
MAX_GEMS = 5
MAX_DEVILS_PER_COLOR = 3
"""The rulebook's cap on devils per color (4, 5 and 6 players use 3)."""

DEVILS = ("rulebook", "review")
"""Devils per color: one fewer than the players still in, at most 3 (rulebook) or with no cap (review)."""
MIN_PLAYERS, MAX_PLAYERS = 2, 6
DEFAULT_MAX_ROUNDS = 500
"""Far beyond any real game (a 6-player game lasts well under 100 rounds); only a degenerate model reaches it."""

DEFAULT_GAMES = 10_000
DEFAULT_DESIGN_GAMES = 20_000
"""Games per reference lineup for the design metrics: a 95 % interval of about +-0.006 on a win probability."""

SKILL_GAP = 0.8
"""The design metrics' clearly better player: 0.8 times an average player's latencies and error rates.
`preset:expert` (0.6 and 0.5) wins nearly every game against average players, so it could not show a
rule change making skill matter more or less; 0.8 stays clear of both 1/players and 1."""

CHUNK_GAMES = 1 << 15
"""Games per seeding chunk: the unit of randomness, fixed so results never depend on a setting."""

MAX_GAMES = 10**9
"""The most games one run plays (and per design lineup): hours of work. Games are played, counted and
saved one chunk at a time, so memory stays flat up to it; more is refused."""

MAX_GAME_ROUNDS = 100_000
"""The most rounds a game may be allowed (`max_rounds`); real games last well under 100."""

_RECORD_COLUMNS = ("rounds", "outcome", "win_share", "final_gems", "grey_rounds", "gems_lost", "lead_changes",
                   "winner_worst_deficit")


class EndRule(str, Enum):
    """When a game ends: at the last player standing (rulebook) or at the first player out."""

    LAST_STANDING = "last-standing"
    FIRST_OUT = "first-out"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, name: str) -> EndRule:
        """The end rule called `name` (or given itself); InputError naming `end` otherwise."""
        return check_value("end", name, EndRuleName())


class EndRuleName(Rule):
    """An `EndRule`, or its name."""

    def normalize(self, value: object) -> EndRule:
        try:
            return EndRule(value)
        except ValueError:
            raise ValueError(f"unknown end rule; allowed: {', '.join(rule.value for rule in EndRule)}") from None

    def bad_values(self) -> list:
        return ["sudden-death", "", 1, None]


@dataclass(frozen=True)
class GameRules(Configuration):
    """The readings of the rules a whole game is played under, checked once at construction.

    end: `EndRule` (or its name), default last-standing (the rulebook).
    devils: devils per color, "rulebook" (default: players still in - 1, at most
        3) or "review" (players still in - 1, no cap).
    command_first: the rulebook's easier variant where the command die is shown
        before the colored dice; players fitted from a drill log then use their
        rows of that variant. The dice and the answers are the same.
    """

    end: EndRule = setting(EndRule.LAST_STANDING, EndRuleName())
    devils: str = setting("rulebook", OneOf(DEVILS))
    command_first: bool = setting(False, Flag())

    @property
    def devil_cap(self) -> int | None:
        """The most devils of one color in play, or None for no cap."""
        return MAX_DEVILS_PER_COLOR if self.devils == "rulebook" else None

    def as_dict(self) -> dict[str, object]:
        """The readings as plain JSON types: end, devils, command_first."""
        return {"end": self.end.value, "devils": self.devils, "command_first": self.command_first}


class Outcome(IntEnum):
    """How one game ended."""

    WINNER = 0       # one player won
    SHARED = 1       # first-out: several players share the most gems
    ALL_OUT = 2      # the last players went out together: no winner
    ROUND_LIMIT = 3  # stopped at max_rounds: no winner

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


@dataclass(frozen=True, eq=False)  # arrays: compare them with numpy, not ==
class GameRecords:
    """One entry per game, in game order.

    rounds: rounds played. outcome: `Outcome` codes. win_share: 1 for a sole
    winner, 1/k for each of k sharing the win, else 0. final_gems: gems at the
    end. grey_rounds: rounds that were ties. gems_lost: gems lost over the
    game, all players. lead_changes: times the sole leader (strictly most
    gems) changed to another player. winner_worst_deficit: the most gems the
    winner was ever behind the leader (mean over shared winners), NaN when no
    one won.
    """

    players: tuple[PlayerModel, ...]
    rules: GameRules
    max_rounds: int
    rounds: np.ndarray                # (games,) int32
    outcome: np.ndarray               # (games,) int8
    win_share: np.ndarray             # (games, players) float64
    final_gems: np.ndarray            # (games, players) int8
    grey_rounds: np.ndarray           # (games,) int32
    gems_lost: np.ndarray             # (games,) int32
    lead_changes: np.ndarray          # (games,) int32
    winner_worst_deficit: np.ndarray  # (games,) float64

    @property
    def games(self) -> int:
        return len(self.rounds)


def play_round(gems: np.ndarray, grabbed: np.ndarray, latency_ms: np.ndarray,
               accepted: np.ndarray, devil_cap: int | None = MAX_DEVILS_PER_COLOR) -> tuple[np.ndarray, np.ndarray]:
    """One round in many games: who gets which devil, and everyone's gems after.

    Players still in (gems above 0) grab in order of latency; each takes a
    devil of the color they chose if one is left: players still in - 1 per
    color, at most `devil_cap` (None: no cap), and one grey. A player holding
    an accepted answer's devil keeps their gems, or gains one for grey.
    Returns (gems_after: (players, games) int8, 0 = out; held: (players,
    games) bool, whether the player got the devil they reached for).
    """
    # gems: (players, games) int8; grabbed: (players, games) int8 color index or GREY_CODE;
    # latency_ms: (players, games) float64; accepted: (2, games) int8 color index or GREY_CODE,
    # as `rules.accepted_answers` gives them (row 0 the table's call)
    alive = gems > 0
    player_count = len(gems)
    devils_per_color = alive.sum(axis=0, dtype=np.int8) - 1
    if devil_cap is not None:
        devils_per_color = np.minimum(devils_per_color, devil_cap)
    devils = np.where(grabbed == GREY_CODE, np.int8(1), devils_per_color)
    # Grabbing in order of latency, a player gets a devil of the color they reach for
    # exactly when fewer faster players still in reached for that color than there are
    # devils of it: each of those took one while any were left. Counted pairwise over
    # the players (at most 6), so there is no per-game loop and no sort.
    # faster[q, p]: q grabs before p (equal latencies: the earlier seat first).
    seat = np.arange(player_count)[:, None, None]
    faster = ((latency_ms[:, None] < latency_ms[None, :])
              | ((latency_ms[:, None] == latency_ms[None, :]) & (seat < seat.transpose(1, 0, 2))))
    rivals = (faster & alive[:, None] & (grabbed[:, None] == grabbed[None, :])).sum(axis=0, dtype=np.int8)
    held = alive & (rivals < devils)
    kept = held & ((grabbed == accepted[0]) | (grabbed == accepted[1]))
    # Kept grey (a tie): +1; kept a color: 0; anything else: -1.
    change = np.where(kept, (grabbed == GREY_CODE).astype(np.int8), np.int8(-1))
    gems_after = np.where(alive, np.minimum(gems + change, MAX_GEMS), 0).astype(np.int8)
    return gems_after, held


def roll_answers(variant: Variant, games: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Roll the command die and the dice for `games` rounds and resolve them.

    Returns (commands: (games,) int8 index into tuple(Command); accepted:
    (2, games) int8 color index or GREY_CODE, the answers counted right as
    `rules.accepted_answers` gives them, row 0 the table's call).
    """
    # returns: (games,) int8, (2, games) int8
    command_index = rng.integers(len(variant.commands), size=games)
    # dice: (colors, dice_per_color, games) uint8, color-major as `rules.answers` takes them
    dice = rng.integers(1, variant.sides + 1, size=(len(variant.colors), variant.dice_per_color, games),
                        dtype=np.uint8)
    accepted = np.empty((2, games), dtype=np.int8)
    for index, command in enumerate(variant.commands):
        rows = np.flatnonzero(command_index == index)
        if not rows.size:
            continue
        if command is Command.CLOSEST:
            # Grid steps, as the simulator uses: only ratios of distances decide closest.
            positions = throw_on_grid(variant.table, 1 + variant.dice_count, rows.size, rng)
            distances = nearest_distances(positions, len(variant.colors), variant.dice_per_color)
            accepted[:, rows] = accepted_answers(command, distances, variant.table.tolerance)
        else:
            accepted[:, rows] = answers(variant, command, dice=dice[:, :, rows])
    global_index = np.array([ALL_COMMANDS.index(c) for c in variant.commands], dtype=np.int8)
    return global_index[command_index], accepted


@checked(variant=Instance(Variant), games=Whole(1, MAX_GAMES), max_rounds=Whole(1, MAX_GAME_ROUNDS))
def play_games(variant: Variant, players: Sequence[PlayerModel], games: int,
               seed: int | np.random.SeedSequence | None = None, rules: GameRules = GameRules(),
               max_rounds: int = DEFAULT_MAX_ROUNDS) -> GameRecords:
    """Play `games` whole games between `players` (2 to 6) under `rules`; the records of every game, held in
    memory (about 60 bytes a game: for more games than fit, use `game_chunks` and `GameTally`).

    `rules.command_first` is carried to the records only: the players given already are the
    players of that variant (see `players_from_specs`).
    """
    chunks = list(game_chunks(variant, players, games, seed, rules, max_rounds))
    columns = {name: np.concatenate([getattr(chunk, name) for chunk in chunks]) for name in _RECORD_COLUMNS}
    return GameRecords(players=chunks[0].players, rules=rules, max_rounds=max_rounds, **columns)


@checked(variant=Instance(Variant), games=Whole(1, MAX_GAMES), max_rounds=Whole(1, MAX_GAME_ROUNDS))
def game_chunks(variant: Variant, players: Sequence[PlayerModel], games: int,
                seed: int | np.random.SeedSequence | None = None, rules: GameRules = GameRules(),
                max_rounds: int = DEFAULT_MAX_ROUNDS) -> Iterator[GameRecords]:
    """The games of `play_games`, one seeding chunk (CHUNK_GAMES games) at a time, so that memory stays flat.

    games: 1 to MAX_GAMES. InputError, before any game is played, for a count out of range.
    """
    players = tuple(players)
    _check_player_count(len(players))
    root = root_sequence(seed)
    lineup = Lineup(players)
    return (GameRecords(players=players, rules=rules, max_rounds=max_rounds,
                        **_play_chunk(variant, lineup, min(CHUNK_GAMES, games - start), rules, max_rounds,
                                      np.random.default_rng(seeding.child(root, index))))
            for index, start in enumerate(range(0, games, CHUNK_GAMES)))


def _play_chunk(variant: Variant, lineup: Lineup, games: int, rules: GameRules, max_rounds: int,
                rng: np.random.Generator) -> dict[str, np.ndarray]:
    player_count = len(lineup.players)
    # Records: one row per game, as `GameRecords` holds them.
    records = {
        "rounds": np.zeros(games, dtype=np.int32),
        "outcome": np.zeros(games, dtype=np.int8),
        "win_share": np.zeros((games, player_count)),
        "final_gems": np.zeros((games, player_count), dtype=np.int8),
        "grey_rounds": np.zeros(games, dtype=np.int32),
        "gems_lost": np.zeros(games, dtype=np.int32),
        "lead_changes": np.zeros(games, dtype=np.int32),
        "winner_worst_deficit": np.full(games, np.nan),
    }
    # Working state of the unfinished games, player-major: gems (players, live games) int8;
    # `game` maps a live column to its record.
    game = np.arange(games)
    gems = np.full((player_count, games), START_GEMS, dtype=np.int8)
    worst_deficit = np.zeros((player_count, games), dtype=np.int8)
    leader = np.full(games, -1, dtype=np.int8)
    grey_rounds = np.zeros(games, dtype=np.int32)
    gems_lost = np.zeros(games, dtype=np.int32)
    lead_changes = np.zeros(games, dtype=np.int32)
    played = 0
    while game.size:
        played += 1
        commands, accepted = roll_answers(variant, game.size, rng)
        grabbed, latency_ms = lineup.respond(commands, accepted, len(variant.colors), rng)
        gems_after, _ = play_round(gems, grabbed, latency_ms, accepted, rules.devil_cap)
        grey_rounds += accepted[0] == GREY_CODE
        gems_lost += (gems_after < gems).sum(axis=0, dtype=np.int32)
        most = gems_after.max(axis=0)
        np.maximum(worst_deficit, most - gems_after, out=worst_deficit)
        at_top = gems_after == most
        sole_leader = np.where(at_top.sum(axis=0) == 1, at_top.argmax(axis=0), -1).astype(np.int8)
        lead_changes += (sole_leader >= 0) & (leader >= 0) & (sole_leader != leader)
        leader = np.where(sole_leader >= 0, sole_leader, leader)

        still_in = gems_after > 0
        if rules.end is EndRule.LAST_STANDING:
            decided = still_in.sum(axis=0) <= 1
            win = still_in
        else:
            decided = ((gems > 0) & ~still_in).any(axis=0)
            win = at_top & still_in
        gems = gems_after
        done = decided | (played >= max_rounds)
        if not done.any():
            continue
        columns = np.flatnonzero(done)
        ids = game[columns]
        winners = win[:, columns] & decided[columns]
        winner_count = winners.sum(axis=0)
        share = winners / np.maximum(winner_count, 1)
        records["rounds"][ids] = played
        records["outcome"][ids] = np.select(
            [~decided[columns], winner_count == 0, winner_count == 1],
            [Outcome.ROUND_LIMIT, Outcome.ALL_OUT, Outcome.WINNER], Outcome.SHARED)
        records["win_share"][ids] = share.T
        records["final_gems"][ids] = gems[:, columns].T
        records["grey_rounds"][ids] = grey_rounds[columns]
        records["gems_lost"][ids] = gems_lost[columns]
        records["lead_changes"][ids] = lead_changes[columns]
        records["winner_worst_deficit"][ids] = np.where(
            winner_count > 0, (share * worst_deficit[:, columns]).sum(axis=0), np.nan)
        keep = ~done
        game, gems, worst_deficit = game[keep], gems[:, keep], worst_deficit[:, keep]
        leader, grey_rounds = leader[keep], grey_rounds[keep]
        gems_lost, lead_changes = gems_lost[keep], lead_changes[keep]
    return records


SHARE_UNITS = 60
"""Every win share (1, 1/2, ... 1/6) is a whole number of 60ths: wins are counted in these units, exactly,
so totals do not depend on how the games were grouped."""


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

    def summary(self, names: Sequence[str]) -> dict:
        games = self.games
        total_rounds = int((self.rounds_histogram * np.arange(len(self.rounds_histogram))).sum())
        no_winner = self.outcomes[Outcome.ALL_OUT] + self.outcomes[Outcome.ROUND_LIMIT]
        return {
            "games": games,
            "players": [{"name": name, **_win_share(float(won / SHARE_UNITS), games)}
                        for name, won in zip(names, self.wins)],
            "no_winner": float(no_winner / games),
            "outcomes": {outcome.label: int(self.outcomes[outcome]) for outcome in Outcome},
            "round_limit_games": int(self.outcomes[Outcome.ROUND_LIMIT]),
            "rounds": {"mean": float(total_rounds / games), "median": float(self.rounds_percentile(50)),
                       "p90": float(self.rounds_percentile(90)), "max": int(np.flatnonzero(self.rounds_histogram)[-1])},
            "grey_share": float(self.grey_rounds / total_rounds),
            "gems_lost_per_round": float(self.gems_lost / total_rounds),
            "lead_changes_per_game": float(self.lead_changes / games),
            "drama": {"winner_worst_deficit": self.deficit_units / SHARE_UNITS / self.won_games
                      if self.won_games else None,
                      "comeback_share": self.comebacks / self.won_games if self.won_games else None},
        }


def summarize_games(records: GameRecords, names: Sequence[str] | None = None) -> dict:
    """The figures of a set of games, as a JSON-ready dict.

    players: per player (in order) `name`, `win_probability` (sole wins count
    1, a win shared by k players 1/k each) and `ci95` (Wilson 95 % interval;
    for shared wins it is conservative, as a share in [0, 1] with mean p
    varies at most as much as a 0/1 outcome). no_winner: share of games no
    one won (all out together, or the round limit). rounds: game length in
    rounds. grey_share: share of all rounds played that were ties.
    gems_lost_per_round: gems lost by all players together per round.
    lead_changes_per_game: mean changes of the sole leader. drama: the
    winner's worst deficit behind the leader, in gems (mean over games with a
    winner), and `comeback_share`, the share of won games whose winner was
    behind at some point.
    """
    names = list(names) if names is not None else [player.name for player in records.players]
    return _with_rules(records.rules, records.max_rounds,
                       GameTally(len(records.players)).add(records).summary(names))


def _with_rules(rules: GameRules, max_rounds: int, summary: dict) -> dict:
    """A tally's summary with the rules it was played under, in the report's order."""
    return {"games": summary["games"], **rules.as_dict(), "max_rounds": max_rounds, **summary}


def design_metrics(variant: Variant, player_count: int, games: int = DEFAULT_DESIGN_GAMES,
                   seed: int | np.random.SeedSequence | None = None, rules: GameRules = GameRules(),
                   max_rounds: int = DEFAULT_MAX_ROUNDS) -> dict:
    """Balance and skill, from two reference lineups of `player_count` players under these rules.

    balance: 1 minus the largest gap in win probability between equal players
    (all `preset:average`, their win probabilities in `equal_win_probabilities`);
    1 is perfectly even, and sampling noise alone takes about 3 times
    `standard_error` off it. skill: the win probability of one clearly better
    player (`preset:average` with SKILL_GAP times the latencies and error
    rates) against `average` equals, with its 95 % interval, beside the
    `fair_share` 1/players it would have if skill did not matter.
    """
    equal_seed, skill_seed = children(root_sequence(seed), 2)
    equals = GameTally(player_count)
    for chunk in game_chunks(variant, [PlayerModel.preset("average")] * player_count, games, equal_seed, rules,
                             max_rounds):
        equals.add(chunk)
    equal_wins = equals.wins / SHARE_UNITS / games
    fair_share = 1 / player_count
    better_wins = _better_player_wins(variant, player_count, SKILL_GAP, games, skill_seed, rules, max_rounds)
    return {
        "games": games,
        "balance": float(1 - (equal_wins.max() - equal_wins.min())),
        "equal_win_probabilities": [float(p) for p in equal_wins],
        "standard_error": math.sqrt(fair_share * (1 - fair_share) / games),
        "skill": {"better_player": f"preset:average x{SKILL_GAP:g} latency, x{SKILL_GAP:g} errors",
                  "equals": "preset:average",
                  **_win_share(better_wins, games),
                  "fair_share": fair_share},
    }


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
        rows.append({"players": count, "end": end.value, "mean_rounds": summary["rounds"]["mean"],
                     "median_rounds": summary["rounds"]["median"], "p90_rounds": summary["rounds"]["p90"],
                     "no_winner": summary["no_winner"], "grey_share": summary["grey_share"]})
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


def records_frame(records: GameRecords, names: Sequence[str] | None = None, first_game: int = 0) -> pd.DataFrame:
    """One row per game: game, rounds, outcome, winner, grey_rounds, gems_lost, lead_changes,
    winner_worst_deficit, then `gems_1` .. `gems_<players>`, each player's final gems in the order given.

    winner: the winner's name, names joined by `+` on a shared win, empty when no one won.
    first_game: the number of the first game (records of a later chunk of games).
    """
    names = list(names) if names is not None else [player.name for player in records.players]
    winner = np.array(["+".join(n for n, s in zip(names, shares) if s > 0) for shares in records.win_share])
    frame = pd.DataFrame({
        "game": np.arange(first_game, first_game + records.games),
        "rounds": records.rounds,
        "outcome": [Outcome(code).label for code in records.outcome],
        "winner": winner,
        "grey_rounds": records.grey_rounds,
        "gems_lost": records.gems_lost,
        "lead_changes": records.lead_changes,
        "winner_worst_deficit": records.winner_worst_deficit,
    })
    for index in range(len(names)):
        frame[f"gems_{index + 1}"] = records.final_gems[:, index]
    return frame


@dataclass(frozen=True)
class GameReport(TextResult):
    """What `game_report` found: its figures (`document()`) and one row per player.

    summary: the document: `summarize_games`'s figures plus `seed` (the entropy
    used: pass it back to repeat the run), `variant`, the rules, `design`
    (`design_metrics`, or None) and `table_model` when `closest` is played.
    """

    summary: dict

    columns = ("player", "win_probability", "ci95_low", "ci95_high")

    def document(self) -> dict:
        return self.summary

    def rows(self) -> list[dict]:
        """Each player's win probability with its 95 % interval."""
        return [{"player": p["name"], "win_probability": p["win_probability"], "ci95_low": p["ci95"][0],
                 "ci95_high": p["ci95"][1]} for p in self.summary["players"]]

    def text(self) -> str:
        """The report for people, within 80 columns."""
        report = self.summary
        rounds, drama, outcomes = report["rounds"], report["drama"], report["outcomes"]
        lines = [
            wrap(f"Diavolo games: {len(report['players'])} players, end rule {report['end']}, "
                 f"{report['games']:,} games, seed {report['seed']}", "  "),
            wrap(f"rules: devils per color {report['devils']}, command die shown "
                 f"{'first' if report['command_first'] else 'with the dice'}", "  "),
            wrap(f"variant: {report['variant']['description']}", "  "),
            "",
            render_fitted(self.rows(), self.columns, keep=2),
            "",
            wrap(f"no winner: {report['no_winner']:.4f} ({outcomes['all-out']:,} games with the last players out "
                 f"together, {report['round_limit_games']:,} stopped at {report['max_rounds']} rounds; "
                 f"{outcomes['shared']:,} wins shared)", "  "),
            wrap(f"rounds per game: mean {rounds['mean']:.2f}, median {rounds['median']:g}, "
                 f"90th percentile {rounds['p90']:g}, longest {rounds['max']}", "  "),
            wrap(f"grey rounds: {report['grey_share']:.4f} of all rounds; gems lost per round: "
                 f"{report['gems_lost_per_round']:.3f}; lead changes per game: "
                 f"{report['lead_changes_per_game']:.3f}", "  "),
        ]
        if drama["winner_worst_deficit"] is not None:
            lines.append(wrap(f"drama: the winner was at worst {drama['winner_worst_deficit']:.3f} gems behind the "
                              f"leader (mean); {drama['comeback_share']:.4f} of winners were behind at some point",
                              "  "))
        design = report["design"]
        if design is not None:
            skill = design["skill"]
            others = len(report["players"]) - 1
            lines += [
                "",
                f"design, {design['games']:,} games per reference lineup of {len(report['players'])}:",
                wrap(f"  balance: {design['balance']:.4f} (1 = equal players win equally often; "
                     f"standard error {design['standard_error']:.4f})", "    "),
                wrap(f"  skill: {skill['better_player']} against {others} x {skill['equals']} wins "
                     f"{skill['win_probability']:.4f} [{skill['ci95'][0]:.4f}, {skill['ci95'][1]:.4f}]; "
                     f"fair share {skill['fair_share']:.4f}", "    "),
            ]
        if "table_model" in report:
            lines += ["", wrap(f"closest: {report['table_model']}", "  ")]
        return "\n".join(lines)


@checked(games=Whole(1, MAX_GAMES), max_rounds=Whole(1, MAX_GAME_ROUNDS), design_games=Whole(0, MAX_GAMES),
         variant=Maybe(Instance(Variant)))
def game_report(players: Sequence[str], games: int = DEFAULT_GAMES, seed: int | None = None,
                rules: GameRules = GameRules(), variant: Variant | None = None,
                max_rounds: int = DEFAULT_MAX_ROUNDS, log_path: str | Path | None = None,
                out: str | Path | None = None, design_games: int = DEFAULT_DESIGN_GAMES) -> GameReport:
    """Play the games `diavolo game` describes between `players` and return the report.

    players: `preset:NAME`, a `.toml` file or a name in the drill log at
    `log_path` (fitted from their rows of the `rules.command_first` variant). `design_games` games per
    reference lineup measure balance and skill (`design_metrics`); 0 skips them. With `out`, every game's
    record is written there as CSV (`records_frame`), chunk by chunk, whole or not at all.
    """
    _check_player_count(len(players))
    variant = variant or Variant()
    if out is not None:
        try:
            check_target(out)  # before the games are played
        except InputError as error:
            raise InputError(error.message, field="out") from None
    models = players_from_specs(players, log_path, command_first=rules.command_first)
    root = root_sequence(seed)
    game_seed, design_seed = children(root, 2)
    chunks = game_chunks(variant, models, games, game_seed, rules, max_rounds)
    tally = GameTally(len(models))
    with atomic_file(out) if out is not None else nullcontext() as stream:
        for number, chunk in enumerate(chunks):
            tally.add(chunk)
            if stream is not None:
                write_frame_csv(stream, records_frame(chunk, players, first_game=number * CHUNK_GAMES),
                                header=number == 0)
    report = {"seed": int(root.entropy), "variant": variant.as_dict()}
    if Command.CLOSEST in variant.commands:
        report["table_model"] = variant.table.describe()
    report |= _with_rules(rules, max_rounds, tally.summary(players))
    report["design"] = (design_metrics(variant, len(models), design_games, design_seed, rules, max_rounds)
                        if design_games else None)
    return GameReport(summary=report)


def _check_player_count(count: int) -> None:
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise InputError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {count}", field="players")


def _win_share(wins: float, games: int) -> dict:
    """`win_probability` and its Wilson 95 % interval `ci95` [low, high], as the game report carries them."""
    estimate = proportion_estimate(wins, games)
    return {"win_probability": estimate.value, "ci95": estimate.bounds}
