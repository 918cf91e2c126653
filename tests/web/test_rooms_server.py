"""A room's WebSocket on the real `diavolo serve`: it lives as long as the game, past the request timeout."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest
from websockets.sync.client import connect

from diavolo_stats.web.server import REQUEST_TIMEOUT_S

pytestmark = pytest.mark.slow


def test_a_rooms_websocket_outlives_the_servers_request_timeout(server):
    # The sync client: no event loop of its own, so it runs beside Playwright's in one test session.
    origin = server.url.split("?")[0].rstrip("/")
    request = urllib.request.Request(origin + "/api/rooms", data=b"{}", method="POST",
                                     headers={"Origin": origin, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        code = json.load(answer)["code"]
    with connect(origin.replace("http://", "ws://") + f"/ws/rooms/{code}", origin=origin) as ws:
        ws.send(json.dumps({"type": "join", "name": "Ann"}))
        deadline = time.monotonic() + REQUEST_TIMEOUT_S + 2
        while time.monotonic() < deadline:  # the connection idles past the timeout for incomplete requests
            try:
                ws.recv(timeout=max(deadline - time.monotonic(), 0.01))
            except TimeoutError:
                break
        ws.send(json.dumps({"type": "ping"}))
        while (reply := json.loads(ws.recv(timeout=30)))["type"] == "ping":
            pass  # the server's own pings, each PING_INTERVAL_S, may come before its answer
    assert reply["type"] == "error" and "send an answer" in reply["message"]  # still open, still answered
