"""The memory a table holds as its game goes on: ``--tables`` tables of two people and two computers
(standard rules), played to ``--events`` events each by seeded random choices through the server's own
table (``TableState``) and what it has shown its viewers (``seeded_tables.payloads``), traced with
``tracemalloc``. The load bench (``spades bench server``) measures memory once everyone is dealt in,
which cannot show what grows with the game: this does. A report, never a pass/fail check::

    .venv/bin/python benchmarks/table_memory.py --baseline /tmp/base/src

With ``--baseline`` (the ``src`` of another checkout) the same games are played by that checkout's code
first, in a process of its own, and both are printed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

MARKS = (25, 100, 300, 600, 1000)


def measure(tables: int, events: int) -> dict[str, float]:
    """KiB per table after each of ``MARKS`` (up to ``events``), for the code on ``sys.path``."""
    from seeded_tables import new_tables, next_rows, payloads

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    games = new_tables(tables)
    shown: list[Any] = [None] * tables
    out: dict[str, float] = {}
    for step in range(1, events + 1):
        for i, (t, rng) in enumerate(games):
            rows = next_rows(t, rng, step)
            if rows is not None:
                shown[i] = payloads(t, rows, [0, 2, None], shown[i])[1]
        if step in MARKS:
            gc.collect()
            out[str(step)] = round((tracemalloc.get_traced_memory()[0] - base) / tables / 1024, 1)
    tracemalloc.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--events", type=int, default=max(MARKS))
    ap.add_argument("--baseline", help="the src folder of another checkout")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one measurement, for --baseline
    args = ap.parse_args()
    if args.json:
        print(json.dumps(measure(args.tables, args.events)))
        return
    rows = {}
    if args.baseline:
        got = subprocess.run([sys.executable, __file__, "--json", "--tables", str(args.tables), "--events",
                              str(args.events)], env={**os.environ, "PYTHONPATH": args.baseline},
                             capture_output=True, text=True, check=True)
        rows["baseline"] = json.loads(got.stdout)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    rows["this"] = measure(args.tables, args.events)
    print(f"KiB per table ({args.tables} tables of two people and two computers) after N events:")
    print(f"{'':10}" + "".join(f"{m:>9}" for m in rows["this"]))
    for name, r in rows.items():
        print(f"{name:10}" + "".join(f"{v:>9.1f}" for v in r.values()))


if __name__ == "__main__":
    main()
