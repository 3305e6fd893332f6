"""The running tables: one table pipeline (load, authorize, check the version, apply, persist, publish,
schedule bots and turn timers), per-viewer broadcasting, bots in seats and turn timers.

The hub is composed with two parts (``spades.server.parts``): an ``Ownership`` (which tables this process
may change) and a ``Bus`` (the other processes). One process and a cluster run this same code: one
process with ``LocalOwnership`` and ``NoBus``, a cluster with the lease ownership and the Redis bus of
``spades.server.cluster``.

Everything that changes a table runs under that table's lock, so events are numbered, stored and sent
in one order. The database runs on one worker thread, bots on another pool: the event loop never
waits on either while holding up other tables.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from spades.ai.base import LEVELS, Bot, Decision
from spades.ai.suggest import suggest
from spades.core.actions import Action
from spades.core.errors import SpadesError
from spades.core.view import HandView, action_to_dict, view_hand
from spades.server.accounts import AttemptLimiter, LocalLimiter, LoginLimiter
from spades.server.config import COMMIT_GATHER
from spades.server.parts import Bus, LocalOwnership, NoBus, Ownership, Published
from spades.server.protocol import (
    MAX_CHAT,
    PROTOCOL_VERSION,
    ProtocolError,
    clean_chat,
    client_id_of,
    encode_message,
    event_message,
    full_state,
    parse_action,
    project_event,
    table_payloads,
)
from spades.server.table import Seat, TableState
from spades.storage.base import (
    DuplicateError,
    EventLog,
    EventRow,
    GameSeat,
    PlayerRow,
    Storage,
    StorageBusy,
    TableRow,
)
from spades.storage.lease import LeaseLost
from spades.storage.sql import is_busy

log = logging.getLogger("spades.server")
T = TypeVar("T")

HINT_LEVEL = "normal"
"""The level that answers a player's hint: rules of thumb, well under a millisecond (an inline level)."""
INLINE_LEVELS = frozenset({"random", "easy", "normal"})
"""Levels that decide by rules of thumb in well under a millisecond (``benchmarks/README.md``, Bots): they
run on the event loop, since handing them to a thread costs more than the decision (and the thread
would hold the same interpreter lock anyway). Searching levels run on the bot pool."""
OUTBOX_LIMIT = 2000
"""Messages queued for one connection before it is considered stuck and closed."""
RESTART_GRACE = 5.0
"""Seconds (times ``time_scale``, and at most the turn's length) a turn has at least after a restart: a
deadline that passed while the server was down, or was about to, moves to this much after the start,
so the player's client can reconnect and act; a later deadline stays where it was."""
CHANGES = frozenset({"action", "sit", "stand", "fill", "chat", "seed"})
"""Client messages that change a table: only its owner handles them (``Ownership``; in a cluster another
process's socket has them forwarded over the ``Bus``)."""


BotLevels = Mapping[str, Callable[[int | None], Bot]]
"""The bot levels a hub offers, by name, each a factory making a bot from a seed. The hub makes its bots
only from these (``Hub(bots=...)``; the default is ``spades.ai.LEVELS``, every level of the package)."""


def default_level(levels: BotLevels = LEVELS) -> str:
    """The bot level that stands in for absent players: ``normal`` when it exists."""
    return "normal" if "normal" in levels else next(iter(levels))


GATHER_SIBLINGS = 2
"""Tables whose rows must be waiting as a write ends for the next one to gather (PostgreSQL's
``commit_siblings``): a lightly loaded server, where one table's rows at a time wait, writes at once (at
1,000 players gathering after a single table's rows took the median acknowledgement from 1.2 to 2.1 ms,
after two tables' 1.4 ms, for the same CPU)."""

GATHER_TABLES = 100
"""A group commit with this many tables' rows waiting is written without gathering more."""


class Outbox:
    """A socket's encoded messages waiting for its writer, in order; ``None`` asks it to close.

    A list and a flag: ``busy`` while anything is queued or the writer is still sending what it took (a
    message may be written past the writer only when it is not). The writer is a task that runs only
    while there is something to send (``Conn.wake``): most messages are written at once
    (``Conn.send_text``), and a task waiting for the rare one, with its coroutine and its future, was
    about 0.7 KiB of every socket open for a whole game (issue 19)."""

    __slots__ = ("_items", "_sending")

    def __init__(self) -> None:
        self._items: list[str | None] = []
        self._sending = False

    def __len__(self) -> int:
        return len(self._items)

    @property
    def busy(self) -> bool:
        return self._sending or bool(self._items)

    def put(self, item: str | None) -> None:
        self._items.append(item)

    def take_now(self) -> list[str | None]:
        """Everything queued, oldest first (maybe nothing); the outbox stays ``busy`` until ``sent``."""
        items, self._items = self._items, []
        self._sending = bool(items)
        return items

    def sent(self) -> None:
        """The writer has sent (or given up on) everything it took."""
        self._sending = False


@dataclass(eq=False)
class Conn:
    """One WebSocket at one table. ``outbox`` holds encoded messages for the writer (``wake``)."""

    player: PlayerRow | None
    table_id: str
    outbox: Outbox = field(default_factory=Outbox)
    attached: bool = False
    seeds: bool = False
    """The client said ``"seeds": true`` in ``hello``: it sends a client seed after each commitment, and
    a deal waits (up to the seed window) for its player's seed."""
    closed: bool = False
    close_code: int | None = None
    session: str | None = None
    """The session token the socket was opened with (``Hub.close_session`` closes it at logout)."""
    write_now: Callable[..., bool] | None = None
    """Writes messages (text arguments, in one write) to the socket at once if they can be written at once
    (``True``), from the server's protocol (``spades.server.socket_protocol.SEND_NOW``); ``None`` under a
    server without it."""
    wake: Callable[[], None] | None = None
    """Starts the socket's writer, unless it runs, when a message is queued (``Outbox``); ``None``: the
    outbox is read by other means (the tests' connections)."""
    held: list[str] | None = None
    """Messages kept back while the socket's own action is stored and sent (``hold``), for one write."""

    def hold(self) -> None:
        """Keep back what is sent to this socket until ``flush``: the sender of an action gets the event and
        its ``ack`` in one write instead of two (a write is a system call: about 6 µs, issue 19)."""
        if self.held is None:
            self.held = []

    def flush(self) -> None:
        """Send what ``hold`` kept back, in order (written at once together when the socket can take them)."""
        texts, self.held = self.held, None
        if texts and not self.closed:
            self._write(texts)

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message (a stuck client that never reads is closed)."""
        if not self.closed:
            self.send_text(encode_message(message))

    def send_text(self, text: str) -> None:
        """Send an encoded message (one encoding serves every connection that gets the same payload): written
        to the socket at once when nothing is waiting before it and the socket can take it, else queued for
        the writer task, which waits while the socket cannot (a stuck client that never reads is closed).
        Writing at once spares a table's event a wake of each socket's writer, and an ASGI ``send`` each
        (issue 19)."""
        if self.closed:
            return
        if self.held is not None:
            self.held.append(text)
            return
        self._write((text,))

    def _write(self, texts: tuple[str, ...] | list[str]) -> None:
        # At once when nothing waits before them and the socket can take them, else queued for the writer.
        outbox = self.outbox
        if self.write_now is not None and not outbox.busy and self.write_now(*texts):
            return
        for text in texts:
            if len(outbox) >= OUTBOX_LIMIT:
                self.close(1008)
                return
            outbox.put(text)
        if self.wake is not None:
            self.wake()

    def error(self, code: str, reason: str, cid: str | None = None, extra: dict[str, Any] | None = None) -> None:
        """Send an error message (``extra``: more fields, such as a quota's ``retry_after``)."""
        msg: dict[str, Any] = {**(extra or {}), "type": "error", "code": code, "reason": reason}
        if cid is not None:
            msg["id"] = cid
        self.send(msg)

    def close(self, code: int) -> None:
        """Ask the writer to close the socket."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            held, self.held = self.held, None
            for text in held or ():  # (what was kept back goes before the close)
                self.outbox.put(text)
            self.outbox.put(None)
            if self.wake is not None:
                self.wake()


class Hub:
    """All tables of one server process."""

    def __init__(self, storage: Storage, *, ownership: Ownership | None = None, bus: Bus | None = None,
                 bots: BotLevels | None = None,
                 bot_delay: float = 0.6, bot_think: float = 2.0,
                 time_scale: float = 1.0, clock: Callable[[], float] = time.time,
                 resume_window: int = 64, seed_seconds: float = 4.0, storage_wait: float = 5.0,
                 idle_table_seconds: float = 1800.0, commit_gather: float = COMMIT_GATHER) -> None:
        self.storage = storage
        """Tables, accounts and finished games."""
        self.ownership: Ownership = ownership if ownership is not None else LocalOwnership()
        """Which tables this process may change (``LocalOwnership``: all of them)."""
        self.bus: Bus = bus if bus is not None else NoBus()
        """The other processes (``NoBus``: there are none)."""
        self.log: EventLog = self.ownership.event_log(storage)
        """Where the tables' events are read and written: the storage itself, or a wrapper around its log
        (a cluster fences every write with the table's lease: ``spades.server.cluster.FencedLog``)."""
        self.levels: BotLevels = bots if bots is not None else LEVELS
        """The bot levels offered here and the factories the hub makes its bots with."""
        self.storage_wait = storage_wait
        """How long a call waits for the database (``ServerConfig.storage_wait``) before ``StorageBusy``."""
        self.idle_table_seconds = idle_table_seconds
        self.commit_gather = commit_gather
        """Seconds the group commit gathers rows while moves keep coming (``COMMIT_GATHER``; 0: never)."""
        self.used: dict[str, float] = {}
        """When each table in memory was last loaded, used or changed (monotonic clock): see ``evict_idle``."""
        self.quotas: Any = None
        """The server's ``spades.server.quotas.Quotas`` (set by the app): chat lines per player."""
        self.bot_delay = bot_delay
        self.bot_think = bot_think
        self.time_scale = time_scale
        self.clock = clock
        self.resume_window = resume_window
        self.seed_seconds = seed_seconds
        self.seed_timers: dict[str, tuple[int, asyncio.TimerHandle]] = {}
        """Per table waiting for client seeds: the hand and the timer that deals it when the window ends."""
        self.db_pool = ThreadPoolExecutor(1, thread_name_prefix="spades-db")
        self.bot_pool = ThreadPoolExecutor(2, thread_name_prefix="spades-bot")
        self.tables: dict[str, TableState] = {}
        self.conns: dict[str, set[Conn]] = defaultdict(set)
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.armed: dict[str, tuple[Any, ...]] = {}
        """What each table's timer is armed for: a bot's move or a turn's deadline, at one game event."""
        self.deadlines: dict[str, float] = {}
        """Turn deadlines (wall clock, like the log's times)."""
        self.grace: dict[str, tuple[int, float]] = {}
        """Tables resumed at start: (the game event then, the earliest deadline of that turn)."""
        self.bots: dict[tuple[str, int, str], Bot] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self._pending: list[tuple[str, list[EventRow], asyncio.Future[None]]] = []
        self._writing = False
        self._handlers = {"action": self._action, "sit": self._sit, "stand": self._stand, "fill": self._fill,
                          "chat": self._chat, "hint": self._hint, "seed": self._seed}
        self.ownership.bind(self)
        self.bus.bind(self)

    # ------------------------------------------------------------------ plumbing

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a storage call on the database thread; ``StorageBusy`` when the database is locked or does
        not answer within about ``storage_wait`` seconds (SQLite gives up on a lock after that long; a
        stalled call is given two seconds more, and a call still queued behind it is dropped)."""
        fut = asyncio.get_running_loop().run_in_executor(self.db_pool, partial(fn, *args))
        try:
            return await asyncio.wait_for(fut, self.storage_wait + 2.0)
        except TimeoutError:
            raise StorageBusy(f"the database did not answer in {self.storage_wait + 2.0:g} s") from None
        except Exception as e:
            if is_busy(e) and not isinstance(e, StorageBusy):
                raise StorageBusy(str(e)) from e
            raise

    async def _store(self, table_id: str, rows: list[EventRow]) -> None:
        """Store a table's new rows; returns once they are committed (raises what kept them out).

        Group commit: while the database thread writes one transaction, the rows of every table that
        arrive meanwhile wait and go together in the next one, so a busy server makes one write (and one
        thread hand-off) for many actions, and an idle one writes at once. While moves keep coming (the
        rows of several tables are waiting when a write ends) the next write also waits ``commit_gather``
        seconds for more (``COMMIT_GATHER``)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((table_id, rows, fut))
        if not self._writing:
            self._writing = True
            self.spawn(self._write_pending())
        await fut

    async def _write_pending(self) -> None:
        try:
            wrote = False
            while self._pending:
                if wrote and self.commit_gather > 0 and GATHER_SIBLINGS <= len(self._pending) < GATHER_TABLES:
                    await asyncio.sleep(self.commit_gather)  # moves keep coming: gather more of them
                wrote = True
                batch, self._pending = self._pending, []
                try:
                    errors = await self.db(self.log.append_many, [(tid, rows) for tid, rows, _ in batch])
                except Exception as e:
                    errors = [e] * len(batch)
                for (_, _, fut), err in zip(batch, errors, strict=True):
                    if fut.done():
                        continue
                    if err is None:
                        fut.set_result(None)
                    else:
                        fut.set_exception(StorageBusy(str(err)) if is_busy(err) else err)
        finally:
            self._writing = False

    async def start(self) -> None:
        """Start the bus (it hears the other processes from now on), then the ownership (one process:
        every unfinished table is taken up again; a cluster: the lease loop, which takes ownerless
        tables), and the sweep of idle tables."""
        await self.bus.start()
        await self.ownership.start()
        self.spawn(self._sweep())

    async def take_up(self, table_id: str, *, restarted: bool) -> TableState | None:
        """Run a table here as its owner (the caller holds its lock): rebuild it from the log, keep a
        finished game's record, give the turn in progress its grace when nobody ran the table for a
        while (``restarted``: after a restart or a takeover; see ``RESTART_GRACE``), open a waiting
        deal's seed window again, arm its bots and timers, and tell the other processes. ``None``: no
        such table."""
        t = await self._rebuild(table_id)
        if t is None:
            return None
        if t.over:
            try:
                await self._finish(t)
            except Exception:  # the over event is stored: the next take-up finishes the game
                log.exception("could not keep the finished game of table %s", t.id)
        seconds = t.settings.get("turn_seconds")
        if seconds and restarted:  # the turn goes on from its stored start
            grace = min(float(seconds), RESTART_GRACE) * self.time_scale
            self.grace[t.id] = (t.last_game_seq, self.clock() + grace)
        if t.pending is not None:  # reconnecting players get the seed window again
            self._arm_seed_timer(t)
        self.schedule(t)
        self.bus.publish(t.id, Published([], sorted(t.away), self.turn_left(t.id), info=True))
        await self.bus.list_table(t)
        return t

    async def stop(self) -> None:
        """Hand the tables over (a cluster releases every lease and says so), stop the bus, then the
        timers and worker threads."""
        await self.ownership.stop()
        await self.bus.stop()
        for h in self.timers.values():
            h.cancel()
        for _, h in self.seed_timers.values():
            h.cancel()
        for task in list(self.tasks):
            task.cancel()
        self.db_pool.shutdown(wait=True)
        self.bot_pool.shutdown(wait=False, cancel_futures=True)

    def spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _load(self, table_id: str) -> TableState | None:
        self.used[table_id] = time.monotonic()
        t = self.tables.get(table_id)
        if t is not None:
            return t
        row = await self.db(self.storage.get_table, table_id)
        if row is None:
            return None
        events = await self.db(self.log.load_events, table_id)
        t = TableState(row, self.clock)
        t.replay(events)
        self.tables[table_id] = t
        return t

    def default_level(self) -> str:
        """The level of the bots that stand in for absent players (``normal`` when offered)."""
        return default_level(self.levels)

    async def create_table(self, row: TableRow, seats: list[tuple[int, Seat]]) -> TableState:
        """Store a new table, own it here (``Ownership.adopt``), and seat ``seats`` (persisted and broadcast
        like any seat change, so a table full of bots is dealt at once)."""
        await self.db(self.storage.create_table, row)
        await self.ownership.adopt(row.id)
        async with self.locks[row.id]:
            t = await self._load(row.id)
            if t is None:
                raise LookupError(f"table {row.id} was stored but cannot be loaded")
            if seats:
                await self._commit(t, t.seat_rows(seats))
        return t

    async def table(self, table_id: str) -> TableState | None:
        """A table, loaded from the log if it is not in memory."""
        t = self.tables.get(table_id)
        if t is not None:
            self.used[table_id] = time.monotonic()
            return t
        async with self.locks[table_id]:
            return await self._load(table_id)

    def evict_idle(self) -> list[str]:
        """Drop from memory the tables nobody uses (``idle_table_seconds``): no socket here, no bot move,
        turn timer or seed window armed, not being changed, and not used for that long (a finished
        table: for a minute at most). Their log is the truth: any use (``hello``, the lobby, a record)
        loads them again exactly. Returns the ids dropped."""
        now = time.monotonic()
        out = []
        for tid, t in list(self.tables.items()):
            lock = self.locks.get(tid)
            idle = min(self.idle_table_seconds, 60.0) if t.over else self.idle_table_seconds
            if (self.conns.get(tid) or tid in self.armed or tid in self.seed_timers
                    or (lock is not None and lock.locked()) or now - self.used.get(tid, 0.0) < idle):
                continue
            del self.tables[tid]
            for d in (self.used, self.conns, self.locks, self.deadlines, self.grace, self.timers):
                d.pop(tid, None)
            for key in [k for k in self.bots if k[0] == tid]:
                del self.bots[key]
            out.append(tid)
        if out:
            log.info("dropped %d idle tables from memory", len(out))
        return out

    async def _sweep(self) -> None:
        """Drop idle tables from memory now and then (``evict_idle``)."""
        period = min(60.0, max(0.05, self.idle_table_seconds / 4))
        while True:
            await asyncio.sleep(period)
            try:
                self.evict_idle()
            except Exception:
                log.exception("could not drop idle tables")

    async def _commit(self, t: TableState, rows: list[EventRow]) -> None:
        """The pipeline's last steps, on the table's owner: persist rows (the acknowledgement comes after
        this), then schedule bots and timers, broadcast to the sockets here, publish to the other
        processes (``Bus.publish``, and the shared lobby when seats, a deal or the end changed it). When
        the write fails, the in-memory table (already ahead) is thrown away and rebuilt from the log;
        when it failed because another process owns the table now (``LeaseLost``), this one stops acting
        for it and keeps a replica for its sockets.

        A waiting deal whose client seeds are all in is dealt first, in the same batch (``_settle``).
        A replica never writes (nor deals: the owner settles its deals): rows made on one raise
        ``LeaseLost`` and the replica is rebuilt."""
        if not self.ownership.owns(t.id):
            if not rows:
                return
            self.spawn(self._follow_or_forget(t.id))  # the caller changed the replica: rebuild it
            raise LeaseLost(f"table {t.id} is not owned by this process")
        self._settle(t, rows)
        if not rows:
            return
        self.used[t.id] = time.monotonic()
        try:
            await self._store(t.id, rows)
        except Exception as e:
            self.tables.pop(t.id, None)
            self.armed.pop(t.id, None)
            lost = isinstance(e, LeaseLost) and self._disown(t.id)
            try:
                fresh = await self._load(t.id)
            except StorageBusy:  # the log cannot be read now either: rebuild the table when it can
                self.spawn(self._revive(t.id))
            else:
                if fresh is not None:
                    self.schedule(fresh)
            if lost:  # under the table's lock: the replica is made afterwards
                self.spawn(self._follow_or_forget(t.id))
            raise
        if t.over:
            try:
                await self._finish(t)  # the record is kept before anybody hears the game is over
            except Exception:  # the over event is stored: the next start finishes the game
                log.exception("could not keep the finished game of table %s", t.id)
        self.schedule(t)  # first, so that the state sent carries the new turn's deadline
        self._broadcast(t, rows)
        if self.bus.replicas:
            self.bus.publish(t.id, Published(rows, sorted(t.away), self.turn_left(t.id)))
        for r in rows:  # (a loop, not a generator: this runs for every event)
            if r.kind == "seat" or r.kind == "deal" or r.kind == "over":
                await self.bus.list_table(t)
                break
        if t.over:
            await self.ownership.finished(t.id)

    def turn_left(self, table_id: str) -> float | None:
        """Seconds left on the table's turn clock (``None``: none runs)."""
        d = self.deadlines.get(table_id)
        return None if d is None else max(0.0, d - self.clock())

    # ------------------------------------------------------------------ owning and following

    def disarm(self, table_id: str) -> None:
        """Cancel the table's bot move or turn timer and its seed window."""
        h = self.timers.pop(table_id, None)
        if h is not None:
            h.cancel()
        self.deadlines.pop(table_id, None)
        self.armed.pop(table_id, None)
        seed_timer = self.seed_timers.pop(table_id, None)
        if seed_timer is not None:
            seed_timer[1].cancel()

    def _disown(self, table_id: str) -> bool:
        """Stop acting as the table's owner (no lock needed); ``False`` if it was not owned."""
        if not self.ownership.drop(table_id):
            return False
        self.disarm(table_id)
        return True

    async def lost(self, table_id: str) -> None:
        """Another process owns the table now: stop acting for it here, and keep a replica of it for the
        sockets here (``follow``)."""
        if self._disown(table_id):
            await self._follow_or_forget(table_id)

    async def _follow_or_forget(self, table_id: str) -> None:
        """Rebuild the replica of a table another process owns, when sockets here watch it; else drop it."""
        async with self.locks[table_id]:
            if self.bus.watches(table_id):
                await self._rebuild(table_id)
            else:
                self.tables.pop(table_id, None)

    async def _rebuild(self, table_id: str) -> TableState | None:
        """Replace the table in memory by its log replayed (the caller holds its lock), and send the sockets
        here the events they had not had."""
        old = self.tables.pop(table_id, None)
        t = await self._load(table_id)
        if t is not None and old is not None and t.seq > old.seq:
            missed = await self.missed_since(t, old.seq)
            if missed:
                self._broadcast(t, missed)
        return t

    async def missed_since(self, t: TableState, last: int) -> list[EventRow] | None:
        """The table's events after number ``last`` up to its own last (the caller holds its lock): from
        memory when the table still keeps them (``table.EVENTS_KEEP``), else from the log; ``None`` when
        they cannot be had now (the log cannot be read, or does not hold them all)."""
        kept = t.events_after(last)
        if kept is not None:
            return kept
        try:
            rows = await self.db(self.log.load_events, t.id, last)
        except Exception:
            log.warning("could not read the events of table %s after %d: a snapshot instead", t.id, last)
            return None
        rows = [r for r in rows if r.seq <= t.seq]  # (a replica's log may be ahead of it)
        if not rows or rows[0].seq != last + 1 or rows[-1].seq != t.seq:
            return None
        return rows

    async def follow(self, table_id: str, update: Published | None) -> bool:
        """The replica path, for a table another process owns: bring the copy here up to date with what
        its owner published (``update``), or from the log when rows are missing (``None``: just compare
        with the log), and send the sockets here their own projections. ``True`` when rows had to be
        read from the log (a gap filled)."""
        async with self.locks[table_id]:
            t = self.tables.get(table_id)
            if t is None or self.ownership.owns(table_id):
                return False
            rows = None if update is None else update.rows
            fresh = [r for r in rows or [] if r.seq > t.seq]
            filled = False
            if rows is None or (fresh and fresh[0].seq != t.seq + 1):
                fresh = await self.db(self.log.load_events, table_id, t.seq)
                filled = bool(fresh)
            try:
                for r in fresh:
                    t.apply_row(r)
            except Exception:
                log.exception("the replica of table %s does not follow its log: rebuilt", table_id)
                await self._rebuild(table_id)
                return filled
            if update is not None:
                t.away = set(update.away)
                if update.left is None:
                    self.deadlines.pop(table_id, None)
                else:
                    self.deadlines[table_id] = self.clock() + float(update.left)
            if fresh:
                self._broadcast(t, fresh)
            elif update is not None and update.info:
                self._send_info_here(t)
            return filled

    def unfollow(self, table_id: str) -> None:
        """No socket here watches the table any more: drop it from memory unless this process owns it."""
        if not self.ownership.owns(table_id):
            self.tables.pop(table_id, None)
            self.deadlines.pop(table_id, None)
            self.ownership.forget(table_id)

    async def seat_back(self, table_id: str, seat: int) -> None:
        """The player of ``seat``, marked away, is back (on another process's socket): as the owner, the
        bot hands the seat over."""
        async with self.locks[table_id]:
            t = self.tables.get(table_id)
            if t is None or not self.ownership.owns(table_id) or seat not in t.away:
                return
            self._back(t, seat)

    def _back(self, t: TableState, seat: int) -> None:
        t.away.discard(seat)
        self.send_table_info(t)
        self.schedule(t)

    async def _tell_owner_back(self, table_id: str, seat: int) -> None:
        owner = await self.ownership.owner_of(table_id)
        if owner is not None and owner != self.ownership.node:
            self.bus.tell_back(owner, table_id, seat)

    async def _revive(self, table_id: str) -> None:
        """Rebuild a table dropped after a failed write from its log, retrying while the database is busy,
        and set its bots and timers going again."""
        while self.ownership.owns(table_id):
            try:
                async with self.locks[table_id]:
                    t = await self._load(table_id)
                    if t is not None:
                        self.schedule(t)
                return
            except StorageBusy:
                await asyncio.sleep(self.storage_wait)

    async def ready(self) -> bool:
        """The database can be written now (``/readyz``): a probe that writes nothing, bounded in time."""
        probe = getattr(self.storage, "probe", None)
        if probe is None:
            return True
        try:
            await asyncio.wait_for(self.db(probe, min(1.0, self.storage_wait)), max(2.0, self.storage_wait))
        except Exception:
            return False
        return True

    # ------------------------------------------------------------------ client seeds

    def waiting_for_seeds(self, t: TableState) -> list[int]:
        """The seats the waiting deal still waits for (up to the seed window): a seated player, not away,
        with no seed sent yet, who has a connection that said ``"seeds": true``, or, for the first hand
        only, no connection yet (a table made over HTTP, "Play now", is dealt once its player's page has
        had the chance to send a seed), or whose socket on another process sends seeds (``Bus.seeders``).
        Other seats get the documented defaults."""
        if t.pending is None:
            return []
        sent = set(t.seats_sent())
        remote = self.bus.seeders(t.id)
        out = []
        for i, s in enumerate(t.seats):
            if s.player is None or i in t.away or i in sent:
                continue
            mine = [c for c in self.conns[t.id]
                    if c.attached and not c.closed and c.player is not None and c.player.id == s.player]
            if any(c.seeds for c in mine) or s.player in remote or (not mine and t.pending["hand"] == 0):
                out.append(i)
        return out

    def _settle(self, t: TableState, rows: list[EventRow], force: bool = False) -> None:
        """Deal the waiting hand (appending its row to ``rows``) when every seat is filled and no seed is
        awaited any more, or when ``force`` (the seed window is over); otherwise keep the window's timer
        running."""
        if t.pending is None or t.over or any(s.empty for s in t.seats):
            return
        if not force and self.waiting_for_seeds(t):
            self._arm_seed_timer(t)
            return
        rows.append(t.deal_row())
        timer = self.seed_timers.pop(t.id, None)
        if timer is not None:
            timer[1].cancel()

    def _arm_seed_timer(self, t: TableState) -> None:
        """Start the seed window of the waiting deal, unless it is already running."""
        assert t.pending is not None
        hand = t.pending["hand"]
        old = self.seed_timers.get(t.id)
        if old is not None and old[0] == hand:
            return
        if old is not None:
            old[1].cancel()
        delay = self.seed_seconds * self.time_scale
        handle = asyncio.get_running_loop().call_later(delay, lambda: self.spawn(self._seed_timeout(t.id, hand)))
        self.seed_timers[t.id] = (hand, handle)

    async def _seed_timeout(self, table_id: str, hand: int) -> None:
        """The seed window is over: deal with the seeds that came in (defaults for the others)."""
        try:
            async with self.locks[table_id]:
                timer = self.seed_timers.get(table_id)
                if timer is not None and timer[0] == hand:
                    del self.seed_timers[table_id]
                t = self.tables.get(table_id)
                if t is None or t.pending is None or t.pending["hand"] != hand:
                    return
                rows: list[EventRow] = []
                self._settle(t, rows, force=True)
                await self._commit(t, rows)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not deal at table %s after the seed window", table_id)

    async def _seed(self, conn: Conn, player: PlayerRow, msg: dict[str, Any]) -> None:
        """A seated player's client seed for the waiting deal (``docs/fair-dealing.md``)."""
        cid = client_id_of(msg, required=False)
        async with self.locks[conn.table_id]:
            t = await self._table_once(conn, player, cid)
            if t is None:
                return
            seat = t.seat_of(player.id)
            if seat is None:
                raise ProtocolError("not_seated", "only a seated player contributes a client seed")
            if "seat" in msg and msg["seat"] != seat:
                raise ProtocolError("not_your_seat",
                                    f"you sit at seat {seat}: you cannot send a seed for seat {str(msg['seat'])[:20]}")
            if t.over:
                raise ProtocolError("over", "the game is over")
            row = t.seed_row(seat, player.id, msg.get("hand"), msg.get("commitment"), msg.get("seed"), cid)
            await self._commit(t, [row])
            if cid is not None:
                conn.send({"type": "ack", "id": cid, "seq": row.seq})

    # ------------------------------------------------------------------ sending

    def viewer_of(self, t: TableState, conn: Conn) -> int | None:
        """The seat a connection sees the table from (``None``: a spectator)."""
        return t.seat_of(conn.player.id) if conn.player else None

    def state(self, t: TableState, viewer: int | None) -> dict[str, Any]:
        """The per-viewer state: ``TableState.game_state`` plus the turn clock."""
        return full_state(self.public_state(t), t.own_fields(viewer))

    def public_state(self, t: TableState) -> dict[str, Any]:
        """What every viewer's state shares (``TableState.public_state``) plus the turn clock."""
        st = t.public_state()
        deadline = self.deadlines.get(t.id)
        now = self.clock()
        st["turn"] = {"seat": t.to_act(),
                      "seconds_left": None if deadline is None else round(max(0.0, deadline - now), 2)}
        left = t.game_seconds_left(now)
        st["game_seconds_left"] = None if left is None else round(left, 2)
        return st

    def _broadcast(self, t: TableState, rows: list[EventRow]) -> None:
        """Send rows to every connection: each distinct payload (one per seat looking, one for all the
        spectators) is built and encoded once."""
        # The table's description goes along when a seat or its status changed (the first deal may come
        # after the seat changes, once the client seeds are in).
        # (Loops, not generators: this runs for every event.)
        info = None
        for r in rows:
            kind = r.kind
            if kind == "seat" or kind == "claim" or (kind == "deal" and r.data.get("hand") == 0):
                info = t.info()
                break
        conns = list(self.conns[t.id])
        if not conns:
            t.shown = None  # nobody to send to: whoever comes gets a whole state first
            return
        viewers = [self.viewer_of(t, conn) for conn in conns]
        rules = t.rules
        clock_free = t.id not in self.deadlines and rules.time_limit_minutes is None
        hands = t.game.hands
        texts, t.shown = table_payloads(rows, rules.layout, viewers, hands[-1] if hands else None, t.own_fields,
                                        t.shown, partial(self.public_state, t), info, clock_free)
        for conn, viewer in zip(conns, viewers, strict=True):
            for text in texts[viewer]:
                conn.send_text(text)

    def send_table_info(self, t: TableState) -> None:
        """Send the table's description to its sockets here, and (as its owner) publish it."""
        self._send_info_here(t)
        if self.ownership.owns(t.id):
            self.bus.publish(t.id, Published([], sorted(t.away), self.turn_left(t.id), info=True))

    def _send_info_here(self, t: TableState) -> None:
        info = t.info()
        for conn in list(self.conns[t.id]):
            conn.send({"type": "table", "seq": t.seq, "table": info})

    # ------------------------------------------------------------------ connections

    async def hello(self, conn: Conn, msg: dict[str, Any]) -> None:
        """Attach a connection to its table and catch it up (events since ``last_seq``, or a snapshot).
        The bus watches the table first (in a cluster: subscribed before the load, so nothing published
        after it is missed); a returning player marked away gets the seat back from the bot (told to the
        owner when another process owns the table)."""
        if msg.get("v") != PROTOCOL_VERSION:
            raise ProtocolError("version", f"this server speaks protocol version {PROTOCOL_VERSION}")
        if conn.attached:
            raise ProtocolError("already", "hello was already received on this connection")
        last = msg.get("last_seq")
        if last is not None and (not isinstance(last, int) or isinstance(last, bool)):
            raise ProtocolError("malformed", "\"last_seq\" must be an event number or null")
        seeds = msg.get("seeds", False)
        if not isinstance(seeds, bool):
            raise ProtocolError("malformed", "\"seeds\" must be true (this client sends client seeds) or false")
        await self.bus.watch(conn)
        async with self.locks[conn.table_id]:
            t = await self._load(conn.table_id)
            if t is None:
                raise ProtocolError("no_table", "there is no such table")
            pid = conn.player.id if conn.player else None
            invited = msg.get("invite") is not None and msg.get("invite") == t.row.invite_code
            member = pid is not None and (pid == t.row.created_by or t.seat_of(pid) is not None
                                          or any(pid in (s.reserved, s.waiting) for s in t.seats))
            if not t.row.public and not invited and not member:
                raise ProtocolError("forbidden", "this table is private: open it with its invite link")
            viewer = self.viewer_of(t, conn)
            conn.send({"type": "welcome", "v": PROTOCOL_VERSION, "seq": t.seq,
                       "you": {"player": pid, "name": conn.player.name if conn.player else None, "seat": viewer},
                       "table": t.info()})
            if last is not None and not 0 <= last <= t.seq:
                conn.error("bad_last_seq", f"there is no event {last} here: the last is {t.seq}; here is a snapshot")
                last = None
            missed = None if last is None or t.seq - last > self.resume_window else await self.missed_since(t, last)
            if missed is None:
                conn.send(self.snapshot(t, viewer))
            elif last == t.seq:
                conn.send({"type": "state", "seq": t.seq, "state": self.state(t, viewer)})
            else:
                for i, r in enumerate(missed):
                    m = event_message(r.seq, project_event(r, viewer, t.rules.layout))
                    if i == len(missed) - 1:
                        m["state"] = self.state(t, viewer)
                        m["table"] = t.info()
                    conn.send(m)
            conn.attached = True
            conn.seeds = seeds
            self.conns[t.id].add(conn)
            if t.pending is not None and not seeds:
                await self._commit(t, [])  # a client without seeds: the deal need not wait for it
            if viewer is not None and viewer in t.away:  # the player is back: the bot hands the seat over
                self._back(t, viewer)
                if not self.ownership.owns(t.id):
                    self.spawn(self._tell_owner_back(t.id, viewer))
        self.bus.attached(conn)

    def snapshot(self, t: TableState, viewer: int | None) -> dict[str, Any]:
        """Everything a viewer may know now, in one message."""
        return {"type": "snapshot", "seq": t.seq, "table": t.info(), "state": self.state(t, viewer),
                "chat": list(t.chat)}

    def detach(self, conn: Conn) -> None:
        """Forget a closed connection."""
        self.conns[conn.table_id].discard(conn)
        self.bus.detached(conn)

    def connected(self, t: TableState, seat: int) -> bool:
        """Some connection of the seat's player is open."""
        pid = t.seats[seat].player
        return pid is not None and any(c.player and c.player.id == pid for c in self.conns[t.id])

    async def seat_connected(self, t: TableState, seat: int) -> bool:
        """Some connection of the seat's player is open, here or on another process (``Bus.present``)."""
        return self.connected(t, seat) or await self.bus.present(t, seat)

    async def lobby(self, limit: int = 100) -> list[dict[str, Any]]:
        """Open public tables, newest first (the bus's shared lobby, or the storage's)."""
        shared = await self.bus.lobby(limit)
        if shared is not None:
            return shared
        out = []
        for r in await self.db(self.storage.public_tables, limit):
            t = await self.table(r.id)
            if t is not None:
                out.append(t.info())
        return out

    def close_session(self, token: str) -> None:
        """Close the sockets opened with a session that has ended (logout, a new login): this process's,
        and (``Bus.session_closed``) every other process's."""
        for conns in self.conns.values():
            for c in list(conns):
                if c.session == token:
                    c.close(4001)
        self.bus.session_closed(token)

    def login_limiter(self, limit: int, window: float) -> LoginLimiter:
        """Counts failed logins (the bus's, shared by every process, or this process's own)."""
        shared = self.bus.login_limiter(limit, window)
        return shared if shared is not None else LocalLimiter(AttemptLimiter(limit, window))

    def status(self) -> dict[str, Any] | None:
        """What the parts report (a cluster process's node id, tables and counters) with the tables in
        memory; ``None`` for a single process."""
        own, bus = self.ownership.status(), self.bus.status()
        if own is None and bus is None:
            return None
        return {**(own or {}), **(bus or {}), "in_memory": sorted(self.tables)}

    async def handle(self, conn: Conn, msg: dict[str, Any]) -> None:
        """One client message after ``hello``."""
        kind = msg["type"]
        if kind == "ping":
            conn.send({"type": "pong"})
            return
        if kind == "hello":
            try:
                await self.hello(conn, msg)
            except StorageBusy:
                raise ProtocolError("storage_busy", "the database is busy: try again in a few seconds") from None
            return
        if kind == "state":  # a client that missed an event asks for its whole state
            if not conn.attached:
                raise ProtocolError("hello_first", "send hello first")
            async with self.locks[conn.table_id]:
                t = await self._load(conn.table_id)
                if t is None:
                    raise ProtocolError("no_table", "there is no such table")
                conn.send({"type": "state", "seq": t.seq, "state": self.state(t, self.viewer_of(t, conn))})
            return
        self._handler(conn, kind)
        if kind in CHANGES:
            await self._at_owner(conn, msg)
        else:
            await self.serve(conn, msg)

    def _handler(self, conn: Conn, kind: str) -> Callable[[Conn, PlayerRow, dict[str, Any]], Awaitable[None]]:
        if not conn.attached:
            raise ProtocolError("hello_first", "send hello first")
        handler = self._handlers.get(kind)
        if handler is None:
            raise ProtocolError("unknown_type", f"unknown message type {kind[:30]!r}")
        if conn.player is None:
            raise ProtocolError("spectator", "spectators cannot act: open the site to get a player first")
        return handler

    async def _at_owner(self, conn: Conn, msg: dict[str, Any]) -> None:
        """A change goes to its table's owner: handled here when this process owns the table (one process
        owns them all), else forwarded over the bus; sent again to the owner found then when that one
        does not answer, until ``Ownership.retry_for`` has passed (client ids make it exactly-once)."""
        tid = conn.table_id
        budget = time.monotonic() + self.ownership.retry_for
        while True:
            owner = await self.ownership.owner_of(tid)
            if owner == self.ownership.node:
                try:
                    await self.serve(conn, msg)
                    return
                except LeaseLost:
                    await self.lost(tid)
            elif owner is not None:
                if await self.bus.forward(owner, conn, msg):
                    return
                self.ownership.forget(tid)
            if time.monotonic() > budget:
                raise ProtocolError("unavailable", "the table's server is not reachable now: try again")
            await asyncio.sleep(0.1)

    async def serve(self, conn: Conn, msg: dict[str, Any]) -> None:
        """Handle a message after ``hello`` here: a change as the table's owner (from a socket here, or
        forwarded from another process's), anything else from the table in memory."""
        handler = self._handler(conn, msg["type"])
        assert conn.player is not None
        try:
            await handler(conn, conn.player, msg)
        except StorageBusy:  # nothing was stored: the table is as it was before the message
            raise ProtocolError("storage_busy", "the database is busy: nothing was changed, try again in a few "
                                                "seconds") from None

    # ------------------------------------------------------------------ the action path

    async def _table_once(self, conn: Conn, player: PlayerRow, cid: str | None) -> TableState | None:
        """The connection's table (the caller holds its lock), or ``None`` when the message with this
        client id was applied already: that duplicate is acknowledged here, with the first one's number."""
        t = await self._load(conn.table_id)
        if t is None:
            raise ProtocolError("no_table", "there is no such table")
        done = None if cid is None else t.client_ids.get(player.id, cid)
        if done is not None:
            conn.send({"type": "ack", "id": cid, "seq": done, "duplicate": True})
            return None
        return t

    async def _action(self, conn: Conn, player: PlayerRow, msg: dict[str, Any]) -> None:
        cid = client_id_of(msg, required=True)
        assert cid is not None
        async with self.locks[conn.table_id]:
            t = await self._table_once(conn, player, cid)  # load; sent twice: applied once
            if t is None:
                return
            seat = t.seat_of(player.id)  # authenticate: the sender's own seat only
            if seat is None:
                raise ProtocolError("spectator", "you do not sit at this table")
            if t.over:
                raise ProtocolError("over", "the game is over")
            if not t.started:
                raise ProtocolError("not_started", "the game starts when every seat is filled")
            version = msg.get("seq")  # check version: acting on a stale position is refused
            if version is not None:
                if not isinstance(version, int) or isinstance(version, bool):
                    raise ProtocolError("malformed", "\"seq\" must be the last event number you saw")
                if version < t.last_game_seq:
                    raise ProtocolError("stale", f"the game moved on (event {t.last_game_seq}); you saw {version}")
            action = parse_action(msg.get("action"), seat, t.game.hand)
            try:
                rows = t.action_rows(action, "player", player.id, cid)  # checked apply: turn and legality
            except SpadesError as e:
                raise ProtocolError("illegal", str(e)) from None
            conn.hold()  # the event and the ack go to the sender in one write
            try:
                await self._commit(t, rows)  # persist, then broadcast
                conn.send({"type": "ack", "id": cid, "seq": rows[0].seq})
            except DuplicateError:
                raise ProtocolError("conflict", "that action was already stored; catch up and retry") from None
            finally:
                conn.flush()

    async def _seat_change(self, conn: Conn, change: Callable[[TableState], list[EventRow]],
                           cid: str | None) -> None:
        async with self.locks[conn.table_id]:
            t = await self._load(conn.table_id)
            if t is None:
                raise ProtocolError("no_table", "there is no such table")
            rows = change(t)
            await self._commit(t, rows)
            if cid is not None:
                ack: dict[str, Any] = {"type": "ack", "id": cid, "seq": t.seq}
                if rows and rows[0].kind == "claim" and rows[0].data["player"] is not None:
                    ack["waiting"] = rows[0].data["seat"]  # the seat is theirs at the next deal
                conn.send(ack)

    async def _sit(self, conn: Conn, player: PlayerRow, msg: dict[str, Any]) -> None:
        cid = client_id_of(msg, required=False)
        seat = msg.get("seat")

        def change(t: TableState) -> list[EventRow]:
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < t.n:
                raise ProtocolError("malformed", f"\"seat\" must be a seat from 0 to {t.n - 1}")
            if t.over:
                raise ProtocolError("over", "the game is over")
            if t.seat_of(player.id) is not None:
                raise ProtocolError("seated", "you already sit at this table: stand first")
            if t.waiting_seat(player.id) is not None:
                raise ProtocolError("waiting", f"you wait for seat {t.waiting_seat(player.id)} at the next deal: "
                                               "stand to give it up first")
            s = t.seats[seat]
            if s.player is not None:
                raise ProtocolError("taken", f"seat {seat} is taken")
            if s.reserved not in (None, player.id):
                raise ProtocolError("reserved", f"seat {seat} is kept for the player who left it")
            if s.bot is not None and t.started and s.reserved is None and t.settings.get("rated"):
                raise ProtocolError("rated", "a rated game cannot change players")
            return t.sit_rows(seat, player.id, player.name, cid)  # a computer's seat mid-hand: at the next deal

        await self._seat_change(conn, change, cid)

    async def _stand(self, conn: Conn, player: PlayerRow, msg: dict[str, Any]) -> None:
        cid = client_id_of(msg, required=False)

        def change(t: TableState) -> list[EventRow]:
            seat = t.seat_of(player.id)
            if seat is None and t.waiting_seat(player.id) is not None:
                return t.withdraw_rows(player.id)  # no longer waiting for a computer's seat
            if seat is None:
                raise ProtocolError("not_seated", "you do not sit at this table")
            if t.started and not t.over:  # a bot takes over; the seat stays theirs to reclaim
                level = t.settings.get("bot_level") or self.default_level()
                return t.seat_rows([(seat, Seat(None, f"{player.name} (bot)", level, player.id))])
            return t.seat_rows([(seat, Seat())])

        await self._seat_change(conn, change, cid)

    async def _fill(self, conn: Conn, player: PlayerRow, msg: dict[str, Any]) -> None:
        cid = client_id_of(msg, required=False)
        level = msg.get("level") or self.default_level()
        if not isinstance(level, str) or level not in self.levels:
            raise ProtocolError("bad_level", f"\"level\" must be a bot level name, not {str(level)[:20]!r}; "
                                             f"the levels are: {', '.join(self.levels)}")

        def change(t: TableState) -> list[EventRow]:
            if t.seat_of(player.id) is None and player.id != t.row.created_by:
                raise ProtocolError("not_seated", "only the players at the table can call in bots")
            empty = [i for i, s in enumerate(t.seats) if s.empty]
            if not empty:
                raise ProtocolError("full", "every seat is already filled")
            return t.seat_rows([(i, Seat(None, f"Bot {i + 1} ({level})", level, None)) for i in empty])

        await self._seat_change(conn, change, cid)

    async def _chat(self, conn: Conn, player: PlayerRow, msg: dict[str, Any]) -> None:
        cid = client_id_of(msg, required=False)
        text = msg.get("text")
        if not isinstance(text, str):
            raise ProtocolError("malformed", "\"text\" must be a string")
        text = clean_chat(text)
        if not 1 <= len(text) <= MAX_CHAT:
            raise ProtocolError("chat_length", f"a chat line has 1 to {MAX_CHAT} characters")
        wait = None if self.quotas is None else await self.quotas.hit("chat", player.id)  # all their sockets
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            raise ProtocolError("rate_limited", f"too many chat lines: wait {seconds} s", quota="chat",
                                retry_after=seconds)
        async with self.locks[conn.table_id]:
            t = await self._table_once(conn, player, cid)
            if t is None:
                return
            row = t.chat_row(player.id, player.name, text, cid)
            await self._commit(t, [row])
            if cid is not None:
                conn.send({"type": "ack", "id": cid, "seq": row.seq})

    # ------------------------------------------------------------------ bots and timers

    def schedule(self, t: TableState) -> None:
        """Arm the next bot move or the turn timer of the seat to act.

        A turn's deadline is the time its turn started (stored in the log) plus the table's turn length:
        other events (chat, seat changes) do not move it, and after a restart it is where it was (see
        ``RESTART_GRACE``). A timer already armed for the same move is left alone. Only the table's owner
        arms them (the deadline comes from the log, so it is the same on whichever process owns it)."""
        if not self.ownership.owns(t.id):
            return
        seat = t.to_act()
        expect = t.last_game_seq
        key: tuple[Any, ...] | None = None
        delay = 0.0
        deadline: float | None = None
        if seat is not None and t.bot_plays(seat):
            key, delay = ("bot", expect, seat), self.bot_delay
        elif seat is not None and t.settings.get("turn_seconds"):
            deadline = t.turn_started_at + float(t.settings["turn_seconds"]) * self.time_scale
            floor = self.grace.get(t.id)
            if floor is not None and floor[0] == expect:
                deadline = max(deadline, floor[1])
            key = ("turn", expect, seat, deadline)
            delay = max(0.0, deadline - self.clock())
        if t.id in self.grace and self.grace[t.id][0] != expect:
            del self.grace[t.id]  # that turn is over: the grace was for it alone
        if key is not None and self.armed.get(t.id) == key:
            return
        old = self.timers.pop(t.id, None)
        if old is not None:
            old.cancel()
        self.armed.pop(t.id, None)
        self.deadlines.pop(t.id, None)
        if key is None or seat is None:
            return
        self.armed[t.id] = key
        if deadline is not None:
            self.deadlines[t.id] = deadline
        self.timers[t.id] = asyncio.get_running_loop().call_later(
            delay, lambda: self.spawn(self._auto(t.id, expect, seat, key)))

    async def _auto(self, table_id: str, expect: int, seat: int, key: tuple[Any, ...] | None = None) -> None:
        """A bot acts for ``seat``: its own seat, an away player's, or a human's whose time ran out.
        ``key`` is what the timer was armed for: when the table was re-armed meanwhile (an away player
        came back and has the turn again), this move is no longer the bot's to make."""
        try:
            t = self.tables.get(table_id)
            if t is None or t.last_game_seq != expect or t.to_act() != seat:
                return
            timed_out = not t.bot_plays(seat)
            level = t.seats[seat].bot or t.settings.get("bot_level") or self.default_level()
            action = await self._decide(t, seat, level)
            async with self.locks[table_id]:
                t = self.tables.get(table_id)
                if t is None or t.last_game_seq != expect or t.to_act() != seat:
                    return
                if key is not None and self.armed.get(table_id) != key:
                    return
                if timed_out and not await self.seat_connected(t, seat):
                    t.away.add(seat)  # gone: the bot plays the seat until the player comes back
                rows = t.action_rows(action, "timeout" if timed_out else "bot", None, None)
                await self._commit(t, rows)
                if timed_out and seat in t.away:
                    self.send_table_info(t)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the bot could not act at table %s", table_id)
            t2 = self.tables.get(table_id)
            if t2 is not None:
                self.armed.pop(table_id, None)
                self.schedule(t2)

    async def _think(self, t: TableState, seat: int, level: str) -> tuple[HandView, Decision | None]:
        """Ask a bot of ``level`` for ``seat``'s move, in a worker thread, by its deadline.

        Returns the view it decided on and its decision (``None`` when it failed or was late)."""
        view = view_hand(t.game.hand, seat)
        if level not in self.levels:
            level = self.default_level()
        key = (t.id, seat, level)
        bot = self.bots.get(key)
        if bot is None:
            bot = self.bots[key] = self.levels[level](None)  # unseeded: the process's shared generator
        deadline = time.monotonic() + self.bot_think
        g = t.game
        try:
            if level in INLINE_LEVELS:
                decision = bot.decide(view, tuple(g.totals), deadline, bags=tuple(g.bags))
            else:
                decide = partial(bot.decide, view, tuple(g.totals), deadline, bags=tuple(g.bags))
                decision = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(self.bot_pool, decide),
                                                  self.bot_think + 1.0)
            if decision.action in view.legal:
                return view, decision
            log.warning("bot %s chose an illegal action", level)
        except (TimeoutError, SpadesError, ValueError):
            log.warning("bot %s did not decide in time", level)
        return view, None

    async def _decide(self, t: TableState, seat: int, level: str) -> Action:
        view, decision = await self._think(t, seat, level)
        return decision.action if decision is not None else view.legal[0]

    async def _hint(self, conn: Conn, player: PlayerRow, msg: dict[str, Any]) -> None:
        """The computer's suggestion for the asking player's own move, with its reason (changes nothing).

        ``spades.ai.suggest.suggest`` at ``HINT_LEVEL`` (a rule-of-thumb level, so it runs here on the
        event loop), given only the asker's own view: never another seat's cards. Hints are off at rated
        tables. The answer goes to this socket alone, before any later event (it is sent under the lock)."""
        cid = client_id_of(msg, required=False)
        asked = msg.get("seat")
        if asked is not None and (not isinstance(asked, int) or isinstance(asked, bool)):
            raise ProtocolError("malformed", "\"seat\" must be your own seat number")
        async with self.locks[conn.table_id]:
            t = await self._load(conn.table_id)
            if t is None:
                raise ProtocolError("no_table", "there is no such table")
            seat = t.seat_of(player.id)
            if seat is None:
                raise ProtocolError("not_seated", "a hint is for a seated player's own move: take a seat first")
            if asked is not None and asked != seat:
                raise ProtocolError("not_your_seat", f"you sit in seat {seat}: a hint is for your own move only")
            if t.settings.get("rated"):
                raise ProtocolError("rated", "hints are off at rated tables: the rating measures your own play")
            if t.over:
                raise ProtocolError("over", "the game is over: there is nothing to suggest")
            if not t.started:
                raise ProtocolError("not_started", "the game starts when every seat is filled")
            if t.to_act() != seat:
                raise ProtocolError("not_your_turn", "there is nothing to suggest: it is not your turn")
            try:
                _, decision = suggest(t.game, HINT_LEVEL, seed=0, seat=seat)
            except SpadesError:
                decision = None
            if decision is None or decision.action not in view_hand(t.game.hand, seat).legal:
                raise ProtocolError("no_hint", "the computer has no suggestion for this position")
            reply: dict[str, Any] = {"type": "hint", "seq": t.seq,
                                     "action": action_to_dict(decision.action, marked=True), "reason": decision.reason}
            if cid is not None:
                reply["id"] = cid
            conn.send(reply)

    # ------------------------------------------------------------------ the end of a game

    async def _finish(self, t: TableState) -> None:
        from spades.server.ratings import rate_game

        if (await self.db(self.storage.game_record, t.id)) is not None:
            return
        g = t.game
        record = await self._record(t)
        humans = [(i, s.player) for i, s in enumerate(t.seats) if s.player is not None]
        rated = bool(t.settings.get("rated")) and len(humans) == t.n
        seats: list[GameSeat] = []
        players: dict[str, PlayerRow] = {}
        for _, pid in humans:
            assert pid is not None
            p = await self.db(self.storage.get_player, pid)
            if p is not None:
                players[pid] = p
        lay = t.rules.layout
        for i, pid in humans:
            assert pid is not None
            side = lay.side_of[i]
            seats.append(GameSeat(i, pid, side, g.winner == side, g.totals[side]))
        if rated:
            seats = rate_game(seats, players, list(g.totals))
        await self.db(self.storage.finish_game, t.id, record, rated, g.winner, seats)

    async def _record(self, t: TableState) -> dict[str, Any]:
        """A finished game's record: the table's, with the entries of the hands it let go from the log's hand
        records; or, for a game begun before those were kept (migration 0007), the record of the whole log
        replayed by a table that keeps every hand."""
        earlier = await self.db(self.log.hand_records, t.id)
        if len(earlier) == t.let_go:
            return t.record(earlier)
        whole = TableState(t.row, keep_hands=True)
        whole.replay(await self.db(self.log.load_events, t.id))
        return whole.record()

    async def game_record(self, table_id: str) -> dict[str, Any] | None:
        """A finished game's record."""
        return await self.db(self.storage.game_record, table_id)
