"""The bid evidence model: its default is the one the expert was measured with, and
benchmarks/bid_evidence.py's variants and measurement work."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import pytest

from bench_tools import load_benchmark
from spades.ai import knowledge
from spades.ai.knowledge import Knowledge
from spades.core.actions import Bid, BidValue
from spades.core.game import Game, seeded_shuffler
from spades.core.view import view_hand
from spades.variants import load_rules


def load_tool() -> ModuleType:
    return load_benchmark("bid_evidence.py")


def test_the_default_model_is_the_measured_expert_s() -> None:
    used = knowledge.BID_EVIDENCE
    assert (used.number_spread, used.number_offset, used.nil_free, used.nil_spread, used.tries) == (1.8, 0, 0, 1.2, 6)


def test_a_tighter_model_weighs_a_misfit_deal_down_harder(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = load_rules("standard")
    game = Game(rules, first_dealer=0, shuffler=seeded_shuffler(3))
    hand = game.hand
    for _ in range(2):  # two seats bid 13: any guessed deal of theirs misfits
        game.apply(Bid(hand.to_act, BidValue(13)))
    seat = hand.to_act
    view = view_hand(hand, seat)
    k = Knowledge.from_view(view)
    rng = random.Random(1)
    deals = [k._deal_once(rng) for _ in range(50)]
    loose = [k._bid_fit(d, view) for d in deals]
    tool = load_tool()
    monkeypatch.setattr(knowledge, "BID_EVIDENCE", knowledge.BID_EVIDENCE)  # restored after the test
    tool.tight()
    assert knowledge.BID_EVIDENCE.number_spread == 0.9 and knowledge.BID_EVIDENCE.tries == 20
    tight = [k._bid_fit(d, view) for d in deals]
    assert all(t <= lo for t, lo in zip(tight, loose, strict=True)) and sum(tight) < sum(loose) / 10


def test_measure_reports_the_spread(capsys: Any) -> None:
    load_tool().measure("normal", 12)
    out = capsys.readouterr().out
    assert "normal number bids: est - bid:" in out and "sd" in out
