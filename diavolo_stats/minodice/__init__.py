"""Minodice (Skull King: Das Wuerfelspiel): trick resolution, scoring, a score sheet, die odds and a bid advisor.

One module per concept (docs/architecture.md, "Every module"); `survey` imports pandas and `charts` matplotlib,
for notebooks.
"""

from diavolo_stats.minodice.bidding import BidAdvice, advise_bid
from diavolo_stats.minodice.dice import Bag, Die, Face, as_bag, face_code, face_label, load_dice
from diavolo_stats.minodice.odds import DieOdds, WinOdds, die_odds, exact_win_probability, simulated_win_probability
from diavolo_stats.minodice.options import Rules, rounds_for_players
from diavolo_stats.minodice.play import DealtHands, RoundRecord, deal, play_tricks
from diavolo_stats.minodice.scoring import (
                                            GameScore,
                                            read_score_sheet,
                                            score_game,
                                            score_round,
                                            score_sheet,
                                            sheet_columns,
)
from diavolo_stats.minodice.tricks import Trick, TrickOutcomes, resolve_trick, resolve_tricks
from diavolo_stats.stats import Estimate

__all__ = [
    "Bag", "BidAdvice", "as_bag", "DealtHands", "Die", "Estimate", "Face", "GameScore", "DieOdds", "RoundRecord",
    "Rules",
    "sheet_columns", "Trick", "TrickOutcomes", "WinOdds", "advise_bid", "deal", "die_odds",
    "exact_win_probability", "face_code", "face_label", "load_dice", "play_tricks", "read_score_sheet",
    "resolve_trick", "resolve_tricks", "rounds_for_players", "score_game", "score_round", "score_sheet",
    "simulated_win_probability",
]
