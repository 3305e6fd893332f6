"""A rematch: a finished table opens a new one with the same rules, settings and seats, and everyone at
the old table learns where it is (``rematch`` in the table's description, sent to every connection).

``POST /api/tables/{id}/rematch`` (a player who sat at the finished game): the first call makes the new
table, with the caller in their old seat and the computers in theirs, the other people's seats left for
them (their pages take them); later calls answer the same table. The answer is ``{"id", "invite",
"by", "seat"}`` (``seat``: the caller's seat). The rematch is kept in memory with the table: after a
restart a new call makes a new one.

``rematch_router(hub, current_player)`` makes the router; the application includes it with one line.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from spades.server.table import Seat
from spades.storage.base import TableRow


def _error(status: int, code: str, reason: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "reason": reason}}, status_code=status)


def rematch_router(hub: Callable[[], Any], current_player: Callable[..., Awaitable[Any]]) -> APIRouter:
    """The rematch route, given the app's hub and its ``current_player``."""
    router = APIRouter()
    lock = asyncio.Lock()  # two players asking at once get one table

    @router.post("/api/tables/{table_id}/rematch")
    async def rematch(table_id: str, request: Request, response: Response) -> Any:
        """A new table with the same rules, settings and seats as this finished one."""
        p = await current_player(request, response)
        t = await hub().table(table_id[:32])
        if t is None:
            return _error(404, "no_table", "no such table")
        seat = t.seat_of(p.id)
        if seat is None:
            return _error(403, "not_your_seat", "only a player of this game can ask for a rematch")
        if not t.over:
            return _error(409, "not_over", "the game is not over yet: a rematch starts after it")
        async with lock:
            if t.rematch is None:
                seats = [(seat, Seat(p.id, p.name))] + [
                    (i, Seat(None, s.name, s.bot)) for i, s in enumerate(t.seats) if s.player is None and s.bot]
                tid = secrets.token_urlsafe(9)  # as a new table from POST /api/tables
                invite = None if t.row.public else secrets.token_urlsafe(18)
                await hub().create_table(TableRow(tid, t.row.rules, dict(t.settings), t.row.public, invite, p.id,
                                                  time.time()), seats)
                t.rematch = {"id": tid, "invite": invite, "by": p.name}
                hub().send_table_info(t)  # every page at the old table hears of it
        return {**t.rematch, "seat": seat}

    return router
