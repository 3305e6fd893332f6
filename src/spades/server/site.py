"""What the server's routers share: the settings, the quotas, the hub (made when the application starts),
the login limiter, and who is asking (the session cookie, the client's address).

``create_app`` makes one ``Site`` and gives it to each router of ``spades.server.routes``; a router reads
the hub through ``site.hub()`` at request time, since the hub exists only once the application runs.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response

from spades.server.accounts import LoginLimiter, guest_name
from spades.server.config import ServerConfig
from spades.server.hub import Hub
from spades.server.quotas import Quotas
from spades.server.ratings import display_rating
from spades.storage.base import PlayerRow
from spades.web.http import ApiError

COOKIE = "spades_session"
"""The session cookie: a random token, stored only as its SHA-256."""


def player_json(p: PlayerRow) -> dict[str, Any]:
    """A player as the API shows it (never the password hash)."""
    return {"id": p.id, "name": p.name, "username": p.username, "guest": p.username is None,
            "rating": round(display_rating(p.rating_mu, p.rating_sigma), 2), "rated_games": p.rated_games}


class Site:
    """One server's shared parts, for its routers."""

    def __init__(self, config: ServerConfig, quotas: Quotas) -> None:
        self.config = config
        self.quotas = quotas
        """The site's quotas (``spades.server.quotas``), shared by the HTTP endpoints and the table socket."""
        self._hub: Hub | None = None
        self._limiter: LoginLimiter | None = None

    def started(self, hub: Hub) -> None:
        """The application started with this hub."""
        self._hub = hub
        self._limiter = hub.login_limiter(self.config.login_attempts, self.config.login_window)

    def hub(self) -> Hub:
        """The running hub."""
        if self._hub is None:
            raise RuntimeError("the server has not started")
        return self._hub

    def limiter(self) -> LoginLimiter:
        """Counts failed logins (shared by every process of a cluster)."""
        if self._limiter is None:
            raise RuntimeError("the server has not started")
        return self._limiter

    def set_cookie(self, response: Response, token: str) -> None:
        """Give the client its session cookie."""
        response.set_cookie(COOKIE, token, httponly=True, samesite="lax", secure=self.config.secure_cookies,
                            max_age=365 * 24 * 3600, path="/")

    @staticmethod
    def address(request: Request) -> str:
        """The client's address (a trusted proxy's ``X-Forwarded-For`` already applied)."""
        return request.client.host if request.client else "?"

    async def new_session(self, request: Request, response: Response, player_id: str) -> None:
        """A fresh session token after a sign-up or a login (a token planted before it is worth nothing):
        the old one ends, with its sockets."""
        h = self.hub()
        old = request.cookies.get(COOKIE)
        if old:
            await h.db(h.storage.delete_session, old)
            h.close_session(old)
        self.set_cookie(response, await h.db(h.storage.create_session, player_id))

    async def current_player(self, request: Request, response: Response, create: bool = True) -> PlayerRow:
        """The player of the request's session; without one, a new guest with a session cookie (within the
        ``guests`` quota per address; 401 ``no_session`` when ``create`` is false)."""
        h = self.hub()
        token = request.cookies.get(COOKIE)
        if token:
            p = await h.db(h.storage.session_player, token)
            if p is not None:
                return p
        if not create:
            raise ApiError(401, "no_session", "you have no session")
        await self.quotas.check("guests", self.address(request),
                                "too many new guests from your address: try again later")
        p = await h.db(h.storage.create_player, guest_name())
        self.set_cookie(response, await h.db(h.storage.create_session, p.id))
        return p

    async def account_player(self, request: Request, response: Response) -> PlayerRow:
        """The signed-in player with an account (401 without a session, 403 for a guest)."""
        p = await self.current_player(request, response, create=False)
        if p.username is None:
            raise ApiError(403, "no_account", "sign in (or make an account) to keep score-keeper games on the server")
        return p


__all__ = ["COOKIE", "Site", "player_json"]
