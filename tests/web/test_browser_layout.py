"""The Play page, a room and the drill on a desktop window and on a phone: nothing ever scrolls sideways,
every die lies wholly on the drawn table, no die covers another and the command's label covers none, at every
moment of whole games, and still once the window has changed size under a round, drawn again for each size. On a
phone held sideways the
table keeps a readable size, in view with the answer buttons.

The Play and room tests play games until each has checked ROLLS rolls (a game lasts at least five: someone
must lose five gems); the drill's checks DRILL_ROLLS, so over fifty rolls are checked at each size.
"""

from __future__ import annotations

import pytest
from helpers.browser import UNHURRIED_S, RoomPlayer, press_at, start_drill, wait_for_stimulus, wait_for_summary

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.game.fairness import MAX_TRIP_MS

pytestmark = pytest.mark.browser

ROLLS = 13
DRILL_ROLLS = 50
KEYS = {"black": "b", "red": "r", "white": "w", "grey": "g"}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
SCREENS = pytest.mark.parametrize("screen", [DESKTOP, PHONE], ids=["1280x800", "390x844-touch"])
SIDEWAYS = {"viewport": {"width": 844, "height": 390}, "has_touch": True, "is_mobile": True}
TABLE_FLOOR_EM = 18
"""The narrowest the table is drawn (style.css's `#table`), in its own em: a shorter window scrolls instead."""

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


# The table's box and its em, the window's height, and the answer buttons' boxes, in the page's pixels.
IN_VIEW = """() => { const table = document.querySelector('#table');
  return { table: table.getBoundingClientRect().toJSON(), em: parseFloat(getComputedStyle(table).fontSize),
    height: window.innerHeight, answers: [...document.querySelectorAll('#answers button')]
      .map((button) => button.getBoundingClientRect().toJSON()) }; }"""


def open_a_round(server, browser, section: str, errors: list):
    """A game of `section` (the Play page, a drill of one roll, a room of two) started on a phone held sideways:
    that phone's page, and every browser context opened, to close; every page's script errors go to `errors`."""
    if section == "room":
        base = server.url.split("?")[0].rstrip("/")
        ann, bea = RoomPlayer(browser, "Ann", **SIDEWAYS), RoomPlayer(browser, "Bea", **PHONE)
        for seat in (ann, bea):
            seat.page.on("pageerror", lambda error: errors.append(error))
        bea.join(base, ann.host(f"{base}/room?foreperiod_ms=100,200&feedback_ms=100"))
        ann.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 2")
        ann.page.click("#start")
        return ann.page, [ann.context, bea.context]
    context = browser.new_context(**SIDEWAYS)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(error))
    if section == "play":
        page.goto(server.url.rstrip("/") + "/play?foreperiod_ms=100,200&feedback_ms=100")
        page.fill("input[name=player]", "Kim")
        page.fill("input[name=timeout_s]", UNHURRIED_S)
        page.click("button.start")
    else:
        start_drill(page, server.url, "Kim", 1)
    return page, [context]


@pytest.mark.parametrize("section", ["play", "room", "drill"])
def test_a_round_on_a_phone_held_sideways_shows_a_table_to_read(server, browser, section):
    """At 844x390 the table is no narrower than its floor (the window's height less the bar, the seats and the
    buttons leaves far less), still square, and in view with the answer buttons when the round begins (the page
    scrolls down to it); the dice and the label lie as at every other size, and an answer is tapped."""
    errors, seen = [], []
    page, contexts = open_a_round(server, browser, section, errors)
    try:
        onset = wait_for_stimulus(page)
        check_layout(page, seen)
        shown = page.evaluate(IN_VIEW)
        table = shown["table"]
        assert table["width"] >= TABLE_FLOOR_EM * shown["em"] - 0.5, shown
        assert abs(table["width"] - table["height"]) <= 0.5, shown
        for box in [table, *shown["answers"]]:  # half a pixel for the browser's rounding of the scroll
            assert box["top"] >= -0.5 and box["bottom"] <= shown["height"] + 0.5, shown
        # past a room's too-early floor however slow its pings (see press_past_the_floor): the tap is taken
        page.wait_for_function("at => performance.now() >= at", arg=onset + MIN_LATENCY_MS + MAX_TRIP_MS)
        page.tap("#answers button.answer-grey")
        page.wait_for_function("() => document.body.dataset.state !== 'stimulus'", timeout=30_000)
        check_layout(page, seen)
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"errors in the page's scripts: {errors}"
    assert seen[0]["dice"] and seen[0]["state"] == "stimulus", seen[0]


# The window sizes a round is shown at after it was drawn at 390x844: the phone turned and back, then the widths
# of other phones and a desktop window. Each scales the table, and with it the label's box as the browser measures
# it (its font is scaled to whole pixels), by a different amount.
RESIZES = [(844, 390), (390, 844), (395, 844), (400, 844), (412, 915), (1280, 800), (390, 844)]

# The felt's edge as drawn (its viewBox, in the table's millimetres) and the table's width on screen, in px.
FELT = """() => { const svg = document.querySelector('#felt').ownerSVGElement;
  return { edge: svg.viewBox.baseVal.width, shown: svg.getBoundingClientRect().width }; }"""

MIN_DIE_PX = 28
"""table.js's least drawn die, in screen pixels."""


def felt_edge(table, shown_px: float) -> float:
    """The felt's edge table.js draws for `table` shown `shown_px` wide: the scatter area, and around it a border
    of half what a die drawn MIN_DIE_PX wide (where the model's die would be drawn smaller) adds to the die's."""
    side, die = table.scatter_mm, table.die_mm
    drawn = (MIN_DIE_PX * (side - die) / (shown_px - MIN_DIE_PX)
             if shown_px > MIN_DIE_PX and MIN_DIE_PX * side / shown_px > die else die)
    return side + drawn - die


def resized(page, seen: list):
    """The page shown at each of RESIZES in turn, its layout checked there (`check_layout`) while its round waits
    for an answer: yields what was measured at each size."""
    for width, height in RESIZES:
        page.set_viewport_size({"width": width, "height": height})
        # the new size laid out, then a whole frame: what the page does when its table's size changes is done
        page.wait_for_function("w => innerWidth === w", arg=width, polling="raf")
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        shown = check_layout(page, seen)
        assert shown["width"] == width and shown["state"] == "stimulus", shown
        yield shown


# The label's box in the table's millimetres and the drawn die's edge.
LABEL_MM = """() => { const label = document.querySelector('#dice .command-name'); const box = label.getBBox();
  return { x: box.x, y: box.y, width: box.width, height: box.height,
    die: Number(document.querySelector('#dice .command-die > rect').getAttribute('width')) }; }"""


def test_a_play_round_keeps_its_label_off_the_dice_when_the_window_changes(server, browser):
    """A roll whose label just clears a die where it was drawn, shown at other window sizes: the label still
    covers no die. The Play page's rolls are replaced (the page draws what it is sent; the server referees the
    roll it dealt, which no answer here is about): the first with the dice far from the command die, to find
    where the label goes; the same round reloaded with a die put just under that label."""
    table = Variant().table
    middle = table.scatter_mm / 2
    layout: dict = {}

    def replace(route) -> None:
        roll = route.fetch().json()
        landed = [color for color, values in roll["dice"].items() for _ in values]  # a color per die, in order
        step = (table.scatter_mm - 2 * table.die_mm) / (len(landed) - 1)
        positions = {"command": [middle, middle * 0.8], **{color: [] for color in roll["dice"]}}
        for number, color in enumerate(landed):  # along the top edge, two dice's width apart
            positions[color].append([table.die_mm + step * number, table.die_mm])
        if "under" in layout:
            positions[landed[-1]][-1] = layout["under"]
        route.fulfill(json={**roll, "positions": positions})

    context = browser.new_context(**PHONE)
    page = context.new_page()
    errors, seen = [], []
    page.on("pageerror", lambda error: errors.append(error))
    page.route("**/api/play/games/*/round", replace)
    try:
        page.goto(server.url.rstrip("/") + "/play?foreperiod_ms=100,200&feedback_ms=100")
        page.fill("input[name=player]", "Kim")
        page.fill("input[name=timeout_s]", UNHURRIED_S)
        page.click("button.start")
        wait_for_stimulus(page)
        label = page.evaluate(LABEL_MM)
        assert label["y"] > middle * 0.8, label  # under the command die, where the tight die goes
        gap = label["height"] / 1000  # the die clears the label, only just
        layout["under"] = [label["x"] + label["width"] / 2, label["y"] + label["height"] + gap + label["die"] / 2]
        page.reload()  # the same round, sent again: with the die under its label
        wait_for_stimulus(page)
        assert page.evaluate(LABEL_MM) == label  # where it was: the die just clears it
        check_layout(page, seen)
        for _ in resized(page, seen):
            pass
    finally:
        context.close()
    assert not errors, f"errors in the page's scripts: {errors}"
    assert sum(1 for shown in seen if shown["label"] is not None) >= 2, seen  # a label to check, at 390 and after


@pytest.mark.parametrize("section", ["play", "room", "drill"])
def test_a_round_of_every_page_is_drawn_again_for_each_window_size(server, browser, section):
    """The Play page, a room and the drill draw their rolls with table.js, which draws a roll again when its
    table's width on screen changes (a die is drawn at least MIN_DIE_PX wide, in screen pixels): a round shown at
    other window sizes has, at each, the felt drawn for the table's width there, and lies as `check_layout`
    wants."""
    errors, seen = [], []
    page, contexts = open_a_round(server, browser, section, errors)
    table = Variant().table
    try:
        wait_for_stimulus(page)
        for shown in resized(page, seen):
            felt = page.evaluate(FELT)
            # the SVG holds its numbers as 32-bit floats
            assert felt["edge"] == pytest.approx(felt_edge(table, felt["shown"]), rel=1e-6), (felt, shown)
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"errors in the page's scripts: {errors}"
    assert len({round(shown["felt"]["right"] - shown["felt"]["left"]) for shown in seen}) >= 3, seen  # resized
