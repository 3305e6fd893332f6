"""Server memory per open table socket: one ``spades serve`` on a fresh SQLite site, ``--sockets``
spectator sockets opened on one table (each says ``hello`` and gets its snapshot), the server's RSS read
before and after. With ``--baseline`` the same is run on another checkout's server right before, and the
ratio is reported::

    .venv/bin/python benchmarks/socket_memory.py --sockets 1000 --baseline /tmp/base/src

A spectator's socket is what every socket costs beyond its table (a seated person's socket holds the same
objects); the tables' own memory is in ``spades bench server``'s ``kib_per_connection``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websockets

from spades.server import bench


def measure(src: str, sockets: int) -> float:
    """KiB of server RSS per open spectator socket, for the server of ``src``."""
    port = bench._free_port()
    env = {**os.environ, "PYTHONPATH": src}
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-m", "spades.cli", "serve", "--port", str(port),
                                 "--database", f"sqlite:///{tmp}/bench.db", *bench._no_quotas(env)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    bench._http("GET", f"{base}/healthz")
                    break
                except OSError:
                    time.sleep(0.1)
            table = bench._run(bench._setup([base], 2))[0][0]
            hello = json.dumps({"type": "hello", "v": bench._protocol_version(env), "last_seq": None})

            async def go() -> float:
                before = bench._rss_kib(proc.pid)
                opened = []
                for _ in range(sockets):
                    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/tables/{table}", ping_interval=None,
                                                  max_size=2**22)
                    await ws.send(hello)
                    await ws.recv()  # welcome
                    await ws.recv()  # snapshot
                    opened.append(ws)
                await asyncio.sleep(1.0)
                after = bench._rss_kib(proc.pid)
                for ws in opened:
                    await ws.close()
                return (after - before) / sockets

            return asyncio.run(go())
        finally:
            proc.terminate()
            proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sockets", type=int, default=1000)
    ap.add_argument("--baseline", help="the src folder of another checkout")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent.parent / "src")
    out: dict[str, float] = {}
    if args.baseline:
        out["baseline_kib_per_socket"] = round(measure(args.baseline, args.sockets), 1)
    out["kib_per_socket"] = round(measure(here, args.sockets), 1)
    if args.baseline:
        out["baseline_over_this"] = round(out["baseline_kib_per_socket"] / out["kib_per_socket"], 2)
    print(json.dumps({"sockets": args.sockets, **out}))


if __name__ == "__main__":
    main()
