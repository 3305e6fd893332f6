"""Issue 15's table-side figures: chat lines stored per second from one player's 10 sockets, and the memory
of idle tables before and after they leave memory. A report, never a pass/fail check.

Run from the repository root (``PYTHONPATH=src``, or another checkout's ``src`` for a "before" figure)::

    .venv/bin/python benchmarks/table_limits.py chat
    .venv/bin/python benchmarks/table_limits.py memory --tables 300

``chat``: 10 sockets of one player each send 15 chat lines a second for 5 seconds (within the per-socket
flood limit); the lines in the log are counted. ``memory``: tables made over HTTP, traced with
``tracemalloc``; then, where the server has ``Hub.evict_idle``, the idle tables are dropped and traced again.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.server.harness import LiveServer, Player, Sock

from spades.server.config import ServerConfig
from spades.storage import open_storage

NO_HTTP_QUOTAS = {"tables": "none", "requests": "none", "guests": "none"}


def chat(seconds: float = 5.0, sockets: int = 10, rate: int = 15) -> None:
    """Chat lines stored per second from one player's sockets."""
    url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'chat.db'}"
    srv = LiveServer(ServerConfig(database_url=url, quotas=dict(NO_HTTP_QUOTAS))).start()
    p = Player(srv.url, srv.ws_url)
    tid = p.http.post("/api/tables", json={"rules": "standard"}).json()["id"]
    socks = [p.sock(tid) for _ in range(sockets)]

    def flood(s: Sock, i: int) -> None:
        end, k = time.monotonic() + seconds, 0
        while time.monotonic() < end:
            s.send({"type": "chat", "id": f"c{i}-{k}", "text": f"spam {k}"})
            k += 1
            time.sleep(1 / rate)

    def drain(s: Sock) -> None:
        try:
            while True:
                s.recv(timeout=2)
        except Exception:
            return

    threads = [threading.Thread(target=flood, args=(s, i)) for i, s in enumerate(socks)]
    threads += [threading.Thread(target=drain, args=(s,)) for s in socks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    srv.stop()
    st = open_storage(url)
    n = sum(1 for r in st.load_events(tid) if r.kind == "chat")
    st.close()
    print(f"chat lines stored: {n} in {seconds:g} s from {sockets} sockets of one player sending "
          f"{sockets * rate}/s together: {n / seconds:.1f} lines/s")


def memory(tables: int) -> None:
    """Traced memory of idle tables, before and after ``evict_idle``."""
    kw: dict[str, Any] = {"database_url": f"sqlite:///{Path(tempfile.mkdtemp()) / 'mem.db'}",
                          "quotas": dict(NO_HTTP_QUOTAS)}
    evicts = "idle_table_seconds" in ServerConfig.__dataclass_fields__
    if evicts:
        kw["idle_table_seconds"] = 1e6  # nothing leaves while the tables are made
    srv = LiveServer(ServerConfig(**kw)).start()
    p = Player(srv.url, srv.ws_url)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(tables):
        assert p.http.post("/api/tables", json={"rules": "standard"}).status_code == 200
    gc.collect()
    made = tracemalloc.get_traced_memory()[0] - base
    print(f"{tables} idle tables in memory: +{made / 1024:.0f} KiB traced ({made / tables / 1024:.2f} KiB a table)")
    hub = getattr(srv.app.state, "hub", None)
    if evicts and hub is not None:
        hub.idle_table_seconds = 0.0
        hub.evict_idle()  # the server is quiet: called from this thread
        gc.collect()
        left = tracemalloc.get_traced_memory()[0] - base
        print(f"after evict_idle: +{left / 1024:.0f} KiB traced, {len(hub.tables)} tables in memory")
    else:
        print("this server never drops tables from memory")
    srv.stop()


def main() -> None:
    """Parse the arguments and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["chat", "memory"])
    ap.add_argument("--tables", type=int, default=300, help="idle tables to make (memory)")
    args = ap.parse_args()
    if args.what == "chat":
        chat()
    else:
        memory(args.tables)


if __name__ == "__main__":
    main()
