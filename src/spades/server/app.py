"""The FastAPI application: HTTP endpoints (session, accounts, tables, lobby, records, ratings) and the
table WebSocket. ``create_app(config)`` builds it; ``spades serve`` runs it on uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request, Response, WebSocket
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.websockets import WebSocketDisconnect

from spades.ai.base import PLAYER_LEVELS
from spades.core.errors import SpadesError
from spades.server.accounts import (
    USERNAME_RE,
    LoginLimiter,
    clean_name,
    dummy_hash,
    guest_name,
    hash_password,
    verify_password,
)
from spades.server.config import ServerConfig
from spades.server.hub import BotLevels, Conn, Hub
from spades.server.protocol import ProtocolError, decode_message
from spades.server.quotas import QuotaExceeded, Quotas
from spades.server.ratings import display_rating
from spades.server.review import review_router
from spades.server.stats import stats_router
from spades.server.table import Seat
from spades.storage.base import DuplicateError, PlayerRow, ScoreGameRow, Storage, TableRow
from spades.storage.sql import SqlStorage, open_storage
from spades.variants import PRESETS, load_rules
from spades.web.security import BadJson, SafeJSONResponse, SiteGuard, load_json

log = logging.getLogger("spades.server")
COOKIE = "spades_session"
MAX_TURN_SECONDS = 600
MAX_SCORE_GAMES = 200
"""The most score-keeper games one account keeps on the server."""
MAX_SCORE_GAME_BYTES = 128 * 1024
"""The largest score-keeper game (as JSON) the server keeps: a game of 400 hands is about 40 KiB."""
SCORE_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")


class ApiError(Exception):
    """An HTTP error answered as ``{"error": {"code": ..., "reason": ...}}``."""

    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


class NameBody(BaseModel):
    """``POST /api/me/name``."""

    name: str = Field(description="the new display name: 1 to 32 characters")


class AccountBody(BaseModel):
    """``POST /api/register`` and ``POST /api/login``."""

    username: str = Field(description="3 to 32 letters, digits, '_', '.' or '-'")
    password: str = Field(description="8 to 256 characters")


class PlayBody(BaseModel):
    """``POST /api/play``: a game against the computer."""

    rules: str | dict[str, Any] = Field("standard", description="a preset name, or {\"preset\": ..., overrides}")
    turn_seconds: float | None = Field(None, description=f"1 to {MAX_TURN_SECONDS}, or null for no timer")
    bot_level: str | None = Field(None, description="one of GET /api/levels")


class TableBody(PlayBody):
    """``POST /api/tables``."""

    public: bool = True
    rated: bool = False
    sit: bool = Field(True, description="take seat 0 at once")


class ScoreGameBody(BaseModel):
    """``PUT /api/scoregames/{game_id}``: the game as the score keeper keeps it (``id`` as in the address,
    ``name``, ``updated`` in milliseconds, ``hands``, and whatever else the page keeps)."""

    game: dict[str, Any]


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """An endpoint's request body in the OpenAPI schema (the endpoint reads and checks the body itself, so
    its errors keep the site's ``{"error": ...}`` form)."""
    return {"requestBody": {"required": False, "content": {"application/json": {"schema": model.model_json_schema()}}}}


def player_json(p: PlayerRow) -> dict[str, Any]:
    """A player as the API shows it (never the password hash)."""
    return {"id": p.id, "name": p.name, "username": p.username, "guest": p.username is None,
            "rating": round(display_rating(p.rating_mu, p.rating_sigma), 2), "rated_games": p.rated_games}


def create_app(config: ServerConfig | None = None, storage: Storage | None = None,
               bots: BotLevels | None = None) -> FastAPI:
    """The application. Without ``storage``, the database of ``config.database_url`` is opened (and
    migrated) at start. ``bots``: the bot levels offered (default: every level of ``spades.ai``)."""
    cfg = config or ServerConfig()
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        st = storage if storage is not None else open_storage(cfg.database_url)
        kw: dict[str, Any] = {"bot_delay": cfg.bot_delay, "bot_think": cfg.bot_think, "time_scale": cfg.time_scale,
                              "clock": cfg.clock, "resume_window": cfg.resume_window,
                              "seed_seconds": cfg.seed_seconds, "bots": bots}
        if cfg.redis_url:  # one of several processes (spades.server.cluster)
            from spades.server.cluster import ClusterHub

            if not isinstance(st, SqlStorage):
                raise ValueError("several server processes need the SQL storage on PostgreSQL")
            hub: Hub = ClusterHub(st, cfg.redis_url, prefix=cfg.redis_prefix, lease_seconds=cfg.lease_seconds,
                                  **kw)
        else:
            hub = Hub(st, **kw)
        state["hub"] = hub
        state["limiter"] = hub.login_limiter(cfg.login_attempts, cfg.login_window)
        await asyncio.to_thread(dummy_hash)  # made once, before the first login for an unknown name
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()
            if storage is None:
                st.close()

    app = FastAPI(title="spades", lifespan=lifespan, docs_url=None, redoc_url=None,
                  default_response_class=SafeJSONResponse)
    quotas = Quotas.from_config(cfg)
    app.state.quotas = quotas
    """The site's quotas (``spades.server.quotas``), shared by the HTTP endpoints and the table socket."""
    app.add_middleware(SiteGuard, allowed_origins=cfg.allowed_origins, quotas=quotas, hsts_seconds=cfg.hsts_seconds)
    app.state.guarded = True
    if cfg.trusted_proxies:  # outermost: the guard and the endpoints see the client's address
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(cfg.trusted_proxies))

    def hub() -> Hub:
        h: Hub = state["hub"]
        return h

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": {"code": exc.code, "reason": exc.reason}}, status_code=exc.status)

    @app.exception_handler(QuotaExceeded)
    async def over_quota(_request: Request, exc: QuotaExceeded) -> JSONResponse:
        return JSONResponse(exc.json(), status_code=429, headers={"Retry-After": str(exc.retry_after)})

    def set_cookie(response: Response, token: str) -> None:
        response.set_cookie(COOKIE, token, httponly=True, samesite="lax", secure=cfg.secure_cookies,
                            max_age=365 * 24 * 3600, path="/")

    def address(request: Request) -> str:
        """The client's address (a trusted proxy's ``X-Forwarded-For`` already applied)."""
        return request.client.host if request.client else "?"

    async def new_session(request: Request, response: Response, player_id: str) -> None:
        """A fresh session token after a sign-up or a login (a token planted before it is worth nothing):
        the old one ends, with its sockets."""
        old = request.cookies.get(COOKIE)
        if old:
            await hub().db(hub().storage.delete_session, old)
            hub().close_session(old)
        set_cookie(response, await hub().db(hub().storage.create_session, player_id))

    async def current_player(request: Request, response: Response, create: bool = True) -> PlayerRow:
        token = request.cookies.get(COOKIE)
        if token:
            p = await hub().db(hub().storage.session_player, token)
            if p is not None:
                return p
        if not create:
            raise ApiError(401, "no_session", "you have no session")
        await quotas.check("guests", address(request), "too many new guests from your address: try again later")
        p = await hub().db(hub().storage.create_player, guest_name())
        set_cookie(response, await hub().db(hub().storage.create_session, p.id))
        return p

    def read_json(raw: bytes) -> Any:
        try:
            return load_json(raw)
        except BadJson as e:
            raise ApiError(400, e.code, e.reason) from None

    async def body(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > 16384:
            raise ApiError(413, "too_large", "the request body is too large")
        if not raw:
            return {}
        data = read_json(raw)
        if not isinstance(data, dict):
            raise ApiError(400, "malformed", "the request body must be a JSON object")
        return data

    # ------------------------------------------------------------------ health, session, accounts

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/api/me")
    async def me(request: Request, response: Response) -> dict[str, Any]:
        """The current player; a guest with a name and a session cookie is made at once if needed."""
        return player_json(await current_player(request, response))

    @app.post("/api/session")
    async def session(request: Request, response: Response) -> dict[str, Any]:
        """The same as ``GET /api/me``, for clients that prefer POST."""
        return player_json(await current_player(request, response))

    @app.post("/api/me/name", openapi_extra=json_body(NameBody))
    async def rename(request: Request, response: Response) -> dict[str, Any]:
        """Change the display name."""
        p = await current_player(request, response)
        name = clean_name((await body(request)).get("name"))
        if name is None:
            raise ApiError(400, "bad_name", "a name has 1 to 32 characters")
        await hub().db(hub().storage.rename_player, p.id, name)
        return player_json(PlayerRow(p.id, name, p.username, p.rating_mu, p.rating_sigma, p.rated_games))

    @app.post("/api/register", openapi_extra=json_body(AccountBody))
    async def register(request: Request, response: Response) -> dict[str, Any]:
        """The current (guest) player claims an account: a user name and a password."""
        p = await current_player(request, response)
        data = await body(request)
        username, password = data.get("username"), data.get("password")
        if p.username is not None:
            raise ApiError(409, "has_account", "you already have an account")
        if not isinstance(username, str) or not USERNAME_RE.fullmatch(username):
            raise ApiError(400, "bad_username", "a user name has 3 to 32 letters, digits, '_', '.' or '-'")
        if not isinstance(password, str) or not 8 <= len(password) <= 256:
            raise ApiError(400, "bad_password", "a password has 8 to 256 characters")
        await quotas.check("accounts", address(request), "too many sign-ups from your address: try again later")
        hashed = await asyncio.to_thread(hash_password, password)
        try:
            await hub().db(hub().storage.set_account, p.id, username, hashed)
        except DuplicateError:  # a sign-up must say so; the accounts quota keeps it from being a name oracle
            raise ApiError(409, "username_taken", "that user name is taken") from None
        await new_session(request, response, p.id)
        return player_json(PlayerRow(p.id, p.name, username, p.rating_mu, p.rating_sigma, p.rated_games))

    @app.post("/api/login", openapi_extra=json_body(AccountBody))
    async def login(request: Request, response: Response) -> dict[str, Any]:
        """Log in; too many failures for a user name or an address answer 429 for a while."""
        data = await body(request)
        username, password = data.get("username"), data.get("password")
        if not isinstance(username, str) or not isinstance(password, str) or len(password) > 256:
            raise ApiError(400, "malformed", "give a username and a password")
        addr = address(request)
        # A name's failures count per address: an attacker elsewhere slows only themselves, never the owner.
        keys = (f"user:{username.lower()}|{addr}", f"addr:{addr}")
        limiter: LoginLimiter = state["limiter"]
        wait = max([await limiter.wait(k) for k in keys])
        if wait > 0:
            raise QuotaExceeded("login", wait, f"too many failed logins: try again in {max(1, round(wait))} s")
        found = await hub().db(hub().storage.account, username)
        # An unknown name is checked against a dummy hash: it takes as long as a real one.
        ok = await asyncio.to_thread(verify_password, found[1] if found else dummy_hash(), password)
        if not ok or found is None:
            for k in keys:
                await limiter.fail(k)
            raise ApiError(401, "bad_login", "wrong user name or password")
        for k in keys:
            await limiter.clear(k)
        await new_session(request, response, found[0].id)
        return player_json(found[0])

    @app.post("/api/logout")
    async def logout(request: Request, response: Response) -> dict[str, bool]:
        """End the session."""
        token = request.cookies.get(COOKIE)
        if token:
            await hub().db(hub().storage.delete_session, token)
            hub().close_session(token)
        response.delete_cookie(COOKIE, path="/")
        return {"ok": True}

    # ------------------------------------------------------------------ tables

    @app.get("/api/levels")
    async def levels() -> dict[str, Any]:
        # The levels offered to players; others the hub knows (random, ismcts) are still taken by name.
        offered = [lv for lv in PLAYER_LEVELS if lv in hub().levels] or list(hub().levels)
        return {"levels": offered, "default": hub().default_level()}

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        return {"presets": {p.name: {"options": dict(p.options), "description": p.description}
                            for p in PRESETS.values()}}

    def table_settings(data: dict[str, Any]) -> tuple[Any, dict[str, Any], bool]:
        spec = data.get("rules", "standard")
        try:
            rules = load_rules(spec)
        except SpadesError as e:
            raise ApiError(400, "bad_rules", str(e)) from None
        except RecursionError:
            raise ApiError(400, "bad_rules", "the rules are nested too deeply") from None
        turn = data.get("turn_seconds", cfg.default_turn_seconds)
        if turn is not None and (not isinstance(turn, int | float) or isinstance(turn, bool)
                                 or not 1 <= turn <= MAX_TURN_SECONDS):
            raise ApiError(400, "bad_turn_seconds", f"turn_seconds is 1 to {MAX_TURN_SECONDS}, or null for none")
        level = data.get("bot_level") or hub().default_level()
        if not isinstance(level, str) or level not in hub().levels:
            raise ApiError(400, "bad_level",
                           f"bot_level: unknown level {str(level)[:20]!r}; the levels are: {', '.join(hub().levels)}")
        public = data.get("public", True)
        if not isinstance(public, bool):
            raise ApiError(400, "malformed", "public is true or false")
        rated = data.get("rated", False) is True
        del rules
        return spec, {"turn_seconds": turn, "bot_level": level, "rated": rated}, public

    async def new_table(p: PlayerRow, spec: Any, settings: dict[str, Any], public: bool,
                        seats: list[tuple[int, Seat]]) -> dict[str, Any]:
        tid = secrets.token_urlsafe(9)
        invite = None if public else secrets.token_urlsafe(18)
        t = await hub().create_table(TableRow(tid, spec, settings, public, invite, p.id, time.time()), seats)
        return {"id": tid, "invite": invite, "table": t.info()}

    @app.post("/api/tables", openapi_extra=json_body(TableBody))
    async def create_table(request: Request, response: Response) -> dict[str, Any]:
        """A new table: ``{"rules": preset or {"preset": ..., overrides}, "public": true, "turn_seconds": 30,
        "bot_level": "normal", "rated": false, "sit": true}``."""
        p = await current_player(request, response)
        data = await body(request)
        spec, settings, public = table_settings(data)
        await quotas.check("tables", p.id, "you have made many tables lately: try again later")
        seats = [(0, Seat(p.id, p.name))] if data.get("sit", True) is True else []
        return await new_table(p, spec, settings, public, seats)

    @app.post("/api/play", openapi_extra=json_body(PlayBody))
    async def play_alone(request: Request, response: Response) -> dict[str, Any]:
        """Play alone against the computer at once: you in seat 0, bots in the others, dealt now."""
        p = await current_player(request, response)
        data = await body(request)
        data = {**data, "public": False, "rated": False}
        data.setdefault("turn_seconds", None)
        spec, settings, _ = table_settings(data)
        await quotas.check("play", p.id, "you have started many games against the computer lately: try again later")
        n = load_rules(spec).layout.n
        level = settings["bot_level"]
        seats = [(0, Seat(p.id, p.name))] + [(i, Seat(None, f"Bot {i + 1} ({level})", level)) for i in range(1, n)]
        return await new_table(p, spec, settings, False, seats)

    @app.get("/api/lobby")
    async def lobby() -> dict[str, Any]:
        """Open public tables."""
        return {"tables": await hub().lobby(100)}

    @app.get("/api/cluster")
    async def cluster() -> dict[str, Any]:
        """This process's node id and the tables it owns and watches (only with several processes)."""
        status = hub().status()
        if status is None:
            raise ApiError(404, "no_cluster", "this server runs as a single process")
        return status

    @app.get("/api/invite/{code}")
    async def invite(code: str) -> dict[str, Any]:
        """The table of an invite code."""
        row = await hub().db(hub().storage.table_by_invite, code[:64])
        if row is None:
            raise ApiError(404, "no_table", "that invite is not valid")
        return {"id": row.id}

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str, request: Request, response: Response) -> dict[str, Any]:
        """A finished game's ``spades-record/1``, for its players, full deals included."""
        p = await current_player(request, response)
        rec = await hub().game_record(table_id[:32])
        if rec is None:
            raise ApiError(404, "not_finished", "that game is not finished (or does not exist)")
        t = await hub().table(table_id)
        ids = set(await hub().db(hub().storage.game_player_ids, table_id))
        if t is not None:
            ids |= {s.player for s in t.seats if s.player} | {s.reserved for s in t.seats if s.reserved}
        if p.id not in ids:
            raise ApiError(403, "not_a_player", "only the game's players can download its record")
        return rec

    @app.get("/api/leaderboard")
    async def leaderboard() -> dict[str, Any]:
        """Rated players, best first."""
        rows = await hub().db(hub().storage.leaderboard, 50)
        return {"players": [player_json(p) for p in rows]}

    @app.get("/api/players/{player_id}/history")
    async def history(player_id: str) -> dict[str, Any]:
        """A player's finished games, newest first."""
        p = await hub().db(hub().storage.get_player, player_id[:32])
        if p is None:
            raise ApiError(404, "no_player", "no such player")
        return {"player": player_json(p), "games": await hub().db(hub().storage.history, p.id, 50)}

    app.include_router(stats_router(hub))  # GET /api/players/{id}/stats
    app.include_router(review_router(hub, current_player))  # "Review my game" (spades.server.review)

    # ------------------------------------------------------------------ score-keeper games

    async def account_player(request: Request, response: Response) -> PlayerRow:
        p = await current_player(request, response, create=False)
        if p.username is None:
            raise ApiError(403, "no_account", "sign in (or make an account) to keep score-keeper games on the server")
        return p

    def score_game_json(row: ScoreGameRow) -> dict[str, Any]:
        return {"id": row.game_id, "name": row.name, "updated": row.updated, "stored_at": row.stored_at,
                "game": row.data}

    def score_game_id(game_id: str) -> str:
        if not SCORE_GAME_ID.fullmatch(game_id):
            raise ApiError(400, "bad_id", "a game id has 1 to 40 letters, digits, '_' or '-'")
        return game_id

    @app.get("/api/scoregames")
    async def list_score_games(request: Request, response: Response) -> dict[str, Any]:
        """The signed-in player's score-keeper games, most recently changed first."""
        p = await account_player(request, response)
        rows = await hub().db(hub().storage.score_games, p.id)
        return {"games": [score_game_json(r) for r in rows], "limit": MAX_SCORE_GAMES}

    @app.put("/api/scoregames/{game_id}", response_model=None, openapi_extra=json_body(ScoreGameBody))
    async def save_score_game(game_id: str, request: Request, response: Response) -> dict[str, Any] | JSONResponse:
        """Keep a score-keeper game: ``{"game": {"id", "name", "updated", "hands", ...}}``. A copy on the server
        changed later than this one is kept and answered with 409 ``newer_on_server`` and that copy."""
        p = await account_player(request, response)
        score_game_id(game_id)
        length = request.headers.get("content-length")
        if length is not None and (not (length.isascii() and length.isdigit()) or int(length) > MAX_SCORE_GAME_BYTES):
            raise ApiError(413, "too_large", f"a score-keeper game may be at most {MAX_SCORE_GAME_BYTES // 1024} KiB")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_SCORE_GAME_BYTES:
                raise ApiError(413, "too_large",
                               f"a score-keeper game may be at most {MAX_SCORE_GAME_BYTES // 1024} KiB")
        data = read_json(raw)
        game = data.get("game") if isinstance(data, dict) else None
        if not isinstance(game, dict):
            raise ApiError(400, "malformed", "send {\"game\": {...}}: the game as the score keeper keeps it")
        if game.get("id") != game_id:
            raise ApiError(400, "bad_id", "the game's id must be the one in the address")
        name, updated, hands = game.get("name"), game.get("updated"), game.get("hands")
        if not isinstance(name, str) or not 1 <= len(name) <= 80:
            raise ApiError(400, "bad_name", "a game's name has 1 to 80 characters")
        if not isinstance(updated, int | float) or isinstance(updated, bool) or not 0 <= updated < 1e15:
            raise ApiError(400, "bad_updated", "updated is the time of the game's last change, in milliseconds")
        if not isinstance(hands, list) or len(hands) > 400:
            raise ApiError(400, "bad_hands", "hands is a list of at most 400 hands")
        kept = {k: v for k, v in game.items() if k not in ("scored", "scoredKey")}  # the page's cache of scores
        try:
            outcome, row = await hub().db(hub().storage.save_score_game, p.id, game_id, name, kept, float(updated),
                                          MAX_SCORE_GAMES)
        except DuplicateError:
            raise ApiError(409, "conflict", "the game was saved twice at once: try again") from None
        if outcome == "full":
            raise ApiError(409, "too_many_games",
                           f"you keep {MAX_SCORE_GAMES} games on the server already: delete some first")
        assert row is not None
        if outcome == "newer":
            return JSONResponse({"error": {"code": "newer_on_server", "reason": "the server has a copy of this game "
                                           "changed later"}, "game": score_game_json(row)}, status_code=409)
        return {"ok": True, "id": row.game_id, "updated": row.updated, "stored_at": row.stored_at}

    @app.delete("/api/scoregames/{game_id}")
    async def delete_score_game(game_id: str, request: Request, response: Response) -> dict[str, Any]:
        """Forget one of the signed-in player's score-keeper games."""
        p = await account_player(request, response)
        if not await hub().db(hub().storage.delete_score_game, p.id, score_game_id(game_id)):
            raise ApiError(404, "no_game", "you keep no game with that id on the server")
        return {"ok": True}

    # ------------------------------------------------------------------ the table socket

    def origin_ok(ws: WebSocket) -> bool:
        origin = ws.headers.get("origin")
        if origin is None:
            return True  # not a browser: browsers always send Origin on a WebSocket upgrade
        host = ws.headers.get("host", "")
        own = {f"http://{host}", f"https://{host}"}
        return origin in own or origin in cfg.allowed_origins

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(ws: WebSocket, table_id: str) -> None:
        if not origin_ok(ws):
            await ws.close(code=1008)
            return
        h = hub()
        token = ws.cookies.get(COOKIE)
        player = await h.db(h.storage.session_player, token) if token else None
        await ws.accept()
        conn = Conn(player, table_id[:32], session=token if player is not None else None)
        writer = asyncio.create_task(_writer(ws, conn))
        tokens, last = cfg.rate_burst, time.monotonic()
        try:
            while not conn.closed:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                now = time.monotonic()
                tokens = min(cfg.rate_burst, tokens + (now - last) * cfg.rate_per_second)
                last = now
                if tokens < 1:
                    conn.close(1008)  # a flood: this socket only
                    break
                tokens -= 1
                cid = None
                try:
                    m = decode_message(msg.get("text"), msg.get("bytes"), cfg.max_message_bytes)
                    cid = m.get("id") if isinstance(m.get("id"), str) else None
                    await h.handle(conn, m)
                except ProtocolError as e:
                    conn.error(e.code, e.reason, cid)
                    if e.code in ("no_table", "forbidden"):
                        conn.close(1008)
                except Exception:
                    log.exception("error handling a message at table %s", conn.table_id)
                    conn.error("internal", "the server could not handle that message", cid)
        except WebSocketDisconnect:
            pass
        finally:
            h.detach(conn)
            conn.close(1000)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5)
            writer.cancel()

    return app


async def _writer(ws: WebSocket, conn: Conn) -> None:
    try:
        while True:
            item = await conn.outbox.get()
            if item is None:
                break
            await ws.send_text(item)
    except Exception:
        conn.closed = True
        return
    with contextlib.suppress(Exception):
        await ws.close(code=conn.close_code or 1000)
