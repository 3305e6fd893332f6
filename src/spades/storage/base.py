"""The storage interfaces (accounts, tables, the event log, score-keeper games) and the rows they
speak in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class DuplicateError(Exception):
    """A write that would break a uniqueness rule: an event number or client id already used, a taken
    user name."""


class StorageBusy(Exception):
    """The database did not answer in time (another process holds its lock, or it is stalled): nothing
    was written by the call that raised it; try again later."""


@dataclass(frozen=True)
class PlayerRow:
    """A player: a guest (no user name) or an account."""

    id: str
    name: str
    username: str | None = None
    rating_mu: float | None = None
    rating_sigma: float | None = None
    rated_games: int = 0


@dataclass(frozen=True)
class TableRow:
    """A table's fixed facts: its rule set (as given: a preset name or preset plus overrides) and
    settings (``turn_seconds``, ``rated``, ``bot_level``...)."""

    id: str
    rules: Any
    settings: dict[str, Any]
    public: bool
    invite_code: str | None
    created_by: str | None
    created_at: float
    status: str = "open"
    """``open`` (seating or playing) or ``over``."""


@dataclass(frozen=True, slots=True)
class EventRow:
    """One numbered event of a table's log. ``data`` holds secrets (a deal's order and seed): it is
    never sent to a client as it is, only through the server's per-viewer projection."""

    seq: int
    kind: str
    data: dict[str, Any]
    player_id: str | None = None
    client_id: str | None = None
    created_at: float = 0.0
    hand_record: bytes | None = field(default=None, compare=False, repr=False)
    """A deal's row only, as a table makes it: the game record's entry of the hand the deal lets go
    (``spades.server.table.TableState.deal_row``), stored with the row beside the log
    (``EventLog.hand_records``), never in the log itself nor sent to anyone; ``None`` in a row read back."""


def hand_let_go(row: EventRow) -> int:
    """The hand whose record entry a deal's row carries (``EventRow.hand_record``): the one before the hand
    it deals."""
    return int(row.data["hand"]) - 1


@dataclass(frozen=True)
class ChatRow:
    """A chat line as stored (plain text)."""

    seq: int
    player_id: str | None
    name: str
    text: str
    created_at: float


@dataclass(frozen=True)
class GameSeat:
    """A human seat of a finished game, for history and ratings."""

    seat: int
    player_id: str
    side: int
    won: bool
    points: int
    rating_before: float | None = None
    rating_after: float | None = None
    mu: float | None = None
    sigma: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoreGameRow:
    """A score-keeper game kept for a player: the game as the page wrote it, and when."""

    game_id: str
    name: str
    data: dict[str, Any]
    updated: float
    """The page's own time of its last change (milliseconds since 1970), used to merge copies."""
    stored_at: float
    """When the server stored it (seconds since 1970)."""


class Accounts(Protocol):
    """Players, their sessions and accounts, and what they are rated (the HTTP session and account
    endpoints, the leaderboard and a player's history)."""

    def create_player(self, name: str) -> PlayerRow:
        """A new guest player."""
        ...

    def get_player(self, player_id: str) -> PlayerRow | None:
        """A player by id."""
        ...

    def rename_player(self, player_id: str, name: str) -> None:
        """Change a player's display name."""
        ...

    def create_session(self, player_id: str) -> str:
        """A new session for a player; returns the secret token (only its hash is stored)."""
        ...

    def session_player(self, token: str) -> PlayerRow | None:
        """The player a session token belongs to."""
        ...

    def delete_session(self, token: str) -> None:
        """End a session."""
        ...

    def set_account(self, player_id: str, username: str, password_hash: str) -> None:
        """Give a (guest) player a user name and password; ``DuplicateError`` if the name is taken."""
        ...

    def account(self, username: str) -> tuple[PlayerRow, str] | None:
        """A player and password hash by user name."""
        ...

    def leaderboard(self, limit: int = 50) -> list[PlayerRow]:
        """Rated players, best first (by the conservative rating mu - 3 sigma)."""
        ...

    def history(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """A player's finished games, newest first."""
        ...


class Tables(Protocol):
    """Tables' fixed facts and status, and the finished games kept from them."""

    def create_table(self, table: TableRow) -> None:
        """Store a new table."""
        ...

    def get_table(self, table_id: str) -> TableRow | None:
        """A table by id."""
        ...

    def table_by_invite(self, code: str) -> TableRow | None:
        """A private table by its invite code."""
        ...

    def public_tables(self, limit: int = 100) -> list[TableRow]:
        """Open public tables, newest first."""
        ...

    def open_tables(self) -> list[TableRow]:
        """Every table not over (to resume after a restart)."""
        ...

    def player_open_tables(self, player_id: str) -> list[TableRow]:
        """The tables a player made (``created_by``) whose status is ``open``, oldest first: their number
        is what the server's open-table caps count (``ServerConfig.open_tables_per_player``)."""
        ...

    def set_table_status(self, table_id: str, status: str) -> None:
        """Mark a table ``open`` or ``over``."""
        ...

    def finish_game(self, table_id: str, record: dict[str, Any], rated: bool, winner: int | None,
                    seats: list[GameSeat]) -> None:
        """Keep a finished game's record, each human seat's result, and new ratings; mark the table over
        (all or nothing)."""
        ...

    def game_record(self, table_id: str) -> dict[str, Any] | None:
        """A finished game's ``spades-record/1``."""
        ...

    def game_player_ids(self, table_id: str) -> list[str]:
        """The players of a finished game."""
        ...

    def game_seats(self, table_id: str) -> list[tuple[int, str]]:
        """The human seats of a finished game: (seat, player id), by seat."""
        ...


class EventLog(Protocol):
    """The append-only event log of every table (chat lines are events too, also kept for
    ``chat_history``)."""

    def append_events(self, table_id: str, rows: list[EventRow]) -> None:
        """Append events in one transaction; ``DuplicateError`` (and nothing stored) when a sequence
        number is already in the log. Client ids are stored, not checked here: the table that applies the
        actions answers an id it has seen (``spades.server.table.ClientIds``, filled from the log), and a
        number taken already keeps a second owner's copy out."""
        ...

    def append_many(self, batches: list[tuple[str, list[EventRow]]]) -> list[Exception | None]:
        """Append several tables' events in as few transactions as possible (group commit): each batch is
        stored whole or not at all, and its entry in the answer is ``None`` when it was stored, or the
        error (``DuplicateError``...) that kept it out; one batch's error never keeps another out."""
        ...

    def hand_records(self, table_id: str) -> list[bytes]:
        """The record's entries of a table's hands, by hand (``EventRow.hand_record``, stored with the deal
        that let each hand go). Tables whose games began before migration 0007 have none of their earlier
        hands: their record is made from the log."""
        ...

    def load_events(self, table_id: str, after: int = 0) -> list[EventRow]:
        """A table's events with ``seq > after``, in order."""
        ...

    def chat_history(self, table_id: str, limit: int = 50) -> list[ChatRow]:
        """The last chat lines of a table, oldest first."""
        ...


class ScoreGames(Protocol):
    """Score-keeper games kept on the server for players with an account."""

    def score_games(self, player_id: str) -> list[ScoreGameRow]:
        """A player's score-keeper games, most recently changed first."""
        ...

    def save_score_game(self, player_id: str, game_id: str, name: str, data: dict[str, Any], updated: float,
                        limit: int) -> tuple[str, ScoreGameRow | None]:
        """Keep a score-keeper game: ``("saved", row)``; ``("newer", stored)`` when the stored copy was
        changed later (nothing written); ``("full", None)`` when the player already has ``limit`` games."""
        ...

    def delete_score_game(self, player_id: str, game_id: str) -> bool:
        """Forget one of a player's score-keeper games; whether it was there."""
        ...


class Reviews(Protocol):
    """Game reviews (``spades.ai.review``'s JSON) kept so each is computed once (``spades.server.review``)."""

    def get_review(self, review_id: str) -> dict[str, Any] | None:
        """A stored game review, or ``None``."""
        ...

    def save_review(self, review_id: str, table_id: str | None, seat: int, result: dict[str, Any]) -> None:
        """Keep a game review (a second save of the same review is ignored); ``table_id``: the online game
        it reviews (its review goes with the table), ``None`` for an uploaded record."""
        ...


class Storage(Accounts, Tables, EventLog, ScoreGames, Reviews, Protocol):
    """Everything a server needs from its database: each part above, and ``close``. ``SqlStorage`` and
    ``MemoryStorage`` are the two implementations; code that needs one part asks for that part."""

    def close(self) -> None:
        """Release connections."""
        ...
