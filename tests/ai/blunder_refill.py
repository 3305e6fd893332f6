"""Replaces labelled blunder positions whose blunder costs nothing (run by hand, not a test):
``python tests/ai/blunder_refill.py LABEL NAME... [--seed S] [--deals N]``.

Seeded games are searched for positions of ``LABEL`` (``blunder_maker.positions``) with at most
``MAX_CARDS`` cards left to play, and a position is kept only when the independent measurement
(``blunder_measure``: ``N`` deals from the seat's view, each solved exactly to the end of the hand)
says the blunder really costs: at least ``MIN_COST`` in the review's utility and in points, each
beyond ``Z`` standard errors, and when the normal and expert players avoid it (the bots' suite). Each
kept position is written under the next of the given names, with its measurement in the file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from spades.core import Action, action_to_dict, record_of, view_hand
from spades.variants import read_record

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from ai.blunder_maker import OUT_DIR, positions, random_game
from ai.blunder_measure import measure
from ai.blunders import Position, check

MAX_CARDS = 21
MIN_COST = 8.0
Z = 4.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("label")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--deals", type=int, default=200)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    names = list(args.names)
    g = 0
    while names and g < 3000:
        g += 1
        spec, game, bots = random_game(rng, g)
        while names and not game.over and len(game.results) < 8:
            hand = game.hand
            seat = hand.to_act
            v = view_hand(hand, seat)
            for label, info in positions(v, tuple(game.totals), tuple(game.bags)):
                if label != args.label or sum(v.hand_sizes) > MAX_CARDS or len(game.rules.layout.sides) != 2:
                    continue
                rec = record_of(game, spec)
                note = info.pop("note")
                blunder: dict[str, Any] = {"label": label, "seat": seat, "note": note}
                for k, acts in info.items():
                    blunder[k] = [action_to_dict(a) for a in acts]
                rec["blunder"] = blunder
                pos = Position(names[0], read_record(rec), seat, label, blunder.get("expected"),
                               blunder.get("forbidden"))
                if not (check(pos, "normal")[0] and check(pos, "expert", budget=0.03)[0]):
                    continue
                m = measure(Position(names[0], read_record(rec), seat, label, blunder.get("expected"),
                                     blunder.get("forbidden")), args.deals, 0, "ab", 0.0)
                ok = all(m[k]["cost"] >= MIN_COST and m[k]["cost"] > Z * m[k]["stderr"] for k in ("points", "utility"))
                print(json.dumps({"game": g, "kept": ok, **m}), file=sys.stderr, flush=True)
                if not ok:
                    continue
                blunder["measured"] = {
                    "how": f"tests/ai/blunder_measure.py {names[0]} --deals {args.deals} --policy ab "
                           "(each deal solved exactly to the end of the hand)",
                    "deals": m["deals"], "good": m["good"], "bad": m["bad"],
                    "points": m["points"], "utility": m["utility"],
                    "found_by": f"tests/ai/blunder_refill.py {args.label} ... --seed {args.seed} (game {g})"}
                (OUT_DIR / f"{names.pop(0)}.json").write_text(json.dumps(rec) + "\n", encoding="utf-8")
                break
            action: Action = bots[seat].decide(v, tuple(game.totals), None, tuple(game.bags)).action
            game.apply(action)
    print("left:", names, "games", g, file=sys.stderr)


if __name__ == "__main__":
    main()
