"""Perft: legal-action counts from fixed positions of every table size (tests/data/perft/positions.json),
counted with the engine and, in the play phase, with the independent rules oracle."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spades.core import Phase

from .perft import DATA, POSITIONS, oracle_perft, perft, position

CASES = json.loads(DATA.read_text())["positions"]


def test_every_position_is_in_the_data() -> None:
    assert [c["label"] for c in CASES] == [p[0] for p in POSITIONS]
    sizes = {json.dumps(c["record"]["rules"]) for c in CASES}
    for table in ("three-handed", "two-handed", "six-handed", "cutthroat", "jokers-54"):
        assert any(table in s for s in sizes)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["label"])
def test_perft(case: dict[str, Any]) -> None:
    hand = position(case["record"])
    assert hand.phase.value == case["phase"]
    assert [perft(hand, d) for d in range(1, len(case["counts"]) + 1)] == case["counts"]
    if hand.phase is Phase.PLAY:
        assert oracle_perft(hand, len(case["counts"])) == case["counts"][-1]
