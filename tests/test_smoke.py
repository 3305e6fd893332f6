"""A first end-to-end check: every preset plays seeded games to the end with legal actions only."""

import random

import pytest

from spades.core import Bid, Game, Look, seeded_shuffler
from spades.variants import PRESETS, load_rules


def sensible(rng: random.Random, game: Game):  # type: ignore[no-untyped-def]
    """Random legal play with small bids, so games end."""
    legal = game.legal_actions()
    looks = [a for a in legal if isinstance(a, Look)]
    if looks:
        return looks[0]
    bids = [a for a in legal if isinstance(a, Bid)]
    if bids:
        return min(bids, key=lambda a: (a.value.tricks == 0, abs(a.value.tricks - 3)))
    return rng.choice(legal)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_preset_plays_to_the_end(preset: str) -> None:
    rules = load_rules({"preset": preset, "lose_at": -500} if preset != "mirror" else preset)
    rng = random.Random(7)
    game = Game(rules, first_dealer=1, shuffler=seeded_shuffler(7))
    for _ in range(200_000):
        if game.over:
            break
        game.apply(sensible(rng, game))
    assert game.over and game.winner is not None
