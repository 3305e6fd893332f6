"""The FastAPI application. ``create_app(config)`` builds it from its parts; ``spades serve`` runs it on
uvicorn (with the pages of ``spades.web.api.mount`` added last).

Top to bottom: the hub is made when the application starts (a ``Hub`` on the storage, composed with the
cluster's parts with ``--redis``: ``spades.server.cluster.cluster_hub``); the site guard and the quotas
wrap every request; ``ApiError``, and ``QuotaExceeded`` (429) are answered as JSON; then one router per area
(``spades.server.routes``): session and accounts (with a player's statistics, ``spades.server.stats``),
tables and the lobby (with the table socket), score-keeper games.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from spades.server.accounts import dummy_hash
from spades.server.config import ServerConfig
from spades.server.hub import BotLevels, Hub
from spades.server.quotas import QuotaExceeded, Quotas
from spades.server.rematch import rematch_router
from spades.server.review import review_router
from spades.server.routes import score_games_router, session_router, tables_router
from spades.server.routes.tables import TABLE_SOCKET, table_socket_endpoint
from spades.server.site import COOKIE, Site, player_json
from spades.server.stats import stats_router
from spades.storage.base import Storage, StorageBusy
from spades.storage.sql import SqlStorage, open_storage
from spades.web import http
from spades.web.http import ApiError
from spades.web.security import SafeJSONResponse, SiteGuard


def make_hub(cfg: ServerConfig, storage: Storage, bots: BotLevels | None = None) -> Hub:
    """The hub for these settings: one process's, or one of several sharing tables (``--redis``)."""
    kw: dict[str, Any] = {"bot_delay": cfg.bot_delay, "bot_think": cfg.bot_think, "time_scale": cfg.time_scale,
                          "clock": cfg.clock, "resume_window": cfg.resume_window,
                          "seed_seconds": cfg.seed_seconds, "bots": bots, "storage_wait": cfg.storage_wait,
                          "idle_table_seconds": cfg.idle_table_seconds, "commit_gather": cfg.commit_gather}
    if not cfg.redis_url:
        return Hub(storage, **kw)
    from spades.server.cluster import cluster_hub

    if not isinstance(storage, SqlStorage):
        raise ValueError("several server processes need the SQL storage on PostgreSQL")
    return cluster_hub(storage, cfg.redis_url, prefix=cfg.redis_prefix, lease_seconds=cfg.lease_seconds, **kw)


def create_app(config: ServerConfig | None = None, storage: Storage | None = None,
               bots: BotLevels | None = None) -> FastAPI:
    """The application. Without ``storage``, the database of ``config.database_url`` is opened (and
    migrated) at start. ``bots``: the bot levels offered (default: every level of ``spades.ai``)."""
    cfg = config or ServerConfig()
    quotas = Quotas.from_config(cfg)
    site = Site(cfg, quotas)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        st = storage if storage is not None else open_storage(cfg.database_url, max(0.5, cfg.storage_wait - 1.0))
        hub = make_hub(cfg, st, bots)
        hub.quotas = quotas  # chat lines per player, counted where the table's owner handles them
        _app.state.hub = hub  # (tests and operators look at the hub's tables)
        site.started(hub)
        await asyncio.to_thread(dummy_hash)  # made once, before the first login for an unknown name
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()
            if storage is None:
                st.close()

    app = SpadesApp(title="spades", lifespan=lifespan, docs_url=None, redoc_url=None,
                    default_response_class=SafeJSONResponse)
    app.state.site = site
    app.state.quotas = quotas
    """The site's quotas (``spades.server.quotas``), shared by the HTTP endpoints and the table socket."""
    app.add_middleware(SiteGuard, allowed_origins=cfg.allowed_origins, quotas=quotas, hsts_seconds=cfg.hsts_seconds)
    app.state.guarded = True
    if cfg.trusted_proxies:  # outermost: the guard and the endpoints see the client's address
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(cfg.trusted_proxies))

    http.install(app)

    @app.exception_handler(StorageBusy)
    async def storage_busy(_request: Request, _exc: StorageBusy) -> JSONResponse:
        retry = max(1, round(cfg.storage_wait))
        return JSONResponse({"error": {"code": "storage_busy", "reason": "the database is busy: nothing was "
                                       "changed, try again in a few seconds", "retry_after": retry}},
                            status_code=503, headers={"Retry-After": str(retry)})

    @app.exception_handler(QuotaExceeded)
    async def over_quota(_request: Request, exc: QuotaExceeded) -> JSONResponse:
        return JSONResponse(exc.json(), status_code=429, headers={"Retry-After": str(exc.retry_after)})


    app.include_router(session_router(site))
    app.include_router(stats_router(site.hub))  # GET /api/players/{id}/stats
    app.include_router(review_router(site.hub, site.current_player))  # "Review my game" (spades.server.review)
    app.include_router(rematch_router(site.hub, site.current_player))  # POST /api/tables/{id}/rematch
    app.include_router(tables_router(site))
    app.include_router(score_games_router(site))
    app.table_socket = table_socket_endpoint(site)  # answered ahead of the framework (``SpadesApp``)
    return app


class SpadesApp(FastAPI):
    """The application: FastAPI, answering the table socket ``/ws/tables/{id}`` (``table_socket``) in its own
    call, ahead of the framework's middleware and routing and of FastAPI's and Starlette's own calls.

    A table socket stays open for a whole game, and every frame it sends or receives crossed each layer
    of the framework's stack (the exception middleware, the routers, the endpoint wrappers), each a
    coroutine suspended for the socket's whole life: answering here keeps about 20 fewer of them per
    connection and calls the server's own ``send`` and ``receive`` (``benchmarks/README.md``, issue 19);
    answering in this call rather than in the first middleware also spares FastAPI's and Starlette's
    ``__call__``, two more frames (about 0.5 KiB a socket). Every other request and socket goes through
    the whole stack. The socket's own checks (its origin, its session, its quotas) are all in the endpoint;
    the HTTP guard (``spades.web.security.SiteGuard``) passes sockets through untouched anyway."""

    table_socket: Callable[[WebSocket, str, Receive], Awaitable[None]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self.table_socket is not None:
            m = TABLE_SOCKET.fullmatch(scope["path"])
            if m is not None:
                scope["app"] = self  # (what Starlette's own call sets)
                await self.table_socket(WebSocket(scope, receive, send), m.group(1), receive)
                return
        await super().__call__(scope, receive, send)


__all__ = ["COOKIE", "ApiError", "SpadesApp", "create_app", "make_hub", "player_json"]
