"""The shared estimates: the median's distribution-free interval covers the median as often as it says; the
ex-Gaussian density is scipy's."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats as scipy_stats

from diavolo_stats import stats
from diavolo_stats.stats import (
    MIN_FIT_ANSWERS,
    MIN_SIGMA_MS,
    ExGaussian,
    fit_ex_gaussian,
    fit_ex_gaussians,
    median_estimate,
)


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


@pytest.mark.parametrize(("mu_ms", "sigma_ms", "tau_ms"), [
    (800.0, 80.0, 300.0),  # a player's usual shape
    (500.0, 1.0, 5000.0),  # nearly all tail: tau 5000 sigmas
    (300.0, 0.001, 200.0),
    (500.0, 50.0, 1.0),  # sigma 50 taus: exp(sigma^2 / 2 tau^2) = exp(1250) overflows
    (500.0, 1000.0, 1.0),  # sigma 1000 taus: nearly normal
])
def test_the_ex_gaussian_density_is_scipys_exponnorm_at_any_ratio_of_sigma_to_tau(mu_ms, sigma_ms, tau_ms):
    model = ExGaussian(mu_ms=mu_ms, sigma_ms=sigma_ms, tau_ms=tau_ms)
    latencies = np.linspace(mu_ms - 10 * sigma_ms - 5 * tau_ms, mu_ms + 10 * sigma_ms + 40 * tau_ms, 2001)
    ours = model.pdf(latencies)
    reference = scipy_stats.exponnorm.pdf(latencies, tau_ms / sigma_ms, loc=mu_ms, scale=sigma_ms)
    assert np.isfinite(ours).all()
    assert ours.shape == latencies.shape
    # Both are a sum of logs whose large terms cancel when sigma >> tau: a few 1e-11 apart there.
    np.testing.assert_allclose(ours, reference, rtol=1e-9, atol=1e-12 * reference.max())
    # One latency in, one density out.
    assert np.shape(model.pdf(mu_ms)) == ()
    assert model.pdf(mu_ms) == pytest.approx(scipy_stats.exponnorm.pdf(mu_ms, tau_ms / sigma_ms, loc=mu_ms,
                                                                      scale=sigma_ms), rel=1e-9)


def test_drawing_a_fitted_ex_gaussian_does_not_import_scipy_stats():
    """Fitting and drawing latencies (the report's latency chart) import scipy's optimize and special parts only:
    scipy.stats alone takes a quarter of a second to import."""
    code = ("import sys, numpy as np\nfrom diavolo_stats.stats import fit_ex_gaussian\n"
            "fit = fit_ex_gaussian(np.random.default_rng(1).gamma(4, 100, 200) + 300)\n"
            "fit.pdf(np.linspace(0, 2000, 50))\nprint('scipy.stats' in sys.modules, 'scipy.special' in sys.modules)")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.split() == ["False", "True"]


def test_the_ex_gaussian_fit_runs_its_optimizer_on_one_blas_thread(monkeypatch):
    """Its linear algebra is on three parameters: BLAS threads there only contend for the cores (the report's fits
    took three times as long with them on a busy 2-core machine)."""
    from scipy import optimize
    from threadpoolctl import threadpool_info

    seen = []

    def minimize(*args, **kwargs):
        seen.extend(library["num_threads"] for library in threadpool_info() if library["user_api"] == "blas")
        return real_minimize(*args, **kwargs)

    real_minimize = optimize.minimize
    monkeypatch.setattr(optimize, "minimize", minimize)
    assert fit_ex_gaussian(np.random.default_rng(2).gamma(4, 100, 500) + 300) is not None
    assert seen and set(seen) == {1}


def test_fits_side_by_side_on_threads_are_the_fits_one_by_one_to_the_bit_in_order():
    """The report fits its groups on the process's threads: each fit must be the one it is alone."""
    rng = np.random.default_rng(6)
    samples = [ex_gaussian_latencies(50_000, 7), np.full(300, 450.0), ex_gaussian_latencies(MIN_FIT_ANSWERS - 1, 8),
               np.r_[ex_gaussian_latencies(2000, 9), [np.nan] * 10], rng.gamma(0.5, 100, 1000) + 300, np.array([]),
               ex_gaussian_latencies(30, 1)]
    alone = [fit_ex_gaussian(sample) for sample in samples]
    assert [fit is None for fit in alone] == [False, True, True, False, False, True, False]
    assert fit_ex_gaussians(samples, threads=2) == alone
    assert fit_ex_gaussians(samples, threads=3) == alone
    assert fit_ex_gaussians(samples) == alone
    assert fit_ex_gaussians(samples[1:3], threads=2) == [None, None]
    assert fit_ex_gaussians([], threads=2) == []


def test_fits_on_threads_run_on_one_blas_thread_and_give_the_limit_back(monkeypatch):
    """The limit is the process's: held once around every fit, not by each thread (a thread ending its fit would
    give the limit back under another's, and the last would leave the process at one BLAS thread)."""
    from scipy import optimize
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads() -> set[int]:
        return {library["num_threads"] for library in threadpool_info() if library["user_api"] == "blas"}

    seen = []

    def minimize(*args, **kwargs):
        seen.append(blas_threads())
        return real_minimize(*args, **kwargs)

    real_minimize = optimize.minimize
    monkeypatch.setattr(optimize, "minimize", minimize)
    samples = [ex_gaussian_latencies(2000, seed) for seed in range(6)]
    with threadpool_limits(limits=2, user_api="blas"):
        assert blas_threads() == {2}
        assert all(fit_ex_gaussians(samples, threads=2))
        assert blas_threads() == {2}
    assert seen == [{1}] * len(samples)


def test_a_sharp_leading_edge_leaves_sigma_at_its_floor_not_near_zero():
    # About 100 latencies that start abruptly at 400 ms: the likelihood alone drives sigma toward 0.
    latencies = 400 + np.random.default_rng(3).exponential(300, 100)
    latencies[:5] = 400.0
    fit = fit_ex_gaussian(latencies)
    assert fit.sigma_ms >= MIN_SIGMA_MS
    # The floor leaves a latency just under the edge possible.
    assert np.log(fit.pdf(390.0)) > -20


def plain_negative_log_likelihood(theta: np.ndarray, standard: np.ndarray, work: np.ndarray) -> tuple[float,
                                                                                                     np.ndarray]:
    """The fit's likelihood and gradient written plainly, a new array at each step: what the fit computes in place
    must be these numbers to the bit."""
    from scipy import special

    mu, sigma, tau = theta[0], math.exp(theta[1]), math.exp(theta[2])
    offset = standard - mu
    z = offset / sigma - sigma / tau
    log_cdf = special.log_ndtr(z)
    log_pdf = -theta[2] - offset / tau + sigma * sigma / (2 * tau * tau) + log_cdf
    mills = np.exp(-0.5 * z * z - 0.5 * math.log(2 * math.pi) - log_cdf)
    gradient = np.array([
        np.mean(1 / tau - mills / sigma),
        np.mean(sigma * sigma / (tau * tau) - mills * (offset / sigma + sigma / tau)),
        np.mean(-1 + offset / tau - sigma * sigma / (tau * tau) + mills * sigma / tau),
    ])
    return -float(np.mean(log_pdf)), -gradient


def ex_gaussian_latencies(count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(1700, 380, count) + rng.exponential(860, count)


@pytest.mark.parametrize("latencies", [
    ex_gaussian_latencies(30, 1), ex_gaussian_latencies(2000, 2), ex_gaussian_latencies(50_000, 3),
    np.random.default_rng(4).gamma(0.5, 100, 1000) + 300,  # all tail
    np.r_[np.full(5, 400.0), 400 + np.random.default_rng(3).exponential(300, 100)],  # sigma at its floor
], ids=["30", "2000", "50000", "tail", "edge"])
def test_the_fit_in_place_is_the_fit_of_the_likelihood_written_plainly_to_the_bit(latencies, monkeypatch):
    """The report's summary shows every digit of the fits: computing them faster must not move one."""
    fast = fit_ex_gaussian(latencies)
    monkeypatch.setattr(stats, "_negative_log_likelihood", plain_negative_log_likelihood)
    assert fit_ex_gaussian(latencies) == fast


def test_the_likelihood_in_place_is_the_plain_one_to_the_bit_over_its_whole_search_box():
    standard = ex_gaussian_latencies(5000, 5)
    standard = (standard - standard.mean()) / standard.std()
    work = np.empty((7, standard.size))
    thetas = np.random.default_rng(6).uniform([-10, -6, -9], [10, 3, 3], (300, 3))  # the fit's bounds, and more
    with np.errstate(all="ignore"):  # the box's corners overflow, as the optimizer's probes can
        for theta in thetas:
            value, gradient = stats._negative_log_likelihood(theta, standard, work)
            plain_value, plain_gradient = plain_negative_log_likelihood(theta, standard, work)
            assert np.float64(value).tobytes() == np.float64(plain_value).tobytes()
            assert gradient.tobytes() == plain_gradient.tobytes()


def test_the_density_drawn_is_the_plain_formula_to_the_bit():
    model = ExGaussian(mu_ms=1700.0, sigma_ms=380.0, tau_ms=860.0)
    grid = np.linspace(0, 9000, 300)
    from scipy import special

    offset = grid - model.mu_ms
    z = offset / model.sigma_ms - model.sigma_ms / model.tau_ms
    plain = np.exp(-math.log(model.tau_ms) - offset / model.tau_ms
                   + model.sigma_ms * model.sigma_ms / (2 * model.tau_ms * model.tau_ms) + special.log_ndtr(z))
    assert model.pdf(grid).tobytes() == plain.tobytes()
