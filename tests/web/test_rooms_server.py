"""A room's WebSocket on the real `diavolo serve`: it lives as long as the game, past the request timeout."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import websockets

from diavolo_stats.web.server import REQUEST_TIMEOUT_S

pytestmark = pytest.mark.slow


def test_a_rooms_websocket_outlives_the_servers_request_timeout(server):
    origin = server.url.split("?")[0].rstrip("/")
    code = None

    async def scenario() -> dict:
        async with websockets.connect(origin.replace("http://", "ws://") + f"/ws/rooms/{code}", origin=origin) as ws:
            await ws.send(json.dumps({"type": "join", "name": "Ann"}))
            deadline = time.monotonic() + REQUEST_TIMEOUT_S + 2
            while time.monotonic() < deadline:  # the connection idles past the timeout for incomplete requests
                try:
                    await asyncio.wait_for(ws.recv(), deadline - time.monotonic())
                except asyncio.TimeoutError:
                    break
            await ws.send(json.dumps({"type": "ping"}))
            return json.loads(await ws.recv())

    import urllib.request

    request = urllib.request.Request(origin + "/api/rooms", data=b"{}", method="POST",
                                     headers={"Origin": origin, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        code = json.load(answer)["code"]
    reply = asyncio.run(scenario())
    assert reply["type"] == "error" and "send an answer" in reply["message"]  # still open, still answered
