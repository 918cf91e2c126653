"""Statistics several layers share: estimates with intervals, the Wilson interval, the ex-Gaussian.

An `Estimate` is how every interval in the project is reported: the figure and its confidence interval, in
the figure's own units. scipy is imported only when a fit or a density is asked for, and only its `special`
and `optimize` parts (the density is the fit's own log-likelihood term), to keep the command line's start
short. The ex-Gaussian's meaning: docs/architecture.md, "What a player's figures mean".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, partial
from statistics import NormalDist

import numpy as np

from diavolo_stats.validation import Configuration, Number, check_value, setting

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95 % interval."""

MIN_FIT_ANSWERS = 30
"""The fewest latencies an ex-Gaussian is fitted from."""

MIN_SIGMA_MS = 10.0
"""The least sigma an ex-Gaussian is fitted with, ms: about the jitter of a keyboard's and a screen's timing.
Latencies with a sharp leading edge otherwise drive sigma toward 0 and the density there toward infinity, and
held-out answers just before the edge toward a log density of minus hundreds."""

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


@dataclass(frozen=True)
class Estimate:
    """A figure and its confidence interval [low, high], in the figure's own units."""

    value: float
    low: float
    high: float

    @classmethod
    def exact(cls, value: float) -> Estimate:
        """A figure known exactly: its interval is the figure itself."""
        return cls(value, value, value)

    @property
    def bounds(self) -> list[float]:
        """The interval as [low, high], the form every JSON document carries it in."""
        return [self.low, self.high]

    def __contains__(self, exact: float) -> bool:
        return self.low <= exact <= self.high


CONFIDENCE = Number(above=0, below=1)
"""A confidence level: strictly between 0 and 1 (0.95 for a 95 % interval)."""


def z_for(confidence: float) -> float:
    """The standard normal quantile of a two-sided interval at `confidence` (0.95 gives 1.96)."""
    return NormalDist().inv_cdf(0.5 + check_value("confidence", confidence, CONFIDENCE) / 2)


def _wilson_bounds(successes: float, trials: int, z: float) -> tuple[float, float]:
    """Wilson score interval (low, high) for a binomial proportion; z = 1.96 gives 95 %."""
    if trials <= 0:
        return (0.0, 1.0)
    share = successes / trials
    denominator = 1 + z * z / trials
    center = (share + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / denominator
    # At 0 or all successes rounding can leave a bound a hair past the estimate itself.
    return (max(0.0, min(share, center - half)), min(1.0, max(share, center + half)))


def proportion_estimate(successes: float, trials: int, confidence: float = 0.95) -> Estimate:
    """A probability estimated as successes / trials, with its Wilson score interval (NaN value with no trials).

    `successes` may be fractional (a win shared by k players counts 1/k); the
    interval is then conservative, as a share in [0, 1] with mean p varies at
    most as much as a 0/1 outcome.
    """
    low, high = _wilson_bounds(successes, trials, z_for(confidence))
    return Estimate(successes / trials if trials > 0 else math.nan, low, high)


def median_estimate(samples: Sequence[float] | np.ndarray, confidence: float = 0.95) -> Estimate:
    """The median of samples (NaN ignored), with the distribution-free interval between two order statistics.

    The interval runs from the sorted samples' ranks n/2 -+ z sqrt(n)/2 (Conover's normal approximation of
    the binomial with p = 1/2): it assumes nothing about the shape of the samples, which reaction times
    (skewed to the right) need. With few samples it widens to the smallest and largest. NaN (value and
    bounds) with no samples; units those of the samples.
    """
    # samples: (samples,) float
    values = np.sort(np.asarray(samples, dtype=np.float64))
    values = values[np.isfinite(values)]
    count = values.size
    if count == 0:
        return Estimate(math.nan, math.nan, math.nan)
    half_width = z_for(confidence) * math.sqrt(count) / 2
    low_rank = max(1, math.floor(count / 2 - half_width))  # 1-based ranks
    high_rank = min(count, math.ceil(1 + count / 2 + half_width))
    return Estimate(float(np.median(values)), float(values[low_rank - 1]), float(values[high_rank - 1]))


def mean_estimate_from_sums(count: int, total: int, squares: int, confidence: float = 0.95) -> Estimate:
    """The mean of `count` independent whole-number samples, with its normal-approximation interval, given only
    their sum and sum of squares.

    Exact integer arithmetic up to the square root, so samples can be added up batch by batch, in any
    grouping, with the same result and without keeping them (needs 2 samples or more).
    """
    mean = total / count
    variance = (count * squares - total * total) / (count * (count - 1))  # exact in Python ints
    half = z_for(confidence) * math.sqrt(max(variance, 0.0)) / math.sqrt(count)
    return Estimate(mean, mean - half, mean + half)


@dataclass(frozen=True)
class ExGaussian(Configuration):
    """A latency distribution: normal (mu_ms, sigma_ms) plus an exponential tail of mean tau_ms; all in ms."""

    mu_ms: float = setting(rule=Number(unit="ms"))
    sigma_ms: float = setting(rule=Number(above=0, unit="ms"))
    tau_ms: float = setting(rule=Number(above=0, unit="ms"))

    @property
    def mean_ms(self) -> float:
        """The distribution's mean latency, ms (mu + tau)."""
        return self.mu_ms + self.tau_ms

    def pdf(self, latency_ms) -> np.ndarray:
        """Probability density per ms at each latency (ms), same shape as the input."""
        offset = np.asarray(latency_ms, dtype=np.float64) - self.mu_ms
        log_pdf, _, _, _ = _log_pdf(offset, self.sigma_ms, self.tau_ms, math.log(self.tau_ms),
                                    np.empty((4, *offset.shape)))
        return np.exp(log_pdf)


def _log_pdf(offset: np.ndarray, sigma: float, tau: float, log_tau: float,
             out: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ex-Gaussian's log density at offset = latency - mu (sigma, tau and offset in one unit), with
    z = offset / sigma - sigma / tau, log Phi(z) and offset / tau, which the fit's gradient reuses: `out`'s four
    rows, written in place (the fit evaluates it some ten times over tens of thousands of answers, where fresh
    arrays for each step cost as much as the arithmetic).

    A sum of logs, as `scipy.stats.exponnorm` computes it: the exp(sigma^2 / (2 tau^2)) of the textbook
    formula overflows once sigma is some 40 times tau, this never does.
    """
    # offset: any shape, float64; out: (4, *offset's shape) float64, returned as its four rows
    from scipy import special

    log_pdf, z, log_cdf, scaled = (out[row, ...] for row in range(4))  # views, also of a 0-d offset
    np.divide(offset, sigma, out=z)
    z -= sigma / tau
    special.log_ndtr(z, out=log_cdf)
    np.divide(offset, tau, out=scaled)
    np.subtract(-log_tau, scaled, out=log_pdf)
    log_pdf += sigma * sigma / (2 * tau * tau)
    log_pdf += log_cdf
    return log_pdf, z, log_cdf, scaled


def fit_ex_gaussian(latencies_ms: Sequence[float] | np.ndarray) -> ExGaussian | None:
    """Maximum-likelihood ex-Gaussian fit of latencies in ms, sigma at least MIN_SIGMA_MS; None with fewer than
    MIN_FIT_ANSWERS values.

    L-BFGS-B with the analytic gradient, from the method-of-moments estimate, on the latencies standardized to
    mean 0 and spread 1: the maximum `scipy.stats.exponnorm.fit` finds, fast enough for one fit per player and
    command of a large log.
    """
    return fit_ex_gaussians([latencies_ms])[0]


def fit_ex_gaussians(samples: Sequence[Sequence[float] | np.ndarray], threads: int = 1) -> list[ExGaussian | None]:
    """`fit_ex_gaussian` of each of `samples`, in order, on up to `threads` threads side by side: a fit's arithmetic
    is numpy's and scipy's kernels on tens of thousands of answers, which release the GIL. Each fit is the same to
    the bit as alone."""
    values = [np.asarray(sample, dtype=np.float64) for sample in samples]
    values = [sample[np.isfinite(sample)] for sample in values]
    fitted = [sample.size >= MIN_FIT_ANSWERS and np.ptp(sample) > 0 for sample in values]
    if not any(fitted):
        return [None] * len(values)
    import scipy.optimize  # noqa: F401  (loaded before the BLAS libraries are found, its own among them)

    # The optimizer's linear algebra is on three parameters: BLAS threads only wake, contend for the cores and sleep
    # again (on a busy 2-core machine the fits took three times as long with them), and the answer is the same to
    # the bit without. One limit around every fit: the limit is the process's, not a thread's.
    with _blas_threads().limit(limits=1, user_api="blas"):
        if threads > 1 and sum(fitted) > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                return list(pool.map(_one_fit, values, fitted))
        return [_one_fit(sample, fit) for sample, fit in zip(values, fitted)]


def _one_fit(values: np.ndarray, fit: bool) -> ExGaussian | None:
    """The fit of `fit_ex_gaussian` of finite latencies (ms) that can be fitted (`fit`; else None)."""
    # values: (answers,) float64, finite
    if not fit:
        return None
    from scipy import optimize

    center, spread = float(values.mean()), float(values.std())
    standard = (values - center) / spread
    # Moments: the ex-Gaussian's skewness is 2 (tau/sd)^3, so tau follows from it (kept inside (0, sd)).
    skew = float(np.mean(standard**3))
    tau = min(max(skew, 0.01) / 2, 0.9) ** (1 / 3)
    floor = min(math.log(MIN_SIGMA_MS / spread), 3.0)  # log sigma's least value, on the standardized scale
    start = np.array([-tau, max(0.5 * math.log(1 - tau**2), floor), math.log(tau)])  # mu, log sigma, log tau

    work = np.empty((7, values.size))  # the likelihood's arrays, written over at each of its evaluations
    negative_log_likelihood = partial(_negative_log_likelihood, standard=standard, work=work)
    # The optimizer probes extreme shapes on its way (not the user's concern).
    with np.errstate(all="ignore"):
        found = optimize.minimize(negative_log_likelihood, start, jac=True, method="L-BFGS-B",
                                  bounds=[(-10, 10), (floor, 3), (-9, 3)])
    mu, log_sigma, log_tau = found.x
    return ExGaussian(mu_ms=center + spread * float(mu), sigma_ms=spread * math.exp(log_sigma),
                      tau_ms=spread * math.exp(log_tau))


def _negative_log_likelihood(theta: np.ndarray, standard: np.ndarray, work: np.ndarray) -> tuple[float, np.ndarray]:
    """The ex-Gaussian's mean negative log-likelihood over `standard` at theta = (mu, log sigma, log tau), and its
    gradient; each step in place in the rows of `work`, as `_log_pdf`."""
    # standard: (answers,) float64; work: (7, answers) float64
    mu, sigma, tau = theta[0], math.exp(theta[1]), math.exp(theta[2])
    offset, mills, term = work[:3]
    np.subtract(standard, mu, out=offset)
    log_pdf, z, log_cdf, scaled = _log_pdf(offset, sigma, tau, theta[2], work[3:])
    np.multiply(-0.5, z, out=mills)  # pdf(z) / cdf(z), from logs
    mills *= z
    mills -= _HALF_LOG_2PI
    mills -= log_cdf
    np.exp(mills, out=mills)
    # The mean log-likelihood's slope in mu: 1 / tau - mills / sigma
    np.divide(mills, sigma, out=term)
    np.subtract(1 / tau, term, out=term)
    by_mu = np.mean(term)
    # in log sigma: sigma^2 / tau^2 - mills (offset / sigma + sigma / tau)
    np.divide(offset, sigma, out=offset)
    offset += sigma / tau
    offset *= mills
    np.subtract(sigma * sigma / (tau * tau), offset, out=offset)
    by_log_sigma = np.mean(offset)
    # in log tau: -1 + offset / tau - sigma^2 / tau^2 + mills sigma / tau
    scaled += -1
    scaled -= sigma * sigma / (tau * tau)
    np.multiply(mills, sigma, out=term)
    term /= tau
    scaled += term
    by_log_tau = np.mean(scaled)
    return -float(np.mean(log_pdf)), -np.array([by_mu, by_log_sigma, by_log_tau])


@cache
def _blas_threads():
    """The BLAS libraries loaded (numpy's and scipy's), found once: each `threadpool_limits` searches every loaded
    library again, 8 ms a fit once pandas, pyarrow and matplotlib are loaded, as long as a small fit itself."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()
