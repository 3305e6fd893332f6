"""Several ``spades serve`` processes on one PostgreSQL schema and one Redis prefix (real processes,
real sockets): actions reach a table's owner from any process, events reach every process's watchers,
a kill -9 of an owner moves its tables, a Redis restart loses nothing (gaps are read from the log), a
rolling restart keeps every game going. Without PostgreSQL or Redis these skip (under CI=true they
fail)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from spades.server.cli import cluster_problem
from spades.server.table import TableState
from spades.storage import open_storage
from spades.storage.lease import Leases
from spades.storage.sql import SqlStorage

from .cluster_harness import Cluster, Node, cluster_fixture, free_redis_port
from .harness import Player, Sock, anonymous_sock, event, settle, wait_turn
from .test_play import choose


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    yield from cluster_fixture(lease=2.0)


@dataclass
class Game:
    """A table with people on different processes (and bots), and a spectator on a third."""

    tid: str
    players: dict[int, Player]
    socks: dict[int, Sock]
    where: dict[int, Node]
    spectator: Sock
    spectator_node: Node
    acted: list[str] = field(default_factory=list)

    def all_socks(self) -> list[Sock]:
        return [*self.socks.values(), self.spectator]


def rebind(p: Player, node: Node) -> None:
    """The same person (same session cookie) now reaches another process (as behind a balancer)."""
    p.base, p.ws_base = node.url, node.ws_url
    p.http = httpx.Client(base_url=node.url, timeout=30, cookies={"spades_session": p.token})


def new_game(owner: Node, partner: Node, watcher: Node, target: int = 500) -> Game:
    """Seat 0 on ``owner`` (where the table is made), seat 2 on ``partner``, random bots in 1 and 3."""
    p0, p2 = Player(owner.url, owner.ws_url), Player(partner.url, partner.ws_url)
    r = p0.http.post("/api/tables", json={"rules": {"preset": "standard", "target": target}, "public": True,
                                          "turn_seconds": None, "bot_level": "random"})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    s0 = p0.sock(tid)
    s2 = p2.sock(tid)
    s2.send({"type": "sit", "seat": 2, "id": "sit"})
    assert s2.until(lambda m: m.get("id") == "sit")["type"] == "ack"
    s2.send({"type": "fill", "level": "random", "id": "fill"})
    assert s2.until(lambda m: m.get("id") == "fill")["type"] == "ack"
    spec = anonymous_sock(watcher.ws_url, tid)
    g = Game(tid, {0: p0, 2: p2}, {0: s0, 2: s2}, {0: owner, 2: partner}, spec, watcher)
    wait_turn(g.all_socks(), g.socks)
    return g


def move(g: Game, timeout: float = 30) -> bool:
    """One person's move once every socket agrees (``False``: the game is over)."""
    seat = wait_turn(g.all_socks(), g.socks, timeout)
    if seat is None:
        return False
    cid = f"m{len(g.acted)}-{g.tid}"
    ack = g.socks[seat].act(choose(g.socks[seat].view), cid=cid)  # type: ignore[arg-type]
    assert ack["type"] == "ack", ack
    g.acted.append(cid)
    return True


def reconnect(g: Game, dead: Node, to: Node) -> None:
    """Every socket of ``g`` on ``dead`` reconnects to ``to`` with the last event number it saw."""
    for seat, node in list(g.where.items()):
        if node is dead:
            old = g.socks[seat]
            rebind(g.players[seat], to)
            s = g.players[seat].sock(g.tid, last_seq=old.seq)
            s.state, s.table = old.state, old.table
            g.socks[seat], g.where[seat] = s, to
    if g.spectator_node is dead:
        old = g.spectator
        s = anonymous_sock(to.ws_url, g.tid)
        g.spectator, g.spectator_node = s, to
        del old


def check_log(db_url: str, g: Game) -> None:
    """Every socket is on the last event; the log is 1..N without a hole, replays, and holds every
    acknowledged client id exactly once."""
    settle(g.all_socks(), 0.5)
    seqs = {s.seq for s in g.all_socks()}
    st = open_storage(db_url)
    try:
        rows = st.load_events(g.tid)
        row = st.get_table(g.tid)
    finally:
        st.close()
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert seqs == {len(rows)}, (seqs, len(rows))
    ids = [r.client_id for r in rows if r.kind == "action" and r.client_id]
    assert sorted(ids) == sorted(g.acted)
    assert row is not None
    t = TableState(row)
    t.replay(rows)  # the engine's checked apply accepts every logged action again
    states = [{k: v for k, v in (s.state or {}).items() if k != "turn"} for s in [g.spectator]]
    assert states[0]["view"] == t.game_state(None)["view"]


@pytest.mark.slow
def test_actions_and_events_cross_processes(cluster: Cluster) -> None:
    a, b = cluster.add_many(2)
    g = new_game(a, b, b)
    assert cluster.owner(g.tid) is a
    for _ in range(6):
        assert move(g)
    # The lobby of either process shows the table, seated as it is.
    for n in (a, b):
        lobby = httpx.get(n.url + "/api/lobby", timeout=10).json()["tables"]
        mine = [t for t in lobby if t["id"] == g.tid]
        assert mine and [s["kind"] for s in mine[0]["seats"]] == ["human", "bot", "human", "bot"]
    # A bad message is refused by the owner and the error reaches the sender on the other process.
    s2 = g.socks[2]
    s2.send({"type": "action", "id": "bad", "action": {"play": "ZZ"}})
    err = s2.until(lambda m: m.get("id") == "bad")
    assert err["type"] == "error" and err["code"] == "illegal"
    # Chat from the other process reaches everyone; a duplicate id is acknowledged once.
    s2.send({"type": "chat", "text": "hi", "id": "c1"})
    assert s2.until(lambda m: m.get("id") == "c1")["type"] == "ack"
    s2.send({"type": "chat", "text": "hi", "id": "c1"})
    assert s2.until(lambda m: m.get("id") == "c1").get("duplicate") is True
    settle(g.all_socks(), 0.3)
    assert all(any(event(m).get("text") == "hi" for m in s.received) for s in g.all_socks())
    # Failed logins count across processes: five on one process block the sixth on the other.
    ok = Player(a.url, a.ws_url)
    ok.http.post("/api/register", json={"username": "clu_ann", "password": "secret-pass"})
    wrong, right = {"username": "clu_ann", "password": "wrong-pass"}, {"username": "clu_ann", "password": "secret-pass"}
    for _ in range(5):
        assert httpx.post(a.url + "/api/login", json=wrong).status_code == 401
    assert httpx.post(b.url + "/api/login", json=right).status_code == 429
    assert b.status()["forwarded"] >= 3
    check_log(cluster.db_url, g)


@pytest.mark.slow
def test_a_computers_seat_taken_through_another_process_waits_for_the_next_deal(cluster: Cluster) -> None:
    """Issue 15's seat grab, forwarded: a player on another process than the table's owner asks for the
    bot partner's seat mid-hand; the owner keeps it for the next deal and nobody shows its cards before."""
    from .test_attacks import bot_table, play_hand_out, sit, views_seen

    n0, n1 = cluster.add(), cluster.add()
    a, b = Player(n0.url, n0.ws_url), Player(n1.url, n1.ws_url)
    tid, sa = bot_table(a)
    sb = b.sock(tid)
    ack = sit(sb, 2, "grab")
    assert ack["type"] == "ack" and ack.get("waiting") == 2, ack
    settle([sa, sb], 0.3)
    assert sb.table is not None and sb.table["seats"][2]["waiting"]["player"] == b.me["id"]
    assert sb.view is not None and sb.view["seat"] is None
    play_hand_out(sa, sb)
    assert views_seen(sb, 2, 1) == []
    assert sb.table is not None and sb.table["seats"][2]["player"] == b.me["id"]


@pytest.mark.slow
def test_an_idle_table_leaves_its_owners_memory_and_comes_back(cluster: Cluster) -> None:
    """Issue 15: a table nobody uses leaves its owner's memory (the owner keeps the lease), and a move sent
    through another process loads it again from the log on the owner."""
    from .test_play import choose

    n0 = cluster.add(extra=["--idle-table-seconds", "1"])
    n1 = cluster.add(extra=["--idle-table-seconds", "1"])
    p = Player(n0.url, n0.ws_url)
    tid = p.http.post("/api/play", json={"rules": "standard", "bot_level": "random"}).json()["id"]
    s = p.sock(tid)
    s.until(lambda m: m.get("state") is not None and m["state"]["view"] is not None
            and m["state"]["view"]["to_act"] == 0)
    settle([s], 0.3)
    seq = s.seq
    s.close()
    end = time.monotonic() + 30
    while tid in n0.status()["in_memory"] and time.monotonic() < end:
        time.sleep(0.2)
    st = n0.status()
    assert tid not in st["in_memory"] and tid in st["owned"], st
    rebind(p, n1)
    s1 = p.sock(tid, last_seq=seq)
    settle([s1], 0.3)
    assert s1.view is not None and s1.seq == seq
    assert s1.act(choose(s1.view))["type"] == "ack"
    assert tid in n0.status()["in_memory"]


@pytest.mark.slow
def test_a_table_goes_to_the_process_its_people_are_on(cluster: Cluster) -> None:
    """Routing to the owner (issue 19): a table made on one process whose only person plays through
    another is handed over to that one (the next epoch), and from then on a move made there crosses no
    Redis hop: nothing is forwarded or served elsewhere. The log holds every move once and replays."""
    a, b = cluster.add_many(2)
    p = Player(a.url, a.ws_url)
    r = p.http.post("/api/tables", json={"rules": {"preset": "standard", "target": 500}, "public": True,
                                         "turn_seconds": None, "bot_level": "random"})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    assert cluster.owner(tid) is a
    rebind(p, b)  # the balancer sends the person to b (no socket of the table ever opens on a)
    s = p.sock(tid)
    s.send({"type": "fill", "level": "random", "id": "fill"})  # forwarded to the owner, a
    assert s.until(lambda m: m.get("id") == "fill")["type"] == "ack"
    g = Game(tid, {0: p}, {0: s}, {0: b}, anonymous_sock(b.ws_url, tid), b)
    end = time.monotonic() + 30
    while cluster.owner(tid) is not b and time.monotonic() < end:
        time.sleep(0.2)
    assert cluster.owner(tid) is b, cluster.logs()
    sa, sb = a.status(), b.status()
    assert sa["handovers"] == 1 and tid not in sa["in_memory"] and sb["takeovers"] == 1, (sa, sb)
    st = open_storage(cluster.db_url)
    try:
        assert isinstance(st, SqlStorage)
        lease = Leases(st, "reader", 2.0).get(tid)
    finally:
        st.close()
    assert lease is not None and lease.owner == sb["node"] and lease.epoch == 2
    for _ in range(4):
        assert move(g)
    after_a, after_b = a.status(), b.status()
    assert after_b["forwarded"] == sb["forwarded"] and after_a["served"] == sa["served"], (after_a, after_b)
    assert after_b["batches"] > sb["batches"]  # the moves were published, once each batch, for replicas
    check_log(cluster.db_url, g)


@pytest.mark.slow
def test_a_player_on_another_process_gives_a_seed_every_hand(cluster: Cluster) -> None:
    """The owner waits for the client seed of a player whose socket is on another process, on every hand
    (it learns who sends seeds from presence), so that seed is in the deal and not refused as late."""
    a, b = cluster.add_many(2)
    p0, p2 = Player(a.url, a.ws_url), Player(b.url, b.ws_url)
    r = p0.http.post("/api/tables", json={"rules": {"preset": "standard", "target": 500, "lose_at": -1000},
                                          "public": True, "turn_seconds": None, "bot_level": "random"})
    tid = r.json()["id"]
    s0 = p0.sock(tid)  # sends no seeds: the owner need not wait for seat 0
    s2 = p2.sock(tid, seeds=True)
    for msg in ({"type": "sit", "seat": 2, "id": "sit"}, {"type": "fill", "level": "random", "id": "fill"}):
        s2.send(msg)
        assert s2.until(lambda m, i=msg["id"]: m.get("id") == i)["type"] == "ack"
    spec = anonymous_sock(b.ws_url, tid)
    g = Game(tid, {0: p0, 2: p2}, {0: s0, 2: s2}, {0: a, 2: b}, spec, b)
    assert cluster.owner(tid) is a

    def event_of(kind: str, hand: int) -> dict[str, Any]:
        def match(m: dict[str, Any]) -> bool:
            return event(m).get("kind") == kind and event(m).get("hand") == hand
        got = [m for m in s2.received if match(m)] or [s2.until(match, timeout=30)]
        return event(got[0])

    for hand in (0, 1):
        commit = event_of("commit", hand)
        seed = f"far-away-{hand}"
        s2.send({"type": "seed", "hand": hand, "commitment": commit["commitment"], "seed": seed, "id": f"s{hand}"})
        ack = s2.until(lambda m, h=hand: m.get("id") == f"s{h}")
        assert ack["type"] == "ack", (hand, ack)
        deal = event_of("deal", hand)
        assert deal["client_seeds"][2] == seed and deal["client_seeds"][0] == "(none)", deal["client_seeds"]
        if hand == 0:  # play the first hand out: each person bids once and plays 13 cards
            # The owner reads who sends seeds from presence every third of a lease; this player has been
            # at the table for a while before a hand ends (a real hand takes minutes, this one a second).
            # (Not before the first seed: the first deal waits for it only the seed window, 4 s.)
            time.sleep(cluster.lease)
            for _ in range(2 * 14):
                assert move(g)
    check_log(cluster.db_url, g)


@pytest.mark.slow
def test_kill_9_of_a_busy_owner_moves_its_tables(cluster: Cluster) -> None:
    nodes = cluster.add_many(3)
    games = [new_game(nodes[i], nodes[(i + 1) % 3], nodes[(i + 2) % 3]) for i in range(3)]
    # A fourth table on the doomed process with a 1-second turn timer and a person who never moves but
    # stays connected on another process (so the seat is never marked away): only turn timers, re-armed
    # by the next owner, keep it going after the kill.
    idle = Player(nodes[0].url, nodes[0].ws_url)
    r = idle.http.post("/api/play", json={"bot_level": "random", "turn_seconds": 1})
    assert r.status_code == 200, r.text
    timed = r.json()["id"]
    rebind(idle, nodes[1])
    idle_sock = idle.sock(timed)
    for _ in range(4):
        for g in games:
            assert move(g)
    busy = games[0]
    dead = cluster.owner(busy.tid)
    assert dead is nodes[0]
    # An action in flight to the owner at the moment it dies, sent by the person on another process.
    seat = wait_turn(busy.all_socks(), busy.socks)
    assert seat is not None
    in_flight = choose(busy.socks[seat].view)  # type: ignore[arg-type]
    busy.socks[seat].send({"type": "action", "id": "in-flight", "action": in_flight})
    st = open_storage(cluster.db_url)

    def timeouts() -> int:
        return sum(r.kind == "action" and r.data.get("by") == "timeout" for r in st.load_events(timed))

    wait_until = time.monotonic() + 20
    while timeouts() < 1 and time.monotonic() < wait_until:  # the timer runs on the first owner
        time.sleep(0.2)
    before = timeouts()
    assert before >= 1
    dead.kill9()
    alive = [n for n in nodes if n is not dead]
    for g in games:
        reconnect(g, dead, alive[0])
    # Sent again with the same id (its ack may have been lost): applied exactly once.
    ack = busy.socks[seat].act(in_flight, cid="in-flight")
    assert ack["type"] == "ack", ack
    busy.acted.append("in-flight")
    again = busy.socks[seat].act(in_flight, cid="in-flight")
    assert again.get("duplicate") is True and again["seq"] == ack["seq"]
    for _ in range(4):
        for g in games:
            assert move(g)
    for g in games:
        owners = [n for n in alive if g.tid in n.status()["owned"]]
        assert len(owners) == 1
        check_log(cluster.db_url, g)
    assert sum(n.status()["takeovers"] for n in alive) >= 1
    try:
        deadline = time.monotonic() + 30
        while timeouts() < before + 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert timeouts() >= before + 2, (before, timeouts())
    finally:
        st.close()
        idle_sock.close()


def redis_answers(url: str, proc: subprocess.Popen[bytes]) -> None:
    """Wait until the Redis just started answers PING (it starts slowly on a loaded machine)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=1)
    end = time.monotonic() + 30
    try:
        while True:
            try:
                if client.ping():
                    return
            except redis.RedisError:
                pass
            assert proc.poll() is None and time.monotonic() < end, "the test's Redis did not start"
            time.sleep(0.05)
    finally:
        client.close()


@pytest.mark.slow
def test_redis_restarted_mid_game(cluster: Cluster) -> None:
    port = free_redis_port()
    cmd = ["/usr/bin/redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    if not os.path.exists(cmd[0]):
        pytest.skip("no /usr/bin/redis-server for a Redis of the test's own")
    redis_proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        cluster.redis_url = f"redis://127.0.0.1:{port}/0"
        redis_answers(cluster.redis_url, redis_proc)  # a serve started before it listens refuses to start
        a, b = cluster.add_many(2)
        g = new_game(a, b, b)
        for _ in range(3):
            assert move(g)
        while wait_turn(g.all_socks(), g.socks) != 0:  # until the person on the owner's process is to act
            assert move(g)
        # Redis goes away; that person plays on (the owner stores and tells its own sockets; what it
        # publishes is lost), then Redis comes back empty.
        redis_proc.send_signal(signal.SIGKILL)
        redis_proc.wait(5)
        s0 = g.socks[0]
        assert s0.act(choose(s0.view), cid="during-outage")["type"] == "ack"  # type: ignore[arg-type]
        g.acted.append("during-outage")
        time.sleep(0.5)
        redis_proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(5):
            assert move(g, timeout=40)
        assert b.status()["gaps_filled"] >= 1
        check_log(cluster.db_url, g)
    finally:
        redis_proc.kill()
        redis_proc.wait(5)


@pytest.mark.slow
def test_rolling_restart_of_every_process(cluster: Cluster) -> None:
    nodes = cluster.add_many(2)
    games = [new_game(nodes[i], nodes[1 - i], nodes[1 - i]) for i in range(2)]
    for g in games:
        assert move(g)
    for old in list(nodes):
        # An action in flight while the process shuts down (SIGTERM hands its tables over).
        g = games[0]
        seat = wait_turn(g.all_socks(), g.socks)
        assert seat is not None
        action = choose(g.socks[seat].view)  # type: ignore[arg-type]
        cid = f"roll-{old.port}"
        g.socks[seat].send({"type": "action", "id": cid, "action": action})
        old.stop()
        fresh = cluster.add()
        other = next(n for n in cluster.nodes if n is not old and n.proc is not None and n.proc.poll() is None
                     and n is not fresh)
        for gm in games:
            reconnect(gm, old, other)
        ack = g.socks[seat].act(action, cid=cid)
        assert ack["type"] == "ack", ack
        g.acted.append(cid)
        for gm in games:
            for _ in range(2):
                assert move(gm)
        nodes = [n for n in nodes if n is not old] + [fresh]
    assert all(n.proc is not None and n.proc.poll() is not None for n in cluster.nodes[:2])
    for g in games:
        check_log(cluster.db_url, g)
        assert sum(g.tid in n.status()["owned"] for n in nodes) == 1


@pytest.mark.slow
def test_serve_refuses_redis_without_postgresql(tmp_path: Any) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SPADES_DATABASE_URL"}
    r = subprocess.run([sys.executable, "-m", "spades.cli", "serve", "--database", f"sqlite:///{tmp_path}/x.db",
                        "--redis", "redis://127.0.0.1:6379/0"], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2 and "--redis needs a PostgreSQL --database" in r.stderr
    assert not os.path.exists(tmp_path / "x.db")
    sqlite = f"sqlite:///{tmp_path}/x.db"
    assert "--workers above 1 needs --redis" in (cluster_problem(sqlite, None, 2, 5.0) or "")
    assert "must be a redis://" in (cluster_problem("postgresql://u@h/d", "http://x", 1, 5.0) or "")
    assert "--workers must be at least 1" in (cluster_problem(None, None, 0, 5.0) or "")
    assert "--lease-seconds must be" in (cluster_problem("postgresql://u@h/d", "redis://h", 1, 0.01) or "")
    assert "cannot reach Redis" in (cluster_problem("postgresql://u@h/d", "redis://127.0.0.1:1/0", 1, 5.0) or "")
    assert cluster_problem(sqlite, None, 1, 5.0) is None


@pytest.mark.slow
def test_workers_share_one_port(cluster: Cluster) -> None:
    port = free_redis_port()
    env = {k: v for k, v in os.environ.items() if k != "SPADES_DATABASE_URL"}
    log = open(cluster.logdir / "workers.log", "ab")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "spades.cli", "serve", "--port", str(port), "--workers", "2",
                             "--database", cluster.db_url, "--redis", cluster.redis_url, "--redis-prefix",
                             cluster.prefix, "--bot-delay", "0"], stdout=log, stderr=log, env=env)
    try:
        url = f"http://127.0.0.1:{port}"
        nodes: set[str] = set()
        # Two workers start (slowly on a loaded machine) and new connections land on either: wait for
        # both to answer, as long as the process lives, within a generous deadline.
        deadline = time.monotonic() + 180
        while len(nodes) < 2 and time.monotonic() < deadline and proc.poll() is None:
            try:
                nodes.add(httpx.get(url + "/api/cluster", timeout=5).json()["node"])
            except (httpx.HTTPError, KeyError):
                time.sleep(0.2)
        assert len(nodes) == 2, cluster.logs()
        one = Node(cluster.db_url, cluster.redis_url, cluster.prefix, cluster.logdir, port=port)  # not launched
        g = new_game(one, one, one)
        for _ in range(6):
            assert move(g)
        check_log(cluster.db_url, g)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.mark.slow
def test_logout_closes_the_sessions_sockets_on_every_process(cluster: Cluster) -> None:
    """Issue 15: logging out on one process closes that session's sockets on the others too (a person's
    sockets may sit anywhere behind the balancer); another person's socket there stays open."""
    a, b = cluster.add_many(2)
    p = Player(a.url, a.ws_url)
    made = p.http.post("/api/play", json={"rules": "standard", "bot_level": "random"}).json()
    tid = made["id"]
    other = Player(b.url, b.ws_url)
    rebind(p, b)
    mine, theirs = p.sock(tid), other.sock(tid, invite=made["invite"])
    settle([mine, theirs], 0.3)
    rebind(p, a)
    assert p.http.post("/api/logout").status_code == 200
    end = time.monotonic() + 20
    closed = False
    while not closed and time.monotonic() < end:
        try:
            mine.recv(timeout=0.5)
        except TimeoutError:
            with contextlib.suppress(Exception):
                mine.send({"type": "ping"})
        except Exception:  # the server closed the socket
            closed = True
    assert closed
    theirs.send({"type": "ping"})
    assert theirs.until(lambda m: m.get("type") == "pong")["type"] == "pong"
