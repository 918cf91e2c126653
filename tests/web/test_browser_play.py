"""The Play page in a real Chromium against the real `diavolo serve`: whole games by keys and by touch.

Screenshots are saved into each test's folder, and into $DIAVOLO_SCREENSHOTS
when it is set (`DIAVOLO_SCREENSHOTS=docs/img` refreshes the manual's pictures).
"""

from __future__ import annotations

import json

import pytest
from helpers.browser import UNHURRIED_S, press_at, save_screenshot, wait_for_stimulus

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.game.referee import engine_mismatches
from diavolo_stats.game.settings import GameRules

pytestmark = pytest.mark.browser

KEYS = {"black": "b", "red": "r", "white": "w", "grey": "g"}


def right_answer(roll: dict, variant: Variant) -> str:
    return resolve(variant, Command(roll["command"]), roll["dice"], roll["positions"]).answer


def a_wrong_answer(roll: dict, variant: Variant) -> str:
    right = resolve(variant, Command(roll["command"]), roll["dice"], roll["positions"]).accepted
    return next(answer for answer in KEYS if answer not in right)


def start_game(page, url: str, player: str, opponents: list[str], variant: str = "standard") -> list:
    """Open the Play page, set up a game and start it; the list the page's round and game replies are kept in."""
    replies: list = []
    page.on("response", lambda response: replies.append(response) if "/api/play/" in response.url else None)
    page.goto(url.rstrip("/") + "/play?foreperiod_ms=200,400&feedback_ms=150")
    page.fill("input[name=player]", player)
    page.fill("input[name=timeout_s]", UNHURRIED_S)
    selects = page.locator("select[name=opponent]")
    for index in range(selects.count()):
        selects.nth(index).select_option(opponents[index] if index < len(opponents) else "")
    page.select_option("select[name=variant]", variant)
    # Every reason the page shows, kept as it is shown (the next round clears it)
    page.evaluate("""() => { window.reasons = []; new MutationObserver(() => {
        const text = document.querySelector('#reason').textContent; if (text) window.reasons.push(text);
      }).observe(document.querySelector('#reason'), { childList: true, characterData: true, subtree: true }); }""")
    return replies


def latest_roll(replies: list, number: int) -> dict:
    rolls = [r.json() for r in replies if r.url.endswith("/round") and r.request.method == "POST"]
    return next(roll for roll in reversed(rolls) if roll["round"] == number)


def game_id(replies: list) -> str:
    return next(r.json()["id"] for r in replies if r.url.endswith("/api/play/games"))


def check_the_finished_game(page, server, replies, log_path, human: str, answers: dict) -> None:
    """The page says the engine agrees; the round log replayed here agrees; every answer is logged once."""
    page.wait_for_function("() => document.body.dataset.state === 'over'", timeout=60_000)
    assert page.evaluate("document.body.dataset.engineMismatches") == "0"
    game = page.request.get(server.url.split("?")[0].rstrip("/") + f"/api/play/games/{game_id(replies)}").json()
    assert game["over"] and game["engine_check"]["mismatches"] == []
    assert engine_mismatches(game["colors"], game["rounds"], GameRules(**{k: game[k] for k in ("devils", "end")})) == []
    rows = load_logs([log_path])
    assert list(rows["trial"]) == sorted(answers) and set(rows["interface"]) == {"game"}
    assert set(rows["player"]) == {human} and set(rows["session_id"]) == {game["id"]}
    for _, row in rows.iterrows():
        # an answer faster than a person's is logged as too early and grabs nothing
        counted = not row["too_early"]
        assert row["answer"] == (answers[row["trial"]] if counted else "none")
        record = game["rounds"][row["trial"] - 1]
        assert record["grabs"][0]["answer"] == (row["answer"] if counted else None)
        if counted:
            assert record["grabs"][0]["latency_ms"] == pytest.approx(row["latency_ms"], abs=0.05)
        assert row["correct"] == (row["answer"] in json.loads(row["accepted"]))


def test_a_game_against_two_modelled_players_played_to_its_end_by_keys(server, page, log_path, tmp_path):
    variant = Variant()
    replies = start_game(page, server.url, "Ann", ["preset:average", "preset:expert"])
    page.click("button.start")
    cdp = page.context.new_cdp_session(page)
    answers, number = {}, 0
    # Right in the first round, then wrong until out: the models play the rest out at once.
    while True:
        page.wait_for_function("() => ['stimulus', 'over'].includes(document.body.dataset.state)", timeout=30_000)
        if page.evaluate("document.body.dataset.state") == "over":
            break
        onset = wait_for_stimulus(page)
        number = int(page.evaluate("document.body.dataset.round"))
        roll = latest_roll(replies, number)
        answers[number] = right_answer(roll, variant) if number == 1 else a_wrong_answer(roll, variant)
        press_at(page, cdp, onset + 250, KEYS[answers[number]])
        page.wait_for_function("n => document.body.dataset.state === 'result' || document.body.dataset.state === "
                               "'over' || Number(document.body.dataset.round) > n", arg=number, timeout=30_000)
        if number == 2:
            save_screenshot(page, tmp_path, "play-round.png")
            seats = page.locator("#seats li.seat")
            assert seats.count() == 3 and "Ann" in seats.nth(0).inner_text()
            page.wait_for_function("n => window.reasons.length >= n", arg=number)
            # why the answer was right, then every grab with its time, fastest first
            shown = page.evaluate("window.reasons")[number - 1]
            assert shown.startswith(roll_reason(roll, variant) + ". ") and "Ann: " in shown
    save_screenshot(page, tmp_path, "play-over.png")
    assert len(answers) >= 5  # 5 gems: out after five wrong rounds at the earliest
    check_the_finished_game(page, server, replies, log_path, "Ann", answers)


def test_a_roll_left_unanswered_for_the_seconds_the_player_chose_is_logged_as_no_answer(server, page, log_path):
    start_game(page, server.url, "Ann", ["preset:expert"])
    page.fill("input[name=timeout_s]", "0.5")
    page.click("button.start")
    wait_for_stimulus(page)
    page.wait_for_function("() => Number(document.body.dataset.round) > 1 || ['result', 'over'].includes("
                           "document.body.dataset.state)", timeout=30_000)
    (row,) = load_logs([log_path]).itertuples()
    assert (row.trial, row.answer, row.timed_out, row.too_early) == (1, "none", True, False)


def roll_reason(roll: dict, variant: Variant) -> str:
    return resolve(variant, Command(roll["command"]), roll["dice"], roll["positions"]).reason


def test_a_game_on_a_phone_sized_touch_screen(server, browser, log_path, tmp_path):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    variant = Variant.preset("kids")
    try:
        replies = start_game(page, server.url, "Kim", ["preset:novice"], variant="kids")
        page.tap("button.start")
        answers = {}
        while True:
            page.wait_for_function("() => ['stimulus', 'over'].includes(document.body.dataset.state)",
                                   timeout=30_000)
            if page.evaluate("document.body.dataset.state") == "over":
                break
            number = int(page.evaluate("document.body.dataset.round"))
            answers[number] = a_wrong_answer(latest_roll(replies, number), variant)
            buttons = page.locator("#answers button.answer")
            for index in range(buttons.count()):
                box = buttons.nth(index).bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
                assert box["y"] + box["height"] <= 844 and box["height"] >= 40  # on screen, a finger high
            if number == 1:
                save_screenshot(page, tmp_path, "play-phone.png")
            page.wait_for_timeout(150)  # a person's reaction, not a wait for the page
            page.tap(f"#answers button.answer-{answers[number]}")
            page.wait_for_function("n => document.body.dataset.state !== 'stimulus' || "
                                   "Number(document.body.dataset.round) > n", arg=number, timeout=30_000)
        check_the_finished_game(page, server, replies, log_path, "Kim", answers)
    finally:
        context.close()
    assert not errors, f"errors in the page's scripts: {errors}"


class Kept:
    """A reply of the page, its body read while the page that asked for it is still open."""

    def __init__(self, reply):
        self.url, self.request, self._body = reply.url, reply.request, reply.json()

    def json(self):
        return self._body


def test_a_reloaded_page_takes_its_game_up_again_at_the_round_on_the_table(server, page, log_path):
    variant = Variant()
    replies = start_game(page, server.url, "Ann", ["preset:expert"])
    page.click("button.start")
    onset = wait_for_stimulus(page)
    roll = latest_roll(replies, 1)
    answers = {1: right_answer(roll, variant)}
    press_at(page, page.context.new_cdp_session(page), onset + 250, KEYS[answers[1]])
    page.wait_for_function("() => Number(document.body.dataset.round) > 1 && document.body.dataset.state === "
                           "'stimulus'", timeout=30_000)
    on_the_table = latest_roll(replies, 2)
    before = [Kept(reply) for reply in replies]  # read now: a reply's body is gone once its page is
    cut = len(replies)
    page.reload()  # mid-round: round 2 is on the table, not answered
    onset = wait_for_stimulus(page)
    replies[:cut] = before
    assert int(page.evaluate("document.body.dataset.round")) == 2
    again = [r.json() for r in replies[cut:] if r.url.endswith("/round") and r.request.method == "POST"][-1]
    assert (again["round"], again["dice"], again["command"]) == (2, on_the_table["dice"], on_the_table["command"])
    assert {r.url.split("/api/play/games/")[1].split("/")[0] for r in replies if "/api/play/games/" in r.url} == {
        game_id(replies)}  # the same game, not a new one
    cdp = page.context.new_cdp_session(page)
    number = 2
    while True:  # wrong until out: the game ends, every answer logged once, before and after the reload
        answers[number] = a_wrong_answer(latest_roll(replies, number), variant)
        press_at(page, cdp, onset + 250, KEYS[answers[number]])
        page.wait_for_function("n => document.body.dataset.state === 'over' || (document.body.dataset.state === "
                               "'stimulus' && Number(document.body.dataset.round) > n)", arg=number, timeout=30_000)
        if page.evaluate("document.body.dataset.state") == "over":
            break
        onset = wait_for_stimulus(page)
        number = int(page.evaluate("document.body.dataset.round"))
    check_the_finished_game(page, server, replies, log_path, "Ann", answers)
