"""The browser drill in a real Chromium against the real `diavolo serve`: timing, the log, failures.

Screenshots are saved into each test's folder, and also into
$DIAVOLO_SCREENSHOTS when it is set (`DIAVOLO_SCREENSHOTS=docs/img` refreshes
the manual's pictures).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import threading
import time
from pathlib import Path

import pexpect
import pytest
from helpers.browser import (
    Server,
    answer_after,
    press_at,
    save_screenshot,
    start_drill,
    wait_for_stimulus,
    wait_for_summary,
)
from helpers.drill_logs import expected_from_row
from helpers.pty_drill import HUMAN_MS

from diavolo_stats.analytics.synthetic import write_synthetic_log
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill import DEFAULT_TRIALS, MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.log import load_logs, read_rolls
from diavolo_stats.drill.roll_features import logged_features
from diavolo_stats.drill.scheduler import roll_kinds
from diavolo_stats.drill.summary import summarize_session
from diavolo_stats.drill.teaching import command_words
from diavolo_stats.web.trials import MIN_LATENCY_MS

# Every key is checked exactly against the browser's own stamp. How late after the intended moment a
# key arrives (about 2 ms on an idle machine: the DevTools message, the browser's input pipeline) is a
# figure of benchmarks/bench_browser_latency.py, not a test: a busy machine can delay any key.



def wait_until_kept(page) -> None:
    """Wait until the page says it keeps answers it could not send."""
    page.wait_for_function("() => document.querySelector('#queue-status').textContent.includes('kept in this browser')")



def test_logged_latency_is_the_delay_of_the_key_after_the_onset(server, page, log_path, tmp_path):
    delays = [180.0, 420.0, 260.0, 650.0, 330.0, 500.0, 220.0]
    start_drill(page, server.url, "Ann", len(delays))
    # What the browser stamped on each key, seen by a listener of the test's own, and each onset.
    page.evaluate("() => { window.keyStamps = []; "
                  "addEventListener('keydown', (event) => keyStamps.push(event.timeStamp), true); }")
    cdp = page.context.new_cdp_session(page)
    onsets = []
    for delay in delays:
        onsets.append(wait_for_stimulus(page))
        press_at(page, cdp, onsets[-1] + delay, "r")
    wait_for_summary(page)
    stamps = page.evaluate("() => keyStamps")
    frame = load_logs([log_path])
    assert list(frame["trial"]) == list(range(1, len(delays) + 1)) and set(frame["answer"]) == {"red"}
    for delay, onset, stamp, (_, row) in zip(delays, onsets, stamps, frame.iterrows()):
        # Exactly the key's timeStamp minus the onset (to the 0.1 ms logged): the drill adds nothing to
        # what the browser stamped, and the latency is never less than the delay the key was sent at.
        assert row["latency_ms"] == pytest.approx(stamp - onset, abs=0.051)
        assert row["latency_ms"] >= delay - 0.05, (delay, row["latency_ms"])
        assert row["expected"] == expected_from_row(row)
        assert bool(row["correct"]) is ("red" in json.loads(row["accepted"]))
        assert row["interface"] == "browser"


def test_the_table_is_drawn_where_the_roll_is_judged_with_its_aspect_kept(server, page, tmp_path):
    start_drill(page, server.url, "Ann", 2, feedback_ms="60000")
    onset = wait_for_stimulus(page)
    save_screenshot(page, tmp_path, "drill-roll.png")
    # Every die's drawn center, in screen pixels, against its logged position scaled to the table's box.
    placed = page.evaluate("""() => {
        const table = document.querySelector('#table').getBoundingClientRect();
        const shown = document.querySelector('#table').viewBox.baseVal; // the scatter area and any border
        return [...document.querySelectorAll('#dice .die > rect')].map((rect) => {
            const box = rect.getBoundingClientRect();
            const [x, y] = rect.parentNode.getAttribute('transform').match(/[-\\d.]+/g).map(Number);
            return {screen: [box.x + box.width / 2, box.y + box.height / 2], width: box.width,
                    expected: [table.x + (x - shown.x) * table.width / shown.width,
                               table.y + (y - shown.y) * table.height / shown.height],
                    scale: table.width / shown.width, aspect: table.width / table.height};
        });
    }""")
    assert len(placed) == 1 + 9  # the command die and nine colored dice
    for die in placed:
        assert die["aspect"] == pytest.approx(1.0)
        assert abs(die["screen"][0] - die["expected"][0]) < 1 and abs(die["screen"][1] - die["expected"][1]) < 1
        assert die["width"] == pytest.approx(16 * die["scale"], abs=1)
    page.wait_for_function("at => performance.now() >= at", arg=onset + MIN_LATENCY_MS)  # sooner is too early
    page.keyboard.press("w")
    page.wait_for_function("() => document.body.dataset.state === 'feedback'")
    assert re.match(r"(RIGHT|WRONG)", page.locator("#verdict").inner_text())
    assert page.locator("#reason").inner_text()
    save_screenshot(page, tmp_path, "drill-feedback.png")


def test_a_key_before_the_roll_is_logged_as_too_early_and_the_trial_runs_again(server, page, log_path):
    start_drill(page, server.url, "Ann", 1, foreperiod_ms="3000,3000", feedback_ms="1500")
    page.wait_for_function("() => document.body.dataset.state === 'fixation'")
    page.keyboard.press("b")
    page.wait_for_function("() => document.querySelector('#verdict').textContent.startsWith('TOO EARLY')")
    cdp = page.context.new_cdp_session(page)
    answer_after(page, cdp, 100, "g")
    wait_for_summary(page)
    frame = load_logs([log_path])
    assert list(frame["too_early"]) == [True, False] and list(frame["answer"]) == ["none", "grey"]
    assert list(frame["trial"]) == [1, 2]


def test_killing_the_server_mid_session_loses_no_answer_and_duplicates_none(log_path, page):
    first = Server(log_path)
    port = first.port
    try:
        start_drill(page, first.url, "Ann", 6)
        cdp = page.context.new_cdp_session(page)
        for _ in range(2):
            answer_after(page, cdp, 100, "b")
        wait_for_stimulus(page)  # trial 3 is on screen (trial 4's roll already fetched)
        # trials 1 and 2 stored: the page keeps none (on a busy machine trial 2's post may still be on its way)
        page.wait_for_function("() => JSON.parse(localStorage.getItem('diavolo.pending-trials') || '[]').length === 0")
        first.kill()
        answer_after(page, cdp, 100, "r")  # trial 3: kept in the browser
        answer_after(page, cdp, 100, "w")  # trial 4: kept as well
        wait_until_kept(page)
        assert len(load_logs([log_path])) == 2
        second = Server(log_path, port)
    finally:
        first.stop()
    try:
        # A trial the server stored but whose answer was lost is sent again: it must be stored once.
        page.evaluate("""() => {
            const kept = JSON.parse(localStorage.getItem('diavolo.pending-trials') || '[]');
            localStorage.setItem('diavolo.pending-trials', JSON.stringify([...kept, {...kept[0], trial: 1}]));
        }""")
        for key in ("b", "g"):
            answer_after(page, cdp, 100, key)  # trials 5 and 6, once the server is back
        wait_for_summary(page)
    finally:
        second.stop()
    frame = load_logs([log_path])
    assert sorted(frame["trial"]) == [1, 2, 3, 4, 5, 6]
    assert list(frame.sort_values("trial")["answer"]) == ["black", "black", "red", "white", "black", "grey"]


def test_a_reloaded_page_sends_the_answers_it_kept(server, page, log_path):
    start_drill(page, server.url, "Ann", 3)
    cdp = page.context.new_cdp_session(page)
    page.route("**/api/trials", lambda route: route.abort())  # the server cannot be reached
    answer_after(page, cdp, 100, "r")
    wait_until_kept(page)
    assert not log_path.exists() or len(load_logs([log_path])) == 0
    page.unroute("**/api/trials")
    page.reload()
    page.wait_for_function("() => localStorage.getItem('diavolo.pending-trials') === '[]'", timeout=15_000)
    frame = load_logs([log_path])
    assert list(frame["trial"]) == [1] and list(frame["answer"]) == ["red"]


def drive_terminal_drill(log_path: Path, trials: int, done: list) -> None:
    """A `diavolo drill` in a pseudo-terminal answering each roll with `b` as a person would, HUMAN_MS after it shows
    (a key under the human floor is logged as too early and the trial is dealt again), on the same log."""
    child = pexpect.spawn(sys.executable, ["-m", "diavolo_stats", "drill", "--player", "Tom", "--trials", str(trials),
                                           "--log", str(log_path), "--foreperiod-ms", "30,60", "--feedback-ms", "0",
                                           "--no-intro"],
                          encoding="utf-8", dimensions=(24, 80), timeout=30,
                          env={**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"})
    answered = 0
    while True:
        index = child.expect([re.escape("\x1b[6n"), r"answer now \(trial \d+\)", pexpect.EOF])
        if index == 0:
            child.send("\x1b[1;1R")  # where the cursor is, as a terminal answers
        elif index == 1:
            time.sleep(HUMAN_MS / 1000)
            child.send("b")
            answered += 1
        else:
            break
    child.close()
    done.append((child.exitstatus, answered))


def test_two_browsers_and_a_terminal_drill_share_one_log(server, browser, log_path):
    trials = 8
    done: list = []
    terminal = threading.Thread(target=drive_terminal_drill, args=(log_path, trials, done))
    contexts = [browser.new_context() for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    try:
        for name, page in zip(("Ann", "Bea"), pages):
            start_drill(page, server.url, name, trials)
        terminal.start()
        sessions = [page.context.new_cdp_session(page) for page in pages]
        for _ in range(trials):
            for page, cdp in zip(pages, sessions):
                answer_after(page, cdp, MIN_LATENCY_MS + 20, "g")  # no faster: the server refuses it
        for page in pages:
            wait_for_summary(page)
        terminal.join(60)
    finally:
        for context in contexts:
            context.close()
    assert done and done[0][0] == 0, done
    frame = load_logs([log_path])  # refuses a log with an interleaved or cut row
    per_player = frame.groupby("player")["trial"].apply(sorted).to_dict()
    assert per_player == {"Ann": list(range(1, trials + 1)), "Bea": list(range(1, trials + 1)),
                          "Tom": list(range(1, trials + 1))}
    assert frame.groupby("player")["session_id"].nunique().tolist() == [1, 1, 1]
    interfaces = frame.groupby("player")["interface"].unique().map(list).to_dict()
    assert interfaces == {"Ann": ["browser"], "Bea": ["browser"], "Tom": ["terminal"]}


def test_help_mid_trial_shows_every_command_and_drops_that_trial(server, page, log_path):
    start_drill(page, server.url, "Ann", 1)
    shown = wait_for_stimulus(page)
    first_roll = page.locator("#dice").inner_html()
    page.keyboard.press("?")
    assert page.locator("#help").is_visible()
    names = page.locator("#help dt").all_inner_texts()
    assert names == [*(command.label for command in Command), "grey"]  # by label, as the banner names them
    assert all(text.startswith("e.g.") for text in page.locator("#help .example").all_inner_texts())
    page.keyboard.press("Escape")
    cdp = page.context.new_cdp_session(page)
    onset = wait_for_stimulus(page)
    assert onset > shown
    assert page.locator("#dice").inner_html() != first_roll  # a new roll: the dropped one may have been seen
    press_at(page, cdp, onset + MIN_LATENCY_MS + 50, "b")  # sooner is too early
    wait_for_summary(page)
    frame = load_logs([log_path])
    assert list(frame["trial"]) == [1] and list(frame["answer"]) == ["black"]



def test_a_phone_plays_the_kids_game_by_tapping_the_answer_buttons(server, browser, log_path, tmp_path):
    # A touch screen the size of a phone: the answers are the on-screen buttons, timed when the finger lands.
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    try:
        page.goto(server.url.rstrip("/") + "/drill?foreperiod_ms=30,60&feedback_ms=0")
        page.fill("input[name=player]", "Kim")
        page.fill("input[name=trials]", "3")
        page.select_option("select[name=variant]", "kids")
        page.tap("button.start")
        tapped, banners = ["black", "grey", "white"], []
        for answer in tapped:
            onset = wait_for_stimulus(page)
            # no sooner than a person can answer: the server refuses a faster answer
            page.wait_for_function("at => performance.now() >= at", arg=onset + MIN_LATENCY_MS + 20)
            banners.append(page.locator("#command-banner").inner_text())
            buttons = page.locator("#answers button.answer")
            assert buttons.count() == 4  # black, red, white and grey
            for index in range(4):
                box = buttons.nth(index).bounding_box()
                assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= 390 and box["y"] < 844
                assert box["height"] >= 40  # big enough for a finger
            if answer == tapped[-1]:
                save_screenshot(page, tmp_path, "drill-phone.png")
            page.tap(f"#answers button.answer-{answer}")
        wait_for_summary(page)
        commands = [command.value for command in Command]
        words = command_words(Variant())  # as every roll serves them
        every_banner = page.evaluate(
            "async ([commands, words]) => { const table = await import('/static/table.js'); "
            "return commands.map((command) => table.commandBanner(words[command])); }", [commands, words])
    finally:
        context.close()
    assert not errors, f"errors in the page's scripts: {errors}"
    for command, banner in zip(commands, every_banner, strict=True):
        # The banner names the command once: "most odd", not "odd most odd".
        shown = banner.split()
        assert banner.endswith(Command(command).label) and len(shown) == len(set(shown)), banner
    frame = load_logs([log_path])
    assert list(frame["trial"]) == [1, 2, 3] and list(frame["answer"]) == tapped
    assert set(frame["variant"]) == {"kids"} and set(frame["dice_per_color"]) == {2}
    assert set(frame["interface"]) == {"browser"} and (frame["latency_ms"] > 0).all()
    for banner, (_, row) in zip(banners, frame.iterrows(), strict=True):
        assert row["correct"] == (row["answer"] in json.loads(row["accepted"])), row
        assert banner == every_banner[commands.index(row["command"])]


def test_each_answer_shows_its_time_and_the_summary_leads_with_the_median_time_and_accuracy(
        server, page, log_path, tmp_path):
    start_drill(page, server.url, "Ann", 3, feedback_ms="300")
    # Every verdict the page shows, seen by an observer of the test's own (a verdict stays only 300 ms).
    page.evaluate("""() => { window.verdicts = [];
        new MutationObserver(() => { const text = document.querySelector('#verdict').textContent;
            if (text) verdicts.push(text); }).observe(document.querySelector('#verdict'), {childList: true}); }""")
    cdp = page.context.new_cdp_session(page)
    for delay, key in ((150, "r"), (300, "b"), (200, "w")):
        answer_after(page, cdp, delay, key)
        if key == "b":
            page.wait_for_function("() => verdicts.length === 2")
            save_screenshot(page, tmp_path, "drill-feedback-time.png")
    wait_for_summary(page)
    verdicts = page.evaluate("() => verdicts")
    frame = load_logs([log_path])
    assert len(verdicts) == len(frame) == 3
    for verdict, (_, row) in zip(verdicts, frame.iterrows(), strict=True):
        # "RIGHT: red, 431 ms" or "WRONG: you said black, 431 ms; the answer is red": the time logged, whole ms.
        shown = f"{row['answer']}, {math.floor(row['latency_ms'] + 0.5)} ms"
        assert verdict.startswith(f"RIGHT: {shown}" if row["correct"] else f"WRONG: you said {shown}; "), verdict
    # The summary leads with the library's sentences, each fact in its own paragraph.
    sentences = page.locator("#summary-sentences > p").all_inner_texts()
    assert sentences == summarize_session(frame, frame["session_id"].iloc[0]).sentences()
    assert sentences[0].startswith("Median time") and sentences[1].startswith("Accuracy: ")
    save_screenshot(page, tmp_path, "drill-summary.png")


def test_a_session_may_be_as_long_as_the_library_allows(server, page):
    page.goto(server.url.rstrip("/") + "/drill")
    trials = page.locator("input[name=trials]")
    assert trials.get_attribute("max") == str(MAX_TRIALS_PER_SESSION)
    assert trials.input_value() == str(DEFAULT_TRIALS)
    page.fill("input[name=player]", "Ann")
    page.fill("input[name=trials]", str(MAX_TRIALS_PER_SESSION))
    page.click("button.start")
    page.wait_for_function("() => document.body.dataset.state === 'fixation'")
    assert page.locator("#progress").inner_text() == f"trial 1 of {MAX_TRIALS_PER_SESSION}"
    page.goto(server.url.rstrip("/") + "/drill")
    page.fill("input[name=trials]", str(MAX_TRIALS_PER_SESSION + 1))
    page.click("button.start")  # the form itself refuses one trial more
    assert page.locator("input[name=trials]").evaluate("input => input.validity.rangeOverflow")
    assert page.evaluate("() => document.body.dataset.state") == "setup"


def test_no_answer_in_time_is_logged_as_timed_out(server, page, log_path):
    start_drill(page, server.url, "Ann", 1, timeout_s="0.3")
    wait_for_stimulus(page)
    page.wait_for_function("() => document.querySelector('#verdict').textContent.startsWith('NO ANSWER within 0.3 s')")
    wait_for_summary(page)
    row = load_logs([log_path]).iloc[0]
    # The page says only what happened (no answer, not too early); the server works out the timeout.
    assert (row["answer"], bool(row["timed_out"]), bool(row["too_early"])) == ("none", True, False)
    assert page.locator("#summary-sentences > p").all_inner_texts()[3] == "Timed out (no answer in time): 1."


def test_an_adaptive_session_deals_the_types_of_roll_the_scheduler_chooses_from_the_log(log_path, page):
    write_synthetic_log(log_path, ["preset:average"], sessions=1, trials=60)  # the player's history
    before = len(load_logs([log_path]))
    served = []
    # Kept as they come, read after the session: a body read inside the handler could be kept late.
    page.on("response", lambda response: served.append(response) if "/api/roll?" in response.url else None)
    running = Server(log_path)
    try:
        start_drill(page, running.url, "synthetic-average", 3, adaptive="1")
        cdp = page.context.new_cdp_session(page)
        for _ in range(3):
            answer_after(page, cdp, 150, "r")
        wait_for_summary(page)
    finally:
        running.stop()
    added = load_logs([log_path]).iloc[before:]
    assert len(added) == 3 and set(added["player"]) == {"synthetic-average"}
    # Each roll the page asked for was the server's adaptive choice, of the type it names.
    dealt = {(roll["command"], json.dumps(roll["dice"], sort_keys=True)): roll["roll_type"]
             for roll in (response.json() for response in served)}
    logged = [dealt[(row["command"], json.dumps(json.loads(row["dice"]), sort_keys=True))]
              for _, row in added.iterrows()]
    assert all(roll_type["of_kind"] for roll_type in logged)
    assert [roll_type["kind"] for roll_type in logged] == list(roll_kinds(logged_features(read_rolls(added))))
