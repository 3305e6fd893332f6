"""The six-handed game's two decks on the wire: what clients receive marks the second pack's cards
(``AS*``), and client messages may name either a face (``AS``) or the marked copy."""

from __future__ import annotations

import random

import pytest

from spades.core import Bid, Game, Look, Phase, Play
from spades.core.cards import FACES_PER_PACK, card_code, card_text, cards_of, code_card, parse_card_code
from spades.core.errors import CardError
from spades.core.view import view_hand
from spades.server.protocol import parse_action, project_action
from spades.variants import load_rules


def six_handed_in_play(seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(load_rules("six-handed"), shuffler=lambda n: rng.sample(range(n), n))
    while game.hand.phase is not Phase.PLAY:
        legal = game.legal_actions()
        looks = [a for a in legal if isinstance(a, Look)]
        bids = [a for a in legal if isinstance(a, Bid) and not a.value.blind and a.value.tricks == 2]
        game.apply(looks[0] if looks else bids[0] if bids else legal[0])
    return game


def test_card_codes() -> None:
    assert card_code(51) == "AS" and card_code(51 + FACES_PER_PACK) == "AS*"
    assert card_code(53 + FACES_PER_PACK) == "BJ*"
    assert parse_card_code("AS*") == (51, 1) and parse_card_code("as") == (51, None)
    both = 1 << 51 | 1 << (51 + FACES_PER_PACK)
    assert code_card("AS", both) == 51 and code_card("AS*", both) == 51 + FACES_PER_PACK
    assert code_card("AS", 1 << (51 + FACES_PER_PACK)) == 51 + FACES_PER_PACK  # a face: whichever is held
    with pytest.raises(CardError):
        parse_card_code("ZZ*")


def test_views_mark_the_second_pack_and_marked_plays_are_understood() -> None:
    game = six_handed_in_play(7)
    hand = game.hand
    seat = hand.to_act
    assert seat is not None
    mine = cards_of(hand.hands[seat])
    d = view_hand(hand, seat).to_dict()
    assert d["hand"] == [card_code(c) for c in mine]
    assert any(t.endswith("*") for t in d["hand"]), "a six-handed hand of 18 cards holds second-pack cards"
    assert all(t.endswith("*") == (c >= FACES_PER_PACK) for t, c in zip(d["hand"], mine, strict=True))
    # The legal plays are marked the same way, so a client can match them to its cards.
    plays = {a["play"] for a in d["legal"]}
    assert plays <= set(d["hand"])
    # A marked text names that copy; an unmarked one the first pack's copy when both are held.
    second = next(c for c in mine if c >= FACES_PER_PACK)
    assert parse_action({"play": card_code(second)}, seat, hand) == Play(seat, second)
    f = second - FACES_PER_PACK
    want = f if hand.hands[seat] >> f & 1 else second
    assert parse_action({"play": card_text(second)}, seat, hand) == Play(seat, want)
    # Playing a legal second-pack card shows it marked in the trick, and in the action event.
    legal_second = [a for a in hand.legal_actions(seat) if isinstance(a, Play) and a.card >= FACES_PER_PACK]
    assert legal_second, "this deal's first player may lead a second-pack card"
    action = legal_second[0]
    assert project_action(action, None, hand.layout) == {"seat": seat, "play": card_code(action.card)}
    game.apply(parse_action({"play": card_code(action.card)}, seat, hand))
    assert view_hand(game.hand, None).to_dict()["current"][-1] == [seat, card_code(action.card)]


def test_second_pack_plays_in_many_deals() -> None:
    # Over a few deals some first player may lead a second-pack card: the mark survives the round trip.
    seen = 0
    for seed in range(12):
        game = six_handed_in_play(seed)
        hand = game.hand
        seat = hand.to_act
        assert seat is not None
        for a in hand.legal_actions(seat):
            if isinstance(a, Play) and a.card >= FACES_PER_PACK:
                assert parse_action({"play": card_code(a.card)}, seat, hand) == a
                seen += 1
    assert seen > 0
