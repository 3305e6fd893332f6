"""``MemoryStorage``: every storage interface in the process's memory, for tests and throwaway servers.

It keeps the same promises as ``SqlStorage`` (the storage suite runs on both): events are unique per
``(table, seq)`` (client ids are kept, not checked: the table answers them), a batch is stored whole or
not at all, rows go through JSON on the way in and out (so a caller never shares a dict with the store,
and keys come back as the database gives them: strings), session tokens are kept only as their SHA-256.
Nothing outlives the object: a server restarted on the same ``MemoryStorage`` finds its tables again, a
new process does not. One lock makes every method safe from any thread.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import orjson

from spades.storage.base import (
    ChatRow,
    DuplicateError,
    EventRow,
    GameSeat,
    PlayerRow,
    ScoreGameRow,
    TableRow,
    hand_let_go,
)


def _copy(data: Any) -> Any:
    """``data`` as it would come back from the database: through JSON (non-string keys become strings)."""
    return orjson.loads(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class _Player:
    row: PlayerRow
    password_hash: str | None = None


@dataclass(frozen=True)
class _Result:
    table_id: str
    seat: GameSeat
    rated: bool
    finished_at: float


@dataclass(frozen=True)
class _ScoreGame:
    name: str
    data: bytes
    updated: float
    stored_at: float

    def row(self, game_id: str) -> ScoreGameRow:
        return ScoreGameRow(game_id, self.name, orjson.loads(self.data), self.updated, self.stored_at)


class MemoryStorage:
    """Accounts, tables, the event log and score-keeper games in dictionaries (see the module's notes)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._players: dict[str, _Player] = {}
        self._sessions: dict[str, str] = {}
        self._tables: dict[str, TableRow] = {}
        self._events: dict[str, list[EventRow]] = {}
        self._chat: dict[str, list[ChatRow]] = {}
        self._hands: dict[str, dict[int, bytes]] = {}
        self._games: dict[str, bytes] = {}
        self._results: list[_Result] = []
        self._score_games: dict[str, dict[str, _ScoreGame]] = {}
        self._reviews: dict[str, bytes] = {}

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------ accounts

    def create_player(self, name: str) -> PlayerRow:
        """A new guest player."""
        row = PlayerRow(secrets.token_hex(16), name)
        with self._lock:
            self._players[row.id] = _Player(row)
        return row

    def get_player(self, player_id: str) -> PlayerRow | None:
        """A player by id."""
        with self._lock:
            p = self._players.get(player_id)
            return None if p is None else p.row

    def rename_player(self, player_id: str, name: str) -> None:
        """Change a player's display name."""
        with self._lock:
            p = self._players.get(player_id)
            if p is not None:
                p.row = replace(p.row, name=name)

    def create_session(self, player_id: str) -> str:
        """A new session; returns the secret token (only its SHA-256 is kept)."""
        token = secrets.token_urlsafe(32)
        with self._lock:
            if player_id not in self._players:
                raise KeyError(f"no player {player_id}")
            self._sessions[_hash_token(token)] = player_id
        return token

    def session_player(self, token: str) -> PlayerRow | None:
        """The player a session token belongs to."""
        with self._lock:
            pid = self._sessions.get(_hash_token(token))
            return None if pid is None else self.get_player(pid)

    def delete_session(self, token: str) -> None:
        """End a session."""
        with self._lock:
            self._sessions.pop(_hash_token(token), None)

    def set_account(self, player_id: str, username: str, password_hash: str) -> None:
        """Give a player a user name and password hash (``DuplicateError`` when another has the name)."""
        with self._lock:
            if any(p.row.username == username and p.row.id != player_id for p in self._players.values()):
                raise DuplicateError(f"the user name {username!r} is taken")
            p = self._players.get(player_id)
            if p is not None:
                p.row = replace(p.row, username=username)
                p.password_hash = password_hash

    def account(self, username: str) -> tuple[PlayerRow, str] | None:
        """A player and password hash by user name."""
        with self._lock:
            for p in self._players.values():
                if p.row.username == username:
                    return None if p.password_hash is None else (p.row, p.password_hash)
        return None

    def leaderboard(self, limit: int = 50) -> list[PlayerRow]:
        """Rated players by mu - 3 sigma, best first."""
        with self._lock:
            rated = [p.row for p in self._players.values() if p.row.rating_mu is not None and p.row.rated_games > 0]
        rated.sort(key=lambda r: (-((r.rating_mu or 0.0) - 3 * (r.rating_sigma or 0.0)), r.id))
        return rated[:limit]

    def history(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """A player's finished games, newest first."""
        with self._lock:
            mine = [r for r in self._results if r.seat.player_id == player_id]
        mine.sort(key=lambda r: -r.finished_at)
        return [{"table": r.table_id, "seat": r.seat.seat, "side": r.seat.side, "won": r.seat.won,
                 "points": r.seat.points, "rated": r.rated, "rating_before": r.seat.rating_before,
                 "rating_after": r.seat.rating_after, "finished_at": r.finished_at} for r in mine[:limit]]

    # ------------------------------------------------------------------ tables

    def create_table(self, table: TableRow) -> None:
        """Store a new table (``DuplicateError`` for an id or invite code already used)."""
        with self._lock:
            if table.id in self._tables:
                raise DuplicateError(f"table {table.id} already exists")
            if table.invite_code is not None and self.table_by_invite(table.invite_code) is not None:
                raise DuplicateError("that invite code is already used")
            self._tables[table.id] = replace(table, rules=_copy(table.rules), settings=_copy(table.settings))

    def get_table(self, table_id: str) -> TableRow | None:
        """A table by id."""
        with self._lock:
            row = self._tables.get(table_id)
        return None if row is None else replace(row, rules=_copy(row.rules), settings=_copy(row.settings))

    def table_by_invite(self, code: str) -> TableRow | None:
        """A table by invite code."""
        with self._lock:
            found = next((t.id for t in self._tables.values() if t.invite_code == code), None)
            return None if found is None else self.get_table(found)

    def public_tables(self, limit: int = 100) -> list[TableRow]:
        """Open public tables, newest first."""
        with self._lock:
            ids = [t.id for t in sorted(self._tables.values(), key=lambda t: -t.created_at)
                   if t.public and t.status == "open"][:limit]
            return [row for row in map(self.get_table, ids) if row is not None]

    def open_tables(self) -> list[TableRow]:
        """Every table not over."""
        with self._lock:
            ids = [t.id for t in self._tables.values() if t.status != "over"]
            return [row for row in map(self.get_table, ids) if row is not None]

    def player_open_tables(self, player_id: str) -> list[TableRow]:
        """The open tables a player made, oldest first."""
        with self._lock:
            ids = [t.id for t in sorted(self._tables.values(), key=lambda t: (t.created_at, t.id))
                   if t.created_by == player_id and t.status == "open"]
            return [row for row in map(self.get_table, ids) if row is not None]

    def set_table_status(self, table_id: str, status: str) -> None:
        """Mark a table's status."""
        with self._lock:
            row = self._tables.get(table_id)
            if row is not None:
                self._tables[table_id] = replace(row, status=status)

    def finish_game(self, table_id: str, record: dict[str, Any], rated: bool, winner: int | None,
                    seats: list[GameSeat]) -> None:
        """Keep the record and results; update ratings; mark the table over (all or nothing)."""
        now = time.time()
        data = orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS)
        with self._lock:
            if table_id in self._games:
                raise DuplicateError(f"the game of table {table_id} is already kept")
            if len({g.seat for g in seats}) != len(seats):
                raise DuplicateError(f"a seat of table {table_id} is given twice")
            self._games[table_id] = data
            for g in seats:
                self._results.append(_Result(table_id, g, rated, now))
                p = self._players.get(g.player_id)
                if rated and g.mu is not None and p is not None:
                    p.row = replace(p.row, rating_mu=g.mu, rating_sigma=g.sigma, rated_games=p.row.rated_games + 1)
            self.set_table_status(table_id, "over")

    def game_record(self, table_id: str) -> dict[str, Any] | None:
        """A finished game's record."""
        with self._lock:
            data = self._games.get(table_id)
        return None if data is None else dict(orjson.loads(data))

    def game_player_ids(self, table_id: str) -> list[str]:
        """The human players of a finished game."""
        with self._lock:
            return [r.seat.player_id for r in self._results if r.table_id == table_id]

    def game_seats(self, table_id: str) -> list[tuple[int, str]]:
        """The human seats of a finished game: (seat, player id), by seat."""
        with self._lock:
            return sorted((r.seat.seat, r.seat.player_id) for r in self._results if r.table_id == table_id)

    # ------------------------------------------------------------------ reviews

    def get_review(self, review_id: str) -> dict[str, Any] | None:
        """A stored game review, or ``None``."""
        with self._lock:
            data = self._reviews.get(review_id)
        return None if data is None else dict(orjson.loads(data))

    def save_review(self, review_id: str, table_id: str | None, seat: int, result: dict[str, Any]) -> None:
        """Keep a game review; a second save of the same review is ignored."""
        data = orjson.dumps(result, option=orjson.OPT_NON_STR_KEYS)
        with self._lock:
            self._reviews.setdefault(review_id, data)

    # ------------------------------------------------------------------ the event log

    def append_events(self, table_id: str, rows: list[EventRow]) -> None:
        """Append events (and their chat lines), all or nothing."""
        if not rows:
            return
        with self._lock:
            self._check(table_id, rows)
            self._write(table_id, rows)

    def append_many(self, batches: list[tuple[str, list[EventRow]]]) -> list[Exception | None]:
        """Append several tables' batches, each whole or not at all."""
        out: list[Exception | None] = []
        with self._lock:
            for tid, rows in batches:
                try:
                    self.append_events(tid, rows)
                    out.append(None)
                except Exception as e:
                    out.append(e)
        return out

    def _check(self, table_id: str, rows: list[EventRow]) -> None:
        seqs = {r.seq for r in self._events.get(table_id, [])}
        new_seqs = [r.seq for r in rows]
        if seqs & set(new_seqs) or len(set(new_seqs)) != len(new_seqs):
            raise DuplicateError(f"event {rows[0].seq} of table {table_id} is already stored")

    def _write(self, table_id: str, rows: list[EventRow]) -> None:
        now = time.time()
        log = self._events.setdefault(table_id, [])
        for r in rows:
            kept = EventRow(r.seq, r.kind, _copy(r.data), r.player_id, r.client_id, r.created_at or now)
            log.append(kept)
            if r.kind == "chat":
                self._chat.setdefault(table_id, []).append(
                    ChatRow(r.seq, r.player_id, r.data["name"], r.data["text"], kept.created_at))
            if r.hand_record is not None:
                self._hands.setdefault(table_id, {})[hand_let_go(r)] = r.hand_record
        log.sort(key=lambda e: e.seq)

    def hand_records(self, table_id: str) -> list[bytes]:
        """The record's entries of a table's hands, by hand."""
        with self._lock:
            kept = self._hands.get(table_id, {})
            return [kept[h] for h in sorted(kept)]

    def load_events(self, table_id: str, after: int = 0) -> list[EventRow]:
        """A table's events after ``after``, in order."""
        with self._lock:
            return [replace(e, data=_copy(e.data)) for e in self._events.get(table_id, []) if e.seq > after]

    def chat_history(self, table_id: str, limit: int = 50) -> list[ChatRow]:
        """The last chat lines, oldest first."""
        with self._lock:
            lines = sorted(self._chat.get(table_id, []), key=lambda c: c.seq)
        return lines[-limit:] if limit > 0 else []

    def count_events(self, table_id: str) -> int:
        """How many events a table has (for tests and tools)."""
        with self._lock:
            return len(self._events.get(table_id, []))

    # ------------------------------------------------------------------ score-keeper games

    def score_games(self, player_id: str) -> list[ScoreGameRow]:
        """A player's score-keeper games, most recently changed first."""
        with self._lock:
            games = sorted(self._score_games.get(player_id, {}).items(), key=lambda kv: (-kv[1].updated, kv[0]))
        return [g.row(gid) for gid, g in games]

    def save_score_game(self, player_id: str, game_id: str, name: str, data: dict[str, Any], updated: float,
                        limit: int) -> tuple[str, ScoreGameRow | None]:
        """Insert or replace a game unless the stored copy is newer or the player has ``limit`` games."""
        now = time.time()
        with self._lock:
            if player_id not in self._players:
                raise KeyError(f"no player {player_id}")
            mine = self._score_games.setdefault(player_id, {})
            old = mine.get(game_id)
            if old is not None and old.updated > updated:
                return "newer", old.row(game_id)
            if old is None and len(mine) >= limit:
                return "full", None
            mine[game_id] = _ScoreGame(name, orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS), updated, now)
        return "saved", ScoreGameRow(game_id, name, data, updated, now)

    def delete_score_game(self, player_id: str, game_id: str) -> bool:
        """Forget one of a player's games."""
        with self._lock:
            return self._score_games.get(player_id, {}).pop(game_id, None) is not None


__all__ = ["MemoryStorage"]


if TYPE_CHECKING:  # mypy holds both implementations to every interface
    from spades.storage.base import Storage
    from spades.storage.sql import SqlStorage

    def _implements(memory: MemoryStorage, sql: SqlStorage) -> tuple[Storage, Storage]:
        return memory, sql
