"""The Play page, a room and the drill on a desktop window and on a phone: nothing ever scrolls sideways,
every die lies wholly on the drawn table, no die covers another and the command's label covers none, at every
moment of whole games.

The Play and room tests play games until each has checked ROLLS rolls (a game lasts at least five: someone
must lose five gems); the drill's checks DRILL_ROLLS, so over fifty rolls are checked at each size.
"""

from __future__ import annotations

import pytest
from helpers.browser import UNHURRIED_S, RoomPlayer, press_at, start_drill, wait_for_stimulus, wait_for_summary

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill import MIN_LATENCY_MS

pytestmark = pytest.mark.browser

ROLLS = 13
DRILL_ROLLS = 50
KEYS = {"black": "b", "red": "r", "white": "w", "grey": "g"}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
SCREENS = pytest.mark.parametrize("screen", [DESKTOP, PHONE], ids=["1280x800", "390x844-touch"])

# What the page shows at this moment, measured in its own pixels: its scrolling width against the window's,
# every die's box (the command die's too) against the felt's and every other die's, and the command's label
# against every die.
MEASURE = """() => {
  const box = (node) => { const r = node.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  const label = document.querySelector('#dice .command-name');
  return { state: document.body.dataset.state, scrollWidth: document.documentElement.scrollWidth,
    width: window.innerWidth, felt: box(document.querySelector('#felt')),
    dice: [...document.querySelectorAll('#dice .die > rect')].map(box), label: label && box(label) };
}"""


def apart(one: dict, other: dict, slack: float = 0.0) -> bool:
    """Whether two boxes do not overlap by more than `slack` px either way."""
    return (one["right"] <= other["left"] + slack or other["right"] <= one["left"] + slack
            or one["bottom"] <= other["top"] + slack or other["bottom"] <= one["top"] + slack)


def check_layout(page, seen: list) -> dict:
    """Assert that the page does not scroll sideways and, while dice are on the table, that each lies on the
    felt, clear of every other die, and the label covers none; what was measured is added to `seen`."""
    shown = page.evaluate(MEASURE)
    seen.append(shown)
    assert shown["scrollWidth"] <= shown["width"], shown
    if shown["state"] in ("stimulus", "sent", "result") and shown["dice"]:
        felt, dice = shown["felt"], shown["dice"]
        for number, die in enumerate(dice):  # half a pixel for the browser's rounding of the scaled drawing
            assert die["left"] >= felt["left"] - 0.5 and die["right"] <= felt["right"] + 0.5, shown
            assert die["top"] >= felt["top"] - 0.5 and die["bottom"] <= felt["bottom"] + 0.5, shown
            for other in dice[number + 1:]:  # dice of the model may touch; none is drawn on another
                assert apart(die, other, slack=0.5), (die, other, shown)
        if shown["label"] is not None:
            covered = [die for die in dice if not apart(shown["label"], die)]
            assert not covered, (shown["label"], covered, shown)  # the dice it covers first: a long list is cut
    return shown


def wrong_answer(roll: dict) -> str:
    accepted = resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).accepted
    return next(answer for answer in KEYS if answer not in accepted)


def answer(page, cdp, screen: dict, onset: float, given: str) -> None:
    """Answer `given` after a person's reaction: a tap on a touch screen, else its key."""
    if screen.get("has_touch"):
        page.wait_for_function("at => performance.now() >= at", arg=onset + MIN_LATENCY_MS + 20)
        page.tap(f"#answers button.answer-{given}")
    else:
        press_at(page, cdp, onset + MIN_LATENCY_MS + 20, KEYS[given])


@SCREENS
def test_a_play_game_fits_the_screen_at_every_moment(server, browser, screen):
    context = browser.new_context(**screen)
    page = context.new_page()
    errors, rounds, seen = [], [], []
    page.on("pageerror", lambda error: errors.append(error))
    # Kept as they come, read later: a body read inside the handler would let the test run on before it was kept.
    page.on("response", lambda reply: rounds.append(reply) if reply.url.endswith("/round") and reply.ok else None)

    def roll(number: int) -> dict:
        return next(dealt for dealt in (reply.json() for reply in reversed(rounds)) if dealt["round"] == number)

    cdp = context.new_cdp_session(page)
    try:
        page.goto(server.url.rstrip("/") + "/play?foreperiod_ms=100,200&feedback_ms=100")
        page.fill("input[name=player]", "Kim")
        page.fill("input[name=timeout_s]", UNHURRIED_S)
        check_layout(page, seen)
        checked = 0
        while checked < ROLLS:
            rounds.clear()  # before the start: a new game counts from one; its first round can come during the click
            page.click("button.start")
            number = 0
            while True:
                page.wait_for_function("n => document.body.dataset.state === 'over' || (Number(document.body"
                                       ".dataset.round) > n && ['fixation', 'stimulus'].includes(document.body"
                                       ".dataset.state))", arg=number, timeout=30_000)
                check_layout(page, seen)
                if page.evaluate("document.body.dataset.state") == "over":
                    break
                onset = wait_for_stimulus(page)
                number = int(page.evaluate("document.body.dataset.round"))
                check_layout(page, seen)
                answer(page, cdp, screen, onset, wrong_answer(roll(number)))  # wrong: out in five rounds
                # the result shows for feedback_ms: a busy test may first see the next round
                page.wait_for_function("n => ['result', 'over'].includes(document.body.dataset.state) || "
                                       "Number(document.body.dataset.round) > n", arg=number, timeout=30_000)
                check_layout(page, seen)
                checked += 1
            if checked < ROLLS:
                page.click("#again")
                check_layout(page, seen)
    finally:
        context.close()
    assert not errors, f"errors in the page's scripts: {errors}"
    assert {shown["state"] for shown in seen} >= {"setup", "fixation", "stimulus", "result", "over"}
    assert sum(1 for shown in seen if shown["state"] == "stimulus") >= ROLLS


@SCREENS
def test_a_room_round_fits_the_screen_at_every_moment(server, browser, screen):
    base = server.url.split("?")[0].rstrip("/")
    ann, bea = RoomPlayer(browser, "Ann", **screen), RoomPlayer(browser, "Bea", **screen)
    seen: list = []
    try:
        ann.page.goto(f"{base}/room?foreperiod_ms=100,200&feedback_ms=100")
        check_layout(ann.page, seen)
        ann.page.fill("#host-form input[name=name]", "Ann")
        ann.page.fill("#host-form input[name=timeout_s]", UNHURRIED_S)
        ann.page.click("#host-form button[type=submit]")
        ann.page.wait_for_function("() => document.body.dataset.state === 'lobby'")
        code = ann.page.locator("#room-code").inner_text()
        bea.page.goto(f"{base}/room?code={code}")
        bea.page.fill("#join-form input[name=name]", "Bea")
        bea.page.click("#join-form button[type=submit]")
        ann.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 2")
        for seat in (ann, bea):
            check_layout(seat.page, seen)
        ann.page.click("#start")
        checked, number = 0, 0
        while checked < ROLLS:
            number += 1
            for seat in (ann, bea):
                seat.page.wait_for_function(
                    "n => document.body.dataset.state === 'over' || (Number(document.body.dataset.round) === n"
                    " && ['fixation', 'stimulus'].includes(document.body.dataset.state))", arg=number,
                    timeout=60_000)
                check_layout(seat.page, seen)
            if ann.page.evaluate("document.body.dataset.state") == "over":
                ann.page.click("#again")  # the same seats, a new game: its rounds count from one
                number = 0
                for seat in (ann, bea):
                    seat.page.wait_for_function("() => document.body.dataset.state !== 'over'", timeout=60_000)
                continue
            for seat in (ann, bea):
                onset = wait_for_stimulus(seat.page)
                check_layout(seat.page, seen)
                answer(seat.page, seat.cdp, screen, onset, wrong_answer(seat.rolls[number]))
            for seat in (ann, bea):
                seat.page.wait_for_function("n => ['result', 'over'].includes(document.body.dataset.state) || "
                                            "Number(document.body.dataset.round) > n", arg=number, timeout=60_000)
                check_layout(seat.page, seen)
            checked += 1
    finally:
        for seat in (ann, bea):
            seat.context.close()
    assert not (ann.errors or bea.errors), ann.errors + bea.errors
    assert {shown["state"] for shown in seen} >= {"join", "lobby", "fixation", "stimulus", "result", "over"}


@SCREENS
def test_a_drill_session_fits_the_screen_at_every_roll(server, browser, screen):
    context = browser.new_context(**screen)
    page = context.new_page()
    errors, seen = [], []
    page.on("pageerror", lambda error: errors.append(error))
    cdp = context.new_cdp_session(page)
    try:
        start_drill(page, server.url, "Kim", DRILL_ROLLS)
        for _ in range(DRILL_ROLLS):
            onset = wait_for_stimulus(page)
            check_layout(page, seen)
            answer(page, cdp, screen, onset, "grey")
        wait_for_summary(page)
        check_layout(page, seen)
    finally:
        context.close()
    assert not errors, f"errors in the page's scripts: {errors}"
    assert sum(1 for shown in seen if shown["state"] == "stimulus" and shown["dice"]) == DRILL_ROLLS
