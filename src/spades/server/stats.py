"""A player's statistics, worked out from the stored records of the games they finished.

``GET /api/players/{id}/stats``: games played and won, contracts made, nils and blind nils tried and made,
bags and points per hand, and the recent games with links to their replays. Every number comes from
replaying each stored ``spades-record/1`` with the engine (``spades.variants.read_record``), whose hand
results are ``spades.core.scoring``'s own: nothing here scores a hand.

``stats_router(hub)`` makes the router; the application includes it with one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter

from spades.core.errors import SpadesError
from spades.variants import read_record
from spades.web.http import ApiError

RECENT = 10
"""How many recent games the answer lists."""

GAMES = 200
"""How many of a player's latest finished games the statistics cover."""


@dataclass(frozen=True)
class SeatStats:
    """One seat's hands in one finished game, as the engine scored them."""

    hands: int = 0
    """Hands scored (misdeals are not hands)."""
    points: int = 0
    """The seat's side's points over those hands."""
    bags: int = 0
    """Bags the seat's side added to its count over those hands."""
    contracts: int = 0
    """Hands in which the seat bid a number (its side's contract counts for it)."""
    contracts_made: int = 0
    nils: int = 0
    nils_made: int = 0
    blind_nils: int = 0
    blind_nils_made: int = 0

    def __add__(self, other: SeatStats) -> SeatStats:
        return SeatStats(*(a + b for a, b in zip(self.astuple(), other.astuple(), strict=True)))

    def astuple(self) -> tuple[int, ...]:
        return (self.hands, self.points, self.bags, self.contracts, self.contracts_made, self.nils, self.nils_made,
                self.blind_nils, self.blind_nils_made)


def seat_stats(record: dict[str, Any], seat: int) -> SeatStats:
    """What one seat did in a finished game, from the engine's replay of its record."""
    game = read_record(record)
    side_of = game.rules.layout.side_of
    if not 0 <= seat < len(side_of):
        return SeatStats()
    side = side_of[seat]
    out = SeatStats()
    for result in game.results:
        if result.misdeal:
            continue
        mine = result.sides[side]
        bid = result.bids[seat] if result.bids is not None else None
        clean = result.tricks[seat] == 0
        nil = bid is not None and bid.is_nil
        blind_nil = nil and bid is not None and bid.blind
        numbered = bid is not None and not nil and mine.made is not None
        out = out + SeatStats(
            hands=1, points=mine.points, bags=mine.bags,
            contracts=int(numbered), contracts_made=int(numbered and bool(mine.made)),
            nils=int(nil and not blind_nil), nils_made=int(nil and not blind_nil and clean),
            blind_nils=int(blind_nil), blind_nils_made=int(blind_nil and clean),
        )
    return out


_CACHE: dict[tuple[str, int], SeatStats] = {}
"""Finished games never change: each seat's figures are worked out once per process."""
_CACHE_SIZE = 20000


def _game_stats(storage: Any, table_id: str, seat: int) -> SeatStats | None:
    key = (table_id, seat)
    if key in _CACHE:
        return _CACHE[key]
    record = storage.game_record(table_id)
    if record is None:
        return None
    try:
        s = seat_stats(record, seat)
    except (SpadesError, TypeError, ValueError, KeyError, AttributeError):
        return None  # a record the engine does not replay counts for nothing
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = s
    return s


def player_stats(storage: Any, player_id: str) -> dict[str, Any] | None:
    """The statistics of a player (``None`` when there is no such player). Runs on the database thread."""
    player = storage.get_player(player_id)
    if player is None:
        return None
    games = storage.history(player_id, GAMES)
    total = SeatStats()
    counted = 0
    recent: list[dict[str, Any]] = []
    for i, g in enumerate(games):
        row: dict[str, Any] = {"table": g["table"], "won": g["won"], "points": g["points"], "rated": g["rated"],
                               "finished_at": g["finished_at"], "replay": f"/replay.html?table={g['table']}"}
        s = _game_stats(storage, g["table"], g["seat"])
        if s is not None:
            total = total + s
            counted += 1
            row["hands"] = s.hands
        if i < RECENT:
            recent.append(row)
    hands = total.hands
    return {
        "player": {"id": player.id, "name": player.name},
        "games": len(games),
        "won": sum(1 for g in games if g["won"]),
        "hands": hands,
        "contracts": total.contracts,
        "contracts_made": total.contracts_made,
        "nils": total.nils,
        "nils_made": total.nils_made,
        "blind_nils": total.blind_nils,
        "blind_nils_made": total.blind_nils_made,
        "bags": total.bags,
        "points": total.points,
        "bags_per_hand": round(total.bags / hands, 2) if hands else None,
        "points_per_hand": round(total.points / hands, 1) if hands else None,
        "recent": recent,
        "covers": {"games": counted, "latest": GAMES},
    }


def stats_router(hub: Callable[[], Any]) -> APIRouter:
    """The statistics endpoint, reading storage through the application's hub."""
    router = APIRouter(prefix="/api", tags=["players"])

    @router.get("/players/{player_id}/stats", response_model=None)
    async def stats(player_id: str) -> dict[str, Any]:
        """A player's statistics from their finished games (see the module's documentation)."""
        h = hub()
        out = await h.db(player_stats, h.storage, player_id[:32])
        if out is None:
            raise ApiError(404, "no_player", "no such player")
        result: dict[str, Any] = out
        return result

    return router


__all__ = ["SeatStats", "player_stats", "seat_stats", "stats_router"]
