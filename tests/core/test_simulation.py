"""Thousands of seeded random full games (marked slow: ``./test`` runs them, a plain pytest does not).

Every preset plays 150 games, and 600 random rule sets play one game each; every finished hand is
checked (tricks, winners by the rules oracle, cards accounted for), every game ends with a winner, and
every tenth game's record replays to the same game.
"""

from __future__ import annotations

import random

import pytest

from spades.core import RulesError
from spades.variants import PRESETS, load_rules

from .support import check_finished_hand, check_roundtrip, play_game
from .test_properties import OPTION_VALUES


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_many_games_of_every_preset(preset: str) -> None:
    rules = load_rules({"preset": preset, "target": 300, "lose_at": -300})
    for seed in range(150):
        game = play_game(rules, seed)
        assert game.over and game.winner is not None
        for hand in game.hands:
            check_finished_hand(game, hand)
        if seed % 10 == 0:
            check_roundtrip(game, rules)


@pytest.mark.slow
def test_many_random_rule_sets() -> None:
    rng = random.Random(2026)
    played = refused = 0
    names = sorted(OPTION_VALUES)
    while played < 600:
        spec = {"preset": rng.choice(sorted(PRESETS))}
        for name in rng.sample(names, rng.randrange(1, 8)):
            spec[name] = rng.choice(OPTION_VALUES[name])
        try:
            rules = load_rules(spec)
        except RulesError as e:
            assert "cannot" in str(e) or "must" in str(e)
            refused += 1
            continue
        if rules.lose_at is None:
            rules = rules.replace(lose_at=-300)
        game = play_game(rules, played)
        assert game.over and game.winner is not None, spec
        for hand in game.hands:
            check_finished_hand(game, hand)
        if played % 10 == 0:
            check_roundtrip(game, rules)
        played += 1
    assert refused < played * 3
