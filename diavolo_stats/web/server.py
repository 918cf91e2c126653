"""Running the web app: uvicorn on a socket bound here, the address printed once it accepts connections."""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import os
import secrets
import socket
import sys
import webbrowser
from pathlib import Path
from typing import TextIO

import h11
import psutil
import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.log import default_log_path
from diavolo_stats.errors import InputError
from diavolo_stats.validation import check_value
from diavolo_stats.web.app import create_app, is_loopback
from diavolo_stats.web.rooms import MAX_MESSAGE_BYTES
from diavolo_stats.web.security import TOKEN
from diavolo_stats.web.shared_rooms import NATS_URL, SharedRooms

GRACEFUL_SHUTDOWN_S = 10
"""On Ctrl-C, how long the requests in flight get to finish."""
MAX_CONNECTIONS = 500
"""Connections open at once (idle ones included); beyond it, every request is answered 503 (uvicorn's
limit_concurrency). Each lives at most REQUEST_TIMEOUT_S without a whole request, so holding them all takes
a client opening this many every few seconds; the heavy requests have their own, lower bound
(`busy.HEAVY_AT_ONCE`). Below the 1,024 open files a process is commonly allowed."""
REQUEST_TIMEOUT_S = 5
"""A connection that has not sent a whole request this long after it opened, or after its last answer, is
closed (uvicorn's keep-alive timeout, also running before the first request: `TimedH11Protocol`)."""
MAX_HEADER_BYTES = 16 * 1024
"""A request's line and headers are at most this long, else 400 and the connection is closed (h11's
max_incomplete_event_size)."""


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with its keep-alive timer armed from the moment a connection opens and kept
    while the request is incomplete.

    uvicorn starts that timer only once a response is sent and stops it at the first byte received, so a
    connection that sends nothing, or dribbles its headers a byte at a time, would be held for ever. Here the
    timer runs from the connection's start (and from each answer) until a whole request has arrived: a
    client has REQUEST_TIMEOUT_S to send one, however it spreads the bytes.
    """

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.upgraded = False
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self.upgraded = True  # a room's WebSocket: its whole request arrived, and the connection is now the room's
        super().handle_websocket_upgrade(event)

    def data_received(self, data: bytes) -> None:
        deadline, self.timeout_keep_alive_task = self.timeout_keep_alive_task, None  # uvicorn would cancel it
        super().data_received(data)
        if deadline is None:
            return
        if self.upgraded:
            deadline.cancel()
            return
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and self.timeout_keep_alive_task is None:
            self.timeout_keep_alive_task = deadline  # the request is not whole yet: its deadline stands
        else:
            deadline.cancel()

    def timeout_keep_alive_handler(self) -> None:
        # Closed mid-request too (uvicorn's own handler expects none in progress); the app's receive then
        # says the client is gone.
        if not self.transport.is_closing():
            self.transport.close()


def uvicorn_config(app: Starlette) -> uvicorn.Config:
    """uvicorn's settings for the app: the bounds above, a room's WebSocket messages at most
    `rooms.MAX_MESSAGE_BYTES` (closed 1009 beyond, before any is parsed), sent uncompressed (a room's messages
    are a few hundred bytes, and compressing each for each socket would be most of a broadcast's cost), and the app's
    lifespan, whose end writes the rooms' answers still waiting."""
    return uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                          timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S, limit_concurrency=MAX_CONNECTIONS,
                          http=TimedH11Protocol, timeout_keep_alive=REQUEST_TIMEOUT_S,
                          h11_max_incomplete_event_size=MAX_HEADER_BYTES, ws_max_size=MAX_MESSAGE_BYTES,
                          ws_per_message_deflate=False)


def serve(host: str = "127.0.0.1", port: int = 8765, log: str | Path | None = None, token: str | None = None,
          open_browser: bool = False, out: TextIO = sys.stdout, variant: Variant | None = None,
          nats: str | None = None) -> None:
    """Serve the app on `host`:`port` (0: a free port) until Ctrl-C, then return once the requests in flight are
    answered.

    The first line written to `out`, once the server accepts connections, is `serving on URL` (carrying the token);
    on every address (0.0.0.0, ::) it is an address of this machine others can reach, followed by `also on URL`
    lines; with `open_browser`, a further line says when no browser could be opened. Binding beyond loopback without
    a token makes one up. variant: as `create_app`. nats: a NATS server's URL through which rooms are shared
    (`shared_rooms`), None to keep them here. InputError for a blank host or NATS URL or a token `security.TOKEN`
    refuses (before anything listens), an address that cannot be bound (`host` when it is not this machine's, else
    `port`), a log that is no drill log, or an unreachable NATS.
    """
    if not host.strip():  # the socket would listen on every address, and the address printed would be http://:PORT
        raise InputError("must be an address or a host name to listen on (127.0.0.1: this machine only; 0.0.0.0: "
                         f"every address), got {host!r}", field="host")
    if token is not None:
        check_value("token", token, TOKEN)
    if nats is not None:
        check_value("nats", nats, NATS_URL)
    if not is_loopback(host) and token is None:
        token = secrets.token_urlsafe(16)
    hosts = () if is_loopback(host) else ("*",) if host in ("0.0.0.0", "::") else (host,)
    app = create_app(log if log is not None else default_log_path(), token=token, hosts=hosts, variant=variant)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        # The name resolved first: create_server re-raises a resolver's refusal as a bare OSError (errno -2).
        socket.getaddrinfo(host.strip("[]"), port, family, socket.SOCK_STREAM)
        listener = socket.create_server((host.strip("[]"), port), family=family)
    except socket.gaierror as error:  # a name no address answers to; its errno is a resolver's code, not errno's
        raise InputError(f"cannot listen on {host}:{port} ({error.strerror})", field="host") from None
    except UnicodeError as error:  # no host name at all: '..', a label over 63 characters (the IDNA encoder says)
        reason = str(error).rpartition("(UnicodeError: ")[2].rstrip(")") or str(error)
        raise InputError(f"cannot listen on {host}:{port} (not a host name: {reason})", field="host") from None
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise InputError(f"cannot listen on {host}:{port} ({reason})",
                         field="host" if error.errno == errno.EADDRNOTAVAIL else "port") from None
    bound = listener.getsockname()[1]
    urls = [f"http://{f'[{address}]' if ':' in address else address}:{bound}/" + (f"?token={token}" if token else "")
            for address in reachable_addresses(host.strip("[]"))]
    server = uvicorn.Server(uvicorn_config(app))
    shared = SharedRooms(app.state.rooms, nats) if nats is not None else None
    try:
        asyncio.run(_run(server, listener, urls, open_browser, out, shared))
    except KeyboardInterrupt:
        # uvicorn finished the requests in flight, then raised the Ctrl-C again: a normal end.
        pass
    finally:
        listener.close()


def reachable_addresses(host: str) -> list[str]:
    """The addresses to open a server listening on `host` at: `host` itself, or for every address (0.0.0.0,
    and :: which takes IPv4 too) this machine's own that a phone on its network can reach (psutil reads the
    interfaces; loopback and link-local ones left out), or 127.0.0.1 if it has none."""
    if host not in ("0.0.0.0", "::"):
        return [host]
    families = (socket.AF_INET,) if host == "0.0.0.0" else (socket.AF_INET, socket.AF_INET6)
    found = []
    for family in families:  # IPv4 first: what a phone on a home network most surely reaches
        for addresses in psutil.net_if_addrs().values():
            for address in addresses:
                if address.family == family:
                    ip = ipaddress.ip_address(address.address.split("%")[0])
                    if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified):
                        found.append(str(ip))
    return list(dict.fromkeys(found)) or ["127.0.0.1"]


async def _run(server: uvicorn.Server, listener: socket.socket, urls: list[str], open_browser: bool, out: TextIO,
               shared: SharedRooms | None) -> None:
    if shared is not None:
        await shared.start()
    try:
        await _serve(server, listener, urls, open_browser, out)
    finally:
        if shared is not None:
            await shared.stop()


async def _serve(server: uvicorn.Server, listener: socket.socket, urls: list[str], open_browser: bool,
                 out: TextIO) -> None:
    running = asyncio.create_task(server.serve(sockets=[listener]))
    while not server.started and not running.done():
        await asyncio.sleep(0.01)
    if server.started:
        url = urls[0]
        print(f"serving on {url}  (Ctrl-C stops)", file=out, flush=True)
        for other in urls[1:]:
            print(f"also on {other}", file=out, flush=True)
        # webbrowser waits for a browser it starts in a terminal: off the loop, which is serving already
        if open_browser and not await asyncio.to_thread(webbrowser.open, url):
            print(f"no web browser could be opened here; open {url} in one yourself", file=out, flush=True)
    await running
