"""Many ``spades serve`` processes on one PostgreSQL database and one Redis (``--redis``).

Any process serves any WebSocket. Each live table is owned by one process at a time through a lease
in PostgreSQL (``spades.storage.lease``: owner, fencing epoch, expiry, renewed every third of its
length). Only the owner changes a table: it runs the hub's action path, bots and turn timers, and it
writes the log through ``Leases.append_fenced``, so a stalled former owner cannot write.

Redis carries the rest, with one channel per process and one per table:

- ``<prefix>node:<id>``: a process that holds a socket of a table it does not own forwards the
  client's message (action, sit, stand, fill, chat) to the owner here.
- ``<prefix>table:<id>``: the owner publishes every batch of new log rows (with the seats marked away
  and the turn clock), and the answers (ack, error, done) to forwarded messages, in one ordered stream.
  Every process with watchers of the table subscribes, keeps a replica of the table (the same
  ``TableState``, rebuilt from the log and then fed the published rows) and sends each watcher its own
  projection. Pub/sub may drop messages: a replica that sees a gap in the event numbers, or finds the
  log ahead of it in its periodic check, reads the missing rows from PostgreSQL.
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
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from spades.server.accounts import login_delay
from spades.server.hub import RESTART_GRACE, Conn, Hub
from spades.server.protocol import ProtocolError
from spades.server.table import TableState
from spades.storage.base import ChatRow, EventRow, PlayerRow
from spades.storage.lease import LeaseLost, Leases
from spades.storage.sql import Guard, SqlStorage

log = logging.getLogger("spades.cluster")

FORWARDED = frozenset({"action", "sit", "stand", "fill", "chat", "seed"})
"""Client messages that change a table, so only its owner may handle them."""


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


class RemoteConn(Conn):
    """A socket held by another process, as the owner sees it while handling one forwarded message:
    whatever the hub sends it goes back on the table's channel, addressed to that process."""

    def __init__(self, hub: ClusterHub, player: PlayerRow, table_id: str, to: str, req: str) -> None:
        super().__init__(player, table_id)
        self.hub, self.to, self.req = hub, to, req
        self.attached = True

    def send(self, message: dict[str, Any]) -> None:
        """Answer the forwarding process."""
        self.hub.publish_table(self.table_id, {"to": self.to, "req": self.req, "msg": message})

    def close(self, code: int) -> None:
        """The socket belongs to the other process: nothing to close here."""


class RedisLimiter:
    """Failed logins per key counted in Redis (``AttemptLimiter``'s growing delays), so every process sees
    the same count."""

    def __init__(self, hub: ClusterHub, free: int, cap: float) -> None:
        self.hub, self.free, self.cap = hub, free, cap

    def _key(self, key: str) -> str:
        return f"{self.hub.prefix}login:{key}"

    async def wait(self, key: str) -> float:
        """Seconds before this key may try again (a Redis outage slows nobody)."""
        try:
            found = await self.hub.redis.hmget(self._key(key), ["n", "last"])
        except RedisError:
            return 0.0
        if found[0] is None or found[1] is None:
            return 0.0
        last = float(found[1])
        return max(0.0, last + login_delay(int(found[0]), self.free, self.cap) - time.time())

    async def fail(self, key: str) -> None:
        """Count a failure (forgotten ``cap`` seconds after the last one)."""
        with contextlib.suppress(RedisError):
            async with self.hub.redis.pipeline(transaction=True) as p:
                p.hincrby(self._key(key), "n", 1)
                p.hset(self._key(key), "last", repr(time.time()))
                p.expire(self._key(key), max(1, math.ceil(self.cap)))
                await p.execute()

    async def clear(self, key: str) -> None:
        """Forget a key's failures."""
        with contextlib.suppress(RedisError):
            await self.hub.redis.delete(self._key(key))


class ClusterHub(Hub):
    """The hub of one process among many (see the module's notes)."""

    def __init__(self, storage: SqlStorage, redis_url: str, *, prefix: str = "spades:", lease_seconds: float = 5.0,
                 **kw: Any) -> None:
        if not isinstance(storage, SqlStorage) or storage.is_sqlite:
            raise ValueError("several server processes need PostgreSQL (--database postgresql://...)")
        self.node = f"{socket.gethostname()[:20]}-{os.getpid()}-{secrets.token_hex(3)}"
        self.leases = Leases(storage, self.node, lease_seconds)
        self.owned: dict[str, int] = {}
        """The tables whose lease this process holds, with the epoch it acquired each at."""
        super().__init__(storage, events=FencedLog(storage, self.leases.guard(self.owned.get)), **kw)
        self.redis: aioredis.Redis = aioredis.from_url(redis_url, socket_timeout=5, socket_connect_timeout=2)
        self.prefix = prefix
        self.lease_seconds = lease_seconds
        self.remote_seeders: dict[str, set[str]] = {}
        """Per owned table: players whose sockets on other processes send client seeds (from presence)."""
        self.owner_hint: dict[str, str] = {}
        self.out: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self.inq: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self.workers: dict[str, asyncio.Task[None]] = {}
        self.watchers: dict[str, int] = defaultdict(int)
        self.watching: set[int] = set()
        self.sub_requests: asyncio.Queue[tuple[str, bool, asyncio.Future[None] | None]] = asyncio.Queue()
        self.pending: dict[str, tuple[asyncio.Future[str], Conn]] = {}
        self.stats = {"forwarded": 0, "gaps_filled": 0, "takeovers": 0, "published": 0, "publish_errors": 0}
        self.stopping = False
        self.loops: list[asyncio.Task[None]] = []

    # ------------------------------------------------------------------ names

    def _table_ch(self, table_id: str) -> str:
        return f"{self.prefix}table:{table_id}"

    def _node_ch(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    def _sessions_ch(self) -> str:
        return f"{self.prefix}sessions"

    def owns(self, table_id: str) -> bool:
        """This process holds the table's lease (as far as it knows: the write is fenced anyway)."""
        return table_id in self.owned

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Start listening, publishing and the lease loop (which also takes ownerless tables)."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.loops = [asyncio.create_task(self._listen(ready)), asyncio.create_task(self._publisher()),
                      asyncio.create_task(self._maintain())]
        await asyncio.wait_for(ready, 10)
        self._spawn(self._sweep())
        log.info("cluster node %s started", self.node)

    async def stop(self) -> None:
        """Hand every owned table over (release its lease, say so), then stop."""
        self.stopping = True
        for tid in list(self.owned):
            async with self.locks[tid]:  # waits for a write in flight
                epoch = self.owned.pop(tid, None)
                h = self.timers.pop(tid, None)
                if h is not None:
                    h.cancel()
                self.armed.pop(tid, None)
                if epoch is not None:
                    with contextlib.suppress(Exception):
                        await self.db(self.leases.release, tid, epoch)
                    self.publish_table(tid, {"released": True})
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
        await super().stop()

    async def _flush(self) -> None:
        while not self.out.empty():
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)

    # ------------------------------------------------------------------ publishing (one ordered stream)

    def publish_table(self, table_id: str, message: dict[str, Any]) -> None:
        """Queue a message on the table's channel (sent in order by one task)."""
        message["owner"] = self.node
        message["epoch"] = self.owned.get(table_id, 0)
        self.out.put_nowait((self._table_ch(table_id), json.dumps(message, separators=(",", ":")).encode()))

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

    def close_session(self, token: str) -> None:
        """Close the ended session's sockets here, and tell every other process to close theirs (a
        person's sockets may sit on several processes behind the balancer). Only a hash of the token
        crosses Redis."""
        super().close_session(token)
        message = {"closed": _token_hash(token), "node": self.node}
        self.out.put_nowait((self._sessions_ch(), json.dumps(message, separators=(",", ":")).encode()))

    def _dispatch(self, ch: str, m: dict[str, Any]) -> None:
        if ch == self._sessions_ch():
            if m.get("node") != self.node and isinstance(m.get("closed"), str):
                for conns in self.conns.values():
                    for c in list(conns):
                        if c.session is not None and _token_hash(c.session) == m["closed"]:
                            c.close(4001)
            return
        if ch == self._node_ch(self.node):
            if m.get("op") == "req":
                self._spawn(self._serve(m))
            elif m.get("op") == "back":
                self._spawn(self._player_back(str(m["table"]), int(m["seat"])))
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
        if m.get("sync"):
            await self._catch_up(tid, None, {})
            return
        owner = m.get("owner")
        if owner == self.node:
            return
        if owner is not None:
            if m.get("released"):
                self.owner_hint.pop(tid, None)
                if self.watchers.get(tid) and not self.stopping:
                    await self._acquire(tid)
                return
            self.owner_hint[tid] = str(owner)
            if tid in self.owned and int(m.get("epoch") or 0) > self.owned[tid]:
                await self._lost(tid)
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
        rows = [_row_of(r) for r in m.get("rows", [])]
        await self._catch_up(tid, rows, m)

    async def _catch_up(self, tid: str, rows: list[EventRow] | None, m: dict[str, Any]) -> None:
        """Bring the replica up to date with published rows, or from the log when some are missing
        (``rows`` is ``None``: just check the log), and tell the watchers here."""
        async with self.locks[tid]:
            t = self.tables.get(tid)
            if t is None or tid in self.owned:
                return
            fresh = [r for r in rows or [] if r.seq > t.seq]
            if rows is None or (fresh and fresh[0].seq != t.seq + 1):
                fresh = await self.db(self.log.load_events, tid, t.seq)
                if fresh:
                    self.stats["gaps_filled"] += 1
            try:
                for r in fresh:
                    t.apply_row(r)
            except Exception:
                log.exception("the replica of table %s does not follow its log: rebuilt", tid)
                await self._rebuild(tid)
                return
            if "away" in m:
                t.away = set(m["away"])
            if "left" in m:
                left = m["left"]
                if left is None:
                    self.deadlines.pop(tid, None)
                else:
                    self.deadlines[tid] = self.clock() + float(left)
            if fresh:
                self._broadcast(t, fresh)
            elif m.get("info"):
                Hub._send_table_info(self, t)

    async def _rebuild(self, tid: str) -> None:
        """Replace the replica by the log replayed (under the table's lock), and catch watchers up."""
        old = self.tables.pop(tid, None)
        t = await self._load(tid)
        if t is not None and old is not None and t.seq > old.seq:
            missed = t.events_after(old.seq)
            if missed:
                self._broadcast(t, missed)

    # ------------------------------------------------------------------ watching a table

    async def _watch(self, tid: str) -> None:
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
        if tid not in self.owned:
            self.tables.pop(tid, None)
            self.deadlines.pop(tid, None)
            self.owner_hint.pop(tid, None)

    async def hello(self, conn: Conn, msg: dict[str, Any]) -> None:
        """Subscribe to the table first (so nothing published after the load is missed), then the
        hub's hello; a returning away player is announced to the owner."""
        first = id(conn) not in self.watching
        if first:
            self.watching.add(id(conn))
            await self._watch(conn.table_id)
        t = await self.table(conn.table_id)
        seat = t.seat_of(conn.player.id) if t is not None and conn.player is not None else None
        was_away = t is not None and seat is not None and seat in t.away
        await super().hello(conn, msg)
        if conn.player is not None:
            self._spawn(self._presence(conn.table_id, conn.player.id, True))
        if was_away and seat is not None and not self.owns(conn.table_id):
            owner = await self._owner_of(conn.table_id)
            if owner is not None and owner != self.node:
                self._send_node(owner, {"op": "back", "table": conn.table_id, "seat": seat})

    def detach(self, conn: Conn) -> None:
        """Forget a closed socket; the last one of a table ends the subscription and the replica."""
        super().detach(conn)
        if conn.player is not None and not any(c.player and c.player.id == conn.player.id
                                               for c in self.conns.get(conn.table_id, ())):
            self._spawn(self._presence(conn.table_id, conn.player.id, False))
        if id(conn) in self.watching:
            self.watching.discard(id(conn))
            self._unwatch(conn.table_id)

    def _sends_seeds(self, tid: str, player: str) -> bool:
        return any(c.seeds for c in self.conns.get(tid, ()) if c.player is not None and c.player.id == player)

    async def _presence(self, tid: str, player: str, on: bool) -> None:
        key, field = f"{self.prefix}pres:{tid}", f"{player}|{self.node}"
        with contextlib.suppress(RedisError, OSError):
            if on:
                value = f"{time.time() + 6 * self.lease_seconds}|{int(self._sends_seeds(tid, player))}"
                await self.redis.hset(key, field, value)
                await self.redis.expire(key, math.ceil(12 * self.lease_seconds))
            else:
                await self.redis.hdel(key, field)

    async def seat_connected(self, t: TableState, seat: int) -> bool:
        """Some socket of the seat's player is open on any process."""
        if self.connected(t, seat):
            return True
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

    def waiting_for_seeds(self, t: TableState) -> list[int]:
        """As on one process, plus the seated players whose sockets on other processes send client seeds
        (the owner learns them from presence, refreshed every third of a lease)."""
        out = super().waiting_for_seeds(t)
        remote = self.remote_seeders.get(t.id)
        if t.pending is None or not remote:
            return out
        sent = set(t.seats_sent())
        more = [i for i, s in enumerate(t.seats)
                if i not in out and s.player in remote and i not in t.away and i not in sent]
        return sorted(out + more)

    async def _read_seeders(self) -> None:
        """Which players of the owned tables send client seeds from other processes."""
        tids = list(self.owned)
        if not tids:
            self.remote_seeders = {}
            return
        try:
            async with self.redis.pipeline(transaction=False) as p:
                for tid in tids:
                    p.hgetall(f"{self.prefix}pres:{tid}")
                answers = await p.execute()
        except (RedisError, OSError):
            return  # keep what was known
        now, seeders = time.time(), {}
        for tid, fields in zip(tids, answers, strict=True):
            players = set()
            for k, v in fields.items():
                player, _, node = _text(k).partition("|")
                expiry, _, flag = _text(v).partition("|")
                if node != self.node and flag == "1" and float(expiry) > now:
                    players.add(player)
            if players:
                seeders[tid] = players
        self.remote_seeders = seeders

    # ------------------------------------------------------------------ forwarding to the owner

    async def handle(self, conn: Conn, msg: dict[str, Any]) -> None:
        """A client message: changes go to the table's owner; everything else is answered here."""
        if msg["type"] not in FORWARDED or not conn.attached or conn.player is None:
            await super().handle(conn, msg)
            return
        budget = time.monotonic() + 3 * self.lease_seconds + 5
        while True:
            owner = self.node if self.owns(conn.table_id) else await self._owner_of(conn.table_id)
            if owner == self.node:
                try:
                    await super().handle(conn, msg)
                    return
                except LeaseLost:
                    await self._lost(conn.table_id)
            elif owner is not None:
                outcome = await self._forward(owner, conn, msg)
                if outcome == "done":
                    return
                self.owner_hint.pop(conn.table_id, None)
            if time.monotonic() > budget:
                raise ProtocolError("unavailable", "the table's server is not reachable now: try again")
            await asyncio.sleep(0.1)

    async def _forward(self, owner: str, conn: Conn, msg: dict[str, Any]) -> str:
        assert conn.player is not None
        req = secrets.token_hex(8)
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.pending[req] = (fut, conn)
        self.stats["forwarded"] += 1
        p = conn.player
        self._send_node(owner, {"op": "req", "req": req, "table": conn.table_id, "from": self.node,
                                "player": [p.id, p.name, p.username], "msg": msg})
        try:
            return await asyncio.wait_for(fut, max(2.0, self.lease_seconds / 2))
        except TimeoutError:
            return "timeout"
        finally:
            self.pending.pop(req, None)

    def _send_node(self, node: str, message: dict[str, Any]) -> None:
        self.out.put_nowait((self._node_ch(node), json.dumps(message, separators=(",", ":")).encode()))

    async def _serve(self, m: dict[str, Any]) -> None:
        """A message forwarded by another process, handled here as the table's owner."""
        tid, req, to = str(m["table"]), str(m["req"]), str(m["from"])
        pid, name, username = m["player"]
        conn = RemoteConn(self, PlayerRow(pid, name, username), tid, to, req)
        msg = m["msg"]
        if not self.owns(tid):
            self.publish_table(tid, {"to": to, "req": req, "not_owner": True})
            return
        cid = msg.get("id") if isinstance(msg.get("id"), str) else None
        try:
            await Hub.handle(self, conn, msg)
        except ProtocolError as e:
            conn.error(e.code, e.reason, cid, e.extra)
        except LeaseLost:
            await self._lost(tid)
            self.publish_table(tid, {"to": to, "req": req, "not_owner": True})
            return
        except Exception:
            log.exception("error handling a forwarded message at table %s", tid)
            conn.error("internal", "the server could not handle that message", cid)
        self.publish_table(tid, {"to": to, "req": req, "done": True})

    async def _player_back(self, tid: str, seat: int) -> None:
        async with self.locks[tid]:
            t = self.tables.get(tid)
            if t is None or not self.owns(tid) or seat not in t.away:
                return
            t.away.discard(seat)
            self._send_table_info(t)
            self.schedule(t)

    async def _owner_of(self, tid: str) -> str | None:
        """The table's owner: known, or read from its lease; a table nobody holds is taken here."""
        if tid in self.owned:
            return self.node
        hint = self.owner_hint.get(tid)
        if hint is not None:
            return hint
        lease = await self.db(self.leases.get, tid)
        if lease is None or lease.expires_in <= 0:
            if await self._acquire(tid):
                return self.node
            lease = await self.db(self.leases.get, tid)
        if lease is None or lease.expires_in <= 0:
            return None
        self.owner_hint[tid] = lease.owner
        return lease.owner

    # ------------------------------------------------------------------ ownership

    async def adopt(self, table_id: str) -> None:
        """A table made here is owned here."""
        await self._acquire(table_id)

    async def _acquire(self, tid: str) -> bool:
        """Take the table's lease if it is free; rebuild it from the log and set bots and timers going."""
        if self.stopping:
            return False
        async with self.locks[tid]:
            if tid in self.owned:
                return True
            try:
                epoch = await self.db(self.leases.acquire, tid)
            except Exception:
                log.exception("could not acquire table %s", tid)
                return False
            if epoch is None:
                return False
            self.owned[tid] = epoch
            self.owner_hint[tid] = self.node
            self.stats["takeovers"] += epoch > 1
            await self._rebuild(tid)
            t = self.tables.get(tid)
            if t is None:
                self.owned.pop(tid, None)
                return False
            if t.over:
                with contextlib.suppress(Exception):
                    await self._finish(t)
            seconds = t.settings.get("turn_seconds")
            if seconds and epoch > 1:  # a takeover: a turn whose time ran out meanwhile gets the restart grace
                grace = min(float(seconds), RESTART_GRACE) * self.time_scale
                self.grace[tid] = (t.last_game_seq, self.clock() + grace)
            if t.pending is not None:  # a deal waiting for client seeds: its window runs here now
                self._arm_seed_timer(t)
            self.schedule(t)
            self.publish_table(tid, {"rows": [], "away": [], "left": self._left(tid), "info": True})
            await self._lobby_put(t)
            log.info("node %s owns table %s (epoch %d)", self.node, tid, epoch)
            return True

    def _drop(self, tid: str) -> bool:
        """Stop acting as the table's owner (no lock needed); ``False`` if it was not owned."""
        if self.owned.pop(tid, None) is None:
            return False
        log.warning("node %s lost table %s", self.node, tid)
        self.owner_hint.pop(tid, None)
        h = self.timers.pop(tid, None)
        if h is not None:
            h.cancel()
        self.deadlines.pop(tid, None)
        self.armed.pop(tid, None)
        seed_timer = self.seed_timers.pop(tid, None)
        if seed_timer is not None:
            seed_timer[1].cancel()
        return True

    async def _lost(self, tid: str) -> None:
        """Another process owns the table now: stop acting for it; keep a replica for watchers here."""
        if self._drop(tid):
            await self._after_lost(tid)

    async def _after_lost(self, tid: str) -> None:
        async with self.locks[tid]:
            if self.watchers.get(tid):
                await self._rebuild(tid)
            else:
                self.tables.pop(tid, None)

    def keeps(self, table_id: str) -> bool:
        """Only the owner rebuilds a table after a failed write (a replica is rebuilt by ``_after_lost``)."""
        return table_id in self.owned

    def schedule(self, t: TableState) -> None:
        """Only the owner arms bots and turn timers (a turn's deadline comes from the log, so it is the
        same on whichever process owns the table)."""
        if t.id in self.owned:
            super().schedule(t)

    def _left(self, tid: str) -> float | None:
        d = self.deadlines.get(tid)
        return None if d is None else max(0.0, d - self.clock())

    async def _commit(self, t: TableState, rows: list[EventRow]) -> None:
        """The hub's commit (fenced write, local broadcast, bots and timers), then the rows to every
        other process with watchers."""
        if t.id not in self.owned:  # a replica never writes (nor deals: the owner settles its deals)
            if not rows:
                return
            self._spawn(self._after_lost(t.id))  # the caller changed the replica: rebuild it
            raise LeaseLost(f"table {t.id} is not owned by this process")
        try:
            await super()._commit(t, rows)
        except LeaseLost:  # under the table's lock: drop it now, rebuild the replica afterwards
            if self._drop(t.id):
                self._spawn(self._after_lost(t.id))
            raise
        if not rows:
            return
        self.publish_table(t.id, {"rows": [_row_json(r) for r in rows], "away": sorted(t.away),
                                  "left": self._left(t.id)})
        if any(r.kind in ("seat", "deal", "over") for r in rows):
            await self._lobby_put(t)
        if t.over:
            epoch = self.owned.pop(t.id, None)
            if epoch is not None:
                with contextlib.suppress(Exception):
                    await self.db(self.leases.release, t.id, epoch)

    def _send_table_info(self, t: TableState) -> None:
        super()._send_table_info(t)
        if t.id in self.owned:
            self.publish_table(t.id, {"rows": [], "away": sorted(t.away), "left": self._left(t.id), "info": True})

    # ------------------------------------------------------------------ the lobby

    async def _lobby_put(self, t: TableState) -> None:
        key = f"{self.prefix}lobby"
        with contextlib.suppress(RedisError, OSError):
            if t.row.public and not t.over:
                await self.redis.hset(key, t.id, json.dumps({"at": t.row.created_at, "info": t.info()}))
            else:
                await self.redis.hdel(key, t.id)

    async def lobby(self, limit: int = 100) -> list[dict[str, Any]]:
        """Open public tables as their owners last published them, newest first."""
        try:
            entries = await self.redis.hgetall(f"{self.prefix}lobby")
        except (RedisError, OSError):
            return await super().lobby(limit)
        items = [json.loads(v) for v in entries.values()]
        items.sort(key=lambda e: -float(e["at"]))
        return [e["info"] for e in items if e["info"]["status"] != "over"][:limit]

    def login_limiter(self, limit: int, window: float) -> RedisLimiter:
        """Failed logins counted in Redis."""
        return RedisLimiter(self, limit, window)

    def status(self) -> dict[str, Any] | None:
        """What this process holds (for operators and tests)."""
        return {"node": self.node, "owned": sorted(self.owned), "watching": sorted(self.watchers),
                "in_memory": sorted(self.tables), **self.stats}

    # ------------------------------------------------------------------ the lease loop

    async def _maintain(self) -> None:
        """Every third of a lease: renew leases (noticing lost ones), take a share of ownerless tables,
        refresh presence and the lobby, and check replicas against the log."""
        period = self.lease_seconds / 3
        while True:
            try:
                await self._maintain_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster maintenance failed")
            await asyncio.sleep(period)

    async def _maintain_once(self) -> None:
        held = await self.db(self.leases.renew)
        for tid, epoch in list(self.owned.items()):
            if held.get(tid) != epoch:
                await self._lost(tid)
        nodes = 1
        try:
            now = time.time()
            key = f"{self.prefix}nodes"
            await self.redis.zadd(key, {self.node: now})
            await self.redis.zremrangebyscore(key, 0, now - 3 * self.lease_seconds)
            nodes = max(1, int(await self.redis.zcard(key)))
        except (RedisError, OSError):
            pass
        if not self.stopping:
            orphans = await self.db(self.leases.orphans, 200)
            share = math.ceil(len(orphans) / nodes)
            for tid in orphans[:share]:
                await self._acquire(tid)
        await self._refresh_redis()
        await self._read_seeders()
        replicas = [tid for tid in self.watchers if tid in self.tables and tid not in self.owned]
        if replicas:
            seqs = await self.db(self.leases.max_seqs, replicas)
            for tid in replicas:
                t = self.tables.get(tid)
                q = self.inq.get(tid)
                if t is not None and q is not None and seqs.get(tid, 0) > t.seq:
                    q.put_nowait({"sync": True})

    async def _refresh_redis(self) -> None:
        """Presence of the sockets here and the lobby entries of the tables owned here, in one pipeline
        (Redis may have been restarted empty)."""
        until = str(time.time() + 6 * self.lease_seconds)
        try:
            async with self.redis.pipeline(transaction=False) as p:
                for tid, conns in list(self.conns.items()):
                    players = {c.player.id for c in conns if c.player is not None}
                    if players:
                        key = f"{self.prefix}pres:{tid}"
                        p.hset(key, mapping={f"{pid}|{self.node}": f"{until}|{int(self._sends_seeds(tid, pid))}"
                                             for pid in players})
                        p.expire(key, math.ceil(12 * self.lease_seconds))
                for tid in list(self.owned):
                    t = self.tables.get(tid)
                    if t is not None and t.row.public and not t.over:
                        p.hset(f"{self.prefix}lobby", tid, json.dumps({"at": t.row.created_at, "info": t.info()}))
                await p.execute()
        except (RedisError, OSError):
            pass


__all__ = ["ClusterHub", "FencedLog", "RedisLimiter", "RemoteConn"]
