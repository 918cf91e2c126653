"""`diavolo game`: whole games between modelled players; win chances and design metrics."""

from __future__ import annotations

import sys
import warnings

from diavolo_stats.cli.common import (
    add_format_argument,
    add_out_argument,
    add_seed_argument,
    add_variant_arguments,
    path_type,
    print_result,
    value_type,
    variant_from_args,
)
from diavolo_stats.game.settings import (
    COUNTS,
    DEFAULT_DESIGN_GAMES,
    DEFAULT_GAMES,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_MODEL,
    DEVILS,
    DEVILS_WORDS,
    END_WORDS,
    MAX_GAME_ROUNDS,
    MAX_GAMES,
    MAX_PLAYERS,
    MODELS,
    EndRule,
    GameRules,
)


def register(subparsers) -> None:
    # Each count is read by the rule the functions that play games declare for it: stated once, in COUNTS.
    counts = {name: value_type(rule) for name, rule in COUNTS.items()}
    parser = subparsers.add_parser(
        "game", handler=run, help="play many whole games between modelled players: win chances, length, design metrics",
        description="Play many whole Diavolo games at once between players fitted from the drill log, "
                    "presets or TOML files, and report each player's win probability, game length, "
                    "grey rounds and design metrics.")
    parser.add_argument("--players", nargs="+", required=True, metavar="PLAYER",
                        help=f"2 to {MAX_PLAYERS} players: a name in the drill log (fitted from their trials), "
                             "preset:novice, preset:average, preset:expert, or a FILE.toml")
    parser.add_argument("--games", type=counts["games"], default=DEFAULT_GAMES, metavar="N",
                        help=f"games to play, 1 to {MAX_GAMES:,} (default {DEFAULT_GAMES:,}); memory stays flat")
    add_seed_argument(parser)
    parser.add_argument("--end", choices=[rule.value for rule in EndRule], default=EndRule.LAST_STANDING.value,
                        help=f"when the game ends; last-standing (rulebook, default): "
                             f"{END_WORDS[EndRule.LAST_STANDING]}; first-out: {END_WORDS[EndRule.FIRST_OUT]}")
    parser.add_argument("--devils", choices=DEVILS, default=GameRules().devils,
                        help=f"devils per color; rulebook (default): {DEVILS_WORDS['rulebook']}; review (the French "
                             f"review's reading): {DEVILS_WORDS['review']}")
    parser.add_argument("--command-first", action="store_true",
                        help="the rulebook's easier variant: the command die is shown first; players named "
                             "from the drill log are fitted from their rows of that variant")
    parser.add_argument("--max-rounds", type=counts["max_rounds"], default=DEFAULT_MAX_ROUNDS,
                        metavar="N",
                        help=f"stop a game after N rounds with no winner, 1 to {MAX_GAME_ROUNDS:,} "
                             f"(default {DEFAULT_MAX_ROUNDS})")
    parser.add_argument("--design-games", type=counts["design_games"], default=DEFAULT_DESIGN_GAMES,
                        metavar="N",
                        help=f"games per reference lineup for balance and skill, 0 to {MAX_GAMES:,} "
                             f"(default {DEFAULT_DESIGN_GAMES:,}; 0 skips them)")
    parser.add_argument("--log", dest="log_path", type=path_type(), metavar="PATH",
                        help="drill log to fit named players from (default: $DIAVOLO_LOG or data/drills.csv)")
    parser.add_argument("--model", choices=MODELS, default=DEFAULT_MODEL,
                        help=f"how named players are fitted: diffusion (answer and time drawn together from a "
                             f"drift-diffusion process) or reading (the ex-Gaussian reading model); default "
                             f"{DEFAULT_MODEL}, the better in benchmarks/bench_players.py")
    add_format_argument(parser)
    add_out_argument(parser, "one row per game")
    add_variant_arguments(parser)


def run(args) -> int:
    from diavolo_stats.game.report import game_report  # the games need pandas: not loaded for the parser

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rules = GameRules(end=args.end, devils=args.devils, command_first=args.command_first)
        report = game_report(args.players, args.games, seed=args.seed, rules=rules,
                             variant=variant_from_args(args), max_rounds=args.max_rounds, log_path=args.log_path,
                             out=args.out, design_games=args.design_games, model=args.model)
    for warning in caught:
        print(f"diavolo: warning: {warning.message}", file=sys.stderr)
    print_result(report, args.format)
    return 0
