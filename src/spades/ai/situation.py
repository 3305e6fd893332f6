"""The score situation of a hand from one seat's view: contracts, tricks still needed, live nils.

Shared by the knowledge-based players, the search's rollouts and the hints, so they all read the
table the same way. A nil bidder's tricks never count toward the partner's contract (docs/rules.md)
unless ``failed_nil_tricks`` is ``count_for_partner``; with team bidding a silent partner's tricks
count toward the side's total.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spades.core.actions import BidValue
from spades.core.rules import Rules
from spades.core.scoring import side_contract, side_toward

WANT_ALL = 99
"""The "tricks needed" of a hand played without bids: every trick scores."""


def nil_alive(bids: Sequence[BidValue | None], tricks: Sequence[int], seat: int) -> bool:
    """True when ``seat`` bid nil (or blind nil) and has taken no trick yet."""
    b = bids[seat]
    return b is not None and b.is_nil and tricks[seat] == 0


@dataclass(frozen=True)
class Situation:
    """One seat's reading of the hand's score situation."""

    seat: int
    partner: int | None
    side: int
    need: int
    """Tricks my side still needs for its contract (<= 0: made; ``WANT_ALL`` without bids)."""
    contract: int
    my_nil: bool
    """I bid nil and have taken no trick."""
    partner_nil: bool
    """My partner bid nil and has taken no trick."""
    opp_nils: tuple[int, ...]
    """Opponents whose nil is still alive."""
    opp_need: tuple[tuple[int, int], ...]
    """Per other side with a contract: (side index, tricks it still needs)."""
    tricks_left: int
    bags: int
    """My side's bag count before this hand."""

    @classmethod
    def read(cls, rules: Rules, seat: int, bids: Sequence[BidValue | None], tricks: Sequence[int],
             tricks_played: int, bidless: bool, bags: Sequence[int]) -> Situation:
        """Read the situation from the bids and tricks."""
        lay = rules.layout
        side = lay.side_of[seat]
        seats = lay.sides[side]
        partner = lay.partner[seat]
        contract = side_contract(bids, seats)
        need = WANT_ALL if bidless else contract - side_toward(rules, bids, tricks, seats)
        my_nil = nil_alive(bids, tricks, seat)
        partner_nil = partner is not None and nil_alive(bids, tricks, partner)
        opp_nils = tuple(s for s in range(lay.n) if lay.side_of[s] != side and nil_alive(bids, tricks, s))
        opp_need = tuple((i, side_contract(bids, ss) - side_toward(rules, bids, tricks, ss))
                         for i, ss in enumerate(lay.sides) if i != side and side_contract(bids, ss) > 0)
        return cls(seat, partner, side, need, contract, my_nil, partner_nil, opp_nils, opp_need,
                   lay.hand_size - tricks_played, bags[side] if side < len(bags) else 0)

    def bags_hurt(self, rules: Rules) -> bool:
        """Whether an over-trick costs my side (by the bag rule, or because the bag count is near its limit)."""
        return rules.bags != "none"

    def set_worth(self, rules: Rules) -> bool:
        """True when an opponent's contract can still be set and the few tricks it takes are worth it."""
        for _, need in self.opp_need:
            if need <= 0:
                continue
            to_stop = self.tricks_left - need + 1  # tricks the others must take to set them
            margin = 1 if self.bags >= rules.bag_limit - 3 and rules.bags in ("penalty", "count_only") else 2
            if rules.bags in ("minus_ten",):
                margin = 1
            if to_stop <= margin:
                return True
        return False
