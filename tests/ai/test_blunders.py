"""The labelled blunder suite (``tests/data/blunders/``): normal and expert avoid every blunder."""

from __future__ import annotations

from collections import Counter

import pytest

from .blunders import Position, check, load_positions

POSITIONS = load_positions()


def test_the_suite_is_big_and_varied() -> None:
    labels = Counter(p.label for p in POSITIONS)
    assert len(POSITIONS) >= 100
    assert len(labels) >= 8
    assert all(n >= 8 for n in labels.values())


@pytest.mark.parametrize("pos", POSITIONS, ids=[p.name for p in POSITIONS])
def test_normal_avoids_the_blunder(pos: Position) -> None:
    ok, got = check(pos, "normal")
    assert ok, f"{pos.label}: normal chose {got}; expected {pos.expected}, forbidden {pos.forbidden}"


@pytest.mark.parametrize("pos", POSITIONS, ids=[p.name for p in POSITIONS])
def test_expert_avoids_the_blunder(pos: Position) -> None:
    ok, got = check(pos, "expert", budget=0.03)
    assert ok, f"{pos.label}: expert chose {got}; expected {pos.expected}, forbidden {pos.forbidden}"


def test_random_play_falls_into_blunders() -> None:
    """The suite tells players apart: a random player fails many positions."""
    failures = sum(not check(p, "random", seed=3)[0] for p in POSITIONS)
    assert failures >= len(POSITIONS) // 4
