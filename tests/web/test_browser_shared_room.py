"""A room shared by two `diavolo serve` processes through NATS, in real Chromium contexts: the host on the
process that owns the room, two players on the other one, one of them reloading midway."""

from __future__ import annotations

import pytest
from helpers.browser import RoomPlayer as Player
from helpers.browser import Server, play_room_to_its_end

from diavolo_stats.drill.log import load_logs

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
