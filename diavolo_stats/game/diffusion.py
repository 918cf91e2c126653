"""How a player decides: a drift-diffusion process gives the answer and its time in one draw.

A `DiffusionModel` is one player. Evidence accumulates at the drift rate until it reaches one of two boundaries
(Ratcliff 1978): the upper is a right answer, the lower a wrong one, so a hard roll is both slow and
error-prone. The latency is that time plus the non-decision time (seeing the roll, pressing the key). Why:
docs/architecture.md, "The drift-diffusion player".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from diavolo_stats.core.variant import ALL_COMMANDS
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.roll_features import RollFeatures
from diavolo_stats.drill.settings import TIMEOUT_S
from diavolo_stats.game.players import MAX_NAME_LENGTH, PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, design, logistic
from diavolo_stats.validation import Configuration, Number, Several, Text, checked, setting

TIMEOUT_MS = TIMEOUT_S * 1000
"""The drill's answer timeout, ms: a process not ended by then is a time-out."""

LAPSE_RIGHT = 0.25
"""The chance a lapse is right: one of the box's four answers (three colors and grey) at random."""

ASSUMED_DRIFT_EFFECTS = {"per_extra_die": -0.03, "near_tie": -0.5, "command_first": 0.03}
"""The roll effects on log drift of a model made from a PlayerModel: an extra die slows the evidence by 3 %,
a near tie by 40 %, the command shown first speeds it by 3 % (the reading model's assumptions, as rates)."""

NONDECISION_MS = 300.0
"""The non-decision time of a model made from a PlayerModel, ms (as `reading.SHIFT_MS`)."""

BOUNDARIES = len(ALL_COMMANDS)
_LOG_RATE = Number(at_least=-50, at_most=50)
# Below standardized time 0.3 the small-time series, above it the large-time one: the terms left out are
# below 1e-14 of the sum either side (exp(-33) and exp(-71)).
_SMALL_TIME = 0.3
_SURVIVAL_TERMS = np.arange(1, 40, 2)  # (20,) odd k of the survival series
_KAPPA_MAX, _KAPPA_STEP = 30.0, 0.05
_Y_MAX, _Y_POINTS = 12.0, 2049


@dataclass(frozen=True)
class DiffusionModel(Configuration):
    """One player deciding by drift diffusion (see the module docstring).

    drift: log drift coefficients (rate per second), one per `reading.COEFFICIENTS` name. boundary: log
    boundary separation per command (ALL_COMMANDS order). nondecision_ms: the time no decision takes on a plain
    roll, ms. boundary_effects, nondecision_effects: log factors on each, one per COEFFICIENTS name.
    nondecision_spread_ms: the non-decision time's range from answer to answer, ms.
    lapse: the chance an answer is a lapse. wrong_grey_share: when wrong on a roll that is not grey, the
    chance of grabbing grey (else another color).
    """

    name: str = setting(rule=Text(max_length=MAX_NAME_LENGTH))
    drift: tuple[float, ...] = setting(rule=Several(_LOG_RATE, least=len(COEFFICIENTS), most=len(COEFFICIENTS),
                                                    unique=False, noun="coefficient"))
    boundary: tuple[float, ...] = setting(rule=Several(Number(at_least=-5, at_most=5), least=BOUNDARIES,
                                                       most=BOUNDARIES, unique=False, noun="boundary"))
    nondecision_ms: float = setting(rule=Number(at_least=0, at_most=TIMEOUT_MS, unit="ms"))
    lapse: float = setting(0.0, Number(at_least=0, at_most=0.5))
    wrong_grey_share: float = setting(1 / 3, Number(at_least=0, at_most=1))
    boundary_effects: tuple[float, ...] = setting((0.0,) * len(COEFFICIENTS), Several(
        _LOG_RATE, least=len(COEFFICIENTS), most=len(COEFFICIENTS), unique=False, noun="coefficient"))
    nondecision_spread_ms: float = setting(0.0, Number(at_least=0, at_most=TIMEOUT_MS, unit="ms"))
    nondecision_effects: tuple[float, ...] = setting((0.0,) * len(COEFFICIENTS), Several(
        _LOG_RATE, least=len(COEFFICIENTS), most=len(COEFFICIENTS), unique=False, noun="coefficient"))

    def rates(self, features: RollFeatures) -> tuple[np.ndarray, np.ndarray]:
        """(drift rate per second, boundary separation) on each roll: two (rolls,) float64."""
        rows = design(features)
        boundary = np.array(self.boundary)[features.command.astype(np.intp)] + rows @ np.array(self.boundary_effects)
        return np.exp(rows @ np.array(self.drift)), np.exp(boundary)

    def nondecision_s(self, features: RollFeatures) -> np.ndarray:
        """The non-decision time on each roll, s: (rolls,) float64."""
        return self.nondecision_ms / 1000 * np.exp(design(features) @ np.array(self.nondecision_effects))

    def chance_right(self, features: RollFeatures) -> np.ndarray:
        """The chance of a right answer on each roll, lapses included: (rolls,) float64 probability."""
        drift, boundary = self.rates(features)
        return (1 - self.lapse) * logistic(drift * boundary) + self.lapse * LAPSE_RIGHT

    def mean_latency_ms(self, features: RollFeatures) -> np.ndarray:
        """The mean time of a decision on each roll (lapses and the timeout aside), ms: (rolls,) float64."""
        drift, boundary = self.rates(features)
        return 1000 * (self.nondecision_s(features) + mean_decision_s(drift, boundary))

    def latency_quantile_ms(self, features: RollFeatures, probability: float) -> np.ndarray:
        """The answer time a decision of this player is faster than with `probability` on each roll, ms
        (lapses apart): (rolls,) float64, at least MIN_LATENCY_MS."""
        drift, boundary = self.rates(features)
        grid, _ = _decision_quantiles()
        position = np.minimum(drift * boundary, _KAPPA_MAX) / _KAPPA_STEP
        low = np.minimum(position.astype(np.intp), len(grid) - 2)
        y = min(-math.log1p(-probability), _Y_MAX)
        column = y / _Y_MAX * (_Y_POINTS - 1)
        left = min(int(column), _Y_POINTS - 2)
        at = grid[:, left] + (column - left) * (grid[:, left + 1] - grid[:, left])  # (kappas,) u at y
        below = np.stack([at[low], at[low + 1]])
        u = below[0] + (position - low) * (below[1] - below[0])
        return np.maximum(1000 * (self.nondecision_s(features) + u * boundary**2), MIN_LATENCY_MS)

    def sample(self, features: RollFeatures, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """This player on each roll: (correct: (rolls,) bool, latency_ms: (rolls,) float64, at least
        MIN_LATENCY_MS; past TIMEOUT_MS is a time-out where a drill has one)."""
        correct, latency_ms = sample_lineup((self,), features, rng)
        return correct[0], latency_ms[0]

    @staticmethod
    def sample_lineup(models, features: RollFeatures, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Several such players on each roll: `sample_lineup`, for `reading.Lineup`."""
        return sample_lineup(models, features, rng)

    def log_likelihood(self, features: RollFeatures, correct: np.ndarray, latency_ms: np.ndarray) -> np.ndarray:
        """The joint log-likelihood of each answer, right or wrong and its latency together: (rolls,) log
        density per ms of (answer, latency), or log probability of a time-out where latency_ms is NaN."""
        # correct: (rolls,) bool; latency_ms: (rolls,) float64 ms, NaN for a time-out
        drift, boundary = self.rates(features)
        latency_s = np.asarray(latency_ms, dtype=np.float64) / 1000
        values, _ = spread_log_likelihood(drift, boundary, self.nondecision_s(features),
                                          self.nondecision_spread_ms / 1000, self.lapse,
                                          np.asarray(correct, dtype=bool), latency_s)
        return np.where(np.isnan(latency_s), values, values - math.log(1000))  # per ms, not per second

    @checked(time_factor=Number(at_least=0.01, at_most=100), error_factor=Number(at_least=0, at_most=100))
    def scaled(self, time_factor: float = 1.0, error_factor: float = 1.0) -> DiffusionModel:
        """This player with each command's decision time on a plain roll times `time_factor` and its error odds
        times `error_factor` (drift and caution moved together; the roll effects kept)."""
        drift, boundary = np.array(self.drift), np.array(self.boundary)
        rate, separation = np.exp(drift[:BOUNDARIES]), np.exp(boundary)
        kappa = np.maximum(rate * separation - math.log(max(error_factor, 1e-4)), 0.05)
        # The mean decision time is a^2 tanh(k/2) / (2 k): for the new k, the a giving time_factor times it.
        wanted = time_factor * mean_decision_s(rate, separation)
        separation = np.sqrt(wanted * 2 * kappa / np.tanh(kappa / 2))
        drift[:BOUNDARIES] = np.log(kappa / separation)
        return replace(self, drift=tuple(np.clip(drift, -50, 50).tolist()),
                       boundary=tuple(np.clip(np.log(separation), -5, 5).tolist()))

    @classmethod
    def from_player(cls, player: PlayerModel) -> DiffusionModel:
        """A PlayerModel's plain-roll figures as a diffusion: per command, the drift and caution giving its
        accuracy and mean time above NONDECISION_MS; grey from its tie figures; the other roll effects
        ASSUMED_DRIFT_EFFECTS."""
        clear = [player.skills[(command, False)] for command in ALL_COMMANDS]
        tied = [player.skills[(command, True)] for command in ALL_COMMANDS]
        nondecision = min(NONDECISION_MS, 0.5 * min(skill.mean_ms for skill in clear))

        def solved(skills) -> tuple[np.ndarray, np.ndarray]:  # (log drift, log boundary) per command
            return log_rates_for(np.array([skill.accuracy for skill in skills]),
                                 np.array([max(skill.mean_ms - nondecision, 10.0) / 1000 for skill in skills]))

        clear_drift, boundary = solved(clear)
        tied_drift, _ = solved(tied)
        drift = np.zeros(len(COEFFICIENTS))
        drift[:BOUNDARIES] = clear_drift
        drift[COEFFICIENTS.index("per_extra_die")] = ASSUMED_DRIFT_EFFECTS["per_extra_die"]
        for command in ALL_COMMANDS:
            drift[COEFFICIENTS.index(f"near_tie:{command}")] = ASSUMED_DRIFT_EFFECTS["near_tie"]
        drift[COEFFICIENTS.index("grey")] = float(np.mean(tied_drift - clear_drift))
        drift[COEFFICIENTS.index("command_first")] = ASSUMED_DRIFT_EFFECTS["command_first"]
        return cls(name=player.name, drift=tuple(drift.tolist()), boundary=tuple(boundary.tolist()),
                   nondecision_ms=nondecision, lapse=0.0, wrong_grey_share=player.wrong_grey_share)


def log_rates_for(accuracy: np.ndarray, decision_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The log drift rate and log boundary separation giving each accuracy (probability, held within 0.51 to
    0.9999) and mean decision time (s, > 0): two arrays shaped as the inputs (P(right) = logistic(v a), the
    mean time a tanh(v a / 2) / (2 v))."""
    accuracy = np.clip(accuracy, 0.51, 0.9999)
    kappa = np.log(accuracy / (1 - accuracy))
    separation = np.sqrt(decision_s * 2 * kappa / np.tanh(kappa / 2))
    return np.log(kappa / separation), np.log(separation)


def mean_decision_s(drift: np.ndarray, boundary: np.ndarray) -> np.ndarray:
    """The mean time to a boundary from half-way, s: a tanh(v a / 2) / (2 v), a^2 / 4 with no drift."""
    kappa = drift * boundary
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(kappa > 1e-8, boundary * np.tanh(kappa / 2) / (2 * drift), boundary**2 / 4)


def _log_standard(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log g(u) with its first and second derivatives in u: the first-passage density of a driftless process
    from the middle of a unit interval to its lower boundary at standardized time u > 0 (Navarro and Fuss
    2009), in logs so that neither the small-time head nor the long tail underflows."""
    # u: float64 > 0, any shape. Each series' four terms are powers of one exponential (w = 1/2 makes their
    # exponents 0, 1, 3 and 6 times the first's, and 0, 1, 3 and 6 times exp(-4 pi^2 u)'s): one exp per answer.
    u = np.asarray(u, dtype=np.float64)
    log_g, slope, bend = np.empty_like(u), np.empty_like(u), np.empty_like(u)
    small = u < _SMALL_TIME
    if small.any():
        s = u[small]
        e1 = np.exp(-1 / s)  # the k = -1 term; those of k = 1 and k = -2 are e1^3 and e1^6
        e3 = e1 * e1 * e1
        e6 = e3 * e3
        total = 0.5 - 1.5 * e1 + 2.5 * e3 - 3.5 * e6
        square = s * s
        change = (-1.5 * e1 + 7.5 * e3 - 21 * e6) / (square * total)  # the sum's slope over the sum
        change_2 = (-1.5 * e1 + 22.5 * e3 - 126 * e6) / (square * square * total) - 2 * change / s
        log_g[small] = -0.5 * math.log(2 * math.pi) - 1.5 * np.log(s) - 1 / (8 * s) + np.log(total)
        slope[small] = -1.5 / s + 1 / (8 * square) + change
        bend[small] = 1.5 / square - 1 / (4 * square * s) + change_2 - change * change
    large = ~small
    if large.any():
        s = u[large]
        q1 = np.exp(-4 * math.pi**2 * s)  # the k = 3 term's decay; k = 5 and 7 decay as q1^3 and q1^6
        q3 = q1 * q1 * q1
        q6 = q3 * q3
        total = 1 - 3 * q1 + 5 * q3 - 7 * q6
        change = math.pi**2 * (12 * q1 - 60 * q3 + 168 * q6) / total
        log_g[large] = math.log(math.pi) - math.pi**2 / 2 * s + np.log(total)
        slope[large] = -math.pi**2 / 2 + change
        bend[large] = math.pi**4 * (-48 * q1 + 720 * q3 - 4032 * q6) / total - change * change
    return log_g, slope, bend


def _log_survival(kappa: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log P(no boundary reached by standardized time u) for k = v a, with its derivatives in k and u, and
    its second derivatives in (k, k), (k, u) and (u, u): (5, n)."""
    # kappa, u: (n,) float64; the large-time series of the distribution function, u held at 0.01 or more
    u = np.maximum(u, 0.01)[:, None]
    kappa = kappa[:, None]
    k = _SURVIVAL_TERMS[None, :]
    sign = np.where((k // 2) % 2 == 0, 1.0, -1.0)
    rate = (kappa * kappa + k * k * math.pi**2) / 2  # (n, terms)
    first = rate[:, :1]
    decay = k * sign * np.exp(-(rate - first) * u)  # (n, terms), not depending on k = v a
    total = (decay / rate).sum(axis=1)
    decays = decay.sum(axis=1)
    kappa, u, first = kappa[:, 0], u[:, 0], first[:, 0]
    log_cosh = kappa / 2 + np.log1p(np.exp(-kappa)) - math.log(2)
    log_s = math.log(2 * math.pi) + log_cosh - first * u + np.log(total)
    total_kappa = -kappa * (decay / rate**2).sum(axis=1) / total  # d total / dk over total
    d_u = -decays / total
    d_kappa = 0.5 * np.tanh(kappa / 2) - kappa * u + total_kappa
    d_uu = ((decay * rate).sum(axis=1) - first * decays) / total + d_u * (decays / total - first)
    d_ku = -d_u * total_kappa
    d_kk = (0.25 / np.cosh(kappa / 2) ** 2 - u - (decay / rate**2).sum(axis=1) / total
            + 2 * kappa**2 * (decay / rate**3).sum(axis=1) / total - total_kappa**2)
    return np.minimum(log_s, 0.0), d_kappa, d_u, np.stack([d_kk, d_ku, d_uu])


def _process_log_likelihood(drift: np.ndarray, boundary: np.ndarray, nondecision_s: np.ndarray, correct: np.ndarray,
                            latency_s: np.ndarray) -> tuple[np.ndarray, np.ndarray, Callable[[], np.ndarray]]:
    """The decision process alone (no lapse) at each of some non-decision times: the log density per second of
    each answer's side at its latency, or the log probability of a time-out where latency_s is NaN, its
    derivatives in the drift, the boundary and the non-decision time, and a call that gives their second
    derivatives from what the first ones worked out: (nodes, rows), (3, nodes, rows) and (3, 3, nodes, rows)."""
    # drift, boundary, correct, latency_s: (rows,); nondecision_s: (nodes, rows) s
    side = np.where(correct, 0.5, -0.5)
    timed_out = np.isnan(latency_s)
    decision = latency_s - nondecision_s  # (nodes, rows), NaN where timed out
    began = decision > 0
    t = np.where(began, decision, 1.0)
    inverse_square = 1 / boundary**2
    log_g, slope, bend = _log_standard(t * inverse_square)
    values = np.where(began, log_g - drift**2 / 2 * t + (side * drift * boundary - 2 * np.log(boundary)), -np.inf)
    gradient = np.empty((3, *values.shape))
    gradient[0] = side * boundary - drift * t
    gradient[1] = side * drift - 2 / boundary - 2 * inverse_square / boundary * (slope * t)
    gradient[2] = drift**2 / 2 - inverse_square * slope
    out = None  # (timed out, their boundary, drift, remaining time, derivatives) when some answers timed out
    if timed_out.any():
        left = np.flatnonzero(timed_out)
        a, v = boundary[left], drift[left]
        remaining = np.maximum(TIMEOUT_MS / 1000 - nondecision_s[:, left], 0.0)  # (nodes, timed out)
        shape = remaining.shape
        log_s, d_kappa, d_u, d_2 = _log_survival(np.broadcast_to(v * a, shape).ravel(), (remaining / a**2).ravel())
        log_s, d_kappa, d_u = (part.reshape(shape) for part in (log_s, d_kappa, d_u))
        u_a, u_t = -2 * remaining / a**3, -1 / a**2  # d u / d boundary, d u / d non-decision time
        values[:, left] = log_s
        gradient[0][:, left] = a * d_kappa
        gradient[1][:, left] = v * d_kappa + u_a * d_u
        gradient[2][:, left] = u_t * d_u
        out = left, a, v, remaining, d_kappa, d_u, d_2.reshape(3, *shape), u_a, u_t

    def second() -> np.ndarray:
        hessian = np.empty((3, 3, *values.shape))
        hessian[0, 0] = -t
        hessian[0, 1] = hessian[1, 0] = np.broadcast_to(side, values.shape)
        hessian[0, 2] = hessian[2, 0] = np.broadcast_to(drift, values.shape)
        bend_t = bend * t * inverse_square
        hessian[1, 1] = inverse_square * (2 + (6 * slope + 4 * bend_t) * t * inverse_square)
        hessian[1, 2] = hessian[2, 1] = 2 * inverse_square / boundary * (bend_t + slope)
        hessian[2, 2] = bend * inverse_square**2
        if out is not None:
            left, a, v, remaining, d_kappa, d_u, (d_kk, d_ku, d_uu), u_a, u_t = out
            hessian[0, 0][:, left] = a * a * d_kk
            hessian[0, 1][:, left] = hessian[1, 0][:, left] = d_kappa + a * (v * d_kk + u_a * d_ku)
            hessian[0, 2][:, left] = hessian[2, 0][:, left] = a * u_t * d_ku
            hessian[1, 1][:, left] = (v * v * d_kk + 2 * v * u_a * d_ku + u_a * u_a * d_uu
                                      + 6 * remaining / a**4 * d_u)
            hessian[1, 2][:, left] = hessian[2, 1][:, left] = (v * u_t * d_ku + u_a * u_t * d_uu
                                                               + 2 / a**3 * d_u)
            hessian[2, 2][:, left] = u_t * u_t * d_uu
        return hessian

    return values, gradient, second


def _mixed_log_likelihood(drift, boundary, nondecision_s, spread_s, nodes: np.ndarray, weights: np.ndarray, lapse,
                          correct, latency_s) -> tuple[np.ndarray, np.ndarray, Callable[[], np.ndarray]]:
    """Each answer's log-likelihood under lapses and a decision process whose non-decision time is at
    nondecision_s + spread_s * nodes[n] with chance weights[n] (weights summing to one): (rows,); its gradient
    in the drift, the boundary, the non-decision time, logit(lapse) and the spread: (5, rows); and a call that
    gives its Hessian in those from what the gradient worked out: (5, 5, rows)."""
    rows = len(drift)
    lapse = np.broadcast_to(np.asarray(lapse, dtype=np.float64), (rows,))
    at = np.broadcast_to(np.asarray(nondecision_s, dtype=np.float64)
                         + nodes[:, None] * np.asarray(spread_s, dtype=np.float64), (len(nodes), rows))
    process, first, process_second = _process_log_likelihood(drift, boundary, at, correct, latency_s)
    # A lapse's latency: the density of a uniform between MIN_LATENCY_MS and the timeout, at any latency (a
    # log whose drill had a longer timeout keeps every answer possible); a lapse never times out.
    with np.errstate(divide="ignore"):
        lapsed = np.where(np.isnan(latency_s), -np.inf, np.log(lapse) + np.log(
            np.where(correct, LAPSE_RIGHT, 1 - LAPSE_RIGHT) * 1000 / (TIMEOUT_MS - MIN_LATENCY_MS)))
        decided = process + (np.log(weights)[:, None] + np.log1p(-lapse))  # (nodes, rows)
    values = np.logaddexp(np.logaddexp.reduce(decided, axis=0), lapsed)
    with np.errstate(invalid="ignore"):
        shares = np.where(np.isfinite(decided), np.exp(decided - values), 0.0)  # each node's share of the answer
        lapsed_share = np.where(np.isfinite(lapsed), np.exp(lapsed - values), 0.0)
    # The process's derivatives in the drift, boundary, non-decision time and spread, node by node.
    process_gradient = np.concatenate([first, nodes[None, :, None] * first[2:]])  # (4, nodes, rows)
    gradient = np.empty((5, rows))
    gradient[[0, 1, 2, 4]] = (shares * process_gradient).sum(axis=1)
    gradient[3] = lapsed_share - lapse

    def second() -> np.ndarray:
        # d2 log sum_n s_n / dx dy = sum_n share_n (L_n,xy + L_n,x L_n,y) - g_x g_y; the lapse's logit enters by
        # (1 - lapse) and lapse only, which gives its row in closed form.
        within_process = process_second()
        hessian = np.empty((5, 5, rows))
        process_index = (0, 1, 2, 4)
        for i, x in enumerate(process_index):
            for j, y in enumerate(process_index[: i + 1]):
                within = within_process[min(i, 2), min(j, 2)] * nodes[:, None] ** ((i == 3) + (j == 3))
                value = (shares * (within + process_gradient[i] * process_gradient[j])).sum(axis=0) \
                    - gradient[x] * gradient[y]
                hessian[x, y] = hessian[y, x] = value
        excess = lapsed_share - lapse
        hessian[3, 3] = (1 - 2 * lapse) * excess - excess**2
        for x in process_index:
            hessian[3, x] = hessian[x, 3] = -lapsed_share * gradient[x]
        return hessian

    return values, gradient, second


_NODES, _NODE_WEIGHTS = (part / 2 for part in np.polynomial.legendre.leggauss(5))
# Where the non-decision time falls, as fractions of its spread about its mean (-1/2 to 1/2), and the chances.


def spread_log_likelihood(drift, boundary, nondecision_s, spread_s, lapse, correct, latency_s):
    """Each answer's joint log-likelihood (log density per second of right or wrong at its latency; log
    probability of a time-out where latency_s is NaN), the non-decision time at one of five points spread about
    its mean (at nondecision + spread * _NODES, chances _NODE_WEIGHTS), and its gradient: (rows,) and (5, rows),
    the derivatives in the drift, the boundary, the non-decision time (s), logit(lapse) and the spread (s). The
    five-point mixture is the model, not an approximation of one."""
    # drift, boundary: (rows,) > 0; nondecision_s, spread_s, lapse: scalars or (rows,); correct: (rows,) bool;
    # latency_s: (rows,) float64 s, NaN for a time-out
    values, gradient, _ = spread_log_likelihood_later(drift, boundary, nondecision_s, spread_s, lapse, correct,
                                                      latency_s)
    return values, gradient


def spread_log_likelihood_hessian(drift, boundary, nondecision_s, spread_s, lapse, correct, latency_s):
    """`spread_log_likelihood` and each answer's Hessian in the same five: (rows,), (5, rows), (5, 5, rows)."""
    values, gradient, hessian = spread_log_likelihood_later(drift, boundary, nondecision_s, spread_s, lapse, correct,
                                                            latency_s)
    return values, gradient, hessian()


def spread_log_likelihood_later(drift, boundary, nondecision_s, spread_s, lapse, correct, latency_s):
    """`spread_log_likelihood` and a call that gives the Hessian of `spread_log_likelihood_hessian` from what the
    gradient worked out (a fit needs it only at the points it steps to, after their gradient)."""
    return _mixed_log_likelihood(drift, boundary, nondecision_s, spread_s, _NODES, _NODE_WEIGHTS, lapse, correct,
                                 latency_s)


@lru_cache(maxsize=1)
def _decision_quantiles() -> tuple[np.ndarray, np.ndarray]:
    """The standardized decision time u at each k = v a (rows, step _KAPPA_STEP) and each y = -log(1 - p) of
    its distribution (columns, 0 to _Y_MAX): (kappas, _Y_POINTS) float64, and each k's tail rate."""
    u = np.concatenate([[0.0], np.geomspace(1e-4, 8.0, 4000)])
    log_g = np.full(len(u), -np.inf)
    log_g[1:] = _log_standard(u[1:])[0]
    kappas = np.arange(0.0, _KAPPA_MAX + _KAPPA_STEP / 2, _KAPPA_STEP)
    # Density of u given k (both boundaries): 2 cosh(k/2) exp(-k^2 u / 2) g(u); its integral by trapezoids.
    density = np.exp(np.log(2 * np.cosh(kappas / 2))[:, None] - kappas[:, None] ** 2 * u[None] / 2 + log_g[None])
    cumulative = np.concatenate([np.zeros((len(kappas), 1)),
                                 np.cumsum((density[:, 1:] + density[:, :-1]) / 2 * np.diff(u), axis=1)], axis=1)
    cumulative /= cumulative[:, -1:]
    y_grid = np.linspace(0.0, _Y_MAX, _Y_POINTS)
    with np.errstate(divide="ignore"):
        y = -np.log1p(-np.minimum(cumulative, 1 - 1e-16))
    grid = np.array([np.interp(y_grid, np.maximum.accumulate(row), u) for row in y])
    return grid, (kappas**2 + math.pi**2) / 2


def distinct_rolls(features: RollFeatures) -> tuple[np.ndarray, RollFeatures]:
    """The distinct rolls among some (alike in every feature): (kind: (rolls,) intp, each roll's index among
    them; their features, one entry per distinct roll). Counted by their codes, not sorted: O(rolls)."""
    span = int(features.dice.max()) + 1 if len(features) else 1
    kind = ((features.command.astype(np.intp) * 2 + features.near_tie) * 2 + features.grey) * 2 \
        + features.command_first
    code = kind * span + features.dice
    present = np.zeros(len(ALL_COMMANDS) * 8 * span, dtype=bool)
    present[code] = True
    distinct = np.flatnonzero(present)
    lookup = np.zeros(len(present), dtype=np.intp)
    lookup[distinct] = np.arange(len(distinct))
    kinds, dice = np.divmod(distinct, span)
    return lookup[code], RollFeatures(command=(kinds >> 3).astype(np.int8), dice=dice.astype(np.int16),
                                      near_tie=(kinds >> 2) & 1 == 1, grey=(kinds >> 1) & 1 == 1,
                                      command_first=kinds & 1 == 1)


def sample_lineup(models, features: RollFeatures, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Each of some DiffusionModels on every roll: (correct: (players, rolls) bool, latency_ms: (players, rolls)
    float64, at least MIN_LATENCY_MS). Exact in distribution but for the tabulated quantiles of the decision
    time (linear between points a fraction of a per cent apart); the work per answer is a few lookups in
    grids made per distinct roll, so that many games sample fast."""
    quantile_grid, tail_rate = _decision_quantiles()
    kind, distinct = distinct_rolls(features)
    rows = design(distinct)
    drift = np.exp(np.array([model.drift for model in models]) @ rows.T)  # (players, distinct)
    boundary = np.exp(np.array([model.boundary for model in models])[:, distinct.command.astype(np.intp)]
                      + np.array([model.boundary_effects for model in models]) @ rows.T)
    kappa = np.minimum(drift * boundary, _KAPPA_MAX).ravel()  # (players * distinct,)
    position = kappa / _KAPPA_STEP
    low = np.minimum(position.astype(np.intp), len(quantile_grid) - 2)
    weight = (position - low)[:, None]
    quantiles = ((1 - weight) * quantile_grid[low] + weight * quantile_grid[low + 1]).ravel()  # (cells * _Y_POINTS,)
    rate = (1 - weight[:, 0]) * tail_rate[low] + weight[:, 0] * tail_rate[low + 1]
    chance = logistic(kappa)
    scale_ms = 1000 * boundary.ravel() ** 2
    lapse = np.array([[model.lapse] for model in models])
    nondecision_ms = (np.array([[model.nondecision_ms] for model in models])
                      * np.exp(np.array([model.nondecision_effects for model in models]) @ rows.T)).ravel()
    cell = (np.arange(len(models)) * len(distinct))[:, None] + kind[None, :]  # (players, rolls)
    shape = cell.shape
    # One uniform decides a lapse (below `lapse`) and, rescaled, the boundary of a decision.
    pick = rng.random(shape)
    lapsed = pick < lapse
    correct = (pick - lapse) < (1 - lapse) * chance[cell]
    y = rng.standard_exponential(shape)  # -log(1 - p) of the decision time's quantile p
    column = np.minimum(y, _Y_MAX) * ((_Y_POINTS - 1) / _Y_MAX)
    left = np.minimum(column.astype(np.intp), _Y_POINTS - 2)
    flat = cell * _Y_POINTS + left
    below = quantiles[flat]
    u = below + (column - left) * (quantiles[flat + 1] - below)
    far = y > _Y_MAX
    if far.any():  # past the grid: the exponential tail of the large-time series
        u[far] += (y[far] - _Y_MAX) / rate[cell[far]]
    spread_ms = np.array([[model.nondecision_spread_ms] for model in models])
    node = rng.choice(_NODES, size=shape, p=_NODE_WEIGHTS)
    latency_ms = nondecision_ms[cell] + spread_ms * node + u * scale_ms[cell]
    if lapsed.any():
        count = int(lapsed.sum())
        correct[lapsed] = rng.random(count) < LAPSE_RIGHT
        latency_ms[lapsed] = rng.uniform(MIN_LATENCY_MS, TIMEOUT_MS, count)
    return correct, np.maximum(latency_ms, MIN_LATENCY_MS)
