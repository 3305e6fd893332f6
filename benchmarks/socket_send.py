"""Server CPU per message sent on a table socket: one ``spades serve`` on a fresh SQLite site, ``--sockets``
spectator sockets on one table, and its owner saying ``--chats`` chat lines, one at a time, each going to
every spectator (one payload, encoded once, written to every socket). The server's CPU time over the
chats, divided by the messages it sent, is what sending one message to one socket costs (each chat's
own work, its commit and its payload, is shared by all the sockets it goes to). With ``--baseline`` the
same is run on another checkout's server first and the ratio is reported::

    .venv/bin/python benchmarks/socket_send.py --sockets 1000 --chats 200 --rounds 3 --baseline /tmp/base/src

Rounds alternate the two servers (baseline, this, baseline, this...), and each server's best round is
reported, the machine being shared: the fastest round is the one least disturbed by anything else.
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
from typing import Any

import websockets

from spades.server import bench


def measure(src: str, sockets: int, chats: int) -> float:
    """Microseconds of server CPU per message sent to one socket, for the server of ``src``."""
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
            table, seats = bench._run(bench._setup([base], 1))[0]
            token = seats[0][0]
            hello = json.dumps({"type": "hello", "v": bench._protocol_version(env), "last_seq": None})
            url = f"ws://127.0.0.1:{port}/ws/tables/{table}"

            async def go() -> float:
                opened = []
                for _ in range(sockets):
                    ws = await websockets.connect(url, ping_interval=None, max_size=2**22)
                    await ws.send(hello)
                    await ws.recv()  # welcome
                    await ws.recv()  # snapshot
                    opened.append(ws)
                got = [0]
                everyone = asyncio.Event()

                async def read(ws: Any) -> None:
                    async for _ in ws:
                        got[0] += 1
                        if got[0] == sockets:
                            everyone.set()

                readers = [asyncio.create_task(read(ws)) for ws in opened]
                owner = await websockets.connect(url, ping_interval=None, max_size=2**22,
                                                 additional_headers={"Cookie": f"spades_session={token}"})
                await owner.send(hello)
                await owner.recv()
                await owner.recv()
                before = bench._cpu_seconds(proc.pid)
                for i in range(chats):
                    got[0] = 0
                    everyone.clear()
                    await owner.send(json.dumps({"type": "chat", "text": f"line {i}"}))
                    await asyncio.wait_for(everyone.wait(), 30)
                    await asyncio.sleep(0.06)  # under the socket's 20 messages a second
                spent = bench._cpu_seconds(proc.pid) - before
                for task in readers:
                    task.cancel()
                await owner.close()
                for ws in opened:
                    await ws.close()
                return spent / (chats * sockets) * 1e6

            return asyncio.run(go())
        finally:
            proc.terminate()
            proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sockets", type=int, default=1000)
    ap.add_argument("--chats", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--baseline", help="the src folder of another checkout")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent.parent / "src")
    runs: dict[str, list[float]] = {"this": [], "baseline": []}
    for _ in range(args.rounds):
        if args.baseline:
            runs["baseline"].append(measure(args.baseline, args.sockets, args.chats))
        runs["this"].append(measure(here, args.sockets, args.chats))
    out: dict[str, Any] = {"sockets": args.sockets, "chats": args.chats,
                           "us_per_message": round(min(runs["this"]), 2),
                           "rounds": [round(r, 2) for r in runs["this"]]}
    if args.baseline:
        out["baseline_us_per_message"] = round(min(runs["baseline"]), 2)
        out["baseline_rounds"] = [round(r, 2) for r in runs["baseline"]]
        out["baseline_over_this"] = round(out["baseline_us_per_message"] / out["us_per_message"], 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
