"""Modelled players: how often a player reads a plain roll of each command right, and how fast.

A `PlayerModel` holds a `Skill` (accuracy and an ex-Gaussian latency in ms) per command, for tie and non-tie
rolls, and how a wrong answer is spread (`wrong_grey_share`). It comes from a preset (novice, average, expert)
or a player file (`player_file.read_player`); games play it as `reading.ReadingModel.from_player`. Where the
presets' figures come from: docs/architecture.md, "Modelled players".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from diavolo_stats.core.rules import GREY_CODE
from diavolo_stats.core.variant import ALL_COMMANDS, Command, CommandName
from diavolo_stats.errors import InputError
from diavolo_stats.names import MAX_PLAYER_LENGTH
from diavolo_stats.validation import Configuration, Number, Rule, Text, checked, setting

MAX_SKILL_MS = 60_000.0
"""The largest ex-Gaussian parameter (mu, sigma, tau) a skill may have, ms: a minute."""

PRIOR_WRONG_ANSWERS = 5
"""Pseudo-answers pulling a fitted `wrong_grey_share` toward 1/3 when a player has few wrong answers."""

PRESET_PREFIX = "preset:"
MAX_NAME_LENGTH = MAX_PLAYER_LENGTH
"""A modelled player's name: the longest is a drill log's player's, fitted (a preset's, a file's, the club's are
shorter)."""

# Average player, non-tie rolls: (mean latency ms, accuracy); why these: docs/architecture.md.
_AVERAGE = {
    Command.HIGHEST_DIE: (1200.0, 0.95),
    Command.CLOSEST: (1300.0, 0.92),
    Command.MOST_ODD: (1700.0, 0.92),
    Command.LARGEST_SPREAD: (1900.0, 0.90),
    Command.HIGHEST_TOTAL: (2200.0, 0.90),
    Command.LOWEST_TOTAL: (2400.0, 0.88),
}
# Level: (time factor, error factor).
_LEVELS = {"novice": (1.5, 2.0), "average": (1.0, 1.0), "expert": (0.6, 0.5)}
_TIE_TIME, _TIE_ERRORS = 1.3, 2.0
_TAU_SHARE, _SIGMA_SHARE = 0.3, 0.1
UNIFORM_WRONG_GREY = 1 / 3
ROLL_KINDS = {False: "non-tie", True: "tie"}


@dataclass(frozen=True)
class Skill(Configuration):
    """How one player does on one command, for tie or for non-tie rolls.

    accuracy: probability of answering right, 0..1. mu_ms, sigma_ms, tau_ms:
    the ex-Gaussian latency (normal mean and spread, exponential mean), ms.
    """

    accuracy: float = setting(rule=Number(at_least=0, at_most=1))
    mu_ms: float = setting(rule=Number(at_least=0, at_most=MAX_SKILL_MS, unit="ms"))
    sigma_ms: float = setting(rule=Number(at_least=0, at_most=MAX_SKILL_MS, unit="ms"))
    tau_ms: float = setting(rule=Number(at_least=0, at_most=MAX_SKILL_MS, unit="ms"))

    @property
    def mean_ms(self) -> float:
        """Mean latency, ms (before the MIN_LATENCY_MS floor, which almost never acts)."""
        return self.mu_ms + self.tau_ms


class SkillMap(Rule):
    """A Skill for every command, for tie and for non-tie rolls: {(command, is_tie): Skill}."""

    def normalize(self, value: object) -> Mapping[tuple[Command, bool], Skill]:
        if not isinstance(value, Mapping):
            raise ValueError("must map (command, is_tie) to a Skill")
        skills: dict[tuple[Command, bool], Skill] = {}
        for key, skill in value.items():
            if not (isinstance(key, tuple) and len(key) == 2 and isinstance(skill, Skill)):
                raise ValueError("must map (command, is_tie) to a Skill")
            command, is_tie = key
            skills[(_COMMAND.normalize(command), bool(is_tie))] = skill
        missing = [f"{c} {ROLL_KINDS[t]}" for c in ALL_COMMANDS for t in (False, True) if (c, t) not in skills]
        if missing:
            raise ValueError(f"need every command for tie and non-tie rolls; missing {', '.join(missing)}")
        return MappingProxyType(skills)

    def bad_values(self) -> list:
        return ["fast", 5, None, {}, {("tallest", False): "fast"}]


_COMMAND = CommandName()

@dataclass(frozen=True)
class RollEffect:
    """A roll effect's unit, `ms` or `probability`, and the reading model's coefficient it sets (one of
    `reading.COEFFICIENTS`)."""

    unit: str
    coefficient: str


STATED_EFFECTS: Mapping[str, RollEffect] = MappingProxyType({
    "per extra die": RollEffect("ms", "per_extra_die"),
    "accuracy per extra die": RollEffect("probability", "per_extra_die"),
    **{f"near tie {command}": RollEffect("ms", f"near_tie:{command}") for command in ALL_COMMANDS},
    **{f"accuracy near tie {command}": RollEffect("probability", f"near_tie:{command}") for command in ALL_COMMANDS},
    "grey": RollEffect("ms", "grey"), "accuracy on grey": RollEffect("probability", "grey"),
    "command first": RollEffect("ms", "command_first")})
"""The roll effects a player may state (a player file's `[roll-effects]`), by the names `diavolo players` prints
them under (`analytics.player_figures` names its figures from this table), with their units and coefficients,
each on a plain roll of the box (9 dice, no near tie, not grey, the dice shown
first) as `diavolo players` quotes it: the ms an extra die, a grey answer or the command shown first adds to
the mean answer time (over the commands), or a near tie on that command; the change in the chance of a right
answer an extra die or a near tie makes; the chance of a right answer on a grey roll (over the commands). An
effect not stated is assumed (`reading.ASSUMED_EFFECTS`; grey from the tie figures)."""


def _effect_rule(name: str) -> Number:
    if STATED_EFFECTS[name].unit == "ms":
        return Number(at_least=-MAX_SKILL_MS, at_most=MAX_SKILL_MS, unit="ms")
    return Number(at_least=0, at_most=1) if name == "accuracy on grey" else Number(at_least=-1, at_most=1)


class RollEffectMap(Rule):
    """Some STATED_EFFECTS by name, each a number in its unit: {name: value}."""

    def normalize(self, value: object) -> Mapping[str, float]:
        if not isinstance(value, Mapping):
            raise ValueError("must map roll effects to numbers")
        effects = {}
        for name, number in value.items():
            if name not in STATED_EFFECTS:
                raise ValueError(f"unknown roll effect {name!r}; allowed: {', '.join(STATED_EFFECTS)}")
            try:
                effects[name] = float(_effect_rule(name).normalize(number))
            except ValueError as error:
                raise ValueError(f"{name!r} {error}") from None
        return MappingProxyType(effects)

    def bad_values(self) -> list:
        return [5, None, {"tallest": 1.0}, {"per extra die": "fast"}, {"accuracy on grey": 1.5}]


@dataclass(frozen=True)
class PlayerModel(Configuration):
    """A modelled player: a `Skill` per (command, is_tie), and what they grab when wrong.

    skills: every command of `Command`, each for is_tie False and True.
    wrong_grey_share: when wrong on a non-tie roll, probability of grabbing
    grey; otherwise another color, uniformly. roll_effects: the STATED_EFFECTS
    stated for this player (the others are assumed).
    """

    name: str = setting(rule=Text(max_length=MAX_NAME_LENGTH))
    skills: Mapping[tuple[Command, bool], Skill] = setting(rule=SkillMap())
    wrong_grey_share: float = setting(UNIFORM_WRONG_GREY, Number(at_least=0, at_most=1))
    roll_effects: Mapping[str, float] = setting(rule=RollEffectMap(), default_factory=dict)

    @classmethod
    def preset(cls, name: str) -> PlayerModel:
        """The documented `novice`, `average` or `expert` player (docs/architecture.md, "Modelled players")."""
        if name not in _LEVELS:
            raise InputError(f"unknown player preset {name!r}; allowed: {', '.join(_LEVELS)}", field="preset")
        skills = {}
        for command, (mean_ms, accuracy) in _AVERAGE.items():
            for is_tie in (False, True):
                mean = mean_ms * (_TIE_TIME if is_tie else 1.0)
                errors = (1 - accuracy) * (_TIE_ERRORS if is_tie else 1.0)
                skills[(command, is_tie)] = Skill(accuracy=1 - errors, mu_ms=mean * (1 - _TAU_SHARE),
                                                  sigma_ms=mean * _SIGMA_SHARE, tau_ms=mean * _TAU_SHARE)
        time_factor, error_factor = _LEVELS[name]
        average = cls(name=name, skills=skills, wrong_grey_share=UNIFORM_WRONG_GREY)
        return average.scaled(time_factor, error_factor)

    @checked(time_factor=Number(at_least=0.01, at_most=100), error_factor=Number(at_least=0, at_most=100))
    def scaled(self, time_factor: float = 1.0, error_factor: float = 1.0, name: str | None = None) -> PlayerModel:
        """This player with every latency times `time_factor` and every error rate times `error_factor`.

        A skill gap in one number: `time_factor` 0.5 answers in half the time.
        Error rates above 1 after scaling are held at 1 (never right). Stated
        roll effects in ms scale with the latencies (an extra die still costs
        the same share of the time).
        """
        skills = {key: Skill(accuracy=max(0.0, 1 - (1 - skill.accuracy) * error_factor),
                             mu_ms=skill.mu_ms * time_factor, sigma_ms=skill.sigma_ms * time_factor,
                             tau_ms=skill.tau_ms * time_factor)
                  for key, skill in self.skills.items()}
        effects = {effect: value * time_factor if STATED_EFFECTS[effect].unit == "ms" else value
                   for effect, value in self.roll_effects.items()}
        return PlayerModel(name=name or self.name, skills=skills, wrong_grey_share=self.wrong_grey_share,
                           roll_effects=effects)


def grabbed_answers(correct: np.ndarray, accepted: np.ndarray, color_count: int, wrong_grey_share,
                    rng: np.random.Generator) -> np.ndarray:
    """What players grab, right or wrong: (players, n) int8, a color index or GREY_CODE.

    Right players grab the table's call. A wrong answer on a tie is any color
    (but one also accepted); on a roll that is not a tie, grey with
    probability `wrong_grey_share`, else another color, uniformly.
    """
    # correct: (players, n) bool; accepted: (2, n) int8 as `rules.accepted_answers`; wrong_grey_share: (players, 1)
    answer_codes, also_accepted = accepted
    is_tie = answer_codes == GREY_CODE
    ambiguous = is_tie & (also_accepted != GREY_CODE)
    pick = rng.random(correct.shape)
    grey_when_wrong = rng.random(correct.shape) < wrong_grey_share
    any_color = (pick * color_count).astype(np.int8)
    other = (pick * (color_count - 1)).astype(np.int8)
    other += other >= also_accepted
    wrong = np.where(is_tie & ~ambiguous, any_color,
                     np.where(grey_when_wrong & ~is_tie, np.int8(GREY_CODE), other))
    return np.where(correct, answer_codes, wrong).astype(np.int8)


def player_levels() -> tuple[str, ...]:
    """The preset levels, `preset:<level>`: novice, average, expert."""
    return tuple(_LEVELS)
