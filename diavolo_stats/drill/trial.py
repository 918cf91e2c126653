"""A trial judged: from what was shown and what the player answered, the row the drill log stores.

Every program that logs a trial (the terminal drill, the web drill, the
synthetic log writer) builds its row with `judged_trial`, which checks
every value and works out the expected answer, the answers accepted and
whether the answer was right from the roll itself (`rules.resolve`), so a
caller cannot log a roll with the wrong verdict.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from datetime import datetime

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.table_model import TableModel, positions_from_mapping
from diavolo_stats.core.variant import ALL_COMMANDS, GREY, PRESETS, Command, Variant
from diavolo_stats.drill.log import NO_ANSWER, TrialRow, logged_positions
from diavolo_stats.errors import InputError
from diavolo_stats.validation import Flag, check_value

TABLE_FIELDS = tuple(f.name for f in dataclasses.fields(TableModel))
"""The table's own fields, which a `positions` cell carries beside the die centers."""


def variant_label(variant: Variant) -> str:
    """The `variant` column: the preset the game is in every way (colors, dice, sides, commands, table),
    else `custom`. The log records neither sides nor commands: only a preset's name says which game it was."""
    # The command die's faces are equally likely: their order on the command line is no other game.
    in_die_order = dataclasses.replace(variant, commands=tuple(c for c in ALL_COMMANDS if c in variant.commands))
    return next((name for name in PRESETS if in_die_order == Variant.preset(name)), "custom")


def judged_trial(variant: Variant, command: Command | str, dice: Mapping[str, Sequence[int]], positions: Mapping,
                 answer: str | None, latency_ms: float | None, *, interface: str, player: str, session_id: str,
                 trial: int, timestamp: datetime | str, command_first: bool = False, too_early: bool = False,
                 foreperiod_ms: float | None = None, seed: int | None = None) -> TrialRow:
    """The drill log row of one trial, every field checked; InputError naming the first bad one.

    variant: the game drilled. command, dice (values per color) and
    positions (die centers in mm, as `rules.Roll.positions`; the table's
    fields may be included and must then be the variant's): the roll shown.
    answer: a color, `grey`, or None (or `none`) for no answer. latency_ms:
    ms from the roll on screen to the answer, None without an answer.
    too_early: a key pressed before the roll was shown (no answer, no
    latency); an unanswered trial that was not too early timed out.
    interface: `terminal` or `browser`. timestamp: when the roll appeared
    (a time with its zone, or ISO 8601 text). foreperiod_ms: the wait
    before the roll, ms. seed: the session's seed, if any.

    `expected`, `accepted` and `correct` are computed here from the roll,
    never taken from the caller. The row is returned, not written: append it
    with `DrillLog.append`.
    """
    if not isinstance(variant, Variant):
        raise InputError(f"must be a Variant, got {type(variant).__name__}", field="variant")
    if not isinstance(command, str) or str(command) not in {c.value for c in variant.commands}:
        raise InputError(f"must be one of the variant's commands ({', '.join(c.value for c in variant.commands)}),"
                         f" got {command!r}", field="command")
    command = Command(command)
    if not isinstance(dice, Mapping):
        raise InputError(f"must map each color to its values, got {dice!r}", field="dice")
    centers = _die_centers(variant, positions)
    resolution = resolve(variant, command, dice, centers)
    if answer is None or answer == NO_ANSWER:
        answer = NO_ANSWER
    elif not isinstance(answer, str) or answer not in (*variant.colors, GREY):
        raise InputError(f"must be one of {', '.join((*variant.colors, GREY))}, or None for no answer, "
                         f"got {answer!r}", field="answer")
    check_value("too_early", too_early, Flag())
    return TrialRow(
        session_id=session_id, player=player, trial=trial, timestamp=timestamp, variant=variant_label(variant),
        dice_per_color=variant.dice_per_color, command_first=command_first, command=command,
        dice={color: tuple(values) for color, values in dice.items()},
        positions=logged_positions(centers, variant.table), expected=resolution.answer, answer=answer,
        correct=answer in resolution.accepted, latency_ms=latency_ms, too_early=too_early,
        timed_out=answer == NO_ANSWER and not too_early, foreperiod_ms=foreperiod_ms, seed=seed,
        interface=interface, accepted=resolution.accepted)


def _die_centers(variant: Variant, positions: Mapping) -> dict:
    """The die centers of `positions`, checked: one [x, y] per die, on the table; table fields, if given, the
    variant's."""
    if not isinstance(positions, Mapping):
        raise InputError(f"must map 'command' and each color to die centers, got {positions!r}", field="positions")
    table = variant.table
    for name in TABLE_FIELDS:
        if name in positions and positions[name] != getattr(table, name):
            raise InputError(f"{name} is {positions[name]!r}, but the variant's table has "
                             f"{getattr(table, name)!r}", field="positions")
    centers = {key: value for key, value in positions.items() if key not in TABLE_FIELDS}
    unknown = sorted(set(centers) - {"command", *variant.colors})
    if unknown:
        raise InputError(f"unknown keys {', '.join(map(repr, unknown))}; give 'command' and "
                         f"{', '.join(variant.colors)}", field="positions")
    points = positions_from_mapping(variant.colors, variant.dice_per_color, centers)
    if not all(math.isfinite(v) and 0 <= v <= table.scatter_mm for v in points.ravel().tolist()):
        raise InputError(f"die centers must lie on the {table.scatter_mm:g} mm table (0 to {table.scatter_mm:g})",
                         field="positions")
    return {key: centers[key] for key in ("command", *variant.colors)}
