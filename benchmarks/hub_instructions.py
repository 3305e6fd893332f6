"""Machine instructions per table event on the server's own path, counted under valgrind's callgrind: a
figure that the machine's load does not move, for changes of a few per cent that timed rounds on a shared
machine cannot tell apart (``hub_path.py`` rounds of the same code spread ±8% there)::

    .venv/bin/python benchmarks/hub_instructions.py --baseline /tmp/base/src

What runs is the hub (``spades.server.hub``) in one process: 20 tables of two people and two random
computers (as ``spades bench server`` seats them, table ids of 32 characters), the log in a fresh SQLite
file, every person answering at once on its turn with a legal move of its own seeded generator. The games
are the same from run to run and from one checkout to the other (every server seed is derived from the
table and hand, every computer has a seed of its own, ``PYTHONHASHSEED=0``), so the two checkouts play the
same hands. Each checkout runs twice, to ``--short`` and to ``--long`` events in all; the figure is the
difference of the two counts over the difference of the events, so that start-up (imports, the tables'
creation) falls out. It counts every thread's user-space instructions (the database thread's included),
not the kernel's, and not the sockets' (the people's messages are handed to the hub directly).

The same code counted twice differs by well under 1%. Needs ``valgrind`` (Debian's package); each count
takes about 20 s for 1,000 events.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ONE_RUN = r"""
import asyncio, hashlib, json, sys, tempfile, zlib
import uvloop
import spades.ai.base
import spades.shuffle.fair as fair
from seeded_tables import hub_people  # (benchmarks/, on the path after the checkout's src)
from spades.core.view import action_to_dict
from spades.server.cli import tune_gc
from spades.server.hub import Hub
from spades.server.protocol import ProtocolError
from spades.storage import open_storage

target, tables = int(sys.argv[1]), int(sys.argv[2])
spades.ai.base._SHARED_RNG.seed(13)  # (every computer here has a seed of its own; this is for any other use)


def server_seed():  # the table's and hand's own, so that the deals do not depend on the order tables deal in
    t = sys._getframe(1).f_locals["self"]
    return hashlib.sha256(f"{t.id}:{getattr(t.game, 'hand_count', len(t.game.hands))}".encode()).hexdigest()


fair.new_server_seed = server_seed


FIRST_MOVES = 12  # moves of each table compared between runs: fewer than any table has when a short run stops


def first_moves(t, st):  # a table's first moves (all in its first hand), as its record writes them
    from spades.core.actions import Accept, Look
    from spades.core.view import action_to_dict
    written = getattr(t, "hand_records", None)  # (older code: a table kept each hand it let go, written)
    if written is None and hasattr(st, "hand_records"):
        written = st.hand_records(t.id)  # (the log keeps them)
    if written:
        return json.loads(zlib.decompress(written[0]))["actions"][:FIRST_MOVES]
    return [action_to_dict(a) for a in t.game.hands[0].actions if not isinstance(a, Look | Accept)][:FIRST_MOVES]


async def main():
    tune_gc()
    st = open_storage(f"sqlite:///{tempfile.mkdtemp()}/hub.db")
    hub = Hub(st, bot_delay=0)
    await hub.start()
    done = asyncio.Event()
    refused = []

    async def person(conn, seat, woken, rng):
        k = 0
        while not done.is_set():
            await woken.wait()
            woken.clear()
            t = hub.tables.get(conn.table_id)
            if t is None or t.over:
                return
            if not t.started or t.to_act() != seat:
                continue
            k += 1
            action = rng.choice(t.game.hand.legal_actions(seat))
            msg = {"type": "action", "id": f"c{k}", "seq": t.seq, "action": action_to_dict(action)}
            try:
                await hub.handle(conn, msg)
            except ProtocolError as e:  # (a fault of this script: reported)
                refused.append(e.code)
                woken.set()
            if sum(x.seq for x in hub.tables.values()) >= target:
                done.set()

    people = await hub_people(hub, st, tables, lambda i: f"{i:04d}" + "x" * 28, seeded_bots=True)
    tasks = [asyncio.create_task(person(*p)) for p in people]
    for _, _, woken, _ in people:
        woken.set()
    await done.wait()
    for p in people:
        p[2].set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await hub.stop()
    # The games played, for a check that two runs play the same ones: each table's first moves (the run
    # stops at a total, so a table may play on a move or two more in one run than in another: a short run's
    # tables have some 25 moves each, and comparing their first 30 compared where the run stopped).
    games = hashlib.sha256(repr([(x.id, first_moves(x, st)) for x in hub.tables.values()]).encode()).hexdigest()
    print(json.dumps({"events": sum(x.seq for x in hub.tables.values()), "refused": len(refused), "games": games}))


uvloop.run(main())
"""


def run_env(src: str) -> dict[str, str]:
    """The environment ``ONE_RUN`` runs in for the checkout at ``src`` (its ``spades``, then this folder's
    ``seeded_tables``; string hashes fixed)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join((src, str(Path(__file__).resolve().parent))),
            "PYTHONHASHSEED": "0"}


def _count(src: str, events: int, tables: int) -> tuple[int, int]:
    """(instructions, events) of one run of ``ONE_RUN`` under callgrind."""
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/out", sys.executable, "-c",
                              ONE_RUN, str(events), str(tables)], env=run_env(src), check=True, capture_output=True,
                             text=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise SystemExit(f"callgrind gave no count:\n{out.stderr[-2000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if got["refused"]:
        raise SystemExit(f"the hub refused {got['refused']} of the script's moves")
    return int(found.group(1)), int(got["events"])


def per_event(src: str, short: int, long: int, tables: int) -> dict[str, float]:
    """Instructions a table event between ``short`` and ``long`` events, for the checkout at ``src``."""
    i1, e1 = _count(src, short, tables)
    i2, e2 = _count(src, long, tables)
    return {"events": e2 - e1, "instructions_per_event": (i2 - i1) / max(1, e2 - e1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--short", type=int, default=1000, help="events of the first run (start-up and a first count)")
    ap.add_argument("--long", type=int, default=3000, help="events of the second run")
    ap.add_argument("--baseline", help="the src folder of another checkout")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.long <= args.short:
        raise SystemExit("--long must be more events than --short")
    here = str(Path(__file__).resolve().parents[1] / "src")
    out: dict[str, object] = {"this": per_event(here, args.short, args.long, args.tables)}
    if args.baseline:
        out["baseline"] = per_event(args.baseline, args.short, args.long, args.tables)
        this, base = out["this"], out["baseline"]
        assert isinstance(this, dict) and isinstance(base, dict)
        out["this_over_baseline"] = round(this["instructions_per_event"] / base["instructions_per_event"], 4)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
