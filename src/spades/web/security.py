"""The site's guard around every HTTP request (one ASGI middleware, ``SiteGuard``):

- forged requests: a state-changing request (POST, PUT, PATCH, DELETE) from a browser must come from the
  site's own origin (``Origin``, or ``Sec-Fetch-Site`` when a browser sends no ``Origin``), and a body must be
  ``application/json`` (a form or ``text/plain`` body is what another site can send without asking);
  refused with 403 ``cross_site`` or ``bad_content_type``;
- security headers on every answer, pages and static files included (``security_headers``);
- the ``requests`` quota per address on ``/api/`` (429 ``rate_limited`` with ``Retry-After``).

Clients that are not browsers (the tests, ``curl``, scripts) send neither ``Origin`` nor ``Sec-Fetch-Site``
and pass the origin check: a forged request needs a victim's browser, and browsers always send one of them
on a state-changing request. ``docs/security.md`` explains the choices.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any, Protocol

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RequestQuota(Protocol):
    """What the guard needs of the server's quotas (``spades.server.quotas.Quotas``)."""

    async def hit(self, name: str, key: str) -> float | None:
        """Count one use; ``None`` when allowed, else the seconds to wait."""
        ...

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
       "connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
"""The pages load scripts, styles and images from the site only; no inline script or style, no plugin,
no framing by another page."""

PERMISSIONS = ("accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), "
               "payment=(), usb=()")


def security_headers(hsts_seconds: int = 0) -> list[tuple[bytes, bytes]]:
    """The headers every answer carries; ``Strict-Transport-Security`` only when ``hsts_seconds`` is set
    (a site served over HTTPS)."""
    out = [
        ("Content-Security-Policy", CSP),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "same-origin"),
        ("Permissions-Policy", PERMISSIONS),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]
    if hsts_seconds > 0:
        out.append(("Strict-Transport-Security", f"max-age={hsts_seconds}; includeSubDomains"))
    return [(k.lower().encode(), v.encode()) for k, v in out]


def refusal(headers: Headers, scheme: str, allowed_origins: Iterable[str]) -> tuple[str, str] | None:
    """Why a state-changing request must be refused as forged (code, reason), or ``None``."""
    host = headers.get("host", "")
    origin = headers.get("origin")
    if origin is not None:
        own = {f"{scheme}://{host}", f"http://{host}", f"https://{host}"}
        if origin not in own and origin not in allowed_origins:
            return "cross_site", f"a request from {origin[:80]!r} cannot change anything on this site"
    else:
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return "cross_site", f"a {site[:20]} request cannot change anything on this site"
    has_body = headers.get("transfer-encoding") is not None or headers.get("content-length", "0") not in ("", "0")
    kind = headers.get("content-type")
    # A body without any Content-Type is let through only from a client that is not a browser (a browser
    # sends Origin or Sec-Fetch-Site with every state-changing request, checked above).
    browser = origin is not None or headers.get("sec-fetch-site") is not None
    if has_body and (kind is not None or browser):
        media = (kind or "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            return "bad_content_type", "send the request body as JSON (Content-Type: application/json)"
    return None


class BadJson(ValueError):
    """A request body that is not JSON the site can keep: ``code`` and a ``reason`` naming the field."""

    def __init__(self, code: str, reason: str, not_json: bool = False) -> None:
        super().__init__(reason)
        self.code, self.reason = code, reason
        self.not_json = not_json
        """The body is not JSON at all (as opposed to JSON the site cannot keep)."""


def lone_surrogate(data: Any, path: str = "") -> str | None:
    """Where ``data`` holds a string with a lone surrogate (``"\\ud800"``: JSON can write it, UTF-8 cannot
    store or send it), as a path like ``game.players[2]``; ``None`` when nowhere."""
    stack: list[tuple[str, Any]] = [(path, data)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and any("\ud800" <= ch <= "\udfff" for ch in item):
                return where or "the body"
        elif isinstance(item, dict):
            for k, v in item.items():
                key = f"{where}.{k}" if where else str(k)
                if isinstance(k, str) and lone_surrogate(k) is not None:
                    return key
                stack.append((key, v))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
    return None


def load_json(raw: bytes) -> Any:
    """A request body as JSON, refusing (``BadJson``) what the site could not store or send back: text that
    is not JSON, nesting too deep, numbers too long to read and strings with lone surrogates. Every JSON
    body the site reads goes through here (the server's endpoints and the web package's routes)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as e:  # ValueError also covers numbers of over 4,300 digits
        if "digits" in str(e):
            raise BadJson("malformed", "a number is too long (over 4,300 digits)") from None
        raise BadJson("malformed", "the request body is not valid JSON", not_json=True) from None
    where = lone_surrogate(data)
    if where is not None:
        raise BadJson("bad_text", f"{where}: the text has a lone surrogate (half of a UTF-16 pair), which is not text")
    return data


class SafeJSONResponse(JSONResponse):
    """A JSON answer that never fails to encode: a lone surrogate kept from before (a stored score game)
    is written as a ``\\ud800`` escape instead of failing the whole answer with a server error."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


class SiteGuard:
    """The middleware: origin and content-type checks, the request quota, security headers."""

    def __init__(self, app: ASGIApp, *, allowed_origins: Iterable[str] = (), quotas: RequestQuota | None = None,
                 hsts_seconds: int = 0) -> None:
        self.app = app
        self.allowed_origins = frozenset(allowed_origins)
        self.quotas = quotas
        self.headers = security_headers(hsts_seconds)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for k, v in self.headers:
                    if k.decode() not in headers:
                        headers.raw.append((k, v))
            await send(message)

        request_headers = Headers(scope=scope)
        problem = None
        if scope["method"] not in SAFE_METHODS:
            problem = refusal(request_headers, scope.get("scheme", "http"), self.allowed_origins)
        if problem is not None:
            code, reason = problem
            await JSONResponse({"error": {"code": code, "reason": reason}}, status_code=403)(
                scope, receive, send_guarded)
            return
        if self.quotas is not None and scope["path"].startswith("/api/"):
            client = scope.get("client")
            wait = await self.quotas.hit("requests", client[0] if client else "?")
            if wait is not None:
                retry = max(1, math.ceil(wait))
                body = {"error": {"code": "rate_limited", "quota": "requests", "retry_after": retry,
                                  "reason": "too many requests from your address: slow down"}}
                await JSONResponse(body, status_code=429, headers={"Retry-After": str(retry)})(
                    scope, receive, send_guarded)
                return
        await self.app(scope, receive, send_guarded)


__all__ = ["CSP", "BadJson", "SafeJSONResponse", "SiteGuard", "load_json", "lone_surrogate", "refusal",
           "security_headers"]
