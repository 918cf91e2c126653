"""The real `diavolo drill`, driven through a pseudo-terminal like a person at a keyboard."""

from __future__ import annotations

import json
import re
import signal
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pexpect
import pytest
from helpers.cli import assert_one_line_error, run_diavolo
from helpers.drill_logs import expected_from_row
from helpers.pty_drill import CURSOR_QUERY, FAST, HUMAN_MS, Drill, printed_json

from diavolo_stats.analytics.synthetic import write_synthetic_log
from diavolo_stats.core.rules import roll
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import COLUMNS, DrillLog, load_logs
from diavolo_stats.drill.log.rules import played_variant
from diavolo_stats.drill.summary import summarize_session
from diavolo_stats.drill.trial import judged_trial


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_each_answer_is_logged_with_its_latency_and_a_recomputable_expected_answer(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Σοφία Ivanova", "--trials", "4", "--seed", "12", "--log", str(log), *FAST,
                  cwd=tmp_path)
    keys = ["r", "b", "g", "w"]
    delays = [150.0, 180.0, 220.0, 120.0]
    for delay, key in zip(delays, keys):
        drill.answer_after(delay, key)
    status, output = drill.finish()
    assert status == 0
    assert "drill summary" in output

    assert log.read_text(encoding="utf-8").splitlines()[0] == ",".join(COLUMNS)
    frame = load_logs([log])
    assert len(frame) == 4
    assert frame["trial"].tolist() == [1, 2, 3, 4]
    assert frame["session_id"].nunique() == 1
    assert (frame["player"] == "Σοφία Ivanova").all()
    assert frame["answer"].tolist() == ["red", "black", "grey", "white"]
    for row, delay in zip(frame.itertuples(), delays):
        # Never shorter than the wait before the key. How little the drill adds on top is a figure of
        # benchmarks/bench_drill_latency.py: a busy machine can delay any single key, so no test bounds it.
        assert delay <= row.latency_ms, (delay, row.latency_ms)
        assert 30 <= row.foreperiod_ms <= 60
    assert [expected_from_row(row) for _, row in frame.iterrows()] == frame["expected"].tolist()
    accepted = [json.loads(cell) for cell in frame["accepted"]]
    assert [row["answer"] in ok for (_, row), ok in zip(frame.iterrows(), accepted)] == frame["correct"].tolist()
    assert (frame["interface"] == "terminal").all()
    assert not frame[["too_early", "timed_out", "command_first"]].any().any()
    assert (frame["seed"] == 12).all()
    assert (frame["variant"] == "standard").all()
    assert frame["timestamp"].is_monotonic_increasing


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_a_session_killed_mid_way_keeps_every_completed_row(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "10", "--log", str(log), *FAST, cwd=tmp_path)
    for _ in range(3):
        drill.answer_after(HUMAN_MS, "r")
    drill.stimulus()  # trial 4 is on screen, so trial 3 is on disk
    drill.child.kill(signal.SIGKILL)
    drill.child.expect(pexpect.EOF)
    frame = load_logs([log])
    assert frame["trial"].tolist() == [1, 2, 3]
    assert log.read_bytes().endswith(b"\n")


@pytest.mark.slow  # a terminal (pty) and a real drill process
@pytest.mark.parametrize("how", ["q", "ctrl-c"])
def test_q_and_ctrl_c_end_the_session_with_exit_0_and_its_summary(tmp_path, how):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "10", "--log", str(log), *FAST, cwd=tmp_path)
    drill.answer_after(HUMAN_MS, "w")
    drill.stimulus()
    if how == "q":
        drill.child.send("q")
    else:
        drill.child.sendintr()
    status, output = drill.finish()
    assert status == 0
    assert "drill summary: player Ana, 1 trial," in output
    assert re.search(r"^all\s+1\s", output, re.MULTILINE)
    assert "Traceback" not in output
    # The trial on screen when the player quit is not an answer.
    assert len(load_logs([log])) == 1


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_two_sessions_appending_to_one_log_at_once_keep_every_row_intact(tmp_path):
    log = tmp_path / "drills.csv"
    sessions = [Drill("--player", name, "--trials", "5", "--log", str(log), *FAST, cwd=tmp_path)
                for name in ("Ana", "Bo")]
    for _ in range(5):
        for drill in sessions:
            drill.answer_after(HUMAN_MS, "b")
    assert [drill.finish()[0] for drill in sessions] == [0, 0]
    frame = load_logs([log])
    assert len(frame) == 10
    assert frame.groupby("player")["trial"].apply(list).to_dict() == {"Ana": [1, 2, 3, 4, 5],
                                                                      "Bo": [1, 2, 3, 4, 5]}
    assert frame.groupby("player")["session_id"].nunique().tolist() == [1, 1]
    assert log.read_text(encoding="utf-8").count(",".join(COLUMNS)) == 1


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_an_anticipation_is_logged_apart_and_the_same_trial_runs_again_with_a_new_roll(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "2", "--log", str(log), "--foreperiod-ms", "500,500",
                  "--feedback-ms", "1000", "--no-intro", "--format", "json", cwd=tmp_path)
    numbers = [drill.stimulus()]
    drill.answer("r")
    drill.expect(r"answered \(trial 1\)")
    # Within the feedback's second the test holds the terminal; the key then waits for trial 2's fixation mark,
    # read in its foreperiod
    drill.press_unseen("r")
    drill.expect(r"too early \(trial 2\)")
    screen = drill.screen()
    assert "TOO EARLY: wait for the dice" in screen and "trial 2 of 2" in screen
    numbers.append(drill.stimulus())
    assert "trial 2 of 2" in drill.screen()
    drill.answer("w")
    status, output = drill.finish()
    assert status == 0 and numbers == [1, 2]
    frame = load_logs([log])
    assert frame["too_early"].tolist() == [False, True, False]
    assert frame["trial"].tolist() == [1, 2, 3]  # in the log, the anticipation has its own row number
    early = frame.iloc[1]
    assert early["answer"] == "none" and not early["correct"] and pd.isna(early["latency_ms"])
    assert not early["timed_out"]
    overall = printed_json(output)["rows"][-1]
    # Not an answer: out of the trials, the accuracy and the latencies; counted apart.
    answered = frame[~frame["too_early"]]
    assert (overall["command"], overall["trials"], overall["correct"], overall["anticipations"]) == (
        "all", 2, int(answered["correct"].sum()), 1)


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_an_answer_faster_than_the_human_floor_is_logged_and_shown_as_too_early_and_the_trial_runs_again(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "2", "--log", str(log), "--foreperiod-ms", "1000,1000",
                  "--feedback-ms", "300", "--no-intro", "--format", "json", cwd=tmp_path)
    drill.expect(r"get ready \(trial 1\)")
    # Within the foreperiod the test holds the terminal; the key then waits for the roll, read as it shows
    drill.press_unseen("r")
    drill.expect(r"too early \(trial 1\)")
    screen = drill.screen()
    assert "TOO EARLY" in screen and f"under the {MIN_LATENCY_MS:g} ms" in screen
    assert not re.search("RIGHT|WRONG", screen)
    assert drill.stimulus() == 1 and "trial 1 of 2" in drill.screen()  # the same trial, a new roll
    drill.child.send("q")
    status, output = drill.finish()
    assert status == 0
    frame = load_logs([log])
    assert frame["too_early"].tolist() == [True]
    early = frame.iloc[0]
    assert early["answer"] == "none" and pd.isna(early["latency_ms"]) and not early["correct"]
    overall = printed_json(output)["rows"][-1]
    assert (overall["trials"], overall["anticipations"]) == (0, 1)


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_no_answer_within_the_timeout_is_logged_as_none(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "1", "--timeout", "0.3", "--log", str(log), *FAST, cwd=tmp_path)
    drill.stimulus()
    drill.expect("NO ANSWER")
    assert drill.finish()[0] == 0
    row = load_logs([log]).iloc[0]
    assert row["timed_out"] and row["answer"] == "none" and not row["correct"] and pd.isna(row["latency_ms"])


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_minutes_stops_starting_trials_once_the_time_is_up(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--minutes", "0.05", "--log", str(log), *FAST, cwd=tmp_path)
    while drill.child.expect([re.escape(CURSOR_QUERY), r"answer now \(trial \d+\)", pexpect.EOF]) != 2:
        drill.child.send("\x1b[1;1R" if CURSOR_QUERY in drill.child.after else "b")
    drill.child.close()
    assert drill.child.exitstatus == 0
    # It ended by itself (3 s of new trials) while every roll was answered at once, and kept what was answered.
    # When it stops is stated on elapsed time by test_a_timed_session_starts_trials_until_its_minutes_are_up.
    assert len(load_logs([log])) >= 1


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_command_first_shows_the_command_before_the_dice(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "1", "--command-first", "--commands", "most-odd", "--log", str(log),
                  *FAST, cwd=tmp_path)
    drill.expect(r"MOST ODD \(MO\)")
    drill.expect(r"get ready \(trial 1\)")
    drill.answer_after(HUMAN_MS, "g")
    assert drill.finish()[0] == 0
    row = load_logs([log]).iloc[0]
    assert row["command_first"] and row["command"] == "most-odd"
    # One command of six is not the standard game: the row carries its rules.
    assert played_variant(row["variant"]) == Variant(commands=(Command.MOST_ODD,))


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_adaptive_drills_only_the_chosen_commands_and_uses_the_log_history(tmp_path):
    log = tmp_path / "drills.csv"
    write_synthetic_log(log, ["preset:average"], sessions=1, trials=60)  # a history of every command
    before = len(load_logs([log]))
    drill = Drill("--player", "synthetic-average", "--trials", "3", "--adaptive", "--commands",
                  "closest,highest-die", "--log", str(log), *FAST, cwd=tmp_path)
    for _ in range(3):
        drill.answer_after(HUMAN_MS, "b")
    assert drill.finish()[0] == 0
    added = load_logs([log]).iloc[before:]
    assert len(added) >= 3 and set(added["command"]) <= {"closest", "highest-die"}


@pytest.mark.slow  # a terminal (pty) and real drill processes
@pytest.mark.parametrize("name", ["uneven-colors", "sixes"])
def test_adaptive_drills_a_variant_files_dice_and_commands_from_its_own_history(tmp_path, name):
    log = tmp_path / "drills.csv"
    rules = Path(__file__).resolve().parents[2] / "examples" / "variants" / f"{name}.toml"
    for session in range(2):  # the second session chooses from the first one's rows
        drill = Drill("--player", "Ana", "--trials", "3", "--adaptive", "--variant", str(rules), "--log", str(log),
                      *FAST, cwd=tmp_path)
        for _ in range(3):
            drill.answer_after(HUMAN_MS, "g")
        assert drill.finish()[0] == 0, session
    assert len(load_logs([log])) >= 6


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_the_log_is_data_drills_csv_or_diavolo_log(tmp_path):
    drill = Drill("--player", "Ana", "--trials", "1", *FAST, cwd=tmp_path)
    drill.answer_after(HUMAN_MS, "b")
    assert drill.finish()[0] == 0
    assert len(load_logs([tmp_path / "data" / "drills.csv"])) == 1
    elsewhere = tmp_path / "mine.csv"
    drill = Drill("--player", "Ana", "--trials", "1", *FAST, cwd=tmp_path, env={"DIAVOLO_LOG": str(elsewhere)})
    drill.answer_after(HUMAN_MS, "b")
    assert drill.finish()[0] == 0
    assert len(load_logs([elsewhere])) == 1


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_a_log_with_a_foreign_header_is_refused_and_left_untouched(tmp_path):
    log = tmp_path / "scores.csv"
    original = b"name,score\nada,3\n"
    log.write_bytes(original)
    drill = Drill("--player", "Ana", "--log", str(log), *FAST, cwd=tmp_path)
    status, output = drill.finish()
    assert status == 2
    assert f"diavolo: error: --log: {log} is not a drill log" in output
    assert "Traceback" not in output
    assert log.read_bytes() == original


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_a_terminal_smaller_than_80x24_is_refused_naming_the_size_needed(tmp_path):
    drill = Drill("--player", "Ana", "--log", str(tmp_path / "d.csv"), cwd=tmp_path, size=(20, 70))
    status, output = drill.finish()
    assert status == 2
    assert "needs a terminal of at least 80x24" in output and "this one is 70x20" in output
    assert not (tmp_path / "d.csv").exists()


@pytest.mark.slow  # a terminal (pty) and a real drill process
def test_with_no_color_set_the_drill_says_it_needs_colors(tmp_path):
    drill = Drill("--player", "Ana", "--log", str(tmp_path / "d.csv"), cwd=tmp_path, env={"NO_COLOR": "1"})
    status, output = drill.finish()
    assert status == 2
    assert "NO_COLOR" in output and "Traceback" not in output


def test_without_a_terminal_the_drill_exits_2_and_says_it_needs_one(tmp_path):
    result = run_diavolo("drill", "--player", "Ana", cwd=tmp_path)
    assert_one_line_error(result, "interactive terminal")
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("args, fragment", [
    (["--keys", "black=r"], "--keys: r would answer two colors"),
    (["--keys", "grey"], "--keys: must map text to text: ANSWER=KEY pairs separated by commas"),
    (["--trials", "3", "--minutes", "1"], "not allowed with argument"),
    (["--foreperiod-ms", "900,600"], "--foreperiod-ms: "),
    (["--player", ""], "--player: "),
    (["--colors", "black,mauve"], "--colors: the drill has no screen color for mauve"),
    (["--colors", "black,grey"], "--colors: 'grey' is reserved"),
    (["--scatter-mm", "60"], "--scatter-mm: 10 dice of 16 mm do not fit"),
])
def test_bad_flags_are_one_line_errors(tmp_path, args, fragment, diavolo):
    result = diavolo("drill", "--player", "Ana", *args, cwd=tmp_path)
    assert_one_line_error(result, fragment)


def test_each_answer_shows_its_time_and_the_summary_leads_with_the_median_time_and_accuracy(tmp_path):
    log = tmp_path / "drills.csv"
    variant = Variant()
    earlier = [roll(variant, np.random.default_rng(seed)) for seed in range(3)]
    DrillLog(log).append_rows([judged_trial(
        variant, rolled.command, rolled.dice, rolled.positions, "red", 2000.0, interface="terminal", player="Ana",
        session_id="earlier", trial=number, timestamp=datetime(2024, 5, 1, 12, number, tzinfo=timezone.utc))
        for number, rolled in enumerate(earlier, start=1)])
    drill = Drill("--player", "Ana", "--trials", "2", "--log", str(log), "--foreperiod-ms", "30,60",
                  "--feedback-ms", "0", cwd=tmp_path)
    feedback = []
    for key in ("r", "b"):
        drill.answer_after(120, key)
        number = drill.expect(r"answered \(trial (\d+)\)").group(1)
        # The whole feedback frame is on screen (its status line is written last): the line under the table.
        feedback.append(next(line for line in drill.screen().splitlines() if re.match("RIGHT|WRONG", line)))
        assert f"trial {number} of 2" in drill.screen()
    status, output = drill.finish()
    assert status == 0
    frame = load_logs([log])
    session = frame.loc[frame["session_id"] != "earlier"]
    for line, (_, row) in zip(feedback, session.iterrows(), strict=True):
        # "RIGHT: red, 431 ms" or "WRONG: you said black, 431 ms; the answer is red": the time as logged.
        verdict = "RIGHT" if row["correct"] else "WRONG"
        match = re.match(rf"{verdict}: (?:you said )?{row['answer']}, (\d+) ms", line)
        assert match, (line, row["answer"], row["correct"])
        assert abs(int(match.group(1)) - row["latency_ms"]) <= 0.5 + 1e-3
    # The summary's first lines are its sentences, one fact a line, as the library states them.
    lines = output.replace("\r\n", "\n").split("\n")
    sentences = summarize_session(frame, session["session_id"].iloc[0]).sentences()
    first = lines.index(sentences[0])
    assert "drill summary: player Ana, 2 trials" in "".join(lines[:first])  # the title, then the sentences
    assert lines[first:first + len(sentences)] == sentences
    assert sentences[0].startswith(("Median time of your right answers: ", "Median time: none"))
    assert sentences[1].startswith("Accuracy: ") and sentences[2] == (
        "The changes compare with your 3 earlier trials in this log.")
