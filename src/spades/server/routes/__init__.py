"""The server's HTTP endpoints and its table socket, one router per area, each made from the ``Site``:

- ``session``: health, the session, the player's name, accounts (register, log in, log out), the
  leaderboard and a player's history;
- ``tables``: bot levels and presets, new tables ("play now" included), the lobby, invites, a finished
  game's record, the cluster's status, and the table WebSocket;
- ``score_games``: score-keeper games kept for players with an account.

The rule book, score sheets, replays and deal checks are ``spades.web.api``, the shuffle lab
``spades.web.lab``. Every router raises ``spades.web.http.ApiError`` and reads bodies with
``spades.web.http.read_json`` / ``read_body``.
"""

from __future__ import annotations

from spades.server.routes.score_games import score_games_router
from spades.server.routes.session import session_router
from spades.server.routes.tables import tables_router

__all__ = ["score_games_router", "session_router", "tables_router"]
