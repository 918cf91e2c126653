"""A player's progress (the `/me` page's figures) against the library's own summaries of the same log."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pandas as pd
import pytest
from helpers.cli import REPO
from helpers.drill_logs import DAY_ONE, answered, write_log

from diavolo_stats.analytics import summaries
from diavolo_stats.analytics.progress import MIN_BEST_TRIALS, WEEK, player_progress
from diavolo_stats.drill.log import load_logs
from diavolo_stats.errors import InputError

SAMPLE = REPO / "data" / "sample_drills.csv"


@pytest.fixture(scope="module")
def sample():
    return load_logs([SAMPLE])


@pytest.mark.parametrize("player", ["synthetic-novice", "synthetic-expert"])
def test_last_session_is_the_summary_of_the_players_last_session(sample, player):
    progress = player_progress(sample, player)
    curve = summaries.learning_curve(sample[sample["player"] == player], fit=False)
    last, before = curve.iloc[-1], curve.iloc[-2]
    shown = progress.last_session
    assert shown.trials == last["trials"] and shown.before_trials == before["trials"]
    assert shown.accuracy.value == pytest.approx(last["accuracy"])
    assert (shown.accuracy.low, shown.accuracy.high) == pytest.approx((last["accuracy_ci_low"],
                                                                       last["accuracy_ci_high"]))
    assert shown.median_ms.value == pytest.approx(last["median_latency_ms"])
    assert shown.median_ms.low <= shown.median_ms.value <= shown.median_ms.high
    assert shown.accuracy_change == pytest.approx(last["accuracy"] - before["accuracy"])
    assert shown.median_change_ms == pytest.approx(last["median_latency_ms"] - before["median_latency_ms"])


def test_a_players_progress_numbers_their_sessions_once(sample, monkeypatch):
    numbering = mock.Mock(wraps=summaries._session_numbers)
    monkeypatch.setattr(summaries, "_session_numbers", numbering)
    progress = player_progress(sample, "synthetic-novice")
    assert numbering.call_count == 1
    mine = sample[sample["player"] == "synthetic-novice"]
    pd.testing.assert_frame_equal(progress.sessions, summaries.learning_curve(mine, fit=False), check_exact=True)


def test_last_week_is_the_summary_of_the_seven_days_up_to_the_last_trial(sample):
    player = "synthetic-average"
    mine = sample[sample["player"] == player]
    week = mine[mine["timestamp"] > mine["timestamp"].max() - WEEK]
    expected = summaries.summarize(week, by=("player",), fit=False).iloc[0]
    shown = player_progress(sample, player).last_week
    assert shown.trials == expected["trials"]
    assert shown.accuracy.value == pytest.approx(expected["accuracy"])
    assert shown.median_ms.value == pytest.approx(expected["median_latency_ms"])


def test_personal_bests_are_the_best_sessions_of_the_learning_curve(sample):
    player = "synthetic-novice"
    curve = summaries.learning_curve(sample[sample["player"] == player], fit=False)
    counted = curve[curve["trials"] >= MIN_BEST_TRIALS]
    progress = player_progress(sample, player)
    assert progress.fastest.value == pytest.approx(counted["median_latency_ms"].min())
    assert progress.fastest.session_number == counted.loc[counted["median_latency_ms"].idxmin(), "session_number"]
    assert progress.most_accurate.value == pytest.approx(counted["accuracy"].max())
    assert list(progress.sessions["session_number"]) == list(curve["session_number"])


def test_weeks_ten_days_apart_compare_with_the_week_before(tmp_path):
    later = DAY_ONE + timedelta(days=10)
    log = write_log(tmp_path / "weeks.csv", [
        *[answered("ann", "s1", "highest-total", "red", 1500.0) for _ in range(12)],
        *[answered("ann", "s2", "highest-total", "red" if i < 9 else "black", 1000.0, start=later) for i in range(12)],
    ], numbered=True)
    week = player_progress(load_logs([log]), "ann").last_week
    assert (week.trials, week.before_trials) == (12, 12)
    assert week.median_change_ms == pytest.approx(-500.0)
    assert week.accuracy_change == pytest.approx(9 / 12 - 1)


def test_weak_spots_name_the_slow_command_and_the_wrong_one_with_their_figures(tmp_path):
    trials = [*[answered("ann", "s1", "highest-total", "red", 700.0 + i) for i in range(20)],
              *[answered("ann", "s1", "lowest-total", "black", 1900.0 + i) for i in range(20)],
              # highest-die's answer is grey (a tie): 6 of 20 right, in 800 ms
              *[answered("ann", "s1", "highest-die", "grey" if i < 6 else "black", 800.0) for i in range(20)]]
    spots = player_progress(load_logs([write_log(tmp_path / "ann.csv", trials, numbered=True)]), "ann").weak_spots
    # Ann's own median is 800 ms and her accuracy 46 of 60: slower than that, or less often right.
    assert [(spot.kind, spot.name, spot.problem) for spot in spots] == [
        ("commands", "lowest-total", "slowest"), ("commands", "highest-die", "most wrong")]
    slow, wrong = spots[0], spots[1]
    assert slow.estimate.value == pytest.approx(1909.5) and slow.trials == 20  # the median of 1900..1919 ms
    assert slow.estimate.low < 1909.5 < slow.estimate.high
    assert wrong.estimate.value == pytest.approx(6 / 20) and wrong.trials == 20
    assert wrong.estimate.low < 6 / 20 < wrong.estimate.high


def test_a_player_even_at_everything_has_no_weak_spot(tmp_path):
    trials = [answered("ann", "s1", command, answer, 900.0) for command, answer in
              [("highest-total", "red"), ("lowest-total", "black")] for _ in range(10)]
    assert player_progress(load_logs([write_log(tmp_path / "even.csv", trials, numbered=True)]), "ann").weak_spots == ()


def test_one_session_has_nothing_to_compare_and_unknown_players_are_named(tmp_path):
    log = write_log(tmp_path / "one.csv", [answered("ann", "s1", "highest-total", "red", 900.0)], numbered=True)
    progress = player_progress(load_logs([log]), "ann")
    assert progress.last_session.before_trials == 0
    assert progress.fastest is None  # one trial sets no record
    with pytest.raises(InputError, match=r"^players: no trials for 'bob'; players in the log: ann$"):
        player_progress(load_logs([log]), "bob")


def test_the_player_is_looked_for_once(sample, monkeypatch):
    check = mock.Mock(wraps=summaries.check_players)
    monkeypatch.setattr(summaries, "check_players", check)
    player_progress(sample, "synthetic-novice")
    assert check.call_count == 1  # before any work: a million rows' names are not read twice
