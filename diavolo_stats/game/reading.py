"""How a player reads a roll: answer time and accuracy that depend on what makes the roll hard.

A `ReadingModel` is one player: a shifted log-normal answer time and a logistic chance of a right answer, both
linear in the roll's row of the design (`design`: the command, extra dice, near ties, grey, command first). It
is fitted from a drill log (`reading_fit`) or made from a `PlayerModel` (`from_player`, with ASSUMED_EFFECTS
for what the player does not state). Why: docs/architecture.md, "Modelled players".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from diavolo_stats.core.variant import ALL_COMMANDS
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.roll_features import REFERENCE_DICE, RollFeatures
from diavolo_stats.errors import InputError
from diavolo_stats.game.players import MAX_NAME_LENGTH, MAX_SKILL_MS, STATED_EFFECTS, PlayerModel, grabbed_answers
from diavolo_stats.validation import Configuration, Number, Several, Text, checked, setting

COMMAND_COEFFICIENTS = tuple(f"command:{command}" for command in ALL_COMMANDS)
NEAR_TIE_COEFFICIENTS = tuple(f"near_tie:{command}" for command in ALL_COMMANDS)
COEFFICIENTS = (*COMMAND_COEFFICIENTS, "per_extra_die", *NEAR_TIE_COEFFICIENTS, "grey", "command_first")
"""The columns of the design, in order: what a model's `time` and `accuracy` coefficients multiply."""

ROLL_EFFECTS = COEFFICIENTS[len(ALL_COMMANDS):]
"""The coefficients that are effects of the roll (all but the commands' own)."""

_DICE = COEFFICIENTS.index("per_extra_die")
_GREY = COEFFICIENTS.index("grey")
_FIRST = COEFFICIENTS.index("command_first")
_NEAR = COEFFICIENTS.index(NEAR_TIE_COEFFICIENTS[0])

ASSUMED_EFFECTS = {
    "time": {"per_extra_die": math.log(1.04), "near_tie": math.log(1.15), "command_first": math.log(0.95)},
    "accuracy": {"per_extra_die": -math.log(1.05), "near_tie": -math.log(2.0), "command_first": 0.0},
}
"""The roll effects of a model made from a PlayerModel (why these: docs/architecture.md, "Modelled players"): on
the log of the time above the shift, and on the log-odds of a right answer."""

SHIFT_MS = 300.0
"""The shift of a model made from a PlayerModel, ms (at most half its fastest mean time): the time to see the
roll and press a key that no reading shortens, about that of a simple reaction (Luce 1986). Practice shortens
the reading, not this, so `scaled` leaves it alone."""

_ACCURACY_LIMIT = 1e-4  # an accuracy of exactly 0 or 1 has no log-odds; held this far inside
_COEFFICIENT = Number(at_least=-50, at_most=50)


def design(features: RollFeatures) -> np.ndarray:
    """The design of some rolls: (rolls, len(COEFFICIENTS)) float64, one row per roll (see the module docstring)."""
    rolls = len(features)
    rows = np.zeros((rolls, len(COEFFICIENTS)))
    command = features.command.astype(np.intp)
    rows[np.arange(rolls), command] = 1.0
    rows[:, _DICE] = features.dice.astype(np.float64) - REFERENCE_DICE
    rows[np.arange(rolls), _NEAR + command] = features.near_tie
    rows[:, _GREY] = features.grey
    rows[:, _FIRST] = features.command_first
    return rows


@dataclass(frozen=True)
class ReadingModel(Configuration):
    """One player's reading of rolls (see the module docstring).

    time: log-scale coefficients of the answer time above `shift_ms`, one per
    COEFFICIENTS name. spread: the standard deviation of that log. shift_ms:
    the time no answer is faster than, ms. accuracy: log-odds coefficients of a
    right answer, one per COEFFICIENTS name. wrong_grey_share: when wrong on a
    roll that is not grey, the chance of grabbing grey (else another color).
    """

    name: str = setting(rule=Text(max_length=MAX_NAME_LENGTH))
    time: tuple[float, ...] = setting(rule=Several(_COEFFICIENT, least=len(COEFFICIENTS), most=len(COEFFICIENTS),
                                                   unique=False, noun="coefficient"))
    spread: float = setting(rule=Number(above=0, at_most=5))
    shift_ms: float = setting(rule=Number(at_least=0, at_most=MAX_SKILL_MS, unit="ms"))
    accuracy: tuple[float, ...] = setting(rule=Several(_COEFFICIENT, least=len(COEFFICIENTS),
                                                       most=len(COEFFICIENTS), unique=False, noun="coefficient"))
    wrong_grey_share: float = setting(1 / 3, Number(at_least=0, at_most=1))

    def mean_latency_ms(self, features: RollFeatures) -> np.ndarray:
        """The mean answer time on each roll, ms: (rolls,) float64."""
        return self.shift_ms + np.exp(design(features) @ np.array(self.time) + self.spread**2 / 2)

    def latency_quantile_ms(self, features: RollFeatures, probability: float) -> np.ndarray:
        """The answer time this player is faster than with `probability` on each roll, ms: (rolls,) float64, as
        `sample` draws it (at least MIN_LATENCY_MS)."""
        from scipy import special

        above = np.exp(design(features) @ np.array(self.time) + self.spread * float(special.ndtri(probability)))
        return np.maximum(self.shift_ms + above, MIN_LATENCY_MS)

    def chance_right(self, features: RollFeatures) -> np.ndarray:
        """The chance of answering each roll right: (rolls,) float64 probability."""
        return logistic(design(features) @ np.array(self.accuracy))

    def sample(self, features: RollFeatures, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """This player on each roll: (correct: (rolls,) bool, latency_ms: (rolls,) float64, at least 100 ms).

        `features` of one roll or many (`roll_features.roll_features`, `played_features`); the draws are
        those a `Lineup` of this player alone makes.
        """
        correct, latency_ms = Lineup((self,)).sample(features, rng)
        return correct[0], latency_ms[0]

    def log_likelihood(self, features: RollFeatures, correct: np.ndarray,
                       latency_ms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How likely this model finds some answers: (latency: (rolls,) log density per ms, NaN where no
        latency is given; accuracy: (rolls,) log probability of right or wrong as answered)."""
        # correct: (rolls,) bool; latency_ms: (rolls,) float64 ms, NaN for no latency
        rows = design(features)
        above = np.asarray(latency_ms, dtype=np.float64) - self.shift_ms
        with np.errstate(invalid="ignore", divide="ignore"):
            log_above = np.log(above)
            residual = (log_above - rows @ np.array(self.time)) / self.spread
            latency = np.where(above > 0, -0.5 * residual**2 - math.log(self.spread * math.sqrt(2 * math.pi))
                               - log_above, -np.inf)
        latency[~np.isfinite(np.asarray(latency_ms, dtype=np.float64))] = np.nan
        log_odds = rows @ np.array(self.accuracy)
        accuracy = -np.logaddexp(0.0, np.where(correct, -log_odds, log_odds))
        return latency, accuracy

    @checked(time_factor=Number(at_least=0.01, at_most=100), error_factor=Number(at_least=0, at_most=100))
    def scaled(self, time_factor: float = 1.0, error_factor: float = 1.0) -> ReadingModel:
        """This player with the time above the shift times `time_factor` and the error odds times `error_factor`."""
        time = np.array(self.time)
        time[: len(ALL_COMMANDS)] += math.log(time_factor)
        accuracy = np.array(self.accuracy)
        accuracy[: len(ALL_COMMANDS)] -= math.log(max(error_factor, _ACCURACY_LIMIT))
        return replace(self, time=tuple(time.tolist()),
                       accuracy=tuple(np.clip(accuracy, -50, 50).tolist()))

    @classmethod
    def from_player(cls, player: PlayerModel) -> ReadingModel:
        """A PlayerModel (a preset or a TOML file) as a reading model: its own figures per command and for ties,
        its stated roll effects, and ASSUMED_EFFECTS for the others (docs/architecture.md). InputError naming
        the effect when one cannot be had (a near tie saving more time than the player takes)."""
        clear = [player.skills[(command, False)] for command in ALL_COMMANDS]
        tied = [player.skills[(command, True)] for command in ALL_COMMANDS]
        shift = min(SHIFT_MS, 0.5 * min(skill.mean_ms for skill in clear))
        above = np.array([max(skill.mean_ms - shift, 1.0) for skill in clear])
        spread_of = [math.sqrt(math.log(1 + (skill.sigma_ms**2 + skill.tau_ms**2) / a**2))
                     for skill, a in zip(clear, above)]
        spread = max(float(np.median(spread_of)), 0.01)
        time = np.zeros(len(COEFFICIENTS))
        accuracy = np.zeros(len(COEFFICIENTS))
        time[: len(ALL_COMMANDS)] = np.log(above) - spread**2 / 2
        accuracy[: len(ALL_COMMANDS)] = [_log_odds(skill.accuracy) for skill in clear]
        time[_GREY] = float(np.mean([math.log(max(t.mean_ms - shift, 1.0)) for t in tied]) - np.mean(np.log(above)))
        accuracy[_GREY] = float(np.mean([_log_odds(t.accuracy) - _log_odds(c.accuracy)
                                         for t, c in zip(tied, clear)]))
        for part, coefficients in (("time", time), ("accuracy", accuracy)):
            effects = ASSUMED_EFFECTS[part]
            coefficients[_DICE] = effects["per_extra_die"]
            coefficients[_NEAR: _NEAR + len(ALL_COMMANDS)] = effects["near_tie"]
            coefficients[_FIRST] = effects["command_first"]
        _stated(player.roll_effects, above, time, accuracy)
        return cls(name=player.name, time=tuple(time.tolist()), spread=spread, shift_ms=shift,
                   accuracy=tuple(np.clip(accuracy, -50, 50).tolist()), wrong_grey_share=player.wrong_grey_share)


def _stated(effects: dict[str, float], above: np.ndarray, time: np.ndarray, accuracy: np.ndarray) -> None:
    """Set the coefficients of the stated roll effects in `time` and `accuracy` (in place): each gives the figure
    `diavolo players` would print for it on a plain roll of the box."""
    # above: (commands,) mean ms above the shift on a plain roll; time, accuracy: (coefficients,)
    right = logistic(accuracy[: len(ALL_COMMANDS)])  # (commands,) chance of a right answer on a plain roll
    for name, value in effects.items():
        command = name.rsplit(" ", 1)[1] if "near tie " in name else None
        index = COEFFICIENTS.index(STATED_EFFECTS[name].coefficient)
        if not name.startswith("accuracy"):
            scale = above[ALL_COMMANDS.index(command)] if command else float(above.mean())
            if value <= -scale:
                raise InputError(f"{name!r}: {value:g} ms is more than the {scale:.0f} ms this player takes to read "
                                 f"a plain roll; it must be above {-scale:.0f} ms")
            time[index] = math.log1p(value / scale)
            continue
        if command:  # the chance on a near tie is the plain roll's plus the change
            chance = right[ALL_COMMANDS.index(command)] + value
            if not 0 < chance < 1:
                raise InputError(f"{name!r}: {value:g} takes the chance of a right answer on a near tie to "
                                 f"{chance:g}; it must stay between 0 and 1")
            accuracy[index] = _log_odds(chance) - accuracy[ALL_COMMANDS.index(command)]
            continue
        # Over the commands: the one coefficient giving that mean chance (it grows with the coefficient).
        target = value + (right.mean() if name == "accuracy per extra die" else 0.0)
        reach = [float(logistic(accuracy[: len(ALL_COMMANDS)] + bound).mean()) for bound in (-50.0, 50.0)]
        if not reach[0] < target < reach[1]:
            raise InputError(f"{name!r}: {value:g} takes the chance of a right answer to {target:g}; it must stay "
                             f"between {reach[0]:.4g} and {reach[1]:.4g} for this player")
        from scipy import optimize

        accuracy[index] = optimize.brentq(lambda shift, wanted: float(
            logistic(accuracy[: len(ALL_COMMANDS)] + shift).mean()) - wanted, -50.0, 50.0, args=(target,),
            xtol=1e-12)


def reading_of(player: PlayerModel | ReadingModel) -> ReadingModel:
    """The reading model a player plays with."""
    return player if isinstance(player, ReadingModel) else ReadingModel.from_player(player)


class Lineup:
    """The players at one table, their reading models held as (players, coefficients) arrays.

    Samples every player on many rolls at once, player-major: row p is player
    p, so per-roll reductions over players run over contiguous rows. A player
    of another model (a `diffusion.DiffusionModel`: a class with a
    `sample_lineup(players, features, rng)` and a `wrong_grey_share`) is drawn
    with the others of its class, after the reading models' rows.
    """

    def __init__(self, players: Sequence[PlayerModel | ReadingModel]):
        self.players = tuple(players)
        own = [not isinstance(player, (PlayerModel, ReadingModel)) for player in self.players]
        self._reading_seats = np.flatnonzero(~np.array(own, dtype=bool))
        self._own: dict[type, list[int]] = {}  # another model's class: its seats
        for seat, player in enumerate(self.players):
            if own[seat]:
                self._own.setdefault(type(player), []).append(seat)
        readings = [reading_of(self.players[seat]) for seat in self._reading_seats]
        count = len(COEFFICIENTS)
        self.time = np.array([reading.time for reading in readings]).reshape(-1, count)  # (players, coefficients)
        self.accuracy = np.array([reading.accuracy for reading in readings]).reshape(-1, count)
        self.spread = np.array([reading.spread for reading in readings])[:, None]  # (players, 1)
        self.shift_ms = np.array([reading.shift_ms for reading in readings])[:, None]
        self.wrong_grey_share = np.array([player.wrong_grey_share if own[seat] else reading_of(player).wrong_grey_share
                                          for seat, player in enumerate(self.players)])[:, None]

    def sample(self, features: RollFeatures, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Every player on every roll: (correct: (players, n) bool, latency_ms: (players, n) float64, ms,
        at least MIN_LATENCY_MS), each as their own model's `sample` draws it."""
        shape = (len(self.players), len(features))
        correct, latency_ms = np.empty(shape, dtype=bool), np.empty(shape)
        if len(self._reading_seats):
            rows = design(features)  # (n, coefficients)
            drawn = (len(self._reading_seats), len(features))
            chance = logistic(self.accuracy @ rows.T)
            correct[self._reading_seats] = rng.random(drawn) < chance
            above = np.exp(self.time @ rows.T + self.spread * rng.standard_normal(drawn))
            latency_ms[self._reading_seats] = np.maximum(self.shift_ms + above, MIN_LATENCY_MS)
        for kind, seats in self._own.items():
            correct[seats], latency_ms[seats] = kind.sample_lineup([self.players[seat] for seat in seats],
                                                                   features, rng)
        return correct, latency_ms

    def respond(self, accepted: np.ndarray, features: RollFeatures, color_count: int,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """What every player grabs on every roll, and when: (grabbed: (players, n) int8, a color index or
        GREY_CODE; latency_ms: (players, n) float64). Wrong answers as `players.grabbed_answers` draws them."""
        # accepted: (2, n) int8 color index or GREY_CODE, as `rules.accepted_answers` gives them
        correct, latency_ms = self.sample(features, rng)
        return grabbed_answers(correct, accepted, color_count, self.wrong_grey_share, rng), latency_ms


def logistic(log_odds: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-log_odds)), elementwise, without overflow."""
    return 0.5 * (1 + np.tanh(0.5 * log_odds))  # 1 / (1 + exp(-x)) without overflow


def _log_odds(probability: float) -> float:
    probability = min(max(probability, _ACCURACY_LIMIT), 1 - _ACCURACY_LIMIT)
    return math.log(probability / (1 - probability))
