"""A room shared by two `diavolo serve` processes through NATS, in real Chromium contexts: the host on the
process that owns the room, two players on the other one, one of them reloading midway; and the room's owner
killed mid-round, which every page says in words."""

from __future__ import annotations

import pytest
from helpers.browser import RoomPlayer as Player
from helpers.browser import Server, play_room_to_its_end, save_screenshot

from diavolo_stats.drill.log import load_logs
from diavolo_stats.web import shared_rooms

pytestmark = [pytest.mark.browser, pytest.mark.slow]

def test_three_players_on_two_processes_play_a_shared_room_to_its_end(nats_server, browser, tmp_path):
    servers = [Server(tmp_path / f"{name}.csv", 0, "--nats", nats_server.url) for name in ("a", "b")]
    bases = [server.url.split("?")[0].rstrip("/") for server in servers]
    ann, bea, cid = (Player(browser, name) for name in ("Ann", "Bea", "Cid"))
    try:
        code = ann.host(f"{bases[0]}/room?foreperiod_ms=200,300&feedback_ms=200")
        for player in (bea, cid):  # the code, typed on the other process's page
            player.page.goto(f"{bases[1]}/room")
            player.page.fill("#join-form input[name=code]", code)
            player.page.fill("#join-form input[name=name]", player.name)
            player.page.click("#join-form button[type=submit]")
            player.wait_for(["lobby"])
        ann.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 3")
        ann.page.click("#start")
        answered = play_room_to_its_end(ann, [bea, cid], reloads=cid)  # Cid reloads through the relay
        for player in (ann, bea, cid):
            player.wait_for(["over"])
        assert ann.page.locator("#over-title").inner_text() == "Ann wins"
        assert cid.page.locator("#over-title").inner_text() == "Ann wins"
        over = ann.over
    finally:
        for player in (ann, bea, cid):
            player.context.close()
        for server in servers:
            server.stop()
    assert not (ann.errors or bea.errors or cid.errors)
    assert over["engine_check"]["mismatches"] == []
    links = over["rounds"][-1]["links"]
    assert all(link["trips"] > 0 for link in links)  # every page answered the owner's pings, relayed or not
    rows = load_logs([tmp_path / "a.csv"])  # the owner's log: every answer once, the reloaded round too
    for name, given in answered.items():
        mine = rows[rows["player"] == name]
        assert list(mine["trial"]) == sorted(given), name
        assert list(mine["answer"]) == [given[n] for n in sorted(given)], name


def test_when_the_owner_is_killed_mid_round_every_page_says_the_room_ended_and_stops_joining(nats_server, browser,
                                                                                            tmp_path):
    servers = [Server(tmp_path / f"{name}.csv", 0, "--nats", nats_server.url) for name in ("a", "b")]
    bases = [server.url.split("?")[0].rstrip("/") for server in servers]
    ann, bea = Player(browser, "Ann", viewport={"width": 390, "height": 844}), Player(browser, "Bea")
    try:
        ann.context.clock.install()  # Ann's page is on the owner itself: no other process can answer for it
        ann.context.add_init_script("window.sockets = 0; window.WebSocket = class extends WebSocket {"
                                    " constructor(...args) { super(...args); window.sockets += 1; } };")
        code = ann.host(f"{bases[0]}/room?foreperiod_ms=200,300&feedback_ms=200")
        bea.page.goto(f"{bases[1]}/room")
        bea.page.fill("#join-form input[name=code]", code)
        bea.page.fill("#join-form input[name=name]", bea.name)
        bea.page.click("#join-form button[type=submit]")
        ann.page.wait_for_function("() => document.querySelectorAll('#lobby-seats li').length === 2")
        ann.page.click("#start")
        ann.wait_for(["stimulus"])
        servers[0].kill()
        bea.wait_for(["closed"])  # told by its own process, which relayed it
        assert bea.page.locator("#join-error").inner_text() == shared_rooms.ENDED
        ann.page.wait_for_function("() => document.querySelector('main [role=status]').textContent"
                                   " === 'connection lost: joining again…'")
        tried = ann.page.evaluate("window.sockets")
        ann.page.clock.fast_forward(1_500)  # it joins again, as a phone whose network dropped for a moment must
        ann.page.wait_for_function("tried => window.sockets > tried", arg=tried)
        assert ann.state() != "closed"
        ann.page.clock.fast_forward(30_000)
        ann.wait_for(["closed"])
        said = ann.page.locator("#join-error")
        assert said.inner_text() == ("the room ended: its server has not answered for 30 s (it stopped, or this "
                                     "device is offline). Every answer it said was stored is in its log.")
        assert said.is_visible()
        save_screenshot(ann.page, tmp_path, "room-server-gone.png")
        tried = ann.page.evaluate("window.sockets")
        ann.page.clock.fast_forward(60_000)  # and it stopped joining again
        assert ann.page.evaluate("window.sockets") == tried
    finally:
        for player in (ann, bea):
            player.context.close()
        for server in servers:
            server.stop()
    assert not (ann.errors or bea.errors)
