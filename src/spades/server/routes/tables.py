"""Tables and the lobby: ``/api/levels``, ``/api/presets``, ``/api/tables`` (a new table), ``/api/play``
(alone against the computer), ``/api/lobby``, ``/api/cluster``, ``/api/invite/{code}``,
``/api/tables/{id}/record``, and the table socket ``/ws/tables/{id}`` (``docs/protocol.md``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import secrets
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request, Response, WebSocket
from pydantic import BaseModel, Field
from starlette.types import Receive
from starlette.websockets import WebSocketDisconnect

from spades.ai.base import PLAYER_LEVELS
from spades.core.errors import SpadesError
from spades.server.hub import Conn
from spades.server.protocol import ProtocolError, decode_message
from spades.server.quotas import QuotaExceeded
from spades.server.site import COOKIE, Site
from spades.server.socket_protocol import SEND_NOW
from spades.server.table import Seat
from spades.storage.base import PlayerRow, StorageBusy, TableRow
from spades.variants import PRESETS, load_rules
from spades.web.http import ApiError, json_body, read_json

log = logging.getLogger("spades.server")
MAX_TURN_SECONDS = 600
CAP_RETRY_SECONDS = 60
"""``Retry-After`` of a refusal for too many open tables (a place frees when one of them finishes)."""


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


def _duration(seconds: float) -> str:
    """``3600`` as "an hour", ``5400`` as "90 minutes", ``30`` as "30 seconds"."""
    if seconds == 3600:
        return "an hour"
    if seconds >= 120 and seconds % 60 == 0:
        return f"{int(seconds // 60)} minutes"
    return f"{seconds:g} seconds"


def tables_router(site: Site) -> APIRouter:
    """The table, lobby and table-socket endpoints."""
    router = APIRouter()
    cfg = site.config

    @router.get("/api/levels")
    async def levels() -> dict[str, Any]:
        # The levels offered to players; others the hub knows (random, ismcts) are still taken by name.
        h = site.hub()
        offered = [lv for lv in PLAYER_LEVELS if lv in h.levels] or list(h.levels)
        return {"levels": offered, "default": h.default_level()}

    @router.get("/api/presets")
    async def presets() -> dict[str, Any]:
        return {"presets": {p.name: {"options": dict(p.options), "description": p.description}
                            for p in PRESETS.values()}}

    def table_settings(data: dict[str, Any]) -> tuple[Any, dict[str, Any], bool]:
        spec = data.get("rules", "standard")
        try:
            load_rules(spec)
        except SpadesError as e:
            raise ApiError(400, "bad_rules", str(e)) from None
        except RecursionError:
            raise ApiError(400, "bad_rules", "the rules are nested too deeply") from None
        turn = data.get("turn_seconds", cfg.default_turn_seconds)
        if turn is not None and (not isinstance(turn, int | float) or isinstance(turn, bool)
                                 or not 1 <= turn <= MAX_TURN_SECONDS):
            raise ApiError(400, "bad_turn_seconds", f"turn_seconds is 1 to {MAX_TURN_SECONDS}, or null for none")
        h = site.hub()
        level = data.get("bot_level") or h.default_level()
        if not isinstance(level, str) or level not in h.levels:
            raise ApiError(400, "bad_level",
                           f"bot_level: unknown level {str(level)[:20]!r}; the levels are: {', '.join(h.levels)}")
        public = data.get("public", True)
        if not isinstance(public, bool):
            raise ApiError(400, "malformed", "public is true or false")
        rated = data.get("rated", False) is True
        return spec, {"turn_seconds": turn, "bot_level": level, "rated": rated}, public

    async def new_table(p: PlayerRow, spec: Any, settings: dict[str, Any], public: bool,
                        seats: list[tuple[int, Seat]]) -> dict[str, Any]:
        tid = secrets.token_urlsafe(9)
        invite = None if public else secrets.token_urlsafe(18)
        t = await site.hub().create_table(TableRow(tid, spec, settings, public, invite, p.id, time.time()), seats)
        return {"id": tid, "invite": invite, "table": t.info()}

    async def open_tables(p: PlayerRow, computer: bool) -> list[TableRow]:
        """The player's open tables of one kind, oldest first (games against the computer carry the
        ``computer`` setting; tables made before it existed count as ordinary tables)."""
        h = site.hub()
        rows = await h.db(h.storage.player_open_tables, p.id)
        return [r for r in rows if (r.settings.get("computer") is True) == computer]

    async def in_use(table_id: str) -> bool:
        """Some person sitting at the table is connected to it (on any process of a cluster)."""
        h = site.hub()
        t = await h.table(table_id)
        if t is None:
            return False
        for i, seat in enumerate(t.seats):
            if seat.player is not None and await h.seat_connected(t, i):
                return True
        return False

    async def abandoned(row: TableRow, owner: str) -> bool:
        """Nobody is connected to the table and no person but its maker ever sat down (they may have
        left: a computer then holds the seat)."""
        if await in_use(row.id):
            return False
        t = await site.hub().table(row.id)
        return t is None or all(seat.player in (None, owner) for seat in t.seats)

    async def make_room(p: PlayerRow, computer: bool) -> None:
        """Keep the player's open tables of one kind under their cap by giving up (marking over: no longer
        counted, not resumed) the oldest abandoned ones: any game against the computer nobody is connected
        to; a table for people only once ``abandoned_table_seconds`` old and nobody joined it.
        ``QuotaExceeded`` when not enough of them are abandoned."""
        rows = await open_tables(p, computer=computer)
        cap = cfg.computer_games_per_player if computer else cfg.open_tables_per_player
        excess = len(rows) - cap + 1
        if excess <= 0:
            return
        h = site.hub()
        stale_before = time.time() - cfg.abandoned_table_seconds
        for row in rows:
            if excess <= 0:
                break
            if (computer or row.created_at <= stale_before) and await abandoned(row, p.id):
                await h.db(h.storage.set_table_status, row.id, "over")
                log.info("ended %s's abandoned %s %s to make room", p.id,
                         "game against the computer" if computer else "table", row.id)
                excess -= 1
        if excess <= 0:
            return
        if computer:
            raise QuotaExceeded("computer_games", CAP_RETRY_SECONDS,
                                f"you are playing {cap} games against the computer already: finish or close one "
                                "of them first", code="too_many_games")
        raise QuotaExceeded("open_tables", CAP_RETRY_SECONDS,
                            f"you have {cap} tables open already: play one of them to its end before making "
                            "another (a table nobody joined is given up after "
                            f"{_duration(cfg.abandoned_table_seconds)})", code="too_many_tables")

    @router.post("/api/tables", openapi_extra=json_body(TableBody))
    async def create_table(request: Request, response: Response) -> dict[str, Any]:
        """A new table: ``{"rules": preset or {"preset": ..., overrides}, "public": true, "turn_seconds": 30,
        "bot_level": "normal", "rated": false, "sit": true}``."""
        p = await site.current_player(request, response)
        data = await read_json(request)
        spec, settings, public = table_settings(data)
        await make_room(p, computer=False)
        await site.quotas.check("tables", p.id, "you have made many tables lately: try again later")
        seats = [(0, Seat(p.id, p.name))] if data.get("sit", True) is True else []
        return await new_table(p, spec, settings, public, seats)

    @router.post("/api/play", openapi_extra=json_body(PlayBody))
    async def play_alone(request: Request, response: Response) -> dict[str, Any]:
        """Play alone against the computer at once: you in seat 0, bots in the others, dealt now."""
        p = await site.current_player(request, response)
        data = await read_json(request)
        data = {**data, "public": False, "rated": False}
        data.setdefault("turn_seconds", None)
        spec, settings, _ = table_settings(data)
        settings["computer"] = True  # what tells this game apart from a table made for people
        await site.quotas.check("play", p.id,
                                "you have started many games against the computer lately: try again later")
        await make_room(p, computer=True)
        n = load_rules(spec).layout.n
        level = settings["bot_level"]
        seats = [(0, Seat(p.id, p.name))] + [(i, Seat(None, f"Bot {i + 1} ({level})", level)) for i in range(1, n)]
        return await new_table(p, spec, settings, False, seats)

    @router.get("/api/lobby")
    async def lobby() -> dict[str, Any]:
        """Open public tables."""
        return {"tables": await site.hub().lobby(100)}

    @router.get("/api/cluster")
    async def cluster() -> dict[str, Any]:
        """This process's node id and the tables it owns and watches (only with several processes)."""
        status = site.hub().status()
        if status is None:
            raise ApiError(404, "no_cluster", "this server runs as a single process")
        return status

    @router.get("/api/invite/{code}")
    async def invite(code: str) -> dict[str, Any]:
        """The table of an invite code."""
        h = site.hub()
        row = await h.db(h.storage.table_by_invite, code[:64])
        if row is None:
            raise ApiError(404, "no_table", "that invite is not valid")
        return {"id": row.id}

    @router.get("/api/tables/{table_id}/record")
    async def record(table_id: str, request: Request, response: Response) -> dict[str, Any]:
        """A finished game's ``spades-record/1``, for its players, full deals included."""
        p = await site.current_player(request, response)
        h = site.hub()
        rec = await h.game_record(table_id[:32])
        if rec is None:
            raise ApiError(404, "not_finished", "that game is not finished (or does not exist)")
        t = await h.table(table_id)
        ids = set(await h.db(h.storage.game_player_ids, table_id))
        if t is not None:
            ids |= {s.player for s in t.seats if s.player} | {s.reserved for s in t.seats if s.reserved}
        if p.id not in ids:
            raise ApiError(403, "not_a_player", "only the game's players can download its record")
        return rec

    return router


# ---------------------------------------------------------------------- the table socket

TABLE_SOCKET = re.compile(r"/ws/tables/([^/]+)")


def table_socket_endpoint(site: Site) -> Callable[[WebSocket, str, Receive], Awaitable[None]]:
    """The table socket ``/ws/tables/{id}`` (``docs/protocol.md``): one coroutine per open socket, given the
    socket, the table's id and the server's own ``receive``, which its messages are read from once the
    socket is accepted (Starlette's ``WebSocket.receive`` would be one more call a message, and one more
    frame held while the socket waits)."""
    cfg = site.config
    sockets: dict[str, int] = defaultdict(int)
    """Open table sockets per player in this process."""

    async def socket_quota(player: PlayerRow | None) -> dict[str, Any] | None:
        """Why a player may not open one more table socket now (``None``: they may): at most
        ``sockets_per_player`` open at once here, and the ``sockets`` quota on opening them."""
        if player is None:
            return None
        if sockets[player.id] >= cfg.sockets_per_player:
            return {"quota": "sockets", "limit": cfg.sockets_per_player,
                    "reason": f"you have {cfg.sockets_per_player} table sockets open: close some first"}
        wait = await site.hub().quotas.hit("sockets", player.id)
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            return {"quota": "sockets", "retry_after": seconds,
                    "reason": f"too many table sockets opened: wait {seconds} s"}
        return None

    def origin_ok(ws: WebSocket) -> bool:
        origin = ws.headers.get("origin")
        if origin is None:
            return True  # not a browser: browsers always send Origin on a WebSocket upgrade
        host = ws.headers.get("host", "")
        own = {f"http://{host}", f"https://{host}"}
        return origin in own or origin in cfg.allowed_origins

    async def table_socket(ws: WebSocket, table_id: str, receive: Receive) -> None:
        if not origin_ok(ws):
            await ws.close(code=1008)
            return
        h = site.hub()
        token = ws.cookies.get(COOKIE)
        try:
            player = await h.db(h.storage.session_player, token) if token else None
        except StorageBusy:
            await ws.close(code=1013)  # try again later
            return
        await ws.accept()
        # What the socket needed of its handshake (origin, session) is read: its headers (a list of some
        # dozen pairs, kept by the scope for the socket's whole life) are let go.
        ws.scope["headers"].clear()
        conn = Conn(player, table_id[:32], session=token if player is not None else None,
                    write_now=(ws.scope.get("extensions") or {}).get(SEND_NOW))
        writer = _Writer(ws, conn)
        conn.wake = writer.wake
        refused = await socket_quota(player)
        if refused is not None:  # one player's sockets: at most sockets_per_player open, opened at a rate
            conn.error("rate_limited" if refused.get("retry_after") else "too_many_sockets", refused.pop("reason"),
                       None, refused)
            conn.close(1008)
            await writer.done()
            return
        if player is not None:
            sockets[player.id] += 1
        tokens, last = cfg.rate_burst, time.monotonic()
        try:
            while not conn.closed:
                msg = await receive()
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
                    conn.error(e.code, e.reason, cid, e.extra)
                    if e.code in ("no_table", "forbidden"):
                        conn.close(1008)
                except Exception:
                    log.exception("error handling a message at table %s", conn.table_id)
                    conn.error("internal", "the server could not handle that message", cid)
        except WebSocketDisconnect:
            pass
        finally:
            if player is not None:
                sockets[player.id] -= 1
                if sockets[player.id] <= 0:
                    del sockets[player.id]
            h.detach(conn)
            conn.close(1000)
            await writer.done()

    return table_socket


class _Writer:
    """A socket's writer task while it runs (``Outbox``): ``wake`` starts it unless it runs. One small
    object a socket instead of two closures and the cell they share, held for the socket's whole life
    (0.5 KiB of RSS a socket at 3,000 sockets, issue 19)."""

    __slots__ = ("conn", "task", "ws")

    def __init__(self, ws: WebSocket, conn: Conn) -> None:
        self.ws, self.conn = ws, conn
        self.task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        task = self.task
        if task is None or task.done():
            self.task = asyncio.get_running_loop().create_task(_writer(self.ws, self.conn))

    async def done(self) -> None:
        """Once the close is queued: the writer sends what is left, then closes (at most 5 s)."""
        task = self.task
        if task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 5)
            task.cancel()


async def _writer(ws: WebSocket, conn: Conn) -> None:
    """Send a connection's queued messages in order until none is left (``Conn.wake`` starts it again when
    more are queued); close the socket when the queue says so."""
    try:
        done = False
        while not done:
            items = conn.outbox.take_now()
            if not items:
                return
            for item in items:
                if item is None:
                    done = True
                    break
                await ws.send_text(item)
            conn.outbox.sent()  # what comes next may be written at once again (``Conn.send_text``)
    except Exception:
        conn.closed = True
        return
    with contextlib.suppress(Exception):
        await ws.close(code=conn.close_code or 1000)


__all__ = ["MAX_TURN_SECONDS", "TABLE_SOCKET", "table_socket_endpoint", "tables_router"]
