"""``HandView``'s contract status (``side_status``): decided as soon as it is certain, never changing once
decided, and at the end of every hand the same as ``score_hand`` says."""

from __future__ import annotations

import random

import pytest

from spades.core import NIL, BidValue, Game, Phase, score_hand, seeded_shuffler, view_hand
from spades.core.scoring import side_status
from spades.variants import PRESETS, load_rules

from .support import choose

VARIANTS = [*sorted(PRESETS), {"preset": "standard", "failed_nil_tricks": "count_for_partner"},
            {"preset": "standard", "boston": True}, {"preset": "standard", "ten_for_two_hundred": True},
            {"preset": "standard", "team_bidding": True}, {"preset": "standard", "first_hand_bids": False},
            {"preset": "standard", "blind_behind": 0, "blind_bids": True}]


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_status_at_the_end_is_what_scoring_says(variant: object) -> None:
    rules = load_rules(variant)
    for seed in range(6):
        rng = random.Random(seed)
        game = Game(rules, shuffler=seeded_shuffler(seed))
        hand = game.hand
        decided: dict[int, str] = {}
        while not hand.is_over:
            hand.apply(choose(rng, hand.legal_actions(), nil_p=0.3))
            sides = view_hand(hand, None).to_dict()["sides"]
            for k, side in enumerate(sides):
                if k in decided:
                    assert side["status"] == decided[k], "a decided contract changed"
                elif side["status"] in ("made", "set"):
                    decided[k] = side["status"]
                if side["contract"] is not None:
                    assert side["needed"] == max(0, side["contract"] - side["tricks"])
        if hand.phase is Phase.MISDEALT:
            continue
        bidless = hand.context.bidless
        scores = score_hand(rules, None if bidless else hand.bids, hand.tricks_taken, [0] * rules.layout.sides_count)
        sides = view_hand(hand, 0).to_dict()["sides"]
        for score, side in zip(scores, sides, strict=True):
            want = {True: "made", False: "set", None: "open"}[score.made]
            assert side["status"] == want, (seed, hand.bids, hand.tricks_taken, side)
            for nil in side["nils"]:
                assert nil["status"] == ("made" if nil["tricks"] == 0 else "broken")
                assert any(line.text.startswith(f"{nil['bid']} {'made' if nil['status'] == 'made' else 'failed'}")
                           for line in score.lines)


def test_a_failed_blind_nil_does_not_make_the_partners_contract() -> None:
    # The phone-table bug: seat 0 bid 4, seat 2 blind nil; seat 0 took 3 and seat 2 two tricks. The nil
    # bidder's tricks do not count toward the contract (bags_if_made): set, as scoring says.
    rules = load_rules("standard")
    bids = [BidValue(4), BidValue(3), BidValue(0, blind=True), BidValue(3)]
    tricks = [3, 5, 2, 3]
    status = side_status(rules, bids, tricks, 0, [True] * 4)
    assert status[0].status == "set" and status[0].tricks == 3 and status[0].needed == 1
    assert status[0].nils[0].status == "broken" and status[0].nils[0].blind
    assert score_hand(rules, bids, tricks, [0, 0])[0].made is False
    # Mid-hand, set as soon as the tricks left are too few; made as soon as reached.
    assert side_status(rules, bids, [1, 5, 2, 3], 2, [True] * 4)[0].status == "set"
    assert side_status(rules, bids, [1, 5, 2, 3], 3, [True] * 4)[0].status == "open"
    assert side_status(rules, bids, [4, 3, 1, 2], 3, [True] * 4)[0].status == "made"
    assert side_status(rules, [BidValue(4), None, NIL, None], [0] * 4, 13, [True, True, True, False])[1].status \
        == "bidding"


def test_the_json_a_client_receives() -> None:
    rules = load_rules("standard")
    game = Game(rules, shuffler=seeded_shuffler(3))
    hand = game.hand
    d = view_hand(hand, 1).to_dict()
    assert d["trick_winner"] is None
    assert d["sides"] == [{"seats": [0, 2], "contract": None, "tricks": 0, "needed": 0, "status": "bidding",
                           "nils": []},
                          {"seats": [1, 3], "contract": None, "tricks": 0, "needed": 0, "status": "bidding",
                           "nils": []}]


@pytest.mark.parametrize("variant", [{"preset": "standard"}, {"preset": "standard", "boston": True},
                                     {"preset": "standard", "ten_for_two_hundred": True},
                                     {"preset": "standard", "boston": True, "ten_for_two_hundred": True}], ids=str)
def test_status_is_what_every_way_the_tricks_left_can_fall_says(variant: object) -> None:
    # side_status asks contract_made at the two ends and at the contract: the same answer as asking it for
    # every number of tricks the side may still reach, for every contract, tricks taken and tricks left.
    from spades.core.scoring import contract_made

    rules = load_rules(variant)
    for contract in range(1, 14):
        bids = [BidValue(contract), BidValue(1), NIL, BidValue(1)]  # seat 2's nil: seat 0 alone bids
        for taken in range(14):
            for left in range(14 - taken):
                tricks = [taken, 0, 0, 13 - taken - left]
                ends = {contract_made(rules, contract, taken + k) for k in range(left + 1)}
                want = "open" if len(ends) > 1 else "made" if ends.pop() else "set"
                got = side_status(rules, bids, tricks, left, [True] * 4)[0]
                assert got.status == want, (contract, taken, left, got)
