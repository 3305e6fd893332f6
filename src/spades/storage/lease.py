"""Table ownership by lease, for several server processes on one PostgreSQL database.

Each live table is owned by at most one process at a time: a row of ``table_leases`` names the owner,
a fencing ``epoch`` (one more for every new owner) and when the lease expires. Times are the
database's own clock (``clock_timestamp()``), so processes on machines with skewed clocks agree.

- ``acquire`` takes a table whose lease is absent or expired, with the next epoch.
- ``renew`` extends every lease of this owner at once and says which it still holds.
- ``append_fenced`` writes events only while this owner still holds the table at the epoch it
  acquired: the lease row is locked ``FOR UPDATE`` in the same transaction, so a takeover waits for a
  write in flight and a write after a takeover is refused (``LeaseLost``). The log's unique
  ``(table_id, seq)`` stays the final guard.
- ``guard`` is the same fence as a check the SQL storage runs inside its own event writes (group
  commit included): ``spades.server.cluster.FencedLog`` wraps the log with it.
- ``release`` lets another process take the table at once (a graceful shutdown, or a table handed to
  the process its people are connected to); ``renew`` leaves a released lease alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Connection, Float, and_, cast, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import IntegrityError

from spades.storage import schema as s
from spades.storage.base import DuplicateError, EventRow
from spades.storage.sql import Guard, SqlStorage, write_events


class LeaseLost(Exception):
    """This process no longer owns the table (another took it over, or the lease was never held)."""


@dataclass(frozen=True)
class Lease:
    """Who owns a table, at which epoch, and for how many more seconds (negative: expired)."""

    table_id: str
    owner: str
    epoch: int
    expires_in: float


def _now() -> ColumnElement[float]:
    return cast(func.extract("epoch", func.clock_timestamp()), Float)


class Leases:
    """The lease operations of one owner (a server process) on a PostgreSQL ``SqlStorage``."""

    def __init__(self, storage: SqlStorage, owner: str, ttl: float) -> None:
        if storage.is_sqlite:
            raise ValueError("table leases need PostgreSQL (several processes cannot share SQLite)")
        self.storage = storage
        self.owner = owner
        self.ttl = ttl

    def acquire(self, table_id: str) -> int | None:
        """Take the table if nobody holds a live lease on it: the new epoch, or ``None``."""
        lt = s.table_leases
        with self.storage.engine.begin() as c:
            row = c.execute(pg_insert(lt).values(table_id=table_id, owner=self.owner, epoch=1,
                                                 expires_at=_now() + self.ttl)
                            .on_conflict_do_nothing().returning(lt.c.epoch)).first()
            if row is None:
                row = c.execute(update(lt).where(lt.c.table_id == table_id, lt.c.expires_at < _now())
                                .values(owner=self.owner, epoch=lt.c.epoch + 1, expires_at=_now() + self.ttl)
                                .returning(lt.c.epoch)).first()
        return None if row is None else int(row.epoch)

    def renew(self) -> dict[str, int]:
        """Extend every lease this owner holds and has not released; ``{table id: epoch}`` of those it
        still holds. (A released lease stays released: renewing it would keep the table from the process
        it was handed to, while no process runs it.)"""
        lt = s.table_leases
        with self.storage.engine.begin() as c:
            rows = c.execute(update(lt).where(lt.c.owner == self.owner, lt.c.expires_at > 0.0)
                             .values(expires_at=_now() + self.ttl).returning(lt.c.table_id, lt.c.epoch)).all()
        return {r.table_id: int(r.epoch) for r in rows}

    def release(self, table_id: str, epoch: int) -> bool:
        """Give the table up (it expires now); ``False`` when it was no longer ours."""
        lt = s.table_leases
        with self.storage.engine.begin() as c:
            res = c.execute(update(lt).where(lt.c.table_id == table_id, lt.c.owner == self.owner,
                                             lt.c.epoch == epoch).values(expires_at=0.0))
        return bool(res.rowcount)

    def get(self, table_id: str) -> Lease | None:
        """The table's lease, if it ever had one."""
        lt = s.table_leases
        with self.storage.engine.connect() as c:
            row = c.execute(select(lt.c.owner, lt.c.epoch, (lt.c.expires_at - _now()).label("left"))
                            .where(lt.c.table_id == table_id)).first()
        return None if row is None else Lease(table_id, row.owner, int(row.epoch), float(row.left))

    def orphans(self, limit: int = 100, settle: float = 10.0) -> list[str]:
        """Unfinished tables that nobody holds a live lease on (their owner died, or never had one).
        A table made less than ``settle`` seconds ago without a lease yet is left to its maker, which
        takes it right after storing it."""
        lt, t = s.table_leases, s.tables
        q = (select(t.c.id).select_from(t.outerjoin(lt, lt.c.table_id == t.c.id))
             .where(t.c.status != "over",
                    or_(and_(lt.c.table_id.is_(None), t.c.created_at < _now() - settle), lt.c.expires_at < _now()))
             .order_by(func.random()).limit(limit))
        with self.storage.engine.connect() as c:
            return [r.id for r in c.execute(q)]

    def fence(self, c: Connection, table_id: str, epoch: int) -> None:
        """On an open transaction: lock the table's lease row and check that this owner holds it at
        ``epoch`` (``LeaseLost`` otherwise). A takeover waits for the transaction to end."""
        lt = s.table_leases
        held = c.execute(select(lt.c.epoch).where(lt.c.table_id == table_id, lt.c.owner == self.owner,
                                                  lt.c.epoch == epoch).with_for_update()).first()
        if held is None:
            raise LeaseLost(f"table {table_id} is no longer owned by {self.owner} at epoch {epoch}")

    def guard(self, epoch_of: Callable[[str], int | None]) -> Guard:
        """A write guard for ``SqlStorage.append_events`` / ``append_many``: a table's events go through
        only while this owner holds it at the epoch ``epoch_of(table_id)`` names (``None``: not acquired
        here), else ``LeaseLost`` and nothing is stored (``fence``)."""

        def check(c: Connection, table_id: str) -> None:
            epoch = epoch_of(table_id)
            if epoch is None:
                raise LeaseLost(f"table {table_id} is not owned by {self.owner}")
            self.fence(c, table_id, epoch)

        return check

    def append_fenced(self, table_id: str, epoch: int, rows: list[EventRow]) -> None:
        """Append events only while this owner holds the table at ``epoch`` (``LeaseLost`` otherwise,
        ``DuplicateError`` when a number is already in the log); nothing is stored on
        either error."""
        if not rows:
            return
        try:
            with self.storage.engine.begin() as c:
                self.fence(c, table_id, epoch)
                write_events(c, [(table_id, rows)])
        except IntegrityError:
            raise DuplicateError(f"event {rows[0].seq} of table {table_id} is already stored") \
                from None

    def max_seqs(self, table_ids: list[str]) -> dict[str, int]:
        """The last event number of each table (tables without events are left out)."""
        ev = s.events
        if not table_ids:
            return {}
        q = select(ev.c.table_id, func.max(ev.c.seq)).where(ev.c.table_id.in_(table_ids)).group_by(ev.c.table_id)
        with self.storage.engine.connect() as c:
            return {r[0]: int(r[1]) for r in c.execute(q)}


__all__ = ["Lease", "LeaseLost", "Leases"]
