"""An independent measurement of a labelled blunder (run by hand, not a test):
``python tests/ai/blunder_measure.py NAME... [--deals N] [--seed S] [--policy dd|expert]``.

For a position of ``tests/data/blunders/`` (or of ``tests/data/close_calls/``: its first action as
the good one, its second as the blunder) it compares the listed blunder (the first forbidden action)
with the good action (the first expected action, else the ``normal`` player's choice) on the same
deals: ``N`` deals of the unseen cards consistent with the seat's view at that moment (what it holds,
the cards played, the voids shown, the bids as soft evidence: ``Knowledge.sample``), each played to
the end of the hand after each action and scored by ``spades.core`` scoring with the table's rules
(``score_hand``: contracts, sets, nils, bags with the side's bags carried in).

Two ways to play the hand out, neither of them the review's roll-out policy:

- ``dd`` (double dummy): exact minimax over the rest of the hand with every card seen, each side
  playing for its own score: the value of the position when both sides play perfectly. Exact, so
  used where few tricks are left (its cost grows quickly with the tricks left).
- ``ab``: the same exact values by ``spades.ai.endgame`` (alpha-beta; the tests hold it to a plain
  minimax), fast enough for five or six tricks left.
- ``expert``: every seat played by the ``expert`` player from its own view (its own search over
  guessed deals: imperfect information, as at a table).

Two values are reported for each action, paired over the deals (mean difference and its standard
error): ``points``, the side's points this hand minus the opponents' (``score_hand``, bag penalties
included when they fall due), and ``utility``, the review's own measure (``Rollout.score``: the
points, each new bag charged its share of the coming bag penalty, a bonus for winning the game).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

from spades.ai.arena import build_bot
from spades.ai.bots import ExpertBot
from spades.ai.endgame import Endgame
from spades.ai.knowledge import Knowledge
from spades.ai.rollout import Rollout
from spades.ai.search import world_hands
from spades.core import Game, action_to_dict, view_hand
from spades.core.actions import Action, Play
from spades.core.cards import cards_of
from spades.core.hand import Hand, Phase
from spades.core.scoring import score_hand
from spades.core.view import hand_from_view
from spades.variants import read_record

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from ai.blunders import BLUNDER_DIR, Position, load_positions


class DoubleDummy:
    """Exact minimax of a hand's play with every card seen: ``side`` maximises ``value``, the other
    side minimises it (two sides: the game is zero-sum in the score difference)."""

    def __init__(self, h: Hand, side: int, value: Any) -> None:
        self.side = side
        self.value = value
        self.lay = h.layout
        self.side_of = h.layout.side_of
        self.table: dict[tuple[Any, ...], float] = {}
        self.nodes = 0

    def _distinct(self, h: Hand, legal: int) -> list[int]:
        """The legal cards, less those equivalent to a lower one of the same holder (no card of another
        holder, nor of the trick, between them in power, same suit)."""
        lay = self.lay
        eff, power = lay.effective_suit, lay.power
        live = 0
        for m in h.hands:
            live |= m
        mine = h.hands[h.to_act]
        for _, c in h.current:
            live |= 1 << c
        cs = sorted(cards_of(legal), key=lambda c: (eff[c], power[c]))
        out: list[int] = []
        prev = -1
        for c in cs:
            if prev >= 0 and eff[prev] == eff[c]:
                between = [x for x in cards_of(live & lay.suit_mask[eff[c]] & ~mine)
                           if power[prev] < power[x] < power[c]]
                if not between:
                    prev = c
                    continue
            out.append(c)
            prev = c
        return out

    def solve(self, h: Hand) -> float:
        """The value of ``h`` (in the play phase) with perfect play from here."""
        self.nodes += 1
        if h.phase is not Phase.PLAY:
            return float(self.value(h))
        key = None
        if not h.current:
            key = (tuple(h.hands), h.to_act, tuple(h.tricks_taken), h.broken)
            got = self.table.get(key)
            if got is not None:
                return got
        maxing = self.side_of[h.to_act] == self.side
        best = -math.inf if maxing else math.inf
        for c in self._distinct(h, h.legal_play_mask()):
            child = h.clone()
            child.play_fast(c)
            val = self.solve(child)
            best = max(best, val) if maxing else min(best, val)
        if key is not None:
            self.table[key] = best
        return best


def _good_action(game: Game, pos: Position) -> Action:
    v = view_hand(game.hand, pos.seat)
    if pos.expected:
        return next(a for a in v.legal if action_to_dict(a) == pos.expected[0])
    return build_bot("normal", 0, None).decide(v, tuple(game.totals), None, tuple(game.bags)).action


def _values(game: Game, h: Hand, side: int) -> tuple[float, float]:
    """(points difference, review utility) of a finished hand for ``side``."""
    rules = game.rules
    ro = Rollout(rules, tuple(game.bags), tuple(game.totals), h.context.bidless)
    sides = score_hand(rules, h.bids, h.tricks_taken, tuple(game.bags))
    pts = float(sides[side].points - sum(s.points for i, s in enumerate(sides) if i != side) / (len(sides) - 1))
    return pts, ro.score(h.bids, h.tricks_taken)[side]


def _points(game: Game, bids: list[Any], tricks: list[int], side: int) -> float:
    sides = score_hand(game.rules, bids, tricks, tuple(game.bags))
    return float(sides[side].points - sum(s.points for i, s in enumerate(sides) if i != side) / (len(sides) - 1))


def measure(pos: Position, deals: int, seed: int, policy: str, budget: float) -> dict[str, Any]:
    """Both actions on the same ``deals`` deals: each one's mean values and the paired differences."""
    game = pos.game
    v = view_hand(game.hand, pos.seat)
    assert v.phase is Phase.PLAY, "only card decisions are measured here"
    bad = next(a for a in v.legal if pos.forbidden and action_to_dict(a) == pos.forbidden[0])
    good = _good_action(game, pos)
    assert isinstance(bad, Play) and isinstance(good, Play)
    side = v.rules.layout.side_of[pos.seat]
    k = Knowledge.from_view(v)
    rng = random.Random(f"measure:{pos.name}:{seed}")
    rows: list[tuple[float, float, float, float]] = []
    ro = Rollout(v.rules, tuple(game.bags), tuple(game.totals), v.bidless)
    bids = list(v.bids)
    t0 = time.monotonic()
    for i in range(deals):
        base = hand_from_view(v, world_hands(v, k, k.sample(rng, bids_weight=v)))
        out: list[tuple[float, float]] = []
        for a in (good, bad):
            h = base.clone()
            h.play_fast(a.card)
            if policy == "ab":
                pts = Endgame(side, lambda t: _points(game, bids, t, side)).value(h)
                util = Endgame(side, lambda t: ro.score(bids, t)[side]).value(h)
                out.append((pts, util))
            elif policy == "dd":
                pts = DoubleDummy(h, side, lambda x: _values(game, x, side)[0]).solve(h)
                util = DoubleDummy(h, side, lambda x: _values(game, x, side)[1]).solve(h)
                out.append((pts, util))
            elif policy == "rollout":  # the review's own roll-out policy (for comparison only)
                ro.play_out(h)
                out.append(_values(game, h, side))
            else:
                # CPU time per card, so a busy machine does not weaken the players.
                bots = [ExpertBot(1000 * i + s, budget, clock=time.thread_time) for s in range(v.rules.layout.n)]
                while h.phase is Phase.PLAY:
                    s = h.to_act
                    act = bots[s].decide(view_hand(h, s), tuple(game.totals), None, tuple(game.bags)).action
                    h.apply_unchecked(act)
                out.append(_values(game, h, side))
        rows.append((out[0][0], out[1][0], out[0][1], out[1][1]))
    n = len(rows)

    def paired(a: int, b: int) -> tuple[float, float]:
        d = [r[a] - r[b] for r in rows]
        m = sum(d) / n
        var = sum((x - m) ** 2 for x in d) / max(1, n - 1)
        return m, math.sqrt(var / n)

    cost_pts, se_pts = paired(0, 1)
    cost_u, se_u = paired(2, 3)
    return {"name": pos.name, "policy": policy, "deals": n, "seed": seed,
            "good": action_to_dict(good), "bad": action_to_dict(bad),
            "points": {"good": round(sum(r[0] for r in rows) / n, 2), "bad": round(sum(r[1] for r in rows) / n, 2),
                       "cost": round(cost_pts, 2), "stderr": round(se_pts, 2)},
            "utility": {"good": round(sum(r[2] for r in rows) / n, 2), "bad": round(sum(r[3] for r in rows) / n, 2),
                        "cost": round(cost_u, 2), "stderr": round(se_u, 2)},
            "seconds": round(time.monotonic() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="+")
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--policy", choices=["dd", "ab", "expert", "rollout"], default="dd",
                    help="dd: plain minimax; ab: the same values by spades.ai.endgame (alpha-beta, faster)")
    ap.add_argument("--budget", type=float, default=0.02, help="the expert's seconds a card (--policy expert)")
    ap.add_argument("--dir", help="the blunder positions' folder (default tests/data/blunders)")
    args = ap.parse_args()
    by_name = {p.name: p for p in load_positions(Path(args.dir) if args.dir else BLUNDER_DIR)}
    for path in sorted((Path(__file__).resolve().parents[1] / "data" / "close_calls").glob("*.json")):
        # A close call: its first action measured as the good one, its second as the blunder.
        data = json.loads(path.read_text(encoding="utf-8"))
        info = data["close_call"]
        by_name[path.stem] = Position(path.stem, read_record(data), info["seat"], "close_call",
                                      info["actions"][:1], info["actions"][1:])
    for name in args.names:
        print(json.dumps(measure(by_name[name], args.deals, args.seed, args.policy, args.budget)), flush=True)


if __name__ == "__main__":
    main()
