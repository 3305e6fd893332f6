"""The view in two parts, and changes between views: the shared fields (``public_fields``) and a viewer's
own (``own_fields``) make exactly ``view_hand``'s view at every step of seeded games in every preset; and
``change_of`` / ``apply_change`` / ``act_on`` / ``close_trick`` carry one view to the next exactly."""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import pytest

from spades.core import Game, seeded_shuffler
from spades.core.hand import Phase
from spades.core.presets import PRESETS, load_rules
from spades.core.scoring import side_status
from spades.core.view import (
    OWN_FIELDS,
    _spoken,
    act_on,
    action_to_dict,
    apply_change,
    change_of,
    close_trick,
    closed_trick,
    legal_to_json,
    own_fields,
    public_fields,
    side_to_json,
    trick_to_json,
    view_hand,
)

from .support import choose


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_two_parts_make_the_view_and_changes_carry_it(preset: str) -> None:
    rules = load_rules(preset)
    seed = sum(map(ord, preset))
    rng = random.Random(seed)
    game = Game(rules, first_dealer=0, shuffler=seeded_shuffler(seed), clock=(lambda: 0.0)
                if rules.time_limit_minutes else None)
    viewers = [*range(rules.layout.n), None]
    before = {v: view_hand(game.hand, v).to_dict() for v in viewers}
    closes = 0
    for _ in range(400):
        if game.over:
            break
        hand_no = len(game.hands)
        action = choose(rng, game.legal_actions())
        game.apply(action)
        if len(game.hands) != hand_no:  # a new hand: views start again
            before = {v: view_hand(game.hand, v).to_dict() for v in viewers}
            continue
        shared = public_fields(game.hand)
        assert not set(shared) & set(OWN_FIELDS)
        for v in viewers:
            after = view_hand(game.hand, v).to_dict()
            assert {**shared, **own_fields(game.hand, v)} == after
            # What a client does with the action as every client sees it, then the change.
            base = act_on(before[v], action_to_dict(action, marked=True))
            won = closed_trick(base, after)
            if won is not None:
                base = close_trick(base, won)
                closes += v is None
            change = change_of(base, after)
            assert apply_change(base, change) == after
            assert apply_change(before[v], change_of(before[v], after)) == after
            before[v] = after
    assert closes > 0


def test_a_change_holds_only_what_changed() -> None:
    before = {"a": 1, "view": {"tricks": [1], "sides": [{"x": 1, "y": 2}, {"x": 3, "y": 4}], "legal": [],
                               "seat": 2, "sizes": [3, 3, 3, 3]}}
    after = {"a": 1, "view": {"tricks": [1, 2], "sides": [{"x": 1, "y": 2}, {"x": 3, "y": 5}],
                              "legal": [{"seat": 2, "play": "AS"}], "seat": 2, "sizes": [3, 2, 3, 3]}}
    change = change_of(before, after)
    assert change == {"view": {"+tricks": [2], "@sides": {"1": {"y": 5}}, "legal_plays": ["AS"],
                               "@sizes": {"1": 2}}}
    assert apply_change(before, change) == after
    assert before["view"]["tricks"] == [1]  # (a new dict: the old state is left as it was)
    with pytest.raises(ValueError, match="remove the field"):
        change_of({"a": 1, "b": 2}, {"a": 1})


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_contract_statuses_a_view_shows_are_never_stale(preset: str) -> None:
    """Views keep a hand's last contract statuses until what they read changes: through seeded hands in
    every preset, with actions taken back and others played instead, the view's ``sides`` is always what
    ``side_status`` works out afresh."""
    rules = load_rules(preset)
    rng = random.Random(preset)
    game = Game(rules, shuffler=seeded_shuffler(preset))
    for _ in range(3):
        hand = game.hand
        while not hand.is_over:
            legal = hand.legal_actions()
            game.apply_unchecked(choose(rng, legal, misdeal_p=0))
            if rng.random() < 0.3 and not hand.is_over:
                public_fields(hand)  # remembered here ...
                hand.undo()  # ... and taken back: a different action may make the same counts
                game.apply_unchecked(choose(rng, hand.legal_actions(), misdeal_p=0))
            fresh = side_status(rules, None if hand.context.bidless else hand.bids, hand.tricks_taken,
                                rules.layout.hand_size - hand.trick_no, _spoken(hand))
            assert view_hand(hand, None).sides == fresh
            assert public_fields(hand)["sides"] == [side_to_json(s) for s in fresh]
        if game.over:
            break


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_viewers_own_fields_are_never_stale(preset: str) -> None:
    """``own_fields`` keeps the fields of the seats not to act in play until what they read changes:
    through seeded hands in every preset, every viewer asked at every step, with actions taken back and
    others played instead, they are always what ``view_hand`` builds afresh; and a choice of cards (a
    pass, a discard) is named exactly as every combination of ``legal_actions`` would write it."""
    rules = load_rules(preset)
    rng = random.Random(preset + "own")
    game = Game(rules, shuffler=seeded_shuffler(preset + "own"))
    viewers = [*range(rules.layout.n), None]
    hits = 0

    def check() -> None:
        nonlocal hits
        for v in viewers:
            fresh = view_hand(hand, v)
            assert {**public_fields(hand), **own_fields(hand, v)} == fresh.to_dict()
            assert own_fields(hand, v)["legal"] == legal_to_json(fresh.legal)
            hits += own_fields(hand, v) is own_fields(hand, v)

    for _ in range(3):
        hand = game.hand
        while not hand.is_over:
            check()
            game.apply_unchecked(choose(rng, hand.legal_actions(), misdeal_p=0))
            if rng.random() < 0.3 and not hand.is_over:
                check()  # remembered here ...
                hand.undo()  # ... and taken back: another action may leave the same cards in hand
                game.apply_unchecked(choose(rng, hand.legal_actions(), misdeal_p=0))
        if game.over:
            break
    assert hits > 0  # the seats not to act in play were answered from what was kept


def test_a_choice_of_cards_is_every_combination_of_them() -> None:
    from itertools import combinations

    from spades.core.actions import Discard, Pass

    seen = set()
    for preset in sorted(PRESETS):
        rules = load_rules(preset)
        rng = random.Random(preset)
        game = Game(rules, shuffler=seeded_shuffler(preset))
        for _ in range(300):
            if game.over:
                break
            hand = game.hand
            for seat in range(rules.layout.n):
                choice = hand.card_choice(seat)
                if choice is None:
                    assert not any(isinstance(a, Pass | Discard) for a in hand.legal_actions(seat))
                    continue
                kind, k, cards = choice
                seen.add(kind)
                got, made = hand.legal_actions(seat), [kind(seat, c) for c in combinations(cards, k)]
                assert got == made  # (built without each value's __init__: the same values in every way)
                assert [(type(a), hash(a), repr(a), a.cards == tuple(sorted(a.cards))) for a in got] == [
                    (kind, hash(a), repr(a), True) for a in made]
                with pytest.raises(dataclasses.FrozenInstanceError):
                    got[0].cards = ()
            game.apply_unchecked(choose(rng, game.legal_actions(), blind_p=0.6, nil_p=0.4))
    assert seen == {Pass, Discard}


def test_a_sealed_hand_lets_go_of_what_its_views_kept() -> None:
    """A game keeps its finished hands: what the views kept of one's last position goes when the next is
    dealt (a table of two people kept some 3 KiB a hand of it), and asking again builds it afresh."""
    game = Game(load_rules("standard"), shuffler=seeded_shuffler(9))
    rng = random.Random(9)
    first = game.hand
    while len(game.hands) == 1:
        for v in (0, 2, None):
            own_fields(first, v)
        public_fields(first)
        game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
    assert not any(hasattr(first, m) for m in ("_own_memo", "_sides_memo", "_tricks_memo"))
    for v in (0, 2, None):
        assert {**public_fields(first), **own_fields(first, v)} == view_hand(first, v).to_dict()


def test_the_finished_tricks_are_written_once_a_trick() -> None:
    """The shared fields' finished tricks are one list from one card to the next while no trick closes
    (the states built since share it), and a new list, one trick longer, when one does."""
    game = Game(load_rules("standard"), shuffler=seeded_shuffler(4))
    rng = random.Random(4)
    hand = game.hand
    while hand.phase is not Phase.PLAY:
        game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
    lists = []
    while not hand.is_over:
        lists.append((hand.trick_no, public_fields(hand)["tricks"]))
        game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
    for (n1, a), (n2, b) in itertools.pairwise(lists):
        assert (a is b) == (n1 == n2)
        assert len(b) == n2 and b[:len(a)] == a


def test_finished_tricks_are_written_once_each() -> None:
    """The shared state's finished tricks are what ``trick_to_json`` writes of each, at every card; a
    trick added keeps the dicts of the ones before it (each trick is written once), and one taken back
    and played again is written again, the tricks before it kept."""
    rng = random.Random(11)
    game = Game(load_rules("standard"), shuffler=seeded_shuffler(11))
    hand = game.hand
    while hand.phase is not Phase.PLAY:
        game.apply_unchecked(choose(rng, hand.legal_actions(), misdeal_p=0))
    before: list[dict[str, Any]] = []
    while not hand.is_over:
        game.apply_unchecked(choose(rng, hand.legal_actions(), misdeal_p=0))
        tricks = public_fields(hand)["tricks"]
        assert tricks == [trick_to_json(t) for t in hand.tricks]
        if hand is game.hand:  # (the last card dealt the next hand, which sealed this one and let its lists go)
            assert all(a is b for a, b in zip(before, tricks, strict=False))  # the same dicts, not written again
        if len(hand.tricks) == 5 and not hand.current:
            hand.undo()  # the fifth trick's last card taken back ...
            assert public_fields(hand)["tricks"] == [trick_to_json(t) for t in hand.tricks]
            game.apply_unchecked(choose(rng, hand.legal_actions(), misdeal_p=0))  # ... and maybe another
            tricks = public_fields(hand)["tricks"]
            assert tricks == [trick_to_json(t) for t in hand.tricks]
        before = tricks
    assert len(before) == 13


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_view_is_the_dataclass_it_would_be_from_its_fields(preset: str) -> None:
    """``view_hand`` fills the frozen ``HandView`` without its ``__init__`` (a computer player's every move
    pays for the view): at every step of a seeded game it has exactly the dataclass's fields, equals and
    hashes as ``HandView(**fields)`` does, and stays frozen."""
    import dataclasses

    from spades.core.view import HandView

    names = [f.name for f in dataclasses.fields(HandView)]
    rules = load_rules(preset)
    seed = sum(map(ord, preset)) + 1
    rng = random.Random(seed)
    game = Game(rules, first_dealer=0, shuffler=seeded_shuffler(seed), clock=(lambda: 0.0)
                if rules.time_limit_minutes else None)
    for _ in range(150):
        if game.over:
            break
        for v in [*range(rules.layout.n), None]:
            view = view_hand(game.hand, v)
            assert list(vars(view)) == names
            made = HandView(**{name: getattr(view, name) for name in names})
            assert view == made and hash(view) == hash(made) and repr(view) == repr(made)
            with pytest.raises(dataclasses.FrozenInstanceError):
                view.seat = 0  # type: ignore[misc]
        game.apply(choose(rng, game.legal_actions()))
