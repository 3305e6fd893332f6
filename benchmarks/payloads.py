"""The CPU of building what a table sends for one event: ``--tables`` tables of two people and two
computers (standard rules), played ``--events`` events each by seeded random choices through the
server's own table (``TableState``); each event's encoded messages for the two people, as the hub builds
them (``seeded_tables.payloads``: the engine's change for a card, else the shared state compared), are
timed with ``time.process_time``, the collector off.
This is the part of the server's CPU per event that grows with the viewers (``docs/server.md``); the load
bench (``spades bench server``) measures the whole. A report, never a pass/fail check::

    .venv/bin/python benchmarks/payloads.py --baseline /tmp/base/src --rounds 3

With ``--baseline`` (the ``src`` of another checkout) each round runs that checkout's code and then this
one's, each in a process of its own, on the same games; the ratio is of the medians.

On a shared machine the CPU times of such rounds can differ by a third from one round to the next.
``--instructions`` counts instead, under ``valgrind --tool=callgrind`` (Debian's ``valgrind``), the
machine instructions of the same games played twice, once with the payloads built and once without: the
difference divided by the events is what building them costs, the same from run to run whatever else the
machine is doing (and some 50 times slower to run, so use fewer tables)::

    .venv/bin/python benchmarks/payloads.py --baseline /tmp/base/src --instructions --tables 40 --events 300
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def measure(tables: int, events: int, build: bool = True) -> dict[str, float]:
    """Microseconds of CPU per event, and the events timed, for the code on ``sys.path`` (``build`` False:
    the games are played but no payload is built, for ``--instructions``)."""
    from seeded_tables import new_tables, next_rows, payloads

    games = new_tables(tables)
    shown: list[Any] = [None] * tables
    spent = 0.0
    timed = 0
    gc.disable()
    for step in range(1, events + 1):
        for i, (t, rng) in enumerate(games):
            rows = next_rows(t, rng, step)
            if rows is None:
                continue
            timed += 1
            if not build:
                continue
            start = time.process_time()
            shown[i] = payloads(t, rows, [0, 2], shown[i])[1]
            spent += time.process_time() - start
    gc.enable()
    return {"us_per_event": round(spent / timed * 1e6, 1), "events": timed}


def instructions(src: str, tables: int, events: int) -> float:
    """Machine instructions per event that building the payloads costs, for the code of ``src``: the
    same games counted under callgrind with and without them."""
    env = {**os.environ, "PYTHONPATH": src}
    # Once without callgrind first, so that both counted runs load the modules compiled (neither compiles).
    subprocess.run([sys.executable, __file__, "--json", "--tables", "1", "--events", "5"], env=env,
                   capture_output=True, check=True)
    counts = []
    events_seen = 0
    for build in (True, False):
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", sys.executable,
                                  __file__, "--json", "--tables", str(tables), "--events", str(events),
                                  *([] if build else ["--no-build"])],
                                 env=env, capture_output=True, text=True, check=True)
        collected = re.search(r"Collected : (\d+)", out.stderr)
        assert collected is not None, out.stderr[-500:]
        counts.append(int(collected.group(1)))
        events_seen = int(json.loads(out.stdout.strip().splitlines()[-1])["events"])
    return (counts[0] - counts[1]) / events_seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--events", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline", help="the src folder of another checkout")
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions under valgrind's callgrind instead of timing (one round)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one measurement, in a child
    ap.add_argument("--no-build", action="store_true", help=argparse.SUPPRESS)  # (--instructions' second run)
    args = ap.parse_args()
    if args.json:
        print(json.dumps(measure(args.tables, args.events, build=not args.no_build)))
        return
    here = str(Path(__file__).resolve().parent.parent / "src")
    sources = ([("baseline", args.baseline)] if args.baseline else []) + [("this", here)]
    if args.instructions:
        counted = {name: instructions(src, args.tables, args.events) for name, src in sources}
        print(f"instructions per event for two viewers ({args.tables} tables, {args.events} events each):")
        for name, value in counted.items():
            print(f"{name:10}{value:>12,.0f}")
        if args.baseline:
            print(f"baseline / this: {counted['baseline'] / counted['this']:.3f}")
        return
    got: dict[str, list[float]] = {name: [] for name, _ in sources}
    for _ in range(args.rounds):
        for name, src in sources:
            out = subprocess.run([sys.executable, __file__, "--json", "--tables", str(args.tables), "--events",
                                  str(args.events)], env={**os.environ, "PYTHONPATH": src},
                                 capture_output=True, text=True, check=True)
            got[name].append(json.loads(out.stdout)["us_per_event"])
    print(f"us of CPU per event for two viewers ({args.tables} tables, {args.events} events each), each round:")
    for name, values in got.items():
        print(f"{name:10}" + "".join(f"{v:>8.1f}" for v in values) + f"   median {statistics.median(values):.1f}")
    if args.baseline:
        print(f"baseline / this: {statistics.median(got['baseline']) / statistics.median(got['this']):.2f}")


if __name__ == "__main__":
    main()
