"""A player whose answers fit no model is refused by name, in one line, wherever a log is fitted (`diavolo
players`, `diavolo game`, Play's fitted opponents), and the log's other players are fitted as before."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from helpers.browser import ORIGIN
from helpers.cli import assert_one_line_error, run_diavolo
from helpers.drill_logs import answered
from starlette.testclient import TestClient

from diavolo_stats.analytics.synthetic import write_synthetic_log
from diavolo_stats.drill.log import DrillLog, load_logs
from diavolo_stats.errors import InputError
from diavolo_stats.game import reading_fit
from diavolo_stats.game.players import MAX_SKILL_MS
from diavolo_stats.game.reading_fit import FIT_COLUMNS, fit_reading
from diavolo_stats.web.app import create_app

RIGHT = answered("ann", "s1", "highest-total", "red", 900.0).expected
SPREAD_TOO_WIDE = (r"'ann': their 40 answers fit no reading model \(spread: must be a number above 0 and at most 5, "
                   r"got 5\.\d+\)")


def ann_answers(latency_ms, answer=RIGHT) -> list:
    """ann's 40 answers to the worked example, the i-th `latency_ms(i)` ms after the roll."""
    return [replace(answered("ann", "s1", "highest-total", answer, latency_ms(i)), trial=i + 1) for i in range(40)]


def two_extremes(i: int) -> float:
    """Every other answer at the human floor, the others at ten minutes: more spread than any person's."""
    return 100.0 if i % 2 else 599_999.0


@pytest.fixture(scope="module")
def bea_log(tmp_path_factory):
    """synthetic-average's 100 answers: a player any model fits."""
    path = tmp_path_factory.mktemp("refused") / "bea.csv"
    write_synthetic_log(path, ["preset:average"], sessions=1, trials=100, seed=3)
    return path


@pytest.fixture
def log_with(tmp_path, bea_log):
    """`log_with(rows)`: a copy of `bea_log` with `rows` appended; its path."""
    def write(rows):
        path = tmp_path / "drills.csv"
        path.write_bytes(bea_log.read_bytes())
        DrillLog(path).append_rows(rows)
        return path
    return write


def test_a_player_whose_times_no_reading_model_holds_is_refused_by_name_and_the_others_are_fitted(log_with):
    drills = load_logs([log_with(ann_answers(two_extremes))], columns=FIT_COLUMNS)
    fit = fit_reading(drills)
    assert list(fit.players) == ["synthetic-average"]
    with pytest.raises(InputError, match=f"^player: {SPREAD_TOO_WIDE}$"):
        fit.player("ann")
    with pytest.raises(InputError, match=f"^log: no player of the drill log can be fitted: {SPREAD_TOO_WIDE}$"):
        fit_reading(drills.loc[drills["player"] == "ann"])


def test_a_player_slower_than_a_minute_on_every_answer_is_fitted_under_the_models_longest_floor(tmp_path):
    log = DrillLog(tmp_path / "slow.csv")
    log.append_rows(ann_answers(lambda i: 590_000.0 + 100 * i))
    model = fit_reading(load_logs([log.path], columns=FIT_COLUMNS)).player("ann").model
    assert 0 < model.shift_ms <= MAX_SKILL_MS and np.isfinite(model.spread)


def test_a_fit_gone_undefined_for_one_player_refuses_that_player_alone(monkeypatch, log_with):
    drills = load_logs([log_with(ann_answers(lambda i: 900.0 + 10 * i))], columns=FIT_COLUMNS)
    fit_time = reading_fit._fit_time

    def undefined_for_ann(*args, **kwargs):  # as if ann's rows made the time fit's algebra break down
        pooled = fit_time(*args, **kwargs)
        means = pooled.means.copy()
        means[1] = np.nan  # the log's second player: ann
        return replace(pooled, means=means)

    monkeypatch.setattr(reading_fit, "_fit_time", undefined_for_ann)
    fit = fit_reading(drills)
    assert list(fit.players) == ["synthetic-average"]
    with pytest.raises(InputError, match=r"^player: 'ann': their 40 answers fit no reading model \(figures that are "
                                         r"not numbers: too few answers, or too alike, to fit\)$"):
        fit.player("ann")


@pytest.mark.parametrize("command", ["players", "game"])
def test_the_command_line_names_the_refused_player_in_one_line_and_fits_the_others(log_with, command):
    log = str(log_with(ann_answers(two_extremes)))
    games = ("--games", "200", "--design-games", "0", "--model", "reading")
    named = {"players": ("players", "--log", log, "--model", "reading", "--player", "ann"),
             "game": ("game", "--players", "ann", "preset:average", "--log", log, *games)}[command]
    result = run_diavolo(*named)
    assert_one_line_error(result, f"--player{'s' if command == 'game' else ''}: 'ann': their 40 answers fit no "
                                  "reading model (spread: must be a number above 0 and at most 5, got 5.")
    others = {"players": ("players", "--log", log, "--model", "reading"),
              "game": ("game", "--players", "synthetic-average", "preset:average", "--log", log, *games)}[command]
    result = run_diavolo(*others)
    assert result.returncode == 0, result.stderr
    if command == "players":
        assert re.search(r"Not fitted: 'ann': their 40 answers fit no reading model", result.stdout)


def test_play_names_the_refused_opponent_and_starts_a_game_against_the_others(log_with):
    log = log_with(ann_answers(lambda i: 900.0 + 10 * i, answer="grey"))  # all wrong: no diffusion fit
    with TestClient(create_app(log), base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        refused = client.post("/api/play/games", json={"player": "Bo", "opponents": ["ann"]})
        assert refused.status_code == 400
        assert refused.json() == {"error": "opponents: 'ann': none of 40 answers is right; a diffusion fit needs "
                                           "right answers", "field": "opponents"}
        started = client.post("/api/play/games", json={"player": "Bo", "opponents": ["synthetic-average"]})
        assert started.status_code == 201, started.text
