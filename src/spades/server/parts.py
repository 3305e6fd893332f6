"""The two parts a hub is composed with, ``Hub(storage, ownership=..., bus=...)``.

The hub runs one table pipeline (load, authorize, check the version, apply, persist, publish, schedule
bots and timers) and asks its parts at named steps; nothing overrides it:

- **Ownership**: which tables this process may change, the event log it writes through, and what it
  does when it starts and stops. ``LocalOwnership`` (one process: it owns every table, resumes them all
  at start and writes the storage's own log); a cluster plugs in ``spades.server.cluster.LeaseOwnership``
  (fenced leases of ``spades.storage.lease``).
- **Bus**: how this process hears of, and tells, the other processes. ``NoBus`` (one process: there
  are none); a cluster plugs in ``spades.server.cluster.RedisBus`` (forwarding a change to its table's
  owner, publishing new rows to the processes that keep a replica, presence, the shared lobby and
  login limiter, ended sessions).

Each part is bound to its hub once (``bind``), when the hub is made, and may then use the hub's public
methods (``take_up``, ``serve``, ``follow``, ``lost``, ``seat_back``, ``unfollow``, ``spawn``, ``db``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from spades.server.accounts import LoginLimiter
from spades.storage.base import EventLog, EventRow, Storage

if TYPE_CHECKING:
    from spades.server.hub import Conn, Hub
    from spades.server.table import TableState

log = logging.getLogger("spades.server")


@dataclass(frozen=True)
class Published:
    """What a table's owner tells the processes that keep a replica of it after a change: the new log
    rows (none when only the description changed), the seats marked away, the seconds left on the turn
    clock (``None``: no clock runs), and whether the table's description changed (``info``)."""

    rows: list[EventRow]
    away: list[int]
    left: float | None
    info: bool = False


class Ownership(Protocol):
    """Which tables this process may change (see the module's notes)."""

    node: str
    """This process's name (the owner named in a lease, and on the bus)."""
    retry_for: float
    """Seconds a change keeps looking for its table's owner before it is answered ``unavailable``."""

    def bind(self, hub: Hub) -> None:
        """Called once by the hub this part serves."""

    def event_log(self, storage: Storage) -> EventLog:
        """The log the hub reads and writes the tables' events through."""
        ...

    def owns(self, table_id: str) -> bool:
        """This process may change the table (as far as it knows: a write is fenced anyway)."""
        ...

    def epoch(self, table_id: str) -> int:
        """The fencing epoch this process holds the table at (0 when it does not, or has none)."""
        ...

    async def owner_of(self, table_id: str) -> str | None:
        """The node that owns the table (``node``: this one), taking it here when nobody does;
        ``None`` when no owner can be found now."""
        ...

    async def start(self) -> None:
        """Start running tables (one process: every unfinished one; a cluster: the lease loop)."""

    async def stop(self) -> None:
        """Stop running tables (a cluster: release every lease and say so on the bus)."""

    async def adopt(self, table_id: str) -> None:
        """A table was just made here: own it."""

    async def finished(self, table_id: str) -> None:
        """The table's game is over and stored: nobody needs to own it any more."""

    def drop(self, table_id: str) -> bool:
        """Another process owns the table now: forget owning it; ``False`` when it was not owned."""
        ...

    def forget(self, table_id: str) -> None:
        """Forget who was last known to own the table (it did not answer, or nobody here watches it)."""

    async def seen(self, table_id: str, owner: str, epoch: int) -> None:
        """The bus brought a message from the table's owner ``owner`` at ``epoch``."""

    async def released(self, table_id: str, heir: str | None = None) -> None:
        """The bus says the table's owner gave it up: it stopped (``heir`` ``None``), or it handed the
        table to the process ``heir``, where the table's people are connected."""

    def status(self) -> dict[str, Any] | None:
        """What an operator sees of this part (``GET /api/cluster``); ``None`` for one process."""
        ...


class Bus(Protocol):
    """How this process hears of, and tells, the other processes (see the module's notes)."""

    replicas: bool
    """Other processes may keep replicas of this one's tables: ``publish`` has somebody to tell. The hub
    builds an update only then (``False``: one process, where each move would build one for nobody)."""

    def bind(self, hub: Hub) -> None:
        """Called once by the hub this part serves."""

    async def start(self) -> None:
        """Start listening (returns once the bus hears)."""

    async def stop(self) -> None:
        """Send what is queued, then stop."""

    async def watch(self, conn: Conn) -> None:
        """A socket here opens its table (before the table is loaded, so nothing published after the
        load is missed)."""

    def attached(self, conn: Conn) -> None:
        """The socket's ``hello`` was accepted: it is present at its table."""

    def detached(self, conn: Conn) -> None:
        """The socket closed."""

    def watches(self, table_id: str) -> bool:
        """Some socket here watches the table."""
        ...

    async def forward(self, owner: str, conn: Conn, msg: dict[str, Any]) -> bool:
        """Send a change to the table's owner and relay its answers to ``conn``: ``True`` when it was
        handled there, ``False`` when that process did not answer or no longer owns the table."""
        ...

    def publish(self, table_id: str, update: Published) -> None:
        """Tell the processes that keep a replica of the table what changed (queued, in order)."""

    def released(self, table_id: str, heir: str | None = None) -> None:
        """Tell them that this process gave the table up (to ``heir``, when it handed it over)."""

    def home(self, table_id: str) -> str | None:
        """The one other process that holds every socket present at the table (from presence), when
        this process holds none of them: where the table's owner had better be. ``None`` otherwise."""
        ...

    def tell_back(self, owner: str, table_id: str, seat: int) -> None:
        """Tell the table's owner that the player of ``seat``, marked away, is back (on a socket here)."""

    async def peers(self) -> int:
        """How many processes share the tables, this one included (it is counted as live now)."""
        ...

    async def present(self, t: TableState, seat: int) -> bool:
        """Some socket of the seat's player is open on another process (``True`` when that cannot be
        known now: nobody is marked away on a guess)."""
        ...

    def seeders(self, table_id: str) -> frozenset[str]:
        """Players of the table whose sockets on other processes send client seeds."""
        ...

    async def list_table(self, t: TableState) -> None:
        """Put the table in the shared lobby, or take it out (private, or over)."""

    async def lobby(self, limit: int) -> list[dict[str, Any]] | None:
        """The shared lobby, newest first; ``None``: ask the storage."""
        ...

    def login_limiter(self, limit: int, window: float) -> LoginLimiter | None:
        """A login limiter shared by every process; ``None``: this process's own."""
        ...

    def session_closed(self, token: str) -> None:
        """A session ended: the other processes close their sockets opened with it."""

    def status(self) -> dict[str, Any] | None:
        """What an operator sees of this part (``GET /api/cluster``); ``None`` for one process."""
        ...


class HubPart:
    """The binding every part of a hub shares: ``bind`` remembers the hub, ``hub`` reads it back."""

    _hub: Hub | None = None

    @property
    def hub(self) -> Hub:
        """The hub this part serves."""
        assert self._hub is not None, f"{type(self).__name__} is not bound to a hub"
        return self._hub

    def bind(self, hub: Hub) -> None:
        """Remember the hub."""
        self._hub = hub


class LocalOwnership:
    """One process owns every table: it resumes every unfinished table at start, writes the storage's
    own log, and never loses a table."""

    node = "local"
    retry_for = 0.0

    def __init__(self) -> None:
        self.hub: Hub | None = None

    def bind(self, hub: Hub) -> None:
        """Remember the hub (``start`` resumes its tables)."""
        self.hub = hub

    def event_log(self, storage: Storage) -> EventLog:
        """The storage's own log."""
        return storage

    def owns(self, table_id: str) -> bool:
        """Every table."""
        return True

    def epoch(self, table_id: str) -> int:
        """No epochs in one process."""
        return 0

    async def owner_of(self, table_id: str) -> str | None:
        """This process."""
        return self.node

    async def start(self) -> None:
        """Load every unfinished table and set its bots and timers going again (``Hub.take_up``)."""
        hub = self.hub
        assert hub is not None
        rows = await hub.db(hub.storage.open_tables)
        for row in rows:
            async with hub.locks[row.id]:
                await hub.take_up(row.id, restarted=True)
        log.info("resumed %d tables", len(rows))

    async def stop(self) -> None:
        """Nothing to hand over."""

    async def adopt(self, table_id: str) -> None:
        """Owned already."""

    async def finished(self, table_id: str) -> None:
        """Kept: nothing to give up."""

    def drop(self, table_id: str) -> bool:
        """Never lost."""
        return False

    def forget(self, table_id: str) -> None:
        """Nothing to forget."""

    async def seen(self, table_id: str, owner: str, epoch: int) -> None:
        """There is no other owner."""

    async def released(self, table_id: str, heir: str | None = None) -> None:
        """There is no other owner."""

    def status(self) -> dict[str, Any] | None:
        """Nothing to report."""
        return None


class NoBus:
    """One process: there is nobody to tell or hear."""

    replicas = False

    def bind(self, hub: Hub) -> None:
        """Nothing to remember."""

    async def start(self) -> None:
        """Nothing to listen to."""

    async def stop(self) -> None:
        """Nothing queued."""

    async def watch(self, conn: Conn) -> None:
        """The tables' rows come from this process itself."""

    def attached(self, conn: Conn) -> None:
        """Presence is the hub's own sockets."""

    def detached(self, conn: Conn) -> None:
        """Presence is the hub's own sockets."""

    def watches(self, table_id: str) -> bool:
        """No replica is ever kept (this process owns every table)."""
        return False

    async def forward(self, owner: str, conn: Conn, msg: dict[str, Any]) -> bool:
        """Never asked: this process owns every table."""
        return False

    def publish(self, table_id: str, update: Published) -> None:
        """Nobody keeps a replica."""

    def released(self, table_id: str, heir: str | None = None) -> None:
        """Nobody to tell."""

    def home(self, table_id: str) -> str | None:
        """Every socket is here."""
        return None

    def tell_back(self, owner: str, table_id: str, seat: int) -> None:
        """Nobody to tell."""

    async def peers(self) -> int:
        """This process alone."""
        return 1

    async def present(self, t: TableState, seat: int) -> bool:
        """There is no other process."""
        return False

    def seeders(self, table_id: str) -> frozenset[str]:
        """There is no other process."""
        return frozenset()

    async def list_table(self, t: TableState) -> None:
        """The lobby is read from the storage."""

    async def lobby(self, limit: int) -> list[dict[str, Any]] | None:
        """Ask the storage."""
        return None

    def login_limiter(self, limit: int, window: float) -> LoginLimiter | None:
        """This process's own."""
        return None

    def session_closed(self, token: str) -> None:
        """Every socket is here."""

    def status(self) -> dict[str, Any] | None:
        """Nothing to report."""
        return None


__all__ = ["Bus", "LocalOwnership", "NoBus", "Ownership", "Published"]
