"""Builds the close-call positions of ``tests/data/close_calls/`` (run once: ``python tests/ai/close_call_maker.py``).

Seeded games between normal players are searched for card decisions where two different cards (not
equivalent: some unseen card lies between them, or they are of different suits) are worth the same
within a point and the best of the legal cards: played out on the same 240 deals, their paired
difference is under 1 point with a standard error under 1, and no card scores higher. A review must
flag neither card there. Each
position is a ``spades-record/1`` game cut before the decision, with a ``"close_call"`` object: the
seat, the two actions, their measured difference and its standard error.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

from spades.ai import make_bot
from spades.ai.knowledge import Knowledge
from spades.ai.rollout import Rollout
from spades.ai.search import distinct_cards, world_hands
from spades.core import Game, Play, action_to_dict, record_of, seeded_shuffler, view_hand
from spades.core.hand import Phase
from spades.core.view import hand_from_view
from spades.variants import load_rules

OUT_DIR = Path(__file__).resolve().parents[1] / "data" / "close_calls"
WANT = 10


def main(seed: int = 20261202) -> None:
    """Play games until ``WANT`` close calls are found; write the files."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for old in OUT_DIR.glob("*.json"):
        old.unlink()
    rng = random.Random(seed)
    found = 0
    g = 0
    while found < WANT and g < 200:
        g += 1
        rules = load_rules("standard")
        bots = [make_bot("normal", rng.randrange(10**6)) for _ in range(4)]
        game = Game(rules, first_dealer=rng.randrange(4), shuffler=seeded_shuffler(rng.randrange(10**9)))
        taken = False
        while not game.over and len(game.results) < 3 and found < WANT:
            hand = game.hand
            seat = hand.to_act
            v = view_hand(hand, seat)
            if (not taken and v.phase is Phase.PLAY and 3 <= len(hand.tricks) <= 10 and len(v.legal) >= 3
                    and rng.random() < 0.2):
                pair = close_pair(v, tuple(game.totals), tuple(game.bags), rng)
                if pair is not None:
                    taken = True
                    found += 1
                    a, b, diff, se = pair
                    rec = record_of(game, "standard")
                    rec["close_call"] = {"seat": seat, "actions": [action_to_dict(Play(seat, a)),
                                                                   action_to_dict(Play(seat, b))],
                                         "difference": round(diff, 2), "stderr": round(se, 2)}
                    (OUT_DIR / f"close_{found:02d}.json").write_text(json.dumps(rec) + "\n", encoding="utf-8")
            if hand.is_over or game.hand is not hand:
                taken = False
            game.apply(bots[seat].decide(v, tuple(game.totals), None, tuple(game.bags)).action)
            if game.hand is not hand:
                taken = False
    print("close calls", found, "games", g, file=sys.stderr)


def close_pair(v, totals, bags, rng):  # type: ignore[no-untyped-def]
    """Two cards worth the same within a point (and their difference, standard error), or ``None``."""
    k = Knowledge.from_view(v)
    ro = Rollout(v.rules, bags, totals, v.bidless)
    side = v.rules.layout.side_of[v.seat]
    legal = sum(1 << a.card for a in v.legal if isinstance(a, Play))
    cards = distinct_cards(v, k, legal)
    values: dict[int, list[float]] = {c: [] for c in cards}
    for _ in range(240):
        base = hand_from_view(v, world_hands(v, k, k.sample(rng, bids_weight=v)))
        for c in cards:
            h = base.clone()
            h.play_fast(c)
            ro.play_out(h)
            values[c].append(ro.utility(h)[side])
    mean = {c: sum(vs) / len(vs) for c, vs in values.items()}
    a = max(cards, key=lambda c: mean[c])
    for b in cards:
        if b != a:
            va, vb = values[a], values[b]
            n = len(va)
            d = [va[j] - vb[j] for j in range(n)]
            m = sum(d) / n
            se = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1) / n)
            if abs(m) < 1.0 and 0 < se < 1.0:
                return a, b, m, se
    return None


if __name__ == "__main__":
    main()
