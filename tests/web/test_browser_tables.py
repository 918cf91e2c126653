"""Live tables in real Chromium against the real `diavolo serve`: a game of every example variant file on the Play
page, the devils bar after each grab, and a room seat that reloads after the roll and answers at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.browser import UNHURRIED_S, RoomPlayer, Server, press_at, press_past_the_floor, wait_for_stimulus

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.log.rules import rules_cell
from diavolo_stats.game.referee import engine_mismatches
from diavolo_stats.game.settings import GameRules
from diavolo_stats.web.trials import default_drill_variant

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"
EXAMPLE_FILES = sorted(path for path in EXAMPLES.glob("*.toml") if path.stem != "broken")
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
TABLE_BOX = "() => JSON.stringify(document.querySelector('#table').getBoundingClientRect())"
WIDTH = "() => document.documentElement.scrollWidth"
DEVILS_BAR = """() => Object.fromEntries([...document.querySelectorAll('#devils .devil')]
    .map((token) => [token.dataset.color, Number(token.textContent.split('×')[1])]))"""


def accepted(variant, roll: dict) -> tuple[str, ...]:
    return resolve(variant, variant.command(roll["command"]), roll["dice"], roll["positions"]).accepted


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.stem)
def test_a_game_of_every_example_file_played_to_its_end_on_the_play_page(path, browser, tmp_path):
    variant = read_variant(path)
    log = tmp_path / "drills.csv"
    server = Server(log, 0, "--variant", str(path))
    context = browser.new_context(**PHONE)
    page = context.new_page()
    errors, replies = [], {}
    page.on("pageerror", lambda error: errors.append(error))
    # The replies are kept as they come and read later: a body read inside the handler would let the test run on
    # before the handler had kept it.
    page.on("response", lambda reply: replies.setdefault(reply.url.rsplit("/", 1)[-1], []).append(reply)
            if "/api/play/games" in reply.url and reply.request.method == "POST" and reply.ok else None)
    try:
        page.goto(server.url.rstrip("/") + "/play?foreperiod_ms=50,100&feedback_ms=0")
        page.fill("input[name=player]", "Ann")
        page.fill("input[name=timeout_s]", UNHURRIED_S)
        # the server's file is the game chosen first
        assert page.locator("select[name=variant]").input_value() == default_drill_variant(variant)
        page.click("button.start")
        page.wait_for_function("() => ['fixation', 'stimulus'].includes(document.body.dataset.state)")
        game = replies["games"][0].json()
        # a button and a key for each color of the file, and grey
        buttons = page.locator("#answers button.answer")
        assert [buttons.nth(i).get_attribute("data-answer") for i in range(buttons.count())] == [*variant.colors,
                                                                                                  "grey"]
        answers, number = {}, 0
        while True:
            page.wait_for_function("n => document.body.dataset.state === 'over' || (document.body.dataset.state"
                                   " === 'stimulus' && Number(document.body.dataset.round) > n)", arg=number,
                                   timeout=30_000)
            if page.evaluate("document.body.dataset.state") == "over":
                break
            onset = wait_for_stimulus(page)
            number = int(page.evaluate("document.body.dataset.round"))
            roll = next(r for r in (reply.json() for reply in reversed(replies["round"])) if r["round"] == number)
            # the command die shows the file's command: its label above the table
            assert game["commands"][roll["command"]]["label"] in page.locator("#command-banner").inner_text()
            right = accepted(variant, roll)
            # right in the first round, then wrong until out: the models play the rest at once
            answers[number] = right[0] if number == 1 else next(a for a in game["keys"] if a not in right)
            table = page.evaluate(TABLE_BOX)
            page.wait_for_function("at => performance.now() >= at", arg=onset + MIN_LATENCY_MS + 50)
            page.tap(f"#answers button.answer-{answers[number]}")
            # the result shows only while the next round is asked for (feedback_ms=0): a busy test may first see
            # the next round
            page.wait_for_function("n => ['result', 'over'].includes(document.body.dataset.state) || "
                                   "Number(document.body.dataset.round) > n", arg=number)
            if page.evaluate("document.body.dataset.state") == "result":
                # every grab shown, and the result: the table has not moved, and nothing scrolls sideways
                assert page.evaluate(TABLE_BOX) == table
            assert page.evaluate(WIDTH) <= PHONE["viewport"]["width"]
        assert page.evaluate("document.body.dataset.engineMismatches") == "0"
        finished = page.request.get(server.url.split("?")[0].rstrip("/") + f"/api/play/games/{game['id']}").json()
    finally:
        context.close()
        server.stop()
    assert not errors, f"errors in the page's scripts: {errors}"
    assert finished["over"] and finished["engine_check"]["mismatches"] == []
    rules = GameRules(**{key: finished[key] for key in ("devils", "end")})
    assert engine_mismatches(variant.colors, finished["rounds"], rules) == []
    rows = load_logs([log])
    assert list(rows["trial"]) == sorted(answers) and list(rows["answer"]) == [answers[n] for n in sorted(answers)]
    assert set(rows["variant"].astype(str)) == {rules_cell(variant)}


def test_the_devils_bar_after_each_grab_on_every_seats_screen(server, browser):
    base = server.url.split("?")[0].rstrip("/")
    players = [RoomPlayer(browser, name, **PHONE) for name in ("Ann", "Bea", "Cid")]
    ann, bea, cid = players
    # the devils left as the server told each screen: with each grab, and as each grab became final
    awarded = {player.name: [] for player in players}
    for player in players:
        player.page.on("websocket", lambda socket, told=awarded[player.name]: socket.on(
            "framereceived", lambda payload: told.append(json.loads(payload)["devils_left"])
            if json.loads(payload)["type"] in ("grabbed", "devils") else None))
    try:
        code = ann.host(f"{base}/room?foreperiod_ms=50,100&feedback_ms=60000")
        for player in (bea, cid):
            player.join(base, code)
        ann.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 3")
        ann.page.click("#start")
        onsets = [wait_for_stimulus(player.page) for player in players]
        roll = ann.rolls[1]
        full = {color: 2 for color in roll["dice"]} | {"grey": 1}  # three players in: two devils a color
        tables = []
        for player in players:
            assert player.page.evaluate(DEVILS_BAR) == full == roll["devils_left"]
            tables.append(player.page.evaluate(TABLE_BOX))
        # Bea, then Cid grab the same color, Ann grey: after each grab every screen counts what is left
        color = next(iter(roll["dice"]))
        for count, (player, onset, answer) in enumerate(((bea, onsets[1], color), (cid, onsets[2], color),
                                                         (ann, onsets[0], "grey")), start=1):
            press_past_the_floor(player.page, player.cdp, onset,
                                 player.page.locator(f"#answers button.answer-{answer}").get_attribute("data-key"))
            expected = full | {color: max(2 - min(count, 2), 0), "grey": 1 - (count == 3)}
            for seat, table in zip(players, tables):
                seat.page.wait_for_function(f"expected => JSON.stringify(({DEVILS_BAR})()) === JSON.stringify("
                                            "expected)", arg=expected, timeout=15_000)
                # a phone's seats keep their places as the grabs come: the table does not move under the reader
                assert seat.page.evaluate(TABLE_BOX) == table
        ann.wait_for(["result"])
        for seat in players:
            # never back up, whatever trips the server measured meanwhile: each grab told once, in turn
            lefts = [full] + awarded[seat.name]
            told = [left for before, left in zip(lefts, lefts[1:]) if left != before]
            assert told == [full | {color: 1}, full | {color: 0}, full | {color: 0, "grey": 0}], seat.name
    finally:
        for player in players:
            player.context.close()
    assert not any(player.errors for player in players)


def test_a_room_seat_that_reloads_after_the_roll_and_answers_at_once_is_timed_from_the_first_send(
        server, browser, log_path):
    base = server.url.split("?")[0].rstrip("/")
    ann, bea = RoomPlayer(browser, "Ann"), RoomPlayer(browser, "Bea")
    claims = []
    bea.page.on("websocket", lambda socket: socket.on("framesent", lambda payload: claims.append(
        json.loads(payload)) if json.loads(payload)["type"] == "answer" else None))
    try:
        code = ann.host(f"{base}/room?foreperiod_ms=50,100&feedback_ms=60000")
        bea.page.goto(f"{base}/room?code={code}")
        bea.page.fill("#join-form input[name=name]", "Bea")
        bea.page.click("#join-form button[type=submit]")
        ann.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 2")
        ann.page.click("#start")
        onset = wait_for_stimulus(bea.page)
        # Bea looks at the roll for a second and a half, then reloads: the roll comes back, and she answers at once
        bea.page.wait_for_function("at => performance.now() >= at", arg=onset + 1500)
        bea.page.reload()
        again = wait_for_stimulus(bea.page)
        assert int(bea.page.evaluate("document.body.dataset.round")) == 1
        key = bea.page.locator("#answers button.answer-grey").get_attribute("data-key")
        press_at(bea.page, bea.cdp, again + MIN_LATENCY_MS + 10, key)
        ann_onset = wait_for_stimulus(ann.page)
        press_at(ann.page, ann.cdp, ann_onset, ann.page.locator("#answers button.answer-grey").get_attribute(
            "data-key"))
        ann.wait_for(["result"])
    finally:
        for player in (ann, bea):
            player.context.close()
    assert not (ann.errors or bea.errors)
    logged = load_logs([log_path]).set_index("player")
    (claim,) = claims
    # her page claimed the time since the roll reappeared; the log has the time since the server first sent it,
    # which holds the second and a half she looked at it before the reload
    assert logged.loc["Bea", "latency_ms"] >= max(1500, claim["latency_ms"] + 1400)
    assert not bool(logged.loc["Bea", "too_early"]) and logged.loc["Bea", "answer"] == "grey"
