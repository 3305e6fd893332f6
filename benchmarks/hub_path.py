"""CPU of the server's own path per table event, without sockets (and, unless asked, without a database): the
hub (``spades.server.hub``) in one process, ``--tables`` tables of two people and two random computers
(as ``spades bench server`` seats them), every person answering at once on its turn, for this checkout
and, with ``--baseline``, another one, run alternately in the same minutes so that the machine's load
falls on both alike::

    .venv/bin/python benchmarks/hub_path.py --tables 200 --seconds 8 --rounds 3 --baseline /tmp/base/src

What it counts is the event loop thread's CPU per table event: a person's message handled (``Hub.handle``:
the action parsed, checked and applied, its rows made), the group commit's hand-off (to a storage in
memory, on the database thread, not counted), the broadcast (each viewer's payload built, encoded and
written: the sockets' writes are a function that keeps nothing), the bots' moves and their timers. The
simulated people's own work (choosing a legal move) is timed and taken off. The load bench
(``spades bench server``) measures the same path with the sockets and SQLite; this one sees differences
of a few per cent that the load bench's noise hides.

``--database sqlite`` stores the log in a fresh SQLite file, and the figure is then the whole process's
CPU (the database thread's included); ``--think 1`` with ``--tables 2500`` has the load bench's 5,000
players thinking a second a move, so the commits are as small and the tables as many as there::

    .venv/bin/python benchmarks/hub_path.py --tables 2500 --seconds 10 --database sqlite --think 1 \
        --baseline /tmp/base/src
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ONE_RUN = r"""
import asyncio, gc, json, sys, time
import uvloop
from seeded_tables import hub_people  # (benchmarks/, on the path after the checkout's src)
from spades.core.view import action_to_dict, view_hand
from spades.server.hub import Hub
from spades.server.protocol import ProtocolError
from spades.storage.memory import MemoryStorage

tables, seconds, sqlite, think = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == "sqlite", float(sys.argv[4])


async def main():
    try:  # the collector as ``spades serve`` sets it (at 2,500 tables Python's default costs a sixth more)
        from spades.server.cli import tune_gc
    except ImportError:
        pass
    else:
        tune_gc()
    if sqlite:  # the server's own log, in a fresh file: its database thread's CPU is in process_us_per_event
        import tempfile
        from spades.storage import open_storage
        st = open_storage(f"sqlite:///{tempfile.mkdtemp()}/hub.db")
    else:
        st = MemoryStorage()
    hub = Hub(st, bot_delay=0)
    await hub.start()
    driver = [0.0]
    stop = asyncio.Event()
    errors = []

    async def person(conn, seat, woken, rng):
        k = 0
        while not stop.is_set():
            await woken.wait()
            woken.clear()
            t0 = time.thread_time()
            t = hub.tables.get(conn.table_id)
            if t is None or t.over:
                driver[0] += time.thread_time() - t0
                return
            if not t.started or t.to_act() != seat:
                driver[0] += time.thread_time() - t0
                continue
            if think:  # a person thinking, as in the load bench: 0.5-1.5 times the mean
                driver[0] += time.thread_time() - t0
                await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
                t0 = time.thread_time()
                if t.over or t.to_act() != seat:
                    driver[0] += time.thread_time() - t0
                    continue
            k += 1
            action = rng.choice(view_hand(t.game.hand, seat).legal)
            msg = {"type": "action", "id": f"c{k}", "seq": t.seq, "action": action_to_dict(action)}
            driver[0] += time.thread_time() - t0
            try:
                await hub.handle(conn, msg)
            except ProtocolError as e:  # (a fault of this script: counted, and the table goes on)
                errors.append(e.code)
                woken.set()

    people = await hub_people(hub, st, tables)
    tasks = [asyncio.create_task(person(*p)) for p in people]
    for _, _, woken, _ in people:
        woken.set()
    await asyncio.sleep(0.5)  # past the first deals
    gc.collect()
    e0, c0, d0, p0 = sum(t.seq for t in hub.tables.values()), time.thread_time(), driver[0], time.process_time()
    await asyncio.sleep(seconds)
    e1, c1, d1, p1 = sum(t.seq for t in hub.tables.values()), time.thread_time(), driver[0], time.process_time()
    stop.set()
    for p in people:
        p[2].set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await hub.stop()
    events = e1 - e0
    print(json.dumps({"events": events, "us_per_event": 1e6 * ((c1 - c0) - (d1 - d0)) / max(1, events),
                      "process_us_per_event": 1e6 * ((p1 - p0) - (d1 - d0)) / max(1, events),
                      "driver_us_per_event": 1e6 * (d1 - d0) / max(1, events), "errors": len(errors)}))


uvloop.run(main())  # (the server's loop)
"""


def _run(src: str, tables: int, seconds: float, database: str = "memory", think: float = 0.0) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((src, str(Path(__file__).resolve().parent)))}
    out = subprocess.run([sys.executable, "-c", ONE_RUN, str(tables), str(seconds), database, str(think)], env=env,
                         check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    """Parse the arguments, run the rounds and print each checkout's median."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=8.0, help="seconds measured in each run")
    ap.add_argument("--rounds", type=int, default=3, help="alternate runs of each checkout")
    ap.add_argument("--baseline", help="the src folder of another checkout")
    ap.add_argument("--database", choices=("memory", "sqlite"), default="memory",
                    help="the hub's storage: in memory, or SQLite in a fresh file (the figure is then the whole "
                         "process's CPU, the database thread's included)")
    ap.add_argument("--think", type=float, default=0.0,
                    help="mean seconds a person thinks before a move (0: at once; 1 with --tables 2500 is the load "
                         "bench's 5,000 players)")
    a = ap.parse_args()
    here = str(Path(__file__).resolve().parent.parent / "src")
    sides = {"this": here, **({"baseline": a.baseline} if a.baseline else {})}
    got: dict[str, list[float]] = {k: [] for k in sides}
    for _ in range(a.rounds):
        for name, src in sides.items():
            run = _run(src, a.tables, a.seconds, a.database, a.think)
            if run["errors"]:
                sys.exit(f"{name}: {run['errors']} messages were refused; the figure would not be the path's")
            got[name].append(run["process_us_per_event" if a.database == "sqlite" else "us_per_event"])
    whose = "the process's" if a.database == "sqlite" else "the loop's"
    print(f"µs of {whose} CPU per table event ({a.tables} tables, {a.seconds:g} s a run), each round:")
    for name, xs in got.items():
        med = sorted(xs)[len(xs) // 2]
        print(f"{name:10}" + "".join(f"{x:8.1f}" for x in xs) + f"   median {med:.1f}")
    if a.baseline:
        meds = {k: sorted(v)[len(v) // 2] for k, v in got.items()}
        print(json.dumps({"us_per_event": meds, "baseline_over_this": round(meds["baseline"] / meds["this"], 3)}))


if __name__ == "__main__":
    main()
