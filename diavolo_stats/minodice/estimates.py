"""Simulated figures and their confidence intervals."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from diavolo_stats.errors import InputError


@dataclass(frozen=True)
class Estimate:
    """A simulated figure and its confidence interval [low, high], in the figure's own units."""

    value: float
    low: float
    high: float

    def __contains__(self, exact: float) -> bool:
        return self.low <= exact <= self.high


def check_confidence(confidence: float) -> float:
    """`confidence` if it is strictly between 0 and 1; InputError otherwise."""
    if not 0 < confidence < 1:
        raise InputError(f"confidence: must be strictly between 0 and 1, got {confidence!r}")
    return confidence


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + check_confidence(confidence) / 2)


def proportion_estimate(successes: int, trials: int, confidence: float = 0.95) -> Estimate:
    """A probability estimated as successes / trials, with its Wilson score interval."""
    z = _z(confidence)
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z / (1 + z * z / trials) * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    return Estimate(share, max(0.0, centre - half), min(1.0, centre + half))


def mean_estimate(samples: np.ndarray, confidence: float = 0.95) -> Estimate:
    """The mean of independent samples, with its normal-approximation interval (needs 2 samples or more)."""
    # samples: (simulations,) any numeric dtype
    mean = float(np.mean(samples))
    half = _z(confidence) * float(np.std(samples, ddof=1)) / math.sqrt(len(samples))
    return Estimate(mean, mean - half, mean + half)
