"""Persistence behind a small protocol: players and sessions, tables, the append-only event log, chat,
finished games and ratings.

``open_storage(url)`` gives a ``SqlStorage`` on SQLite (the default: a file in the user's data folder,
in WAL mode) or PostgreSQL (``postgresql://...``); the Alembic migrations in ``migrations/`` are applied
when it opens. Every method is synchronous and safe to call from one worker thread at a time; the
server runs them off its event loop.

The event log is the truth: one row per event (a deal, an action, a seat change, a chat line), unique
per ``(table_id, seq)``, never updated. A table's live state is rebuilt by replaying its rows.
"""

from __future__ import annotations

from spades.storage.base import (
    ChatRow,
    DuplicateError,
    EventRow,
    GameSeat,
    PlayerRow,
    ScoreGameRow,
    Storage,
    TableRow,
)
from spades.storage.sql import SqlStorage, default_database_url, normalize_url, open_storage

__all__ = [
    "ChatRow",
    "DuplicateError",
    "EventRow",
    "GameSeat",
    "PlayerRow",
    "ScoreGameRow",
    "SqlStorage",
    "Storage",
    "TableRow",
    "default_database_url",
    "normalize_url",
    "open_storage",
]
