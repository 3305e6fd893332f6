"""Team bidding: after a partner's side total the bots let it stand (or add a nil) and play on legally."""

from __future__ import annotations

import pytest

from spades.ai import make_bot
from spades.core import Accept, Bid, Game, seeded_shuffler, view_hand
from spades.variants import load_rules


@pytest.mark.parametrize("level", ["easy", "normal", pytest.param("expert", marks=pytest.mark.slow)])
def test_bots_answer_a_team_total_and_play_legally(level: str) -> None:
    rules = load_rules({"team_bidding": True, "target": 200, "lose_at": -200})
    game = Game(rules, first_dealer=0, shuffler=seeded_shuffler(11))
    bots = [make_bot(level, s) for s in range(4)]
    accepts = 0
    for _ in range(3):  # three hands
        start = len(game.results)
        while len(game.results) == start and not game.over:
            seat = game.hand.to_act
            view = view_hand(game.hand, seat)
            d = bots[seat].decide(view, tuple(game.totals), deadline=None, bags=tuple(game.bags))
            assert d.action in view.legal and d.reason
            if isinstance(d.action, Accept):
                accepts += 1
            elif isinstance(d.action, Bid) and any(isinstance(a, Accept) for a in view.legal):
                assert d.action.value.is_nil  # the only bid left after a total is a nil
            game.apply(d.action)
        if game.over:
            break
    assert accepts >= 1
