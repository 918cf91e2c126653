"""Simulated figures and their confidence intervals."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from diavolo_stats.errors import InputError
from diavolo_stats.simulate import wilson_interval


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
    low, high = wilson_interval(successes, trials, z=_z(confidence))
    return Estimate(successes / trials, low, high)


def mean_estimate(samples: np.ndarray, confidence: float = 0.95) -> Estimate:
    """The mean of independent samples, with its normal-approximation interval (needs 2 samples or more)."""
    # samples: (simulations,) any numeric dtype
    mean = float(np.mean(samples))
    half = _z(confidence) * float(np.std(samples, ddof=1)) / math.sqrt(len(samples))
    return Estimate(mean, mean - half, mean + half)
