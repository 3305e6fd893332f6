"""How well a seat's cards fit its bid: the spread of real bids, and variants of the model for ``ab.py``.

``measure`` deals hands, lets a level bid them, and reports the high-card count ``est``
(``knowledge.bid_strength``) that ``Knowledge._bid_fit`` holds against each bid (for number bids: the
mean and spread of ``est`` minus the bid; for nils: of ``est``)::

    .venv/bin/python benchmarks/bid_evidence.py measure --level normal --deals 300

The functions ``tight`` and ``tight_numbers`` replace the model in use (``knowledge.BID_EVIDENCE``)
with the measured spread, for ``benchmarks/ab.py run ... --variant benchmarks/bid_evidence.py:tight``.
"""

from __future__ import annotations

import argparse
import statistics

from spades.ai import knowledge
from spades.ai.arena import build_bot
from spades.ai.knowledge import BidEvidence, bid_strength
from spades.core.game import Game, seeded_shuffler
from spades.core.hand import Phase
from spades.core.view import view_hand
from spades.variants import load_rules


def tight() -> None:
    """Number bids read with the measured spread (0.9 around ``est`` - 0.2); nils as ``est`` up to 1.0,
    spread 0.6; up to 20 draws a guess."""
    knowledge.BID_EVIDENCE = BidEvidence(number_spread=0.9, number_offset=0.2, nil_free=1.0, nil_spread=0.6,
                                         tries=20)


def tight_numbers() -> None:
    """Number bids as in ``tight``; nils as in the model in use."""
    knowledge.BID_EVIDENCE = BidEvidence(number_spread=0.9, number_offset=0.2, tries=20)


def measure(level: str, deals: int) -> None:
    """Print the spread of ``est`` against the bids ``level`` makes on ``deals`` standard deals."""
    rules = load_rules("standard")
    lay = rules.layout
    numbers: list[float] = []
    nils: list[float] = []
    for g in range(deals):
        game = Game(rules, first_dealer=g % lay.n, shuffler=seeded_shuffler(g))
        bots = [build_bot(level, g * 10 + s, 0.03 if level == "expert" else None, level == "expert")
                for s in range(lay.n)]
        while game.hand.phase is Phase.BID:
            seat = game.hand.to_act
            game.apply(bots[seat].decide(view_hand(game.hand, seat), tuple(game.totals), None,
                                         tuple(game.bags)).action)
        h = game.hand
        for s in range(lay.n):
            est = bid_strength(rules, h.hands[s])
            b = h.bids[s]
            if b is None:
                continue
            (nils if b.is_nil else numbers).append(est if b.is_nil else est - b.tricks)
    for name, xs in (("number bids: est - bid", numbers), ("nil bids: est", nils)):
        if len(xs) > 1:
            print(f"{level} {name}: {len(xs)} bids, mean {statistics.mean(xs):+.2f}, sd {statistics.stdev(xs):.2f}")


def main() -> None:
    """Parse the arguments."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure", help="the spread of est against real bids")
    m.add_argument("--level", default="normal")
    m.add_argument("--deals", type=int, default=300)
    args = p.parse_args()
    measure(args.level, args.deals)


if __name__ == "__main__":
    main()
