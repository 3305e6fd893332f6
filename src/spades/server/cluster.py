"""Many ``spades serve`` processes on one PostgreSQL database and one Redis (``--redis``).

A cluster process is the same ``Hub`` as a single process, composed with two other parts
(``spades.server.parts``; ``cluster_hub`` makes it): ``LeaseOwnership`` and ``RedisBus``.

Any process serves any WebSocket. Each live table is owned by one process at a time through a lease
in PostgreSQL (``spades.storage.lease``: owner, fencing epoch, expiry, renewed every third of its
length; ``LeaseOwnership``). Only the owner changes a table: it runs the hub's pipeline, bots and turn
timers, and it writes the log through ``FencedLog``, so a stalled former owner cannot write.

Redis carries the rest (``RedisBus``), with one channel per process and one per table:

- ``<prefix>node:<id>``: a process that holds a socket of a table it does not own forwards the
  client's message (action, sit, stand, fill, chat) to the owner here.
- ``<prefix>table:<id>``: the owner publishes every batch of new log rows (with the seats marked away
  and the turn clock), and the answers (ack, error, done) to forwarded messages, in one ordered stream.
  Every process with watchers of the table subscribes, keeps a replica of the table (the same
  ``TableState``, rebuilt from the log and then fed the published rows) and sends each watcher its own
  projection. Pub/sub may drop messages: a replica that sees a gap in the event numbers, or finds the
  log ahead of it in its periodic check, reads the missing rows from PostgreSQL (``Hub.follow``).
- ``<prefix>pres:<table>``: who is connected where, as ``player|node`` -> ``expiry|seeds`` (a turn that
  times out marks a seat away only when its player has no socket on any process; ``seeds`` is 1 when one
  of those sockets sends client seeds, so the owner waits for that player's seed however far away they
  are connected); ``<prefix>lobby``: open public tables for the lobby;
  ``<prefix>login:<key>``: failed logins, counted across processes; ``<prefix>nodes``: live processes.
- ``<prefix>sessions``: a session that ended (logout, or a new login or sign-up replacing it) is named
  here by its token's SHA-256, and every process closes its sockets opened with it.

When an owner dies its leases expire and the other processes take its tables (each at most its share
per round), rebuild them from the log, and arm bots and turn timers again (a turn's deadline comes
from the log, so the time it had already run counts). A graceful shutdown releases every lease and
says so on the table's channel, so a process with watchers takes the table over at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import os
import secrets
import socket
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from spades.server.accounts import LoginLimiter, login_delay
from spades.server.hub import Conn, Hub
from spades.server.parts import HubPart, Published
from spades.server.protocol import ProtocolError
from spades.server.table import TableState
from spades.storage.base import ChatRow, EventLog, EventRow, PlayerRow, Storage
from spades.storage.lease import LeaseLost, Leases
from spades.storage.sql import Guard, SqlStorage

log = logging.getLogger("spades.cluster")

def _row_json(r: EventRow) -> dict[str, Any]:
    return {"seq": r.seq, "kind": r.kind, "data": r.data, "player_id": r.player_id, "client_id": r.client_id,
            "created_at": r.created_at}


def _row_of(d: dict[str, Any]) -> EventRow:
    return EventRow(int(d["seq"]), str(d["kind"]), d["data"], d.get("player_id"), d.get("client_id"),
                    float(d.get("created_at") or 0.0))


def _token_hash(token: str) -> str:
    """What other processes learn of an ended session: a hash that names it without granting it."""
    return hashlib.sha256(token.encode()).hexdigest()


def _text(v: bytes | str) -> str:
    return v.decode() if isinstance(v, bytes) else v


class FencedLog:
    """The event log of a cluster's hub: ``log``'s own, except that every write first passes ``fence`` in
    the write's transaction, for every table it touches. The cluster's fence is ``Leases.guard``: it
    raises ``LeaseLost`` unless this process holds the table's lease at the epoch it acquired, and locks
    the lease row so that a takeover waits for the write. Reading is ``log``'s."""

    def __init__(self, log: SqlStorage, fence: Guard) -> None:
        self.inner = log
        self.fence = fence

    def append_events(self, table_id: str, rows: list[EventRow]) -> None:
        """Append under the fence (``LeaseLost``, nothing stored, when it refuses)."""
        self.inner.append_events(table_id, rows, self.fence)

    def append_many(self, batches: list[tuple[str, list[EventRow]]]) -> list[Exception | None]:
        """The group commit under the fence: one table refused sends each batch to its own transaction."""
        return self.inner.append_many(batches, self.fence)

    def load_events(self, table_id: str, after: int = 0) -> list[EventRow]:
        """The log's events."""
        return self.inner.load_events(table_id, after)

    def chat_history(self, table_id: str, limit: int = 50) -> list[ChatRow]:
        """The log's chat lines."""
        return self.inner.chat_history(table_id, limit)

    def hand_records(self, table_id: str) -> list[bytes]:
        """The log's hand records."""
        return self.inner.hand_records(table_id)


class RemoteConn(Conn):
    """A socket held by another process, as the owner sees it while handling one forwarded message:
    whatever the hub sends it goes back on the table's channel, addressed to that process."""

    def __init__(self, bus: RedisBus, player: PlayerRow, table_id: str, to: str, req: str) -> None:
        super().__init__(player, table_id)
        self.bus, self.to, self.req = bus, to, req
        self.attached = True

    def send(self, message: dict[str, Any]) -> None:
        """Answer the forwarding process."""
        self.bus.publish_table(self.table_id, {"to": self.to, "req": self.req, "msg": message})

    def close(self, code: int) -> None:
        """The socket belongs to the other process: nothing to close here."""


class RedisLimiter:
    """Failed logins per key counted in Redis (``AttemptLimiter``'s growing delays), so every process sees
    the same count."""

    def __init__(self, bus: RedisBus, free: int, cap: float) -> None:
        self.bus, self.free, self.cap = bus, free, cap

    def _key(self, key: str) -> str:
        return f"{self.bus.prefix}login:{key}"

    async def wait(self, key: str) -> float:
        """Seconds before this key may try again (a Redis outage slows nobody)."""
        try:
            found = await self.bus.redis.hmget(self._key(key), ["n", "last"])
        except RedisError:
            return 0.0
        if found[0] is None or found[1] is None:
            return 0.0
        last = float(found[1])
        return max(0.0, last + login_delay(int(found[0]), self.free, self.cap) - time.time())

    async def fail(self, key: str) -> None:
        """Count a failure (forgotten ``cap`` seconds after the last one)."""
        with contextlib.suppress(RedisError):
            async with self.bus.redis.pipeline(transaction=True) as p:
                p.hincrby(self._key(key), "n", 1)
                p.hset(self._key(key), "last", repr(time.time()))
                p.expire(self._key(key), max(1, math.ceil(self.cap)))
                await p.execute()

    async def clear(self, key: str) -> None:
        """Forget a key's failures."""
        with contextlib.suppress(RedisError):
            await self.bus.redis.delete(self._key(key))


class LeaseOwnership(HubPart):
    """The ``Ownership`` of a cluster process: the tables whose lease it holds (``spades.storage.lease``).

    It takes a table made here (``adopt``), one nobody holds when a message for it arrives
    (``owner_of``) or when its owner gave it up while sockets here watch it (``released``), and its
    share of the ownerless tables every third of a lease (with the renewal of every lease it holds,
    which notices the ones another process took). Its log fences every write with the lease."""

    def __init__(self, leases: Leases) -> None:
        self.leases = leases
        self.node = leases.owner
        self.lease_seconds = leases.ttl
        self.retry_for = 3 * leases.ttl + 5
        self.owned: dict[str, int] = {}
        """The tables whose lease this process holds, with the epoch it acquired each at."""
        self.owner_hint: dict[str, str] = {}
        """Who was last known to own a table (from its lease, or a message on its channel)."""
        self.takeovers = 0
        self.handovers = 0
        """Tables handed to the process where their people are connected (``hand_over``)."""
        self.handed: dict[str, float] = {}
        """Tables handed over lately (monotonic time): this process's orphan scan leaves them to the heir."""
        self.homeward: dict[str, str] = {}
        """Per owned table: the other process that held all its sockets at the last round."""
        self.stopping = False
        self.loop: asyncio.Task[None] | None = None

    def event_log(self, storage: Storage) -> EventLog:
        """The SQL log, every write fenced by this process's lease (``Leases.guard``)."""
        assert isinstance(storage, SqlStorage)
        return FencedLog(storage, self.leases.guard(self.owned.get))

    def owns(self, table_id: str) -> bool:
        """This process holds the table's lease (as far as it knows: the write is fenced anyway)."""
        return table_id in self.owned

    def epoch(self, table_id: str) -> int:
        """The epoch the lease is held at here (0: not held)."""
        return self.owned.get(table_id, 0)

    async def owner_of(self, table_id: str) -> str | None:
        """The table's owner: known, or read from its lease; a table nobody holds is taken here."""
        if table_id in self.owned:
            return self.node
        hint = self.owner_hint.get(table_id)
        if hint is not None:
            return hint
        lease = await self.hub.db(self.leases.get, table_id)
        if lease is None or lease.expires_in <= 0:
            if await self.acquire(table_id):
                return self.node
            lease = await self.hub.db(self.leases.get, table_id)
        if lease is None or lease.expires_in <= 0:
            return None
        self.owner_hint[table_id] = lease.owner
        return lease.owner

    async def start(self) -> None:
        """Start the lease loop (which also takes ownerless tables)."""
        self.loop = asyncio.create_task(self._maintain())

    async def stop(self) -> None:
        """Hand every owned table over: wait for its write in flight, release its lease, say so."""
        self.stopping = True
        hub = self.hub
        for tid in list(self.owned):
            async with hub.locks[tid]:  # waits for a write in flight
                epoch = self.owned.pop(tid, None)
                hub.disarm(tid)
                if epoch is not None:
                    with contextlib.suppress(Exception):
                        await hub.db(self.leases.release, tid, epoch)
                    hub.bus.released(tid)
        if self.loop is not None:
            self.loop.cancel()

    async def adopt(self, table_id: str) -> None:
        """A table made here is owned here."""
        await self.acquire(table_id)

    async def acquire(self, tid: str) -> bool:
        """Take the table's lease if it is free, and take the table up (``Hub.take_up``)."""
        if self.stopping:
            return False
        hub = self.hub
        async with hub.locks[tid]:
            if tid in self.owned:
                return True
            try:
                epoch = await hub.db(self.leases.acquire, tid)
            except Exception:
                log.exception("could not acquire table %s", tid)
                return False
            if epoch is None:
                return False
            self.owned[tid] = epoch
            self.owner_hint[tid] = self.node
            self.takeovers += epoch > 1
            if await hub.take_up(tid, restarted=epoch > 1) is None:
                self.owned.pop(tid, None)
                return False
            log.info("node %s owns table %s (epoch %d)", self.node, tid, epoch)
            return True

    async def finished(self, table_id: str) -> None:
        """Release the lease of a finished game."""
        epoch = self.owned.pop(table_id, None)
        if epoch is not None:
            with contextlib.suppress(Exception):
                await self.hub.db(self.leases.release, table_id, epoch)

    def drop(self, table_id: str) -> bool:
        """Stop acting as the table's owner; ``False`` if it was not owned."""
        if self.owned.pop(table_id, None) is None:
            return False
        log.warning("node %s lost table %s", self.node, table_id)
        self.owner_hint.pop(table_id, None)
        return True

    def forget(self, table_id: str) -> None:
        """Forget who owned the table."""
        self.owner_hint.pop(table_id, None)

    async def seen(self, table_id: str, owner: str, epoch: int) -> None:
        """A message from the table's owner: remember it; a later epoch than the one held here means
        another process took the table over."""
        self.owner_hint[table_id] = owner
        if table_id in self.owned and epoch > self.owned[table_id]:
            await self.hub.lost(table_id)

    async def released(self, table_id: str, heir: str | None = None) -> None:
        """The owner gave the table up: take it at once when it was handed to this process, or (a
        shutdown, no heir) when sockets here watch it. A table handed to another process is left to it
        (if that one never takes it, the lease round's orphan scan will)."""
        self.owner_hint.pop(table_id, None)
        if self.stopping:
            return
        if heir == self.node or (heir is None and self.hub.bus.watches(table_id)):
            await self.acquire(table_id)
        elif heir is not None:
            self.owner_hint[table_id] = heir

    async def hand_over(self, table_id: str, heir: str) -> bool:
        """Routing to the owner: give a table none of whose sockets are here to ``heir``, the process that
        holds them all, so its moves cross no Redis hop. Like a shutdown's hand-over: wait for the
        write in flight, stop the bots and timers, release the lease (the epoch fences any later write
        from here), say so with the heir named, and drop the table from memory. ``heir`` takes it with
        the next epoch; a message already forwarded here is answered ``not_owner`` and sent again to
        the owner found then (client ids keep it exactly-once)."""
        hub = self.hub
        async with hub.locks[table_id]:
            if self.stopping or table_id not in self.owned or hub.bus.watches(table_id):
                return False
            epoch = self.owned.pop(table_id)
            hub.disarm(table_id)
            try:
                released = await hub.db(self.leases.release, table_id, epoch)
            except Exception:  # unknown: go on as the owner; the next renewal tells whether it still is
                log.exception("could not hand table %s over", table_id)
                self.owned[table_id] = epoch
                t = hub.tables.get(table_id)
                if t is not None:
                    hub.schedule(t)
                return False
            if released:
                self.handovers += 1
                self.handed[table_id] = time.monotonic()
                hub.bus.released(table_id, heir)
                log.info("node %s hands table %s over to %s (epoch %d)", self.node, table_id, heir, epoch)
        hub.unfollow(table_id)  # not released: another process had taken it already
        self.owner_hint[table_id] = heir
        return released

    def status(self) -> dict[str, Any] | None:
        """The node, the tables it owns, and how many it took over and handed over."""
        return {"node": self.node, "owned": sorted(self.owned), "takeovers": self.takeovers,
                "handovers": self.handovers}

    async def _maintain(self) -> None:
        """Every third of a lease: renew the leases (noticing lost ones) and take a share of the
        ownerless tables."""
        while True:
            try:
                await self._maintain_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("lease maintenance failed")
            await asyncio.sleep(self.lease_seconds / 3)

    async def _route(self) -> None:
        """Hand each owned table whose sockets are all on one other process, two rounds in a row (a
        person reconnecting does not move a table), to that process."""
        homes = {tid: home for tid in self.owned if (home := self.hub.bus.home(tid)) is not None}
        ready = [tid for tid, home in homes.items() if self.homeward.get(tid) == home]
        self.homeward = homes
        for tid in ready:
            await self.hand_over(tid, homes[tid])

    async def _maintain_once(self) -> None:
        hub = self.hub
        held = await hub.db(self.leases.renew)
        for tid, epoch in list(self.owned.items()):
            if held.get(tid) != epoch:
                await hub.lost(tid)
        await self._route()
        nodes = await hub.bus.peers()
        if not self.stopping:
            recent = time.monotonic() - self.lease_seconds
            self.handed = {tid: at for tid, at in self.handed.items() if at > recent}
            orphans = [tid for tid in await hub.db(self.leases.orphans, 200) if tid not in self.handed]
            share = math.ceil(len(orphans) / nodes)
            for tid in orphans[:share]:
                await self.acquire(tid)


class RedisBus(HubPart):
    """The ``Bus`` of a cluster process: Redis (see the module's notes)."""

    replicas = True

    def __init__(self, redis_url: str, node: str, *, prefix: str = "spades:", lease_seconds: float = 5.0,
                 last_seqs: Callable[[list[str]], dict[str, int]]) -> None:
        self.redis: aioredis.Redis = aioredis.from_url(redis_url, socket_timeout=5, socket_connect_timeout=2)
        self.node = node
        self.prefix = prefix
        self.lease_seconds = lease_seconds
        self.last_seqs = last_seqs
        """The log's last event number of each of some tables (one query), to check replicas against."""
        self.homes: dict[str, str] = {}
        """Per owned table whose present sockets are all on one other process: that process."""
        self.remote_seeders: dict[str, frozenset[str]] = {}
        """Per owned table: players whose sockets on other processes send client seeds (from presence)."""
        self.out: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self.inq: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self.workers: dict[str, asyncio.Task[None]] = {}
        self.watchers: dict[str, int] = defaultdict(int)
        self.watching: set[int] = set()
        self.sub_requests: asyncio.Queue[tuple[str, bool, asyncio.Future[None] | None]] = asyncio.Queue()
        self.pending: dict[str, tuple[asyncio.Future[str], Conn]] = {}
        self.stats = {"forwarded": 0, "served": 0, "batches": 0, "gaps_filled": 0, "published": 0,
                      "publish_errors": 0}
        """What crossed Redis: changes ``forwarded`` to an owner elsewhere and ``served`` here for
        another process, ``batches`` of new rows this owner published, every message ``published`` (rows,
        answers, forwards, releases), failed publishes, and gaps a replica filled from the log."""
        self.loops: list[asyncio.Task[None]] = []

    # ------------------------------------------------------------------ names

    def _table_ch(self, table_id: str) -> str:
        return f"{self.prefix}table:{table_id}"

    def _node_ch(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    def _sessions_ch(self) -> str:
        return f"{self.prefix}sessions"

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Start listening, publishing and the round that refreshes presence, the lobby and replicas."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.loops = [asyncio.create_task(self._listen(ready)), asyncio.create_task(self._publisher()),
                      asyncio.create_task(self._tend())]
        await asyncio.wait_for(ready, 10)
        log.info("cluster node %s started", self.node)

    async def stop(self) -> None:
        """Send what is queued (the releases of a shutdown), then stop."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._flush(), 3)
        for task in self.loops:
            task.cancel()
        with contextlib.suppress(Exception):
            await self.redis.zrem(f"{self.prefix}nodes", self.node)
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        for task in self.workers.values():
            task.cancel()

    async def _flush(self) -> None:
        while not self.out.empty():
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)

    # ------------------------------------------------------------------ publishing (one ordered stream)

    def publish_table(self, table_id: str, message: dict[str, Any]) -> None:
        """Queue a message on the table's channel (sent in order by one task)."""
        message["owner"] = self.node
        message["epoch"] = self.hub.ownership.epoch(table_id)
        self.out.put_nowait((self._table_ch(table_id), json.dumps(message, separators=(",", ":")).encode()))

    def publish(self, table_id: str, update: Published) -> None:
        """The owner's new rows, seats away and turn clock, to every process with a replica."""
        message: dict[str, Any] = {"rows": [_row_json(r) for r in update.rows], "away": update.away,
                                   "left": update.left}
        if update.info:
            message["info"] = True
        if update.rows:
            self.stats["batches"] += 1
        self.publish_table(table_id, message)

    def released(self, table_id: str, heir: str | None = None) -> None:
        """Say that this process gave the table up (to ``heir``, when it handed it over)."""
        self.publish_table(table_id, {"released": True, "heir": heir})

    def home(self, table_id: str) -> str | None:
        """The one other process with every socket present at the owned table (``_read_seeders`` reads
        presence every third of a lease), when none is here."""
        if self.watches(table_id):
            return None
        return self.homes.get(table_id)

    async def _publisher(self) -> None:
        while True:
            ch, data = await self.out.get()
            try:
                await self.redis.publish(ch, data)
                self.stats["published"] += 1
            except (RedisError, OSError) as e:  # the log is the truth: replicas fill gaps from it
                self.stats["publish_errors"] += 1
                if self.stats["publish_errors"] % 100 == 1:
                    log.warning("could not publish to Redis: %s", e)

    # ------------------------------------------------------------------ listening
    async def _listen(self, ready: asyncio.Future[None]) -> None:
        channels: set[str] = {self._node_ch(self.node), self._sessions_ch()}
        waiting: dict[str, list[asyncio.Future[None]]] = defaultdict(list)
        while True:
            ps = self.redis.pubsub()
            try:
                await ps.subscribe(*channels)
                if not ready.done():
                    ready.set_result(None)
                else:  # back after an outage: whatever was published meanwhile is in the log
                    for tid in list(self.inq):
                        self.inq[tid].put_nowait({"sync": True})
                while True:
                    while not self.sub_requests.empty():
                        ch, on, fut = self.sub_requests.get_nowait()
                        if on:
                            channels.add(ch)
                            await ps.subscribe(ch)
                            if fut is not None:
                                waiting[ch].append(fut)
                        else:
                            channels.discard(ch)
                            await ps.unsubscribe(ch)
                            if fut is not None and not fut.done():
                                fut.set_result(None)
                    msg = await ps.get_message(ignore_subscribe_messages=False, timeout=0.05)
                    if msg is None:
                        continue
                    ch = msg["channel"].decode() if isinstance(msg["channel"], bytes) else str(msg["channel"])
                    if msg["type"] == "subscribe":
                        for f in waiting.pop(ch, []):
                            if not f.done():
                                f.set_result(None)
                    elif msg["type"] == "message":
                        self._dispatch(ch, json.loads(msg["data"]))
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await ps.aclose()  # type: ignore[no-untyped-call]
                raise
            except Exception as e:
                log.warning("Redis subscription lost (%s); reconnecting", e)
                with contextlib.suppress(Exception):
                    await ps.aclose()  # type: ignore[no-untyped-call]
                for fs in waiting.values():
                    for f in fs:
                        if not f.done():
                            f.set_result(None)
                waiting.clear()
                await asyncio.sleep(0.2)

    def session_closed(self, token: str) -> None:
        """Tell every other process to close its sockets opened with the ended session (a person's
        sockets may sit on several processes behind the balancer). Only a hash of the token crosses
        Redis."""
        message = {"closed": _token_hash(token), "node": self.node}
        self.out.put_nowait((self._sessions_ch(), json.dumps(message, separators=(",", ":")).encode()))

    def _dispatch(self, ch: str, m: dict[str, Any]) -> None:
        hub = self.hub
        if ch == self._sessions_ch():
            if m.get("node") != self.node and isinstance(m.get("closed"), str):
                for conns in hub.conns.values():
                    for c in list(conns):
                        if c.session is not None and _token_hash(c.session) == m["closed"]:
                            c.close(4001)
            return
        if ch == self._node_ch(self.node):
            if m.get("op") == "req":
                hub.spawn(self._serve(m))
            elif m.get("op") == "back":
                hub.spawn(hub.seat_back(str(m["table"]), int(m["seat"])))
            return
        tid = ch[len(self._table_ch("")):]
        q = self.inq.get(tid)
        if q is not None:
            q.put_nowait(m)

    async def _table_worker(self, tid: str, q: asyncio.Queue[dict[str, Any]]) -> None:
        """The messages of one table's channel, in order: rows to the replica, answers to sockets."""
        while True:
            m = await q.get()
            try:
                await self._on_table_message(tid, m)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not handle a message of table %s", tid)

    async def _on_table_message(self, tid: str, m: dict[str, Any]) -> None:
        hub = self.hub
        if m.get("sync"):
            self.stats["gaps_filled"] += await hub.follow(tid, None)
            return
        owner = m.get("owner")
        if owner == self.node:
            return
        if owner is not None:
            if m.get("released"):
                heir = m.get("heir")
                await hub.ownership.released(tid, heir if isinstance(heir, str) else None)
                return
            await hub.ownership.seen(tid, str(owner), int(m.get("epoch") or 0))
        if "to" in m:
            if m["to"] != self.node:
                return
            entry = self.pending.get(str(m.get("req")))
            if entry is None:
                return
            fut, conn = entry
            if "msg" in m:
                conn.send(m["msg"])
            elif "done" in m and not fut.done():
                fut.set_result("done")
            elif "not_owner" in m and not fut.done():
                fut.set_result("not_owner")
            return
        update = Published([_row_of(r) for r in m.get("rows", [])], [int(s) for s in m.get("away", [])],
                           None if m.get("left") is None else float(m["left"]), bool(m.get("info")))
        self.stats["gaps_filled"] += await hub.follow(tid, update)

    # ------------------------------------------------------------------ watching a table

    async def watch(self, conn: Conn) -> None:
        """Subscribe to the socket's table (once per socket) before the hub loads it."""
        if id(conn) in self.watching:
            return
        self.watching.add(id(conn))
        tid = conn.table_id
        self.watchers[tid] += 1
        if tid in self.inq:
            return
        q: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.inq[tid] = q
        self.workers[tid] = asyncio.create_task(self._table_worker(tid, q))
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.sub_requests.put_nowait((self._table_ch(tid), True, fut))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(fut, 5)

    def _unwatch(self, tid: str) -> None:
        self.watchers[tid] -= 1
        if self.watchers[tid] > 0:
            return
        self.watchers.pop(tid, None)
        self.inq.pop(tid, None)
        task = self.workers.pop(tid, None)
        if task is not None:
            task.cancel()
        self.sub_requests.put_nowait((self._table_ch(tid), False, None))
        self.hub.unfollow(tid)

    def watches(self, table_id: str) -> bool:
        """Some socket here watches the table."""
        return bool(self.watchers.get(table_id))

    def attached(self, conn: Conn) -> None:
        """The socket's player is present at its table on this process."""
        if conn.player is not None:
            self.hub.spawn(self._presence(conn.table_id, conn.player.id, True))

    def detached(self, conn: Conn) -> None:
        """The last socket of a player here ends their presence; the last one of a table ends the
        subscription and the replica."""
        if conn.player is not None and not any(c.player and c.player.id == conn.player.id
                                               for c in self.hub.conns.get(conn.table_id, ())):
            self.hub.spawn(self._presence(conn.table_id, conn.player.id, False))
        if id(conn) in self.watching:
            self.watching.discard(id(conn))
            self._unwatch(conn.table_id)

    # ------------------------------------------------------------------ presence

    def _sends_seeds(self, tid: str, player: str) -> bool:
        return any(c.seeds for c in self.hub.conns.get(tid, ()) if c.player is not None and c.player.id == player)

    async def _presence(self, tid: str, player: str, on: bool) -> None:
        key, field = f"{self.prefix}pres:{tid}", f"{player}|{self.node}"
        with contextlib.suppress(RedisError, OSError):
            if on:
                value = f"{time.time() + 6 * self.lease_seconds}|{int(self._sends_seeds(tid, player))}"
                await self.redis.hset(key, field, value)
                await self.redis.expire(key, math.ceil(12 * self.lease_seconds))
            else:
                await self.redis.hdel(key, field)

    async def present(self, t: TableState, seat: int) -> bool:
        """Some socket of the seat's player is open on any process (presence)."""
        pid = t.seats[seat].player
        if pid is None:
            return False
        try:
            fields = await self.redis.hgetall(f"{self.prefix}pres:{t.id}")
        except (RedisError, OSError):
            return True  # unknown: do not mark anybody away
        now = time.time()
        return any(_text(k).split("|", 1)[0] == pid and float(_text(v).split("|", 1)[0]) > now
                   for k, v in fields.items())

    def seeders(self, table_id: str) -> frozenset[str]:
        """The players of an owned table whose sockets on other processes send client seeds (from
        presence, read every third of a lease)."""
        return self.remote_seeders.get(table_id, frozenset())

    def _owned_here(self) -> list[str]:
        own = self.hub.ownership
        return [tid for tid in self.hub.tables if own.owns(tid)]

    async def _read_seeders(self) -> None:
        """Which players of the owned tables send client seeds from other processes."""
        tids = self._owned_here()
        if not tids:
            self.remote_seeders, self.homes = {}, {}
            return
        try:
            async with self.redis.pipeline(transaction=False) as p:
                for tid in tids:
                    p.hgetall(f"{self.prefix}pres:{tid}")
                answers = await p.execute()
        except (RedisError, OSError):
            return  # keep what was known
        now, seeders, homes = time.time(), {}, {}
        for tid, fields in zip(tids, answers, strict=True):
            players, nodes = set(), set()
            for k, v in fields.items():
                player, _, node = _text(k).partition("|")
                expiry, _, flag = _text(v).partition("|")
                if float(expiry) <= now:
                    continue
                nodes.add(node)
                if node != self.node and flag == "1":
                    players.add(player)
            if players:
                seeders[tid] = frozenset(players)
            if len(nodes) == 1 and self.node not in nodes:
                homes[tid] = nodes.pop()
        self.remote_seeders, self.homes = seeders, homes

    # ------------------------------------------------------------------ forwarding to the owner

    async def forward(self, owner: str, conn: Conn, msg: dict[str, Any]) -> bool:
        """Send a change to the owner ``owner`` and relay its answers: ``True`` once it says done."""
        assert conn.player is not None
        req = secrets.token_hex(8)
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.pending[req] = (fut, conn)
        self.stats["forwarded"] += 1
        p = conn.player
        self._send_node(owner, {"op": "req", "req": req, "table": conn.table_id, "from": self.node,
                                "player": [p.id, p.name, p.username], "msg": msg})
        try:
            return await asyncio.wait_for(fut, max(2.0, self.lease_seconds / 2)) == "done"
        except TimeoutError:
            return False
        finally:
            self.pending.pop(req, None)

    def _send_node(self, node: str, message: dict[str, Any]) -> None:
        self.out.put_nowait((self._node_ch(node), json.dumps(message, separators=(",", ":")).encode()))

    def tell_back(self, owner: str, table_id: str, seat: int) -> None:
        """Tell the owner that the away player of ``seat`` is back."""
        self._send_node(owner, {"op": "back", "table": table_id, "seat": seat})

    async def _serve(self, m: dict[str, Any]) -> None:
        """A message forwarded by another process, handled here as the table's owner (``Hub.serve``)."""
        hub = self.hub
        tid, req, to = str(m["table"]), str(m["req"]), str(m["from"])
        pid, name, username = m["player"]
        conn = RemoteConn(self, PlayerRow(pid, name, username), tid, to, req)
        msg = m["msg"]
        self.stats["served"] += 1
        if not hub.ownership.owns(tid):
            self.publish_table(tid, {"to": to, "req": req, "not_owner": True})
            return
        cid = msg.get("id") if isinstance(msg.get("id"), str) else None
        try:
            await hub.serve(conn, msg)
        except ProtocolError as e:
            conn.error(e.code, e.reason, cid, e.extra)
        except LeaseLost:
            await hub.lost(tid)
            self.publish_table(tid, {"to": to, "req": req, "not_owner": True})
            return
        except Exception:
            log.exception("error handling a forwarded message at table %s", tid)
            conn.error("internal", "the server could not handle that message", cid)
        self.publish_table(tid, {"to": to, "req": req, "done": True})

    # ------------------------------------------------------------------ the lobby, logins, status

    async def list_table(self, t: TableState) -> None:
        """The table's entry in the shared lobby: its description while it is public and open."""
        key = f"{self.prefix}lobby"
        with contextlib.suppress(RedisError, OSError):
            if t.row.public and not t.over:
                await self.redis.hset(key, t.id, json.dumps({"at": t.row.created_at, "info": t.info()}))
            else:
                await self.redis.hdel(key, t.id)

    async def lobby(self, limit: int) -> list[dict[str, Any]] | None:
        """Open public tables as their owners last published them, newest first (``None`` when Redis
        does not answer: the hub asks the storage)."""
        try:
            entries = await self.redis.hgetall(f"{self.prefix}lobby")
        except (RedisError, OSError):
            return None
        items = [json.loads(v) for v in entries.values()]
        items.sort(key=lambda e: -float(e["at"]))
        return [e["info"] for e in items if e["info"]["status"] != "over"][:limit]

    def login_limiter(self, limit: int, window: float) -> LoginLimiter | None:
        """Failed logins counted in Redis."""
        return RedisLimiter(self, limit, window)

    def status(self) -> dict[str, Any] | None:
        """The tables watched here and the counters."""
        return {"watching": sorted(self.watchers), **self.stats}

    # ------------------------------------------------------------------ the round

    async def peers(self) -> int:
        """Mark this process live, forget the silent ones, count them (1 when Redis does not answer)."""
        try:
            now = time.time()
            key = f"{self.prefix}nodes"
            await self.redis.zadd(key, {self.node: now})
            await self.redis.zremrangebyscore(key, 0, now - 3 * self.lease_seconds)
            return max(1, int(await self.redis.zcard(key)))
        except (RedisError, OSError):
            return 1

    async def _tend(self) -> None:
        """Every third of a lease: refresh presence and the lobby, read who sends seeds from elsewhere,
        and check the replicas against the log."""
        while True:
            try:
                await self._tend_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster maintenance failed")
            await asyncio.sleep(self.lease_seconds / 3)

    async def _tend_once(self) -> None:
        hub = self.hub
        await self._refresh_redis()
        await self._read_seeders()
        replicas = [tid for tid in self.watchers if tid in hub.tables and not hub.ownership.owns(tid)]
        if replicas:
            seqs = await hub.db(self.last_seqs, replicas)
            for tid in replicas:
                t = hub.tables.get(tid)
                q = self.inq.get(tid)
                if t is not None and q is not None and seqs.get(tid, 0) > t.seq:
                    q.put_nowait({"sync": True})

    async def _refresh_redis(self) -> None:
        """Presence of the sockets here and the lobby entries of the tables owned here, in one pipeline
        (Redis may have been restarted empty)."""
        hub = self.hub
        until = str(time.time() + 6 * self.lease_seconds)
        try:
            async with self.redis.pipeline(transaction=False) as p:
                for tid, conns in list(hub.conns.items()):
                    players = {c.player.id for c in conns if c.player is not None}
                    if players:
                        key = f"{self.prefix}pres:{tid}"
                        p.hset(key, mapping={f"{pid}|{self.node}": f"{until}|{int(self._sends_seeds(tid, pid))}"
                                             for pid in players})
                        p.expire(key, math.ceil(12 * self.lease_seconds))
                for tid in self._owned_here():
                    t = hub.tables[tid]
                    if t.row.public and not t.over:
                        p.hset(f"{self.prefix}lobby", tid, json.dumps({"at": t.row.created_at, "info": t.info()}))
                await p.execute()
        except (RedisError, OSError):
            pass


def cluster_hub(storage: Storage, redis_url: str, *, prefix: str = "spades:", lease_seconds: float = 5.0,
                **kw: Any) -> Hub:
    """The hub of one process among many (see the module's notes): the same ``Hub`` as a single
    process, with ``LeaseOwnership`` and ``RedisBus`` as its parts. ``kw``: the hub's other settings."""
    if not isinstance(storage, SqlStorage) or storage.is_sqlite:
        raise ValueError("several server processes need PostgreSQL (--database postgresql://...)")
    node = f"{socket.gethostname()[:20]}-{os.getpid()}-{secrets.token_hex(3)}"
    leases = Leases(storage, node, lease_seconds)
    bus = RedisBus(redis_url, node, prefix=prefix, lease_seconds=lease_seconds, last_seqs=leases.max_seqs)
    return Hub(storage, ownership=LeaseOwnership(leases), bus=bus, **kw)


__all__ = ["FencedLog", "LeaseOwnership", "RedisBus", "RedisLimiter", "RemoteConn", "cluster_hub"]
