"""The report `diavolo game` prints: games between the players asked for, their figures and the design metrics.

`game_report` plays the games chunk by chunk (`engine.game_chunks`), counts
them (`tally.GameTally`), writes every game's record with `out`
(`records_frame`) and measures the design metrics (`design.design_metrics`);
it returns a `GameReport`, a typed result like every command's.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.core.seeding import children, root_sequence
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.errors import about
from diavolo_stats.files import atomic_file, check_target, write_frame_csv
from diavolo_stats.game.design import DesignMetrics, design_metrics
from diavolo_stats.game.engine import GameRecords, Outcome, check_player_count, game_chunks
from diavolo_stats.game.settings import (
    COUNTS,
    DEFAULT_DESIGN_GAMES,
    DEFAULT_GAMES,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_MODEL,
    MODELS,
    GameRules,
)
from diavolo_stats.game.specs import extrapolation_notes, players_from_specs, specs_fit
from diavolo_stats.game.tally import GameSummary, GameTally
from diavolo_stats.results import TextResult, render_fitted, wrap
from diavolo_stats.validation import Instance, Maybe, OneOf, checked


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
    """What `game_report` found: its figures and one row per player.

    seed: the entropy used (pass it back to repeat the run). variant: the
    game played. summary: the games' figures (`tally.GameSummary`, the rules
    included). design: `design.design_metrics`, or None when skipped.
    notes: what the reader should know about the figures (a player whose
    reading of this variant's rolls is extrapolated beyond their drill log).
    """

    seed: int
    variant: Variant
    summary: GameSummary
    design: DesignMetrics | None
    notes: tuple[str, ...] = ()

    columns = ("player", "win_probability", "ci95_low", "ci95_high")

    def document(self) -> dict:
        """`seed`, `variant`, `table_model` when `closest` is played, the summary's figures, `design`, `notes`."""
        document: dict = {"seed": self.seed, "variant": self.variant.as_dict()}
        if Command.CLOSEST in self.variant.commands:
            document["table_model"] = self.variant.table.describe()
        return {**document, **self.summary.as_dict(),
                "design": self.design.as_dict() if self.design is not None else None, "notes": list(self.notes)}

    def rows(self) -> list[dict]:
        """Each player's win probability with its 95 % interval."""
        return [{"player": p.name, "win_probability": p.win.value, "ci95_low": p.win.low, "ci95_high": p.win.high}
                for p in self.summary.players]

    def text(self) -> str:
        """The report for people, within 80 columns."""
        summary, rules = self.summary, self.summary.rules
        rounds, drama, outcomes = summary.rounds, summary.drama, summary.outcomes
        lines = [
            wrap(f"Diavolo games: {len(summary.players)} players, end rule {rules.end.value}, "
                 f"{summary.games:,} games, seed {self.seed}", "  "),
            wrap(f"rules: devils per color {rules.devils}, command die shown "
                 f"{'first' if rules.command_first else 'with the dice'}", "  "),
            wrap(f"variant: {self.variant.describe()}", "  "),
            "",
            render_fitted(self.rows(), self.columns, keep=2),
            "",
            wrap(f"no winner: {summary.no_winner:.4f} ({outcomes['all-out']:,} games with the last players out "
                 f"together, {summary.round_limit_games:,} stopped at {summary.max_rounds} rounds; "
                 f"{outcomes['shared']:,} wins shared)", "  "),
            wrap(f"rounds per game: mean {rounds.mean:.2f}, median {rounds.median:g}, "
                 f"90th percentile {rounds.p90:g}, longest {rounds.max}", "  "),
            wrap(f"grey rounds: {summary.grey_share:.4f} of all rounds; gems lost per round: "
                 f"{summary.gems_lost_per_round:.3f}; lead changes per game: "
                 f"{summary.lead_changes_per_game:.3f}", "  "),
        ]
        if drama.winner_worst_deficit is not None:
            lines.append(wrap(f"drama: the winner was at worst {drama.winner_worst_deficit:.3f} gems behind the "
                              f"leader (mean); {drama.comeback_share:.4f} of winners were behind at some point",
                              "  "))
        design = self.design
        if design is not None:
            skill = design.skill
            others = len(summary.players) - 1
            name_width = max((len(reading.command.value) for reading in design.reading), default=0)
            lines += [
                "",
                f"design, {design.games:,} games per reference lineup of {len(summary.players)}:",
                wrap(f"  balance: {design.balance:.4f} (1 = equal players win equally often; "
                     f"standard error {design.standard_error:.4f})", "    "),
                wrap(f"  skill: {skill.better_player} against {others} x {skill.equals} wins "
                     f"{skill.win.value:.4f} [{skill.win.low:.4f}, {skill.win.high:.4f}]; "
                     f"fair share {skill.fair_share:.4f}", "    "),
                "  reading, an average player on this variant's rolls:",
                *(f"    {r.command.value:<{name_width}}  {r.answer_ms.value:6,.0f} ms  {r.error_rate.value:6.1%} wrong"
                  for r in design.reading),
            ]
        if Command.CLOSEST in self.variant.commands:
            lines += ["", wrap(f"closest: {self.variant.table.describe()}", "  ")]
        if self.notes:
            lines += ["", *(wrap(note, "  ") for note in self.notes)]
        return "\n".join(lines)


@checked(**COUNTS, variant=Maybe(Instance(Variant)), model=OneOf(MODELS))
def game_report(players: Sequence[str], games: int = DEFAULT_GAMES, seed: int | None = None,
                rules: GameRules = GameRules(), variant: Variant | None = None,
                max_rounds: int = DEFAULT_MAX_ROUNDS, log_path: str | Path | None = None,
                out: str | Path | None = None, design_games: int = DEFAULT_DESIGN_GAMES,
                model: str = DEFAULT_MODEL) -> GameReport:
    """Play the games `diavolo game` describes between `players` and return the report.

    players: `preset:NAME`, a `.toml` file or a name in the drill log at
    `log_path` (fitted with the log's other players by `model`, one of MODELS). `design_games` games per
    reference lineup measure balance and skill (`design_metrics`); 0 skips them. With `out`, every game's
    record is written there as CSV (`records_frame`), chunk by chunk, whole or not at all.
    """
    check_player_count(len(players))
    variant = variant or Variant()
    if out is not None:
        with about("out"):
            check_target(out)  # before the games are played
    fit = specs_fit(players, log_path, model)
    models = players_from_specs(players, log_path, command_first=rules.command_first, fit=fit, model=model)
    notes = extrapolation_notes(players, fit, variant.dice_count)
    root = root_sequence(seed)
    game_seed, design_seed = children(root, 2)
    chunks = game_chunks(variant, models, games, game_seed, rules, max_rounds)
    tally = GameTally(len(models))
    played = 0
    with atomic_file(out) if out is not None else nullcontext() as stream:
        for chunk in chunks:
            tally.add(chunk)
            if stream is not None:
                write_frame_csv(stream, records_frame(chunk, players, first_game=played), header=played == 0)
            played += chunk.games
    design = (design_metrics(variant, len(models), design_games, design_seed, rules, max_rounds)
              if design_games else None)
    return GameReport(seed=int(root.entropy), variant=variant, summary=tally.summary(players, rules, max_rounds),
                      design=design, notes=tuple(notes))
