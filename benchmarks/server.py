"""The server load benchmark: simulated players over real WebSockets against ``spades serve``.

Run from the repository root, e.g.::

    .venv/bin/python benchmarks/server.py --players 100,250,500,1000 --seconds 10

It is ``spades bench server --json`` (``spades.server.bench``): one JSON object with a row per step
(players, tables, actions_per_s, p50_ms / p95_ms / p99_ms from an action to every human seat of the table
receiving its event, kib_per_connection once everyone is dealt in and kib_per_connection_end at the end
of the window, rss_mb, errors) and ``p95_over_100ms_at``. A report, never a
pass/fail check; the figures are in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import json

from spades.server.bench import run_bench


def main() -> None:
    """Parse the arguments and print the figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", default="100,250,500,1000", help="simultaneous players per step, comma separated")
    p.add_argument("--seconds", type=float, default=10.0, help="seconds measured at each step")
    p.add_argument("--think", type=float, default=1.0, help="mean think time of a simulated player, seconds")
    p.add_argument("--baseline", default=None,
                   help="the src folder of another checkout: its server runs first at each step, for ratios")
    p.add_argument("--processes", default="1", help="server processes per step, comma separated (above 1: --redis)")
    p.add_argument("--database", default=None, help="with --redis: a PostgreSQL URL (a fresh schema per step)")
    p.add_argument("--redis", default=None, help="redis://...: run each step as a site of several processes")
    a = p.parse_args()
    steps = [int(x) for x in a.players.split(",") if x.strip()]
    ks = [int(x) for x in a.processes.split(",") if x.strip()]
    print(json.dumps(run_bench(steps, a.seconds, a.think, a.baseline, ks, a.database, a.redis), indent=1))


if __name__ == "__main__":
    main()
