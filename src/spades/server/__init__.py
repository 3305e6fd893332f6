"""The game server: HTTP + WebSocket (FastAPI on uvicorn), lobby, tables, seats, turn timers, bots in
seats, accounts and ratings. ``create_app`` builds the application; ``spades serve`` runs it.

The protocol is in ``docs/protocol.md``; the running and operating notes in ``docs/server.md``. The server
needs the ``server`` extra (``pip install 'spades[server]'``); its names are imported on first use, so
``spades.server.cli`` (the ``serve`` command's registration) loads without it and can say so.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ServerConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from spades.server.app import create_app

        return create_app
    if name == "ServerConfig":
        from spades.server.config import ServerConfig

        return ServerConfig
    raise AttributeError(f"module 'spades.server' has no attribute {name!r}")
