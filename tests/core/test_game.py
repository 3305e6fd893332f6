"""The game: dealer rotation, targets, the losing floor, ties, timed games with an injected clock, and
the guards; views of games and hands, and rebuilding a hand from a view for search."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spades.core import (
    Game,
    Hand,
    IllegalActionError,
    Phase,
    Play,
    deal_order,
    seeded_shuffler,
    view,
    view_game,
    view_hand,
)
from spades.core import game as game_module
from spades.core.record import hand_record, record_of
from spades.core.scoring import SideScore
from spades.core.view import hand_from_view
from spades.variants import PRESETS, load_rules

from .support import choose


def finish_hand(game: Game, rng: random.Random) -> None:
    n = game.hand_count
    while game.hand_count == n and not game.over:
        game.apply(choose(rng, game.legal_actions(), misdeal_p=0))


def test_the_deal_passes_left() -> None:
    game = Game(load_rules("standard"), first_dealer=2, shuffler=seeded_shuffler(1))
    rng = random.Random(1)
    dealers = []
    for _ in range(5):
        dealers.append(game.hand.dealer)
        finish_hand(game, rng)
    assert dealers == [2, 3, 0, 1, 2]


def test_totals_are_the_sum_of_the_hands() -> None:
    game = Game(load_rules("standard"), shuffler=seeded_shuffler(2))
    rng = random.Random(2)
    for _ in range(4):
        finish_hand(game, rng)
    for k in range(2):
        assert game.totals[k] == sum(r.sides[k].points for r in game.results)
        assert game.bags[k] == game.results[-1].sides[k].bags_total


def test_a_hand_is_sealed_when_the_next_is_dealt() -> None:
    """A finished hand keeps what its record needs (its deal, its actions, its tricks) but not its undo
    history, once the game has dealt the next: a game never takes a dealt-over hand back."""
    game = Game(load_rules("standard"), shuffler=seeded_shuffler(3))
    rng = random.Random(3)
    finish_hand(game, rng)
    first, second = game.hands
    assert len(first.actions) == 4 + 52 and len(first.tricks) == 13
    with pytest.raises(IllegalActionError, match="sealed"):
        first.undo()
    assert len(first.actions) == 56  # the refusal changed nothing
    game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
    second.undo()  # the hand in play still can
    assert second.actions == []
    with pytest.raises(IllegalActionError, match="no action to take back"):
        second.undo()
    second.seal()  # a game that goes forward only (a server's table) seals its hand as it deals it
    game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
    with pytest.raises(IllegalActionError, match="sealed"):
        second.undo()
    assert len(second.actions) == 1  # the refusal changed nothing
    twin = second.clone()  # what a search takes, which can be taken back
    twin.apply(twin.legal_actions()[0])
    twin.undo()
    assert twin.actions == second.actions


TIMED = {"preset": "standard", "time_limit_minutes": 30, "target": 10000, "lose_at": -10000}


@pytest.mark.parametrize(("preset", "seed"), [(p, s) for p in [*sorted(PRESETS), TIMED] for s in range(2)])
def test_a_game_that_lets_its_hands_go_plays_and_writes_the_same(preset: Any, seed: int) -> None:
    """A game that keeps only its current hand (``keep_hands=False``, a server's table) plays exactly as one
    that keeps them all, counts its hands the same, and with each hand written as it goes
    (``hand_record``) gives the same record, a timed game's ``time_up`` included; without them the record
    is refused, saying how many hands are missing."""
    rules = load_rules(preset)
    now = [0.0]
    timed = rules.time_limit_minutes is not None
    kept = Game(rules, shuffler=seeded_shuffler(seed), clock=(lambda: now[0]) if timed else None)
    lean = Game(rules, shuffler=seeded_shuffler(seed), clock=(lambda: now[0]) if timed else None, keep_hands=False)
    written: list[dict[str, object]] = []
    rng = random.Random(seed)
    while not kept.over and kept.hand_count < 12:
        legal = kept.legal_actions()
        assert lean.legal_actions() == legal
        hand = lean.hand
        action = choose(rng, legal)
        kept.apply(action)
        lean.apply(action)
        now[0] += 20.0  # (a timed game's minutes run out after a few hands)
        if lean.hand is not hand:  # the deal let the hand go: written as the record will hold it
            written.append(hand_record(hand))
        assert lean.hands == [lean.hand] and lean.hand_count == kept.hand_count
        assert (lean.totals, lean.bags, lean.results, lean.over) == (kept.totals, kept.bags, kept.results, kept.over)
    assert kept.hand_count > 1 and len(written) == kept.hand_count - 1
    record = record_of(kept, preset)
    assert record_of(lean, preset, earlier=written) == record
    assert timed == any(hd.get("time_up") for hd in record["hands"])
    with pytest.raises(ValueError, match=f"dealt {kept.hand_count} hands: the record has 0 written and 1 kept"):
        record_of(lean, preset)


def test_equal_parts_of_results_are_kept_once_and_the_keeping_stops_at_its_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``Game.results`` keeps one copy of the equal parts of results across hands and games (a server holds
    thousands of games, whose score lines, side scores, bids and tricks repeat): the totals and every result
    are what the scoring gave, the same value of two games is one object, and once ``SHARED_MAX`` values
    of a type are kept a new one is kept by its game only."""
    monkeypatch.setattr(game_module, "_SHARED", {})
    games = [Game(load_rules("standard"), shuffler=seeded_shuffler(s)) for s in range(30)]
    for k, game in enumerate(games):
        rng = random.Random(k)
        while game.hand_count < 12 and not game.over:
            finish_hand(game, rng)
    results = [r for game in games for r in game.results]
    sides = [side for r in results for side in r.sides]
    lines = [line for side in sides for line in side.lines]
    parts: list[Any] = [*sides, *lines, *(r.bids for r in results), *(r.tricks for r in results)]
    by_value: dict[Any, Any] = {}
    for part in parts:
        assert by_value.setdefault((type(part), part), part) is part  # equal values are one object
    assert len(by_value) < 0.5 * len(parts)  # (and they do repeat, even in random play)
    assert len({id(line) for line in lines}) < 0.1 * len(lines)  # lines above all, in unequal scores
    for game in games:
        for k in range(2):
            assert game.totals[k] == sum(r.sides[k].points for r in game.results)
    for game in games[:3]:  # each hand's score is what the scoring says of its bids and tricks
        bags = [0, 0]
        for r in game.results:
            if not r.misdeal:
                assert r.sides == game_module.score_hand(game.rules, r.bids, r.tricks, bags)
                bags = [side.bags_total for side in r.sides]
    sizes = {t: len(values) for t, values in game_module._SHARED.items()}
    monkeypatch.setattr(game_module, "SHARED_MAX", min(sizes.values()))
    late, rng = Game(load_rules("standard"), shuffler=seeded_shuffler(99)), random.Random(99)
    while late.hand_count < 12 and not late.over:
        finish_hand(late, rng)
    assert {t: len(values) for t, values in game_module._SHARED.items()} == sizes  # none past the limit
    fresh = [side for r in late.results for side in r.sides if (SideScore, side) not in by_value]
    assert fresh and all(game_module._SHARED[SideScore].get(side) is not side for side in fresh)
    assert late.totals == [sum(r.sides[k].points for r in late.results) for k in range(2)]


def play_until_over(game: Game, seed: int, clock: list[float] | None = None) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        if game.over:
            return
        if clock is not None:
            clock[0] += 60 * 12  # each hand takes twelve minutes
        finish_hand(game, rng)
    raise AssertionError("no end")


@pytest.mark.parametrize("seed", range(8))
def test_target_and_lose_at_end_the_game_and_the_highest_total_wins(seed: int) -> None:
    rules = load_rules({"target": 200, "lose_at": -100})
    game = Game(rules, shuffler=seeded_shuffler(seed))
    play_until_over(game, seed)
    t = game.totals
    assert max(t) >= 200 or min(t) <= -100
    assert game.winner == t.index(max(t)) and t.count(max(t)) == 1
    # every earlier hand left the game going
    running = [0, 0]
    for res in game.results[:-1]:
        running = [a + s.points for a, s in zip(running, res.sides, strict=True)]
        assert not ((max(running) >= 200 or min(running) <= -100) and running.count(max(running)) == 1)
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(Play(0, 0))
    assert game.legal_actions() == []


def test_a_tie_for_first_plays_another_hand() -> None:
    rules = load_rules({"target": 100})
    game = Game(rules, shuffler=seeded_shuffler(5))
    game.totals = [90, 90]
    game._check_end()  # no side at the target
    assert not game.over
    game.totals = [120, 120]
    game._check_end()
    assert not game.over and game.winner is None
    game.totals = [130, 120]
    game._check_end()
    assert game.over and game.winner == 0


@pytest.mark.parametrize("seed", range(4))
def test_timed_game_ends_after_the_hand_in_which_time_runs_out(seed: int) -> None:
    rules = load_rules({"time_limit_minutes": 30, "target": 10000, "lose_at": -10000})
    now = [1000.0]
    game = Game(rules, shuffler=seeded_shuffler(seed), clock=lambda: now[0])
    play_until_over(game, seed, clock=now)
    # hands take 12 minutes: 0-12, 12-24, 24-36 -> the time runs out in the third hand
    hands = len(game.results)
    assert hands >= 3
    if hands > 3:  # only a tie at the end of the third hand plays on
        totals = [0, 0]
        for res in game.results[:3]:
            totals = [a + s.points for a, s in zip(totals, res.sides, strict=True)]
        assert totals[0] == totals[1]
    assert game.winner == game.totals.index(max(game.totals))


def test_timed_game_needs_a_clock() -> None:
    with pytest.raises(IllegalActionError, match="needs a clock"):
        Game(load_rules({"time_limit_minutes": 30}), shuffler=seeded_shuffler(1))


def test_first_dealer_must_be_a_seat() -> None:
    with pytest.raises(IllegalActionError, match="first dealer"):
        Game(load_rules("three-handed"), first_dealer=3)


def test_a_game_without_a_shuffler_waits_for_the_deal() -> None:
    game = Game(load_rules("standard"))
    assert game.awaiting_deal and game.legal_actions() == []
    with pytest.raises(IllegalActionError, match="no hand has been dealt"):
        _ = game.hand
    with pytest.raises(IllegalActionError, match="has no shuffler"):
        game.start_hand()
    with pytest.raises(IllegalActionError, match="not exactly this game's deck"):
        game.start_hand([0, 1, 2])
    # A card twice and its neighbour missing (the two bits of the card add up to the neighbour's), a
    # card number outside the deck, something that is not a card: each refused, nothing dealt.
    for bad in ([0, 0, *range(2, 52)], [-1, *range(1, 52)], [*range(51), 52], [*range(51), "AS"],
                [*range(51), [51]]):
        with pytest.raises(IllegalActionError, match="not exactly this game's deck"):
            game.start_hand(bad)
    assert game.awaiting_deal
    game.start_hand(list(range(52)))
    with pytest.raises(IllegalActionError, match="not finished"):
        game.start_hand(list(range(52)))


def test_hand_guard_stops_a_game_that_never_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game_module, "MAX_HANDS", 2)
    game = Game(load_rules({"target": 10000}), shuffler=seeded_shuffler(1))
    rng = random.Random(1)
    finish_hand(game, rng)
    with pytest.raises(IllegalActionError, match="without ending"):
        finish_hand(game, rng)


# ---------------------------------------------------------------------------------------------- views


def test_spectator_sees_no_cards_and_has_no_actions() -> None:
    game = Game(load_rules("standard"), shuffler=seeded_shuffler(1))
    v = view_hand(game.hand, None)
    assert v.hand is None and v.legal == () and v.seat is None
    assert json.dumps(v.to_dict())
    gv = view(game, None)
    assert gv.totals == (0, 0) and gv.hand is not None


def test_view_to_dict_is_json_with_card_texts() -> None:
    game = Game(load_rules("jokers-54"), first_dealer=0, shuffler=seeded_shuffler(1))
    d = view_hand(game.hand, 0).to_dict()
    assert d["phase"] == "discard" and len(d["hand"]) == 15 and d["to_act"] == 0
    assert all(isinstance(c, str) and len(c) == 2 for c in d["hand"])
    # Not the 105 card pairs: what to choose, and from which cards.
    assert d["legal"] == [{"seat": 0, "discard": {"choose": 2, "from": d["legal"][0]["discard"]["from"]}}]
    assert sorted(d["legal"][0]["discard"]["from"]) == sorted(d["hand"])
    json.dumps(d)
    assert view_hand(game.hand, 1).to_dict()["legal"] == []


def test_view_game_keeps_results_public() -> None:
    game = Game(load_rules("standard"), shuffler=seeded_shuffler(3))
    finish_hand(game, random.Random(3))
    gv = view_game(game, 1)
    assert gv.results == tuple(game.results) and gv.hand is not None and gv.hand.hand is not None
    with pytest.raises(ValueError, match="no seat 4"):
        view_hand(game.hand, 4)


@settings(max_examples=30, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6),
       steps=st.integers(0, 100))
def test_hand_from_view_gives_the_same_legal_actions(preset: str, seed: int, steps: int) -> None:
    """A hand rebuilt from a view and the true holdings offers exactly the real hand's actions."""
    rules = load_rules(preset)
    game = Game(rules, shuffler=seeded_shuffler(seed))
    rng = random.Random(seed)
    hand = game.hand
    for _ in range(steps):
        if hand.is_over or game.hand is not hand:
            break
        game.apply(choose(rng, game.legal_actions(), misdeal_p=0))
    if hand.is_over or hand.phase not in (Phase.BID, Phase.EXCHANGE, Phase.PLAY):
        return
    seat = hand.to_act
    if not hand.can_see_own_cards(seat):
        return
    rebuilt = hand_from_view(view_hand(hand, seat), list(hand.hands))
    assert rebuilt.legal_actions() == hand.legal_actions()
    if hand.phase is Phase.PLAY:
        assert rebuilt.legal_play_mask() == hand.legal_play_mask()
        # and it plays on to the end like the real hand
        twin = hand.clone()
        while not twin.is_over:
            card = rng.choice(twin.legal_actions()).card
            assert rebuilt.legal_play_mask() == twin.legal_play_mask()
            twin.play_fast(card)
            rebuilt.play_fast(card)
        assert rebuilt.tricks_taken == twin.tricks_taken


def test_deal_order_takes_only_a_permutation() -> None:
    rules = load_rules("standard")
    perm = list(range(52))[::-1]
    assert deal_order(rules, perm) == [rules.layout.deck[i] for i in perm]
    # a position twice and its neighbour missing (their bits add up), out of range, not a number, short
    for bad in ([0, 0, *range(2, 52)], [-1, *range(1, 52)], [*range(51), 52], [*range(51), "x"], list(range(51))):
        with pytest.raises(IllegalActionError, match=r"a deal needs a permutation of 0\.\.51"):
            deal_order(rules, bad)


@settings(max_examples=60, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32), steps=st.integers(0, 90))
def test_hand_from_view_is_the_position_of_the_view(preset: str, seed: int, steps: int) -> None:
    # Every field of the rebuilt hand that the view determines equals the real hand's.
    rules = load_rules(preset)
    rng = random.Random(seed)
    hand = Game(rules, shuffler=seeded_shuffler(seed)).hand
    for _ in range(steps):
        if hand.is_over:
            return
        hand.apply(choose(rng, hand.legal_actions(), misdeal_p=0))
    if hand.phase not in (Phase.BID, Phase.EXCHANGE, Phase.PLAY) or not hand.can_see_own_cards(hand.to_act):
        return
    rebuilt = Hand.from_view(view_hand(hand, hand.to_act), list(hand.hands))
    for name in ("phase", "to_act", "hands", "bids", "tricks_taken", "tricks", "current", "broken", "exchanges",
                 "trick_no", "dealer", "bid_order"):
        assert getattr(rebuilt, name) == getattr(hand, name) or (
            name == "bid_order" and list(rebuilt.bid_order) == list(hand.bid_order)), name
    if hand.phase is Phase.BID:
        assert rebuilt.bid_pos == hand.bid_pos
    if hand.current:  # (the trick state means nothing before a trick is led)
        for name in ("leader", "led", "win_seat", "win_trump", "win_power"):
            assert getattr(rebuilt, name) == getattr(hand, name), name
