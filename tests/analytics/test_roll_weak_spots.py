"""Weak spots by roll type, from the fitted model: what they name, in words, on how many answers, and when not."""

from __future__ import annotations

import pickle
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from helpers.cli import REPO, run_diavolo_process
from helpers.drill_logs import modelled_rows, write_log

from diavolo_stats.analytics import roll_weak_spots as spots_module
from diavolo_stats.analytics import wording
from diavolo_stats.analytics.player_figures import figure_draws, reading_figures
from diavolo_stats.analytics.roll_weak_spots import (
    COLUMNS,
    MIN_FEATURE_ANSWERS,
    recent_answers,
    roll_weak_spots,
    weak_spots_to_fit,
)
from diavolo_stats.analytics.synthetic import write_reading_log
from diavolo_stats.core.variant import ALL_COMMANDS
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.roll_features import RollFeatures
from diavolo_stats.game.diffusion_fit import DIFFUSION_PRIOR_MEAN_SPREAD, DIFFUSION_PRIOR_SPREAD, fit_diffusion
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, ReadingModel
from diavolo_stats.game.reading_fit import FIT_COLUMNS, fit_reading
from diavolo_stats.stats import MIN_FIT_ANSWERS

AVERAGE = ReadingModel.from_player(PlayerModel.preset("average"))


def with_effects(name: str, effects: dict[str, tuple[float, float]]) -> ReadingModel:
    """The average player with these roll effects (coefficient: (on the time, on the log-odds of a right
    answer)) and every other roll effect 0."""
    time, accuracy = np.array(AVERAGE.time), np.array(AVERAGE.accuracy)
    time[len(ALL_COMMANDS):] = 0.0
    accuracy[len(ALL_COMMANDS):] = 0.0
    for coefficient, (on_time, on_accuracy) in effects.items():
        time[COEFFICIENTS.index(coefficient)] = on_time
        accuracy[COEFFICIENTS.index(coefficient)] = on_accuracy
    return replace(AVERAGE, name=name, time=tuple(time.tolist()), accuracy=tuple(accuracy.tolist()))


# Tangled: near ties on highest-total take 1.8 times the reading, and grey rolls go wrong far more often.
TANGLED = with_effects("tangled", {"near_tie:highest-total": (np.log(1.8), 0.0), "grey": (0.0, -2.0)})
STEADY = with_effects("steady", {})


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tmp_path_factory.mktemp("spots") / "drills.csv"
    write_reading_log(path, [TANGLED, STEADY], sessions=6, trials=300, seed=4, variant_names=("standard", "kids"),
                      practice=False)
    return path


@pytest.fixture(scope="module")
def drills(log):
    return load_logs([log])


def true_costs(model: ReadingModel) -> tuple[float, float, float]:
    """The true ms cost of a near tie on highest-total on the box, the accuracy on grey and on the others (over
    the commands), as `diavolo players` defines its figures."""
    count = len(ALL_COMMANDS)

    def rolls(near: bool = False, grey: bool = False) -> RollFeatures:
        return RollFeatures(command=np.arange(count, dtype=np.int8), dice=np.full(count, 9, dtype=np.int16),
                            near_tie=np.full(count, near), grey=np.full(count, grey),
                            command_first=np.zeros(count, bool))

    index = ALL_COMMANDS.index("highest-total")
    near_ms = model.mean_latency_ms(rolls(near=True))[index] - model.mean_latency_ms(rolls())[index]
    return float(near_ms), float(model.chance_right(rolls(grey=True)).mean()), float(model.chance_right(rolls()).mean())


def test_a_costly_near_tie_and_a_weak_grey_are_named_in_words_with_intervals_holding_the_truth(drills):
    spots = roll_weak_spots(drills, ["synthetic-tangled"], model="reading")["synthetic-tangled"]
    assert spots.note == "" and spots.answers == 1800
    by_figure = {cost.figure: cost for cost in spots.costs}
    near_ms, grey_right, otherwise = true_costs(TANGLED)
    near = by_figure["near tie highest-total"]
    assert spots.costs[0] is near  # the costliest in time comes first
    assert near_ms in near.estimate and near.answers >= MIN_FEATURE_ANSWERS
    assert near.sentence == wording.reading_cost("near ties on highest total", near.estimate, near.answers)
    assert near.sentence.startswith(f"near ties on highest total cost you {near.estimate.value:,.0f} ms (")
    grey = by_figure["accuracy on grey"]
    assert grey_right in grey.estimate
    assert grey.sentence.startswith(f"you answer grey right {wording.percent(grey.estimate.value)} of the time")
    assert otherwise > grey.estimate.high and " otherwise, " in grey.sentence
    assert grey.sentence.endswith(f"from {grey.answers} of your answers")
    # The figures are those `diavolo players` prints for the same fit.
    fit = fit_reading(recent_answers(drills))
    printed = {f.figure: f.estimate for f in reading_figures("t", fit.player("synthetic-tangled"))}
    assert all(printed[cost.figure] == cost.estimate for cost in spots.costs)


def test_a_player_no_feature_costs_gets_no_weak_spot_and_a_sentence_saying_why(drills):
    spots = roll_weak_spots(drills, ["synthetic-steady"], model="reading")["synthetic-steady"]
    assert spots.costs == ()
    assert spots.note.startswith("no feature of a roll costs you time or accuracy, as far as your 1800 most recent")


def test_too_few_answers_say_how_many_are_needed_and_an_unknown_player_is_named(tmp_path, drills):
    short = tmp_path / "short.csv"
    write_reading_log(short, [replace(AVERAGE, name="brief")], sessions=1, trials=12, seed=1)
    both = pd.concat([drills, load_logs([short])], ignore_index=True)
    spots = roll_weak_spots(both, ["synthetic-brief", "nobody"])
    assert spots["synthetic-brief"].costs == () and spots["synthetic-brief"].answers == 0
    assert spots["synthetic-brief"].note == ("no weak spot by roll type: 'synthetic-brief' has 12 answers in the "
                                             f"drill log; a fit needs at least {MIN_FIT_ANSWERS}")
    assert "'nobody' is not a player of the drill log" in spots["nobody"].note
    alone = roll_weak_spots(load_logs([short]), ["synthetic-brief"])["synthetic-brief"]
    assert alone.note.endswith(f"has the {MIN_FIT_ANSWERS} answers a fit needs (most: 12)")


def test_the_fit_reads_each_players_most_recent_answers_only(drills, monkeypatch):
    monkeypatch.setattr(spots_module, "RECENT_ANSWERS", 100)
    recent = recent_answers(drills)
    for player, rows in drills.groupby("player", observed=True):
        kept = recent[recent["player"] == player]
        assert len(kept) == 100
        assert kept["timestamp"].min() >= rows["timestamp"].sort_values().iloc[-100]
    assert roll_weak_spots(drills, ["synthetic-tangled"])["synthetic-tangled"].answers == 100


def test_the_recent_answers_are_the_frames_own_rows_as_iloc_takes_them_from_a_frame_of_several_chunks(drills,
                                                                                                        monkeypatch):
    # A large log's text columns come in many Arrow chunks: the rows kept are the same, with the same types and
    # index labels, in the log's order, however the columns are chunked.
    from diavolo_stats.drill.performance import anticipated

    monkeypatch.setattr(spots_module, "RECENT_ANSWERS", 100)
    thirds = len(drills) // 3
    chunked = pd.concat([drills.iloc[:thirds], drills.iloc[thirds:2 * thirds], drills.iloc[2 * thirds:]])
    assert chunked["variant"].array._pa_array.num_chunks >= 3
    answered = chunked.assign(position=np.arange(len(chunked)))[~anticipated(chunked)]
    latest = answered.sort_values("timestamp", kind="stable").groupby("player", observed=True).tail(100)
    expected = chunked.iloc[np.sort(latest["position"].to_numpy())]
    pd.testing.assert_frame_equal(recent_answers(chunked), expected)
    pd.testing.assert_frame_equal(recent_answers(chunked.iloc[:0]), chunked.iloc[:0])


def test_the_recent_answers_of_rows_out_of_time_order_are_each_players_latest_by_time_then_the_logs_order(
        drills, monkeypatch):
    # A log is written as its answers come, and the fast path relies on that; rows out of time order (logs joined,
    # a clock set back) and answers of the same instant must give what a sort by time gives.
    from diavolo_stats.drill.performance import anticipated

    monkeypatch.setattr(spots_module, "RECENT_ANSWERS", 100)
    rng = np.random.default_rng(0)
    stamps = drills["timestamp"].to_numpy()
    for shuffled in (drills.iloc[rng.permutation(len(drills))],  # every row out of its place
                     drills.iloc[::-1],  # newest first
                     drills.assign(timestamp=stamps[rng.integers(0, 3, len(drills)) * (len(drills) // 3)])):  # ties
        shuffled = shuffled.reset_index(drop=True)
        answered = shuffled.assign(position=np.arange(len(shuffled)))[~anticipated(shuffled)]
        latest = answered.sort_values("timestamp", kind="stable").groupby("player", observed=True).tail(100)
        pd.testing.assert_frame_equal(recent_answers(shuffled), shuffled.iloc[np.sort(latest["position"].to_numpy())])


def test_a_player_with_fewer_answers_than_are_kept_keeps_all_of_them_and_takes_none_of_anothers(drills, monkeypatch):
    # Each player's answers are kept from their own: all of a short player's, first or last in the log.
    from diavolo_stats.drill.performance import anticipated

    monkeypatch.setattr(spots_module, "RECENT_ANSWERS", 100)
    names = sorted(drills["player"].astype(str).unique())
    short = drills[drills["player"] == names[0]].iloc[-40:]
    for frame in (pd.concat([short, drills[drills["player"] != names[0]]]),  # the short player first
                  pd.concat([drills[drills["player"] != names[0]], short])):  # and last
        frame = frame.reset_index(drop=True)
        answered = frame.assign(position=np.arange(len(frame)))[~anticipated(frame)]
        latest = answered.sort_values("timestamp", kind="stable").groupby("player", observed=True).tail(100)
        recent = recent_answers(frame)
        pd.testing.assert_frame_equal(recent, frame.iloc[np.sort(latest["position"].to_numpy())])
        assert (recent["player"] == names[0]).sum() == (~anticipated(short)).sum()


def test_a_frame_without_the_rolls_cells_reads_them_for_the_recent_answers_only_and_names_the_same(log, drills,
                                                                                                  monkeypatch):
    # The report and the progress page read the log without its dice and positions: the fit reads those of the
    # answers it needs from the log by their lines (here counting line ends a few rows at a time), and finds what a
    # full read finds.
    from diavolo_stats.drill.log import line_marks

    monkeypatch.setattr(line_marks, "SCAN_BYTES", 4096)
    monkeypatch.setattr(spots_module, "RECENT_ANSWERS", 500)
    light = load_logs([log], columns=COLUMNS, lines=True)
    assert "positions" not in light.columns
    players = ["synthetic-tangled", "synthetic-steady"]
    assert roll_weak_spots(light, players) == roll_weak_spots(drills, players)
    assert roll_weak_spots(light, players)["synthetic-tangled"].answers == 500


@pytest.fixture(scope="module")
def variant_game_log(tmp_path_factory):
    """A player of a variant game (`sixes.toml`: most sixes on the faces of largest spread and highest die, so
    none of her answers is on those two) beside an expert of the box's game."""
    sixes = read_variant(REPO / "examples" / "variants" / "sixes.toml")
    rows = (modelled_rows("ann", PlayerModel.preset("average"), 600, 3, variant=sixes)
            + modelled_rows("bo", PlayerModel.preset("expert"), 200, 4))
    return write_log(tmp_path_factory.mktemp("variant") / "drills.csv", rows)


def test_a_player_of_a_variant_game_has_every_figure_drawn_finite(variant_game_log):
    fit = fit_diffusion(load_logs([variant_game_log], columns=FIT_COLUMNS))
    ann = fit.player("ann")
    uninformed = [index for index, count in enumerate(ann.answers_per_coefficient) if count == 0]
    assert {"command:largest-spread", "command:highest-die"} <= {COEFFICIENTS[index] for index in uninformed}
    # What no answer of hers informs is the club's, no wider than the club's own prior allows.
    widest = np.sqrt(DIFFUSION_PRIOR_SPREAD**2 + DIFFUSION_PRIOR_MEAN_SPREAD**2)
    assert np.all(np.sqrt(np.diag(ann.covariance)) <= widest)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow on the way to a finite figure either
        for name in fit.players:
            for label, figure in figure_draws(fit.player(name)).items():
                assert np.isfinite(figure.values).all(), (name, label)


def test_the_report_of_a_variant_game_names_her_grey_rolls_without_a_warning(variant_game_log, tmp_path):
    # Its own process: the weak spots are fitted beside the read, so their warnings would miss a capture here.
    result = run_diavolo_process("report", "--log", str(variant_game_log), "--out", str(tmp_path / "report"))
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr
    # The grey figure is over every command, hers and the two she never saw: finite, so it can be named. Her
    # grey rolls are ties to her model, which reads a tie slower.
    ann = result.stdout.split("weak spots by roll type")[1].split("  bo:")[0]
    assert "grey rolls cost you" in ann


def test_the_weak_spots_to_fit_read_their_rows_when_made_and_pickle_for_a_worker(tmp_path):
    # The report makes the call where its read left the log's line marks and sends it to a worker that has none:
    # the rows are read when the call is made, so the worker (here, a log rewritten since) reads no line.
    path = tmp_path / "drills.csv"
    write_reading_log(path, [TANGLED], sessions=2, trials=150, seed=2, practice=False)
    read = load_logs([path], columns=COLUMNS, lines=True)
    expected = roll_weak_spots(read, ["synthetic-tangled"])
    to_fit = weak_spots_to_fit(read, ["synthetic-tangled"])
    write_reading_log(path, [STEADY], sessions=2, trials=150, seed=3, practice=False, replace=True)
    assert "no longer holds the trial read there" in roll_weak_spots(read, ["synthetic-tangled"])[
        "synthetic-tangled"].note  # read now, the rows are gone
    assert to_fit() == expected and pickle.loads(pickle.dumps(to_fit))() == expected
    assert expected["synthetic-tangled"].costs


def test_weak_spots_to_fit_of_a_log_replaced_since_its_read_say_so_for_each_player(tmp_path):
    path = tmp_path / "drills.csv"
    write_reading_log(path, [TANGLED], sessions=1, trials=100, seed=2, practice=False)
    read = load_logs([path], columns=COLUMNS, lines=True)
    path.write_text(path.read_text(encoding="utf-8").splitlines(keepends=True)[0], encoding="utf-8")
    spots = pickle.loads(pickle.dumps(weak_spots_to_fit(read, ["synthetic-tangled", "nobody"])))()
    assert [(spot.costs, spot.answers) for spot in spots.values()] == [((), 0), ((), 0)]
    assert all(spot.note.startswith("no weak spot by roll type: ") and "it was replaced or cut" in spot.note
               for spot in spots.values())
