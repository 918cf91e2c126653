"""The game engine: whole Diavolo games between modelled players, many thousands at once on numpy arrays.

`play_games` plays games in lockstep, one chunk of CHUNK_GAMES per seeding child, so a seed gives the same games
however many are asked. A round's rules are stated here once (`devils_per_color`, `gems_after`, with
GREY_DEVILS from `settings`); `play_round` scores one round of every game. The rules: docs/rules.md; how the
round is vectorized and seeded: docs/architecture.md, "Whole games".
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from diavolo_stats.core import seeding
from diavolo_stats.core.rules import GREY_CODE, accepted_answers, answers, figures, roll_values
from diavolo_stats.core.seeding import root_sequence
from diavolo_stats.core.table_model import nearest_distances, throw_on_grid
from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.roll_features import RollFeatures, figure_features
from diavolo_stats.errors import InputError
from diavolo_stats.game.reading import Lineup
from diavolo_stats.game.settings import (
    COUNTS,
    DEFAULT_MAX_ROUNDS,
    GREY_DEVILS,
    MAX_DEVILS_PER_COLOR,
    MAX_PLAYERS,
    MIN_PLAYERS,
    EndRule,
    GameRules,
)
from diavolo_stats.game.specs import Player
from diavolo_stats.validation import Instance, checked

START_GEMS = 5
MAX_GEMS = 5

CHUNK_GAMES = 1 << 15
"""Games per seeding chunk: the unit of randomness, fixed so results never depend on a setting."""

_RECORD_COLUMNS = ("rounds", "outcome", "win_share", "final_gems", "grey_rounds", "gems_lost", "lead_changes",
                   "winner_worst_deficit")


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

    rounds: rounds played. outcome: `Outcome` codes. win_share: 1 for a sole winner, 1/k for each of k sharing the win,
    else 0. final_gems: gems at the end. grey_rounds: rounds that were ties. gems_lost: gems lost over the game, all
    players. lead_changes: times the sole leader (strictly most gems) changed to another player. winner_worst_deficit:
    the most gems the winner was ever behind the leader (mean over shared winners), NaN when no one won.
    """

    players: tuple[Player, ...]
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

    Players still in (gems above 0) grab in order of latency; each takes a devil of the color they chose if one is left:
    players still in - 1 per color, at most `devil_cap` (None: no cap), and one grey. A player holding an accepted
    answer's devil keeps their gems, or gains one for grey. Returns (gems_after: (players, games) int8, 0 = out; held:
    (players, games) bool, whether the player got the devil they reached for).
    """
    # gems: (players, games) int8; grabbed: (players, games) int8 color index or GREY_CODE;
    # latency_ms: (players, games) float64; accepted: (2, games) int8 color index or GREY_CODE,
    # as `rules.accepted_answers` gives them (row 0 the table's call)
    alive = gems > 0
    player_count = len(gems)
    devils = np.where(grabbed == GREY_CODE, np.int8(GREY_DEVILS),
                      devils_per_color(alive.sum(axis=0, dtype=np.int8), devil_cap))
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
    return gems_after(gems, kept, grabbed == GREY_CODE), held


def devils_per_color(players_in: np.ndarray | int, devil_cap: int | None = MAX_DEVILS_PER_COLOR) -> np.ndarray:
    """Devils of each color on the table (grey has GREY_DEVILS): one fewer than the players still in, at most
    `devil_cap` (None: no cap; `GameRules.devil_cap`). Same shape as `players_in` (a count, or one per game)."""
    count = np.maximum(np.asarray(players_in) - 1, 0)
    return count if devil_cap is None else np.minimum(count, devil_cap)


def gems_after(gems: np.ndarray, kept: np.ndarray, grey: np.ndarray) -> np.ndarray:
    """Each player's gems after a round: a player who holds an accepted answer's devil (`kept`) keeps their gems,
    or gains one for grey (never above MAX_GEMS); every other player still in loses one; 0 is out and stays 0."""
    # gems: (...) int8; kept, grey: bool of the same shape; returns int8 of the same shape
    change = np.where(kept, np.asarray(grey).astype(np.int8), np.int8(-1))
    return np.where(gems > 0, np.minimum(gems + change, MAX_GEMS), 0).astype(np.int8)


def roll_answers(variant: Variant, games: int, rng: np.random.Generator,
                 command_first: bool = False) -> tuple[np.ndarray, RollFeatures, np.ndarray]:
    """Roll the command die and the dice for `games` rounds and resolve them.

    Returns (accepted: (2, games) int8 color index or GREY_CODE, the answers counted right as `rules.accepted_answers`
    gives them, row 0 the table's call; the features of each roll, `roll_features.RollFeatures`, which the players'
    reading depends on: a designer's command is read with the skill of the built-in of its kind,
    `roll_features.skill_command`; the command each round rolled, an index into `variant.commands`).
    """
    # returns: (2, games) int8, RollFeatures of (games,) arrays, (games,) intp
    die = variant.die
    command_index = np.array([variant.commands.index(face) for face in die])[rng.integers(len(die), size=games)]
    if variant.standard_dice:
        # dice: (colors, dice_per_color, games) uint8, color-major as `rules.answers` takes them
        dice = rng.integers(1, variant.sides + 1, size=(len(variant.colors), variant.dice_per_color, games),
                            dtype=np.uint8)
    else:
        dice = roll_values(variant, games, rng)  # per color, (count, games) uint8
    accepted = np.empty((2, games), dtype=np.int8)
    parts, order = [], []
    for index, command in enumerate(variant.commands):
        rows = np.flatnonzero(command_index == index)
        if not rows.size:
            continue
        if not command.depends_on_values:
            # Grid steps, as the simulator uses: only ratios of distances decide closest.
            positions = throw_on_grid(variant.table, 1 + variant.dice_count, rows.size, rng)
            color_figures = nearest_distances(positions, len(variant.colors), variant.counts)
            accepted[:, rows] = accepted_answers(command, color_figures, variant.table.tolerance)
        else:
            rolled = [values[:, rows] for values in dice]
            color_figures = figures(command, rolled)
            accepted[:, rows] = answers(variant, command, dice=rolled)
        parts.append(figure_features(command, color_figures, accepted[0, rows], variant.dice_count, command_first))
        order.append(rows)
    features = RollFeatures.joined(parts).take(np.argsort(np.concatenate(order), kind="stable"))
    return accepted, features, command_index


@checked(variant=Instance(Variant), games=COUNTS["games"], max_rounds=COUNTS["max_rounds"])
def play_games(variant: Variant, players: Sequence[Player], games: int,
               seed: int | np.random.SeedSequence | None = None, rules: GameRules = GameRules(),
               max_rounds: int = DEFAULT_MAX_ROUNDS) -> GameRecords:
    """Play `games` whole games between `players` (2 to 6) under `rules`; the records of every game, held in
    memory (about 60 bytes a game: for more games than fit, use `game_chunks` and `GameTally`).

    With `rules.command_first` every roll is read with the command die shown first (a feature of the
    players' reading, `reading.ReadingModel`).
    """
    chunks = list(game_chunks(variant, players, games, seed, rules, max_rounds))
    columns = {name: np.concatenate([getattr(chunk, name) for chunk in chunks]) for name in _RECORD_COLUMNS}
    return GameRecords(players=chunks[0].players, rules=rules, max_rounds=max_rounds, **columns)


@checked(variant=Instance(Variant), games=COUNTS["games"], max_rounds=COUNTS["max_rounds"])
def game_chunks(variant: Variant, players: Sequence[Player], games: int,
                seed: int | np.random.SeedSequence | None = None, rules: GameRules = GameRules(),
                max_rounds: int = DEFAULT_MAX_ROUNDS) -> Iterator[GameRecords]:
    """The games of `play_games`, one seeding chunk (CHUNK_GAMES games) at a time, so that memory stays flat.

    games: 1 to MAX_GAMES. InputError, before any game is played, for a count out of range.
    """
    players = tuple(players)
    check_player_count(len(players))
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
        accepted, features, _ = roll_answers(variant, game.size, rng, rules.command_first)
        grabbed, latency_ms = lineup.respond(accepted, features, len(variant.colors), rng)
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


def check_player_count(count: int) -> None:
    """InputError naming `players` unless a game can have `count` players (MIN_PLAYERS to MAX_PLAYERS)."""
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise InputError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {count}", field="players")
