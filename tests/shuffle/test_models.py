"""Shuffle models: conventions, exact distributions, and agreement with the mixing formulas."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction

import pytest

from spades.shuffle.mixing import riffle_probability, rising_sequences
from spades.shuffle.models import (
    MODEL_NAMES,
    cut,
    cut_at,
    machine_pass,
    make_model,
    overhand,
    riffle,
)
from spades.shuffle.stats import chi_square_test


class Scripted(random.Random):
    """A Random whose ``random()`` replays a script (for exact enumeration of the machine's choices)."""

    def __init__(self, values: Iterable[float]) -> None:
        super().__init__(0)
        self._values = iter(values)

    def random(self) -> float:
        return next(self._values)


A, B = 0.0, 0.999  # below / above any bias in (0, 1): pile A / pile B


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_models_permute_without_touching_the_input(name: str) -> None:
    model = make_model(name)
    pack = list(range(52))
    for seed in range(20):
        out = model(pack, random.Random(seed))
        assert sorted(out) == list(range(52))
        assert out == model(pack, random.Random(seed))
    assert pack == list(range(52))
    assert model([], random.Random(1)) == []
    assert model([7], random.Random(1)) == [7]


def test_machine_pile_conventions() -> None:
    pack = [0, 1, 2, 3, 4, 5]
    script = [A, B, A, A, B, B]  # A gets 0 2 3, B gets 1 4 5
    assert machine_pass(pack, Scripted(script)) == [0, 2, 3, 1, 4, 5]
    assert machine_pass(pack, Scripted(script), a_on_top=False) == [1, 4, 5, 0, 2, 3]
    assert machine_pass(pack, Scripted(script), keep_order=False) == [3, 2, 0, 5, 4, 1]
    assert machine_pass(pack, Scripted(script), keep_order=False, a_on_top=False) == [5, 4, 1, 3, 2, 0]
    # Everything to one pile: nothing moves, or the pack turns over.
    assert machine_pass(pack, Scripted([A] * 6)) == pack
    assert machine_pass(pack, Scripted([A] * 6), keep_order=False) == pack[::-1]


def test_machine_bias_is_the_chance_of_pile_a() -> None:
    rng = random.Random(5)
    pack = list(range(52))
    passes = 4000
    # Pile A keeps its order and goes on top, so the top card stays card 0 exactly when card 0 went
    # to pile A (or, with chance 0.2^51, when pile A stayed empty).
    on_top = sum(machine_pass(pack, rng, 0.8)[0] == 0 for _ in range(passes))
    assert on_top / passes == pytest.approx(0.8, abs=0.03)  # 0.03 is almost 5 standard deviations
    with pytest.raises(ValueError, match="between 0 and 1"):
        machine_pass(pack, rng, 1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        make_model("machine", 0.0)


def _inverse(arrangement: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * len(arrangement)
    for pos, card in enumerate(arrangement):
        inv[card] = pos
    return tuple(inv)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
@pytest.mark.parametrize("a_on_top", [True, False])
def test_even_machine_pass_is_the_inverse_riffle(n: int, a_on_top: bool) -> None:
    # Enumerate all 2^n pile choices exactly; the machine's chance of an arrangement must be the
    # GSR riffle's chance of the inverse arrangement, C(2 + n - r, n) / 2^n (one riffle).
    dist: Counter[tuple[int, ...]] = Counter()
    for choice in itertools.product([A, B], repeat=n):
        dist[tuple(machine_pass(list(range(n)), Scripted(choice), a_on_top=a_on_top))] += 1
    for arrangement in itertools.permutations(range(n)):
        expected = riffle_probability(n, 1, rising_sequences(_inverse(arrangement)))
        assert Fraction(dist[arrangement], 2**n) == expected


def _sample(model_name: str, n: int, k: int, samples: int, seed: int) -> Counter[tuple[int, ...]]:
    model = make_model(model_name)
    rng = random.Random(seed)
    out: Counter[tuple[int, ...]] = Counter()
    for _ in range(samples):
        pack = list(range(n))
        for _ in range(k):
            pack = model(pack, rng)
        out[tuple(pack)] += 1
    return out


@pytest.mark.parametrize("k", [1, 2, 3])
def test_riffle_samples_follow_bayer_diaconis(k: int) -> None:
    n, samples = 4, 30_000
    counts = _sample("riffle", n, k, samples, seed=100 + k)
    arrangements = list(itertools.permutations(range(n)))
    probs = [float(riffle_probability(n, k, rising_sequences(a))) for a in arrangements]
    assert chi_square_test([counts[a] for a in arrangements], probs).p_value >= 1e-3


@pytest.mark.parametrize("k", [1, 2])
def test_machine_samples_follow_the_inverse_riffle(k: int) -> None:
    n, samples = 4, 30_000
    counts = _sample("machine", n, k, samples, seed=200 + k)
    arrangements = list(itertools.permutations(range(n)))
    probs = [float(riffle_probability(n, k, rising_sequences(_inverse(a)))) for a in arrangements]
    assert chi_square_test([counts[a] for a in arrangements], probs).p_value >= 1e-3


def test_riffle_cut_is_binomial() -> None:
    # A riffle of 0..n-1 cut after c cards interleaves 0..c-1 with c..n-1. Unless the interleaving
    # leaves the order alone, card c ends above card c-1 and no other card lies above its
    # predecessor, so the cut can be read off. The identity has chance (n + 1) / 2^n; cut c with a
    # real interleaving has chance (C(n, c) - 1) / 2^n.
    n, samples = 10, 20_000
    rng = random.Random(3)
    cuts: Counter[int] = Counter()
    for _ in range(samples):
        out = riffle(list(range(n)), rng)
        where = {card: pos for pos, card in enumerate(out)}
        above = [v for v in range(1, n) if where[v] < where[v - 1]]
        assert len(above) <= 1
        cuts[above[0] if above else 0] += 1
    probs = [(n + 1) / 2**n] + [(math.comb(n, c) - 1) / 2**n for c in range(1, n)]
    assert chi_square_test([cuts[c] for c in range(n)], probs).p_value >= 1e-3


def test_overhand_reverses_packets() -> None:
    pack = list(range(8))
    # Breaks after cards 1 and 4 (the script answers "break?" for each gap; the last card always ends).
    script = [0.9, 0.1, 0.9, 0.9, 0.1, 0.9, 0.9]
    assert overhand(pack, Scripted(script), break_chance=0.2) == [5, 6, 7, 2, 3, 4, 0, 1]
    assert overhand(pack, random.Random(1), break_chance=1.0) == pack[::-1]
    with pytest.raises(ValueError):
        overhand(pack, random.Random(1), break_chance=0.0)


def test_overhand_mean_packet() -> None:
    rng = random.Random(11)
    pack = list(range(52))
    packets = 0
    for _ in range(500):
        out = overhand(pack, rng, break_chance=0.25)
        # Packets keep their order and come out reversed: a packet boundary is a descent.
        packets += 1 + sum(1 for a, b in itertools.pairwise(out) if b < a)
    assert packets / 500 == pytest.approx(1 + 51 * 0.25, abs=0.3)


def test_cuts() -> None:
    assert cut_at([1, 2, 3, 4, 5], 2) == [3, 4, 5, 1, 2]
    assert cut_at([1, 2, 3], 0) == [1, 2, 3]
    with pytest.raises(ValueError):
        cut_at([1, 2, 3], 4)
    out = cut(list(range(52)), random.Random(2))
    c = out.index(0)
    assert out == cut_at(list(range(52)), 52 - c if c else 0)


def test_unknown_model() -> None:
    with pytest.raises(ValueError, match="unknown shuffle model 'faro'"):
        make_model("faro")
