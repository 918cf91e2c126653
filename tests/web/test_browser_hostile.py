"""The browser drill's queue in Chromium when the server cannot store a trial, or refuses one for good."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

from helpers.browser import answer_after, start_drill

from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import load_logs

HOLD_LOCK = """
import fcntl, sys
log = open(sys.argv[1], "a")
fcntl.flock(log, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.read()  # until the test closes our input
"""


def served_trial(url: str, number: int, **changes) -> dict:
    """Trial `number` of a session as the page sends it, on the roll the server deals for it."""
    with urllib.request.urlopen(f"{url.rstrip('/')}/api/roll?seed=5&trial={number}", timeout=60) as response:
        roll = json.load(response)
    trial = {"session_id": "5b7e5c1a-2f4d-4e6b-9a1c-3d5e7f9a1b2c", "trial": number, "player": "Ann",
             "variant": "standard", "command_first": False, "command": roll["command"], "dice": roll["dice"],
             "positions": roll["positions"], "answer": "red", "latency_ms": 612.5, "too_early": False,
             "timed_out": False, "foreperiod_ms": roll["foreperiod_ms"], "seed": 5,
             "timestamp": "2026-11-30T12:00:00.000Z"}
    return {**trial, **changes}


def test_a_trial_the_log_cannot_take_is_kept_and_lands_once_when_it_can(server, page, log_path):
    posted: list[int] = []
    page.on("response", lambda response: posted.append(response.status) if "/api/trials" in response.url else None)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(log_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "locked\n"
        start_drill(page, server.url, "Ann", 1)
        answer_after(page, page.context.new_cdp_session(page), 300, "r")
        # The server waits for the lock as long as the log's writer allows, then answers 503.
        page.wait_for_function("() => document.querySelector('#queue-status').textContent"
                               ".includes('kept in this browser')", timeout=90_000)
        assert 503 in posted and 400 not in posted, posted
        assert len(load_logs([log_path])) == 0
    finally:
        holder.stdin.close()
        holder.wait(30)
    page.wait_for_function("() => localStorage.getItem('diavolo.pending-trials') === '[]'", timeout=90_000)
    frame = load_logs([log_path])
    assert list(frame["trial"]) == [1] and list(frame["answer"]) == ["red"]  # stored exactly once
    assert page.evaluate("localStorage.getItem('diavolo.rejected-trials')") in (None, "[]")


def test_a_trial_refused_for_good_is_shown_and_does_not_block_the_one_behind_it(server, page, log_path):
    bad, good = served_trial(server.url, 1), served_trial(server.url, 2)
    page.goto(server.url.rstrip("/") + "/static/favicon.svg")  # this origin's storage, before any script runs
    page.evaluate("""([bad, good]) => {
        bad.player = "Ann" + String.fromCharCode(0xd800);  // a lone surrogate: no UTF-8 spells it
        localStorage.setItem("diavolo.pending-trials", JSON.stringify([bad, good]));
    }""", [bad, good])
    page.goto(server.url.rstrip("/") + "/drill")
    page.wait_for_function("() => localStorage.getItem('diavolo.pending-trials') === '[]'", timeout=60_000)
    frame = load_logs([log_path])
    assert list(frame["trial"]) == [2]
    rejected = json.loads(page.evaluate("localStorage.getItem('diavolo.rejected-trials')"))
    assert [kept["trial"]["trial"] for kept in rejected] == [1] and rejected[0]["error"].startswith("player: ")
    assert "refused" in page.text_content("#queue-status")


def test_a_key_faster_than_a_person_reads_the_roll_is_too_early_not_refused(server, page, log_path):
    start_drill(page, server.url, "Ann", 1, foreperiod_ms="3000,3000")  # time to watch for the first onset
    cdp = page.context.new_cdp_session(page)
    # A key the page reads 5 ms after the onset, whatever the machine's load: dispatched in the page itself as
    # soon as the roll's onset is set (a key through the test and the browser's input can be 100s of ms late).
    page.evaluate("""() => new Promise((done) => new MutationObserver((changes, observer) => {
        const onset = Number(document.body.dataset.onset);
        if (!onset) return;
        observer.disconnect();
        while (performance.now() < onset + 5) {}
        document.dispatchEvent(new KeyboardEvent("keydown", { key: "r", bubbles: true }));
        done();
    }).observe(document.body, { attributes: true, attributeFilter: ["data-onset"] }))""")
    answer_after(page, cdp, MIN_LATENCY_MS + 200, "b")  # the new roll, read and answered
    page.wait_for_function("() => document.querySelector('#summary-table tbody tr') !== null", timeout=30_000)
    page.wait_for_function("() => localStorage.getItem('diavolo.pending-trials') === '[]'", timeout=30_000)
    frame = load_logs([log_path]).sort_values("trial")
    assert list(frame["too_early"]) == [True, False] and list(frame["answer"]) == ["none", "black"]
    assert page.evaluate("localStorage.getItem('diavolo.rejected-trials')") in (None, "[]")
