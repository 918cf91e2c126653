"""Drift-diffusion players: the joint likelihood of (right or wrong, latency), its sampler, its pooled fit."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from diavolo_stats.analytics.synthetic import write_reading_log
from diavolo_stats.core import workers
from diavolo_stats.core.variant import ALL_COMMANDS, Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.roll_features import RollFeatures
from diavolo_stats.errors import InputError
from diavolo_stats.game import diffusion_fit
from diavolo_stats.game.diffusion import (
    TIMEOUT_MS,
    DiffusionModel,
    distinct_rolls,
    mean_decision_s,
    spread_log_likelihood,
    spread_log_likelihood_hessian,
)
from diavolo_stats.game.diffusion_fit import (
    DIFFUSION_PARAMETERS,
    _Answers,
    _likelihood,
    fit_diffusion,
    parameters_of,
)
from diavolo_stats.game.engine import play_games
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, ReadingModel, design
from diavolo_stats.game.reading_fit import FIT_COLUMNS

AVERAGE = DiffusionModel.from_player(PlayerModel.preset("average"))


def plain_rolls(count: int, command: int = 0, dice: int = 9) -> RollFeatures:
    return RollFeatures(command=np.full(count, command, dtype=np.int8), dice=np.full(count, dice, dtype=np.int16),
                        near_tie=np.zeros(count, dtype=bool), grey=np.zeros(count, dtype=bool),
                        command_first=np.zeros(count, dtype=bool))


def joint_log_likelihood(drift, boundary, nondecision_s, lapse, correct, latency_s):
    """The model's log-likelihood with no spread of the non-decision time, and its first four derivatives."""
    values, gradient = spread_log_likelihood(drift, boundary, nondecision_s, 0.0, lapse, correct, latency_s)
    return values, gradient[:4]


def density_on_grid(drift: float, boundary: float, nondecision_s: float, correct: bool,
                    latency_s: np.ndarray) -> np.ndarray:
    values, _ = joint_log_likelihood(np.full(len(latency_s), drift), np.full(len(latency_s), boundary),
                                     nondecision_s, 0.0, np.full(len(latency_s), correct), latency_s)
    return np.exp(values)


@pytest.mark.parametrize(("drift", "boundary"), [(1.5, 1.2), (0.2, 2.5), (4.0, 0.6)])
def test_right_wrong_and_timeout_are_one_distribution(drift, boundary):
    latency_s = np.linspace(0.3, TIMEOUT_MS / 1000, 400_001)[1:]
    right = np.trapezoid(density_on_grid(drift, boundary, 0.3, True, latency_s), latency_s)
    wrong = np.trapezoid(density_on_grid(drift, boundary, 0.3, False, latency_s), latency_s)
    timeout = float(np.exp(joint_log_likelihood(np.array([drift]), np.array([boundary]), 0.3, 0.0,
                                                np.array([False]), np.array([np.nan]))[0][0]))
    assert right + wrong + timeout == pytest.approx(1.0, abs=1e-6)
    # Right answers take the share 1 / (1 + exp(-v a)) of the processes that end, errors the rest.
    assert right / (right + wrong) == pytest.approx(1 / (1 + math.exp(-drift * boundary)), abs=1e-6)


def test_the_gradient_is_the_likelihood_s_slope():
    rng = np.random.default_rng(3)
    rows = 40
    drift, boundary = rng.uniform(0.3, 3, rows), rng.uniform(0.4, 3, rows)
    correct = rng.random(rows) < 0.7
    latency_s = rng.uniform(0.15, 6, rows)
    latency_s[:6] = np.nan  # time-outs
    arguments = [drift, boundary, 0.25, 0.04]
    _, gradient = joint_log_likelihood(*arguments, correct, latency_s)
    step = 1e-6
    for index in range(3):
        up, down = list(arguments), list(arguments)
        up[index] = arguments[index] + step
        down[index] = arguments[index] - step
        slope = (joint_log_likelihood(*up, correct, latency_s)[0]
                 - joint_log_likelihood(*down, correct, latency_s)[0]) / (2 * step)
        np.testing.assert_allclose(gradient[index], slope, rtol=1e-4, atol=1e-6)
    logit = math.log(0.04 / 0.96)
    lapses = [1 / (1 + math.exp(-(logit + sign * step))) for sign in (1, -1)]
    slope = (joint_log_likelihood(drift, boundary, 0.25, lapses[0], correct, latency_s)[0]
             - joint_log_likelihood(drift, boundary, 0.25, lapses[1], correct, latency_s)[0]) / (2 * step)
    np.testing.assert_allclose(gradient[3], slope, rtol=1e-4, atol=1e-6)


def test_the_spread_s_gradient_and_hessian_are_its_likelihood_s_slopes():
    """The five-point mixture's gradient in the drift, boundary, mean non-decision time, lapse and spread, and
    its Hessian in them, against differences, with answers both sides of every point's non-decision time and
    time-outs."""
    rng = np.random.default_rng(4)
    rows = 60
    correct = rng.random(rows) < 0.7
    latency_s = rng.uniform(0.15, 6, rows)
    latency_s[:6] = np.nan  # time-outs
    latency_s[6:16] = rng.uniform(0.16, 0.34, 10)  # within the non-decision time's spread
    logit = math.log(0.04 / 0.96)
    point = [rng.uniform(0.3, 3, rows), rng.uniform(0.4, 3, rows), 0.25, logit, 0.1]

    def values(drift, boundary, nondecision_s, lapse_logit, spread_s):
        return spread_log_likelihood(drift, boundary, nondecision_s, spread_s, 1 / (1 + np.exp(-lapse_logit)),
                                     correct, latency_s)

    _, gradient = values(*point)
    _, same, hessian = spread_log_likelihood_hessian(point[0], point[1], point[2], point[4], 0.04, correct,
                                                     latency_s)
    np.testing.assert_allclose(same, gradient, rtol=1e-12)
    step = 1e-6
    for index in range(5):
        up, down = list(point), list(point)
        up[index], down[index] = point[index] + step, point[index] - step
        slope = (values(*up)[0] - values(*down)[0]) / (2 * step)
        np.testing.assert_allclose(gradient[index], slope, rtol=1e-4, atol=1e-6)
        bend = (values(*up)[1] - values(*down)[1]) / (2 * step)
        np.testing.assert_allclose(hessian[:, index], bend, rtol=1e-4, atol=1e-5)


def test_a_player_s_posterior_gradient_and_hessian_are_its_slopes_summed_answer_by_answer():
    """The fit's negative log posterior over answers to many kinds of roll (taken roll by roll): its gradient
    and Hessian are the slopes of its value and gradient, and each is the sum of the answers' own."""
    rng = np.random.default_rng(6)
    rows = 120
    features = RollFeatures(command=rng.integers(0, len(ALL_COMMANDS), rows).astype(np.int8),
                            dice=rng.choice([6, 9, 12], rows).astype(np.int16), near_tie=rng.random(rows) < 0.3,
                            grey=rng.random(rows) < 0.2, command_first=rng.random(rows) < 0.5)
    correct = rng.random(rows) < 0.7
    latency_s = rng.uniform(0.2, 6, rows)
    latency_s[:8] = np.nan  # time-outs
    answers = _Answers(design(features), features.command.astype(np.intp), correct, latency_s)
    theta = parameters_of(AVERAGE) + rng.normal(0, 0.05, len(DIFFUSION_PARAMETERS))
    mean, variance = np.zeros(len(theta)), np.full(len(theta), 4.0)
    value, gradient = answers.negative_log_posterior(theta, mean, variance)
    hessian = answers.hessian(theta, variance)
    prior = 0.5 * float((theta**2 / variance).sum())
    each = [_Answers(answers.rows[[row]], answers.command[[row]], correct[[row]], latency_s[[row]])
            for row in range(rows)]
    assert value == pytest.approx(prior + sum(one.negative_log_posterior(theta, mean, variance)[0] - prior
                                              for one in each), rel=1e-12)
    np.testing.assert_allclose(gradient, theta / variance + sum(
        one.negative_log_posterior(theta, mean, variance)[1] - theta / variance for one in each), rtol=1e-9,
        atol=1e-9)
    np.testing.assert_allclose(hessian, np.diag(1 / variance) + sum(
        one.hessian(theta, variance) - np.diag(1 / variance) for one in each), rtol=1e-9, atol=1e-9)
    step = 1e-6
    for index in range(len(theta)):
        up, down = theta.copy(), theta.copy()
        up[index] += step
        down[index] -= step
        (high, high_gradient), (low, low_gradient) = (answers.negative_log_posterior(point, mean, variance)
                                                      for point in (up, down))
        assert gradient[index] == pytest.approx((high - low) / (2 * step), rel=1e-4, abs=1e-4)
        np.testing.assert_allclose(hessian[:, index], (high_gradient - low_gradient) / (2 * step), rtol=1e-4,
                                   atol=1e-4)


def test_the_sampler_draws_the_likelihood_s_distribution():
    model = replace(AVERAGE, drift=(math.log(1.5),) + AVERAGE.drift[1:], boundary=(math.log(1.2),) * 6)
    draws = 200_000
    correct, latency_ms = model.sample(plain_rolls(draws), np.random.default_rng(5))
    chance = 1 / (1 + math.exp(-1.5 * 1.2))
    low, high = stats.binom.interval(0.999, draws, chance)
    assert low <= correct.sum() <= high
    # The share of answers below a latency, against the likelihood's distribution function there.
    latency_s = np.linspace(model.nondecision_ms / 1000, TIMEOUT_MS / 1000, 200_001)[1:]
    density = density_on_grid(1.5, 1.2, model.nondecision_ms / 1000, True, latency_s) \
        + density_on_grid(1.5, 1.2, model.nondecision_ms / 1000, False, latency_s)
    cumulative = np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2 * np.diff(latency_s))])
    for quantile in (0.05, 0.25, 0.5, 0.75, 0.95, 0.995):
        at_ms = 1000 * float(np.interp(quantile, cumulative, latency_s))
        low, high = stats.binom.interval(0.999, draws, quantile)
        assert low <= (latency_ms <= at_ms).sum() <= high, quantile


def test_a_harder_roll_is_slower_and_more_often_wrong():
    easy, hard = plain_rolls(1, dice=9), replace(plain_rolls(1, dice=48), near_tie=np.array([True]))
    assert AVERAGE.chance_right(hard)[0] < AVERAGE.chance_right(easy)[0]
    assert AVERAGE.mean_latency_ms(hard)[0] > AVERAGE.mean_latency_ms(easy)[0]


def test_the_preset_s_diffusion_answers_as_the_preset_on_a_plain_roll():
    player = PlayerModel.preset("average")
    for index, command in enumerate(ALL_COMMANDS):
        skill = player.skills[(command, False)]
        rolls = plain_rolls(1, command=index)
        assert AVERAGE.chance_right(rolls)[0] == pytest.approx(skill.accuracy, abs=1e-9)
        assert AVERAGE.mean_latency_ms(rolls)[0] == pytest.approx(skill.mean_ms, rel=1e-9)


def test_scaled_multiplies_the_decision_time_and_the_error_odds():
    rolls = plain_rolls(1, command=3)
    slower = AVERAGE.scaled(time_factor=1.5, error_factor=2.0)
    drift, boundary = AVERAGE.rates(rolls)
    new_drift, new_boundary = slower.rates(rolls)
    assert mean_decision_s(new_drift, new_boundary)[0] == pytest.approx(1.5 * mean_decision_s(drift, boundary)[0])
    odds = (1 - AVERAGE.chance_right(rolls)[0]) / AVERAGE.chance_right(rolls)[0]
    new_odds = (1 - slower.chance_right(rolls)[0]) / slower.chance_right(rolls)[0]
    assert new_odds == pytest.approx(2 * odds)


def test_distinct_rolls_are_found_without_losing_one():
    rng = np.random.default_rng(2)
    rolls = RollFeatures(command=rng.integers(0, 6, 500).astype(np.int8),
                         dice=rng.choice([6, 9, 12], 500).astype(np.int16), near_tie=rng.random(500) < 0.3,
                         grey=rng.random(500) < 0.2, command_first=rng.random(500) < 0.5)
    kind, distinct = distinct_rolls(rolls)
    back = distinct.take(kind)
    for name in ("command", "dice", "near_tie", "grey", "command_first"):
        np.testing.assert_array_equal(getattr(back, name), getattr(rolls, name))


def test_games_seat_diffusion_and_reading_players_together_and_repeat_by_seed():
    players = [AVERAGE, ReadingModel.from_player(PlayerModel.preset("expert"))]
    first = play_games(Variant(), players, 2000, seed=4)
    again = play_games(Variant(), players, 2000, seed=4)
    np.testing.assert_array_equal(first.win_share, again.win_share)
    # The expert reads faster and better than the average player in either model.
    assert first.win_share[:, 1].mean() > first.win_share[:, 0].mean()


@pytest.fixture(scope="module")
def small_log(tmp_path_factory):
    """Two diffusion players, 300 answers each on 6 and 9 dice, no practice."""
    path = tmp_path_factory.mktemp("diffusion") / "small.csv"
    models = [replace(AVERAGE, name="steady", lapse=0.02), replace(AVERAGE.scaled(0.7, 0.6), name="quick",
                                                                  nondecision_ms=250.0, lapse=0.01)]
    write_reading_log(path, models, sessions=2, trials=150, seed=9, variant_names=("standard", "kids"),
                      practice=False)
    return load_logs([path], columns=FIT_COLUMNS)


def test_every_fitted_figure_is_finite_with_an_interval(small_log):
    fit = fit_diffusion(small_log)
    assert set(fit.players) == {"synthetic-steady", "synthetic-quick"}
    for reading in fit.players.values():
        assert np.all(np.isfinite(reading.parameters)) and np.all(np.isfinite(reading.covariance))
        assert np.all(np.linalg.eigvalsh(reading.covariance) > 0)
        estimate = reading.interval("nondecision")
        assert estimate.low < estimate.value < estimate.high


def test_each_players_two_fits_and_the_clubs_run_on_one_blas_thread_and_the_limit_is_given_back(small_log,
                                                                                                 monkeypatch):
    """The fit's matrices are of a few dozen parameters: BLAS threads there would only contend for the cores (the
    club's EM took three times the CPU with them). `fit_diffusion` holds one limit around the whole fit."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads() -> set[int]:
        return {library["num_threads"] for library in threadpool_info() if library["user_api"] == "blas"}

    seen = []
    real_mode, real_club = _Answers.mode, diffusion_fit._club

    def mode(self, *args):
        seen.append(("mode", blas_threads()))
        return real_mode(self, *args)

    def club(*args):
        seen.append(("club", blas_threads()))
        return real_club(*args)

    monkeypatch.setattr(_Answers, "mode", mode)
    monkeypatch.setattr(diffusion_fit, "_club", club)
    with threadpool_limits(limits=2, user_api="blas"):  # two threads outside the fit, whatever the machine's default
        assert blas_threads() == {2}
        fit_diffusion(small_log)
        assert blas_threads() == {2}
    # two players, fitted about the prior's centre, then the club's EM, then each about the club's
    assert [step for step, _ in seen] == ["mode", "mode", "club", "mode", "mode"]
    assert all(threads == {1} for _, threads in seen)


def test_the_players_fits_share_the_cores_only_with_many_answers_and_are_the_same_to_the_bit(small_log, monkeypatch):
    """Players with many answers each are fitted side by side on the cores; with few (where threads would only
    wait for the GIL), or in a worker of `worker_pool` (the report's, beside its parent on the cores), one after
    the other: the same figures every way."""
    made = []
    real = diffusion_fit.ThreadPoolExecutor

    def recording(max_workers):
        made.append(max_workers)
        return real(max_workers=max_workers)

    monkeypatch.setattr(diffusion_fit, "ThreadPoolExecutor", recording)
    few = fit_diffusion(small_log)
    monkeypatch.setattr(diffusion_fit, "_THREADED_ANSWERS", 1)  # as if each player had many answers
    side_by_side = fit_diffusion(small_log)
    monkeypatch.setattr(workers, "_in_a_worker", True)
    alone = fit_diffusion(small_log)
    assert made == [1, 1, workers.CORES, workers.CORES, 1, 1]
    assert set(alone.players) == set(few.players) == set(side_by_side.players) == {"synthetic-steady",
                                                                                   "synthetic-quick"}
    for name, reading in side_by_side.players.items():
        for other in (alone, few):
            assert np.array_equal(other.players[name].parameters, reading.parameters)
            assert np.array_equal(other.players[name].covariance, reading.covariance)
    assert np.array_equal(alone.club.parameters, side_by_side.club.parameters)
    assert np.array_equal(few.club.parameters, side_by_side.club.parameters)


def test_one_fast_answer_does_not_move_the_non_decision_time(small_log):
    before = fit_diffusion(small_log).player("synthetic-steady").model.nondecision_ms
    changed = small_log.copy()
    row = np.flatnonzero((changed["player"] == "synthetic-steady").to_numpy() & changed["correct"].to_numpy())[0]
    changed.iloc[row, changed.columns.get_loc("latency_ms")] = 105.0
    after = fit_diffusion(changed).player("synthetic-steady").model.nondecision_ms
    assert abs(after - before) < 10.0


@pytest.mark.parametrize(("change", "reason"), [
    ({"correct": False, "timed_out": True, "latency_ms": np.nan, "answer": "none"}, "all 300 answers timed out"),
    ({"correct": False}, "none of 300 answers is right"),
    ({"latency_ms": 900.0}, "latencies are 900 ms"),
])
def test_a_player_who_cannot_be_fitted_is_refused_in_one_sentence(small_log, change, reason):
    changed = small_log.copy()
    mine = (changed["player"] == "synthetic-quick").to_numpy()
    for column, value in change.items():
        changed.loc[mine, column] = value
    fit = fit_diffusion(changed)
    assert "synthetic-steady" in fit.players
    with pytest.raises(InputError, match=reason) as error:
        fit.player("synthetic-quick")
    assert "\n" not in str(error.value)
    everyone = (changed["player"] != "").to_numpy()
    for column, value in change.items():
        changed.loc[everyone, column] = value
    with pytest.raises(InputError, match="no player of the drill log can be fitted"):
        fit_diffusion(changed)


def test_a_player_always_right_is_fitted(small_log):
    changed = small_log.copy()
    mine = (changed["player"] == "synthetic-quick").to_numpy() & ~changed["timed_out"].to_numpy(dtype=bool)
    changed.loc[mine, "correct"] = True
    reading = fit_diffusion(changed).player("synthetic-quick")
    assert np.all(np.isfinite(reading.covariance))
    assert reading.model.chance_right(plain_rolls(1))[0] > 0.95


def test_a_likelihood_that_does_not_bend_down_tells_the_club_nothing_that_way():
    rng = np.random.default_rng(5)
    count = len(DIFFUSION_PARAMETERS)
    wide = rng.uniform(0.5, 4.0, count)
    directions, _ = np.linalg.qr(rng.normal(size=(count, count)))
    curvature = rng.uniform(1.0, 100.0, count)
    curvature[:2] = -0.3, 0.0  # one way the likelihood bends up (rises toward a bound), one it does not move
    hessian = (directions * curvature) @ directions.T + np.diag(1 / wide)  # the first fit's, under the wide prior
    mode, center = rng.normal(size=count), rng.normal(size=count)
    precision, information = _likelihood(mode, hessian, center, wide)
    flat, bent = directions[:, :2], directions[:, 2:]
    assert np.abs(precision @ flat).max() < 1e-9 and np.abs(information @ flat).max() < 1e-9
    # Every other way, the Gaussian whose product with the wide prior has the first fit's mode and Hessian.
    np.testing.assert_allclose(bent.T @ precision @ bent, np.diag(curvature[2:]), atol=1e-9)
    np.testing.assert_allclose(bent.T @ information, bent.T @ (hessian @ mode - center / wide), atol=1e-9)


@pytest.mark.slow
def test_recovery_99_percent_intervals_hold_the_generating_parameters(tmp_path):
    """Six diffusion players with their own drifts, caution and its roll effects, non-decision times with their
    effects and spread, and lapses, 1,800 answers each: the fitted 99 % intervals of their 234 parameters miss
    the truth no more often than chance allows."""
    rng = np.random.default_rng(5)
    models = []
    for index in range(6):
        drift = np.array(AVERAGE.drift)
        drift[:6] += rng.normal(0, 0.3, 6)
        drift[6] += rng.normal(0, 0.01)
        drift[7:13] += rng.normal(0, 0.15, 6)
        drift[13:] += rng.normal(0, 0.1, 2)
        boundary_effects, nondecision_effects = np.zeros(len(COEFFICIENTS)), np.zeros(len(COEFFICIENTS))
        boundary_effects[6] = rng.normal(0, 0.01)
        boundary_effects[7:] = rng.normal(0, 0.1, len(COEFFICIENTS) - 7)
        nondecision_effects[1:6] = rng.normal(0, 0.1, 5)
        nondecision_effects[6] = rng.normal(0, 0.01)
        models.append(replace(AVERAGE, name=f"p{index}", drift=tuple(drift),
                              boundary=tuple(np.array(AVERAGE.boundary) + rng.normal(0, 0.2, 6)),
                              boundary_effects=tuple(boundary_effects), nondecision_effects=tuple(nondecision_effects),
                              nondecision_ms=float(rng.uniform(200, 400)), nondecision_spread_ms=float(rng.uniform(
                                  40, 200)), lapse=float(rng.uniform(0.005, 0.04))))
    path = tmp_path / "known.csv"
    write_reading_log(path, models, sessions=6, trials=300, seed=3, variant_names=("standard", "kids"),
                      practice=False)
    fit = fit_diffusion(load_logs([path], columns=FIT_COLUMNS))
    misses = 0
    for model in models:
        reading = fit.player(f"synthetic-{model.name}")
        truth = parameters_of(model)
        misses += sum(truth[index] not in reading.interval(name, 0.99)
                      for index, name in enumerate(DIFFUSION_PARAMETERS))
    tried = len(models) * len(DIFFUSION_PARAMETERS)
    assert misses <= stats.binom.ppf(0.999, tried, 0.01)


def test_each_newton_steps_hessian_reuses_the_gradients_work_at_its_point_and_is_the_same_to_the_bit(small_log,
                                                                                                     monkeypatch):
    """A Newton step's Hessian is at the point whose gradient the line search took last: made from what that
    gradient worked out, the likelihood's first derivatives are not worked out twice, and the fit is the one a
    Hessian worked out afresh gives."""
    from diavolo_stats.game import diffusion

    reused = fit_diffusion(small_log)
    evaluations = {"likelihood": 0, "gradient": 0}
    real_standard, real_gradients = diffusion._log_standard, _Answers._row_gradients

    def standard(u):
        evaluations["likelihood"] += 1
        return real_standard(u)

    def gradients(self, theta):
        evaluations["gradient"] += 1
        return real_gradients(self, theta)

    monkeypatch.setattr(diffusion, "_log_standard", standard)
    monkeypatch.setattr(_Answers, "_row_gradients", gradients)
    fit_diffusion(small_log)
    assert evaluations["likelihood"] == evaluations["gradient"] > 0

    def forgetting(self, theta):  # every Hessian worked out afresh
        evaluations["gradient"] += 1
        found = real_gradients(self, theta)
        self.last.clear()
        return found

    monkeypatch.setattr(diffusion, "_log_standard", standard)
    monkeypatch.setattr(_Answers, "_row_gradients", forgetting)
    evaluations.update(likelihood=0, gradient=0)
    afresh = fit_diffusion(small_log)
    assert evaluations["likelihood"] > evaluations["gradient"]  # one more for each Newton step's Hessian
    for name, player in reused.players.items():
        assert np.array_equal(player.parameters, afresh.players[name].parameters)
        assert np.array_equal(player.covariance, afresh.players[name].covariance)
    assert np.array_equal(reused.club.parameters, afresh.club.parameters)
