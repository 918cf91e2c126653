"""`diavolo players`: each player's fitted reading figures from a drill log, with intervals."""

from __future__ import annotations

import argparse
import shlex

from diavolo_stats.cli.common import Typed, add_format_argument, path_type, print_result, value_type
from diavolo_stats.game.settings import DEFAULT_MODEL, MODELS
from diavolo_stats.names import PLAYER_ASKED
from diavolo_stats.validation import Whole


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "players", handler=run,
        help="each player's figures from a drill log (time, accuracy, caution, cost of dice and ties)",
        description="Fit every player of a drill log together (partial pooling: a player with few answers "
                    "borrows from the club) and print, per player, a coach's sentences, the mean answer time and "
                    "accuracy on each command and what an extra die, a near tie, a grey answer and seeing the "
                    "command first cost, with a diffusion's drift, caution, non-decision time and lapses, each "
                    "with its 95% interval and the answers it rests on.")
    parser.add_argument("--log", dest="log_path", required=True, type=path_type(), metavar="PATH",
                        help="the drill log to fit")
    parser.add_argument("--player", dest="players", nargs="+", type=value_type(PLAYER_ASKED), metavar="NAME",
                        help="only these players (default: everyone with enough answers)")
    parser.add_argument("--dice", type=value_type(Whole(2, 96)), default=9, metavar="N",
                        help="quote the figures on a roll of N colored dice, 2 to 96 (default 9, the box); "
                             "beyond the log's rolls they are extrapolated, and the output says so")
    parser.add_argument("--model", choices=MODELS, default=DEFAULT_MODEL,
                        help=f"diffusion (answer and time from one drift-diffusion process) or reading (the "
                             f"ex-Gaussian reading model); default {DEFAULT_MODEL}")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    from diavolo_stats.analytics.player_figures import player_figures

    # The names as typed (`got 'ann ann'`, not a list) where the library quotes them whole.
    players = None if args.players is None else Typed(args.players, shlex.join(args.players))
    print_result(player_figures(args.log_path, players=players, dice=args.dice, model=args.model), args.format)
    return 0
