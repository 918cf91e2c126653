"""The `diavolo serve` web app: a Starlette application over the library and one drill log.

`create_app` builds it: the pages (`pages`), the JSON API (`api`), this package's own scripts and styles, the
request checks of `security`, and errors as `{"error": "field: ..."}` with status 4xx (a page gets the same line
as a small HTML page). No traceback reaches a client: an unexpected error is answered 500 with one line and
written to the server's own error output.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.looks import check_colors
from diavolo_stats.errors import InputError
from diavolo_stats.web import api, explore, pages, play, rooms
from diavolo_stats.web.bodies import JSONAnswer
from diavolo_stats.web.busy import RETRY_AFTER_S, Busy, Heavy
from diavolo_stats.web.security import Guard
from diavolo_stats.web.trials import TooFast, TrialStore

STATIC = Path(__file__).parent / "static"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address) reaches only this machine."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def create_app(log: str | Path, token: str | None = None, hosts: Sequence[str] = (),
               variant: Variant | None = None) -> Starlette:
    """The web app serving the drill log at `log`.

    token: required from every request when given (see `security`). hosts: host names the server answers to besides the
    loopback names (the address it listens on, when that is not loopback). variant: the game the server holds (a preset
    or a variant file, as `diavolo serve` was told), the standard one when None; the explorer opens on it, and it is
    `app.state.variant`; InputError for a game whose dice the drill has no color for (`drill.looks.check_colors`), as
    the terminal drill refuses it.
    """
    variant = variant if variant is not None else Variant()
    check_colors(variant.colors)
    store, heavy = TrialStore(log), Heavy()
    open_rooms, games = rooms.Rooms(store, token, held=variant), play.SoloGames(store, held=variant)
    routes = [*api.routes(store, heavy), *explore.routes(heavy), *pages.routes(store, heavy),
              *play.routes(games, heavy), *rooms.routes(open_rooms),
              Mount("/static", app=StaticFiles(directory=STATIC), name="static")]
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=[*LOOPBACK_NAMES, *hosts]),
        Middleware(Guard, token=token),
    ]
    handlers = {InputError: _input_error, Busy: _busy, HTTPException: _http_error, Exception: _unexpected}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        await open_rooms.close()

    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers, lifespan=lifespan)
    app.state.rooms = open_rooms  # the rooms' answer handling times, for benchmarks/bench_rooms.py
    app.state.games = games
    app.state.variant = variant
    return app


def _answer(request: Request, status: int, error: str, field: str | None = None) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONAnswer({"error": error, **({"field": field} if field else {})}, status_code=status)
    return pages.error_page(request, status, error)


async def _input_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, InputError)
    field = error.field or str(error).partition(": ")[0]
    return _answer(request, 429 if isinstance(error, TooFast) else 400, str(error), field)


async def _busy(request: Request, error: Exception) -> Response:
    answer = _answer(request, 503, str(error))
    answer.headers["retry-after"] = str(RETRY_AFTER_S)
    return answer


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    return _answer(request, error.status_code, str(error.detail))


async def _unexpected(request: Request, error: Exception) -> Response:
    return _answer(request, 500, "internal error: the server could not answer this request; its log says why")
