"""CPU per stored event in the server's group commit (``SqlStorage.append_many``: the rows of many tables
in one transaction), for this checkout and, with ``--baseline``, another one, run alternately in the same
minutes so that the machine's load falls on both alike::

    .venv/bin/python benchmarks/group_commit.py --tables 40 --commits 300 --baseline /tmp/base/src

Each commit stores one event for each of ``--tables`` tables on a fresh SQLite file; the figure is the
process CPU time per event stored (the database thread's cost per move on a busy server).

``--spread N`` is closer to a busy server's log: ``--tables`` tables (say 2,500) with ids as long as the
server's, each commit one event of each of ``N`` tables drawn at random (a server at 5,000 players
commits about 12), every other one a person's with a client id, after 40 events a table were stored; the
pages a commit touches are then scattered over the event indexes, as they are on a server::

    .venv/bin/python benchmarks/group_commit.py --tables 2500 --spread 12 --commits 1700 --baseline /tmp/base/src

``--busy`` measures what a commit takes from start to end while another thread runs Python all along, as a
busy event loop does beside the server's database thread: ``sqlite3`` lets the interpreter's lock go at
each step of a statement and must take it back after, so the figure is the median milliseconds a commit
(``ms_per_commit``), not its CPU::

    .venv/bin/python benchmarks/group_commit.py --tables 2500 --spread 50 --commits 200 --busy --baseline /tmp/base/src
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ONE_RUN = r"""
import json, random, statistics, sys, tempfile, threading, time, uuid
from spades.storage import open_storage
from spades.storage.base import EventRow, TableRow
tables, commits, spread, busy = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
rng = random.Random(1)
with tempfile.TemporaryDirectory() as d:
    st = open_storage(f"sqlite:///{d}/bench.db", 5.0)
    ids = ([uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(tables)] if spread
           else [f"t{i}" for i in range(tables)])
    for t in ids:
        st.create_table(TableRow(t, "standard", {}, True, None, "p", time.time()))
    seq = dict.fromkeys(ids, 0)
    def commit(chosen):
        batch = []
        for t in chosen:
            seq[t] += 1
            person = bool(spread) and seq[t] % 2 == 1  # (--spread: every other row a person's, with a client id)
            data = {"action": {"a": "play", "seat": seq[t] % 4, "card": seq[t] % 52},
                    "by": "player" if person else "bot"}
            batch.append((t, [EventRow(seq[t], "action", data, "p" if person else None,
                                       f"c{seq[t]}-{rng.getrandbits(40):x}" if person else None, None)]))
        assert not any(st.append_many(batch))
    if spread:  # 40 events a table first, in commits of 100 tables; then N tables drawn at random a commit
        for _ in range(40):
            for i in range(0, tables, 100):
                commit(ids[i:i + 100])
        picks = [rng.sample(ids, spread) for _ in range(commits)]
    else:  # every table in every commit
        commit(ids)
        picks = [ids] * commits
    stop = threading.Event()
    def spin():  # (--busy) Python all along on another thread, as a busy event loop
        x = 0
        while not stop.is_set():
            for i in range(1000):
                x += i
    spinner = threading.Thread(target=spin) if busy else None
    if spinner:
        spinner.start()
    cpu, took = time.process_time(), []
    for chosen in picks:
        wall = time.perf_counter()
        commit(chosen)
        took.append(time.perf_counter() - wall)
    cpu = time.process_time() - cpu
    stop.set()
    if spinner:
        spinner.join()
    print(json.dumps({"us_cpu_per_event": 1e6 * cpu / (commits * len(picks[0])),
                      "ms_per_commit": 1e3 * statistics.median(took)}))
"""


def run(src: str, tables: int, commits: int, spread: int | None = None, busy: bool = False) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": src}
    args = [str(tables), str(commits), str(spread or 0), str(int(busy))]
    out = subprocess.run([sys.executable, "-c", ONE_RUN, *args], env=env, check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--spread", type=int, metavar="N",
                    help="each commit one event of N tables drawn from --tables (see above)")
    ap.add_argument("--busy", action="store_true",
                    help="another thread runs Python all along; report the median ms a commit (see above)")
    ap.add_argument("--rounds", type=int, default=3, help="alternate runs of each checkout")
    ap.add_argument("--baseline", help="the src folder of another checkout")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent.parent / "src")
    rows: dict[str, list[float]] = {"this": [], "baseline": []}
    figure = "ms_per_commit" if args.busy else "us_cpu_per_event"
    for _ in range(args.rounds):
        if args.baseline:
            rows["baseline"].append(run(args.baseline, args.tables, args.commits, args.spread, args.busy)[figure])
        rows["this"].append(run(here, args.tables, args.commits, args.spread, args.busy)[figure])
    best = {k: min(v) for k, v in rows.items() if v}
    print(json.dumps({"tables_per_commit": args.spread or args.tables, figure: best,
                      **({"baseline_over_this": round(best["baseline"] / best["this"], 2)} if args.baseline else {})}))


if __name__ == "__main__":
    main()
