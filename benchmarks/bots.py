"""The computer players' figures: the strength ladder, the ISMCTS baseline match, decision times.

Run from the repository root, e.g.::

    .venv/bin/python benchmarks/bots.py ladder --deals 200
    .venv/bin/python benchmarks/bots.py baseline --deals 100 --budget 0.16
    .venv/bin/python benchmarks/bots.py times --hands 20

Each prints one JSON object per match or level (the ``spades arena`` / ``spades bench bots`` shapes), so
the numbers in ``benchmarks/README.md`` can be re-measured. These are reports, never pass/fail checks.
"""

from __future__ import annotations

import argparse
import json
import time

from spades.ai.arena import decision_times, run_arena
from spades.variants import load_rules


def main() -> None:
    """Parse the arguments and run the chosen figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["ladder", "baseline", "times"])
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--hands", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--budget", type=float, default=None, help="seconds a card for expert and ismcts")
    p.add_argument("--rules", default="standard")
    args = p.parse_args()
    rules = load_rules(args.rules)
    if args.what == "ladder":
        for a, b in (("easy", "random"), ("normal", "easy"), ("expert", "normal")):
            t0 = time.perf_counter()
            result = run_arena(rules, a, b, args.deals, seed=args.seed, budget=args.budget)
            result["seconds"] = round(time.perf_counter() - t0, 1)
            print(json.dumps(result), flush=True)
    elif args.what == "baseline":
        t0 = time.perf_counter()
        result = run_arena(rules, "expert", "ismcts", args.deals, seed=args.seed, budget=args.budget)
        result["seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps(result), flush=True)
    else:
        for level in ("easy", "normal", "expert"):
            print(json.dumps(decision_times(rules, level, args.hands, seed=args.seed, budget=args.budget)), flush=True)


if __name__ == "__main__":
    main()
