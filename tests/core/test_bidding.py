"""Bidding, blind decisions, card exchanges, misdeals, the dealer's discard and the two-handed draw.

Engine decisions tested here (rules.md leaves them open):
- A blind decision is taken at the seat's bid turn: a blind-eligible seat that has not looked sees no
  cards, and its legal actions are the blind bids plus Look.
- Misdeal may be called by any qualifying seat whose partner has not bid yet, out of turn too, once it
  has looked.
- Team bidding: the first partner to speak gives nil or the side's total; after a total the partner
  does not bid; after a nil the partner bids for the side (held to min_side_bid).
- When both partners bid nil with passing on, each nil makes its own exchange, in bidding order.
"""

from __future__ import annotations

import pytest

from spades.core import (
    BLIND_NIL,
    Accept,
    Bid,
    BidValue,
    Discard,
    Draw,
    Game,
    HandContext,
    IllegalActionError,
    Look,
    Misdeal,
    Pass,
    Phase,
    card_text,
    cards_of,
    parse_face,
    seeded_shuffler,
    view_hand,
)
from spades.variants import load_rules

from .support import bid_round, legal_texts, make_hand, snapshot
from .test_play import DEAL_A

BLIND_ALL = HandContext(blind_sides=(True, True))
BLIND_EW = HandContext(blind_sides=(False, True))


def numbers(lo: int, hi: int) -> set[str]:
    return {f"bid {k}" for k in range(lo, hi + 1)}


def test_default_bids_are_nil_and_1_to_13() -> None:
    hand = make_hand(load_rules("standard"), DEAL_A)
    assert legal_texts(hand) == {"bid nil"} | numbers(1, 13)
    with pytest.raises(IllegalActionError):
        hand.apply(Bid(0, BidValue(14)))


def test_first_bidder_dealer() -> None:
    hand = make_hand(load_rules({"first_bidder": "dealer"}), DEAL_A)
    assert hand.to_act == 3
    bid_round(hand, [1, 1, 1, 1])
    assert hand.to_act == 0  # the lead is still left of the dealer


class TestBlind:
    def test_blind_eligible_seat_sees_nothing_until_it_decides(self) -> None:
        hand = make_hand(load_rules("standard"), DEAL_A, context=BLIND_EW)
        assert hand.to_act == 0 and legal_texts(hand) == {"bid nil"} | numbers(1, 13)
        assert view_hand(hand, 0).hand is not None
        hand.apply(Bid(0, BidValue(3)))
        assert view_hand(hand, 1).hand is None
        assert view_hand(hand, 3).hand is None
        assert legal_texts(hand) == {"blind nil", "look"}
        assert view_hand(hand, 1).may_bid_blind
        with pytest.raises(IllegalActionError, match="look at your cards first"):
            hand.apply(Bid(1, BidValue(2)))
        hand.apply(Look(1))
        assert view_hand(hand, 1).hand is not None
        assert legal_texts(hand) == {"bid nil"} | numbers(1, 13)
        with pytest.raises(IllegalActionError, match="seen your cards"):
            hand.apply(Bid(1, BLIND_NIL))

    def test_blind_nil_then_the_exchange(self) -> None:
        hand = make_hand(load_rules("standard"), DEAL_A, context=BLIND_EW)
        hand.apply(Bid(0, BidValue(3)))
        hand.apply(Bid(1, BLIND_NIL))
        assert view_hand(hand, 1).hand is not None  # after the bid the cards are seen
        bid_round(hand, [3, 4])
        assert hand.phase is Phase.EXCHANGE and hand.to_act == 1
        assert len(hand.legal_actions()) == 13 * 12 // 2  # any two of 13
        give = Pass(1, (parse_face("2C"), parse_face("JS")))
        hand.apply(give)
        assert hand.to_act == 3
        assert len(hand.legal_actions()) == 15 * 14 // 2  # partner returns any two of 15
        assert hand.hands[3] >> parse_face("2C") & 1
        # the opponents see that cards moved, not which
        assert view_hand(hand, 0).passes == ((1, 3, None),)
        assert view_hand(hand, 3).passes == ((1, 3, give.cards),)
        with pytest.raises(IllegalActionError, match="exactly 2 different cards"):
            hand.apply(Pass(3, (parse_face("2C"),)))
        with pytest.raises(IllegalActionError, match="not in that hand"):
            hand.apply(Pass(3, (parse_face("2C"), parse_face("AD"))))
        hand.apply(Pass(3, (parse_face("2C"), parse_face("8H"))))
        assert hand.phase is Phase.PLAY and hand.to_act == 0
        assert view_hand(hand, 2).passes == ((1, 3, None), (3, 1, None))

    def test_blind_pass_three(self) -> None:
        hand = make_hand(load_rules({"blind_pass": 3}), DEAL_A, context=BLIND_EW)
        hand.apply(Bid(0, BidValue(3)))
        hand.apply(Bid(1, BLIND_NIL))
        bid_round(hand, [3, 4])
        assert all(len(a.cards) == 3 for a in hand.legal_actions() if isinstance(a, Pass))

    def test_blind_bids_six_and_up(self) -> None:
        hand = make_hand(load_rules({"blind_bids": True}), DEAL_A, context=BLIND_ALL)
        assert legal_texts(hand) == {"blind nil", "look"} | {f"blind {k}" for k in range(6, 14)}
        with pytest.raises(IllegalActionError, match="at least 6"):
            hand.apply(Bid(0, BidValue(5, blind=True)))
        hand.apply(Bid(0, BidValue(6, blind=True)))
        assert hand.bids[0] == BidValue(6, True)

    def test_no_blind_without_eligibility(self) -> None:
        hand = make_hand(load_rules("standard"), DEAL_A, context=HandContext(blind_sides=(False, False)))
        assert "look" not in legal_texts(hand)
        with pytest.raises(IllegalActionError, match="100 points behind"):
            hand.apply(Bid(0, BLIND_NIL))

    def test_blind_nil_false(self) -> None:
        hand = make_hand(load_rules({"blind_nil": False}), DEAL_A, context=BLIND_ALL)
        assert "look" not in legal_texts(hand) and "blind nil" not in legal_texts(hand)

    def test_game_gives_blind_to_the_side_100_behind(self) -> None:
        rules = load_rules("standard")
        game = Game(rules, shuffler=seeded_shuffler(3))
        assert game.hand.context.blind_sides == (False, False)
        game.totals = [150, 50]
        assert game.context().blind_sides == (False, True)
        game.totals = [150, 51]
        assert game.context().blind_sides == (False, False)


class TestNilPass:
    @pytest.mark.parametrize("k", [1, 2, 3, 4])
    def test_nil_bidder_passes_first_and_partner_returns_the_same_number(self, k: int) -> None:
        hand = make_hand(load_rules({"nil_pass": k}), DEAL_A)
        bid_round(hand, [3, "nil", 4, 4])
        assert hand.phase is Phase.EXCHANGE and hand.to_act == 1
        first = hand.legal_actions()[0]
        assert isinstance(first, Pass) and len(first.cards) == k
        hand.apply(first)
        assert hand.to_act == 3
        back = hand.legal_actions()[-1]
        assert len(back.cards) == k
        hand.apply(back)
        assert hand.phase is Phase.PLAY
        assert [h.bit_count() for h in hand.hands] == [13] * 4

    def test_no_pass_without_nil(self) -> None:
        hand = make_hand(load_rules({"nil_pass": 2}), DEAL_A)
        bid_round(hand, [3, 3, 4, 3])
        assert hand.phase is Phase.PLAY

    def test_double_nil_makes_two_exchanges(self) -> None:
        hand = make_hand(load_rules({"nil_pass": 1}), DEAL_A)
        bid_round(hand, ["nil", 3, "nil", 4])
        order = []
        while hand.phase is Phase.EXCHANGE:
            order.append(hand.to_act)
            hand.apply(hand.legal_actions()[0])
        assert order == [0, 2, 2, 0]

    def test_blind_nil_uses_blind_pass_and_nil_uses_nil_pass(self) -> None:
        hand = make_hand(load_rules({"nil_pass": 1}), DEAL_A, context=BLIND_ALL)
        hand.apply(Bid(0, BLIND_NIL))
        bid_round(hand, [3, "nil", 4])
        sizes = []
        while hand.phase is Phase.EXCHANGE:
            a = hand.legal_actions()[0]
            sizes.append((a.seat, len(a.cards)))
            hand.apply(a)
        assert sizes == [(0, 2), (2, 2), (2, 1), (0, 1)]


class TestSideBids:
    def test_min_side_bid_holds_the_last_bidder(self) -> None:
        hand = make_hand(load_rules({"min_side_bid": 4}), DEAL_A)
        assert legal_texts(hand) == {"bid nil"} | numbers(1, 13)
        bid_round(hand, [1])
        bid_round(hand, [2])
        assert legal_texts(hand) == numbers(3, 13)  # seat 2: partner bid 1, the side needs 4
        bid_round(hand, [3])
        assert legal_texts(hand) == numbers(2, 13)

    def test_min_side_bid_nil_partner_bids_at_least_the_minimum(self) -> None:
        hand = make_hand(load_rules({"min_side_bid": 4}), DEAL_A)
        bid_round(hand, ["nil", 5])
        assert legal_texts(hand) == numbers(4, 13)

    def test_min_side_bid_partner_already_at_the_minimum_may_nil(self) -> None:
        hand = make_hand(load_rules({"min_side_bid": 4}), DEAL_A)
        bid_round(hand, [4, 5])
        assert legal_texts(hand) == {"bid nil"} | numbers(1, 13)

    def test_min_side_bid_solo(self) -> None:
        hand = make_hand(load_rules({"preset": "cutthroat", "min_side_bid": 4}), DEAL_A)
        assert legal_texts(hand) == numbers(4, 13)

    def test_max_side_bid(self) -> None:
        hand = make_hand(load_rules({"max_side_bid": 10}), DEAL_A)
        assert legal_texts(hand) == {"bid nil"} | numbers(1, 10)
        bid_round(hand, [7, 2])
        assert legal_texts(hand) == {"bid nil"} | numbers(1, 3)
        with pytest.raises(IllegalActionError, match="at most 10"):
            hand.apply(Bid(2, BidValue(4)))

    def test_max_side_bid_reached_leaves_only_nil(self) -> None:
        hand = make_hand(load_rules({"max_side_bid": 10}), DEAL_A)
        bid_round(hand, [10, 2])
        assert legal_texts(hand) == {"bid nil"}


class TestTeamBidding:
    def test_after_a_total_the_partner_may_still_bid_nil_or_let_it_stand(self) -> None:
        """rules.md: "give one side total ...; either may still bid nil"."""
        hand = make_hand(load_rules({"team_bidding": True}), DEAL_A)
        bid_round(hand, [7, 4])
        assert hand.to_act == 2 and legal_texts(hand) == {"bid nil", "accept"}
        hand.apply(Accept(2))
        assert hand.to_act == 3 and legal_texts(hand) == {"bid nil", "accept"}
        bid_round(hand, ["nil"])
        assert hand.phase is Phase.PLAY
        assert hand.bids == [BidValue(7), BidValue(4), None, BidValue(0)]
        assert view_hand(hand, 2).hand is not None
        plain = make_hand(load_rules("standard"), DEAL_A)
        with pytest.raises(IllegalActionError, match="leave the bid"):
            plain.apply(Accept(plain.to_act))

    def test_a_nil_lets_the_partner_bid(self) -> None:
        hand = make_hand(load_rules({"team_bidding": True}), DEAL_A)
        bid_round(hand, ["nil", 4])
        assert hand.to_act == 2 and legal_texts(hand) == {"bid nil"} | numbers(1, 13)
        bid_round(hand, [5])
        hand.apply(Accept(3))  # seat 1 gave its side's total
        assert hand.phase is Phase.PLAY

    def test_min_side_bid_holds_the_total(self) -> None:
        """Fixed: the total given by the first partner could be below min_side_bid."""
        hand = make_hand(load_rules({"team_bidding": True, "min_side_bid": 4}), DEAL_A)
        assert legal_texts(hand) == {"bid nil"} | numbers(4, 13)
        bid_round(hand, ["nil"])
        bid_round(hand, [5])
        assert legal_texts(hand) == numbers(4, 13)

    def test_the_silenced_partner_sees_their_cards(self) -> None:
        """Fixed: a blind-eligible partner silenced by a total never looked, and its view hid its hand."""
        hand = make_hand(load_rules({"team_bidding": True}), DEAL_A, context=BLIND_ALL)
        hand.apply(Look(0))
        hand.apply(Bid(0, BidValue(5)))
        hand.apply(Bid(1, BLIND_NIL))
        # The partner of a total may still bid blind nil before looking, or let the total stand.
        assert view_hand(hand, 2).hand is None and view_hand(hand, 2).may_bid_blind
        assert legal_texts(hand) == {"blind nil", "look", "accept"}
        hand.apply(Accept(2))
        assert view_hand(hand, 2).hand is not None and not view_hand(hand, 2).may_bid_blind
        assert view_hand(hand, 3).hand is None and view_hand(hand, 3).may_bid_blind
        hand.apply(Look(3))
        hand.apply(Bid(3, BidValue(4)))
        while hand.phase is Phase.EXCHANGE:
            hand.apply(hand.legal_actions()[0])
        assert all(view_hand(hand, s).hand is not None for s in range(4))
        hand.undo()
        assert hand.phase is Phase.EXCHANGE

    def test_game_scores_the_total_with_both_partners_tricks(self) -> None:
        """Fixed: the silent partner's tricks did not count toward the total."""
        rules = load_rules({"team_bidding": True})
        hand = make_hand(rules, DEAL_A)
        bid_round(hand, [1, 1])
        hand.apply(Accept(2))
        hand.apply(Accept(3))
        from spades.core import score_hand

        sides = score_hand(rules, hand.bids, [0, 3, 3, 7], [0, 0])
        assert sides[0].made and sides[0].points == 10 + 2
        assert sides[1].made and sides[1].points == 10 + 9


class TestForcedBids:
    def test_mirror_bids_the_spade_count(self) -> None:
        hand = make_hand(load_rules("mirror"), DEAL_A)
        assert legal_texts(hand) == {"bid 3"}
        bid_round(hand, [3, 4])
        assert legal_texts(hand) == {"bid nil"}  # seat 2 holds no spade
        bid_round(hand, ["nil"])
        assert legal_texts(hand) == {"bid 6"}

    def test_whiz_bids_nil_or_the_spade_count(self) -> None:
        hand = make_hand(load_rules("whiz"), DEAL_A)
        assert legal_texts(hand) == {"bid nil", "bid 3"}
        bid_round(hand, [3, "nil"])
        assert legal_texts(hand) == {"bid nil"}

    def test_suicide_one_partner_nil(self) -> None:
        hand = make_hand(load_rules("suicide"), DEAL_A)
        assert legal_texts(hand) == {"bid nil"} | numbers(4, 13)
        bid_round(hand, [5])
        assert legal_texts(hand) == {"bid nil"} | numbers(4, 13)
        bid_round(hand, ["nil"])
        assert legal_texts(hand) == {"bid nil"}  # seat 2: partner bid a number
        with pytest.raises(IllegalActionError, match="suicide"):
            hand.apply(Bid(2, BidValue(3)))
        bid_round(hand, ["nil"])
        assert legal_texts(hand) == numbers(4, 13)  # seat 3: partner bid nil


class TestMisdeal:
    def test_qualifying_hands(self) -> None:
        hand = make_hand(load_rules({"misdeal": True}), DEAL_A)
        # seat 0: three spades and face cards, 7 clubs -> qualifies; seat 1: no; seat 2: no spades;
        # seat 3: seven hearts
        assert [hand.misdeal_hand(s) for s in range(4)] == [True, False, True, True]

    def test_called_out_of_turn_before_partner_bids(self) -> None:
        rules = load_rules({"misdeal": True})
        hand = make_hand(rules, DEAL_A)
        assert legal_texts(hand, 3) == {"misdeal"}
        assert legal_texts(hand, 1) == set()
        bid_round(hand, [3])
        assert legal_texts(hand, 2) == set()  # partner (seat 0) has bid
        with pytest.raises(IllegalActionError, match="partner has already bid"):
            hand.apply(Misdeal(2))
        hand.apply(Misdeal(3))
        assert hand.phase is Phase.MISDEALT and hand.is_over

    def test_not_allowed_by_default(self) -> None:
        hand = make_hand(load_rules("standard"), DEAL_A)
        with pytest.raises(IllegalActionError, match="do not allow misdeal"):
            hand.apply(Misdeal(3))

    def test_blind_eligible_seat_looks_before_calling(self) -> None:
        hand = make_hand(load_rules({"misdeal": True}), DEAL_A, context=BLIND_ALL)
        assert "misdeal" not in legal_texts(hand)
        with pytest.raises(IllegalActionError, match="look at your cards first"):
            hand.apply(Misdeal(0))
        hand.apply(Look(0))
        assert "misdeal" in legal_texts(hand)

    def test_game_redeals_with_the_same_dealer(self) -> None:
        rules = load_rules({"misdeal": True})
        game = Game(rules, first_dealer=2, shuffler=seeded_shuffler(11))
        for _ in range(50):
            callers = [s for s in range(4) if Misdeal(s) in game.legal_actions(s)]
            if callers:
                break
            game.hands.pop()
            game.start_hand()
        else:
            pytest.skip("no misdeal hand in 50 deals")
        first = game.hand
        game.apply(Misdeal(callers[0]))
        assert game.results[-1].misdeal and game.totals == [0, 0]
        assert game.hand is not first and game.hand.dealer == 2


class TestDealerDiscard:
    def test_dealer_takes_two_and_discards_two_unseen(self) -> None:
        rules = load_rules("jokers-54")
        game = Game(rules, first_dealer=1, shuffler=seeded_shuffler(4))
        hand = game.hand
        assert hand.phase is Phase.DISCARD and hand.to_act == 1
        assert [h.bit_count() for h in hand.hands] == [13, 15, 13, 13]
        assert len(hand.legal_actions()) == 15 * 14 // 2
        with pytest.raises(IllegalActionError, match="turn to discard"):
            hand.apply(Bid(2, BidValue(3)))
        d = hand.legal_actions()[5]
        assert isinstance(d, Discard)
        hand.apply(d)
        assert [h.bit_count() for h in hand.hands] == [13] * 4
        assert hand.phase is Phase.BID and hand.to_act == 2
        assert view_hand(hand, 1).discard == d.cards
        assert all(view_hand(hand, s).discard is None for s in (0, 2, 3))
        assert view_hand(hand, 0).discard_count == 2

    def test_the_dealer_never_bids_blind(self) -> None:
        rules = load_rules({"preset": "jokers-54", "blind_behind": 0})
        game = Game(rules, first_dealer=0, shuffler=seeded_shuffler(4))
        assert game.hand.blind_ok == [False, True, True, True]


class TestTwoHanded:
    def test_the_draw(self) -> None:
        rules = load_rules("two-handed")
        game = Game(rules, first_dealer=0, shuffler=seeded_shuffler(9))
        hand = game.hand
        assert hand.phase is Phase.DRAW and hand.to_act == 1
        assert hand.legal_actions() == [Draw(1, True), Draw(1, False)]
        top, nxt = hand.stock[0], hand.stock[1]
        v1, v0 = view_hand(hand, 1), view_hand(hand, 0)
        assert v1.top_card == top and v0.top_card is None
        hand.apply(Draw(1, True))
        assert hand.hands[1] == 1 << top and hand.out >> nxt & 1
        assert hand.to_act == 0
        top2, nxt2 = hand.stock[2], hand.stock[3]
        hand.apply(Draw(0, False))
        assert hand.hands[0] == 1 << nxt2
        assert view_hand(hand, 0).draw_seen == (top2,)
        assert view_hand(hand, 1).draw_seen == ()
        for _ in range(24):
            hand.apply(hand.legal_actions()[0])
        assert hand.phase is Phase.BID and hand.to_act == 1
        assert [h.bit_count() for h in hand.hands] == [13, 13]
        assert (hand.out.bit_count() + sum(len(x) for x in hand.draw_seen)) == 26
        assert "look" not in legal_texts(hand)  # every card was seen while drawing

    def test_blind_is_refused_in_the_draw_game(self) -> None:
        from spades.core import RulesError

        with pytest.raises(RulesError, match="players, blind_nil"):
            load_rules({"players": 2})
        with pytest.raises(RulesError, match="blind_bids"):
            load_rules({"preset": "two-handed", "blind_bids": True})


def test_three_handed_deals_17_and_sets_one_aside() -> None:
    rules = load_rules("three-handed")
    hand = Game(rules, shuffler=seeded_shuffler(2)).hand
    assert [h.bit_count() for h in hand.hands] == [17, 17, 17] and hand.out.bit_count() == 1
    for seat in range(3):
        assert card_text(cards_of(hand.out)[0]) not in (view_hand(hand, seat).to_dict()["hand"] or [])


def test_three_handed_jokers_deals_18() -> None:
    hand = Game(load_rules("three-handed-jokers"), shuffler=seeded_shuffler(2)).hand
    assert [h.bit_count() for h in hand.hands] == [18, 18, 18] and hand.out == 0


def test_six_handed_deals_102_cards_17_each() -> None:
    hand = Game(load_rules("six-handed"), shuffler=seeded_shuffler(2)).hand
    assert [h.bit_count() for h in hand.hands] == [17] * 6 and hand.out == 0
    assert len(hand.layout.deck) == 102


def test_first_hand_without_bids() -> None:
    game = Game(load_rules({"first_hand_bids": False}), shuffler=seeded_shuffler(2))
    assert game.hand.phase is Phase.PLAY
    while len(game.hands) == 1:
        game.apply(game.legal_actions()[0])
    assert game.results[0].bids is None
    assert [s.points for s in game.results[0].sides] == [10 * s.tricks for s in game.results[0].sides]
    assert game.hand.phase is Phase.BID


def test_checked_bid_error_leaves_state_untouched() -> None:
    hand = make_hand(load_rules({"min_side_bid": 4}), DEAL_A)
    bid_round(hand, [1, 2])
    before = snapshot(hand)
    for bad in (Bid(2, BidValue(2)), Bid(2, BidValue(0, True)), Bid(3, BidValue(3)), Bid(2, BidValue(99)),
                Look(2), Pass(2, (1, 2))):
        with pytest.raises(IllegalActionError):
            hand.apply(bad)
        assert snapshot(hand) == before


def test_legal_actions_come_in_the_documented_order() -> None:
    """Bidding: misdeal, blind nil, blind bids upward, look; then nil, bids upward."""
    rules = load_rules({"misdeal": True, "blind_bids": True})
    hand = make_hand(rules, DEAL_A, context=BLIND_ALL)
    first = hand.legal_actions()
    assert first[0] == Bid(0, BLIND_NIL) and isinstance(first[-1], Look)
    assert [a.value.tricks for a in first[1:-1]] == list(range(6, 14))
    hand.apply(Look(0))
    after = hand.legal_actions()
    assert after[0] == Misdeal(0) and after[1] == Bid(0, BidValue(0))
    assert [a.value.tricks for a in after[2:]] == list(range(1, 14))


def test_a_record_omits_every_accept_and_replays() -> None:
    """Both partners of team totals let them stand: the record has two bids, then the play."""
    from spades.core import record_of
    from spades.variants import read_record

    rules = load_rules({"team_bidding": True})
    game = Game(rules, first_dealer=0, shuffler=seeded_shuffler(4))
    if Look(1) in game.legal_actions():
        game.apply(Look(1))
    game.apply(Bid(1, BidValue(5)))
    game.apply(Bid(2, BidValue(6)))
    game.apply(Accept(3))
    game.apply(Accept(0))
    assert game.hand.phase is Phase.PLAY
    game.apply(game.legal_actions()[0])
    rec = record_of(game, {"preset": "standard", "team_bidding": True})
    assert [list(a)[1] for a in rec["hands"][0]["actions"]] == ["bid", "bid", "play"]
    again = read_record(rec)
    assert again.hand.bids == game.hand.bids and again.hand.current == game.hand.current
