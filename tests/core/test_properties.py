"""Property tests: every preset and random combinations of house rules play whole games in which every
invariant holds at every step (see ``support.check_hand_step``), and the record of each game replays to
the same game.

Invariants: each card is in exactly one place; the hand has 13 (hand_size) tricks of n cards won as
rules.md says; a legal action exists until the hand ends; the legal plays agree with an independent
oracle; apply + undo and clone are exact; an illegal action changes nothing; a view never shows a card
its seat could not know; a game always ends; replaying a record reproduces the state.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, example, given, settings
from hypothesis import strategies as st

from spades.core import (
    Bid,
    BidValue,
    Discard,
    Draw,
    Game,
    Hand,
    HandContext,
    Look,
    Misdeal,
    Pass,
    Play,
    RulesError,
    SpadesError,
    deal_order,
    seeded_shuffler,
)
from spades.core import Phase as HandPhase
from spades.variants import PRESETS, load_rules

from .support import all_cards_accounted, check_finished_hand, choose, play_game, snapshot

# Option values drawn for random rule sets (every value of rules.md's table, and a few more).
OPTION_VALUES: dict[str, list[Any]] = {
    "players": [4, 2, 3, 6],
    "partnerships": [True, False],
    "deck": ["standard", "jokers"],
    "removed_cards": [[], ["2C", "2H"], ["2C"], ["2C", "2D"]],
    "top_trumps": [[], ["BJ", "LJ", "2S"], ["BJ", "LJ", "2D", "2S"], ["BJ", "LJ"], ["2S"]],
    "dealer_discard": [0, 2],
    "first_bidder": ["left_of_dealer", "dealer"],
    "team_bidding": [False, True],
    "nil_points": [100, 50],
    "blind_nil": [True, False],
    "blind_nil_points": [200, 100],
    "blind_behind": [100, 0],
    "blind_pass": [2, 1, 3],
    "nil_pass": [0, 1, 2, 3, 4],
    "blind_bids": [False, True],
    "blind_bid_min": [6, 4],
    "min_side_bid": [0, 4],
    "max_side_bid": [None, 10],
    "first_hand_bids": [True, False],
    "misdeal": [False, True],
    "first_lead": ["left_of_dealer", "dealer", "lowest_club"],
    "first_lead_spade": [False, True],
    "spades_lead": ["when_broken", "any_time"],
    "must_beat": [False, True],
    "set_penalty": ["bid", "short"],
    "bags": ["penalty", "none", "minus_one", "count_only", "minus_ten"],
    "bag_limit": [10, 5],
    "bag_penalty": [100, 50],
    "failed_nil_tricks": ["bags_if_made", "count_for_partner"],
    "ten_for_two_hundred": [False, True],
    "boston": [False, True],
    "target": [300, 200, 500],
    "lose_at": [None, -200],
    "time_limit_minutes": [None, 60],
    "forced_bids": ["none", "suicide", "mirror", "whiz"],
}


@st.composite
def rule_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A preset plus a few random overrides."""
    spec: dict[str, Any] = {"preset": draw(st.sampled_from(sorted(PRESETS)))}
    names = draw(st.lists(st.sampled_from(sorted(OPTION_VALUES)), max_size=6, unique=True))
    for name in names:
        spec[name] = draw(st.sampled_from(OPTION_VALUES[name]))
    return spec


def test_option_values_cover_every_option() -> None:
    from spades.core import OPTIONS

    assert set(OPTION_VALUES) == set(OPTIONS)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_preset_games_keep_every_invariant(preset: str) -> None:
    rules = load_rules({"preset": preset, "target": 200, "lose_at": -200})
    for seed in range(3):
        game = play_game(rules, seed, checks=True, roundtrip=True)
        assert game.over and game.winner is not None


def _random_rule_set_game(spec: dict[str, Any], seed: int) -> None:
    try:
        rules = load_rules(spec)
    except RulesError as e:
        assert "cannot" in str(e) or "must" in str(e)
        assume(False)
        return
    # Short games: every step is checked (the target's own rule is tested in test_game and test_scoring).
    rules = rules.replace(target=min(rules.target, 300), lose_at=max(rules.lose_at or -300, -300))
    game = play_game(rules, seed, checks=True, roundtrip=True)
    assert game.over
    assert game.winner is not None


_NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]  # a whole game shrinks too slowly to help
_QUIET = [HealthCheck.filter_too_much, HealthCheck.too_slow]


@settings(max_examples=15, deadline=None, phases=_NO_SHRINK, suppress_health_check=_QUIET)
@given(spec=rule_specs(), seed=st.integers(0, 2**32))
def test_random_rule_sets_keep_every_invariant(spec: dict[str, Any], seed: int) -> None:
    _random_rule_set_game(spec, seed)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, phases=_NO_SHRINK, suppress_health_check=_QUIET)
@given(spec=rule_specs(), seed=st.integers(0, 2**32))
def test_many_random_rule_sets_keep_every_invariant(spec: dict[str, Any], seed: int) -> None:
    _random_rule_set_game(spec, seed)


@settings(max_examples=30, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32))
def test_every_card_dealt_once_and_thirteen_tricks(preset: str, seed: int) -> None:
    """One hand straight through: the deal uses every card once and the hand has hand_size tricks."""
    rules = load_rules(preset)
    rng = random.Random(seed)
    perm = list(range(len(rules.layout.deck)))
    rng.shuffle(perm)
    hand = Hand(rules, rng.randrange(rules.layout.n), deal_order(rules, perm))
    all_cards_accounted(hand)
    if rules.players != 2:
        dealt = [c for h in hand.dealt for c in range(h.bit_length()) if h >> c & 1]
        assert len(dealt) == len(set(dealt))
        assert all(h.bit_count() == rules.layout.hand_size + (rules.dealer_discard if s == hand.dealer else 0)
                   for s, h in enumerate(hand.dealt))
    for _ in range(2000):
        if hand.is_over:
            break
        legal = hand.legal_actions()
        assert legal
        hand.apply(choose(rng, legal, misdeal_p=0))
    assert hand.phase is HandPhase.DONE
    assert len(hand.tricks) == rules.layout.hand_size == sum(hand.tricks_taken)


@settings(max_examples=10, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32))
def test_undo_all_the_way_back_restores_the_deal(preset: str, seed: int) -> None:
    rules = load_rules(preset)
    game = Game(rules, shuffler=seeded_shuffler(seed))
    hand = game.hand
    start = snapshot(hand)
    rng = random.Random(seed)
    states = [start]
    while not hand.is_over:
        hand.apply(choose(rng, hand.legal_actions(), misdeal_p=0.05))
        states.append(snapshot(hand))
    twin = hand.clone()
    while hand.actions:
        assert snapshot(hand) == states[len(hand.actions)]
        hand.undo()
    assert snapshot(hand) == start
    assert twin.is_over


def test_finished_hands_of_a_long_game_check_out() -> None:
    game = play_game(load_rules({"preset": "standard", "target": 1000, "lose_at": -1000}), 5)
    for h in game.hands:
        check_finished_hand(game, h)


seats = st.integers(-1, 6)
card_numbers = st.integers(-3, 110)
any_action = st.one_of(
    st.builds(Play, seats, card_numbers),
    st.builds(Bid, seats, st.builds(BidValue, st.integers(-2, 20), st.booleans())),
    st.builds(Look, seats),
    st.builds(Pass, seats, st.lists(card_numbers, max_size=5).map(tuple)),
    st.builds(Discard, seats, st.lists(card_numbers, max_size=3).map(tuple)),
    st.builds(Misdeal, seats),
    st.builds(Draw, seats, st.booleans()),
)


@settings(max_examples=200, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6), steps=st.integers(0, 60),
       action=any_action, blind=st.booleans())
def test_checked_apply_accepts_exactly_the_legal_actions(preset: str, seed: int, steps: int, action: Any,
                                                         blind: bool) -> None:
    """Any action at all: legal ones apply, anything else raises a SpadesError and changes nothing."""
    rules = load_rules({"preset": preset, "misdeal": True} if preset not in ("two-handed",) else preset)
    rng = random.Random(seed)
    perm = list(range(len(rules.layout.deck)))
    rng.shuffle(perm)
    ctx = HandContext(blind_sides=(True,) * rules.layout.sides_count) if blind else None
    hand = Hand(rules, rng.randrange(rules.layout.n), deal_order(rules, perm), ctx)
    for _ in range(steps):
        if hand.is_over:
            break
        hand.apply(choose(rng, hand.legal_actions(), misdeal_p=0.05))
    legal = hand.legal_actions(action.seat) if 0 <= action.seat < rules.layout.n else []
    same_face = isinstance(action, Play) and any(
        isinstance(a, Play) and a.seat == action.seat and a.card % 54 == action.card % 54 for a in legal)
    before = snapshot(hand)
    try:
        hand.apply(action)
    except SpadesError as e:
        assert action not in legal, f"{action} is legal but was refused: {e}"
        assert str(e)
        assert snapshot(hand) == before
    else:
        assert action in legal or same_face, f"{action} was accepted"


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32), at=st.integers(0, 80),
       back=st.integers(0, 80))
@example(preset="two-handed", seed=3, at=9, back=0)  # in the draw
@example(preset="standard", seed=5, at=5, back=3)  # in the bidding, nil cards passed (nil_pass: 2)
def test_a_clone_and_its_original_never_change_each_other(preset: str, seed: int, at: int, back: int) -> None:
    """``clone`` shares the lists a hand only ever replaces; undoing and playing on either one, in any
    phase (draws, bids, looks, exchanges, plays), leaves the other exactly as it was."""
    options: dict[str, Any] = {"preset": preset}
    if load_rules(preset).blind_nil:
        options["blind_behind"] = 0  # blind nils and looks at any time
    if load_rules(preset).partnerships:
        options["nil_pass"] = 2
    rules = load_rules(options)
    game = Game(rules, shuffler=seeded_shuffler(seed))
    hand = game.hand
    rng = random.Random(seed)
    for _ in range(at):
        if hand.is_over:
            break
        hand.apply(choose(rng, hand.legal_actions(), misdeal_p=0, nil_p=0.4))
    twin = hand.clone()
    kept = snapshot(twin)
    for _ in range(min(back, len(hand.actions))):
        hand.undo()
    while not hand.is_over:
        hand.apply(choose(rng, hand.legal_actions(), misdeal_p=0, nil_p=0.4))
    assert snapshot(twin) == kept
    original = snapshot(hand)
    applied = 0
    while not twin.is_over:
        twin.apply(choose(rng, twin.legal_actions(), misdeal_p=0))
        applied += 1
    for _ in range(applied):  # (a clone's undo history starts at the clone)
        twin.undo()
    assert snapshot(twin) == kept
    assert snapshot(hand) == original


@given(st.integers(min_value=0, max_value=(1 << 130) - 1))
@example(0)
@example((1 << 108) - 1)  # every card number of two packs with jokers
@example(1 << 112)  # past the last byte ``cards_of`` reads from its table
def test_cards_of_names_each_card_of_a_set_lowest_first(cards: int) -> None:
    from spades.core.cards import cards_of

    assert cards_of(cards) == [c for c in range(cards.bit_length()) if cards >> c & 1]
