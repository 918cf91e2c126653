"""The drill teaches: an introduction for a first session, `?` for the commands, feedback that stays with
its roll, and a roll put aside when the window becomes too small. Driven through the real
pseudo-terminal and read off the emulated screen, as a player sees it."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import numpy as np
import pytest
from helpers.cli import REPO
from helpers.pty_drill import FAST, HUMAN_MS, Drill

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import ALL_COMMANDS, Command, Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.teaching import EXAMPLE_SEED, help_lines

pytestmark = pytest.mark.slow  # the drill through a real pseudo-terminal

# FAST without --no-intro.
PACE = tuple(arg for arg in FAST if arg != "--no-intro")
FEEDBACK = re.compile(r"RIGHT|WRONG|NO ANSWER|you said")


def test_a_players_first_session_opens_with_the_introduction_that_any_key_dismisses(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "1", "--log", str(log), *PACE, cwd=tmp_path)
    drill.expect("Press any key to start")
    screen = drill.screen()
    assert "WELCOME TO THE DIAVOLO DRILL, Ana" in screen
    for command in ALL_COMMANDS:
        assert command.value.replace("-", " ") in screen
    assert "b black   r red   w white   g grey" in screen
    assert "Grey is a tie" in screen and "Press ? at any time" in screen
    drill.child.send("?")  # as the introduction says: the commands
    drill.expect(r"replaced by a new one\)")
    assert "THE COMMANDS AND GREY" in drill.screen()
    ready = datetime.now(timezone.utc)
    drill.child.send("x")
    drill.answer_after(HUMAN_MS, "r")
    assert drill.finish()[0] == 0
    # Nothing started until the player was ready: the one roll was shown after the key that dismissed the help.
    shown = load_logs([log])["timestamp"]
    assert len(shown) == 1 and shown.iloc[0] >= ready

    again = Drill("--player", "Ana", "--trials", "1", "--log", str(log), *PACE, cwd=tmp_path)
    again.expect(r"get ready \(trial 1\)")
    assert "WELCOME" not in again.child.before  # Ana has rows in this log now
    again.answer_after(HUMAN_MS, "r")
    assert again.finish()[0] == 0

    scripted = Drill("--player", "Bo", "--trials", "1", "--log", str(log), *FAST, cwd=tmp_path)
    scripted.expect(r"get ready \(trial 1\)")
    assert "WELCOME" not in scripted.child.before  # --no-intro, although Bo is new
    scripted.answer_after(HUMAN_MS, "r")
    assert scripted.finish()[0] == 0
    assert load_logs([log])["player"].tolist() == ["Ana", "Ana", "Bo"]


def test_question_mark_shows_the_commands_and_grey_each_worked_on_an_example(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "1", "--log", str(log), "--foreperiod-ms", "400,400",
                  "--feedback-ms", "0", "--no-intro", cwd=tmp_path)
    drill.expect(r"get ready \(trial 1\)")
    assert "? the commands" in drill.screen()  # the first screen says where help is
    drill.child.send("?")  # during the fixation mark: not an anticipation
    drill.expect(r"replaced by a new one\)")
    screen = drill.screen()
    # The rulebook's worked example, as the rulebook works it.
    assert "worked on one roll: black 2 3 6   red 3 5 5   white 1 5 6" in screen
    for line in ("HT  highest total", "red: total 13 > 12 white, 11 black", "LT  lowest total",
                 "black: total 11 < 12 white, 13 red", "LS  largest spread", "white: spread 5 > 4 black, 2 red",
                 "MO  most odd", "red: 3 odd dice > 2 white, 1 black", "HD  highest die",
                 "grey: black and white tie at highest die 6 > 5 red",
                 "CL  closest", "grey  a tie: two or more colors share the winning figure (HD above)"):
        assert line in screen, line
    thrown = roll(Variant(), np.random.default_rng(EXAMPLE_SEED))
    assert resolve(Variant(), Command.CLOSEST, thrown.dice, thrown.positions).reason in screen
    assert [line for line in help_lines(Variant()) if line not in screen] == []
    drill.child.send(" ")
    drill.stimulus()
    drill.child.send("?")  # during a roll: that roll is put aside, unlogged
    drill.expect(r"replaced by a new one\)")
    drill.child.send("?")  # any key, even ? itself, goes back
    number = drill.stimulus()
    drill.answer("r")
    assert drill.finish()[0] == 0 and number == 1
    frame = load_logs([log])
    assert len(frame) == 1 and not frame["too_early"].any() and frame["answer"].tolist() == ["red"]


def test_feedback_stays_with_its_roll_and_is_gone_before_the_next_fixation_mark(tmp_path):
    drill = Drill("--player", "Ana", "--trials", "2", "--log", str(tmp_path / "d.csv"), "--foreperiod-ms",
                  "300,300", "--feedback-ms", "300", "--no-intro", cwd=tmp_path)
    drill.answer_after(HUMAN_MS, "r")
    drill.expect(r"answered \(trial 1\)")
    assert FEEDBACK.search(drill.screen())  # the feedback is shown with its roll
    drill.expect(r"get ready \(trial 2\)")
    assert not FEEDBACK.search(drill.screen()), drill.screen()
    drill.stimulus()
    assert not FEEDBACK.search(drill.screen()), drill.screen()
    drill.answer("b")
    assert drill.finish()[0] == 0


def test_a_window_made_smaller_during_a_roll_pauses_says_the_size_needed_and_reruns_with_a_new_roll(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "1", "--seed", "5", "--log", str(log), *FAST, cwd=tmp_path)
    drill.stimulus()
    first_roll = drill.screen()
    drill.resize(20, 70)
    drill.expect("Press q to quit")
    assert "at least\n80x24 (columns x rows); this one is 70x20." in drill.screen()
    drill.resize(24, 80)
    number = drill.stimulus()
    assert number == 1
    assert drill.screen() != first_roll  # another roll
    drill.answer("r")
    assert drill.finish()[0] == 0
    frame = load_logs([log])
    assert frame["trial"].tolist() == [1] and frame["answer"].tolist() == ["red"]  # the interrupted roll is no row


def test_a_window_made_smaller_during_the_fixation_mark_is_handled_the_same_way(tmp_path):
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "1", "--log", str(log), "--foreperiod-ms", "800,800",
                  "--feedback-ms", "0", "--no-intro", cwd=tmp_path)
    drill.expect(r"get ready \(trial 1\)")
    drill.resize(22, 80)
    drill.expect("Press q to quit")
    assert "this one is 80x22" in drill.screen()
    drill.resize(30, 100)
    drill.stimulus()
    drill.answer("w")
    assert drill.finish()[0] == 0
    assert load_logs([log])["answer"].tolist() == ["white"]


def test_a_die_of_many_commands_is_taught_page_by_page_and_nothing_is_cut(tmp_path):
    import tomli_w

    from diavolo_stats.drill.settings import DrillSettings
    from diavolo_stats.drill.teaching import intro_lines

    own = {f"many-{n}": {"label": f"many dice of {n % 6 + 1}", "rule": f"the color with the most dice of {n % 6 + 1} "
                         "or more wins; a tie is grey", "figure": f"count:>={n % 6 + 1}", "wins": "highest"}
           for n in range(1, 25)}  # the most a command die holds: more lines than the 24 rows of the terminal
    rules = tmp_path / "many.toml"
    rules.write_text(tomli_w.dumps({"commands": own, "command_die": list(own)}), encoding="utf-8")
    variant = read_variant(rules)
    intro, commands = intro_lines(DrillSettings(player="Ana", variant=variant)), help_lines(variant)
    assert len(intro) > 24 and len(commands) > 2 * 24 and all(len(line) <= 80 for line in intro + commands)
    drill = Drill("--player", "Ana", "--trials", "1", "--log", str(tmp_path / "drills.csv"), "--variant", str(rules),
                  *PACE, cwd=tmp_path)
    drill.expect(r"any key: the next page \(1 of 2\)")
    shown = [drill.screen()]
    drill.child.send(" ")
    drill.expect(r"Press any key to start\.")  # the page's last line: the page is whole
    shown.append(drill.screen())
    assert [line for line in intro if line.rstrip() and not any(line.rstrip() in page for page in shown)] == []
    drill.child.send("?")  # the commands, from the introduction's last page
    pages = []
    for number in range(1, 4):
        drill.expect(rf"any key: the next page \({number} of 4\)")
        pages.append(drill.screen())
        drill.child.send(" ")
    drill.expect(r"replaced by a new one\)")
    pages.append(drill.screen())
    assert [line for line in commands if line.rstrip() and not any(line.rstrip() in page for page in pages)] == []
    drill.child.send(" ")  # back: the drill starts
    drill.answer_after(HUMAN_MS, "g")
    assert drill.finish()[0] == 0


def test_a_reason_longer_than_a_line_is_shown_whole_on_two(tmp_path):
    # A tie-break worked step by step runs past 80 columns (up to 134 characters in this file's rolls).
    rules = REPO / "examples" / "variants" / "tie-break.toml"
    log = tmp_path / "drills.csv"
    drill = Drill("--player", "Ana", "--trials", "12", "--seed", "3", "--log", str(log), "--variant", str(rules),
                  "--foreperiod-ms", "30,60", "--feedback-ms", "200", "--no-intro", cwd=tmp_path)
    screens = []
    for number in range(1, 13):
        drill.answer_after(HUMAN_MS, "g")
        drill.expect(rf"answered \(trial {number}\)")
        screens.append(drill.screen())
    assert drill.finish()[0] == 0
    variant = read_variant(rules)
    long_ones = 0
    for (_, row), screen in zip(load_logs([log]).iterrows(), screens, strict=True):
        reason = resolve(variant, variant.command(row["command"]), json.loads(row["dice"]),
                         json.loads(row["positions"])).reason
        bottom = screen.splitlines()[-3:-1]  # the two lines above the status line
        assert " ".join(line.strip() for line in bottom).strip() == reason, (reason, bottom)
        long_ones += len(reason) > 80
    assert long_ones > 0  # some of the rolls need both lines
