"""The drill's teaching text: what each command asks, the introduction, and the commands worked on one roll.

The terminal drill shows these screens for the game drilled, a variant
file's own commands with their `label`, `rule` and a code of two letters
(`command_codes`); the browser drill's pages state the same rules and work
them on the same example roll.
"""

from __future__ import annotations

import itertools
import re
import string
import textwrap

import numpy as np

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.drill.settings import HELP_KEY, QUIT_KEY, DrillSettings

COMMAND_CODES = {
    Command.HIGHEST_TOTAL: "HT", Command.LOWEST_TOTAL: "LT", Command.LARGEST_SPREAD: "LS",
    Command.MOST_ODD: "MO", Command.HIGHEST_DIE: "HD", Command.CLOSEST: "CL",
}
"""The built-ins' codes, as the command die of the box prints them."""
COMMAND_SYMBOLS = {
    Command.HIGHEST_TOTAL: "Σ+", Command.LOWEST_TOTAL: "Σ−", Command.LARGEST_SPREAD: "↕",
    Command.MOST_ODD: "odd", Command.HIGHEST_DIE: "▲", Command.CLOSEST: "◎",
}
"""The built-ins' symbols, as the browser draws them on the command die (a command of one's own shows its code)."""
EXAMPLE_DICE = {"black": (2, 3, 6), "red": (3, 5, 5), "white": (1, 5, 6)}
"""The rulebook's worked example, used by the commands screen when the game has its colors and dice."""
EXAMPLE_SEED = 0
"""Seeds the throw the commands screen works `closest` on (and its dice, for other games)."""
HELP_WIDTH = 80


_CODE_CHARACTERS = string.ascii_uppercase + string.digits


def command_codes(variant: Variant) -> dict[Command, str]:
    """The code the command die shows for each of the variant's commands: a built-in's own (`HT`), else the
    initials of its label's first two words (`most sixes`: `MS`), or of its name, made unique with a digit,
    else the first two letters or digits free (a die of 24 commands named alike still gets 24 codes)."""
    codes: dict[Command, str] = {}
    taken = {COMMAND_CODES[c] for c in variant.commands if c.builtin}
    for command in variant.commands:
        if command.builtin:
            codes[command] = COMMAND_CODES[command]
            continue
        words = [w for w in re.split(r"[^A-Za-z0-9]+", command.label) if w] or command.value.split("-")
        tried = ["".join(w[0] for w in words[:2]).upper() if len(words) > 1 else words[0][:2].upper(),
                 re.sub(r"[^A-Za-z0-9]", "", command.value)[:2].upper(),
                 *(command.value[0].upper() + str(n) for n in range(1, 10))]
        free = (first + second for first in _CODE_CHARACTERS for second in _CODE_CHARACTERS)
        code = next(c for c in itertools.chain(tried, free) if len(c) == 2 and c not in taken)
        codes[command] = code
        taken.add(code)
    return codes


def command_words(variant: Variant) -> dict[str, dict[str, str]]:
    """Each command of the variant by name: its `label`, its `rule`, its `code` on the command die and the
    `symbol` the browser draws there (a built-in's own, else its code), as the browser's pages show them
    (served with every roll, so the pages keep no copy of them)."""
    return {command.value: {"label": command.label, "rule": command.rule, "code": code,
                            "symbol": COMMAND_SYMBOLS.get(command, code)}
            for command, code in command_codes(variant).items()}


def intro_lines(settings: DrillSettings) -> list[str]:
    """The introduction a player's first session opens with: one 80 x 24 screen for a die of up to 12 commands
    (the drill shows a longer one page by page)."""
    keys = "   ".join(f"{key} {answer}" for answer, key in settings.keys.items())
    codes = [f"{code} {c.label[:20]:<20}" for c, code in command_codes(settings.variant).items()]
    return [
        f"WELCOME TO THE DIAVOLO DRILL, {settings.player[:40]}",
        "",
        "Each trial shows a + on the table: look at it and wait. Then the roll appears:",
        "the colored dice where they landed, and the grey command die with the code of",
        "its command (the command is also written out on the right).",
        "Find the color that wins the command and press its key, as fast as you can:",
        f"    {keys}",
        "Grey is a tie: two or more colors share the winning figure.",
        "",
        "The commands:",
        *("    " + "  ".join(codes[i:i + 3]).rstrip() for i in range(0, len(codes), 3)),
        "",
        "Your time runs from the moment the dice appear. A key pressed before they",
        "appear is too early: it is noted apart, and the trial starts again.",
        f"Every answer is saved at once; {QUIT_KEY} quits at any time.",
        "",
        f"Press {HELP_KEY} at any time to see every command worked on an example.",
        "",
        "Press any key to start.",
    ]


def example_roll(variant: Variant) -> tuple[dict[str, tuple[int, ...]], dict]:
    """The roll every command is worked on, (dice, positions): the rulebook's dice when the game has the box's
    colors and dice, else dice thrown with EXAMPLE_SEED, which also throws where they lie."""
    thrown = roll(variant, np.random.default_rng(EXAMPLE_SEED))
    rulebook = (tuple(EXAMPLE_DICE) == variant.colors and variant.standard_dice and variant.dice_per_color == 3
                and variant.sides >= 6)
    return (dict(EXAMPLE_DICE) if rulebook else thrown.dice), thrown.positions


def help_lines(variant: Variant) -> list[str]:
    """The commands screen (`?`): the game's commands and grey, each with its label and rule and worked on one
    example roll (the rulebook's, for the box's dice), lines wrapped to HELP_WIDTH."""
    dice, positions = example_roll(variant)
    shown = "   ".join(f"{color} {' '.join(map(str, values))}" for color, values in dice.items())
    lines = ["THE COMMANDS AND GREY", *_wrapped(f"worked on one roll: {shown}", ""), ""]
    ties = []
    for command, code in command_codes(variant).items():
        resolution = resolve(variant, command, dice, positions)
        lines += [*_wrapped(f"{code}  {command.label}: {command.rule}", "    "),
                  *_wrapped(f"      {resolution.reason}", "        ")]
        if resolution.answer == GREY:
            ties.append(code)
    return lines + [
        *_wrapped("grey  a tie: two or more colors share the winning figure"
                  + (f" ({', '.join(ties)} above)" if ties else ""), "      "),
        f"      closest: distances within {variant.table.tolerance:.0%} tie; then the nearest color counts too",
        "",
        "any key: back to the drill (a roll not yet answered is replaced by a new one)",
    ]


def _wrapped(line: str, indent: str) -> list[str]:
    """`line` in lines of at most HELP_WIDTH characters, broken at spaces, the next ones after `indent`."""
    return textwrap.wrap(line, HELP_WIDTH, subsequent_indent=indent) if len(line) > HELP_WIDTH else [line]

