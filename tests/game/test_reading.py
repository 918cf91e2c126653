"""Reading models: roll features from a log's cells, a fit that recovers known effects, partial pooling."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from diavolo_stats.analytics.synthetic import write_reading_log
from diavolo_stats.core.rules import resolve
from diavolo_stats.core.table_model import nearest_distances, positions_from_mapping
from diavolo_stats.core.variant import ALL_COMMANDS, GREY, Command, Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import load_logs, read_rolls
from diavolo_stats.drill.roll_features import NEAR_TIE_RATIO, RollFeatures, logged_features
from diavolo_stats.errors import InputError
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, ROLL_EFFECTS, ReadingModel
from diavolo_stats.game.reading_fit import FIT_COLUMNS, fit_reading
from diavolo_stats.stats import proportion_estimate


def with_effects(model: ReadingModel, name: str, per_die: float, near_tie: float, near_tie_errors: float):
    """`model` renamed, with its own effect of a die and of a near tie on time and on the log-odds of being right."""
    time, accuracy = list(model.time), list(model.accuracy)
    time[COEFFICIENTS.index("per_extra_die")] = per_die
    for command in ALL_COMMANDS:
        time[COEFFICIENTS.index(f"near_tie:{command}")] = near_tie
        accuracy[COEFFICIENTS.index(f"near_tie:{command}")] = -near_tie_errors
    return replace(model, name=name, time=tuple(time), accuracy=tuple(accuracy))


AVERAGE = ReadingModel.from_player(PlayerModel.preset("average"))
KNOWN = (with_effects(AVERAGE, "steady", 0.03, 0.15, 0.6),
         with_effects(AVERAGE.scaled(0.6, 0.5), "quick", 0.07, 0.25, 0.9),
         with_effects(AVERAGE.scaled(1.5, 2.0), "slow", 0.05, 0.10, 0.4))


@pytest.fixture(scope="module")
def known_log(tmp_path_factory):
    """Three players with known, different effects, 3,600 answers each on 6 and 9 dice, no practice effect."""
    path = tmp_path_factory.mktemp("reading") / "known.csv"
    write_reading_log(path, KNOWN, sessions=12, trials=300, seed=11, variant_names=("standard", "kids"),
                      practice=False)
    return load_logs([path], columns=FIT_COLUMNS)


@pytest.fixture(scope="module")
def known_fit(known_log):
    return fit_reading(known_log)


def test_features_of_each_logged_roll_are_what_the_rules_say(known_log):
    rows = known_log.iloc[:1500]
    features = logged_features(read_rolls(rows))
    for index, row in enumerate(rows.itertuples()):
        variant = Variant(dice_per_color=row.dice_per_color)
        command, dice, positions = Command(row.command), json.loads(row.dice), json.loads(row.positions)
        resolution = resolve(variant, command, dice, positions)
        if command is Command.CLOSEST:
            landed = positions_from_mapping(variant.colors, variant.dice_per_color, positions)
            best, second = np.sort(nearest_distances(landed[:, :, None], 3, variant.dice_per_color)[:, 0])[:2]
            near = second <= best * NEAR_TIE_RATIO
        else:
            ordered = sorted(resolution.figures.values())
            best, second = (ordered[0], ordered[1]) if command is Command.LOWEST_TOTAL else (ordered[-1], ordered[-2])
            near = abs(best - second) == 1
        grey = resolution.answer == GREY
        assert features.grey[index] == grey
        assert features.near_tie[index] == (near and not grey), row
        assert features.dice[index] == 3 * row.dice_per_color
        assert ALL_COMMANDS[features.command[index]] is command


@pytest.mark.parametrize("part", ["time", "accuracy"])
def test_the_fit_recovers_every_known_roll_effect_within_its_interval(known_fit, part):
    for truth in KNOWN:
        fitted = known_fit.player("synthetic-" + truth.name)
        for coefficient in ROLL_EFFECTS:
            true_value = getattr(truth, part)[COEFFICIENTS.index(coefficient)]
            estimate = fitted.interval(part, coefficient, confidence=0.999)
            assert true_value in estimate, (truth.name, part, coefficient, true_value, estimate)


def test_intervals_are_narrow_where_the_answers_are_many(known_fit):
    # The effects the log informs are pinned down: ms per die to about a percent, a near tie to a few percent.
    fitted = known_fit.player("synthetic-steady")
    die = fitted.interval("time", "per_extra_die")
    assert die.high - die.low < 0.03
    near = fitted.interval("time", "near_tie:highest-total")
    assert near.high - near.low < 0.2


def test_a_player_with_few_answers_is_pulled_toward_the_club_one_with_many_is_not(tmp_path, known_log):
    # A fourth player, much slower than the club, with 40 answers: their fitted speed lies between the club's
    # and their own; the same player with 3,600 answers is fitted at their own speed.
    outlier = with_effects(AVERAGE.scaled(2.5, 1.0), "outlier", 0.05, 0.15, 0.6)
    few, many = tmp_path / "few.csv", tmp_path / "many.csv"
    write_reading_log(few, [outlier], sessions=1, trials=40, seed=3, practice=False)
    write_reading_log(many, [outlier], sessions=12, trials=300, seed=3, variant_names=("standard", "kids"),
                      practice=False)
    commands = slice(0, len(ALL_COMMANDS))
    truth = np.array(outlier.time[commands])
    for path, pulled in ((few, True), (many, False)):
        drills = load_logs([path], columns=FIT_COLUMNS)
        fit = fit_reading(pd.concat([known_log, drills], ignore_index=True))
        fitted = np.array(fit.player("synthetic-outlier").model.time[commands])
        club = np.array(fit.club.model.time[commands])
        share_of_the_way = float(np.mean((fitted - club) / (truth - club)))
        if pulled:
            assert 0.2 < share_of_the_way < 0.8
        else:
            assert share_of_the_way > 0.9
            reading = fit.player("synthetic-outlier")
            assert all(t in reading.interval("time", c, 0.999) for t, c in zip(truth, COEFFICIENTS[commands]))


def test_a_player_not_in_the_log_or_with_too_few_answers_is_refused_saying_what_is_needed(tmp_path, known_log):
    path = tmp_path / "short.csv"
    write_reading_log(path, [replace(AVERAGE, name="brief")], sessions=1, trials=12, seed=1)
    fit = fit_reading(pd.concat([known_log, load_logs([path], columns=FIT_COLUMNS)], ignore_index=True))
    with pytest.raises(InputError, match=r"'synthetic-brief' has 12 answers in the drill log; a fit needs at least 30"):
        fit.player("synthetic-brief")
    lone = tmp_path / "lone.csv"
    write_reading_log(lone, [replace(AVERAGE, name="lone")], sessions=1, trials=1, seed=2)
    fit = fit_reading(pd.concat([known_log, load_logs([lone], columns=FIT_COLUMNS)], ignore_index=True))
    with pytest.raises(InputError, match=r"'synthetic-lone' has 1 answer in the drill log; a fit needs at least 30"):
        fit.player("synthetic-lone")
    with pytest.raises(InputError, match="'nobody' is not a player of the drill log; its players: synthetic-steady"):
        fit.player("nobody")
    with pytest.raises(InputError, match="no player of the drill log has the 30 answers a fit needs .most: 12."):
        fit_reading(load_logs([path], columns=FIT_COLUMNS))


def test_one_fast_answer_moves_no_time_floor(known_log, known_fit):
    changed = known_log.copy()
    row = np.flatnonzero((changed["player"] == "synthetic-quick").to_numpy() & changed["correct"].to_numpy())[0]
    changed.iloc[row, changed.columns.get_loc("latency_ms")] = 105.0
    after = fit_reading(changed)
    for name in ("synthetic-steady", "synthetic-quick", "synthetic-slow"):
        assert after.player(name).model.shift_ms == pytest.approx(known_fit.player(name).model.shift_ms, abs=1.0)


def test_a_roll_with_more_dice_than_the_log_is_extrapolated_by_the_difference(known_fit):
    assert known_fit.dice_drilled == (6, 9)
    rolls = RollFeatures(command=np.zeros(3, dtype=np.int8), dice=np.array([6, 9, 48], dtype=np.int16),
                         near_tie=np.zeros(3, bool), grey=np.zeros(3, bool), command_first=np.zeros(3, bool))
    assert known_fit.extrapolated_dice(rolls).tolist() == [0, 0, 39]
    # The prediction itself follows the fitted slope: 39 dice more cost exp(39 x slope) on the time above the shift.
    model = known_fit.player("synthetic-quick").model
    above = model.mean_latency_ms(rolls) - model.shift_ms
    assert math.isclose(above[2] / above[1], math.exp(39 * model.time[COEFFICIENTS.index("per_extra_die")]))


def test_sampling_a_model_gives_its_mean_and_accuracy():
    rng = np.random.default_rng(5)
    rolls = RollFeatures(command=np.full(200_000, 2, dtype=np.int8), dice=np.full(200_000, 12, dtype=np.int16),
                         near_tie=np.ones(200_000, bool), grey=np.zeros(200_000, bool),
                         command_first=np.zeros(200_000, bool))
    correct, latency_ms = AVERAGE.sample(rolls, rng)
    mean, chance = AVERAGE.mean_latency_ms(rolls)[0], AVERAGE.chance_right(rolls)[0]
    standard_error = latency_ms.std() / math.sqrt(len(latency_ms))
    assert abs(latency_ms.mean() - mean) < 4 * standard_error
    assert abs(correct.mean() - chance) < 4 * math.sqrt(chance * (1 - chance) / len(correct))


def test_a_models_latency_quantile_is_the_share_of_its_sampled_answers_faster_than_it():
    # A claim under the 0.1 % quantile is flagged in a room: the quantile must be where the model puts 0.1 %.
    rng = np.random.default_rng(8)
    rolls = RollFeatures(command=np.full(1_000_000, 3, dtype=np.int8), dice=np.full(1_000_000, 9, dtype=np.int16),
                         near_tie=np.zeros(1_000_000, bool), grey=np.zeros(1_000_000, bool),
                         command_first=np.zeros(1_000_000, bool))
    for probability in (0.001, 0.5):
        quantile_ms = AVERAGE.latency_quantile_ms(rolls.take(np.arange(1)), probability)[0]
        _, latency_ms = AVERAGE.sample(rolls, rng)
        assert probability in proportion_estimate(int((latency_ms < quantile_ms).sum()), len(latency_ms), 0.999)
    floor = replace(AVERAGE, shift_ms=0.0, time=(0.0,) * len(COEFFICIENTS))  # most of its answers under 100 ms
    assert floor.latency_quantile_ms(rolls.take(np.arange(1)), 0.001)[0] == MIN_LATENCY_MS


def test_a_preset_reads_a_harder_roll_slower_and_worse():
    easy = RollFeatures(command=np.zeros(2, dtype=np.int8), dice=np.array([6, 24], dtype=np.int16),
                        near_tie=np.array([False, True]), grey=np.zeros(2, bool), command_first=np.zeros(2, bool))
    for level in ("novice", "average", "expert"):
        model = ReadingModel.from_player(PlayerModel.preset(level))
        slow_easy, slow_hard = model.mean_latency_ms(easy)
        right_easy, right_hard = model.chance_right(easy)
        assert slow_hard > slow_easy and right_hard < right_easy


def test_rows_of_a_games_own_commands_or_uneven_colors_are_left_out_of_the_fit_not_misread(tmp_path):
    from datetime import datetime, timedelta, timezone

    from helpers.cli import REPO

    from diavolo_stats.core.rules import roll
    from diavolo_stats.drill.log import DrillLog
    from diavolo_stats.drill.roll_features import readable_rolls
    from diavolo_stats.drill.trial import judged_trial

    path = tmp_path / "drills.csv"
    write_reading_log(path, KNOWN[:2], sessions=2, trials=100, seed=5, practice=False)
    log, rng, when = DrillLog(path), np.random.default_rng(0), datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
    # The sixes file has a command of its own; in the uneven file white rolls four dice, the others three.
    for number, name in enumerate(["sixes"] * 40 + ["uneven-colors"] * 40, start=1):
        variant = read_variant(REPO / "examples" / "variants" / f"{name}.toml")
        rolled = roll(variant, rng)
        log.append(judged_trial(variant, rolled.command, rolled.dice, rolled.positions, "grey", 700.0,
                                interface="terminal", player="synthetic-steady", session_id="own", trial=number,
                                timestamp=when + timedelta(seconds=number)))
    drills = load_logs([path], columns=FIT_COLUMNS)
    kept = readable_rolls(read_rolls(drills))
    own = drills["command"].astype(str).eq("most-sixes").to_numpy()
    uneven = drills["dice"].str.contains(r'"white": \[\d, \d, \d, \d\]').to_numpy()
    assert own.any() and uneven.any() and not kept[own | uneven].any()
    assert kept[~(own | uneven)].all()  # the box's rows, and the sixes file's built-in commands on 3 dice a color
    fitted, box_only = fit_reading(drills), fit_reading(drills.loc[kept])
    assert fitted.player("synthetic-steady").model == box_only.player("synthetic-steady").model


@pytest.mark.parametrize("case", ["one time for every answer", "every answer wrong", "every trial timed out"])
def test_a_degenerate_log_still_fits_to_defined_figures_everywhere(tmp_path, case):
    from helpers.drill_logs import answered, write_log

    from diavolo_stats.analytics.player_figures import reading_figures

    right = answered("ann", "s1", "highest-total", "red", 900.0).expected
    trials = {"one time for every answer": [answered("ann", "s1", "highest-total", right, 900.0)] * 40,
              "every answer wrong": [answered("ann", "s1", "highest-total", "grey", 900.0 + i) for i in range(40)],
              "every trial timed out": [answered("ann", "s1", "highest-total", "none", None)] * 40}[case]
    fit = fit_reading(load_logs([write_log(tmp_path / "log.csv", trials, numbered=True)], columns=FIT_COLUMNS))
    reading = fit.player("ann")
    model = reading.model
    assert np.all(np.isfinite([*model.time, *model.accuracy, model.spread, model.shift_ms]))
    assert np.all(np.isfinite(reading.time_covariance)) and np.all(np.isfinite(reading.accuracy_covariance))
    for figure in reading_figures("ann", reading):
        assert np.all(np.isfinite([figure.estimate.value, figure.estimate.low, figure.estimate.high])), figure


def test_a_fit_that_went_undefined_is_refused_in_one_line_not_returned(monkeypatch, known_log):
    from diavolo_stats.game import reading_fit

    fit_time = reading_fit._fit_time

    def undefined(*args, **kwargs):  # as if a log made the time fit's algebra break down
        pooled = fit_time(*args, **kwargs)
        return replace(pooled, means=np.full_like(pooled.means, np.nan))

    monkeypatch.setattr(reading_fit, "_fit_time", undefined)
    with pytest.raises(InputError, match=r"no player of the drill log can be fitted: 'synthetic-steady': their 3600 "
                                         r"answers fit no reading model \(figures that are not numbers") as error:
        fit_reading(known_log)
    assert error.value.field == "log"
