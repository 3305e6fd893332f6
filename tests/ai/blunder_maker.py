"""Builds the labelled blunder suite in ``tests/data/blunders/`` (run once: ``python tests/ai/blunder_maker.py``).

Running it again would undo the measured rewrites of 2026-12-03 (``tests/data/blunders/README.md``,
``blunder_refill.py``): positions whose blunder an independent measurement showed to cost nothing.

Seeded games between mixed players are searched for positions where a rule every good player agrees
on decides the answer from the acting seat's own knowledge (its cards, the bids, the cards played).
Each position is saved as a ``spades-record/1`` game cut just before the decision, with an extra
``"blunder"`` object (readers ignore extra keys): the seat, a label, and the ``expected`` actions
(one of them must be chosen) or the ``forbidden`` ones (none may be chosen), plus a note.

Labels:
- ``nil_duck``: my nil is alive and I can play under the trick: never win it.
- ``cover_nil``: partner's nil card is winning the trick and I can beat it: beat it.
- ``no_overtake``: last to play, partner (not nil) is winning: do not overtake or trump partner.
- ``win_cheap``: last to play, we still need tricks, an opponent is winning and I can beat it in the suit
  led: win with my cheapest winning card.
- ``duck_bags``: every contract is already made and no nil is alive, last to play: do not take a bag.
- ``break_nil``: an opponent's live nil is winning the trick and I am last: do not rescue it.
- ``no_sure_nil``: holding the top trump with no exchange to pass it away, do not bid nil.
- ``nil_pass_high``: a nil bidder passing to partner passes the top trump if it holds it.
- ``no_boss_to_nil``: the nil bidder's partner never passes the top trump to the nil bidder.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from spades.ai import make_bot
from spades.ai.play import seats_after
from spades.ai.situation import Situation
from spades.core import Action, Bid, Game, Pass, Play, action_to_dict, record_of, seeded_shuffler, view_hand
from spades.core.cards import SPADES, card_text
from spades.core.hand import Phase
from spades.core.trick import takes_lead
from spades.core.view import HandView
from spades.variants import load_rules

OUT_DIR = Path(__file__).resolve().parents[1] / "data" / "blunders"
QUOTA = {"nil_duck": 14, "cover_nil": 14, "no_overtake": 14, "win_cheap": 14, "duck_bags": 14, "break_nil": 12,
         "no_sure_nil": 10, "nil_pass_high": 8, "no_boss_to_nil": 8}

RULE_SETS: list[Any] = ["standard", {"preset": "standard", "nil_pass": 2}, "jokers", "tournament",
                        {"preset": "standard", "target": 300}]


def beats(v: HandView, c: int) -> bool:
    """Whether ``c`` would be winning the current trick if the viewer played it now."""
    return takes_lead(v.rules.layout, c, v.trick)


def positions(v: HandView, totals: tuple[int, ...], bags: tuple[int, ...]) -> list[tuple[str, dict[str, Any]]]:
    """The labels that apply to this position, with their expected/forbidden actions."""
    assert v.seat is not None
    lay = v.rules.layout
    me = v.seat
    out: list[tuple[str, dict[str, Any]]] = []
    if v.phase is Phase.BID and v.hand is not None:
        bids = [a for a in v.legal if isinstance(a, Bid)]
        nil = [a for a in bids if a.value.is_nil and not a.value.blind]
        numbers = [a for a in bids if not a.value.is_nil]
        top = max(lay.deck, key=lambda c: (lay.effective_suit[c] == SPADES, lay.power[c]))
        if nil and numbers and top in v.hand and v.rules.nil_pass == 0 and lay.n != 6:
            out.append(("no_sure_nil", {"forbidden": nil, "note": f"holding the {card_text(top)}, nil cannot be made"}))
        return out
    if v.phase is Phase.EXCHANGE and v.hand is not None:
        top = max(lay.deck, key=lambda c: (lay.effective_suit[c] == SPADES, lay.power[c]))
        passes = [a for a in v.legal if isinstance(a, Pass)]
        b = v.bids[me]
        mate = lay.partner[me]
        pb = v.bids[mate] if mate is not None else None
        if pb is not None and pb.is_nil:
            return out  # partner is nil too: passing the top trump would sink partner's nil
        if top in v.hand and b is not None and b.is_nil:
            out.append(("nil_pass_high", {"forbidden": [a for a in passes if top not in a.cards],
                                          "note": f"the nil bidder must pass the {card_text(top)}"}))
        elif top in v.hand and (b is None or not b.is_nil):
            out.append(("no_boss_to_nil", {"forbidden": [a for a in passes if top in a.cards],
                                           "note": f"never pass the {card_text(top)} to a nil bidder"}))
        return out
    if v.phase is not Phase.PLAY or not v.current:
        return out
    plays = [a for a in v.legal if isinstance(a, Play)]
    if len(plays) < 2:
        return out
    sit = Situation.read(v.rules, me, v.bids, v.tricks_taken, len(v.tricks), v.bidless, bags)
    t = v.trick
    win = [a for a in plays if beats(v, a.card)]
    lose = [a for a in plays if not beats(v, a.card)]
    last = not seats_after(v, me)
    partner = lay.partner[me]
    if sit.my_nil and win and lose:
        out.append(("nil_duck", {"forbidden": win, "note": "a nil bidder with a card under the trick must not win it"}))
    if sit.partner_nil and not sit.my_nil and t.seat == partner and win and lose:
        out.append(("cover_nil", {"forbidden": lose, "note": "partner's nil card is winning: beat it"}))
    if (last and partner is not None and t.seat == partner and not sit.my_nil and not sit.partner_nil
            and win and lose):
        label = "no_overtake"
        out.append((label, {"forbidden": win, "note": "partner's card wins the trick: do not overtake it"}))
    if (last and t.seat != partner and not sit.my_nil and not sit.partner_nil and not sit.opp_nils
            and 0 < sit.need < 50 and not v.bidless):
        follow_win = [a for a in win if lay.effective_suit[a.card] == t.led]
        if follow_win:
            cheapest = min(follow_win, key=lambda a: lay.power[a.card])
            if len(plays) > 1 and (len(follow_win) > 1 or lose):
                out.append(("win_cheap", {"expected": [cheapest],
                                          "note": "we need tricks: win as cheaply as possible"}))
    all_nils_done = not any(b is not None and b.is_nil and v.tricks_taken[s] == 0 for s, b in enumerate(v.bids))
    if (last and t.seat != partner and sit.need <= 0 and all(n <= 0 for _, n in sit.opp_need) and all_nils_done
            and v.rules.bags == "penalty" and not v.bidless and win and lose):
        out.append(("duck_bags", {"forbidden": win, "note": "every contract is decided: a trick is only a bag"}))
    if (last and t.seat in sit.opp_nils and win and lose and sit.need < sit.tricks_left - 1 and not sit.my_nil):
        out.append(("break_nil", {"forbidden": win, "note": "their nil is winning the trick: let it"}))
    return out


def random_game(rng: random.Random, g: int) -> tuple[Any, Game, list[Any]]:
    """The ``g``-th game a search for positions plays: its rule set in turn (returned as written, for the
    record), bots of mixed levels, a seeded deal."""
    spec = RULE_SETS[g % len(RULE_SETS)]
    rules = load_rules(spec)
    levels = [rng.choice(["random", "easy", "normal", "normal"]) for _ in range(rules.layout.n)]
    bots = [make_bot(lv, rng.randrange(10**6)) for lv in levels]
    game = Game(rules, first_dealer=rng.randrange(rules.layout.n), shuffler=seeded_shuffler(rng.randrange(10**9)))
    return spec, game, bots


def main(seed: int = 20261129) -> None:
    """Play games until every label has its quota; write the files."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for old in OUT_DIR.glob("*.json"):
        old.unlink()
    rng = random.Random(seed)
    counts = dict.fromkeys(QUOTA, 0)
    g = 0
    while any(counts[k] < QUOTA[k] for k in QUOTA) and g < 4000:
        g += 1
        spec, game, bots = random_game(rng, g)
        taken_this_hand: set[tuple[int, str]] = set()
        while not game.over and len(game.results) < 8:
            hand = game.hand
            seat = hand.to_act
            v = view_hand(hand, seat)
            for label, info in positions(v, tuple(game.totals), tuple(game.bags)):
                key = (len(game.hands), label)
                if counts[label] >= QUOTA[label] or key in taken_this_hand or rng.random() < 0.5:
                    continue
                taken_this_hand.add(key)
                counts[label] += 1
                rec = record_of(game, spec)
                note = info.pop("note")
                blunder: dict[str, Any] = {"label": label, "seat": seat, "note": note}
                for k, acts in info.items():
                    blunder[k] = [action_to_dict(a) for a in acts]
                rec["blunder"] = blunder
                name = f"{label}_{counts[label]:02d}.json"
                (OUT_DIR / name).write_text(json.dumps(rec, indent=None) + "\n", encoding="utf-8")
            action: Action = bots[seat].decide(v, tuple(game.totals), None, tuple(game.bags)).action
            game.apply(action)
    print(counts, "games", g, file=sys.stderr)


if __name__ == "__main__":
    main()
