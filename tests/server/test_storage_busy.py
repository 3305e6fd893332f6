"""Issue 15, finding 5: with the SQLite file locked by another process, a move is answered "busy, try
again" (``storage_busy``) in seconds instead of hanging, nothing is half applied, the HTTP API answers 503
instead of hanging, ``/readyz`` says the database cannot be written, and once the lock is gone the same
move is stored exactly once."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from spades.storage import open_storage

from .harness import LiveServer, Player, settle
from .test_attacks import bot_table
from .test_play import choose

LOCKER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()  # held until the test closes our stdin
c.execute("ROLLBACK")
"""

BOUND = 20.0
"""A generous bound on an answer while the database is locked (the configured wait is 5 s)."""


@pytest.mark.slow
@pytest.mark.parametrize("storage_kind", ["sqlite"])  # another process locking the SQLite file
def test_a_locked_database_answers_busy_and_stores_nothing_half(live: Callable[..., LiveServer],
                                                                  tmp_path: Path) -> None:
    server = live()
    p = Player(server.url, server.ws_url)
    tid, s = bot_table(p)
    settle([s], 0.2)
    assert s.view is not None
    before, move = s.seq, choose(s.view)
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(tmp_path / "spades.db")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        t0 = time.monotonic()
        s.send({"type": "action", "id": "m1", "action": move})
        m = s.until(lambda x: x.get("id") == "m1", timeout=BOUND + 5)
        took = time.monotonic() - t0
        assert m["type"] == "error" and m["code"] == "storage_busy", m
        assert took < BOUND, took
        print(f"a move on a locked database was answered in {took:.2f} s")
        # Nothing changed: no event went out, and a fresh socket finds the table where it was.
        assert not [x for x in s.drain(0.3) if "ev" in x]
        fresh = p.sock(tid, last_seq=before)
        st = fresh.recv(timeout=BOUND)
        assert st["type"] == "state" and st["seq"] == before, st
        fresh.close()
        # The HTTP side answers at once-ish too: readiness fails, a new guest (a write) is 503.
        t0 = time.monotonic()
        r = httpx.get(server.url + "/readyz", timeout=BOUND + 5)
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage_busy", r.text
        r = httpx.get(server.url + "/api/me", timeout=BOUND + 5)
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage_busy", r.text
        assert int(r.headers["retry-after"]) >= 1
        r = httpx.get(server.url + "/api/lobby", timeout=BOUND + 5)
        assert r.status_code in (200, 503), r.text
        assert time.monotonic() - t0 < 3 * BOUND
    finally:
        if locker.stdin is not None:
            locker.stdin.close()
        locker.wait(30)
    assert httpx.get(server.url + "/readyz").status_code == 200
    ack = s.act(move, cid="m1")  # the same move again: stored now, once
    assert ack["type"] == "ack" and not ack.get("duplicate"), ack
    assert s.act(move, cid="m1").get("duplicate") is True
    st = open_storage(f"sqlite:///{tmp_path / 'spades.db'}")
    try:
        rows = st.load_events(tid)
    finally:
        st.close()
    assert [r.client_id for r in rows].count("m1") == 1
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
