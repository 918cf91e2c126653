"""Whole Diavolo games between modelled players: the names callers import, from the modules that hold them.

`settings` holds what games are played under (`GameRules`, the limits of a
run), `engine` plays them (`play_round`, `play_games`, `game_chunks`), `tally`
adds them up (`GameTally`, `summarize_games`), `design` runs the design
experiments (`design_metrics`, `skill_gap_curve`, `game_length_frame`) and
`report` makes the report `diavolo game` prints (`game_report`).
"""

from diavolo_stats.game.design import (
    SKILL_GAP,
    DesignMetrics,
    SkillMeasure,
    design_metrics,
    game_length_frame,
    skill_gap_curve,
)
from diavolo_stats.game.engine import (
    CHUNK_GAMES,
    MAX_GEMS,
    START_GEMS,
    GameRecords,
    Outcome,
    game_chunks,
    play_games,
    play_round,
    roll_answers,
)
from diavolo_stats.game.report import GameReport, game_report, records_frame
from diavolo_stats.game.settings import (
    DEFAULT_DESIGN_GAMES,
    DEFAULT_GAMES,
    DEFAULT_MAX_ROUNDS,
    DEVILS,
    MAX_DEVILS_PER_COLOR,
    MAX_GAME_ROUNDS,
    MAX_GAMES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    EndRule,
    GameRules,
)
from diavolo_stats.game.tally import (
    SHARE_UNITS,
    Drama,
    GameLengths,
    GameSummary,
    GameTally,
    PlayerWins,
    summarize_games,
)

__all__ = [
    "CHUNK_GAMES", "DEFAULT_DESIGN_GAMES", "DEFAULT_GAMES", "DEFAULT_MAX_ROUNDS", "DEVILS", "MAX_DEVILS_PER_COLOR",
    "MAX_GAMES", "MAX_GAME_ROUNDS", "MAX_GEMS", "MAX_PLAYERS", "MIN_PLAYERS", "SHARE_UNITS", "SKILL_GAP",
    "START_GEMS", "DesignMetrics", "Drama", "EndRule", "GameLengths", "GameRecords", "GameReport", "GameRules",
    "GameSummary", "GameTally", "Outcome", "PlayerWins", "SkillMeasure", "design_metrics", "game_chunks",
    "game_length_frame", "game_report", "play_games", "play_round", "records_frame", "roll_answers",
    "skill_gap_curve", "summarize_games",
]
