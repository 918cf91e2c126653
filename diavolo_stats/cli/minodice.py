"""`diavolo minodice`: the score sheet, die odds and the bid advisor for Minodice.

Each sub-subcommand calls one library function and prints what it returns:
`score` -> `score_sheet`, `odds` -> `die_odds`, `bid` -> `advise_bid`.
"""

from __future__ import annotations

import argparse
import dataclasses

from diavolo_stats.cli.common import (
    add_format_argument,
    add_seed_argument,
    path_type,
    print_result,
    value_type,
)
from diavolo_stats.minodice import advise_bid, die_odds, score_sheet
from diavolo_stats.minodice.bidding import MAX_BID_SIMULATIONS
from diavolo_stats.minodice.odds import AGAINST, MAX_TRICK_SIMULATIONS, METHODS
from diavolo_stats.minodice.options import (
    ALL_FLAGS,
    EQUAL_SPECIALS,
    MAX_PLAYERS,
    MERMAID_BONUS,
    MIN_PLAYERS,
    ROUNDS_BY_PLAYERS,
    THREE_SPECIALS,
    WRONG_BID,
    Rules,
)
from diavolo_stats.validation import Whole


def register(subparsers) -> None:
    parser = subparsers.add_parser("minodice", help="Minodice: score sheet, die odds, bid advisor",
                                   description="Minodice: score a score sheet, each die's odds, and a bid advisor.")
    commands = parser.add_subparsers(dest="minodice_command", metavar="COMMAND", required=True)

    score = commands.add_parser("score", handler=_score, help="check and total a score sheet CSV",
                                description="Check a score sheet (columns round, player, bid, tricks, "
                                            "griffins_beaten and mermaid_tricks, or minotaurs_beaten with "
                                            "--mermaid-bonus per-minotaur) and give per-round and running "
                                            "totals and the winner.")
    score.add_argument("path", type=path_type(), metavar="SHEET.csv", help="one row per player per round")
    readings = score.add_argument_group("rules the sources leave open")
    readings.add_argument("--all-flags", choices=ALL_FLAGS, default=Rules().all_flags,
                          help="who takes a trick of nothing but flags; with nobody, a round's tricks may add up "
                               f"to fewer than its dice (default {Rules().all_flags})")
    _add_scoring_arguments(readings)
    add_format_argument(score)

    odds = commands.add_parser("odds", handler=_odds, help="each die's chance to win a trick against k random dice",
                               description="For each die type: the chance it wins a trick against k dice drawn "
                                           "at random from the bag, and the chance it rolls a flag.")
    odds.add_argument("--against", type=value_type(AGAINST), default="1,2,3,4,5", metavar="K,...",
                      help="numbers of other dice in the trick, comma-separated, each 1 to 5 (default 1,2,3,4,5)")
    odds.add_argument("--method", choices=METHODS, default="auto",
                      help="auto (default): exact where enumeration is cheap, simulated otherwise")
    odds.add_argument("--simulations", type=value_type(Whole(1, MAX_TRICK_SIMULATIONS)), default=100_000, metavar="N",
                      help=f"tricks per simulated figure, 1 to {MAX_TRICK_SIMULATIONS:,} (default 100,000)")
    _add_shared_arguments(odds, follow=False)

    bid = commands.add_parser("bid", handler=_bid, help="tricks a hand wins and the expected score of every bid",
                              description="Simulate the round many times with this hand (other hands drawn from "
                                          "the rest of the bag, every player rolling a random allowed die) and "
                                          "score every bid.")
    bid.add_argument("--hand", required=True, metavar="DIE,...", help='die names, e.g. "black,mermaid,yellow"')
    bid.add_argument("--round", dest="round_number", type=value_type(Whole(1, max(ROUNDS_BY_PLAYERS.values()))),
                     required=True, metavar="N",
                     help=f"the round, 1 to {max(ROUNDS_BY_PLAYERS.values())} (fewer with more players); "
                          "each player holds this many dice")
    bid.add_argument("--players", type=value_type(Whole(MIN_PLAYERS, MAX_PLAYERS)), required=True, metavar="N",
                     help=f"players, {MIN_PLAYERS} to {MAX_PLAYERS}")
    bid.add_argument("--seat", type=value_type(Whole(1, MAX_PLAYERS)), metavar="N",
                     help="your seat, 1 to players; 1 leads the first trick (default: a random seat each round)")
    bid.add_argument("--simulations", type=value_type(Whole(2, MAX_BID_SIMULATIONS)), default=20_000, metavar="N",
                     help=f"rounds to simulate, 2 to {MAX_BID_SIMULATIONS:,} (default 20,000); memory stays flat")
    _add_shared_arguments(bid, follow=True)


def _add_shared_arguments(parser: argparse.ArgumentParser, follow: bool) -> None:
    parser.add_argument("--dice", dest="bag", type=path_type(), metavar="FILE",
                        help="dice file (TOML) replacing the default, reconstructed dice")
    add_seed_argument(parser)
    rules = parser.add_argument_group("rules the sources leave open")
    defaults = Rules()
    if follow:
        rules.add_argument("--no-follow", dest="follow_led_color", action="store_false",
                           help="drop the rule that a player must roll a number die of the led color if they can")
    rules.add_argument("--equal-specials", choices=EQUAL_SPECIALS, default=defaults.equal_specials,
                       help="the winning character rolled twice goes to this roller "
                            f"(default {defaults.equal_specials})")
    rules.add_argument("--three-specials", choices=THREE_SPECIALS, default=defaults.three_specials,
                       help=f"the character that wins when all three are rolled (default {defaults.three_specials})")
    rules.add_argument("--all-flags", choices=ALL_FLAGS, default=defaults.all_flags,
                       help=f"who takes a trick of nothing but flags (default {defaults.all_flags})")
    if follow:  # scoring matters to the bid advisor only: odds count tricks won, not points
        _add_scoring_arguments(rules)
    add_format_argument(parser)


def _add_scoring_arguments(group) -> None:
    defaults = Rules()
    group.add_argument("--mermaid-bonus", choices=MERMAID_BONUS, default=defaults.mermaid_bonus,
                       help="+50 once per trick the mermaid won against minotaurs (per-trick) or per minotaur "
                            f"beaten (default {defaults.mermaid_bonus})")
    group.add_argument("--wrong-bid", choices=WRONG_BID, default=defaults.wrong_bid,
                       help="a missed bid costs -10 per trick of difference (per-trick) or -10 once (flat) "
                            f"(default {defaults.wrong_bid})")


def _rules(args: argparse.Namespace) -> Rules:
    """The Rules the flags describe; a flag a subcommand does not have keeps its default."""
    defaults = Rules()
    return Rules(**{option.name: getattr(args, option.name, getattr(defaults, option.name))
                    for option in dataclasses.fields(Rules)})


def _score(args: argparse.Namespace) -> int:
    print_result(score_sheet(args.path, _rules(args)), args.format)
    return 0


def _odds(args: argparse.Namespace) -> int:
    odds = die_odds(bag=args.bag, against=args.against, rules=_rules(args),
                     method=args.method, simulations=args.simulations, seed=args.seed)
    print_result(odds, args.format)
    return 0


def _bid(args: argparse.Namespace) -> int:
    advice = advise_bid(args.hand, args.round_number, args.players, bag=args.bag,
                        rules=_rules(args), seat=args.seat, simulations=args.simulations, seed=args.seed)
    print_result(advice, args.format)
    return 0
