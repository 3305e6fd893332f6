"""Persistence behind a few narrow interfaces (``spades.storage.base``): ``Accounts`` (players, sessions,
accounts, ratings), ``Tables`` (tables and their finished games), ``EventLog`` (the append-only log and
chat), ``ScoreGames`` (score-keeper games) and ``Reviews`` (game reviews); ``Storage`` is all of them.

``open_storage(url)`` gives a ``SqlStorage`` on SQLite (the default: a file in the user's data folder,
in WAL mode) or PostgreSQL (``postgresql://...``); the Alembic migrations in ``migrations/`` are applied
when it opens. ``MemoryStorage`` keeps the same promises in memory (tests, throwaway servers). Every
method is synchronous and safe to call from one worker thread at a time; the server runs them off its
event loop.

The event log is the truth: one row per event (a deal, an action, a seat change, a chat line), unique
per ``(table_id, seq)``, never updated. A table's live state is rebuilt by replaying its rows.
"""

from __future__ import annotations

from spades.storage.base import (
    Accounts,
    ChatRow,
    DuplicateError,
    EventLog,
    EventRow,
    GameSeat,
    PlayerRow,
    Reviews,
    ScoreGameRow,
    ScoreGames,
    Storage,
    TableRow,
    Tables,
)
from spades.storage.memory import MemoryStorage
from spades.storage.sql import SqlStorage, default_database_url, normalize_url, open_storage

__all__ = [
    "Accounts",
    "ChatRow",
    "DuplicateError",
    "EventLog",
    "EventRow",
    "GameSeat",
    "MemoryStorage",
    "PlayerRow",
    "Reviews",
    "ScoreGameRow",
    "ScoreGames",
    "SqlStorage",
    "Storage",
    "TableRow",
    "Tables",
    "default_database_url",
    "normalize_url",
    "open_storage",
]
