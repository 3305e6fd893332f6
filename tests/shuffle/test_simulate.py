"""The shuffle lab's simulation: gathered tricks, passes, and what the players would notice."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from spades.shuffle.simulate import (
    PassFigures,
    SimulationResult,
    first_uniform_run,
    gather,
    gathered_pack,
    play_random_hand,
    simulate,
)


def _seat_cards(hand_tricks: tuple[tuple[int, ...], ...], leaders: tuple[int, ...]) -> list[list[int]]:
    seats: list[list[int]] = [[], [], [], []]
    for trick, leader in zip(hand_tricks, leaders, strict=True):
        for i, card in enumerate(trick):
            seats[(leader + i) % 4].append(card)
    return seats


@pytest.mark.parametrize("seed", range(30))
def test_random_hands_are_played_legally(seed: int) -> None:
    hand = play_random_hand(random.Random(seed))
    assert len(hand.tricks) == 13
    assert sorted(c for t in hand.tricks for c in t) == list(range(52))
    holding = [set(cards) for cards in _seat_cards(hand.tricks, hand.leaders)]
    assert all(len(h) == 13 for h in holding)
    broken = False
    for t, (trick, leader) in enumerate(zip(hand.tricks, hand.leaders, strict=True)):
        if t:
            assert leader == hand.winners[t - 1]
        led = trick[0] // 13
        if led == 3 and not broken:
            assert all(c // 13 == 3 for c in holding[leader])  # spades led only when broken or forced
        for i, card in enumerate(trick):
            seat = (leader + i) % 4
            if i and card // 13 != led:
                assert not any(c // 13 == led for c in holding[seat])  # follow suit when able
            holding[seat].remove(card)
        spades = [c for c in trick if c // 13 == 3]
        best = max(spades) if spades else max(c for c in trick if c // 13 == led)
        assert hand.winners[t] == (leader + trick.index(best)) % 4
        broken = broken or bool(spades)


def test_tricks_are_mostly_one_suit() -> None:
    rng = random.Random(4)
    same = total = 0
    for _ in range(200):
        for trick in play_random_hand(rng).tricks:
            same += sum(c // 13 == trick[0] // 13 for c in trick)
            total += 4
    assert 0.75 < same / total < 0.95


def test_gathered_pack_keeps_tricks_together() -> None:
    rng = random.Random(8)
    hand = play_random_hand(rng)
    pack = gather(hand, rng)
    assert sorted(pack) == list(range(52))
    for trick in hand.tricks:
        positions = sorted(pack.index(c) for c in trick)
        assert positions == list(range(positions[0], positions[0] + 4))
        assert [pack[p] for p in positions] == list(reversed(trick))
    pack2, trick_of = gathered_pack(random.Random(8))
    assert sorted(pack2) == list(range(52))
    assert Counter(trick_of) == Counter({t: 4 for t in range(13)})


def test_an_unshuffled_pack_splits_every_trick() -> None:
    # Dealt one at a time, four neighbouring cards go to four different hands.
    result = simulate("riffle", range(0, 1), 50, seed=3)
    f = result.figures[0]
    assert f.passes == 0
    assert f.same_trick_pairs == 0
    assert not f.uniform_like
    assert f.pairs_p < 1e-200


@pytest.fixture(scope="module")
def riffles() -> SimulationResult:
    return simulate("riffle", range(0, 9), 600, seed=11)


def test_riffles_converge_and_the_answer_follows(riffles: SimulationResult) -> None:
    assert [f.passes for f in riffles.figures] == list(range(9))
    assert riffles.passes_needed is not None
    assert 2 <= riffles.passes_needed <= 8
    needed = riffles.passes_needed
    assert riffles.figures[needed].uniform_like and riffles.figures[needed + 1].uniform_like
    assert not any(f.uniform_like for f in riffles.figures[: needed - 1])
    assert sum(f.uniform_like for f in riffles.figures[needed:]) >= len(riffles.figures[needed:]) - 1
    assert riffles.uniform.uniform_like and riffles.uniform.passes is None
    assert riffles.figures[0].shape_tv > 5 * riffles.uniform.shape_tv
    assert riffles.figures[8].shape_tv < 3 * riffles.uniform.shape_tv
    for f in (*riffles.figures, riffles.uniform):
        for p in (f.spades_p, f.shape_p, f.pairs_p):
            assert 0 <= p <= 1
    assert riffles.expected_same_trick_pairs == pytest.approx(12 / 51)
    assert riffles.uniform.same_trick_pairs == pytest.approx(12 / 51, abs=0.01)


def _fig(passes: int, uniform: bool) -> PassFigures:
    return PassFigures(passes, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0 if uniform else 0.0, uniform)


@pytest.mark.parametrize(("looks", "needed"), [
    ("nnnyyyy", 3),
    ("nnnyynyy", 3),  # a later false alarm does not move the answer
    ("nynnyy", 4),  # a lone early pass is not enough
    ("nnnny", 4),  # the last count may stand alone
    ("nnnnn", None),
    ("yy", 0),
])
def test_first_uniform_run(looks: str, needed: int | None) -> None:
    figures = [_fig(k, c == "y") for k, c in enumerate(looks)]
    assert first_uniform_run(figures) == needed


def test_simulation_repeats_exactly() -> None:
    first = simulate("machine", range(0, 4), 100, seed=11)
    assert simulate("machine", range(0, 4), 100, seed=11) == first
    assert simulate("machine", range(0, 4), 100, seed=12) != first


def test_a_few_overhand_shuffles_are_not_enough() -> None:
    result = simulate("overhand", range(1, 4), 300, seed=5)
    assert result.passes_needed is None
    assert not any(f.uniform_like for f in result.figures)


def test_machine_conventions_and_bias() -> None:
    even = simulate("machine", range(6, 7), 300, seed=2)
    assert even.figures[0].uniform_like
    lopsided = simulate("machine", range(6, 7), 300, seed=2, bias=0.95)
    assert not lopsided.figures[0].uniform_like  # a pile that takes nearly everything barely shuffles
    reversed_piles = simulate("machine", range(0, 5), 300, seed=2, keep_order=False, a_on_top=False)
    assert [f.passes for f in reversed_piles.figures] == [0, 1, 2, 3, 4]


def test_progress_counts_every_trial() -> None:
    done: list[int] = []
    simulate("riffle", range(1, 2), 250, seed=1, progress=done.append)
    assert sum(done) == 250


def test_json_shape() -> None:
    data = simulate("riffle", range(2, 4), 50, seed=1).as_json()
    assert set(data) == {"model", "bias", "trials", "seed", "alpha", "expected_same_trick_pairs",
                         "figures", "uniform", "passes_needed"}
    assert [f["passes"] for f in data["figures"]] == [2, 3]
    assert set(data["figures"][0]) == {"passes", "spades_tv", "shape_tv", "same_trick_pairs",
                                       "spades_p", "shape_p", "pairs_p", "uniform_like"}


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"model": "faro"}, "unknown shuffle model"),
    ({"passes": range(3, 3)}, "non-empty range"),
    ({"passes": range(0, 10, 2)}, "non-empty range"),
    ({"trials": 0}, "trials"),
    ({"bias": 1.0}, "bias"),
    ({"alpha": 0.0}, "significance"),
])
def test_bad_arguments(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"model": "riffle", "passes": range(1, 3), "trials": 10, "seed": 0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        simulate(**args)  # type: ignore[arg-type]
