"""The drill's pure parts: where dice are drawn, the settings a person can give, the summary."""

from __future__ import annotations

import signal
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from helpers.cli import run_diavolo
from helpers.drill_logs import trial_row

from diavolo_stats.analytics import summaries
from diavolo_stats.core.commands import Criterion
from diavolo_stats.core.figures import DiceFigure
from diavolo_stats.core.table_model import TableModel, positions_from_mapping, positions_to_mapping, throw
from diavolo_stats.core.variant import ALL_COMMANDS, Command, Variant
from diavolo_stats.drill.log import DrillLog, load_logs
from diavolo_stats.drill.log.rules import played_variant, rules_cell
from diavolo_stats.drill.screen import table_layout, terminal_size_needed
from diavolo_stats.drill.session import _Interrupts, finished, progress
from diavolo_stats.drill.settings import MAX_TIMEOUT_S, DrillSettings
from diavolo_stats.drill.summary import summarize_session
from diavolo_stats.errors import InputError


def boxes(layout, points):
    """Screen cells (row, col) covered by each die's box."""
    covered = []
    for x, y in points:
        row, col = layout.box_origin(float(x), float(y))
        covered.append({(row + r, col + c) for r in range(layout.box_rows) for c in range(layout.box_cols)})
    return covered


@pytest.mark.parametrize("variant_name, size", [("standard", (80, 24)), ("kids", (80, 24)),
                                                ("standard", (132, 43)), ("standard", (100, 60))])
def test_dice_boxes_never_overlap_and_stay_on_the_table(variant_name, size):
    variant = Variant.preset(variant_name)
    layout = table_layout(*size, variant.table)
    assert layout.box_rows >= 1 and layout.box_cols >= 2
    throws = throw(variant.table, 1 + variant.dice_count, 1500, np.random.default_rng(3))
    for landed in np.moveaxis(throws, 2, 0):  # (dice, 2) per throw
        # Drawn from the logged positions, which are rounded to 0.1 mm.
        mapping = positions_to_mapping(variant.colors, variant.dice_per_color, landed)
        covered = boxes(layout, positions_from_mapping(variant.colors, variant.dice_per_color, mapping))
        cells = set().union(*covered)
        assert len(cells) == sum(len(c) for c in covered)
        assert all(0 <= row < layout.rows and 0 <= col < layout.cols for row, col in cells)


def test_the_table_keeps_its_proportions_on_screen():
    layout = table_layout(80, 24, TableModel())
    # A terminal cell is about twice as tall as wide: one mm spans twice as many columns as rows.
    assert layout.cols_per_mm == pytest.approx(2 * layout.rows_per_mm)
    assert layout.cols == 2 * layout.rows


def test_the_box_game_fits_80_by_24_and_a_larger_table_says_what_it_needs():
    assert terminal_size_needed(TableModel()) == (80, 24)
    assert table_layout(79, 24, TableModel()) is None
    assert table_layout(80, 23, TableModel()) is None
    wide = TableModel(scatter_mm=600)
    width, height = terminal_size_needed(wide)
    assert table_layout(80, 24, wide) is None
    assert table_layout(width, height, wide) is not None


def test_the_default_foreperiod_is_random_600_to_1500_ms_and_30_trials(tmp_path):
    settings = DrillSettings(player="Ana", log=tmp_path / "d.csv")
    assert settings.foreperiod_ms == (600, 1500)
    assert settings.trials == 30 and settings.minutes is None
    assert settings.timeout_s == 10
    assert settings.keys == {"black": "b", "red": "r", "white": "w", "grey": "g"}


@pytest.mark.parametrize("changes, field", [
    ({"keys": {"black": "r"}}, "keys"), ({"keys": {"grey": "q"}}, "keys"), ({"keys": {"blue": "u"}}, "keys"),
    ({"trials": 5, "minutes": 2.0}, "trials"), ({"trials": 0}, "trials"), ({"minutes": 0.0}, "minutes"),
    ({"foreperiod_ms": (900, 600)}, "foreperiod_ms"), ({"timeout_s": 0}, "timeout_s"),
    ({"variant": Variant(colors=("black", "mauve"))}, "colors"), ({"player": " "}, "player"),
    ({"seed": -1}, "seed"), ({"keys": {"red": "?"}}, "keys"), ({"intro": "no"}, "intro"),
])
def test_settings_a_drill_cannot_run_are_refused_naming_the_field(tmp_path, changes, field):
    with pytest.raises(InputError, match=f"^{field}: "):
        DrillSettings(**{"player": "Ana", "log": tmp_path / "d.csv", **changes})


def test_a_timed_session_starts_trials_until_its_minutes_are_up_and_counts_down(tmp_path):
    timed = DrillSettings(player="Ana", log=tmp_path / "d.csv", trials=None, minutes=2.0)
    assert not finished(timed, 0, 0.0) and not finished(timed, 500, 119.9)
    assert finished(timed, 1, 120.0) and finished(timed, 0, 600.0)
    assert progress(timed, 0, 0.0) == "trial 1, 2:00 left"
    assert progress(timed, 3, 0.5) == "trial 4, 1:59 left"
    assert progress(timed, 9, 130.0) == "trial 10, 0:00 left"
    counted = DrillSettings(player="Ana", log=tmp_path / "d.csv", trials=3)
    assert not finished(counted, 2, 1e6) and finished(counted, 3, 0.0)
    assert progress(counted, 2, 1e6) == "trial 3 of 3"


def test_variant_column_names_a_preset_only_when_the_game_is_that_preset_in_every_way():
    assert rules_cell(Variant()) == "standard"
    assert rules_cell(Variant.preset("kids")) == "kids"
    assert rules_cell(Variant(dice_per_color=2)) == "kids"
    assert rules_cell(Variant(commands=tuple(reversed(ALL_COMMANDS)))) == "standard"  # the same command die
    # Any other game is logged as its rules, which read back as that very game.
    for changed in (Variant(sides=8), Variant(colors=("black", "red")), Variant(dice_per_color=4),
                    Variant(commands=(Command.CLOSEST,)), Variant(table=TableModel(tolerance=0.3)),
                    Variant(table=TableModel(scatter_mm=400.0)), Variant(dice_per_color=2, sides=8),
                    Variant(commands=(Command("alike", None, None, (Criterion(DiceFigure.parse("most-alike")),)),))):
        assert played_variant(rules_cell(changed)) == changed, changed


def log_session(log: DrillLog, session: str, player: str, start: datetime, trials: list[tuple]) -> None:
    """trials: (command, answer, latency_ms, too_early) with expected always red."""
    for number, (command, answer, latency_ms, too_early) in enumerate(trials, start=1):
        log.append(trial_row(
            number, session_id=session, player=player, timestamp=start + timedelta(seconds=number),
            command=command, dice={"black": [1, 1, 1], "red": [6, 6, 6], "white": [2, 2, 2]},
            positions={"command": [10.0, 10.0]}, answer=answer, correct=answer == "red", latency_ms=latency_ms,
            too_early=too_early, timed_out=answer == "none" and not too_early, foreperiod_ms=800.0, seed=1))


def test_the_summary_counts_per_command_and_compares_with_the_players_earlier_sessions(tmp_path):
    log = DrillLog(tmp_path / "d.csv")
    day = datetime(2024, 5, 1, tzinfo=timezone.utc)
    log_session(log, "old", "Ana", day, [("highest-total", "red", 1000.0, False),
                                         ("highest-total", "white", 700.0, False)])
    log_session(log, "other-player", "Bo", day + timedelta(days=1), [("highest-total", "white", 300.0, False)])
    log_session(log, "new", "Ana", day + timedelta(days=2), [
        ("highest-total", "red", 800.0, False), ("highest-total", "red", 600.0, False),
        ("most-odd", "none", None, True), ("most-odd", "none", None, False), ("most-odd", "red", 900.0, False)])
    summary = summarize_session(load_logs([log.path]), "new")
    rows = {row["command"]: row for row in summary.rows()}
    assert list(rows) == ["highest-total", "most-odd", "all"]
    assert rows["highest-total"] == {
        "command": "highest-total", "trials": 2, "correct": 2, "accuracy_pct": 100, "median_ms": 700,
        "change_pp": 50, "change_ms": -300, "anticipations": 0, "timed_out": 0, "earlier_trials": 2}
    # As in `diavolo report`: a timeout is a wrong trial; a too-early key is no trial, counted apart.
    assert rows["most-odd"]["trials"] == 2 and rows["most-odd"]["accuracy_pct"] == 50
    assert rows["most-odd"]["anticipations"] == 1 and rows["most-odd"]["timed_out"] == 1
    assert rows["most-odd"]["change_pp"] is None and rows["most-odd"]["earlier_trials"] == 0
    assert rows["all"]["trials"] == 4 and rows["all"]["median_ms"] == 800
    assert summary.player == "Ana"
    assert summary.title().startswith("drill summary: player Ana, 4 trials,")
    # The summary leads with the session's median time and accuracy and their change, one fact a line.
    assert summary.sentences() == [
        "Median time of your right answers: 800 ms, 200 ms faster than before.",  # Ana was right once, in 1000
        "Accuracy: 75 % (3 of 4 right), 25 points higher than before.",  # 3 of 4 against 1 of 2
        "The changes compare with your 2 earlier trials in this log.",  # Bo's trial is not Ana's
        "Timed out (no answer in time): 1.",
        "Too early (a key before the roll, not counted as a trial): 1.",
    ]
    assert summary.text().splitlines()[1:6] == summary.sentences()
    # The table under the sentences is headed in words, within the 80 columns of a terminal.
    table = summary.text().splitlines()[7:]
    assert table[0].split() == ["command", "trials", "correct", "accuracy", "%", "median", "ms", "change", "pts",
                                "change", "ms"]
    assert max(len(line) for line in table) <= 80


def test_a_first_session_says_there_is_nothing_to_compare_with_and_a_faster_one_says_faster(tmp_path):
    log = DrillLog(tmp_path / "d.csv")
    day = datetime(2024, 5, 1, tzinfo=timezone.utc)
    log_session(log, "first", "Ana", day, [("highest-total", "red", 900.0, False),
                                           ("highest-total", "white", 500.0, False)])
    first = summarize_session(load_logs([log.path]), "first").sentences()
    assert first[:3] == ["Median time of your right answers: 900 ms.", "Accuracy: 50 % (1 of 2 right).",
                         "No earlier trials of yours in this log to compare with yet."]
    log_session(log, "second", "Ana", day + timedelta(days=1), [("highest-total", "red", 899.0, False)])
    second = summarize_session(load_logs([log.path]), "second").sentences()
    assert second[:3] == ["Median time of your right answers: 899 ms, 1 ms faster than before.",
                          "Accuracy: 100 % (1 of 1 right), 50 points higher than before.",
                          "The changes compare with your 2 earlier trials in this log."]


def test_the_drill_summary_and_the_report_agree_on_a_session(tmp_path):
    log = DrillLog(tmp_path / "d.csv")
    log_session(log, "s", "Ana", datetime(2024, 5, 1, tzinfo=timezone.utc), [
        ("closest", "red", 900.0, False), ("closest", "none", None, True), ("closest", "white", 500.0, False),
        ("closest", "none", None, False), ("closest", "red", 700.0, False), ("closest", "red", 1300.0, False)])
    frame = load_logs([log.path])
    drilled = summarize_session(frame, "s").rows()[0]
    reported = summaries.summarize(frame).iloc[0]
    assert drilled["trials"] == reported["trials"] == 5  # the anticipation is not a trial
    assert drilled["anticipations"] == reported["anticipations"] == 1
    assert drilled["correct"] == reported["correct"] == 3
    assert drilled["accuracy_pct"] == round(reported["accuracy"] * 100) == 60
    assert drilled["median_ms"] == round(reported["median_latency_ms"]) == 900


def test_a_session_with_no_rows_has_an_empty_summary(tmp_path):
    log = DrillLog(tmp_path / "d.csv")
    empty = summarize_session(load_logs([log.path]), "nothing", log.path, "Ana")
    assert empty.rows() == [] and empty.player == "Ana"


def test_without_a_log_the_drill_appends_to_diavolo_log(tmp_path, monkeypatch):
    monkeypatch.setenv("DIAVOLO_LOG", str(tmp_path / "mine.csv"))
    assert DrillSettings(player="Ana").log == tmp_path / "mine.csv"
    assert DrillSettings(player="Ana", log=str(tmp_path / "given.csv")).log == tmp_path / "given.csv"


def test_ctrl_c_while_a_row_is_written_arrives_once_the_row_is_written():
    events = []
    before = signal.getsignal(signal.SIGINT)
    with _Interrupts() as interrupts:
        with pytest.raises(KeyboardInterrupt):
            with interrupts.deferred():
                signal.raise_signal(signal.SIGINT)  # Python has run the handler when this returns
                assert interrupts.pending
                events.append("row written")
            events.append("after the row")
        with pytest.raises(KeyboardInterrupt):  # outside a row, at once
            signal.raise_signal(signal.SIGINT)
            events.append("never")
    assert events == ["row written"]
    assert signal.getsignal(signal.SIGINT) is before


def test_the_command_lines_help_states_the_drills_own_defaults():
    # What a session does when a flag is left out (DrillSettings), as `diavolo drill --help` states it.
    settings = DrillSettings(player="Ana")
    shown = " ".join(run_diavolo("drill", "--help").stdout.split())  # argparse folds the lines
    low, high = settings.foreperiod_ms
    assert f"seconds to wait for an answer, up to {MAX_TIMEOUT_S:g} (default {settings.timeout_s:g})" in shown
    assert f"(default {low},{high})" in shown and f"(default {settings.feedback_ms})" in shown
    assert f"(default {settings.trials})" in shown
    assert "(default: " + ", ".join(f"{key} {answer}" for answer, key in settings.keys.items()) in shown
