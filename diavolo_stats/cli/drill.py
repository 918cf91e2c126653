"""`diavolo drill`: the reaction drill; prints the session's summary."""

from __future__ import annotations

import argparse

from diavolo_stats.cli.common import (
    add_format_argument,
    add_variant_arguments,
    path_type,
    print_result,
    read_text,
    value_type,
    variant_from_args,
)
from diavolo_stats.core.variant import Variant
from diavolo_stats.drill import DEFAULT_TRIALS, MAX_SESSION_MINUTES, MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.settings import (
    FEEDBACK_MS,
    FOREPERIOD_MS,
    HELP_KEY,
    MAX_FOREPERIOD_MS,
    MAX_TIMEOUT_S,
    QUIT_KEY,
    TIMEOUT_S,
    DrillSettings,
    answer_keys,
)
from diavolo_stats.validation import declared

NUMBERS = ("trials", "minutes", "seed", "timeout_s", "foreperiod_ms", "feedback_ms")
"""The flags that are numbers, read by DrillSettings' own rules."""


def register(subparsers) -> None:
    # The defaults are DrillSettings' (flags left out are not passed), stated from drill.settings, which loads
    # no pandas; the session itself is imported only to run.
    keys = ", ".join(f"{key} {answer}" for answer, key in answer_keys(Variant(), {}).items())
    parser = subparsers.add_parser(
        "drill", handler=run, help="reaction drill: read rolls fast, every answer logged to CSV",
        description=f"Show rolls one at a time and time the answer key ({keys}; {QUIT_KEY} quits; {HELP_KEY} "
                    "shows the commands). Every trial is appended to the log before the next one. A player's "
                    "first session opens with a one-screen introduction.")
    parser.add_argument("--player", required=True, metavar="NAME", help="who is drilling (any name)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--trials", metavar="N",
                        help=f"trials to show, 1 to {MAX_TRIALS_PER_SESSION:,} (default {DEFAULT_TRIALS})")
    length.add_argument("--minutes", metavar="M",
                        help=f"start new trials for M minutes instead of a number of trials, "
                             f"up to {MAX_SESSION_MINUTES:g}")
    parser.add_argument("--command-first", action="store_true",
                        help="the rulebook's easier game: the command is shown before the dice")
    parser.add_argument("--adaptive", action="store_true",
                        help="choose the next command (and tie or not) where the log says you are slow or wrong")
    parser.add_argument("--seed", metavar="S", help="seed for rolls and foreperiods")
    parser.add_argument("--log", type=path_type(), metavar="PATH",
                        help="CSV log to append to (default: $DIAVOLO_LOG, else data/drills.csv)")
    parser.add_argument("--timeout", dest="timeout_s", metavar="S",
                        help=f"seconds to wait for an answer, up to {MAX_TIMEOUT_S:g} (default {TIMEOUT_S:g})")
    parser.add_argument("--keys", type=value_type(declared(DrillSettings, ("keys",))[0]["keys"]),
                        metavar="ANSWER=KEY,...",
                        help=f"answer keys, e.g. black=j,red=k,white=l,grey=h (default: {keys}; {QUIT_KEY} and "
                             f"{HELP_KEY} are taken)")
    parser.add_argument("--foreperiod-ms", dest="foreperiod_ms", metavar="MIN,MAX",
                        help=f"for tests and experiments: the random wait before each roll, 0 to "
                             f"{MAX_FOREPERIOD_MS:,} ms (default {FOREPERIOD_MS[0]},{FOREPERIOD_MS[1]})")
    parser.add_argument("--feedback-ms", dest="feedback_ms", metavar="MS",
                        help=f"how long the feedback stays before the next trial, 0 to {MAX_FOREPERIOD_MS:,} ms "
                             f"(default {FEEDBACK_MS})")
    parser.add_argument("--no-intro", dest="intro", action="store_false",
                        help="skip the introduction a player's first session opens with (for scripts and tests)")
    add_variant_arguments(parser)
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    from diavolo_stats.drill.session import run_drill

    print_result(run_drill(_settings(args)), args.format)
    return 0


def _settings(args: argparse.Namespace) -> DrillSettings:
    rules = declared(DrillSettings, NUMBERS)[0]
    numbers = {name: read_text(rules[name], getattr(args, name)) for name in NUMBERS if getattr(args, name) is not None}
    variant = variant_from_args(args)
    optional = {"log": args.log, "keys": args.keys}
    return DrillSettings(
        player=args.player, variant=variant, command_first=args.command_first, adaptive=args.adaptive,
        intro=args.intro, **numbers, **{name: value for name, value in optional.items() if value is not None})
