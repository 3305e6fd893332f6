"""The server load benchmark behind ``spades bench server``.

For each step of N simulated players it starts a fresh ``spades serve`` process (SQLite in a temporary
folder, bots acting at once), makes N guests, seats them two to a table with two random bots, and
drives every player from asyncio clients over real WebSockets: each plays a legal move after a short
think time whenever its view says it is to act. It reports actions per second, the time from sending
an action to every human seat of the table receiving its event (p50 / p95 / p99), the server's memory
per connection, and the first N at which p95 exceeds 100 ms. The clients run on the same machine as
the server, so they share its cores: the figures are a floor, not a ceiling.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from spades.core.view import apply_event
from spades.server.protocol import PROTOCOL_VERSION, event_message

HUMANS_PER_TABLE = 2
"""Seats 0 and 2 are simulated people; seats 1 and 3 are random bots."""


@dataclass
class TableStats:
    """Send and receive times of one table's events (seconds, ``time.perf_counter``)."""

    sent: dict[int, float] = field(default_factory=dict)
    received: dict[int, list[float]] = field(default_factory=dict)
    acks: list[tuple[float, bool]] = field(default_factory=list)
    """Seconds from sending an action to its ``ack``, and whether it went through another process."""


@dataclass
class Totals:
    """Counters over a whole step."""

    actions: int = 0
    errors: int = 0
    closed: int = 0
    events: int = 0
    window: float | None = None
    """When the measured window started (``time.perf_counter``): the setup's messages are not counted."""
    window_events: int = 0
    window_event_bytes: int = 0
    """Bytes of the ``event`` messages received in the window (UTF-8), over ``window_events`` of them."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _rss_kib(pid: int | None) -> int:
    if pid is None:
        return 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _stat_cpu(stat: Path) -> float:
    """User plus system CPU seconds in a ``/proc`` ``stat`` file (a process's or a thread's; 0 when unknown)."""
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _cpu_seconds(pid: int | None) -> float:
    """User plus system CPU seconds of a process so far (0 when unknown)."""
    return 0.0 if pid is None else _stat_cpu(Path(f"/proc/{pid}/stat"))


def _thread_cpu_seconds(pid: int | None) -> dict[int, float]:
    """CPU seconds so far of each thread of a process, by thread id (empty when unknown)."""
    if pid is None:
        return {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    return {int(tid): _stat_cpu(Path(f"/proc/{pid}/task/{tid}/stat")) for tid in tids}


def busiest_thread_seconds(before: dict[int, float], after: dict[int, float]) -> float:
    """The CPU seconds the busiest thread of a process spent between two ``_thread_cpu_seconds`` readings: in
    a server under the bench, its event loop's thread (the database and bot threads do far less)."""
    return max((cpu - before.get(tid, 0.0) for tid, cpu in after.items()), default=0.0)


def server_events_in(all_stats: list[TableStats], start: float) -> int:
    """Distinct table events (actions of people and bots, deals...) first received after ``start``."""
    return sum(1 for st in all_stats for times in st.received.values() if min(times) >= start)


def _http(method: str, url: str, body: Any = None, cookie: str | None = None) -> tuple[Any, str | None]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if cookie:
        req.add_header("Cookie", f"spades_session={cookie}")
    with urllib.request.urlopen(req, timeout=60) as r:
        token = None
        for h in r.headers.get_all("Set-Cookie") or []:
            if h.startswith("spades_session="):
                token = h.split(";", 1)[0].split("=", 1)[1]
        return json.loads(r.read()), token


def _v2_event(m: dict[str, Any]) -> dict[str, Any]:
    """A protocol version 1 event message (a baseline server's) as version 2 has it, so the simulated
    players follow either (the bytes counted are the ones received)."""
    return {**event_message(m["seq"], m["event"]), **{k: m[k] for k in ("change", "state", "table") if k in m}}


def _choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = view["legal"]
    looks = [a for a in legal if "look" in a]
    if looks:
        return dict(looks[0])
    bids = [a for a in legal if isinstance(a.get("bid"), int)]
    if bids:
        return dict(min(bids, key=lambda a: abs(a["bid"] - 3)))
    options = [a for a in legal if "misdeal" not in a]
    pick = dict(rng.choice(options))
    for kind in ("pass", "discard"):  # a choice of cards: {"choose": k, "from": [...]}
        if isinstance(pick.get(kind), dict):
            pick[kind] = rng.sample(pick[kind]["from"], pick[kind]["choose"])
    return pick


async def _player(ws_url: str, token: str, table: str, seat: int, stats: TableStats, totals: Totals,
                  stop: asyncio.Event, think: float, rng: random.Random, ready: asyncio.Event,
                  alone: bool, started: list[int], remote: bool = False, version: int = PROTOCOL_VERSION) -> None:
    async with connect(f"{ws_url}/ws/tables/{table}", additional_headers={"Cookie": f"spades_session={token}"},
                       max_size=2**22, open_timeout=60, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "v": version, "last_seq": None}))
        if seat != 0:
            await ws.send(json.dumps({"type": "sit", "seat": seat, "id": "sit"}))
            while json.loads(await ws.recv()).get("id") != "sit":
                pass
        if seat == HUMANS_PER_TABLE * 2 - 2 or (seat == 0 and alone):  # the last person in calls the bots
            await ws.send(json.dumps({"type": "fill", "level": "random", "id": "fill"}))
        ready.set()
        dealt = False
        acted_at = -1
        counter = 0
        pending: asyncio.Task[None] | None = None

        async def act(view: dict[str, Any], seq: int) -> None:
            nonlocal counter
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
            if stop.is_set():
                return
            counter += 1
            cid = f"b{counter}"
            stats.sent[-counter - 1_000_000 * seat] = time.perf_counter()  # keyed by client id until the ack
            await ws.send(json.dumps({"type": "action", "id": cid, "seq": seq, "action": _choose(view, rng)}))

        shown: dict[str, Any] | None = None  # the state as the events applied make it (protocol.md, Changes)
        while not stop.is_set():  # cancelled at the end of the step
            raw = await ws.recv()
            now = time.perf_counter()
            m = json.loads(raw)
            if version == 1 and m["type"] == "event":
                m = _v2_event(m)
            kind = "event" if "ev" in m else m["type"]
            if kind == "event":
                stats.received.setdefault(m["ev"], []).append(now)
                totals.events += 1
                if totals.window is not None and now >= totals.window:
                    totals.window_events += 1
                    totals.window_event_bytes += len(raw) if isinstance(raw, bytes) else len(raw.encode())
                shown = apply_event(shown, m)
            elif kind in ("snapshot", "state"):
                shown = m["state"]
            elif kind == "ack" and m.get("id", "").startswith("b"):
                key = -int(m["id"][1:]) - 1_000_000 * seat
                t = stats.sent.pop(key, None)
                if t is not None and not m.get("duplicate"):
                    stats.sent[m["seq"]] = t
                    stats.acks.append((now - t, remote))
                    totals.actions += 1
            elif kind == "error":
                totals.errors += 1
            state = shown if kind in ("snapshot", "state") or "state" in m or "change" in m else None
            if state is None:
                continue
            view = state.get("view")
            seq = m["ev"] if kind == "event" else m["seq"]
            if view is not None and not dealt:
                dealt = True
                started[0] += 1
            if (view and view["to_act"] == seat and view["legal"] and seq > acted_at
                    and (pending is None or pending.done()) and not state["over"]):
                acted_at = seq
                pending = asyncio.create_task(act(view, seq))
        if pending is not None:
            pending.cancel()


async def _setup(bases: list[str], players: int) -> list[tuple[str, list[tuple[str, int]]]]:
    """Guests and tables: ``[(table id, [(token, seat), ...]), ...]``; table ``i`` is made on (so owned
    by) process ``i % K``."""
    base = bases[0]
    sem = asyncio.Semaphore(16)

    async def guest() -> str:
        async with sem:
            _, token = await asyncio.to_thread(_http, "GET", f"{base}/api/me")
            assert token is not None
            return token

    tokens = await asyncio.gather(*(guest() for _ in range(players)))
    tables: list[tuple[str, list[tuple[str, int]]]] = []

    made: dict[int, tuple[str, list[tuple[str, int]]]] = {}

    async def table(k: int, owner: str, partner: str | None) -> None:
        async with sem:
            body = {"rules": "standard", "public": True, "turn_seconds": None, "bot_level": "random"}
            res, _ = await asyncio.to_thread(_http, "POST", f"{bases[k % len(bases)]}/api/tables", body, owner)
            seats = [(owner, 0)] + ([(partner, 2)] if partner else [])
            made[k] = (res["id"], seats)

    pairs = [(tokens[i], tokens[i + 1] if i + 1 < len(tokens) else None)
             for i in range(0, len(tokens), HUMANS_PER_TABLE)]
    await asyncio.gather(*(table(k, a, b) for k, (a, b) in enumerate(pairs)))
    tables.extend(made[k] for k in sorted(made))
    return tables


@contextlib.contextmanager
def _site(tmp: str, database: str | None, redis: str | None) -> Iterator[list[str]]:
    """The ``spades serve`` options of a fresh site: SQLite in ``tmp``, or (with Redis) a fresh schema of
    the PostgreSQL ``database`` and a fresh Redis key prefix, both removed afterwards."""
    if not redis:
        yield ["--database", f"sqlite:///{tmp}/bench.db"]
        return
    import redis as redis_sync
    from sqlalchemy import create_engine, text

    from spades.storage.sql import normalize_url

    assert database is not None
    schema = "spades_bench_" + secrets.token_hex(5)
    prefix = f"spadesbench{secrets.token_hex(4)}:"
    admin = create_engine(normalize_url(database), isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'create schema "{schema}"'))
    sep = "&" if "?" in database else "?"
    try:
        yield ["--database", f"{database}{sep}options=-csearch_path%3D{schema}", "--redis", redis,
               "--redis-prefix", prefix]
    finally:
        with admin.connect() as c:
            c.execute(text(f'drop schema "{schema}" cascade'))
        admin.dispose()
        client = redis_sync.Redis.from_url(redis)
        keys = list(client.scan_iter(match=prefix + "*", count=500))
        if keys:
            client.delete(*keys)
        client.close()


def _no_quotas(env: dict[str, str]) -> list[str]:
    """``--quota NAME=none`` for every per-address and per-player quota of the server to run (all the
    simulated players come from one address, which the quotas are there to stop); nothing for a server
    without quotas (a baseline from before them)."""
    probe = subprocess.run([sys.executable, "-c", "from spades.server.quotas import DEFAULT_QUOTAS as q; print(*q)"],
                           env=env, capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return []
    return [arg for name in probe.stdout.split() for arg in ("--quota", f"{name}=none")]


def _protocol_version(env: dict[str, str]) -> int:
    """The protocol version of the server to run (a baseline may speak an older one)."""
    probe = subprocess.run([sys.executable, "-c", "from spades.server.protocol import PROTOCOL_VERSION as v; print(v)"],
                           env=env, capture_output=True, text=True, check=False)
    return int(probe.stdout) if probe.returncode == 0 else PROTOCOL_VERSION


def _site_counters(database: str, redis: str) -> Callable[[], dict[str, float]]:
    """Site-wide counters read at the start and the end of the measured window: PostgreSQL's committed
    transactions and rows written in the database (``pg_stat_database``, so every user of that database
    counts: give the bench one of its own) and the commands Redis processed (``INFO stats``, likewise)."""
    import redis as redis_sync
    from sqlalchemy import create_engine, text

    from spades.storage.sql import normalize_url

    def read() -> dict[str, float]:
        engine = create_engine(normalize_url(database), isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as c:
                row = c.execute(text("select xact_commit, tup_inserted + tup_updated from pg_stat_database "
                                     "where datname = current_database()")).one()
        finally:
            engine.dispose()
        client = redis_sync.Redis.from_url(redis)
        try:
            info = client.info("stats")
        finally:
            client.close()
        return {"pg_commits": float(row[0]), "pg_rows_written": float(row[1]),
                "redis_commands": float(info["total_commands_processed"])}

    return read


def _cluster_counters(bases: list[str]) -> dict[str, float]:
    """The processes' own counters (``GET /api/cluster``), summed: Redis messages they published and moves
    they forwarded to another process."""
    out = {"redis_published": 0.0, "forwarded": 0.0}
    for base in bases:
        with contextlib.suppress(OSError, ValueError):
            status, _ = _http("GET", f"{base}/api/cluster")
            out["redis_published"] += float(status.get("published", 0))
            out["forwarded"] += float(status.get("forwarded", 0))
    return out


async def _step(players: int, seconds: float, think: float, source: str | None = None, processes: int = 1,
                database: str | None = None, redis: str | None = None, routed: bool = False) -> dict[str, Any]:
    ports = [_free_port() for _ in range(processes)]
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    ws_urls = [f"ws://127.0.0.1:{p}" for p in ports]
    with tempfile.TemporaryDirectory() as tmp, _site(tmp, database, redis) as site:
        env = {k: v for k, v in os.environ.items() if k != "SPADES_DATABASE_URL"}
        if source is not None:  # the server's code from another checkout (the simulated players stay these)
            env["PYTHONPATH"] = source
        unlimited = _no_quotas(env)
        version = _protocol_version(env)
        procs = [subprocess.Popen([sys.executable, "-m", "spades.cli", "serve", "--port", str(port), *site,
                                   "--bot-delay", "0", *unlimited], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=env)
                 for port in ports]
        try:
            for base in bases:
                for _ in range(600):
                    try:
                        await asyncio.to_thread(_http, "GET", f"{base}/healthz")
                        break
                    except OSError:
                        await asyncio.sleep(0.1)
            counters = _site_counters(database, redis) if redis and database else None
            row = await drive(bases, ws_urls, players, seconds, think, [p.pid for p in procs], routed=routed,
                              counters=counters, version=version)
            row["site"] = "postgresql+redis" if redis else "sqlite"
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    return row


async def drive(bases: list[str], ws_urls: list[str], players: int, seconds: float, think: float,
                pids: list[int] | None = None, *, routed: bool = False,
                counters: Callable[[], dict[str, float]] | None = None,
                version: int = PROTOCOL_VERSION) -> dict[str, Any]:
    """Drive running servers (one or several processes of one site) with ``players`` simulated players
    for ``seconds``; the step's figures (memory and CPU figures only when the servers' ``pids`` are
    given). Table ``i`` is made on process ``i % K``; its seat 0 plays there and its seat 2 on process
    ``(i + 1) % K``, so with several processes half of the moves go through another process; ``routed``:
    both play on process ``i % K`` (as a balancer hashing the table id in the socket's URL sends every
    socket of a table to one process, its owner), so no move is forwarded. With several processes the
    step also reports what crossed Redis and PostgreSQL per table event: the processes' own counters
    (``/api/cluster``) and ``counters`` (site-wide ones) read at both ends of the window. ``version``: the
    protocol version the servers speak (a baseline's may be older)."""
    tables = await _setup(bases, players)
    k = len(bases)
    procs = pids or []

    def rss() -> int:
        return sum(_rss_kib(p) for p in procs)

    def cpu_total() -> float:
        return sum(_cpu_seconds(p) for p in procs)

    rss_before = rss()
    stop = asyncio.Event()
    totals = Totals()
    all_stats: list[TableStats] = []
    tasks = []
    started = [0]
    rng = random.Random(players)
    sem = asyncio.Semaphore(32)

    async def seat_table(i: int, tid: str, seats: list[tuple[str, int]], st: TableStats, seed: float) -> None:
        async with sem:  # tables in parallel; the people of one table in seat order
            for token, seat in seats:
                ready = asyncio.Event()
                at = (i + (seat != 0 and not routed)) % k
                tasks.append(asyncio.create_task(_player(ws_urls[at], token, tid, seat, st, totals, stop, think,
                                                         random.Random(seed + seat), ready, len(seats) == 1,
                                                         started, at != i % k, version)))
                await ready.wait()

    setups = []
    for i, (tid, seats) in enumerate(tables):
        st = TableStats()
        all_stats.append(st)
        setups.append(seat_table(i, tid, seats, st, rng.random()))
    await asyncio.gather(*setups)
    for _ in range(600):  # until every player has been dealt cards
        if started[0] >= players:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)
    rss_connected = rss()
    cluster = k > 1 or counters is not None
    before = {**(await asyncio.to_thread(_cluster_counters, bases) if cluster else {}),
              **(await asyncio.to_thread(counters) if counters else {})}
    cpu_before = cpu_total()
    threads_before = [_thread_cpu_seconds(p) for p in procs]
    client_before = time.process_time()
    start = totals.window = time.perf_counter()
    actions_before = totals.actions
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - start
    actions = totals.actions - actions_before
    rss_after = rss()
    cpu = cpu_total() - cpu_before
    loop_cpu = sum(busiest_thread_seconds(b, _thread_cpu_seconds(p)) for p, b in zip(procs, threads_before,
                                                                                      strict=True))
    client_cpu = time.process_time() - client_before
    after = {**(await asyncio.to_thread(_cluster_counters, bases) if cluster else {}),
             **(await asyncio.to_thread(counters) if counters else {})}
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat: list[float] = []
    for st, (_, seats) in zip(all_stats, tables, strict=True):
        for seq, t in st.sent.items():
            got = st.received.get(seq, [])
            if seq >= 0 and len(got) >= len(seats):
                lat.append((max(got) - t) * 1000)
    lat.sort()
    acks = [(x, remote) for st in all_stats for x, remote in st.acks]
    local_acks = sorted(1000 * x for x, remote in acks if not remote)
    remote_acks = sorted(1000 * x for x, remote in acks if remote)

    def pct(p: float, xs: list[float] | None = None) -> float | None:
        xs = lat if xs is None else xs
        return round(xs[min(len(xs) - 1, int(p * len(xs)))], 1) if xs else None

    events = max(1, server_events_in(all_stats, start))
    per_event = {f"{name}_per_event": round((after[name] - before[name]) / events, 2) for name in before}
    return {"players": players, "processes": k, "routed": routed, "tables": len(tables), "seconds": round(elapsed, 1),
            "actions": actions, "ack_p50_local_ms": pct(0.5, local_acks), "ack_p50_forwarded_ms": pct(0.5, remote_acks),
            "ack_p95_local_ms": pct(0.95, local_acks), "ack_p95_forwarded_ms": pct(0.95, remote_acks),
            "actions_per_s": round(actions / elapsed, 1), "events_received": totals.events,
            "bytes_per_event_per_viewer": round(totals.window_event_bytes / max(1, totals.window_events), 1),
            "p50_ms": pct(0.50), "p95_ms": pct(0.95), "p99_ms": pct(0.99), "errors": totals.errors,
            "rss_mb": round(rss_after / 1024, 1), "server_cpu_s": round(cpu, 2), "client_cpu_s": round(client_cpu, 2),
            "server_cpu_ms_per_event": round(1000 * cpu / events, 2), "server_events": events,
            "server_loop_cpu_s": round(loop_cpu, 2), "server_loop_cpu_ms_per_event": round(1000 * loop_cpu / events, 3),
            "kib_per_connection": round(max(0, rss_connected - rss_before) / max(1, players), 1),
            "kib_per_connection_end": round(max(0, rss_after - rss_before) / max(1, players), 1), **per_event}


@contextlib.contextmanager
def _no_collections() -> Iterator[None]:
    """No garbage collection in this process while a step runs: the simulated players' own collections
    (a young generation of 700 objects by default, and full collections of the growing timing tables)
    stopped their event loop for tens to hundreds of milliseconds, and every event that arrived meanwhile
    was counted late, as if the server were slow. A step is bounded in time and its objects are freed by
    their reference counts; what is cyclic is collected once the step is over."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()


def _run(coro: Any) -> Any:
    """Run on uvloop when it is installed (it comes with ``uvicorn[standard]``), without collections
    (``_no_collections``): the simulated players share the machine with the server, so their own
    overhead is kept low and never counted as the server's."""
    with _no_collections():
        try:
            import uvloop
        except ImportError:
            return asyncio.run(coro)
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(coro)


def run_bench(steps: list[int], seconds: float = 10.0, think: float = 1.0, baseline: str | None = None,
              processes: list[int] | None = None, database: str | None = None,
              redis: str | None = None, routed: bool = False) -> dict[str, Any]:
    """Run each step (a number of simultaneous players) on each number of ``processes`` (several need
    ``redis`` and a PostgreSQL ``database``: each step is then a site of K processes on a fresh schema
    and Redis key prefix) and return the figures.

    With ``baseline`` (the ``src`` folder of another checkout, e.g. ``git worktree add /tmp/base
    <commit>`` then ``/tmp/base/src``) each step first runs that server, then this one, back to back with
    the same simulated players, and ``ratios`` gives baseline / this for p95 and server CPU per event.
    ``routed``: every socket of a table on the process that made it (``drive``)."""
    rows: list[dict[str, Any]] = []
    ratios: list[dict[str, Any]] = []
    for n, k in [(n, k) for k in processes or [1] for n in steps]:
        if baseline is not None:
            before = dict(_run(_step(n, seconds, think, baseline, k, database, redis, routed)), server="baseline")
            rows.append(before)
        row = dict(_run(_step(n, seconds, think, None, k, database, redis, routed)), server="this")
        rows.append(row)
        if baseline is not None:
            ratios.append({"players": n, "p95": _ratio(before["p95_ms"], row["p95_ms"]),
                           "cpu_ms_per_event": _ratio(before["server_cpu_ms_per_event"],
                                                      row["server_cpu_ms_per_event"]),
                           "bytes_per_event": _ratio(before["bytes_per_event_per_viewer"],
                                                     row["bytes_per_event_per_viewer"])})
    this = [r for r in rows if r["server"] == "this" and r["processes"] == rows[0]["processes"]]
    over = next((r["players"] for r in this if r["p95_ms"] is not None and r["p95_ms"] > 100), None)
    out = {"steps": rows, "p95_over_100ms_at": over, "think_seconds": think, "humans_per_table": HUMANS_PER_TABLE}
    if baseline is not None:
        out["ratios"] = ratios
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None
