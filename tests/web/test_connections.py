"""`diavolo serve` under clients that hold connections: silent or dribbling ones are closed, others answered."""

from __future__ import annotations

import selectors
import socket
import threading
import time
import urllib.request

import pytest
from helpers.browser import Server

from diavolo_stats.web.server import MAX_HEADER_BYTES, REQUEST_TIMEOUT_S

HELD = 200
"""Connections a hostile client holds at once: half send nothing, half dribble their headers."""
CAP_S = 12 * REQUEST_TIMEOUT_S
"""How long the test waits at most for the server to close them (a bound on the test, not the figure checked)."""


def closed_by_server(sockets: list[socket.socket], cap_s: float) -> set[socket.socket]:
    """The sockets the server closed (end of file or reset) within `cap_s`, waiting on their states."""
    closed: set[socket.socket] = set()
    with selectors.DefaultSelector() as selector:
        for sock in sockets:
            selector.register(sock, selectors.EVENT_READ)
        end = time.monotonic() + cap_s
        while len(closed) < len(sockets) and time.monotonic() < end:
            for key, _ in selector.select(timeout=1):
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    closed.add(key.fileobj)
                    selector.unregister(key.fileobj)
    return closed


@pytest.mark.slow
def test_silent_and_dribbling_connections_are_closed_and_others_still_answered(log_path):
    server = Server(log_path)
    silent = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(HELD // 2)]
    dribbling = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(HELD // 2)]
    stop = threading.Event()

    def dribble() -> None:  # a byte of a header per connection, over and over, never the end of the headers
        for sock in dribbling:
            sock.sendall(b"GET /api/odds HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        while not stop.wait(0.2):
            for sock in dribbling:
                try:
                    sock.send(b"a")
                except OSError:
                    pass  # closed by the server

    dribbler = threading.Thread(target=dribble)
    dribbler.start()
    try:
        for _ in range(20):
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/odds", timeout=60) as response:
                assert response.status == 200
        closed = closed_by_server(silent + dribbling, CAP_S)
        assert len(closed & set(silent)) == len(silent), "connections that sent nothing were kept open"
        assert len(closed & set(dribbling)) == len(dribbling), "connections dribbling headers were kept open"
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/odds", timeout=60) as response:
            assert response.status == 200
    finally:
        stop.set()
        dribbler.join(30)
        for sock in silent + dribbling:
            sock.close()
        server.stop()


@pytest.mark.slow
def test_headers_longer_than_the_cap_are_refused_and_the_connection_closed(log_path):
    server = Server(log_path)
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES + 1))
            sock.settimeout(60)
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400")
    finally:
        server.stop()
