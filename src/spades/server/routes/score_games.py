"""Score-keeper games kept on the server for players with an account: ``GET /api/scoregames``,
``PUT`` and ``DELETE /api/scoregames/{id}``."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from spades.server.site import Site
from spades.storage.base import DuplicateError, ScoreGameRow
from spades.web.http import ApiError, json_body, parse_json, read_body

MAX_SCORE_GAMES = 200
"""The most score-keeper games one account keeps on the server."""
MAX_SCORE_GAME_BYTES = 128 * 1024
"""The largest score-keeper game (as JSON) the server keeps: a game of 400 hands is about 40 KiB."""
SCORE_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")


class ScoreGameBody(BaseModel):
    """``PUT /api/scoregames/{game_id}``: the game as the score keeper keeps it (``id`` as in the address,
    ``name``, ``updated`` in milliseconds, ``hands``, and whatever else the page keeps)."""

    game: dict[str, Any]


def score_game_json(row: ScoreGameRow) -> dict[str, Any]:
    """A kept game as the API shows it."""
    return {"id": row.game_id, "name": row.name, "updated": row.updated, "stored_at": row.stored_at,
            "game": row.data}


def score_game_id(game_id: str) -> str:
    """A game id from an address, checked."""
    if not SCORE_GAME_ID.fullmatch(game_id):
        raise ApiError(400, "bad_id", "a game id has 1 to 40 letters, digits, '_' or '-'")
    return game_id


def score_games_router(site: Site) -> APIRouter:
    """The score-keeper game endpoints."""
    router = APIRouter()

    @router.get("/api/scoregames")
    async def list_score_games(request: Request, response: Response) -> dict[str, Any]:
        """The signed-in player's score-keeper games, most recently changed first."""
        p = await site.account_player(request, response)
        h = site.hub()
        rows = await h.db(h.storage.score_games, p.id)
        return {"games": [score_game_json(r) for r in rows], "limit": MAX_SCORE_GAMES}

    @router.put("/api/scoregames/{game_id}", response_model=None, openapi_extra=json_body(ScoreGameBody))
    async def save_score_game(game_id: str, request: Request, response: Response) -> dict[str, Any] | JSONResponse:
        """Keep a score-keeper game: ``{"game": {"id", "name", "updated", "hands", ...}}``. A copy on the server
        changed later than this one is kept and answered with 409 ``newer_on_server`` and that copy."""
        p = await site.account_player(request, response)
        score_game_id(game_id)
        data = parse_json(await read_body(request, MAX_SCORE_GAME_BYTES))
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
        h = site.hub()
        try:
            outcome, row = await h.db(h.storage.save_score_game, p.id, game_id, name, kept, float(updated),
                                      MAX_SCORE_GAMES)
        except DuplicateError:
            raise ApiError(409, "conflict", "the game was saved twice at once: try again") from None
        if outcome == "full":
            raise ApiError(409, "too_many_games",
                           f"you keep {MAX_SCORE_GAMES} games on the server already: delete some first")
        assert row is not None
        if outcome == "newer":
            return ApiError(409, "newer_on_server", "the server has a copy of this game changed later").response(
                game=score_game_json(row))
        return {"ok": True, "id": row.game_id, "updated": row.updated, "stored_at": row.stored_at}

    @router.delete("/api/scoregames/{game_id}")
    async def delete_score_game(game_id: str, request: Request, response: Response) -> dict[str, Any]:
        """Forget one of the signed-in player's score-keeper games."""
        p = await site.account_player(request, response)
        h = site.hub()
        if not await h.db(h.storage.delete_score_game, p.id, score_game_id(game_id)):
            raise ApiError(404, "no_game", "you keep no game with that id on the server")
        return {"ok": True}

    return router


__all__ = ["MAX_SCORE_GAMES", "MAX_SCORE_GAME_BYTES", "score_games_router"]
