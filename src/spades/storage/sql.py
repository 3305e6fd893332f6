"""``SqlStorage``: every storage interface (``spades.storage.base``) on SQLAlchemy 2 Core, for SQLite and
PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import platformdirs
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, delete, event, func, insert, select, text, update
from sqlalchemy.engine import Connection, Row
from sqlalchemy.exc import IntegrityError, OperationalError

from spades.storage import schema as s
from spades.storage.base import (
    ChatRow,
    DuplicateError,
    EventRow,
    GameSeat,
    PlayerRow,
    ScoreGameRow,
    StorageBusy,
    TableRow,
    hand_let_go,
)

MIGRATIONS = Path(__file__).with_name("migrations")

Guard = Callable[[Connection, str], None]
"""A check run on the open transaction of an event write, per table, before anything is written; it
refuses the write by raising."""


def default_database_url() -> str:
    """``SPADES_DATABASE_URL`` if set, else a SQLite file in the user's data folder."""
    env = os.environ.get("SPADES_DATABASE_URL")
    if env:
        return env
    folder = Path(platformdirs.user_data_dir("spades", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'spades.db'}"


def normalize_url(url: str) -> str:
    """Use the psycopg 3 driver for ``postgresql://`` URLs; a bare path means a SQLite file."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if "://" not in url:
        return f"sqlite:///{url}"
    return url


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def migrate(engine: Engine) -> None:
    """Apply every Alembic migration not yet applied (the configuration is built here, no ini file)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":  # several processes may start at once (--workers N)
            conn.execute(text("select pg_advisory_xact_lock(7072026)"))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def open_storage(url: str | None = None, busy_seconds: float = 30.0) -> SqlStorage:
    """Open (and migrate) the database at ``url`` (default: ``default_database_url()``); a SQLite write
    waits at most ``busy_seconds`` for another process's lock, then fails (``is_busy``)."""
    return SqlStorage(url or default_database_url(), busy_seconds)


def is_busy(e: BaseException) -> bool:
    """The error of a call that found the database locked or stalled (SQLite's ``database is locked``,
    PostgreSQL's lock or statement timeout), not a fault of the call itself."""
    if isinstance(e, StorageBusy):
        return True
    if not isinstance(e, OperationalError):
        return False
    text = str(e).lower()
    return any(w in text for w in ("database is locked", "database table is locked", "busy", "lock timeout",
                                   "statement timeout"))


class SqlStorage:
    """Accounts, tables, the event log and score-keeper games on a SQLAlchemy engine."""

    def __init__(self, url: str, busy_seconds: float = 30.0) -> None:
        """Connect and apply migrations."""
        url = normalize_url(url)
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            self.engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": busy_seconds})
            event.listen(self.engine, "connect", partial(_sqlite_pragmas, busy_ms=max(1, round(busy_seconds * 1000))))
        else:
            self.engine = create_engine(url, pool_size=5, max_overflow=5, pool_pre_ping=True)
        migrate(self.engine)

    def probe(self, seconds: float = 1.0) -> None:
        """Check the database can be written now, waiting at most ``seconds`` for a lock; writes nothing.
        Raises (``is_busy``) when it cannot. SQLite: take the write lock and give it back; PostgreSQL: a
        transaction with a short statement timeout on a server that is not a read-only standby."""
        if self.is_sqlite:
            raw = self.engine.raw_connection()
            try:
                dbc: Any = raw.driver_connection
                cur = dbc.cursor()
                old = cur.execute("PRAGMA busy_timeout").fetchone()[0]
                cur.execute(f"PRAGMA busy_timeout={max(1, round(seconds * 1000))}")
                try:
                    if dbc.in_transaction:
                        dbc.rollback()
                    cur.execute("BEGIN IMMEDIATE")
                    cur.execute("ROLLBACK")
                finally:
                    cur.execute(f"PRAGMA busy_timeout={int(old)}")
                    cur.close()
            finally:
                raw.close()
            return
        with self.engine.begin() as c:
            c.execute(text(f"SET LOCAL statement_timeout = {max(1, round(seconds * 1000))}"))
            if c.execute(text("SELECT pg_is_in_recovery()")).scalar():
                raise StorageBusy("the database is a read-only standby")

    def close(self) -> None:
        """Release connections."""
        self.engine.dispose()

    # ------------------------------------------------------------------ players and sessions

    def create_player(self, name: str) -> PlayerRow:
        """A new guest player."""
        pid = secrets.token_hex(16)
        with self.engine.begin() as c:
            c.execute(insert(s.players).values(id=pid, name=name, created_at=time.time(), rated_games=0))
        return PlayerRow(pid, name)

    def get_player(self, player_id: str) -> PlayerRow | None:
        """A player by id."""
        with self.engine.connect() as c:
            row = c.execute(select(s.players).where(s.players.c.id == player_id)).first()
        return _player(row) if row else None

    def rename_player(self, player_id: str, name: str) -> None:
        """Change a player's display name."""
        with self.engine.begin() as c:
            c.execute(update(s.players).where(s.players.c.id == player_id).values(name=name))

    def create_session(self, player_id: str) -> str:
        """A new session; returns the secret token (the database keeps only its SHA-256)."""
        token = secrets.token_urlsafe(32)
        with self.engine.begin() as c:
            c.execute(insert(s.sessions).values(token_hash=_hash_token(token), player_id=player_id,
                                                created_at=time.time()))
        return token

    def session_player(self, token: str) -> PlayerRow | None:
        """The player a session token belongs to."""
        q = (select(s.players).join(s.sessions, s.sessions.c.player_id == s.players.c.id)
             .where(s.sessions.c.token_hash == _hash_token(token)))
        with self.engine.connect() as c:
            row = c.execute(q).first()
        return _player(row) if row else None

    def delete_session(self, token: str) -> None:
        """End a session."""
        with self.engine.begin() as c:
            c.execute(delete(s.sessions).where(s.sessions.c.token_hash == _hash_token(token)))

    def set_account(self, player_id: str, username: str, password_hash: str) -> None:
        """Give a player a user name and password hash."""
        try:
            with self.engine.begin() as c:
                c.execute(update(s.players).where(s.players.c.id == player_id)
                          .values(username=username, password_hash=password_hash))
        except IntegrityError:
            raise DuplicateError(f"the user name {username!r} is taken") from None

    def account(self, username: str) -> tuple[PlayerRow, str] | None:
        """A player and password hash by user name."""
        with self.engine.connect() as c:
            row = c.execute(select(s.players).where(s.players.c.username == username)).first()
        if row is None or row.password_hash is None:
            return None
        return _player(row), str(row.password_hash)

    # ------------------------------------------------------------------ tables

    def create_table(self, table: TableRow) -> None:
        """Store a new table."""
        with self.engine.begin() as c:
            c.execute(insert(s.tables).values(
                id=table.id, rules=json.dumps(table.rules), settings=json.dumps(table.settings),
                public=table.public, invite_code=table.invite_code, created_by=table.created_by,
                created_at=table.created_at, status=table.status))

    def get_table(self, table_id: str) -> TableRow | None:
        """A table by id."""
        with self.engine.connect() as c:
            row = c.execute(select(s.tables).where(s.tables.c.id == table_id)).first()
        return _table(row) if row else None

    def table_by_invite(self, code: str) -> TableRow | None:
        """A table by invite code."""
        with self.engine.connect() as c:
            row = c.execute(select(s.tables).where(s.tables.c.invite_code == code)).first()
        return _table(row) if row else None

    def public_tables(self, limit: int = 100) -> list[TableRow]:
        """Open public tables, newest first."""
        q = (select(s.tables).where(s.tables.c.public.is_(True), s.tables.c.status == "open")
             .order_by(s.tables.c.created_at.desc()).limit(limit))
        with self.engine.connect() as c:
            return [_table(r) for r in c.execute(q)]

    def open_tables(self) -> list[TableRow]:
        """Every table not over."""
        with self.engine.connect() as c:
            return [_table(r) for r in c.execute(select(s.tables).where(s.tables.c.status != "over"))]

    def player_open_tables(self, player_id: str) -> list[TableRow]:
        """The open tables a player made, oldest first."""
        q = (select(s.tables).where(s.tables.c.created_by == player_id, s.tables.c.status == "open")
             .order_by(s.tables.c.created_at, s.tables.c.id))
        with self.engine.connect() as c:
            return [_table(r) for r in c.execute(q)]

    def set_table_status(self, table_id: str, status: str) -> None:
        """Mark a table's status."""
        with self.engine.begin() as c:
            c.execute(update(s.tables).where(s.tables.c.id == table_id).values(status=status))

    # ------------------------------------------------------------------ the event log

    def append_events(self, table_id: str, rows: list[EventRow], guard: Guard | None = None) -> None:
        """Append events (and their chat lines) in one transaction. ``guard(connection, table_id)``, when
        given, runs first in that transaction and may refuse the write by raising (a cluster's lease
        fence, ``spades.server.cluster.FencedLog``)."""
        if not rows:
            return
        try:
            self._insert_events([(table_id, rows)], guard)
        except IntegrityError:
            raise DuplicateError(f"event {rows[0].seq} of table {table_id} is already stored") \
                from None

    def append_many(self, batches: list[tuple[str, list[EventRow]]],
                    guard: Guard | None = None) -> list[Exception | None]:
        """Append several tables' events in one transaction (group commit); when that fails, each batch in
        a transaction of its own, so that one batch's error keeps only that batch out. ``guard`` as for
        ``append_events``, run for every table (in table order) before anything is written."""
        try:
            self._insert_events(batches, guard)
            return [None] * len(batches)
        except Exception as e:
            if is_busy(e):  # each batch alone would wait for the same lock again
                return [e] * len(batches)
        out: list[Exception | None] = []
        for tid, rows in batches:
            try:
                self.append_events(tid, rows, guard)
                out.append(None)
            except Exception as e:
                out.append(e)
        return out

    def _insert_events(self, batches: list[tuple[str, list[EventRow]]], guard: Guard | None) -> None:
        if self.is_sqlite and guard is None:
            self._insert_sqlite(batches)
            return
        with self.engine.begin() as c:
            if guard is not None:
                for tid in sorted({tid for tid, rows in batches if rows}):
                    guard(c, tid)
            write_events(c, batches)

    def _insert_sqlite(self, batches: list[tuple[str, list[EventRow]]]) -> None:
        """``write_events`` in a transaction of its own, on the driver's connection itself: the group commit
        of a server on SQLite, every move's path. SQLAlchemy's connection, transaction and execution context
        around each commit were Python on the database thread, which holds the interpreter's lock the event
        loop needs: a stored move took 24.2 µs of CPU through them and 19.6 here
        (``benchmarks/group_commit.py --spread 12``, issue 19). The connection is the pool's, with its
        pragmas; errors are SQLAlchemy's, as on the other path (``IntegrityError`` for a used number,
        ``OperationalError`` for a lock: ``is_busy``)."""
        events, chats, hands = _event_values(batches)
        if not events:
            return
        raw = self.engine.raw_connection()
        try:
            dbc: Any = raw.driver_connection
            try:
                if dbc.in_transaction:
                    dbc.rollback()
                dbc.execute("BEGIN")
                dbc.executemany(_EVENTS_INSERT, events)
                if chats:
                    dbc.executemany(_CHAT_INSERT, chats)
                if hands:
                    dbc.executemany(_HANDS_INSERT, hands)
                dbc.execute("COMMIT")
            except sqlite3.Error as e:
                if dbc.in_transaction:
                    dbc.rollback()
                kind = IntegrityError if isinstance(e, sqlite3.IntegrityError) else OperationalError
                raise kind("INSERT INTO events", None, e) from None
        finally:
            raw.close()

    def hand_records(self, table_id: str) -> list[bytes]:
        """The record's entries of a table's hands, by hand."""
        h = s.hand_records
        with self.engine.connect() as c:
            return [bytes(r.data) for r in c.execute(select(h.c.data).where(h.c.table_id == table_id)
                                                     .order_by(h.c.hand))]

    def load_events(self, table_id: str, after: int = 0) -> list[EventRow]:
        """A table's events after ``after``, in order."""
        q = (select(s.events).where(s.events.c.table_id == table_id, s.events.c.seq > after)
             .order_by(s.events.c.seq))
        with self.engine.connect() as c:
            return [EventRow(r.seq, r.kind, orjson.loads(r.data), r.player_id, r.client_id, r.created_at)
                    for r in c.execute(q)]

    def chat_history(self, table_id: str, limit: int = 50) -> list[ChatRow]:
        """The last chat lines, oldest first."""
        q = (select(s.chat).where(s.chat.c.table_id == table_id).order_by(s.chat.c.seq.desc()).limit(limit))
        with self.engine.connect() as c:
            rows = [ChatRow(r.seq, r.player_id, r.name, r.text, r.created_at) for r in c.execute(q)]
        return rows[::-1]

    # ------------------------------------------------------------------ finished games and ratings

    def finish_game(self, table_id: str, record: dict[str, Any], rated: bool, winner: int | None,
                    seats: list[GameSeat]) -> None:
        """Keep the record and results; update ratings; mark the table over (one transaction)."""
        now = time.time()
        with self.engine.begin() as c:
            c.execute(insert(s.games).values(table_id=table_id, record=json.dumps(record), rated=rated,
                                             winner=winner, finished_at=now))
            for g in seats:
                c.execute(insert(s.game_players).values(
                    table_id=table_id, seat=g.seat, player_id=g.player_id, side=g.side, won=g.won,
                    points=g.points, rating_before=g.rating_before, rating_after=g.rating_after, finished_at=now))
                if rated and g.mu is not None:
                    c.execute(update(s.players).where(s.players.c.id == g.player_id).values(
                        rating_mu=g.mu, rating_sigma=g.sigma, rated_games=s.players.c.rated_games + 1))
            c.execute(update(s.tables).where(s.tables.c.id == table_id).values(status="over"))

    def game_record(self, table_id: str) -> dict[str, Any] | None:
        """A finished game's record."""
        with self.engine.connect() as c:
            row = c.execute(select(s.games.c.record).where(s.games.c.table_id == table_id)).first()
        return json.loads(row.record) if row else None

    def game_player_ids(self, table_id: str) -> list[str]:
        """The human players of a finished game."""
        q = select(s.game_players.c.player_id).where(s.game_players.c.table_id == table_id)
        with self.engine.connect() as c:
            return [r.player_id for r in c.execute(q)]

    def game_seats(self, table_id: str) -> list[tuple[int, str]]:
        """The human seats of a finished game: (seat, player id)."""
        g = s.game_players
        q = select(g.c.seat, g.c.player_id).where(g.c.table_id == table_id).order_by(g.c.seat)
        with self.engine.connect() as c:
            return [(r.seat, r.player_id) for r in c.execute(q)]

    def get_review(self, review_id: str) -> dict[str, Any] | None:
        """A stored game review, or ``None``."""
        with self.engine.connect() as c:
            row = c.execute(select(s.reviews.c.result).where(s.reviews.c.review_id == review_id)).first()
        return json.loads(row.result) if row else None

    def save_review(self, review_id: str, table_id: str | None, seat: int, result: dict[str, Any]) -> None:
        """Keep a game review; a second save of the same review (another process finished it too) is ignored."""
        try:
            with self.engine.begin() as c:
                c.execute(insert(s.reviews).values(review_id=review_id, table_id=table_id, seat=seat,
                                                   result=json.dumps(result), created_at=time.time()))
        except IntegrityError:
            pass

    def leaderboard(self, limit: int = 50) -> list[PlayerRow]:
        """Rated players by mu - 3 sigma, best first."""
        p = s.players
        q = (select(p).where(p.c.rating_mu.is_not(None), p.c.rated_games > 0)
             .order_by((p.c.rating_mu - 3 * p.c.rating_sigma).desc(), p.c.id).limit(limit))
        with self.engine.connect() as c:
            return [_player(r) for r in c.execute(q)]

    def history(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """A player's finished games, newest first."""
        g = s.game_players
        q = (select(g, s.games.c.rated).join(s.games, s.games.c.table_id == g.c.table_id)
             .where(g.c.player_id == player_id).order_by(g.c.finished_at.desc()).limit(limit))
        with self.engine.connect() as c:
            return [{"table": r.table_id, "seat": r.seat, "side": r.side, "won": r.won, "points": r.points,
                     "rated": r.rated, "rating_before": r.rating_before, "rating_after": r.rating_after,
                     "finished_at": r.finished_at} for r in c.execute(q)]

    # ------------------------------------------------------------------ score-keeper games

    def score_games(self, player_id: str) -> list[ScoreGameRow]:
        """A player's score-keeper games, most recently changed first."""
        g = s.score_games
        q = select(g).where(g.c.player_id == player_id).order_by(g.c.updated.desc(), g.c.game_id)
        with self.engine.connect() as c:
            return [_score_game(r) for r in c.execute(q)]

    def save_score_game(self, player_id: str, game_id: str, name: str, data: dict[str, Any], updated: float,
                        limit: int) -> tuple[str, ScoreGameRow | None]:
        """Insert or replace a game unless the stored copy is newer or the player has ``limit`` games."""
        g = s.score_games
        mine = (g.c.player_id == player_id) & (g.c.game_id == game_id)
        now = time.time()
        try:
            with self.engine.begin() as c:
                old = c.execute(select(g).where(mine)).first()
                if old is not None and old.updated > updated:
                    return "newer", _score_game(old)
                values = {"name": name, "data": json.dumps(data), "updated": updated, "stored_at": now}
                if old is not None:
                    c.execute(update(g).where(mine).values(**values))
                else:
                    have = c.execute(select(func.count()).select_from(g).where(g.c.player_id == player_id)).scalar_one()
                    if have >= limit:
                        return "full", None
                    c.execute(insert(g).values(player_id=player_id, game_id=game_id, **values))
        except IntegrityError:
            raise DuplicateError(f"score game {game_id} was saved twice at once") from None
        return "saved", ScoreGameRow(game_id, name, data, updated, now)

    def delete_score_game(self, player_id: str, game_id: str) -> bool:
        """Forget one of a player's games."""
        g = s.score_games
        with self.engine.begin() as c:
            done = c.execute(delete(g).where(g.c.player_id == player_id, g.c.game_id == game_id))
        return bool(done.rowcount)

    def count_events(self, table_id: str) -> int:
        """How many events a table has (for tests and tools)."""
        with self.engine.connect() as c:
            return int(c.execute(select(func.count()).select_from(s.events)
                                 .where(s.events.c.table_id == table_id)).scalar_one())


def write_events(c: Connection, batches: list[tuple[str, list[EventRow]]]) -> None:
    """Insert several tables' events, their chat lines and the record entries of the hands their deals let go
    (``EventRow.hand_record``) on an open transaction, in one statement each
    (``IntegrityError`` on a used number): a group commit of many tables costs one round of the driver,
    not one per table.

    The statements are run by the driver itself (``executemany``): through the SQL expression language
    each row's parameters were processed again in Python on the database thread, which holds the
    interpreter's lock the event loop needs (``benchmarks/group_commit.py``)."""
    events, chats, hands = _event_values(batches)
    mark = "?" if c.dialect.paramstyle == "qmark" else "%s"
    if events:
        c.exec_driver_sql(_EVENTS_INSERT.replace("?", mark), events)
    if chats:
        c.exec_driver_sql(_CHAT_INSERT.replace("?", mark), chats)
    if hands:
        c.exec_driver_sql(_HANDS_INSERT.replace("?", mark), hands)


_EVENT_COLUMNS = ("table_id", "seq", "kind", "data", "player_id", "client_id", "created_at")
_CHAT_COLUMNS = ("table_id", "seq", "player_id", "name", "text", "created_at")
_EVENTS_INSERT = (f"INSERT INTO {s.events.name} ({', '.join(_EVENT_COLUMNS)}) "
                  f"VALUES ({', '.join(['?'] * len(_EVENT_COLUMNS))})")
_CHAT_INSERT = (f"INSERT INTO {s.chat.name} ({', '.join(_CHAT_COLUMNS)}) "
                f"VALUES ({', '.join(['?'] * len(_CHAT_COLUMNS))})")
_HANDS_INSERT = f"INSERT INTO {s.hand_records.name} (table_id, hand, data) VALUES (?, ?, ?)"


def _event_values(batches: list[tuple[str, list[EventRow]]]
                  ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    # The parameters of the events' rows, of the chat lines' rows (``_EVENT_COLUMNS``, ``_CHAT_COLUMNS``) and
    # of the hand records' rows (``hand_let_go``).
    now = time.time()
    events = [(table_id, r.seq, r.kind, _dumps(r.data), r.player_id, r.client_id, r.created_at or now)
              for table_id, rows in batches for r in rows]
    chats = [(table_id, r.seq, r.player_id, r.data["name"], r.data["text"], r.created_at or now)
             for table_id, rows in batches for r in rows if r.kind == "chat"]
    hands = [(table_id, hand_let_go(r), r.hand_record)
             for table_id, rows in batches for r in rows if r.hand_record is not None]
    return events, chats, hands


def _dumps(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


WAL_CHECKPOINT_PAGES = 10_000
"""Pages the SQLite write-ahead log holds before a commit copies them back to the database file
(``PRAGMA wal_autocheckpoint``; SQLite's default is 1,000, 4 MB). A busy server's moves touch a page of
the event index per table, scattered over the file; a checkpoint writes each page once however often the
log holds it, then syncs the file, so a log ten times longer writes a hot page back once for several
commits: the CPU per stored move fell from 33.1 to 26.9 µs (the best of five rounds each) in
``benchmarks/group_commit.py --tables 2500 --spread 12`` (``benchmarks/README.md``, issue 19).
The log file then stays at about 40 MB; a restart replays it as before."""


def _sqlite_pragmas(dbapi_conn: Any, _record: Any, busy_ms: int = 30000) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_PAGES}")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
    cur.close()


def _player(row: Row[Any]) -> PlayerRow:
    return PlayerRow(row.id, row.name, row.username, row.rating_mu, row.rating_sigma, row.rated_games)


def _score_game(row: Row[Any]) -> ScoreGameRow:
    return ScoreGameRow(row.game_id, row.name, json.loads(row.data), row.updated, row.stored_at)


def _table(row: Row[Any]) -> TableRow:
    return TableRow(row.id, json.loads(row.rules), json.loads(row.settings), bool(row.public), row.invite_code,
                    row.created_by, row.created_at, row.status)


__all__ = ["Connection", "Guard", "SqlStorage", "default_database_url", "migrate", "normalize_url", "open_storage",
           "write_events"]
