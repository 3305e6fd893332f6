"""Performance figures for ``spades bench`` (never pass/fail: benchmarks report, tests assert)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from spades.core.actions import Bid, BidValue, Play
from spades.core.hand import Hand, deal_order
from spades.core.rules import Rules
from spades.core.scoring import score_hand


def shuffled(cards: Sequence[int], rng: random.Random) -> list[int]:
    """The cards in a uniformly random order: sorted by one ``rng.random()`` draw each.

    The benchmark's shuffle, the same for this engine and for OpenSpiel: both deal from it. It draws
    from the same source as the action picks, uniform doubles, as OpenSpiel's own chance sampling does
    (``SampleAction`` walks the outcomes' probabilities with one uniform double). Games deal with
    ``spades.shuffle``'s secure shuffle instead; this one is for measuring."""
    rand = rng.random
    keys = [rand() for _ in cards]
    return sorted(cards, key=keys.__getitem__)


def std_shuffled(cards: Sequence[int], rng: random.Random) -> list[int]:
    """The cards shuffled by ``random.shuffle`` (exact integer draws; a Python loop, about twice the
    cost of ``shuffled``): the benchmark's ``--shuffle random``."""
    out = list(cards)
    rng.shuffle(out)
    return out


Shuffle = Callable[[Sequence[int], random.Random], list[int]]


def random_hand(rules: Rules, rng: random.Random, shuffle: Shuffle = shuffled) -> Hand:
    """Deal, four bids and random legal play to the end with the engine's fast path.

    Every pick is uniform by ``int(random() * k)``, as the OpenSpiel driver picks its actions
    (``randrange`` and ``randint`` cost a Python call chain each): the dealer, each bid from
    ``legal_actions()`` (nil, 1 to 13), and each card (``play_out_random``)."""
    lay = rules.layout
    rand = rng.random
    hand = Hand(rules, int(rand() * lay.n), shuffle(lay.deck, rng))
    for _ in range(lay.n):
        legal = hand.legal_actions()
        hand.apply_unchecked(legal[int(rand() * len(legal))])
    hand.play_out_random(rand)
    score_hand(rules, hand.bids, hand.tricks_taken, [0] * lay.sides_count)
    return hand


def engine_figures(hands: int = 20000, seed: int = 1) -> dict[str, Any]:
    """Hands per second for random full hands, and the cost of ``clone()`` plus one action.

    Timed in this process's CPU time: on a loaded machine the wall clock also counts the time other
    jobs hold the core."""
    rules = Rules()
    rng = random.Random(seed)
    random_hand(rules, rng)  # warm up caches
    t0 = time.process_time()
    for _ in range(hands):
        random_hand(rules, rng)
    elapsed = time.process_time() - t0
    # clone + one action, from a position in mid-play
    base = Hand(rules, 0, deal_order(rules, rng.sample(range(52), 52)))
    for _ in range(4):
        base.apply_unchecked(Bid(base.to_act, BidValue(3)))
    for _ in range(9):
        m = base.legal_play_mask()
        base.play_fast((m & -m).bit_length() - 1)
    reps = 20000
    m = base.legal_play_mask()
    card = (m & -m).bit_length() - 1
    t1 = time.process_time()
    for _ in range(reps):
        base.clone().play_fast(card)
    clone_us = (time.process_time() - t1) / reps * 1e6
    t2 = time.process_time()
    for _ in range(reps):
        base.apply_unchecked(Play(base.to_act, card))
        base.undo()
    undo_us = (time.process_time() - t2) / reps * 1e6
    return {
        "hands": hands,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(hands / max(elapsed, 1e-9), 1),
        "clone_and_play_us": round(clone_us, 2),
        "apply_and_undo_us": round(undo_us, 2),
    }
