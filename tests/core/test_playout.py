"""``Hand.play_out_random`` (the rollout hot path, with its inlined fast paths) against its definition.

Its docstring promises the same result as ``play_fast`` with uniformly random picks from
``legal_play_mask``: the k-th lowest legal card for ``k = int(rand() * count)``. The reference below
does exactly that, one card at a time through the public API; both draw from equal random streams, so
every field of the two hands must agree at the end (and the trick records card for card).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from spades.core import Game, Hand, Phase, seeded_shuffler
from spades.variants import PRESETS, load_rules

from .support import choose, snapshot


def reference_play_out(hand: Hand, rand: random.Random) -> None:
    while not hand.is_over:
        m = hand.legal_play_mask()
        k = int(rand.random() * m.bit_count())
        for _ in range(k):
            m &= m - 1
        hand.play_fast((m & -m).bit_length() - 1)


@settings(max_examples=60, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32), plays=st.integers(0, 30),
       lead_spades=st.booleans())
def test_play_out_random_plays_as_play_fast_with_random_legal_picks(preset: str, seed: int, plays: int,
                                                                   lead_spades: bool) -> None:
    options: dict[str, object] = {"preset": preset}
    if lead_spades and preset != "two-handed":
        options["spades_lead"] = "any_time"
    rules = load_rules(options)
    game = Game(rules, shuffler=seeded_shuffler(seed))
    hand = game.hand
    rng = random.Random(seed)
    while hand.phase is not Phase.PLAY:  # bids and exchanges by the tests' policy (no misdeals)
        hand.apply(choose(rng, hand.legal_actions(), misdeal_p=0))
    for _ in range(plays % (rules.layout.n * rules.layout.hand_size)):  # start anywhere before the end
        hand.apply(rng.choice(hand.legal_actions()))
    ours, ref = hand.clone(), hand.clone()
    ours.play_out_random(random.Random(seed + 1).random)
    reference_play_out(ref, random.Random(seed + 1))
    assert ours.phase is Phase.DONE
    assert snapshot(ours) == snapshot(ref)
    assert sum(ours.tricks_taken) == rules.layout.hand_size
    assert snapshot(hand) != snapshot(ours)  # the clone played, not the hand it came from


def test_play_out_random_refuses_outside_the_play_phase() -> None:
    game = Game(load_rules("standard"), shuffler=seeded_shuffler(1))
    try:
        game.hand.play_out_random(random.Random(1).random)
    except ValueError as e:
        assert "play phase" in str(e)
    else:
        raise AssertionError("play_out_random ran in the bidding")
