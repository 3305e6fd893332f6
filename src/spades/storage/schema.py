"""The database schema (SQLAlchemy Core). Alembic migrations in ``migrations/`` create it; this module
is what the queries use, and a test checks the two agree."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

players = Table(
    "players", metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(40), nullable=False),
    Column("username", String(40), unique=True, nullable=True),
    Column("password_hash", Text, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("rating_mu", Float, nullable=True),
    Column("rating_sigma", Float, nullable=True),
    Column("rated_games", Integer, nullable=False, default=0),
)

sessions = Table(
    "sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
    Column("created_at", Float, nullable=False),
)

tables = Table(
    "tables", metadata,
    Column("id", String(32), primary_key=True),
    Column("rules", Text, nullable=False),
    Column("settings", Text, nullable=False),
    Column("public", Boolean, nullable=False),
    Column("invite_code", String(64), unique=True, nullable=True),
    Column("created_by", String(32), nullable=True),
    Column("created_at", Float, nullable=False),
    Column("status", String(16), nullable=False),
)
Index("ix_tables_status", tables.c.status)

events = Table(
    "events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("data", Text, nullable=False),
    Column("player_id", String(32), nullable=True),
    Column("client_id", String(64), nullable=True),
    Column("created_at", Float, nullable=False),
    # The log's one guard: an event number is stored once. Client ids are answered by the table that
    # applies the actions (every id of its game, filled again from here when it is rebuilt): migration 0006.
    UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
)

hand_records = Table(
    # The game record's entry of each finished hand (JSON compressed with zlib), written with the deal that
    # lets the hand go, so that a live table holds its current hand only: migration 0007.
    "hand_records", metadata,
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("hand", Integer, primary_key=True),
    Column("data", LargeBinary, nullable=False),
)

chat = Table(
    "chat", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("player_id", String(32), nullable=True),
    Column("name", String(40), nullable=False),
    Column("text", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)
Index("ix_chat_table", chat.c.table_id, chat.c.seq)

games = Table(
    "games", metadata,
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("record", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("finished_at", Float, nullable=False),
)

game_players = Table(
    "game_players", metadata,
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("player_id", String(32), nullable=False),
    Column("side", Integer, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("points", Integer, nullable=False),
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    Column("finished_at", Float, nullable=False),
    UniqueConstraint("table_id", "seat", name="uq_game_players_seat"),
)
Index("ix_game_players_player", game_players.c.player_id, game_players.c.finished_at)

table_leases = Table(
    "table_leases", metadata,
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("owner", String(64), nullable=False),
    Column("epoch", Integer, nullable=False),
    Column("expires_at", Float, nullable=False),
)
"""Which server process owns a live table (several processes on PostgreSQL, ``spades.storage.lease``):
``epoch`` grows with every new owner and fences the log against a stalled former one."""

score_games = Table(
    "score_games", metadata,
    Column("player_id", String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
    Column("game_id", String(40), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("data", Text, nullable=False),
    Column("updated", Float, nullable=False),
    Column("stored_at", Float, nullable=False),
)

reviews = Table(
    "reviews", metadata,
    Column("review_id", String(80), primary_key=True),
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), nullable=True),
    Column("seat", Integer, nullable=False),
    Column("result", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)
"""Game reviews, computed once: an online game's per table and seat, an uploaded record's per digest and
seat (``spades.server.review``)."""
