"""An answer faster than a person gives one (latency 0, as games logged before they held the human floor) is an
anticipation wherever a log is read: no player's fit, no median and no fastest session counts it."""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone

import pytest
from helpers.cli import REPO, run_diavolo
from helpers.drill_logs import trial_row

from diavolo_stats.drill.log import GAME_INTERFACE, DrillLog, load_logs
from diavolo_stats.drill.performance import performance
from diavolo_stats.game.reading_fit import FIT_COLUMNS
from diavolo_stats.game.settings import MODELS
from diavolo_stats.game.specs import fit_players

SAMPLE = REPO / "data" / "sample_drills.csv"
START = datetime(2026, 11, 30, 20, 0, tzinfo=timezone.utc)


@pytest.fixture
def log_with_instant_answers(tmp_path):
    """The sample log with one of synthetic-expert's answers logged right at latency 0, and a game of Zed's whose
    12 answers were all logged so (one such row made the reading fit of the log fail, naming synthetic-novice)."""
    path = tmp_path / "drills.csv"
    shutil.copy(SAMPLE, path)
    log = DrillLog(path)
    log.append(trial_row(1, session_id="expert-game", player="synthetic-expert", latency_ms=0.0,
                         interface=GAME_INTERFACE, timestamp=START))
    for trial in range(1, 13):
        log.append(trial_row(trial, session_id="zed-game", player="Zed", latency_ms=0.0, interface=GAME_INTERFACE,
                             timestamp=START + timedelta(seconds=trial)))
    return path


@pytest.mark.parametrize("model", MODELS)
def test_a_fit_of_the_log_leaves_out_answers_at_latency_0(log_with_instant_answers, model):
    drills = load_logs([log_with_instant_answers], columns=FIT_COLUMNS)
    fit = fit_players(drills, model)
    assert {"synthetic-novice", "synthetic-expert"} <= set(fit.players) and "Zed" not in fit.players


def test_an_answer_at_latency_0_is_counted_an_anticipation_not_a_median_of_0_ms(log_with_instant_answers):
    zed = load_logs([log_with_instant_answers]).query("player == 'Zed'")
    figures = performance(zed)
    assert figures["anticipations"] == 12 and figures["trials"] == 0 and figures["median_latency_ms"] != 0


def test_diavolo_players_fits_a_log_holding_answers_at_latency_0(log_with_instant_answers):
    result = run_diavolo("players", "--log", str(log_with_instant_answers), "--model", "reading")
    assert result.returncode == 0, result.stderr
    assert "synthetic-novice" in result.stdout and "undefined figures" not in result.stderr
