"""The computer players' figures: the strength ladder, the ISMCTS baseline match, decision times.

Run from the repository root, e.g.::

    .venv/bin/python benchmarks/bots.py ladder --deals 200
    .venv/bin/python benchmarks/bots.py baseline --deals 100 --budget 0.16 --cpu-clock
    .venv/bin/python benchmarks/bots.py times --hands 20
    .venv/bin/python benchmarks/bots.py merge run1.json run2.json

Each prints one JSON object per match or level (the ``spades arena`` / ``spades bench bots`` shapes), so
the numbers in ``benchmarks/README.md`` can be re-measured. These are reports, never pass/fail checks.
``merge`` pools ``spades arena --json`` results of the same match run on disjoint deals (different
``--seed`` values, e.g. two processes in parallel): the pairs are pooled, so the interval is exact.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from spades.ai.arena import decision_times, merge_arenas, run_arena
from spades.variants import load_rules


def main() -> None:
    """Parse the arguments and run the chosen figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["ladder", "baseline", "times", "merge"])
    p.add_argument("files", nargs="*", help="merge: arena JSON files (one result each)")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--hands", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--budget", type=float, default=None, help="seconds a card for expert and ismcts")
    p.add_argument("--rules", default="standard")
    p.add_argument("--cpu-clock", action="store_true",
                   help="count the searching levels' budget in CPU time (fair when the machine is busy)")
    args = p.parse_args()
    if args.what == "merge":
        if len(args.files) < 1:
            p.error("merge needs at least one arena JSON file")
        try:
            runs = [json.loads(Path(f).read_text()) for f in args.files]
            print(json.dumps(merge_arenas(runs)))
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"error: cannot merge: {e}", file=sys.stderr)
            raise SystemExit(2) from e
        return
    rules = load_rules(args.rules)
    if args.what == "ladder":
        for a, b in (("easy", "random"), ("normal", "easy"), ("expert", "normal")):
            t0 = time.perf_counter()
            result = run_arena(rules, a, b, args.deals, seed=args.seed, budget=args.budget, cpu_clock=args.cpu_clock)
            result["seconds"] = round(time.perf_counter() - t0, 1)
            print(json.dumps(result), flush=True)
    elif args.what == "baseline":
        t0 = time.perf_counter()
        result = run_arena(rules, "expert", "ismcts", args.deals, seed=args.seed, budget=args.budget,
                           cpu_clock=args.cpu_clock)
        result["seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps(result), flush=True)
    else:
        for level in ("easy", "normal", "expert"):
            print(json.dumps(decision_times(rules, level, args.hands, seed=args.seed, budget=args.budget)), flush=True)


if __name__ == "__main__":
    main()
