"""The one trick rule (``spades.core.trick``) against the independent oracle, and every path that plays
cards held to it card for card: ``play_fast`` (checked play goes through it), the random play-outs'
unrolled kernels, the views, the computer players' rollouts, the shuffle lab's simulated hands."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from spades.ai.rollout import Rollout
from spades.core import Game, Phase, seeded_shuffler, view_hand
from spades.core.trick import NO_LEAD, takes_lead, trick_lead, trick_step
from spades.shuffle.simulate import play_random_hand
from spades.variants import PRESETS, load_rules

from .support import choose, trick_winner

VARIANTS = [*sorted(PRESETS), {"preset": "six-handed", "removed_cards": []},
            {"preset": "standard", "deck": "jokers", "removed_cards": ["2C", "2H"], "top_trumps": ["BJ", "LJ"]},
            {"preset": "standard", "top_trumps": ["2S"]}]
"""Every preset (jokers, New York's deuces, six-handed identical cards) and a few more top-trump lists."""


@settings(max_examples=300, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32), size=st.integers(1, 6))
def test_trick_lead_is_the_rule_for_any_cards(variant: object, seed: int, size: int) -> None:
    # Any cards in any order (not only legal ones): the winner is the oracle's, and the winning card its card.
    rules = load_rules(variant)
    lay = rules.layout
    rng = random.Random(seed)
    cards = [(s % lay.n, c) for s, c in enumerate(rng.choices(lay.deck, k=min(size, lay.n)))]
    state = trick_lead(lay, cards)
    assert state.seat == trick_winner(rules, cards)
    assert (state.seat, state.card) in cards
    # Step by step: a card takes the lead exactly when it becomes the winner.
    state = NO_LEAD
    for seat, card in cards:
        after = trick_step(lay, state, seat, card)
        assert (after.seat == seat and after.card == card) == takes_lead(lay, card, state)
        state = after


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32), plays=st.integers(0, 60))
def test_every_play_path_agrees_with_the_rule(variant: object, seed: int, plays: int) -> None:
    rules = load_rules(variant)
    lay = rules.layout
    rng = random.Random(seed)
    hand = Game(rules, shuffler=seeded_shuffler(seed)).hand
    while hand.phase is not Phase.PLAY:
        hand.apply(choose(rng, hand.legal_actions(), misdeal_p=0))
    played = 0
    while not hand.is_over and played < plays:
        # The checked path (``play_fast`` underneath) and the view's winner, card by card.
        hand.apply(rng.choice(hand.legal_actions()))
        played += 1
        if hand.current:
            lead = trick_lead(lay, hand.current)
            assert (lead.seat, lead.trump, lead.power) == (hand.win_seat, hand.win_trump, hand.win_power)
            assert view_hand(hand, None).to_dict()["trick_winner"] == lead.seat
        else:
            assert view_hand(hand, None).to_dict()["trick_winner"] is None
    if hand.is_over:
        return
    outs = [hand.clone(), hand.clone()]
    outs[0].play_out_random(random.Random(seed).random)  # the unrolled kernels
    Rollout(rules, [0] * lay.sides_count, [0] * lay.sides_count).play_out(outs[1])  # the rollout policy
    for out in outs:
        assert out.phase is Phase.DONE
        for t in out.tricks:
            assert t.winner == trick_winner(rules, list(t.cards)) == trick_lead(lay, t.cards).seat


def test_the_shuffle_labs_hands_follow_the_rule() -> None:
    rules = load_rules("standard")
    rng = random.Random(5)
    for _ in range(50):
        played = play_random_hand(rng)
        for trick, leader, winner in zip(played.tricks, played.leaders, played.winners, strict=True):
            cards = [((leader + i) % 4, c) for i, c in enumerate(trick)]
            assert winner == trick_winner(rules, cards)
