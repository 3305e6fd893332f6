"""What every HTTP endpoint of the site shares: one error type and one way to read a request body.

- ``ApiError(status, code, reason)``: raised anywhere in an endpoint, answered as
  ``{"error": {"code": ..., "reason": ...}}`` with that status (``details`` adds fields to ``error``;
  ``install(app)`` adds the handler, and the server's ``create_app`` and ``spades.web.api.mount`` both
  call it).
- ``read_body(request, limit)``: the raw body, refused with 413 ``too_large`` past ``limit`` bytes, both
  by its ``Content-Length`` and while it streams in (a body is never read whole before it is measured).
- ``read_json(request, limit)``: the body as a JSON object (an empty body is ``{}``), read by
  ``spades.web.security.load_json`` (which names what the site cannot keep: 400 ``malformed``,
  ``bad_text``); 400 ``malformed`` too when it is not an object.
- ``LimitedRoute.with_limit(limit)``: a route class for endpoints whose body FastAPI parses into a
  model: the body is read with ``read_body`` and checked with ``load_json`` first (JSON the site cannot
  keep answers 400 naming it; a body that is not JSON at all is left to FastAPI's 422), and JSON nested
  too deeply answers 400 ``too_deep``.
- ``json_body(Model)``: an endpoint's body in the OpenAPI schema, for endpoints that read their body
  themselves (so that their errors keep the site's form).

Each area sets its own limit (``BODY_LIMIT`` for the server's small JSON bodies; records and score
sheets, score-keeper games allow more), but they all go through these.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel

from spades.web.security import BadJson, SafeJSONResponse, load_json

BODY_LIMIT = 16 * 1024
"""The largest body of the server's own JSON requests (names, log-ins, new tables)."""


class ApiError(Exception):
    """An HTTP error answered as ``{"error": {"code": ..., "reason": ..., **details}}`` with ``headers``."""

    def __init__(self, status: int, code: str, reason: str, *, details: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason
        self.details = details or {}
        self.headers = headers

    def response(self, **beside: Any) -> JSONResponse:
        """The answer (``beside``: more fields next to ``error``)."""
        return SafeJSONResponse({"error": {"code": self.code, "reason": self.reason, **self.details}, **beside},
                                status_code=self.status, headers=self.headers)


async def _answer(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return exc.response()


def install(app: FastAPI) -> None:
    """Answer ``ApiError`` raised by any endpoint of ``app`` (once per application)."""
    if not getattr(app.state, "api_errors", False):
        app.add_exception_handler(ApiError, _answer)
        app.state.api_errors = True


def too_large(limit: int) -> ApiError:
    """The error for a body over ``limit`` bytes."""
    size = f"{limit // 1024} KiB" if limit % 1024 == 0 else f"{limit} bytes"
    return ApiError(413, "too_large", f"a request body here may be at most {size}")


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most ``limit`` bytes (``ApiError`` 413 ``too_large`` otherwise)."""
    length = request.headers.get("content-length")
    if length is not None and (not (length.isascii() and length.isdigit()) or int(length) > limit):
        raise too_large(limit)
    size = 0
    chunks: list[bytes] = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json(raw: bytes) -> Any:
    """JSON text as Python, by ``load_json`` (``ApiError`` 400 naming what it cannot read or keep)."""
    try:
        return load_json(raw)
    except BadJson as e:
        raise ApiError(400, e.code, e.reason) from None


async def read_json(request: Request, limit: int = BODY_LIMIT) -> dict[str, Any]:
    """The request's body as a JSON object, at most ``limit`` bytes; an empty body is ``{}``."""
    raw = await read_body(request, limit)
    if not raw:
        return {}
    data = parse_json(raw)
    if not isinstance(data, dict):
        raise ApiError(400, "malformed", "the request body must be a JSON object")
    return data


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """An endpoint's request body in the OpenAPI schema (``openapi_extra``), for an endpoint that reads and
    checks the body itself, so its errors keep the site's ``{"error": ...}`` form."""
    return {"requestBody": {"required": False, "content": {"application/json": {"schema": model.model_json_schema()}}}}


class LimitedRoute(APIRoute):
    """A route whose body is read with ``read_body`` (at most ``limit`` bytes) before FastAPI parses it,
    and that answers 400 ``too_deep`` (not a server error) for JSON nested too deeply for the parser."""

    limit = BODY_LIMIT

    @classmethod
    def with_limit(cls, limit: int) -> type[LimitedRoute]:
        """This route class with another body limit."""
        return type(f"LimitedRoute{limit}", (cls,), {"limit": limit})

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        limit = self.limit

        async def limited(request: Request) -> Response:
            try:
                request._body = await read_body(request, limit)  # Starlette reads the cached body from here
                if request._body:
                    try:
                        load_json(request._body)  # what the site cannot read, keep or send back: named here
                    except BadJson as e:
                        if not e.not_json:  # not JSON at all: FastAPI's own 422 names the place
                            raise ApiError(400, e.code, e.reason) from None
                return await handler(request)
            except ApiError as e:
                return e.response()
            except RecursionError:
                return ApiError(400, "too_deep", "the JSON is nested too deeply").response()

        return limited


__all__ = ["BODY_LIMIT", "ApiError", "LimitedRoute", "install", "json_body", "parse_json", "read_body", "read_json",
           "too_large"]
