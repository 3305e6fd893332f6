"""The play of the cards under every play rule: opening leads, breaking, following, must-beat, top trumps,
six-handed identical cards, and the error messages of illegal plays."""

from __future__ import annotations

import random

import pytest

from spades.core import Game, IllegalActionError, Look, Phase, Play, parse_face, seeded_shuffler
from spades.variants import PRESETS, load_rules

from .support import bid_round, choose, held_texts, legal_texts, make_hand, play_texts, snapshot

# Dealer 3, so seat 0 bids and leads first. Seat 2 holds every diamond, seat 3 seven hearts and six spades.
DEAL_A = [
    "AC KC QC JC TC 9C 8C AH KH QH AS KS QS",
    "7C 6C 5C 4C 3C 2C JH TH 9H JS TS 9S 8S",
    "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
    "8H 7H 6H 5H 4H 3H 2H 7S 6S 5S 4S 3S 2S",
]
CLUBS0 = {"AC", "KC", "QC", "JC", "TC", "9C", "8C"}
HEARTS0 = {"AH", "KH", "QH"}


def ready(options: object = "standard", deal: list[str] = DEAL_A, dealer: int = 3, fill: bool = False):  # type: ignore[no-untyped-def]
    rules = load_rules(options)
    hand = make_hand(rules, deal, dealer=dealer, fill=fill)
    bid_round(hand, [1] * rules.layout.n)
    assert hand.phase is Phase.PLAY
    return hand


def test_opening_lead_is_left_of_dealer_and_not_a_spade() -> None:
    hand = ready()
    assert hand.to_act == 0
    assert legal_texts(hand) == CLUBS0 | HEARTS0
    with pytest.raises(IllegalActionError, match="opening lead cannot be a spade"):
        hand.apply(Play(0, parse_face("AS")))


def test_opening_lead_of_a_hand_of_nothing_but_spades() -> None:
    deal = ["AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", "", "", ""]
    hand = ready(deal=deal, fill=True)
    assert len(legal_texts(hand)) == 13


def test_first_lead_spade_allows_a_spade_opening() -> None:
    hand = ready({"first_lead_spade": True})
    assert legal_texts(hand) == CLUBS0 | HEARTS0 | {"AS", "KS", "QS"}


def test_first_lead_dealer() -> None:
    hand = ready({"first_lead": "dealer"})
    assert hand.to_act == 3
    assert legal_texts(hand) == {"8H", "7H", "6H", "5H", "4H", "3H", "2H"}


def test_first_lead_lowest_club_and_everyone_follows_clubs() -> None:
    hand = ready({"first_lead": "lowest_club"})
    assert hand.to_act == 1
    assert legal_texts(hand) == {"2C"}
    play_texts(hand, "2C")
    assert legal_texts(hand) == {"AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D", "5D", "4D", "3D", "2D"}
    play_texts(hand, "2D")
    assert len(legal_texts(hand)) == 13  # seat 3: no clubs, anything
    play_texts(hand, "2H 8C")
    assert hand.tricks[0].winner == 0


def test_lowest_club_when_the_two_is_out_of_the_deck() -> None:
    deal = ["3C", "", "", ""]
    rules = load_rules({"preset": "jokers", "first_lead": "lowest_club"})
    hand = make_hand(rules, deal, dealer=1, fill=True)
    bid_round(hand, [1, 1, 1, 1])
    assert hand.to_act == 0 and legal_texts(hand) == {"3C"}


def test_follow_suit_else_anything_and_a_spade_breaks_spades() -> None:
    hand = ready()
    play_texts(hand, "8C")
    assert legal_texts(hand) == {"7C", "6C", "5C", "4C", "3C", "2C"}
    with pytest.raises(IllegalActionError, match="must follow suit"):
        hand.apply(Play(1, parse_face("JH")))
    play_texts(hand, "2C")
    assert len(legal_texts(hand)) == 13
    play_texts(hand, "2D")
    assert not hand.broken
    play_texts(hand, "2S")
    assert hand.broken
    assert hand.tricks[0].winner == 3 and hand.to_act == 3
    assert "7S" in legal_texts(hand)


def test_spades_not_broken_cannot_be_led() -> None:
    hand = ready()
    play_texts(hand, "AH JH 2D 2H")  # seat 0 wins with no spade played
    assert hand.to_act == 0 and not hand.broken
    assert legal_texts(hand) == CLUBS0 | {"KH", "QH"}
    before = snapshot(hand)
    with pytest.raises(IllegalActionError, match="spades are not broken"):
        hand.apply(Play(0, parse_face("AS")))
    assert snapshot(hand) == before


def test_spades_lead_any_time() -> None:
    hand = ready({"spades_lead": "any_time"})
    assert "AS" not in legal_texts(hand)  # the opening lead is first_lead_spade's business
    play_texts(hand, "AH JH 2D 2H")
    assert {"AS", "KS", "QS"} <= legal_texts(hand)


def test_wrong_seat_and_unheld_card_change_nothing() -> None:
    hand = ready()
    before = snapshot(hand)
    with pytest.raises(IllegalActionError, match="seat 0's turn"):
        hand.apply(Play(1, parse_face("7C")))
    with pytest.raises(IllegalActionError, match="not in that hand"):
        hand.apply(Play(0, parse_face("2D")))
    with pytest.raises(IllegalActionError, match="not in that hand"):
        hand.apply(Play(0, 500))
    with pytest.raises(IllegalActionError, match="now is the time to play"):
        from spades.core import Bid, BidValue

        hand.apply(Bid(0, BidValue(3)))
    assert snapshot(hand) == before


class TestMustBeat:
    """cutthroat as pagat records it: beat the best card so far when you can, trumping when void."""

    def test_must_play_higher_in_suit(self) -> None:
        hand = ready("cutthroat")
        play_texts(hand, "AH")
        # seat 1 holds JH TH 9H, none beat the ace: any heart.
        assert legal_texts(hand) == {"JH", "TH", "9H"}

    def test_void_must_trump_and_overtrump(self) -> None:
        hand = ready("cutthroat")
        play_texts(hand, "8C 7C 2D")
        assert legal_texts(hand) == {"7S", "6S", "5S", "4S", "3S", "2S"}  # void in clubs: must trump
        play_texts(hand, "2S")
        # next trick: seat 3 leads hearts; seat 0 must beat 8H with a higher heart
        play_texts(hand, "8H")
        assert legal_texts(hand) == {"AH", "KH", "QH"}

    def test_cannot_beat_a_trump_so_follow_with_anything(self) -> None:
        hand = ready("cutthroat")
        play_texts(hand, "8C 7C 2D 2S")
        play_texts(hand, "7H AH")  # seat 3 leads 7H, seat 0 beats with the ace
        assert legal_texts(hand) == {"JH", "TH", "9H"}  # seat 1 cannot beat: any heart


def test_must_beat_follow_lower_when_nothing_beats() -> None:
    hand = ready("cutthroat")
    play_texts(hand, "AH JH 2D 2H QH")
    assert legal_texts(hand) == {"TH", "9H"}
    assert held_texts(hand, 1).count("H") == 2


JOKER_DEAL = [
    "BJ 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "LJ 2S 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
    "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S AD",
    "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D",
]


def test_top_trumps_are_spades_for_following_and_rank_above_the_ace() -> None:
    hand = ready("jokers", deal=JOKER_DEAL, dealer=2)
    # dealer 2: seat 3 leads; clubs
    assert hand.to_act == 3
    play_texts(hand, "3C")
    assert len(legal_texts(hand)) == 13  # seat 0: void in clubs
    play_texts(hand, "BJ")
    assert hand.broken  # a joker is a spade: it breaks spades
    assert legal_texts(hand) == {"LJ", "2S", *(f"{r}D" for r in "3456789TJQK")}
    play_texts(hand, "LJ AS")
    assert hand.tricks[0].winner == 0  # big joker over little joker over the ace
    # seat 0 leads BJ? it was played; lead a heart; a spade lead by seat 0 would be its jokers (gone)
    play_texts(hand, "AH")
    # seat 1 has no hearts: 2S is a spade and wins over the ace of hearts
    play_texts(hand, "2S AD 2D")
    assert hand.tricks[1].winner == 1
    # seat 1 leads: 2S is gone; a spade lead is allowed (broken)
    assert hand.to_act == 1


def test_top_trump_led_must_be_followed_with_spades() -> None:
    hand = ready("jokers", deal=JOKER_DEAL, dealer=2)
    play_texts(hand, "3C BJ LJ AS")
    play_texts(hand, "3H")
    play_texts(hand, "2S")  # seat 1 trumps with 2S (void in hearts)
    play_texts(hand, "KS 2D")
    assert hand.tricks[1].winner == 1  # 2S over the king of spades
    play_texts(hand, "3D")
    assert legal_texts(hand) == {"AD"}


def test_new_york_two_of_diamonds_is_a_spade() -> None:
    deal = ["BJ 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
            "LJ 2S 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
            "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S AD",
            "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D"]
    hand = ready("new-york", deal=deal, dealer=2)
    play_texts(hand, "AC")
    # seat 0 void in clubs; seat 1 void; seat 2 void
    play_texts(hand, "3H 3D 3S")
    assert hand.tricks[0].winner == 2
    play_texts(hand, "AD")  # seat 2 leads the ace of diamonds
    assert legal_texts(hand) == {f"{r}C" for r in "3456789TJQK"} | {"2D"}  # seat 3: 2D is no diamond
    play_texts(hand, "2D")
    assert hand.broken
    play_texts(hand, "4H 4D")
    assert hand.tricks[1].winner == 3  # 2D is a trump


def test_six_handed_second_identical_card_wins() -> None:
    rules = load_rules("six-handed")
    hand = make_hand(rules, ["AH", "AH", "2H", "3H", "4H", "5H"], dealer=5, fill=True)
    bid_round(hand, [1] * 6)
    assert hand.to_act == 0
    play_texts(hand, "AH AH 2H 3H 4H 5H")
    assert hand.tricks[0].winner == 1


def test_six_handed_second_identical_trump_wins_and_must_beat_counts_it_as_beating() -> None:
    rules = load_rules({"preset": "six-handed", "must_beat": True})
    hand = make_hand(rules, ["3H", "AH", "2H", "3H", "4H", "AH 2H"], dealer=5, fill=True)
    bid_round(hand, [1] * 6)
    play_texts(hand, "3H AH 2H 3H 4H")
    assert legal_texts(hand) == {"AH"}  # the second ace beats the first, so it must be played
    play_texts(hand, "AH")
    assert hand.tricks[0].winner == 5


def test_six_handed_legal_plays_name_each_face_once() -> None:
    rules = load_rules("six-handed")
    hand = make_hand(rules, ["AH AH KH KH", "", "", "", "", ""], dealer=5, fill=True)
    bid_round(hand, [1] * 6)
    plays = hand.legal_actions()
    assert len(plays) == len({p.card % 54 for p in plays})
    assert sum(1 for p in plays if p.card % 54 == parse_face("AH")) == 1


def test_six_handed_lowest_club_leader_is_the_first_holder_from_the_dealers_left() -> None:
    """Fixed: the leader depended on which pack's copy a seat held, so records (which name faces) replayed
    with another leader. Reading: of two holders, the first from the dealer's left leads."""
    rules = load_rules({"preset": "six-handed", "first_lead": "lowest_club"})
    for first, second in ((1, 4), (4, 1)):
        deal = [""] * 6
        deal[first] = "3C"
        deal[second] = "3C"
        hand = make_hand(rules, deal, dealer=2, fill=True)
        bid_round(hand, [1] * 6)
        assert hand.to_act == 4  # dealer 2: seats 3, 4, 5, 0, 1 in turn
        assert legal_texts(hand) == {"3C"}


def test_six_handed_lowest_club_games_replay() -> None:
    from .support import check_roundtrip, play_game

    rules = load_rules({"preset": "six-handed", "first_lead": "lowest_club", "target": 100, "lose_at": -100})
    for seed in range(5):
        check_roundtrip(play_game(rules, seed), rules)


def test_a_play_is_one_shared_copy_per_seat_and_card() -> None:
    """``play`` hands out the engine's one copy of each play, the same ones ``legal_actions`` gives (a
    hand's log then holds pointers, not copies); outside the seats and cards there are, it makes a new
    play, which the hand's checks then refuse like any other."""
    from spades.core.actions import PLAYS, play

    hand = Game(load_rules("standard"), shuffler=seeded_shuffler(5)).hand
    for _ in range(4):
        hand.apply(hand.legal_actions()[0])
    for a in hand.legal_actions():
        assert isinstance(a, Play) and play(a.seat, a.card) is a is PLAYS[a.seat][a.card]
    odd = play(7, 3)
    assert odd == Play(7, 3) and play(0, 500) == Play(0, 500)
    with pytest.raises(IllegalActionError):
        hand.apply(odd)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_cards_to_play_counts_down_to_the_end_of_the_play(preset: str) -> None:
    """From the first card to the last, ``cards_to_play`` is the cards the seats still hold (every preset:
    two-handed draws, jokers, six seats) and falls by one a card; it is 0 once the hand is over."""
    rng = random.Random(preset)
    game = Game(load_rules(preset), shuffler=seeded_shuffler(3))
    hand = game.hand
    while hand.phase is not Phase.PLAY and not hand.is_over:
        game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
    assert not hand.is_over  # (no misdeal is called: every seeded deal reaches its play)
    while not hand.is_over:
        assert hand.cards_to_play == sum(h.bit_count() for h in hand.hands) > 0
        left = hand.cards_to_play
        game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
        assert hand.cards_to_play == (left - 1 if not hand.is_over else 0)
    assert left == 1


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bid_turns_left_count_down_through_the_bidding(preset: str) -> None:
    """In the bidding, ``bid_turns_left`` is the seats that have not spoken (every preset: team bidding's
    accepts are turns too, looks are not) and falls by one a bid or accept; it is 0 outside the bidding."""
    rng = random.Random(preset)
    game = Game(load_rules(preset), shuffler=seeded_shuffler(5))
    hand = game.hand
    while hand.phase is not Phase.BID and not hand.is_over:
        assert hand.bid_turns_left == 0
        game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
    spoke = 0
    while hand.phase is Phase.BID:
        left = hand.bid_turns_left
        assert left == hand.n - spoke > 0
        action = choose(rng, game.legal_actions(), misdeal_p=0)
        game.apply(action)
        if not isinstance(action, Look):
            spoke += 1
            assert hand.bid_turns_left == (left - 1 if hand.phase is Phase.BID else 0)
    assert spoke == (0 if hand.context.bidless else hand.n) and hand.bid_turns_left == 0
