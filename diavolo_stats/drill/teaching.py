"""The drill's teaching text: what each command asks, the introduction, and the commands worked on one roll.

The terminal drill shows these screens; the browser drill's pages state the
same rules from `COMMAND_RULES` and work them on the same example roll.
"""

from __future__ import annotations

import numpy as np

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import ALL_COMMANDS, GREY, Command, Variant
from diavolo_stats.drill.settings import HELP_KEY, QUIT_KEY, DrillSettings

COMMAND_CODES = {
    Command.HIGHEST_TOTAL: "HT", Command.LOWEST_TOTAL: "LT", Command.LARGEST_SPREAD: "LS",
    Command.MOST_ODD: "MO", Command.HIGHEST_DIE: "HD", Command.CLOSEST: "CL",
}
EXAMPLE_DICE = {"black": (2, 3, 6), "red": (3, 5, 5), "white": (1, 5, 6)}
"""The rulebook's worked example, used by the commands screen when the game has its colors and dice."""
EXAMPLE_SEED = 0
"""Seeds the throw the commands screen works `closest` on (and its dice, for other games)."""
COMMAND_RULES = {command: command.rule for command in ALL_COMMANDS}
"""What each command asks, in one line: its `rule`, as core/builtin_commands.toml defines it."""


def intro_lines(settings: DrillSettings) -> list[str]:
    """The introduction a player's first session opens with: one 80 x 24 screen."""
    keys = "   ".join(f"{key} {answer}" for answer, key in settings.keys.items())
    codes = [f"{COMMAND_CODES[c]} {c.label:<16}" for c in settings.variant.commands]
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


def help_lines(variant: Variant) -> list[str]:
    """The commands screen (`?`): the six commands and grey, each worked on one example roll."""
    thrown = roll(variant, np.random.default_rng(EXAMPLE_SEED))
    rulebook = tuple(EXAMPLE_DICE) == variant.colors and variant.dice_per_color == 3 and variant.sides >= 6
    dice = dict(EXAMPLE_DICE) if rulebook else thrown.dice
    shown = "   ".join(f"{color} {' '.join(map(str, values))}" for color, values in dice.items())
    lines = ["THE COMMANDS AND GREY", f"worked on one roll: {shown}", ""]
    ties = []
    for command in ALL_COMMANDS:
        resolution = resolve(variant, command, dice, thrown.positions)
        lines += [f"{COMMAND_CODES[command]}  {command.label}: {command.rule}",
                  f"      {resolution.reason}"]
        if resolution.answer == GREY:
            ties.append(COMMAND_CODES[command])
    return lines + [
        "grey  a tie: two or more colors share the winning figure" + (f" ({', '.join(ties)} above)" if ties else ""),
        f"      closest: distances within {variant.table.tolerance:.0%} tie; then the nearest color counts too",
        "",
        "any key: back to the drill (a roll not yet answered is replaced by a new one)",
    ]

