"""CPU per stored event in the server's group commit (``SqlStorage.append_many``: the rows of many tables
in one transaction), for this checkout and, with ``--baseline``, another one, run alternately in the same
minutes so that the machine's load falls on both alike::

    .venv/bin/python benchmarks/group_commit.py --tables 40 --commits 300 --baseline /tmp/base/src

Each commit stores one event for each of ``--tables`` tables on a fresh SQLite file; the figure is the
process CPU time per event stored (the database thread's cost per move on a busy server).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ONE_RUN = r"""
import json, sys, tempfile, time
from spades.storage import open_storage
from spades.storage.base import EventRow, TableRow
tables, commits = int(sys.argv[1]), int(sys.argv[2])
with tempfile.TemporaryDirectory() as d:
    st = open_storage(f"sqlite:///{d}/bench.db", 5.0)
    for i in range(tables):
        st.create_table(TableRow(f"t{i}", "standard", {}, True, None, "p", time.time()))
    seq = [0] * tables
    def commit():
        batch = []
        for i in range(tables):
            seq[i] += 1
            data = {"action": {"a": "play", "seat": seq[i] % 4, "card": seq[i] % 52}, "by": "bot"}
            batch.append((f"t{i}", [EventRow(seq[i], "action", data, None, None, None)]))
        assert not any(st.append_many(batch))
    commit()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(commits):
        commit()
    print(json.dumps({"us_cpu_per_event": 1e6 * (time.process_time() - cpu) / (commits * tables),
                      "ms_per_commit": 1e3 * (time.perf_counter() - wall) / commits}))
"""


def run(src: str, tables: int, commits: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", ONE_RUN, str(tables), str(commits)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3, help="alternate runs of each checkout")
    ap.add_argument("--baseline", help="the src folder of another checkout")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent.parent / "src")
    rows: dict[str, list[float]] = {"this": [], "baseline": []}
    for _ in range(args.rounds):
        if args.baseline:
            rows["baseline"].append(run(args.baseline, args.tables, args.commits)["us_cpu_per_event"])
        rows["this"].append(run(here, args.tables, args.commits)["us_cpu_per_event"])
    best = {k: min(v) for k, v in rows.items() if v}
    print(json.dumps({"tables_per_commit": args.tables, "us_cpu_per_event": best,
                      **({"baseline_over_this": round(best["baseline"] / best["this"], 2)} if args.baseline else {})}))


if __name__ == "__main__":
    main()
