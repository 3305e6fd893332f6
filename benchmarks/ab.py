"""Paired A/B runs of expert changes against the ISMCTS baseline, with fixed search sizes.

``spades arena`` gives both searchers a time budget, so two runs of the same deals differ wherever a
search happened to stop one deal or iteration earlier; a change to the expert is then measured
against that noise (about +-8 points a deal over 250 deals). Here every search has a fixed size
instead (``--worlds`` deals a card and ``--bid-worlds`` a bid for the expert, ``--iterations`` for
the baseline), so a run is deterministic for its seed, and two runs of the same seed differ only
where the change changed a decision. The defaults keep the two searchers' ratio at 0.03 s of CPU a
card (measured on 238 positions: a median of 48 deals for the expert, about 530 iterations for the
baseline) at half the size, to run twice as fast. Each deal is
one hand from 0 to 0, played twice with the seats swapped; ``compare`` pairs two runs deal by deal.

A variant is a function that patches ``spades.ai`` before the run (``--variant FILE.py:FUNCTION``),
so an idea can be measured before it is written properly::

    .venv/bin/python benchmarks/ab.py run --deals 500 --seed 201 --out control.jsonl
    .venv/bin/python benchmarks/ab.py run --deals 500 --seed 201 --out idea.jsonl --variant ideas.py:idea
    .venv/bin/python benchmarks/ab.py compare control.jsonl idea.jsonl

Over 500 deals the paired difference of two runs is typically known to +-2 to +-4 points a deal.
Fixed sizes are for comparing strategies only: they ignore what a change costs in time, so a
change that searches more must still be measured with ``spades arena --cpu-clock``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spades.ai import bots, search
from spades.ai.arena import build_bot
from spades.core.game import Game, seeded_shuffler
from spades.core.view import view_hand
from spades.variants import load_rules


def fix_sizes(worlds: int, bid_worlds: int, iterations: int,
              patch: Callable[[object, str, object], None] = setattr) -> None:
    """Make every search run to a fixed size: no deadline, at most the given deals or iterations.
    (``patch`` sets each attribute: a test passes its ``monkeypatch.setattr`` to undo them after.)"""
    play, bid, tree = search.pimc_play, search.pimc_bid, search.ismcts_play
    patch(bots._Searcher, "_deadline", lambda self, deadline, factor=1.0: self.clock() + 1e9)
    patch(bots.ExpertBot, "_hard", staticmethod(lambda deadline: None))
    patch(bots, "pimc_play", lambda *a, **k: play(*a, **{**k, "max_worlds": worlds}))
    patch(bots, "pimc_bid", lambda *a, **k: bid(*a, **{**k, "max_worlds": bid_worlds}))
    patch(bots, "ismcts_play", lambda *a, **k: tree(*a, **{**k, "max_iterations": iterations}))


def load_variant(spec: str) -> None:
    """Run ``FILE.py:FUNCTION`` (it patches ``spades.ai`` for this process)."""
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise SystemExit(f"--variant wants FILE.py:FUNCTION, got {spec!r}")
    if not Path(path).is_file():
        raise SystemExit(f"--variant: no file {path}")
    mod_spec = importlib.util.spec_from_file_location("ab_variant", path)
    if mod_spec is None or mod_spec.loader is None:
        raise SystemExit(f"--variant: cannot load {path} as Python")
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    patch = getattr(module, name, None)
    if not callable(patch):
        raise SystemExit(f"--variant: {path} has no function {name}")
    patch()


def one_table(game_seed: int, expert_even: bool) -> dict[str, Any]:
    """One hand with the expert on the even seats (or the odd ones): bids, tricks, points, reasons."""
    rules = load_rules("standard")
    lay = rules.layout
    levels = ["expert" if (lay.side_of[s] % 2 == 0) == expert_even else "ismcts" for s in range(lay.n)]
    players = [build_bot(levels[s], game_seed * 101 + s, 0.03, True) for s in range(lay.n)]
    game = Game(rules, first_dealer=game_seed % lay.n, shuffler=seeded_shuffler(game_seed))
    reasons = []
    while not game.results:
        hand = game.hand
        seat = hand.to_act
        d = players[seat].decide(view_hand(hand, seat), tuple(game.totals), None, tuple(game.bags))
        reasons.append([seat, repr(d.action), d.reason])
        game.apply(d.action)
    res = game.results[0]
    points = [sc.points for sc in res.sides]
    mine = 0 if expert_even else 1
    return {"expert_even": expert_even, "expert": points[mine], "ismcts": points[1 - mine],
            "bids": [None if b is None else b.tricks for b in (res.bids or [])], "tricks": list(res.tricks),
            "decisions": reasons}


def run(args: argparse.Namespace) -> None:
    """Play the deals and write one JSON line per deal."""
    if args.variant:
        load_variant(args.variant)
    fix_sizes(args.worlds, args.bid_worlds, args.iterations)
    with open(args.out, "w") as out:
        for i in range(args.deals):
            game_seed = args.seed * 1_000_003 + i
            tables = [one_table(game_seed, True), one_table(game_seed, False)]
            diff = sum(t["expert"] - t["ismcts"] for t in tables) / 2
            out.write(json.dumps({"deal": i, "seed": game_seed, "diff": diff, "tables": tables}) + "\n")
            out.flush()


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval."""
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, math.inf
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, 1.96 * math.sqrt(var / len(xs))


def compare(args: argparse.Namespace) -> None:
    """Each run's expert-minus-baseline per deal, and the paired difference of B minus A."""
    runs = []
    for name in (args.a, args.b):
        rows = [json.loads(line) for line in Path(name).read_text().splitlines() if line.strip()]
        runs.append({r["deal"]: r["diff"] for r in rows})
        m, h = mean_ci(list(runs[-1].values()))
        print(f"{name}: {len(rows)} deals, expert minus ismcts {m:+.2f} +-{h:.2f} a deal")
    common = sorted(set(runs[0]) & set(runs[1]))
    if not common:
        raise SystemExit("the runs have no deal in common (use the same --seed)")
    m, h = mean_ci([runs[1][d] - runs[0][d] for d in common])
    print(f"{args.b} minus {args.a}, paired over {len(common)} deals: {m:+.2f} +-{h:.2f}")


def main() -> None:
    """Parse the arguments."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="play single-hand duplicate deals, expert against ismcts")
    r.add_argument("--deals", type=int, default=500)
    r.add_argument("--seed", type=int, default=201)
    r.add_argument("--out", required=True, help="JSON lines, one per deal")
    r.add_argument("--variant", help="FILE.py:FUNCTION that patches spades.ai before the run")
    r.add_argument("--worlds", type=int, default=24, help="expert: guessed deals a card")
    r.add_argument("--bid-worlds", type=int, default=80, help="expert: guessed deals a bid")
    r.add_argument("--iterations", type=int, default=240, help="baseline: ISMCTS iterations a card")
    c = sub.add_parser("compare", help="pair two runs of the same seed deal by deal")
    c.add_argument("a")
    c.add_argument("b")
    args = p.parse_args()
    if args.cmd == "run":
        run(args)
    else:
        compare(args)


if __name__ == "__main__":
    main()
