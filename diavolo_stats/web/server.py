"""Running the web app: uvicorn on a socket bound here, the address printed once it accepts connections."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import sys
import webbrowser
from pathlib import Path
from typing import TextIO

import uvicorn

from diavolo_stats.drill.log import default_log_path
from diavolo_stats.errors import InputError
from diavolo_stats.web.app import create_app, is_loopback

GRACEFUL_SHUTDOWN_S = 10
"""On Ctrl-C, how long the requests in flight get to finish."""
MAX_CONNECTIONS = 100
"""Requests handled at once; more are answered 503 at once (uvicorn's limit_concurrency)."""


def serve(host: str = "127.0.0.1", port: int = 8765, log: str | Path | None = None, token: str | None = None,
          open_browser: bool = False, out: TextIO = sys.stdout) -> None:
    """Serve the app on `host`:`port` (0: a free port) until Ctrl-C, then return once the requests in
    flight are answered.

    The first line written to `out`, once the server accepts connections, is
    `serving on URL` with the address to open (carrying the token when there
    is one). Binding an address other than loopback without a token makes one
    up. InputError when the address cannot be bound or the log is not a drill log.
    """
    if not is_loopback(host) and token is None:
        token = secrets.token_urlsafe(16)
    hosts = () if is_loopback(host) else ("*",) if host in ("0.0.0.0", "::") else (host,)
    app = create_app(log if log is not None else default_log_path(), token=token, hosts=hosts)
    try:
        listener = socket.create_server((host.strip("[]"), port), family=socket.AF_INET6 if ":" in host
                                        else socket.AF_INET)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise InputError(f"cannot listen on {host}:{port} ({reason})", field="port") from None
    bound = listener.getsockname()[1]
    shown_host = f"[{host.strip('[]')}]" if ":" in host else host
    url = f"http://{shown_host}:{bound}/" + (f"?token={token}" if token else "")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S, limit_concurrency=MAX_CONNECTIONS)
    server = uvicorn.Server(config)
    try:
        asyncio.run(_run(server, listener, url, open_browser, out))
    except KeyboardInterrupt:
        # uvicorn finished the requests in flight, then raised the Ctrl-C again: a normal end.
        pass
    finally:
        listener.close()


async def _run(server: uvicorn.Server, listener: socket.socket, url: str, open_browser: bool, out: TextIO) -> None:
    running = asyncio.create_task(server.serve(sockets=[listener]))
    while not server.started and not running.done():
        await asyncio.sleep(0.01)
    if server.started:
        print(f"serving on {url}  (Ctrl-C stops)", file=out, flush=True)
        if open_browser:
            webbrowser.open(url)
    await running
