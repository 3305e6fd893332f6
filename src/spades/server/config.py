"""Server settings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

COMMIT_GATHER = 0.003
"""Seconds a group commit waits for more rows when the rows of ``spades.server.hub.GATHER_SIBLINGS``
tables or more were already waiting as the last write ended (moves are coming faster than they are
written); a write with nothing before it goes at once. Each commit has a fixed cost (the transaction,
SQLite's commit, the thread hand-off and the interpreter lock passed back and forth), which a few rows
per commit made most of the database thread's work: at 3,000 players 5.5 rows a commit and 51 µs of the
database thread's CPU per row; gathering 3 ms, 10.7-14.4 rows and 39-41 µs, and 0.32-0.33 to 0.27-0.31
ms of the whole server's CPU per event, for 0.3-3 ms more to the median move's acknowledgement
(``benchmarks/README.md``, issue 19). PostgreSQL's ``commit_delay`` is the same idea."""


@dataclass
class ServerConfig:
    """Everything the server can be told at start. Tests shrink the times."""

    database_url: str | None = None
    """SQLAlchemy URL; ``None``: ``SPADES_DATABASE_URL`` or SQLite in the user's data folder."""
    allowed_origins: tuple[str, ...] = ()
    """Extra WebSocket ``Origin`` values accepted besides the server's own (scheme://host:port)."""
    bot_delay: float = 0.6
    """Seconds a bot waits before acting (so people can follow the play)."""
    bot_think: float = 2.0
    """A bot's deadline to decide (seconds); past it the first legal action is taken."""
    time_scale: float = 1.0
    """Multiplies every turn timer (tests use a small factor instead of sleeping for real)."""
    clock: Callable[[], float] = field(default=time.time)
    """The wall clock (seconds since the epoch): the log's times, turn deadlines and timed games' clocks."""
    seed_seconds: float = 4.0
    """How long a deal waits for the client seeds of players whose client sends them (scaled by
    ``time_scale``); then the missing ones get the default ``(none)`` and the hand is dealt."""
    default_turn_seconds: float = 30.0
    """The turn timer of a table that does not choose one."""
    max_message_bytes: int = 4096
    """The largest WebSocket message accepted (a bigger one is answered with an error)."""
    rate_per_second: float = 20.0
    """Messages a connection may send per second on average..."""
    rate_burst: float = 40.0
    """...and in a burst; beyond this the socket is closed with policy code 1008."""
    storage_wait: float = 5.0
    """Seconds a move or a request waits for the database (another process holding SQLite's lock, a
    stalled server) before it is answered "busy, try again" (ws ``storage_busy``, HTTP 503) with nothing
    stored; ``/readyz`` then answers 503 too."""
    commit_gather: float = COMMIT_GATHER
    """Seconds a group commit waits for more moves while they keep coming (``COMMIT_GATHER``; 0: it never
    waits). A move is still acknowledged only once it is stored."""
    sockets_per_player: int = 20
    """Table sockets one player may hold open at once in one server process (tabs, tables, spectating); the
    next is refused with ``too_many_sockets`` and closed (policy code 1008)."""
    open_tables_per_player: int = 10
    """Tables made with ``POST /api/tables`` that one player may hold open (not finished) at once; the next
    is refused (429, ``too_many_tables``) until one finishes. Counted in the database (the whole cluster)."""
    abandoned_table_seconds: float = 3600
    """A table for people over ``open_tables_per_player`` is given up to make room for a new one once it is
    this old with nobody connected and no other person seated (nobody joined it): otherwise tables that
    never fill would hold the player's slots for ever."""
    computer_games_per_player: int = 5
    """Games against the computer (``POST /api/play``) one player may hold open at once. Over it, the
    player's oldest such games with no person connected are ended (marked over) to make room; only when
    every one is in use is the new one refused (429, ``too_many_games``)."""
    idle_table_seconds: float = 1800.0
    """A table in memory with nobody connected, no bot or timer armed and no use for this long is dropped
    from memory (a finished one once nobody is connected); any use reloads it from its log. More than the
    longest turn timer (600 s), so a waiting turn's timer is never what is dropped."""
    resume_window: int = 64
    """A reconnecting client missing at most this many events gets them; more gets a snapshot. A table
    keeps its last ``spades.server.table.EVENTS_KEEP`` events (8 to 12) in memory; older ones within the
    window are read from the log (``Hub.missed_since``)."""
    login_attempts: int = 5
    """Failed logins allowed at once per user name from one address (and per address); after them each
    try waits 1, 2, 4... seconds after the last failure (``spades.server.accounts.AttemptLimiter``)."""
    login_window: float = 300.0
    """The longest of those waits; failures are forgotten this long after the last one."""
    secure_cookies: bool = False
    """Mark the session cookie ``Secure`` (behind HTTPS)."""
    redis_url: str | None = None
    """Redis for several server processes on one PostgreSQL database (``spades.server.cluster``)."""
    redis_prefix: str = "spades:"
    """Prefix of every Redis key and channel (several sites, or tests, can share one Redis)."""
    lease_seconds: float = 5.0
    """How long a process's ownership of a table lasts unless renewed (a dead owner's tables move
    after about this long)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses of reverse proxies whose ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (the
    client's address then comes from the header); from any other peer those headers are ignored."""
    hsts_seconds: int = 0
    """Send ``Strict-Transport-Security`` for this long (set it when the site is served over HTTPS only)."""
    quotas: dict[str, str] = field(default_factory=dict)
    """Quota overrides by name, e.g. ``{"guests": "10/minute;100/hour"}`` or ``"none"`` to turn one off
    (``spades.server.quotas.DEFAULT_QUOTAS`` lists them and their defaults; ``docs/security.md``)."""
