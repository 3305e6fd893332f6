"""Computer players: legal play in every preset, seeded, only the seat's view, quick single moves."""

from __future__ import annotations

import random
import time

import pytest

from spades.ai import LEVELS, PLAYER_LEVELS, Decision, make_bot
from spades.ai.arena import build_bot
from spades.ai.base import bot_rng, infer_bags
from spades.ai.bots import ExpertBot, IsmctsBot
from spades.ai.knowledge import OUT, Knowledge
from spades.ai.search import NIL_FAIL_SCALE, BidSearch
from spades.core import Game, Hand, Phase, SpadesError, deal_order, seeded_shuffler, view_hand
from spades.core.actions import Bid, BidValue, Play
from spades.core.cards import parse_face
from spades.variants import PRESETS, load_rules


def play_games(preset: str, levels: list[str], seed: int, max_hands: int, budget: float | None = None) -> Game:
    """Seeded games with the given level per seat; every decision must be legal (``Game.apply`` checks)."""
    spec = {"preset": preset, "lose_at": -500}
    rules = load_rules(spec)
    n = rules.layout.n
    bots = [build_bot(levels[s % len(levels)], seed + s, budget) for s in range(n)]
    game = Game(rules, first_dealer=seed % n, shuffler=seeded_shuffler(seed))
    while not game.over and len(game.results) < max_hands:
        hand = game.hand
        seat = hand.to_act
        v = view_hand(hand, seat)
        d = bots[seat].decide(v, tuple(game.totals), None, tuple(game.bags))
        assert isinstance(d, Decision) and d.reason
        assert d.action in v.legal
        game.apply(d.action)
    return game


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_knowledge_levels_play_legally_in_every_preset(preset: str) -> None:
    game = play_games(preset, ["easy", "normal", "random", "normal"], seed=11, max_hands=4)
    assert len(game.results) >= 1


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_expert_plays_legally_in_every_preset(preset: str) -> None:
    game = play_games(preset, ["expert", "normal"], seed=5, max_hands=1, budget=0.005)
    assert len(game.results) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_level_plays_whole_games(preset: str) -> None:
    game = play_games(preset, ["expert", "normal", "easy", "ismcts"], seed=23, max_hands=3, budget=0.005)
    assert len(game.results) >= 1


def test_levels_are_named_weakest_first() -> None:
    assert list(PLAYER_LEVELS) == ["easy", "normal", "expert"]
    assert all(level in LEVELS for level in PLAYER_LEVELS)
    with pytest.raises(SpadesError, match="unknown level"):
        make_bot("grandmaster")


def test_same_seed_same_choices() -> None:
    """Knowledge-based levels are deterministic for a seed (the expert's anytime search depends on the clock)."""
    c = play_games("standard", ["normal"], seed=3, max_hands=2)
    d = play_games("standard", ["normal"], seed=3, max_hands=2)
    assert [h.actions for h in c.hands] == [h.actions for h in d.hands]


@pytest.mark.parametrize("level", list(LEVELS))
def test_a_seeded_bot_has_its_own_generator_and_unseeded_ones_share_one(level: str) -> None:
    """A seeded bot draws from a generator of its own, so others' draws never change its choices; the
    server's bots are unseeded and share the process's (2.5 KiB of state each otherwise)."""
    seeded = [make_bot(level, 7), make_bot(level, 7)]
    assert seeded[0].rng is not seeded[1].rng
    assert seeded[0].rng.getstate() == seeded[1].rng.getstate()
    unseeded = [make_bot(level), make_bot(level)]
    assert unseeded[0].rng is unseeded[1].rng is bot_rng(None)
    assert bot_rng(7) is not bot_rng(7) and bot_rng(7).random() == random.Random(7).random()


def _deal(seed: int) -> Hand:
    rules = load_rules("standard")
    rng = random.Random(seed)
    perm = list(range(52))
    rng.shuffle(perm)
    return Hand(rules, 0, deal_order(rules, perm))


def _swap_hidden(hand: Hand, seat: int, seed: int) -> Hand:
    """The same position with the other seats' cards dealt differently (same sizes, same voids unknown)."""
    other = hand.clone()
    rng = random.Random(seed)
    seats = [s for s in range(hand.n) if s != seat]
    pool = [c for s in seats for c in range(104) if other.hands[s] >> c & 1]
    rng.shuffle(pool)
    i = 0
    for s in seats:
        size = other.hands[s].bit_count()
        other.hands[s] = sum(1 << c for c in pool[i:i + size])
        i += size
    return other


@pytest.mark.parametrize("level", ["easy", "normal", "expert"])
def test_decisions_depend_only_on_the_view(level: str) -> None:
    """A bot cannot read hidden cards: positions that look the same to the seat get the same choice."""
    for seed in range(4):
        hand = _deal(seed)
        seat = hand.to_act
        twin = _swap_hidden(hand, seat, seed + 100)
        assert twin.hands != hand.hands
        v1, v2 = view_hand(hand, seat), view_hand(twin, seat)
        assert v1 == v2
        d1 = build_bot(level, 9, 0.01).decide(v1, (0, 0), None, (0, 0))
        d2 = build_bot(level, 9, 0.01).decide(v2, (0, 0), None, (0, 0))
        if level != "expert":  # the expert's search is anytime, so only its legality is compared
            assert d1 == d2
        assert d1.action in v1.legal and d2.action in v2.legal


def test_a_single_legal_move_is_played_at_once() -> None:
    hand = _deal(4)
    for _ in range(4):
        hand.apply(Bid(hand.to_act, BidValue(3)))
    # Play until some seat has exactly one legal card.
    rng = random.Random(1)
    while True:
        legal = hand.legal_actions()
        if len(legal) == 1:
            break
        hand.apply(rng.choice(legal))
    v = view_hand(hand, hand.to_act)
    t0 = time.perf_counter()
    d = build_bot("expert", 1, 5.0).decide(v, (0, 0), None, (0, 0))
    assert time.perf_counter() - t0 < 0.5
    assert d.action == v.legal[0]


def test_expert_respects_the_deadline() -> None:
    hand = _deal(8)
    for _ in range(4):
        hand.apply(Bid(hand.to_act, BidValue(3)))
    v = view_hand(hand, hand.to_act)
    t0 = time.monotonic()
    d = build_bot("expert", 1, 10.0).decide(v, (0, 0), t0 + 0.3, (0, 0))
    assert time.monotonic() - t0 < 1.0
    assert isinstance(d.action, Play)
    # A deadline that is nearly gone still gets a legal answer (the rules of thumb) at once.
    for hand_now in (hand, _deal(9)):
        v = view_hand(hand_now, hand_now.to_act)
        t0 = time.monotonic()
        d = build_bot("expert", 1, 10.0).decide(v, (0, 0), t0 + 0.04, (0, 0))
        assert time.monotonic() - t0 < 0.5
        assert d.action in v.legal


def test_sampled_deals_respect_what_the_seat_knows() -> None:
    rules = load_rules("standard")
    rng = random.Random(2)
    for seed in range(30):
        game = Game(rules, first_dealer=0, shuffler=seeded_shuffler(seed))
        bots = [make_bot("normal", s) for s in range(4)]
        stop = rng.randrange(4, 45)
        for _ in range(stop):
            h = game.hand
            game.apply(bots[h.to_act].decide(view_hand(h, h.to_act), tuple(game.totals)).action)
        hand = game.hand
        if hand.phase is not Phase.PLAY:
            continue
        seat = hand.to_act
        k = Knowledge.from_view(view_hand(hand, seat))
        # The truth is one of the deals the seat thinks possible.
        for s in range(4):
            if s != seat:
                assert hand.hands[s] & ~k.possible(s) == 0
        for _ in range(20):
            deal = k.sample(rng, bids_weight=view_hand(hand, seat))
            for s, cards in deal.items():
                if s == OUT:
                    continue
                assert cards.bit_count() == hand.hands[s].bit_count()
                assert cards & ~k.possible(s) == 0
            union = 0
            for cards in deal.values():
                assert union & cards == 0
                union |= cards
            assert union == k.unseen


def test_bags_are_inferred_from_totals_when_not_given() -> None:
    rules = load_rules("standard")
    assert infer_bags(rules, (53, -107), None) == (3, 3)
    assert infer_bags(rules, (53, 40), (1, 2)) == (1, 2)
    assert infer_bags(load_rules("three-handed"), (10, 20, 30), None) == (0, 0, 0)


class _StepClock:
    """A fake clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def test_the_budget_is_read_on_the_bots_clock() -> None:
    hand = _deal(8)
    for _ in range(4):
        hand.apply(Bid(hand.to_act, BidValue(3)))
    v = view_hand(hand, hand.to_act)
    # A clock that says a tenth of the budget passes per read: the search stops after about ten reads,
    # however long those reads take on the wall clock.
    for cls in (ExpertBot, IsmctsBot):
        clock = _StepClock(0.1)
        d = cls(1, budget=1.0, clock=clock).decide(v, (0, 0), None, (0, 0))
        assert d.action in v.legal
        assert 5 <= clock.reads <= 40
    # A clock that never moves cannot keep the bot past the caller's deadline, which is on the wall clock.
    for cls in (ExpertBot, IsmctsBot):
        t0 = time.monotonic()
        d = cls(1, budget=1.0, clock=lambda: 0.0).decide(v, (0, 0), t0 + 0.2, (0, 0))
        assert d.action in v.legal
        assert time.monotonic() - t0 < 5.0


def _deal_to_first_bidder(cards: list[str], seed: int) -> Hand:
    """A standard hand (dealer 0) in which seat 1, the first to bid, holds ``cards``; the rest shuffled."""
    rules = load_rules("standard")
    mine = [parse_face(c) for c in cards]
    rest = [c for c in rules.layout.deck if c not in mine]
    random.Random(seed).shuffle(rest)
    order = []
    for i in range(52):
        order.append(mine[i // 4] if i % 4 == 0 else rest.pop())
    return Hand(rules, 0, order)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_expert_bids_nil_with_a_hand_that_ducks_everything_and_not_with_top_spades(seed: int) -> None:
    low = ["2C", "3C", "4C", "2D", "3D", "5D", "7D", "2H", "3H", "4H", "6H", "2S", "3S"]
    strong = ["AS", "KS", "QS", "JS", "AH", "KH", "AD", "3D", "4D", "5C", "6C", "7C", "8C"]
    for cards, nil in ((low, True), (strong, False)):
        hand = _deal_to_first_bidder(cards, seed)
        bot = ExpertBot(seed, budget=0.02, clock=time.thread_time)
        d = bot.decide(view_hand(hand, 1), (0, 0), None, (0, 0))
        assert isinstance(d.action, Bid)
        assert d.action.value.is_nil is nil, d.reason
        if nil:
            assert "simulated deals" in d.reason
        else:
            assert d.action.value.tricks >= 5, d.reason


def test_nil_utility_scales_up_the_simulated_failures() -> None:
    found = BidSearch(BidValue(3), 30.0, nil_rate=0.9, worlds=40, nil_made=120.0, nil_failed=-80.0)
    p = 1 - NIL_FAIL_SCALE * 0.1
    assert found.nil_utility(100) == pytest.approx(p * 120 - (1 - p) * 80)
    # No failure in the sample: one is priced as the nil's points lost twice over.
    sure = BidSearch(BidValue(3), 30.0, nil_rate=1.0, worlds=40, nil_made=120.0, nil_failed=None)
    assert sure.nil_utility(100) == pytest.approx(120.0)
    assert sure.nil_utility(100, fail_scale=1.0) == pytest.approx(120.0)
    rare = BidSearch(BidValue(3), 30.0, nil_rate=0.95, worlds=40, nil_made=120.0, nil_failed=None)
    q = 1 - NIL_FAIL_SCALE * 0.05
    assert rare.nil_utility(100) == pytest.approx(q * 120 + (1 - q) * (120 - 200))
    # A hopeless nil: the scaled failure rate is capped at certainty.
    hopeless = BidSearch(BidValue(3), 30.0, nil_rate=0.2, worlds=40, nil_made=100.0, nil_failed=-90.0)
    assert hopeless.nil_utility(100) == pytest.approx(-90.0)
    assert BidSearch(BidValue(3), 30.0, 0.0, 40).nil_utility(100) is None
