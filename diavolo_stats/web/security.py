"""What every request passes before the app sees it, and what every response carries.

The server's token off loopback (as `?token=` or its cookie), or a room's pass for that room alone
(`room_link`); the page's own origin for every POST and WebSocket; a body of at most MAX_BODY_BYTES; and headers
that hold a page to this app's own scripts, styles and connections. What each admits, and why:
docs/architecture.md, "The server's security".
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlencode

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from diavolo_stats.validation import Text

MAX_BODY_BYTES = 64 * 1024
TOKEN_COOKIE = "diavolo_token"
ROOM_COOKIE = "diavolo_room"
GUEST_FILES = ("/static/", "/looks.css")
"""What a room's page loads besides itself: a room pass admits to these paths (their starts), which hold no data."""
MAX_TOKEN_LENGTH = 200
TOKEN = Text(max_length=MAX_TOKEN_LENGTH, pattern=rf"[A-Za-z0-9._~-]{{1,{MAX_TOKEN_LENGTH}}}",
             described=f"1 to {MAX_TOKEN_LENGTH} characters of ASCII letters, digits and - _ . ~ (what a link "
                       "and a cookie carry as they are)")
"""What a server token may hold: it travels unchanged in a link (`?token=`), a QR code and a cookie."""
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
REPORT_POLICY = CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
"""The report page is `diavolo report`'s self-contained HTML, with its styles inline; it has no script."""

_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
_CHANGING_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def room_pass(token: str, code: str) -> str:
    """The pass admitting to room `code` alone on a server with `token`: 22 URL-safe characters (128 bits of
    an HMAC-SHA256 of the code under the token), so every process serving with that token knows it."""
    digest = hmac.new(token.encode("ascii"), f"room {code.upper()}".encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode("ascii")


def room_link(code: str, token: str | None) -> str:
    """The path a guest opens to join room `code`: with its room pass on a server with a token, never the token."""
    return "/room?" + urlencode({"code": code, **({"pass": room_pass(token, code)} if token else {})})


class Guard:
    """ASGI middleware applying the checks above to every HTTP request of `app`."""

    def __init__(self, app: ASGIApp, token: str | None = None):
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        set_cookie = None
        if self.token is not None:
            given, kept = _tokens(scope, headers)
            if _same(given, self.token) or _same(kept, self.token):
                if given:
                    set_cookie = _cookie(TOKEN_COOKIE, self.token)
            elif (guest := self._guest(scope, headers)) is not None:
                if guest[1]:
                    set_cookie = _cookie(ROOM_COOKIE, f"{guest[0]}.{room_pass(self.token, guest[0])}")
            else:
                await _refuse(send, 401, "this server needs its token: open the link it printed (…/?token=…); "
                                         "a room's link admits to that room only")
                return
        if scope["method"] in _CHANGING_METHODS:
            own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
            if headers.get("origin") != own:
                await _refuse(send, 403, f"origin: requests that change something must come from {own}, "
                                         f"got {headers.get('origin', 'none')[:80]!r}")
                return
            length = headers.get("content-length", "")
            if length.isdigit() and int(length) > MAX_BODY_BYTES:
                await _refuse(send, 413, f"body: at most {MAX_BODY_BYTES} bytes, got {length}")
                return
            receive = await _capped(receive)
            if receive is None:
                await _refuse(send, 413, f"body: at most {MAX_BODY_BYTES} bytes")
                return
        policy = REPORT_POLICY if scope["path"] == "/report" else CONTENT_SECURITY_POLICY

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"content-security-policy", policy.encode("latin-1")), *_HEADERS]
                if set_cookie is not None:
                    extra.append((b"set-cookie", set_cookie))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A WebSocket is refused (closed before it is accepted: HTTP 403) without the token or from another
        origin; the page's own http origin is what a browser sends for its ws:// connection."""
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        if self.token is not None:
            given, kept = _tokens(scope, headers)
            if not (_same(given, self.token) or _same(kept, self.token) or self._guest(scope, headers)):
                await send({"type": "websocket.close", "code": 1008})
                return
        if headers.get("origin") != f"http://{headers.get('host', '')}":
            await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)

    def _guest(self, scope: Scope, headers: dict[str, str]) -> tuple[str, bool] | None:
        """The room code whose pass admits this request (in its query, else its cookie) and whether the pass
        came in the query; None when no pass admits it. A guest's page is told (`scope["state"]["guest"]`)."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        path = scope["path"]
        if scope["type"] == "websocket":
            wanted = path.removeprefix("/ws/rooms/") if path.startswith("/ws/rooms/") else None
        elif scope["method"] not in ("GET", "HEAD"):
            return None
        elif path == "/room":
            wanted = query.get("code", [""])[0]
        else:
            wanted = "*" if path.startswith(GUEST_FILES) else None  # "*": any room's pass
        if not wanted:
            return None
        carried = [(query.get("code", [""])[0], query["pass"][0], True)] if "pass" in query else []
        code, _, kept = _cookies(headers).get(ROOM_COOKIE, "").partition(".")
        carried.append((code, kept, False))
        for code, given, in_query in carried:
            if code.isascii() and wanted.upper() in ("*", code.upper()) and _same(
                    given, room_pass(self.token, code)):
                scope.setdefault("state", {})["guest"] = code.upper()
                return code.upper(), in_query
        return None


def _cookie(name: str, value: str) -> bytes:
    return f"{name}={value}; Path=/; HttpOnly; SameSite=Strict".encode("latin-1")


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    """The request's cookies by name (none when its header is malformed)."""
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed cookie header is no cookie
        return {}
    return {name: morsel.value for name, morsel in cookie.items()}


def _tokens(scope: Scope, headers: dict[str, str]) -> tuple[str, str]:
    """The token a request carries in its query (`?token=`) and in its cookie ("" for none)."""
    given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
    return given, _cookies(headers).get(TOKEN_COOKIE, "")


def _same(given: str, token: str) -> bool:
    return bool(given) and hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8"))


async def _capped(receive: Receive) -> Receive | None:
    """The whole body read now (at most MAX_BODY_BYTES), replayed to the app; None when it is longer."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _refuse(send: Send, status: int, error: str) -> None:
    body = json.dumps({"error": error}).encode("utf-8")
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("latin-1")),
        (b"content-security-policy", CONTENT_SECURITY_POLICY.encode("latin-1")), *_HEADERS]})
    await send({"type": "http.response.body", "body": body})
