"""A room in real Chromium contexts against the real `diavolo serve`: three players, one reloading midway."""

from __future__ import annotations

import pytest
from helpers.browser import RoomPlayer as Player
from helpers.browser import play_room_to_its_end, save_screenshot

from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.game.referee import engine_mismatches
from diavolo_stats.game.settings import GameRules
from diavolo_stats.web import rooms

pytestmark = pytest.mark.browser

def test_a_room_of_three_played_to_its_end_with_one_player_reloading_midway(server, browser, log_path, tmp_path):
    base = server.url.split("?")[0].rstrip("/")
    ann, bea, cid = (Player(browser, name) for name in ("Ann", "Bea", "Cid"))
    try:
        code = ann.host(f"{base}/room?foreperiod_ms=200,400&feedback_ms=300")
        assert len(code) == rooms.CODE_LENGTH and code in ann.page.locator("#join-link").inner_text()
        qr = ann.page.locator("#join-qr")  # the link for the others' phones, on the host's screen alone
        assert qr.is_visible() and qr.get_attribute("src") == rooms.join_qr(f"{base}/room?code={code}")
        for player in (bea, cid):
            player.page.goto(f"{base}/room?code={code}")
            player.page.fill("#join-form input[name=name]", player.name)
            player.page.click("#join-form button[type=submit]")
            player.wait_for(["lobby"])
            assert not player.page.locator("#join-qr").is_visible()
        ann.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 3")
        save_screenshot(ann.page, tmp_path, "room-lobby.png")
        ann.page.click("#start")
        answered = play_room_to_its_end(ann, [bea, cid], reloads=cid, after_round=lambda number: save_screenshot(
            bea.page, tmp_path, "room-round.png") if number == 2 else None)
        for player in (ann, bea, cid):
            player.wait_for(["over"])
            assert player.page.evaluate("document.body.dataset.engineMismatches") == "0"
        save_screenshot(ann.page, tmp_path, "room-over.png")
        assert ann.page.locator("#over-title").inner_text() == "Ann wins"
        assert ann.page.locator("#unchecked").inner_text().endswith(": Ann, Bea, Cid.")  # none drilled before
        rounds, again = (ann.page.locator(f"#over {part}").bounding_box() for part in ("details", "#again"))
        assert again["y"] - (rounds["y"] + rounds["height"]) >= 8  # the host's button stands clear of the rounds
        over = ann.over
    finally:
        for player in (ann, bea, cid):
            player.context.close()
    assert not (ann.errors or bea.errors or cid.errors)
    assert over["engine_check"]["mismatches"] == [] and over["winners"] == [0]
    assert engine_mismatches(Variant().colors, over["rounds"], GameRules()) == []
    rows = load_logs([log_path])
    assert set(rows["interface"]) == {"game"}
    for name, given in answered.items():
        mine = rows[rows["player"] == name]
        assert list(mine["trial"]) == sorted(given), name  # every answer once, the reloaded round too
        assert list(mine["answer"]) == [given[n] for n in sorted(given)], name


def test_a_player_who_leaves_the_lobby_frees_the_seat_and_the_later_seat_plays_as_itself(server, browser, log_path,
                                                                                       tmp_path):
    base = server.url.split("?")[0].rstrip("/")
    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True}
    ann, bea, cid = Player(browser, "Ann"), Player(browser, "Bea"), Player(browser, "Cid", **phone)
    try:
        code = ann.host(f"{base}/room?foreperiod_ms=200,400&feedback_ms=300")
        for player in (bea, cid):
            player.join(base, code)
        bea.context.close()  # Bea leaves before the game: her seat is freed, Cid's moves up
        cid.page.reload()  # and Cid's page reloads in the lobby: his seat back, by key or by name
        cid.wait_for(["lobby"])
        for player in (ann, cid):
            player.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 2")
        save_screenshot(cid.page, tmp_path, "room-lobby-freed.png")
        assert cid.page.evaluate("document.querySelector('#room-code').getBoundingClientRect().right <= innerWidth")
        ann.page.click("#start")
        answered = play_room_to_its_end(ann, [cid], reloads=cid)
        ann.wait_for(["over"])
    finally:
        for player in (ann, bea, cid):
            player.context.close()
    assert not (ann.errors or cid.errors)
    rows = load_logs([log_path])
    assert set(rows["player"]) == {"Ann", "Cid"}
    mine = rows[rows["player"] == "Cid"]
    assert list(mine["answer"]) == [answered["Cid"][n] for n in sorted(answered["Cid"])]  # each his own, none lost
