"""The game server: HTTP + WebSocket (FastAPI on uvicorn), lobby, tables, seats, turn timers, bots in
seats, accounts and ratings. ``create_app`` builds the application; ``spades serve`` runs it.

The protocol is in ``docs/protocol.md``; the running and operating notes in ``docs/server.md``.
"""

from __future__ import annotations

from spades.server.app import create_app
from spades.server.config import ServerConfig

__all__ = ["ServerConfig", "create_app"]
