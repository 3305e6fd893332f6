"""Session and accounts: ``/healthz``, ``/api/me``, ``/api/session``, ``/api/me/name``, ``/api/register``,
``/api/login``, ``/api/logout``, ``/api/leaderboard``, ``/api/players/{id}/history``."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from spades.server.accounts import USERNAME_RE, clean_name, dummy_hash, hash_password, verify_password
from spades.server.quotas import QuotaExceeded
from spades.server.site import COOKIE, Site, player_json
from spades.storage.base import DuplicateError, PlayerRow
from spades.web.http import ApiError, json_body, read_json


class NameBody(BaseModel):
    """``POST /api/me/name``."""

    name: str = Field(description="the new display name: 1 to 32 characters")


class AccountBody(BaseModel):
    """``POST /api/register`` and ``POST /api/login``."""

    username: str = Field(description="3 to 32 letters, digits, '_', '.' or '-'")
    password: str = Field(description="8 to 256 characters")


def session_router(site: Site) -> APIRouter:
    """The session and account endpoints."""
    router = APIRouter()

    @router.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @router.get("/readyz", response_model=None)
    async def readyz() -> dict[str, bool] | JSONResponse:
        """Ready to serve: the database can be written now (a probe that writes nothing); 503 when not."""
        if await site.hub().ready():
            return {"ok": True}
        return JSONResponse({"ok": False, "error": {"code": "storage_busy", "reason": "the database cannot be "
                                                    "written now"}}, status_code=503)

    @router.get("/api/me")
    async def me(request: Request, response: Response) -> dict[str, Any]:
        """The current player; a guest with a name and a session cookie is made at once if needed."""
        return player_json(await site.current_player(request, response))

    @router.post("/api/session")
    async def session(request: Request, response: Response) -> dict[str, Any]:
        """The same as ``GET /api/me``, for clients that prefer POST."""
        return player_json(await site.current_player(request, response))

    @router.post("/api/me/name", openapi_extra=json_body(NameBody))
    async def rename(request: Request, response: Response) -> dict[str, Any]:
        """Change the display name."""
        p = await site.current_player(request, response)
        name = clean_name((await read_json(request)).get("name"))
        if name is None:
            raise ApiError(400, "bad_name", "a name has 1 to 32 characters")
        h = site.hub()
        await h.db(h.storage.rename_player, p.id, name)
        return player_json(PlayerRow(p.id, name, p.username, p.rating_mu, p.rating_sigma, p.rated_games))

    @router.post("/api/register", openapi_extra=json_body(AccountBody))
    async def register(request: Request, response: Response) -> dict[str, Any]:
        """The current (guest) player claims an account: a user name and a password."""
        p = await site.current_player(request, response)
        data = await read_json(request)
        username, password = data.get("username"), data.get("password")
        if p.username is not None:
            raise ApiError(409, "has_account", "you already have an account")
        if not isinstance(username, str) or not USERNAME_RE.fullmatch(username):
            raise ApiError(400, "bad_username", "a user name has 3 to 32 letters, digits, '_', '.' or '-'")
        if not isinstance(password, str) or not 8 <= len(password) <= 256:
            raise ApiError(400, "bad_password", "a password has 8 to 256 characters")
        await site.quotas.check("accounts", site.address(request),
                                "too many sign-ups from your address: try again later")
        hashed = await asyncio.to_thread(hash_password, password)
        h = site.hub()
        try:
            await h.db(h.storage.set_account, p.id, username, hashed)
        except DuplicateError:  # a sign-up must say so; the accounts quota keeps it from being a name oracle
            raise ApiError(409, "username_taken", "that user name is taken") from None
        await site.new_session(request, response, p.id)
        return player_json(PlayerRow(p.id, p.name, username, p.rating_mu, p.rating_sigma, p.rated_games))

    @router.post("/api/login", openapi_extra=json_body(AccountBody))
    async def login(request: Request, response: Response) -> dict[str, Any]:
        """Log in; too many failures for a user name or an address answer 429 for a while."""
        data = await read_json(request)
        username, password = data.get("username"), data.get("password")
        if not isinstance(username, str) or not isinstance(password, str) or len(password) > 256:
            raise ApiError(400, "malformed", "give a username and a password")
        addr = site.address(request)
        # A name's failures count per address: an attacker elsewhere slows only themselves, never the owner.
        keys = (f"user:{username.lower()}|{addr}", f"addr:{addr}")
        limiter = site.limiter()
        wait = max([await limiter.wait(k) for k in keys])
        if wait > 0:
            raise QuotaExceeded("login", wait, f"too many failed logins: try again in {max(1, round(wait))} s")
        h = site.hub()
        found = await h.db(h.storage.account, username)
        # An unknown name is checked against a dummy hash: it takes as long as a real one.
        ok = await asyncio.to_thread(verify_password, found[1] if found else dummy_hash(), password)
        if not ok or found is None:
            for k in keys:
                await limiter.fail(k)
            raise ApiError(401, "bad_login", "wrong user name or password")
        for k in keys:
            await limiter.clear(k)
        await site.new_session(request, response, found[0].id)
        return player_json(found[0])

    @router.post("/api/logout")
    async def logout(request: Request, response: Response) -> dict[str, bool]:
        """End the session."""
        token = request.cookies.get(COOKIE)
        if token:
            h = site.hub()
            await h.db(h.storage.delete_session, token)
            h.close_session(token)
        response.delete_cookie(COOKIE, path="/")
        return {"ok": True}

    @router.get("/api/leaderboard")
    async def leaderboard() -> dict[str, Any]:
        """Rated players, best first."""
        h = site.hub()
        rows = await h.db(h.storage.leaderboard, 50)
        return {"players": [player_json(p) for p in rows]}

    @router.get("/api/players/{player_id}/history")
    async def history(player_id: str) -> dict[str, Any]:
        """A player's finished games, newest first."""
        h = site.hub()
        p = await h.db(h.storage.get_player, player_id[:32])
        if p is None:
            raise ApiError(404, "no_player", "no such player")
        return {"player": player_json(p), "games": await h.db(h.storage.history, p.id, 50)}

    return router


__all__ = ["session_router"]
