"""Several ``spades serve`` processes on one PostgreSQL schema and one Redis (with a key prefix of
their own), for the cluster tests and nothing else on the machine disturbed."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .harness import answers_healthz, free_port
from .test_storage import pg_schema_url

REDIS_URL = os.environ.get("SPADES_TEST_REDIS", "redis://127.0.0.1:6379/0")


def redis_up(url: str = REDIS_URL) -> bool:
    """Redis answers a PING."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        client.ping()
        client.close()
        return True
    except Exception:
        return False


def need_redis() -> None:
    """Skip without Redis (fail under CI=true)."""
    if not redis_up():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis at {REDIS_URL} is unreachable under CI")
        pytest.skip(f"Redis at {REDIS_URL} is unreachable")


def clear_prefix(prefix: str, url: str = REDIS_URL) -> None:
    """Delete every key under a test's prefix."""
    import redis

    with contextlib.suppress(Exception):
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
        keys = list(client.scan_iter(match=prefix + "*", count=500))
        if keys:
            client.delete(*keys)
        client.close()


class Node:
    """One ``spades serve --redis`` process."""

    def __init__(self, db_url: str, redis_url: str, prefix: str, logdir: Path, lease: float = 2.0,
                 port: int | None = None, extra: list[str] | None = None) -> None:
        self.extra = extra or []
        self.db_url, self.redis_url, self.prefix, self.lease = db_url, redis_url, prefix, lease
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.logdir = logdir
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Node:
        """Start it and wait until it answers."""
        return self.launch().wait()

    def launch(self) -> Node:
        """Start the process (``wait`` for it to answer)."""
        env = {k: v for k, v in os.environ.items() if k != "SPADES_DATABASE_URL"}
        log = open(self.logdir / f"node-{self.port}.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "spades.cli", "serve", "--port", str(self.port), "--database", self.db_url,
             "--redis", self.redis_url, "--redis-prefix", self.prefix, "--lease-seconds", str(self.lease),
             "--bot-delay", "0", *self.extra], stdout=log, stderr=log, env=env)
        log.close()
        return self

    def wait(self) -> Node:
        """Wait until it answers ``/healthz``."""
        assert self.proc is not None
        # (a loaded 2-core machine starts Python processes slowly)
        if not answers_healthz(self.url, self.proc, 120):
            log = (self.logdir / f"node-{self.port}.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"spades serve did not start (exit {self.proc.poll()}):\n{log}")
        return self

    def status(self) -> dict[str, Any]:
        """``GET /api/cluster``: node id, owned and watched tables, counters."""
        r = httpx.get(self.url + "/api/cluster", timeout=10)
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def kill9(self) -> None:
        """SIGKILL: no shutdown code runs, leases are left to expire."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self, timeout: float = 20) -> None:
        """SIGTERM (a graceful shutdown hands tables over), then wait."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Cluster:
    """Processes on one fresh schema and one Redis prefix."""

    def __init__(self, db_url: str, redis_url: str = REDIS_URL, lease: float = 2.0) -> None:
        self.db_url, self.redis_url, self.lease = db_url, redis_url, lease
        self.prefix = f"spadestest{secrets.token_hex(4)}:"
        self.logdir = Path(tempfile.mkdtemp(prefix="spades-cluster-"))
        self.nodes: list[Node] = []

    def add(self, port: int | None = None, extra: list[str] | None = None) -> Node:
        """Start one more process (``extra``: more ``spades serve`` options)."""
        n = Node(self.db_url, self.redis_url, self.prefix, self.logdir, self.lease, port, extra).start()
        self.nodes.append(n)
        return n

    def add_many(self, k: int) -> list[Node]:
        """Start ``k`` processes at once."""
        ns = [Node(self.db_url, self.redis_url, self.prefix, self.logdir, self.lease).launch() for _ in range(k)]
        self.nodes += ns
        return [n.wait() for n in ns]

    def close(self) -> None:
        """Stop every process and clear the prefix."""
        for n in self.nodes:
            if n.proc is not None and n.proc.poll() is None:
                n.proc.kill()
                n.proc.wait(5)
        clear_prefix(self.prefix, self.redis_url)
        shutil.rmtree(self.logdir, ignore_errors=True)

    def logs(self) -> str:
        """Every process's log (for a failing test's message)."""
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in sorted(self.logdir.glob("*.log")))

    def owner(self, table: str) -> Node | None:
        """The node that owns a table now."""
        for n in self.nodes:
            if n.proc is not None and n.proc.poll() is None and table in n.status()["owned"]:
                return n
        return None


def cluster_fixture(lease: float = 2.0) -> Iterator[Cluster]:
    """A cluster on a fresh schema (skipped without PostgreSQL or Redis; failed under CI)."""
    need_redis()
    gen = pg_schema_url()
    url = next(gen)
    c = Cluster(url, lease=lease)
    try:
        yield c
    finally:
        c.close()
        with pytest.raises(StopIteration):
            next(gen)


def free_redis_port() -> int:
    """A free port for a Redis of the test's own."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
