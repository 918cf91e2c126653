"""The shared estimates: the median's distribution-free interval covers the median as often as it says."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diavolo_stats.stats import median_estimate


def coverage(count: int) -> float:
    """The exact chance that the interval of `count` samples holds the true median, whatever their distribution:
    the interval between ranks l and h misses it when fewer than l or at least h samples fall below it."""
    ranks = np.arange(count)
    samples = median_estimate(ranks.astype(float))  # ranks 0..n-1: the bounds' values are their ranks - 1
    low_rank, high_rank = int(samples.low) + 1, int(samples.high) + 1
    below = [math.comb(count, k) / 2**count for k in range(count + 1)]
    return sum(below[low_rank:high_rank])


@pytest.mark.parametrize("count", [6, 10, 25, 60, 200, 1000])
def test_the_median_interval_holds_the_median_at_least_95_in_100_times(count):
    assert coverage(count) >= 0.95


def test_the_median_interval_brackets_the_median_and_ignores_missing_answers():
    latencies = np.array([400.0, 520.0, np.nan, 610.0, 700.0, 4000.0, 480.0, 650.0])
    estimate = median_estimate(latencies)
    assert estimate.value == pytest.approx(np.nanmedian(latencies))
    assert estimate.low <= estimate.value <= estimate.high
    assert math.isnan(median_estimate([]).value)
