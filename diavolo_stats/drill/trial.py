"""A trial judged: from what was shown and what the player answered, the row the drill log stores.

Every program that logs a trial (the terminal drill, the web drill, the synthetic log writer) builds its row
with `judged_trial`, the one gate of a trial: it checks the roll and the outcome against the game and works
out the expected answer, the answers accepted and whether the answer was right from the roll itself
(`rules.resolve`), so a caller cannot log a roll with the wrong verdict.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from diavolo_stats.core.rules import dice_problem, resolve
from diavolo_stats.core.table_model import TABLE_FIELDS, check_landed, positions_from_mapping
from diavolo_stats.core.variant import Command, Variant, check_answer
from diavolo_stats.drill.log import NO_ANSWER, TrialRow, check_outcome, logged_positions
from diavolo_stats.drill.log.rules import rules_cell
from diavolo_stats.errors import InputError
from diavolo_stats.validation import Flag, Rule, check_value


def judged_trial(variant: Variant, command: Command | str, dice: Mapping[str, Sequence[int]], positions: Mapping,
                 answer: str | None, latency_ms: float | None, *, interface: str, player: str, session_id: str,
                 trial: int, timestamp: datetime | str, command_first: bool = False, too_early: bool = False,
                 timed_out: bool | None = None, foreperiod_ms: float | None = None, seed: int | None = None,
                 spelled: Callable[[Any], str] = repr) -> TrialRow:
    """The drill log row of one trial, every field checked; InputError naming the first bad one. `expected`,
    `accepted` and `correct` are worked out here from the roll, never taken from the caller; the row is returned,
    not written (`DrillLog.append`).

    command, dice (values per color, the variant's colors in order), positions (die centers in mm, as
    `rules.Roll.positions`; table fields, if given, must be the variant's): the roll shown. answer: a color,
    `grey`, or None (or `none`). latency_ms: ms from the roll on screen to the answer, None without one.
    too_early: a key pressed before the roll; an unanswered trial not too early timed out (`timed_out`, if given,
    must agree). interface: one of the log's INTERFACES. timestamp: when the roll appeared (with its zone).
    foreperiod_ms: the wait before the roll. seed: the session's, if any. spelled: how a message quotes a bad
    dice or positions value (`validation.json_spelled` for a web client).
    """
    shown = checked_roll(variant, command, dice, positions, spelled)
    return shown.row(answer, latency_ms, interface=interface, player=player, session_id=session_id, trial=trial,
                     timestamp=timestamp, command_first=command_first, too_early=too_early, timed_out=timed_out,
                     foreperiod_ms=foreperiod_ms, seed=seed)


@dataclasses.dataclass(frozen=True)
class CheckedRoll:
    """A roll checked against its game (`checked_roll`), with its resolution: the rows of the answers to it."""

    variant: Variant
    command: Command
    dice: dict[str, tuple[int, ...]]
    positions: Any  # logged_positions of the die centers
    expected: str
    accepted: tuple[str, ...]

    def row(self, answer: str | None, latency_ms: float | None, *, interface: str, player: str, session_id: str,
            trial: int, timestamp: datetime | str, command_first: bool = False, too_early: bool = False,
            timed_out: bool | None = None, foreperiod_ms: float | None = None, seed: int | None = None) -> TrialRow:
        """The row of `answer` to this roll, its outcome checked (see `judged_trial`)."""
        if answer is None or answer == NO_ANSWER:
            answer = NO_ANSWER
        else:
            check_answer(answer, self.variant.colors)
        check_value("too_early", too_early, Flag())
        timed_out = check_outcome(answer, latency_ms, too_early, timed_out)
        return TrialRow(
            session_id=session_id, player=player, trial=trial, timestamp=timestamp,
            variant=rules_cell(self.variant), dice_per_color=self.variant.dice_per_color,
            command_first=command_first, command=self.command, dice=self.dice, positions=self.positions,
            expected=self.expected, answer=answer, correct=answer in self.accepted, latency_ms=latency_ms,
            too_early=too_early, timed_out=timed_out, foreperiod_ms=foreperiod_ms, seed=seed, interface=interface,
            accepted=self.accepted)


def checked_roll(variant: Variant, command: Command | str, dice: Mapping[str, Sequence[int]], positions: Mapping,
                 spelled: Callable[[Any], str] = repr) -> CheckedRoll:
    """The roll shown, checked against `variant` as `judged_trial` checks it, and resolved: InputError naming
    the first bad field. A live table checks its deal once, then builds each seat's row from it."""
    if not isinstance(variant, Variant):
        raise InputError(f"must be a Variant, got {type(variant).__name__}", field="variant")
    if not isinstance(command, str) or str(command) not in {c.value for c in variant.commands}:
        raise InputError(f"must be one of the variant's commands ({', '.join(c.value for c in variant.commands)}),"
                         f" got {command!r}", field="command")
    command = variant.command(str(command))
    dice = check_value("dice", dice, Dice(variant), spelled)
    centers = check_value("positions", positions, DieCenters(variant), spelled)
    resolution = resolve(variant, command, dice, centers)
    return CheckedRoll(variant, command, {color: tuple(values) for color, values in dice.items()},
                       logged_positions(centers, variant.table), resolution.answer, tuple(resolution.accepted))


def _is_point(point: object) -> bool:
    return isinstance(point, (list, tuple)) and len(point) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in point)


@dataclasses.dataclass(frozen=True)
class Dice(Rule):
    """The dice values of a roll: a mapping of each color to the list of its dice's values. Of `variant`, when
    given: its colors in order, each with as many values as it rolls dice, each a face of its dice
    (`rules.dice_problem`)."""

    variant: Variant | None = None

    def normalize(self, value: Any) -> dict[str, list[int]]:
        if not isinstance(value, Mapping) or not all(isinstance(values, (list, tuple)) for values in value.values()):
            raise ValueError("must map each color to the list of its dice's values")
        if self.variant is not None:
            if list(value) != list(self.variant.colors):
                raise ValueError(f"must map the colors {', '.join(self.variant.colors)}, in that order, to their "
                                 "values")
            problem = dice_problem(self.variant, value)
            if problem:
                raise ValueError(problem)
        return {color: list(values) for color, values in value.items()}

    def bad_values(self) -> list[Any]:
        return ["1,2,3", [1, 2, 3], {"black": 3}, None]


@dataclasses.dataclass(frozen=True)
class DieCenters(Rule):
    """Where a roll's dice lie: a mapping of `command` to one [x, y] in mm and each color to a list of them
    (the table's fields may follow). Of `variant`, when given: the table's fields, if there, the variant's; its
    colors in order, one point per die, and a throw its table allows (every die wholly on it, none overlapping;
    `table_model.check_landed`). Kept: the die centers alone (the command's, then each color's)."""

    variant: Variant | None = None

    def normalize(self, value: Any) -> Mapping:
        if not isinstance(value, Mapping):
            raise ValueError("must be a mapping of die centers: 'command' and each color")
        centers = {key: points for key, points in value.items() if key not in TABLE_FIELDS}
        for key, points in centers.items():
            shaped = _is_point(points) if key == "command" else isinstance(points, (list, tuple)) and all(
                map(_is_point, points))
            if not shaped:
                raise ValueError(f"{key} needs {'one' if key == 'command' else 'a list of'} [x, y] in mm")
        if self.variant is None:
            return value
        table, colors, counts = self.variant.table, self.variant.colors, self.variant.counts
        for name in TABLE_FIELDS:
            if name in value and value[name] != getattr(table, name):
                raise ValueError(f"{name} is {value[name]!r}, but the variant's table has {getattr(table, name)!r}")
        if list(centers) != ["command", *colors]:
            raise ValueError(f"needs the keys command, {', '.join(colors)}")
        short = next(((color, count) for color, count in zip(colors, counts) if len(centers[color]) != count), None)
        if short:
            raise ValueError(f"{short[0]} needs {short[1]} [x, y] in mm")
        try:
            check_landed(table, positions_from_mapping(colors, counts, centers))
        except InputError as error:
            raise ValueError(error.message) from None
        return centers

    def bad_values(self) -> list[Any]:
        return [[[1, 2]], "command", {"command": [1]}, {"command": [1, "2"]}, {"black": [1, 2]}, None]
