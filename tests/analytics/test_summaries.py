"""Drill summaries checked against logs written in the test, with answers and latencies known by hand."""

from __future__ import annotations

import math
from datetime import timedelta
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from helpers.drill_logs import DAY_ONE, answered, write_log
from scipy import stats as scipy_stats

from diavolo_stats import stats
from diavolo_stats.analytics import summaries
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import SkippedRowsWarning, TruncatedLogWarning, load_logs
from diavolo_stats.drill.performance import grouped_performance
from diavolo_stats.errors import InputError


def known_trials() -> list[dict]:
    day_two = DAY_ONE + timedelta(days=1)
    return [
        # ann, highest-total (answer red): 3 right of 5; a wrong color and a timeout count as wrong.
        answered("ann", "s1", "highest-total", "red", 1000.0),
        answered("ann", "s1", "highest-total", "red", 1200.0),
        answered("ann", "s1", "highest-total", "black", 800.0),
        answered("ann", "s1", "highest-total", "none", None),
        answered("ann", "s1", "highest-total", "red", 1400.0),
        # ann, highest-die (a tie, answer grey): 2 right of 3; a too-early key is no answer, counted apart.
        answered("ann", "s1", "highest-die", "grey", 2000.0),
        answered("ann", "s1", "highest-die", "white", 1500.0),
        answered("ann", "s1", "highest-die", "grey", 3000.0),
        answered("ann", "s1", "highest-die", "none", None, too_early=True),
        # ann's second session, a day later, under an id that sorts first: order is by time.
        answered("ann", "a-later", "highest-total", "red", 900.0, start=day_two),
        answered("ann", "a-later", "highest-total", "red", 700.0, start=day_two),
        # bob: one right answer.
        answered("bob", "s3", "highest-total", "red", 1500.0),
    ]


@pytest.fixture
def drills(drill_log) -> pd.DataFrame:
    return load_logs([drill_log(known_trials(), numbered=True)])


def test_summary_by_player_and_command_matches_hand_counts(drills):
    summary = summaries.summarize(drills).set_index(["player", "command"])
    ann_total = summary.loc[("ann", "highest-total")]
    assert ann_total["trials"] == 7 and ann_total["correct"] == 5
    assert ann_total["accuracy"] == pytest.approx(5 / 7)
    assert ann_total["timeouts"] == 1
    # Correct latencies 1000, 1200, 1400, 900, 700: median 1000, mean 1040, quartiles 900 and 1200.
    assert ann_total["median_latency_ms"] == pytest.approx(1000.0)
    assert ann_total["mean_latency_ms"] == pytest.approx(1040.0)
    assert ann_total["latency_iqr_ms"] == pytest.approx(300.0)
    ann_die = summary.loc[("ann", "highest-die")]
    assert (ann_die["trials"], ann_die["correct"], ann_die["anticipations"]) == (3, 2, 1)
    assert ann_die["accuracy"] == pytest.approx(2 / 3)
    assert ann_die["median_latency_ms"] == pytest.approx(2500.0)  # the wrong 1500 ms answer is left out
    assert summary.loc[("bob", "highest-total"), "accuracy"] == 1.0


def test_each_group_has_the_figures_of_its_own_rows_and_a_row_with_no_key_is_in_none(drills):
    """The figures are counted in one pass over the log: each group must still get exactly what its rows alone
    give, and a row whose grouping value is missing belongs to no group, as in pandas' groupby."""
    drills = drills.assign(hand=pd.array(["left", None, "right"] * 4, dtype="str"))
    summary = summaries.summarize(drills, by=("player", "hand"))
    assert summary[["player", "hand"]].values.tolist() == [["ann", "left"], ["ann", "right"], ["bob", "right"]]
    for row in summary.itertuples():
        rows = drills[(drills["player"] == row.player) & (drills["hand"] == row.hand)]
        alone = summaries.summarize(rows.drop(columns="hand"), by=("player",)).iloc[0]
        for figure in summaries.SUMMARY_FIGURES:
            assert getattr(row, figure) == alone[figure] or (math.isnan(getattr(row, figure))
                                                             and math.isnan(alone[figure])), figure
        assert row.trials + row.anticipations == len(rows)
    assert summary["trials"].sum() + summary["anticipations"].sum() == drills["hand"].notna().sum()


def test_groups_are_pandas_groupbys_in_its_order_from_each_columns_codes():
    """`grouped_rows` numbers the groups itself, from each column's codes: the groups, their order (a category's
    own, else sorted values) and which rows are in none must be what pandas' groupby gives."""
    rng = np.random.default_rng(7)
    rows = 5000
    frame = pd.DataFrame({
        "player": pd.Categorical(rng.choice(["zoe", "ann", "mia"], rows), categories=["zoe", "mia", "ann", "unseen"]),
        "hand": pd.array(rng.choice(["left", "right", None], rows), dtype="str"),
        "session_number": rng.integers(1, 40, rows),
        "trial": rng.integers(0, 10 * rows, rows),  # with two others, more combinations than DENSE_GROUPS
    })
    for by in (["player"], ["hand"], ["player", "hand"], ["hand", "session_number", "player"],
               ["trial", "session_number", "hand"]):
        keys, groups = summaries.grouped_rows(frame, by)
        expected = frame.groupby(by, observed=True, sort=True)
        assert keys.astype(str).values.tolist() == expected.size().index.to_frame().astype(str).values.tolist()
        assert groups.tolist() == expected.ngroup().fillna(-1).astype(int).tolist()
    empty_keys, empty_groups = summaries.grouped_rows(frame.iloc[:0], ["player", "hand"])
    assert empty_keys.empty and list(empty_keys.columns) == ["player", "hand"] and empty_groups.size == 0


@pytest.mark.parametrize("unit, zone", [("ns", "UTC"), ("us", "UTC"), ("ns", "Europe/Paris"), ("ms", None)])
def test_each_groups_earliest_time_is_pandas_groupby_min(unit, zone):
    """`_earliest` takes the least of each group's times itself: what pandas' groupby min gives, in the column's
    unit and zone, missing times passed over, and NaT for a group whose times are all missing."""
    rng = np.random.default_rng(3)
    rows, count = 2000, 12
    times = pd.Series(pd.to_datetime(rng.integers(0, 10**17, rows))).dt.as_unit(unit)
    if zone:
        times = times.dt.tz_localize("UTC").dt.tz_convert(zone)
    times[rng.random(rows) < 0.1] = pd.NaT
    groups = rng.integers(-1, count, rows)
    groups[groups == 5] = -1  # a group with no rows
    times[groups == 7] = pd.NaT  # a group with no time
    expected = times.groupby(groups).min().reindex(range(count)).reset_index(drop=True)
    pd.testing.assert_series_equal(summaries._earliest(times, groups, count), expected, check_index_type=False)


def test_each_groups_counts_are_its_rows_counted_one_by_one():
    """`grouped_performance` counts every group's rows of each kind in one pass: a row's trial, correct answer,
    timeout and anticipation are counted as `performance` defines them, whatever its flags together."""
    rng = np.random.default_rng(11)
    rows, count = 3000, 7
    drills = pd.DataFrame({"correct": rng.random(rows) < 0.6, "timed_out": rng.random(rows) < 0.2,
                           "too_early": rng.random(rows) < 0.1,
                           "latency_ms": np.where(rng.random(rows) < 0.1, np.nan, rng.uniform(0, 3000, rows))})
    groups = rng.integers(-1, count, rows)
    found = grouped_performance(drills, groups, count)
    for group, (figures, _) in enumerate(found):
        rows_of = drills[groups == group]
        early = rows_of["too_early"] | (rows_of["latency_ms"] < MIN_LATENCY_MS)
        answers = rows_of[~early]
        assert (figures["trials"], figures["correct"], figures["timeouts"], figures["anticipations"]) == (
            len(answers), int(answers["correct"].sum()), int(answers["timed_out"].sum()), int(early.sum()))
    assert sum(figures["trials"] + figures["anticipations"] for figures, _ in found) == (groups >= 0).sum()


@pytest.mark.parametrize("count", [3, 300, 70_000])  # group numbers of 8, 16 and 32 bits: sorted differently
def test_each_groups_correct_latencies_are_its_rows_in_row_order(count):
    rng = np.random.default_rng(count)
    rows = 50_000
    drills = pd.DataFrame({"correct": rng.random(rows) < 0.7, "latency_ms": rng.uniform(300, 3000, rows),
                           "too_early": np.zeros(rows, dtype=bool), "timed_out": np.zeros(rows, dtype=bool)})
    groups = rng.integers(-1, count, rows)
    expected = [[] for _ in range(count)]  # each group's correct latencies, in row order
    for group, correct, latency in zip(groups.tolist(), drills["correct"], drills["latency_ms"]):
        if group >= 0 and correct:
            expected[group].append(latency)
    found = grouped_performance(drills, groups, count)
    assert [latencies.tolist() for _, latencies in found] == expected
    assert [figures["correct"] for figures, _ in found] == [len(mine) for mine in expected]


def test_each_session_of_the_learning_curve_starts_at_its_first_trial(drills):
    # A row with no `hand` is in no group: it must not shift the other groups' starts.
    drills = drills.assign(hand=pd.array([None, "left", "right"] * 4, dtype="str"))
    curve = summaries.learning_curve(drills, by=("player", "hand"))
    numbered = summaries.with_session_numbers(drills)
    assert len(curve) == 4  # ann: left and right in her first session, left in her second; bob: right
    for row in curve.itertuples():
        rows = numbered[(numbered["player"] == row.player) & (numbered["hand"] == row.hand)
                        & (numbered["session_number"] == row.session_number)]
        assert row.session_start == rows["timestamp"].min() and row.trials + row.anticipations == len(rows)
    assert list(curve.columns) == ["player", "hand", "session_number", "session_start", *summaries.SUMMARY_FIGURES]
    # Grouped by the numbers as categories, shown as the numbers themselves.
    assert curve["session_number"].dtype == np.int64 and numbered["session_number"].dtype == np.int64


def test_accuracy_interval_is_wilson_95(drills):
    summary = summaries.summarize(drills)
    for row in summary.itertuples():
        reference = scipy_stats.binomtest(row.correct, row.trials).proportion_ci(0.95, method="wilson")
        assert row.accuracy_ci_low == pytest.approx(reference.low)
        assert row.accuracy_ci_high == pytest.approx(reference.high)
        assert row.accuracy_ci_low <= row.accuracy <= row.accuracy_ci_high


def test_summary_lists_commands_in_game_order(drills):
    summary = summaries.summarize(drills)
    ann = summary[summary["player"] == "ann"]["command"].astype(str).tolist()
    assert ann == ["highest-total", "highest-die"]


def test_no_correct_answer_leaves_latency_empty(tmp_path):
    drills = load_logs([write_log(tmp_path / "wrong.csv", [
        answered("cy", "s", "highest-total", "black", 900.0), answered("cy", "s", "highest-total", "none", None)],
        numbered=True)])
    row = summaries.summarize(drills).iloc[0]
    assert row["accuracy"] == 0.0 and row["accuracy_ci_low"] == 0.0
    assert math.isnan(row["median_latency_ms"]) and math.isnan(row["exgauss_tau_ms"])


def test_tie_rolls_against_non_tie_rolls(drills):
    split = summaries.tie_versus_non_tie(drills).set_index(["player", "roll"])
    assert split.loc[("ann", "tie"), "trials"] == 3
    assert split.loc[("ann", "tie"), "accuracy"] == pytest.approx(2 / 3)
    assert split.loc[("ann", "tie"), "anticipations"] == 1
    assert split.loc[("ann", "non-tie"), "trials"] == 7
    assert split.loc[("ann", "non-tie"), "median_latency_ms"] == pytest.approx(1000.0)


def test_learning_curve_numbers_sessions_by_time(drills):
    curve = summaries.learning_curve(drills)
    ann = curve[curve["player"] == "ann"].set_index("session_number")
    assert list(ann.index) == [1, 2]
    assert ann.loc[1, "trials"] == 8 and ann.loc[2, "trials"] == 2
    assert ann.loc[1, "anticipations"] == 1 and ann.loc[2, "anticipations"] == 0
    assert ann.loc[2, "median_latency_ms"] == pytest.approx(800.0)
    assert ann.loc[1, "session_start"] < ann.loc[2, "session_start"]
    assert curve[curve["player"] == "bob"]["session_number"].tolist() == [1]


def test_the_learning_curve_of_a_numbered_frame_keeps_its_numbers_and_is_the_same(drills, monkeypatch):
    numbered = summaries.with_session_numbers(drills)
    expected = summaries.learning_curve(drills)
    numbering = mock.Mock(wraps=summaries._session_numbers)
    monkeypatch.setattr(summaries, "_session_numbers", numbering)
    pd.testing.assert_frame_equal(summaries.learning_curve(numbered), expected, check_exact=True)
    assert numbering.call_count == 0


def test_ex_gaussian_columns_need_30_correct_answers(tmp_path):
    latencies = 600.0 + 37.0 * np.arange(30)
    rows = [answered("dee", "s", "highest-total", "red", float(x)) for x in latencies]
    drills = load_logs([write_log(tmp_path / "thirty.csv", rows, numbered=True)])
    with_30 = summaries.summarize(drills).iloc[0]
    with_29 = summaries.summarize(drills.iloc[1:]).iloc[0]
    assert math.isnan(with_29["exgauss_mu_ms"])
    fit = stats.fit_ex_gaussian(latencies)
    assert (with_30["exgauss_mu_ms"], with_30["exgauss_sigma_ms"], with_30["exgauss_tau_ms"]) == pytest.approx(
        (fit.mu_ms, fit.sigma_ms, fit.tau_ms))


def test_ex_gaussian_fit_is_maximum_likelihood_in_ms():
    truth = stats.ExGaussian(mu_ms=800.0, sigma_ms=80.0, tau_ms=300.0)
    rng = np.random.default_rng(11)
    latencies = truth.mu_ms + truth.sigma_ms * rng.standard_normal(4000) + rng.exponential(truth.tau_ms, 4000)
    fit = stats.fit_ex_gaussian(latencies)

    def log_likelihood(model: stats.ExGaussian) -> float:
        return float(np.log(model.pdf(latencies)).sum())

    # The maximum of the likelihood is at least as likely as the parameters that made the data.
    assert log_likelihood(fit) >= log_likelihood(truth)
    # And it lands near them: at 4000 answers the sampling error is about 1 % (mu, tau) and 5 % (sigma).
    assert fit.mu_ms == pytest.approx(truth.mu_ms, rel=0.05)
    assert fit.tau_ms == pytest.approx(truth.tau_ms, rel=0.10)
    assert fit.sigma_ms == pytest.approx(truth.sigma_ms, rel=0.25)
    assert fit.mean_ms == pytest.approx(latencies.mean(), rel=0.02)


def test_unknown_player_is_named(drills):
    with pytest.raises(InputError, match=r"^players: no trials for 'zoe'.*ann, bob"):
        summaries.select_players(drills, ["zoe"])
    assert set(summaries.select_players(drills, ["bob"])["player"]) == {"bob"}
    pd.testing.assert_frame_equal(summaries.select_players(drills, ["bob", "ann"]),
                                  drills[drills["player"].isin(["bob", "ann"])])


# The malformed-file cases, through the one reader of drill logs (drill_log.load_logs).

def test_foreign_header_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("name,score\nann,3\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"scores\.csv.*line 1"):
        load_logs([path])


def test_truncated_last_row_is_skipped_with_its_line_number(tmp_path):
    path = write_log(tmp_path / "crashed.csv", known_trials()[:3], numbered=True)
    whole = path.read_bytes()
    path.write_bytes(whole + whole.splitlines(keepends=True)[1][:40])  # a crash mid-write of line 5
    before = path.read_bytes()
    with pytest.warns(TruncatedLogWarning, match=r"crashed\.csv: line 5"):
        drills = load_logs([path])
    assert len(drills) == 3
    assert summaries.summarize(drills)["trials"].sum() == 3
    assert path.read_bytes() == before  # nothing is ever written back to a log


def test_a_malformed_row_is_left_out_of_the_figures_with_a_warning_naming_its_line(tmp_path):
    path = write_log(tmp_path / "edited.csv", known_trials()[:4], numbered=True)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[3] = lines[3].replace(",standard,3,", ",standard,three,", 1)  # dice_per_color on line 4
    path.write_text("".join(lines), encoding="utf-8")
    before = path.read_bytes()
    with pytest.warns(SkippedRowsWarning, match=r"edited\.csv: skipped 1 row .*line 4: dice_per_color must be"):
        drills = load_logs([path])
    assert summaries.summarize(drills, by=["player"])["trials"].sum() == 3
    assert path.read_bytes() == before


def test_several_logs_load_into_one_frame(tmp_path):
    first = write_log(tmp_path / "one.csv", known_trials()[:2], numbered=True)
    second = write_log(tmp_path / "two.csv", known_trials()[-1:], numbered=True)
    drills = load_logs([first, second])
    summary = summaries.summarize(drills, by=["player"]).set_index("player")
    assert summary.loc["ann", "trials"] == 2 and summary.loc["bob", "trials"] == 1
