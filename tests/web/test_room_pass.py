"""A room's link on a server with a token: it admits a guest to that room only, never with the server's token."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from helpers.rooms import FAST, until
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from diavolo_stats.web import rooms
from diavolo_stats.web.app import create_app
from diavolo_stats.web.security import ROOM_COOKIE, room_pass

TOKEN = "s3cret-Token"
ADDRESS = "http://192.168.1.20:8000"  # a server on a network, as `diavolo serve --host` runs it
WS_ADDRESS = ADDRESS.replace("http://", "ws://")


@pytest.fixture
def app(log_path):
    return create_app(log_path, token=TOKEN, hosts=["192.168.1.20"])


def visitor(app) -> TestClient:
    """A device of its own at the server (its own cookies), with none of the host's."""
    return TestClient(app, base_url=ADDRESS, headers={"Origin": ADDRESS})


def hosted_room(app) -> dict:
    """A room opened by the host, whose pages carry the token."""
    with visitor(app) as host:
        reply = host.post(f"/api/rooms?token={TOKEN}", json=FAST)
    assert reply.status_code == 201, reply.text
    return reply.json()


def test_the_link_and_qr_code_a_host_shows_carry_the_rooms_pass_never_the_servers_token(app, log_path):
    room = hosted_room(app)
    assert room["join"] == f"/room?code={room['code']}&pass={room_pass(TOKEN, room['code'])}"
    assert room["join_qr"] == rooms.join_qr(f"{ADDRESS}{room['join']}")
    assert TOKEN not in room["join"] and room["typed"] is False  # the code typed on /room alone admits no guest
    assert len(room_pass(TOKEN, room["code"])) == 22  # 128 bits
    assert room_pass(TOKEN, room["code"]) == room_pass(TOKEN, room["code"].lower())  # a code in any case
    assert room_pass(TOKEN, room["code"]) != room_pass(TOKEN + "x", room["code"])
    with TestClient(create_app(log_path), base_url="http://127.0.0.1:8000",
                    headers={"Origin": "http://127.0.0.1:8000"}) as loopback:
        plain = loopback.post("/api/rooms", json=FAST).json()
    assert plain["join"] == f"/room?code={plain['code']}" and plain["typed"] is True  # no token, no pass


def test_a_guest_with_the_link_gets_the_room_its_files_and_a_seat(app):
    room = hosted_room(app)
    with visitor(app) as guest:
        page = guest.get(room["join"])
        assert page.status_code == 200
        assert f"{ROOM_COOKIE}={room['code']}." in page.headers["set-cookie"]
        assert "HttpOnly" in page.headers["set-cookie"] and TOKEN not in page.headers["set-cookie"]
        # The guest sees the room to join, not a server to use: no host form, no links to the other pages.
        assert re.search(r'<form id="host-form"[^>]*hidden', page.text)
        assert not re.search(r'href="/(drill|play|explore|me|report)?"', page.text)
        files = re.findall(r'(?:href|src)="(/[^"]+)"', page.text)
        assert "/static/room.js" in files and "/looks.css" in files
        for path in files:  # the page's styles, scripts and icon, by the cookie the link set
            assert guest.get(path).status_code == 200, path
        assert guest.get("/static/seats.js").status_code == 200  # what room.js imports
        with guest.websocket_connect(f"{WS_ADDRESS}/ws/rooms/{room['code'].lower()}",
                                     headers={"Origin": ADDRESS}) as socket:
            socket.send_json({"type": "join", "name": "Bea"})
            assert until(socket, "joined")["seat"] == 0


@pytest.mark.parametrize("path", ["/", "/drill", "/play", "/explore", "/me", "/report", "/api/odds",
                                  "/api/players", "/room", "/room?code=ZZZZ"])
def test_a_guest_with_the_link_is_refused_every_other_page(app, path):
    room = hosted_room(app)
    with visitor(app) as guest:
        assert guest.get(room["join"]).status_code == 200  # the link's cookie, from now on
        refused = guest.get(path)
        assert refused.status_code == 401, path
        assert "a room's link admits to that room only" in refused.json()["error"]


def test_a_guest_can_neither_change_anything_nor_sit_at_another_rooms_table(app):
    room, other = hosted_room(app), hosted_room(app)
    with visitor(app) as guest:
        assert guest.get(room["join"]).status_code == 200
        assert guest.post("/api/rooms", json=FAST).status_code == 401  # no rooms of its own
        assert guest.post(f"/api/rooms?code={room['code']}&pass={room_pass(TOKEN, room['code'])}",
                          json=FAST).status_code == 401
        assert guest.post("/api/play/games", json={}).status_code == 401
        assert guest.post("/api/trials", json={}).status_code == 401
        socket = guest.websocket_connect(f"{WS_ADDRESS}/ws/rooms/{other['code']}", headers={"Origin": ADDRESS})
        with pytest.raises(WebSocketDisconnect):
            socket.__enter__()  # refused before it is accepted


@pytest.mark.parametrize("forged", ["wrong", "", "pass-of-another-room", "ünïcode"])
def test_a_link_with_a_pass_not_the_rooms_admits_nowhere(app, forged):
    room, other = hosted_room(app), hosted_room(app)
    given = room_pass(TOKEN, other["code"]) if forged == "pass-of-another-room" else forged
    with visitor(app) as stranger:
        assert stranger.get(f"/room?code={room['code']}&pass={given}").status_code == 401
        stranger.cookies.set(ROOM_COOKIE, f"{room['code']}.{quote(given)}")
        assert stranger.get("/static/room.js").status_code == 401
        socket = stranger.websocket_connect(f"{WS_ADDRESS}/ws/rooms/{room['code']}?pass={given}",
                                            headers={"Origin": ADDRESS})
        with pytest.raises(WebSocketDisconnect):
            socket.__enter__()
