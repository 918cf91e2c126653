"""A room on a server with a token, in real Chromium: a guest joins by the room's link alone."""

from __future__ import annotations

import pytest
from helpers.browser import RoomPlayer as Player
from helpers.browser import Server, save_screenshot

pytestmark = pytest.mark.browser

TOKEN = "t0ken-of-the-host"


def test_a_guest_joins_by_the_rooms_link_which_opens_no_other_page(browser, log_path, tmp_path):
    server = Server(log_path, 0, "--token", TOKEN)
    ann, bea = Player(browser, "Ann"), Player(browser, "Bea", viewport={"width": 390, "height": 844},
                                                    has_touch=True)
    try:
        base = server.url.split("?")[0].rstrip("/")
        code = ann.host(f"{server.url}&foreperiod_ms=200,400".replace("/?", "/room?"))
        shown = ann.page.locator("#join-link").inner_text()
        link = next(word for word in shown.split() if word.startswith(f"{base}/room?"))
        assert f"code={code}&pass=" in link and TOKEN not in shown and "this room only" in shown
        bea.page.goto(link)  # as a phone's camera opens the QR code: a new browser, no token
        assert bea.page.locator("#host-form").is_hidden() and bea.page.locator("nav.top a").count() == 0
        save_screenshot(bea.page, tmp_path, "room-guest-join.png")
        bea.page.fill("#join-form input[name=name]", bea.name)
        bea.page.click("#join-form button[type=submit]")
        bea.wait_for(["lobby"])
        ann.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 2")
        save_screenshot(ann.page, tmp_path, "room-host-lobby.png")
        save_screenshot(bea.page, tmp_path, "room-guest-lobby.png")
        assert not bea.errors and not ann.errors
        for path in ("/", "/drill", "/me", "/room", "/room?code=ZZZZ"):
            assert bea.page.goto(f"{base}{path}").status == 401, path
        assert bea.page.goto(f"{base}/room?code={code}").status == 200  # the room's own page, by the link's cookie
    finally:
        for player in (ann, bea):
            player.context.close()
        server.stop()
