"""Exact mixing figures against brute force over all arrangements and the published table."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from fractions import Fraction
from functools import cache

import pytest

from spades.shuffle.mixing import (
    bits_left,
    bits_left_decimal,
    eulerian,
    eulerian_row,
    mixing_figures,
    mixing_table,
    passes_needed,
    riffle_probability,
    rising_sequences,
    separation,
    separation_exact,
    total_variation,
    total_variation_exact,
)

Arrangement = tuple[int, ...]

# Bayer and Diaconis (1992), "Trailing the dovetail shuffle to its lair", Table 1: total variation
# distance for 52 cards after k = 1..10 riffles, to three decimals.
BAYER_DIACONIS_52 = [1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043]


def test_bayer_diaconis_table() -> None:
    assert [round(total_variation(52, k), 3) for k in range(1, 11)] == BAYER_DIACONIS_52


def test_eulerian_numbers() -> None:
    assert eulerian_row(1) == (1,)
    assert eulerian_row(4) == (1, 11, 11, 1)
    assert eulerian_row(5) == (1, 26, 66, 26, 1)
    assert eulerian_row(0) == ()
    assert eulerian(5, 0) == eulerian(5, 6) == 0
    for n in (10, 52, 104):
        assert sum(eulerian_row(n)) == math.factorial(n)
        assert eulerian_row(n) == tuple(reversed(eulerian_row(n)))


@pytest.mark.parametrize("n", range(1, 8))
def test_eulerian_numbers_count_rising_sequences(n: int) -> None:
    counts = [0] * n
    for arrangement in itertools.permutations(range(n)):
        counts[rising_sequences(arrangement) - 1] += 1
    assert tuple(counts) == eulerian_row(n)


def test_rising_sequences() -> None:
    assert rising_sequences(()) == 0
    assert rising_sequences((0, 1, 2, 3)) == 1
    assert rising_sequences((3, 2, 1, 0)) == 4
    # A riffle of 0 1 2 | 3 4 5 interleaves two rising sequences.
    assert rising_sequences((3, 0, 4, 1, 2, 5)) == 2


@cache
def _one_riffle(n: int) -> dict[Arrangement, Fraction]:
    # GSR: cut after c cards (C(n, c) / 2^n), then each of the C(n, c) interleavings equally likely:
    # every (cut, set of positions of the top packet) has chance 1 / 2^n.
    out: dict[Arrangement, Fraction] = defaultdict(Fraction)
    for c in range(n + 1):
        for top_positions in itertools.combinations(range(n), c):
            top = iter(range(c))
            bottom = iter(range(c, n))
            chosen = set(top_positions)
            out[tuple(next(top) if i in chosen else next(bottom) for i in range(n))] += Fraction(1, 2**n)
    return dict(out)


@cache
def _riffles(n: int, k: int) -> dict[Arrangement, Fraction]:
    if k == 0:
        return {tuple(range(n)): Fraction(1)}
    before = _riffles(n, k - 1)
    out: dict[Arrangement, Fraction] = defaultdict(Fraction)
    for arrangement, p in before.items():
        for move, q in _one_riffle(n).items():
            out[tuple(arrangement[i] for i in move)] += p * q
    return dict(out)


@pytest.mark.parametrize("n", [4, 5, 6])
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_formula_against_brute_force(n: int, k: int) -> None:
    dist = _riffles(n, k)
    assert sum(dist.values()) == 1
    for arrangement in itertools.permutations(range(n)):
        r = rising_sequences(arrangement)
        assert dist.get(arrangement, Fraction(0)) == riffle_probability(n, k, r)
    uniform = Fraction(1, math.factorial(n))
    all_probs = [dist.get(a, Fraction(0)) for a in itertools.permutations(range(n))]
    assert total_variation_exact(n, k) == sum(abs(p - uniform) for p in all_probs) / 2
    assert separation_exact(n, k) == 1 - min(p / uniform for p in all_probs)
    kl = sum(float(p) * math.log2(float(p / uniform)) for p in all_probs if p)
    assert bits_left(n, k) == pytest.approx(kl, rel=1e-12, abs=1e-15)


def test_no_shuffle_at_all() -> None:
    for n in (2, 5, 52, 104):
        assert total_variation_exact(n, 0) == 1 - Fraction(1, math.factorial(n))
        assert separation_exact(n, 0) == 1
        assert bits_left(n, 0) == pytest.approx(math.log2(math.factorial(n)), rel=1e-14)
    assert bits_left(52, 0) == pytest.approx(225.581, abs=1e-3)
    # One card is always in order.
    assert total_variation(1, 0) == separation(1, 0) == bits_left(1, 0) == 0


def test_one_riffle_adds_almost_n_bits() -> None:
    # A riffle has 2^n equally likely (cut, interleaving) paths, all to different arrangements except
    # the identity, reached n + 1 ways: its entropy is n - (n + 1) log2(n + 1) / 2^n bits.
    for n in (4, 13, 52, 104):
        entropy = n - (n + 1) * math.log2(n + 1) / 2**n
        assert bits_left(n, 1) == pytest.approx(math.log2(math.factorial(n)) - entropy, rel=1e-13)


def test_figures_fall_and_keep_their_order() -> None:
    figs = mixing_table(52, range(0, 25))
    for a, b in itertools.pairwise(figs):
        assert b.tv <= a.tv
        assert b.separation <= a.separation
        assert b.bits_left < a.bits_left
    for f in figs:
        assert f.separation >= f.tv  # separation bounds total variation from above
        assert f.bits_left >= 2 * f.tv**2 / math.log(2) * (1 - 1e-12)  # Pinsker's inequality
    # Far out each riffle halves the distance.
    assert figs[24].tv / figs[23].tv == pytest.approx(0.5, abs=1e-3)


@pytest.mark.parametrize("n", [3, 52, 104])
def test_fast_bits_left_agrees_with_80_digits(n: int) -> None:
    for k in range(0, 40, 3):
        exact = float(bits_left_decimal(n, k))
        assert bits_left(n, k) == pytest.approx(exact, rel=1e-11, abs=1e-300)


def test_two_decks() -> None:
    table = mixing_table(104, range(0, 21))
    assert [f.passes for f in table] == list(range(21))
    assert table[0].bits_left == pytest.approx(math.log2(math.factorial(104)), rel=1e-14)
    assert passes_needed(104, 0.5) == 8  # one more riffle than for 52 cards (log2 of twice the cards)
    assert passes_needed(52, 0.5) == 7
    assert table[20].tv < 2e-4


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="0 cards"):
        total_variation(0, 3)
    with pytest.raises(ValueError, match="-1 times"):
        separation(52, -1)
    with pytest.raises(ValueError):
        riffle_probability(4, 1, 5)
    with pytest.raises(ValueError):
        passes_needed(52, 1.5)
    with pytest.raises(ValueError):
        passes_needed(52, 0.001, max_passes=3)


def test_json_keys_are_exactly_the_public_ones() -> None:
    assert set(mixing_figures(52, 7).as_json()) == {"passes", "tv", "separation", "bits_left"}
