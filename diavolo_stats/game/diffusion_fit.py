"""Fitting drift-diffusion players to a drill log, with partial pooling across its players (empirical Bayes).

Every player of the log gets a `diffusion.DiffusionModel` (DIFFUSION_PARAMETERS), each parameter normal around the
club's mean for it with the club's spread, as in `reading_fit`, from the joint likelihood of their answers' sides
and times (`diffusion.spread_log_likelihood`): errors and their times inform the drift and the caution together.

Why it works as it does: docs/architecture.md, "Diffusion players fitted to a log".
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from diavolo_stats.core.variant import ALL_COMMANDS
from diavolo_stats.core.workers import threads
from diavolo_stats.drill.roll_features import logged_features
from diavolo_stats.errors import InputError
from diavolo_stats.game.diffusion import (
    DiffusionModel,
    log_rates_for,
    spread_log_likelihood_later,
)
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, ROLL_EFFECTS, design
from diavolo_stats.game.reading_fit import (
    UNDEFINED,
    ReadingFit,
    check_defined,
    club_step,
    finite,
    fitted_rows,
    refusal,
    widened,
    wrong_grey_shares,
)
from diavolo_stats.stats import MIN_FIT_ANSWERS, Estimate, z_for

BOUNDARY_TERMS = ROLL_EFFECTS
"""The roll effects on a player's log boundary (beside its own per command)."""

NONDECISION_TERMS = (*COEFFICIENTS[1:len(ALL_COMMANDS)], "per_extra_die")
"""The terms of a player's log non-decision time beside its own (the first command's, at REFERENCE_DICE): the
other commands' and each extra die's."""

DIFFUSION_PARAMETERS = (*(f"drift:{name}" for name in COEFFICIENTS),
                        *(f"boundary:{command}" for command in ALL_COMMANDS),
                        *(f"boundary:{name}" for name in BOUNDARY_TERMS),
                        *(f"nondecision:{name}" for name in NONDECISION_TERMS),
                        "nondecision_spread", "nondecision", "lapse")
"""A player's parameters, in order: log drift coefficients, log boundary per command and the roll's effects on
it, the effects on the log non-decision time, the log of its spread (s), the log non-decision time (s), the
logit of the lapse chance."""

_DRIFT = slice(0, len(COEFFICIENTS))
_BOUNDARY = slice(len(COEFFICIENTS), len(COEFFICIENTS) + len(ALL_COMMANDS))
_BOUNDARY_EFFECTS = slice(_BOUNDARY.stop, _BOUNDARY.stop + len(BOUNDARY_TERMS))
_NONDECISION_EFFECTS = slice(_BOUNDARY_EFFECTS.stop, _BOUNDARY_EFFECTS.stop + len(NONDECISION_TERMS))
_BOUNDARY_COLUMNS = [COEFFICIENTS.index(name) for name in BOUNDARY_TERMS]
_NONDECISION_COLUMNS = [COEFFICIENTS.index(name) for name in NONDECISION_TERMS]
_NONDECISION, _LAPSE = len(DIFFUSION_PARAMETERS) - 2, len(DIFFUSION_PARAMETERS) - 1
_SPREAD = _NONDECISION - 1

PRIOR_LAPSE = 0.02
"""The lapse chance the club's prior is centred on."""


def _per_parameter(commands: float, dice: float, effects: float, boundary: float, nondecision: float,
                   lapse: float) -> np.ndarray:
    values = np.full(len(DIFFUSION_PARAMETERS), effects)
    values[: len(ALL_COMMANDS)] = commands
    values[COEFFICIENTS.index("per_extra_die")] = dice
    values[_BOUNDARY] = boundary
    values[_BOUNDARY_EFFECTS] = effects
    values[_NONDECISION_EFFECTS] = effects
    values[_NONDECISION], values[_LAPSE] = nondecision, lapse
    values[_SPREAD] = 1.0
    return values


DIFFUSION_PRIOR_SPREAD = _per_parameter(commands=0.5, dice=0.03, effects=0.3, boundary=0.3, nondecision=0.3,
                                        lapse=1.0)
"""The club spread a pseudo-player pulls toward, per parameter (on its scale: log, or logit for the lapse)."""

DIFFUSION_PRIOR_MEAN_SPREAD = _per_parameter(commands=2.0, dice=0.1, effects=1.0, boundary=1.0, nondecision=1.0,
                                             lapse=2.0)
"""How far the club mean may stray from the `average` preset's diffusion a priori, per parameter."""

_BOUNDS = [(-10.0, 10.0)] * len(COEFFICIENTS) + [(-3.0, 3.0)] * len(ALL_COMMANDS) \
    + [(-3.0, 3.0)] * (len(BOUNDARY_TERMS) + len(NONDECISION_TERMS)) \
    + [(math.log(0.005), math.log(1.0))] \
    + [(math.log(0.02), math.log(5.0)), (-12.0, 0.0)]
_EM_STEPS, _EM_TOLERANCE = 200, 1e-6
_NEWTON_STEPS, _NEWTON_TOLERANCE, _HALVINGS = 100, 1e-10, 30
_LONGEST_STEP = 1.0  # on the parameters' log or logit scales: a factor of e at most in one step
_START_ANSWERS = 10  # a command's right answers for its own starting drift and caution
_THREADED_ANSWERS = 5_000
"""The answers per player, on average, from which the players' fits share the cores: below, a Newton step's numpy
work on a player's answers is too short to leave the GIL to another thread (3 players of 2,000 answers: 0.33 to
0.36 s on one thread, 0.36 to 0.37 s on two; of 5,000: 1.1 times faster on two; of 20,000: 1.45 times)."""


@dataclass(frozen=True)
class PlayerDiffusion:
    """One player's diffusion fit: the model, its parameters' posterior covariance (over DIFFUSION_PARAMETERS, widened
    for the club mean's uncertainty) and what it rests on (as `reading_fit.PlayerReading`)."""

    model: DiffusionModel
    covariance: np.ndarray
    answers: int
    answers_per_coefficient: tuple[int, ...]
    dice_drilled: tuple[int, int]

    @property
    def parameters(self) -> np.ndarray:
        """The model's parameters on their fitted scales: (len(DIFFUSION_PARAMETERS),) float64."""
        return parameters_of(self.model)

    def interval(self, parameter: str, confidence: float = 0.95) -> Estimate:
        """A parameter on its fitted scale (log, or logit for the lapse) with its interval."""
        index = DIFFUSION_PARAMETERS.index(parameter)
        value = float(self.parameters[index])
        half = z_for(confidence) * math.sqrt(self.covariance[index, index])
        return Estimate(value, value - half, value + half)

    def draws(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """Parameter vectors drawn from the posterior: (count, len(DIFFUSION_PARAMETERS)) float64."""
        return rng.multivariate_normal(self.parameters, self.covariance, size=count, method="cholesky")


@dataclass(frozen=True)
class DiffusionFit(ReadingFit):
    """Every player of a log fitted by drift diffusion (`players`, PlayerDiffusion by name), the club, the log's
    range, who had too few answers, and who was refused and why (`refused`)."""



def parameters_of(model: DiffusionModel) -> np.ndarray:
    """A model's DIFFUSION_PARAMETERS: (len(DIFFUSION_PARAMETERS),) float64."""
    lapse = min(max(model.lapse, 1e-6), 0.5)
    return np.array([*model.drift, *model.boundary, *np.array(model.boundary_effects)[_BOUNDARY_COLUMNS],
                     *np.array(model.nondecision_effects)[_NONDECISION_COLUMNS],
                     math.log(max(model.nondecision_spread_ms, 20.0) / 1000),
                     math.log(max(model.nondecision_ms, 20.0) / 1000),
                     math.log(lapse / (1 - lapse))])


def model_of(name: str, parameters: np.ndarray, wrong_grey_share: float) -> DiffusionModel:
    """The DiffusionModel of some DIFFUSION_PARAMETERS."""
    boundary_effects, nondecision_effects = np.zeros(len(COEFFICIENTS)), np.zeros(len(COEFFICIENTS))
    boundary_effects[_BOUNDARY_COLUMNS] = parameters[_BOUNDARY_EFFECTS]
    nondecision_effects[_NONDECISION_COLUMNS] = parameters[_NONDECISION_EFFECTS]
    return DiffusionModel(name=name, drift=tuple(parameters[_DRIFT].tolist()),
                          boundary=tuple(parameters[_BOUNDARY].tolist()),
                          boundary_effects=tuple(boundary_effects.tolist()),
                          nondecision_effects=tuple(nondecision_effects.tolist()),
                          nondecision_spread_ms=1000 * math.exp(parameters[_SPREAD]),
                          nondecision_ms=1000 * math.exp(parameters[_NONDECISION]),
                          lapse=float(1 / (1 + math.exp(-parameters[_LAPSE]))), wrong_grey_share=wrong_grey_share)


def rates_of(parameters: np.ndarray, rolls) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drift rate (per s), boundary separation and non-decision time (s) of some DIFFUSION_PARAMETERS vectors
    (draws, parameters) on some rolls (`RollFeatures`): three (draws, rolls) float64."""
    rows = design(rolls)
    command = rolls.command.astype(np.intp)
    drift = np.exp(parameters[:, _DRIFT] @ rows.T)
    boundary = np.exp(parameters[:, _BOUNDARY][:, command]
                      + parameters[:, _BOUNDARY_EFFECTS] @ rows[:, _BOUNDARY_COLUMNS].T)
    nondecision = np.exp(parameters[:, [_NONDECISION]]
                         + parameters[:, _NONDECISION_EFFECTS] @ rows[:, _NONDECISION_COLUMNS].T)
    return drift, boundary, nondecision


@dataclass(frozen=True)
class _Answers:
    """One player's answers: the design, the command, right or wrong, latency (s, NaN for a time-out). `last` holds
    what the likelihood's gradient at the last point worked out, for its Hessian: a Newton step's Hessian is at the
    point whose gradient the line search took last."""

    rows: np.ndarray     # (answers, coefficients) float64
    command: np.ndarray  # (answers,) intp
    correct: np.ndarray  # (answers,) bool
    latency_s: np.ndarray  # (answers,) float64
    last: list = field(default_factory=list, compare=False, repr=False)  # [theta bytes, predictors, gradient, call]

    def _row_gradients(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each answer's log-likelihood and its gradient in that answer's own predictors at theta: (answers,) and (5,
        answers), the predictors (5, answers) being the log drift, the log boundary, the log non-decision time
        (s), the logit of the lapse chance and the log of the non-decision time's spread (s)."""
        predictors = self._predictors(theta)
        values, gradient, hessian = spread_log_likelihood_later(*_likelihood_arguments(predictors), self.correct,
                                                                self.latency_s)
        self.last[:] = [theta.tobytes(), predictors, gradient, hessian]
        return values, gradient * _scales(predictors)

    def _row_hessians(self, theta: np.ndarray) -> np.ndarray:
        """Each answer's Hessian in its own predictors at theta (see `_row_gradients`): (5, 5, answers)."""
        if self.last and self.last[0] == theta.tobytes():
            _, predictors, gradient, later = self.last
        else:
            predictors = self._predictors(theta)
            _, gradient, later = spread_log_likelihood_later(*_likelihood_arguments(predictors), self.correct,
                                                             self.latency_s)
        hessian = later()
        scales = _scales(predictors)  # d natural / d predictor; the log scales' second derivative is the first's
        hessian *= scales[:, None] * scales[None, :]
        logged = [0, 1, 2, 4]
        hessian[logged, logged] += scales[logged] * gradient[logged]
        return hessian

    def _predictors(self, theta: np.ndarray) -> np.ndarray:
        """Each answer's predictors (see `_row_gradients`) at some parameters: (5, answers); linear in theta."""
        kind, jacobian = self._rolls
        return (jacobian @ theta)[:, kind]

    def _by_roll(self, per_answer: np.ndarray) -> np.ndarray:
        """Some figures of each answer (..., answers) summed over the answers to each distinct roll: (..., rolls)."""
        kind, jacobian = self._rolls
        flat = per_answer.reshape(-1, per_answer.shape[-1])
        sums = np.array([np.bincount(kind, weights=row, minlength=jacobian.shape[1]) for row in flat])
        return sums.reshape(*per_answer.shape[:-1], jacobian.shape[1])

    def negative_log_posterior(self, theta: np.ndarray, prior_mean: np.ndarray,
                               prior_variance: np.ndarray) -> tuple[float, np.ndarray]:
        values, gradient = self._row_gradients(theta)
        total = np.einsum("rkp,rk->p", self._rolls[1], self._by_roll(gradient))
        offset = theta - prior_mean
        value = -float(values.sum()) + 0.5 * float((offset**2 / prior_variance).sum())
        return value, -total + offset / prior_variance

    def hessian(self, theta: np.ndarray, prior_variance: np.ndarray) -> np.ndarray:
        """The Hessian of the negative log posterior at theta: (parameters, parameters).

        Each answer's likelihood depends on theta through its five predictors only, linearly, by the same
        Jacobian J for every answer to the same roll, so the Hessian is the sum over distinct rolls of J' H J, H
        the sum of those answers' analytic 5 x 5 Hessians in their predictors."""
        jacobian = self._rolls[1]  # (5, rolls, parameters)
        per_roll = self._by_roll(self._row_hessians(theta))  # (5, 5, rolls)
        weighted = np.einsum("klr,lrp->krp", per_roll, jacobian)
        hessian = jacobian.reshape(-1, jacobian.shape[2]).T @ weighted.reshape(-1, jacobian.shape[2])
        return -hessian + np.diag(1 / prior_variance)

    @cached_property
    def _rolls(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct rolls answered (alike in design row and command) and d predictors / d theta on each:
        (kind: (answers,) intp, each answer's roll; jacobian: (5, rolls, parameters) float64)."""
        distinct, kind = np.unique(np.column_stack([self.rows, self.command]), axis=0, return_inverse=True)
        rows, command = distinct[:, :-1], distinct[:, -1].astype(np.intp)
        rolls = len(distinct)
        jacobian = np.zeros((5, rolls, len(DIFFUSION_PARAMETERS)))
        jacobian[4, :, _SPREAD] = 1.0
        jacobian[0, :, _DRIFT] = rows
        jacobian[1, np.arange(rolls), _BOUNDARY.start + command] = 1.0
        jacobian[1, :, _BOUNDARY_EFFECTS] = rows[:, _BOUNDARY_COLUMNS]
        jacobian[2, :, _NONDECISION_EFFECTS] = rows[:, _NONDECISION_COLUMNS]
        jacobian[2, :, _NONDECISION] = jacobian[3, :, _LAPSE] = 1.0
        return kind.reshape(-1), jacobian

    def mode(self, start: np.ndarray, prior_mean: np.ndarray,
             prior_variance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The posterior mode under a normal prior, and the Hessian of the negative log posterior there.

        Newton's method with the exact Hessian (`hessian`, made positive definite where the posterior bends the
        wrong way) and a backtracking line search, a parameter on one of its bounds held there while the slope
        pushes it out: 5 to 40 steps from the prior's centre, each a Hessian (about one and a half likelihood
        evaluations' work) and one or two evaluations. (A quasi-Newton search takes over a hundred evaluations and
        can stop short of the mode by tens of log-likelihood.) Runs within a BLAS limit of one thread, which the
        caller holds (`fit_diffusion`)."""
        low, high = np.array(_BOUNDS).T
        with np.errstate(all="ignore"):
            theta = np.clip(start, low, high)
            value, gradient = self.negative_log_posterior(theta, prior_mean, prior_variance)
            shortest = 0  # the line search starts one halving short of the last step's (Newton steps overshoot
            # where a non-decision time meets the fastest answers, step after step)
            for _ in range(_NEWTON_STEPS):
                hessian = _positive(self.hessian(theta, prior_variance), 1 / prior_variance)
                free = ~(((theta <= low) & (gradient > 0)) | ((theta >= high) & (gradient < 0)))
                step = np.zeros(len(theta))
                step[free] = -np.linalg.solve(hessian[np.ix_(free, free)], gradient[free])
                step *= min(1.0, _LONGEST_STEP / np.abs(step).max(initial=_LONGEST_STEP))
                decrement = -float(gradient @ step)  # twice the fall a quadratic would promise
                if decrement < _NEWTON_TOLERANCE:
                    break
                for halving in range(shortest, _HALVINGS):
                    trial = np.clip(theta + 0.5**halving * step, low, high)
                    trial_value, trial_gradient = self.negative_log_posterior(trial, prior_mean, prior_variance)
                    if trial_value <= value - 1e-4 * 0.5**halving * decrement:
                        break
                else:
                    break  # no step lowers it: as close to the mode as floating point tells
                theta, value, gradient = trial, trial_value, trial_gradient
                shortest = max(halving - 1, 0)
            else:
                hessian = _positive(self.hessian(theta, prior_variance), 1 / prior_variance)
        return theta, hessian


def _likelihood_arguments(predictors: np.ndarray) -> tuple[np.ndarray, ...]:
    """The drift, boundary, non-decision time (s), spread (s) and lapse chance of some predictors (5, answers)."""
    drift, boundary, nondecision = np.exp(predictors[:3])
    return drift, boundary, nondecision, np.exp(predictors[4]), 1 / (1 + np.exp(-predictors[3]))


def _scales(predictors: np.ndarray) -> np.ndarray:
    """d (drift, boundary, non-decision time, logit lapse, spread) / d predictors, each alone: (5, answers)."""
    scales = np.exp(predictors)
    scales[3] = 1.0
    return scales


def _positive(hessian: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """A Hessian made positive definite: eigenvalues held at or above the prior's least precision (a mode on
    a bound, or numerical noise, can leave a direction flat or bent the wrong way)."""
    hessian = np.nan_to_num(hessian, nan=0.0, posinf=0.0, neginf=0.0)
    values, vectors = np.linalg.eigh((hessian + hessian.T) / 2)
    least = max(float(floor.min()), 1e-9 * float(np.abs(values).max()))  # also within float's reach
    return (vectors * np.maximum(values, least)) @ vectors.T


def _why_unfitted(name: str, correct: np.ndarray, latency_s: np.ndarray) -> str | None:
    """Why a player's answers cannot be fitted, in one sentence; None if they can."""
    answers = len(correct)
    timed = latency_s[np.isfinite(latency_s)]
    if timed.size == 0:
        return f"{name!r}: all {answers} answers timed out; a fit needs answers with their times"
    if not correct.any():
        return f"{name!r}: none of {answers} answers is right; a diffusion fit needs right answers"
    if np.ptp(timed) == 0:
        return (f"{name!r}: all {timed.size} latencies are {1000 * timed[0]:g} ms; a fit needs latencies that "
                "vary")
    return None


def fit_diffusion(drills: pd.DataFrame, min_answers: int = MIN_FIT_ANSWERS) -> DiffusionFit:
    """Fit every player of a drill log frame (`load_logs` with `reading_fit.FIT_COLUMNS`) with at least
    `min_answers` answers (see the module docstring). A player whose answers cannot be fitted (all timed out,
    none right, one latency for all) is refused with the reason (`DiffusionFit.refused`); InputError (field
    `log`) when no player can be fitted. Every figure of the result is finite."""
    from threadpoolctl import ThreadpoolController

    # Its linear algebra is on matrices of a few dozen parameters, where BLAS threads only wake and contend for the
    # cores: the whole fit (the club's too) runs on one, the same to the bit (the libraries found once a fit).
    with ThreadpoolController().limit(limits=1, user_api="blas"):
        return _limited_fit(drills, min_answers)


def _limited_fit(drills: pd.DataFrame, min_answers: int) -> DiffusionFit:
    """`fit_diffusion`, within its BLAS limit."""
    rows, rolls, too_few = fitted_rows(drills, min_answers)
    player_codes, names = pd.factorize(rows["player"], sort=False)
    features = logged_features(rolls)
    design_rows = design(features)
    correct = rows["correct"].to_numpy(dtype=bool)
    latency_s = rows["latency_ms"].to_numpy(dtype=np.float64) / 1000
    latency_s[rows["timed_out"].to_numpy(dtype=bool)] = np.nan
    command = features.command.astype(np.intp)
    dice = features.dice.astype(np.int64)
    shares = wrong_grey_shares(rows, player_codes, len(names))
    answers, refused, kept = [], {}, []
    for index, name in enumerate(names):
        mine = player_codes == index
        reason = _why_unfitted(str(name), correct[mine], latency_s[mine])
        if reason:
            refused[str(name)] = reason
            continue
        kept.append(index)
        answers.append(_Answers(design_rows[mine], command[mine], correct[mine], latency_s[mine]))
    if not answers:
        raise InputError("no player of the drill log can be fitted: " + "; ".join(refused.values()), field="log")
    center = parameters_of(DiffusionModel.from_player(PlayerModel.preset("average")))
    center[_LAPSE] = math.log(PRIOR_LAPSE / (1 - PRIOR_LAPSE))
    wide = DIFFUSION_PRIOR_SPREAD**2 + DIFFUSION_PRIOR_MEAN_SPREAD**2
    start = center.copy()
    # Each player's fits are their own, on threads when they have many answers (numpy releases the GIL in most of
    # such a Newton step): first about the prior's centre, then, from there, about the club's.
    many = sum(len(player.correct) for player in answers) >= _THREADED_ANSWERS * len(answers)
    workers = threads() if many else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        first = list(pool.map(lambda player: player.mode(_started(start, player), center, wide), answers))
    club, club_variance, spread = _club(first, center, wide)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        second = list(pool.map(lambda player, found: player.mode(found[0], club, spread), answers, first))
    fitted, informed_all = {}, np.zeros(len(COEFFICIENTS), dtype=np.int64)
    for index, player, (theta, hessian) in zip(kept, answers, second):
        name = str(names[index])
        covariance = widened(np.linalg.inv(hessian)[None], spread, club_variance)[0]
        try:
            if not finite(theta, covariance):
                raise InputError(UNDEFINED)
            model = model_of(name, theta, shares[index])
        except InputError as error:
            refused[name] = refusal(name, len(player.correct), "diffusion", error)
            continue
        informed = (player.rows != 0).sum(axis=0)
        informed_all += informed
        mine = dice[player_codes == index]
        fitted[name] = PlayerDiffusion(model, covariance, len(player.correct), tuple(int(count) for count in informed),
                                       (int(mine.min()), int(mine.max())))
    if not fitted:
        raise InputError("no player of the drill log can be fitted: " + "; ".join(refused.values()), field="log")
    check_defined("club", club, club_variance)
    club_fit = PlayerDiffusion(model_of("club", club, float(np.mean(shares))), np.diag(club_variance),
                               sum(len(player.correct) for player in answers),
                               tuple(int(count) for count in informed_all), (int(dice.min()), int(dice.max())))
    return DiffusionFit(fitted, club_fit, (int(dice.min()), int(dice.max())), too_few, min_answers, refused)


def _started(center: np.ndarray, player: _Answers) -> np.ndarray:
    """Where a player's first fit starts: the prior's centre with a non-decision time below most answers, and
    each command's drift and caution those giving the player's accuracy and mean time on it (the roll's effects
    aside), which saves the search about half its steps."""
    start = center.copy()
    timed = np.isfinite(player.latency_s)
    nondecision = min(math.exp(center[_NONDECISION]), 0.5 * float(np.quantile(player.latency_s[timed], 0.05)))
    start[_NONDECISION] = math.log(nondecision)
    for command in range(len(ALL_COMMANDS)):
        mine = player.command == command
        answered = mine & timed & player.correct
        if answered.sum() >= _START_ANSWERS:
            accuracy = (player.correct[mine].sum() + 1) / (mine.sum() + 2)
            decision_s = max(float(player.latency_s[answered].mean()) - nondecision, 0.05)
            drift, boundary = log_rates_for(np.array([accuracy]), np.array([decision_s]))
            start[_DRIFT.start + command], start[_BOUNDARY.start + command] = drift[0], boundary[0]
    return start


def _likelihood(mode: np.ndarray, hessian: np.ndarray, center: np.ndarray,
                wide: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A player's likelihood as a Gaussian from their first fit: its precision (the Hessian less the wide
    prior's) and information (precision times its centre, which gives the mode under the wide prior).

    A direction in which the likelihood does not bend down at the mode (a curvature at or below float's noise:
    no answer informs it, or the answers keep rising toward where the wide prior held the mode) is flat here:
    no precision and no information. Its slope over a curvature of nothing would put the player's centre at
    infinity, and the club's spread after it. Why: docs/architecture.md, "Diffusion players fitted to a log"."""
    values, vectors = np.linalg.eigh(hessian - np.diag(1 / wide))
    down = values > 1e-9 * np.abs(values).max()
    bent = vectors[:, down]
    return (bent * values[down]) @ bent.T, bent @ (bent.T @ (hessian @ mode - center / wide))


def _club(first: list[tuple[np.ndarray, np.ndarray]], center: np.ndarray,
          wide: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The club's means, the variance of those means and its spreads (each (parameters,)), by EM over each
    player's likelihood as a Gaussian (`_likelihood`)."""
    likelihoods = [_likelihood(mode, hessian, center, wide) for mode, hessian in first]
    precision = np.array([matrix for matrix, _ in likelihoods])  # (players, p, p)
    information = np.array([vector for _, vector in likelihoods])  # (players, p)
    club, spread = center.copy(), DIFFUSION_PRIOR_SPREAD**2
    club_variance = DIFFUSION_PRIOR_MEAN_SPREAD**2
    for _ in range(_EM_STEPS):
        posterior = precision + np.eye(len(center))[None] / spread[None, None, :]
        covariances = np.linalg.inv(posterior)
        means = np.einsum("pkl,pl->pk", covariances, information + club / spread)
        variances = np.diagonal(covariances, axis1=1, axis2=2)
        new_club, club_variance, new_spread = club_step(means, variances, spread, center,
                                                        DIFFUSION_PRIOR_MEAN_SPREAD**2, DIFFUSION_PRIOR_SPREAD**2)
        change = max(np.abs(new_club - club).max(), np.abs(new_spread - spread).max())
        club, spread = new_club, new_spread
        if change < _EM_TOLERANCE:
            break
    return club, club_variance, spread
