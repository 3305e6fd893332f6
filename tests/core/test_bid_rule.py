"""One bid rule (``spades.core.bidding``) for the engine and the score sheet: a hand's bids are accepted by
the sheet exactly when the engine's bidding, seat by seat, could have produced them."""

from __future__ import annotations

import itertools

import pytest

from spades.core import NIL, BidValue
from spades.core.bidding import legal_bids, possible_bids
from spades.scorekeeper import ScoreSheet, ScoreSheetError
from spades.variants import load_rules

SPECS = ["tournament", "suicide", {"min_side_bid": 4, "max_side_bid": 10}, {"preset": "cutthroat", "min_side_bid": 3}]
"""(With team bidding the sheet also takes a side's total typed as both partners' numbers, which the engine
never bids: the score sheet's twin, ``js/scoring.js``, does too.)"""
VALUES = [NIL, *(BidValue(k) for k in (1, 3, 4, 9))]


def engine_could_bid(rules: object, bids: tuple[BidValue | None, ...], first: int) -> bool:
    r = load_rules(rules)
    n = r.layout.n
    so_far: list[BidValue | None] = [None] * n
    for seat in ((first + i) % n for i in range(n)):
        value = bids[seat]
        if value is None:  # team bidding: leaves the partner's total standing
            partner = r.layout.partner[seat]
            p = so_far[partner] if partner is not None else None
            if not (r.team_bidding and p is not None and not p.is_nil):
                return False
            continue
        if value not in legal_bids(r, seat, so_far, blind_now=False, spades=None):
            return False
        so_far[seat] = value
    return True


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_the_sheet_accepts_exactly_what_the_engine_could_bid(spec: object) -> None:
    rules = load_rules(spec)
    options: list[BidValue | None] = list(VALUES)
    tricks = [4, 3, 3, 3]
    agree = 0
    for bids in itertools.product(options, repeat=4):
        sheet = ScoreSheet(rules)
        typed = [None if b is None else b.tricks if b.tricks else "nil" for b in bids]
        try:
            sheet.add_hand(typed, tricks)
            accepted = True
        except ScoreSheetError:
            accepted = False
        # (the sheet does not know who dealt: any seat may have bid first)
        could = any(engine_could_bid(spec, bids, first) for first in range(4))
        assert accepted == could, (bids, accepted)
        agree += accepted
    assert agree > 0


def test_possible_bids_are_what_some_seat_may_bid() -> None:
    assert [b.text() for b in possible_bids(load_rules("standard"))] == [
        "nil", *(str(k) for k in range(1, 14)), "blind nil"]
    assert "nil" not in [b.text() for b in possible_bids(load_rules({"preset": "cutthroat", "min_side_bid": 3}))]
    blind = [b.text() for b in possible_bids(load_rules({"blind_bids": True, "blind_nil": False}))]
    assert blind[-1] == "blind 13" and blind[14] == "blind 6" and "blind nil" not in blind
