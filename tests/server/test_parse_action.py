"""``parse_action``: an action's shape is refused with the reason before the engine is asked."""

from __future__ import annotations

from typing import Any

import pytest

from spades.core.actions import Bid, BidValue, Look
from spades.core.game import Game, seeded_shuffler
from spades.core.presets import load_rules
from spades.server.protocol import ProtocolError, parse_action


@pytest.mark.parametrize("data", [{}, {"seat": 1}, {"bid": 3, "play": "AS"}, {"bid": 3, "extra": 1}, {"foo": 1},
                                  {"seat": 1, "bid": 3, "look": True}, {"Bid": 3}])
def test_an_action_needs_exactly_one_kind(data: dict[str, Any]) -> None:
    hand = Game(load_rules("standard"), shuffler=seeded_shuffler(1)).hand
    with pytest.raises(ProtocolError, match="an action needs exactly one of bid, pass, discard") as e:
        parse_action(data, 1, hand)
    assert e.value.code == "malformed"


def test_the_kinds_are_read_with_or_without_the_own_seat() -> None:
    hand = Game(load_rules("standard"), shuffler=seeded_shuffler(1)).hand
    assert parse_action({"bid": 3}, 1, hand) == Bid(1, BidValue(3))
    assert parse_action({"seat": 1, "bid": "nil"}, 1, hand) == Bid(1, BidValue(0))
    assert parse_action({"look": True}, 2, hand) == Look(2)
    with pytest.raises(ProtocolError, match="you sit at seat 1: you cannot act for seat 2") as e:
        parse_action({"seat": 2, "bid": 3}, 1, hand)
    assert e.value.code == "not_your_seat"
