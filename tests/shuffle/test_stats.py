"""The small statistics toolbox: chi-square tails, exact hand distributions, pair moments."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from spades.shuffle.stats import (
    chi_square_sf,
    chi_square_test,
    hypergeometric,
    normal_two_sided_p,
    pool_bins,
    same_hand_pair_moments,
    shape_distribution,
    shape_of,
    total_variation,
)

# Upper critical values of the chi-square distribution, from the standard tables (e.g. NIST/SEMATECH
# e-Handbook of Statistical Methods, section 1.3.6.7.4): P(X >= x) = p.
CRITICAL = [
    (1, 3.841, 0.05), (2, 5.991, 0.05), (5, 11.070, 0.05), (10, 18.307, 0.05), (30, 43.773, 0.05),
    (100, 124.342, 0.05), (1, 10.828, 0.001), (10, 29.588, 0.001), (50, 86.661, 0.001),
    (3, 11.345, 0.01), (20, 37.566, 0.01), (7, 2.167, 0.95), (100, 77.929, 0.95),
]


@pytest.mark.parametrize(("df", "x", "p"), CRITICAL)
def test_chi_square_sf_matches_the_tables(df: int, x: float, p: float) -> None:
    assert chi_square_sf(x, df) == pytest.approx(p, rel=2e-3)


def test_chi_square_sf_closed_forms_and_edges() -> None:
    for x in (0.1, 1.0, 7.5, 40.0, 700.0):
        assert chi_square_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
        assert chi_square_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12)
        assert chi_square_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-12)
    assert chi_square_sf(0, 5) == 1.0
    assert chi_square_sf(-1, 5) == 1.0
    assert 0 < chi_square_sf(5000, 2601) < 1e-100  # deep tails stay positive
    assert chi_square_sf(2601, 2601) == pytest.approx(0.4948, abs=2e-3)  # about the median
    with pytest.raises(ValueError):
        chi_square_sf(1.0, 0)


def test_normal_two_sided_p() -> None:
    assert normal_two_sided_p(1.959964) == pytest.approx(0.05, rel=1e-5)
    assert normal_two_sided_p(-3.290527) == pytest.approx(0.001, rel=1e-5)
    assert normal_two_sided_p(0) == 1.0


def test_hypergeometric_spades_in_a_hand() -> None:
    dist = hypergeometric(52, 13, 13)
    assert sum(dist) == 1
    assert dist[0] == Fraction(math.comb(39, 13), math.comb(52, 13))
    assert float(dist[3]) == pytest.approx(0.2864, abs=1e-4)
    assert max(range(14), key=lambda k: dist[k]) == 3


def test_shape_distribution_matches_the_bridge_tables() -> None:
    dist = shape_distribution()
    assert len(dist) == 39
    assert sum(dist.values()) == 1
    # Hand-pattern percentages as tabulated for bridge (e.g. Borel and Cheron, and most bridge books).
    assert float(dist[(4, 4, 3, 2)]) == pytest.approx(0.21551, abs=5e-6)
    assert float(dist[(5, 3, 3, 2)]) == pytest.approx(0.15517, abs=5e-6)
    assert float(dist[(5, 4, 3, 1)]) == pytest.approx(0.12931, abs=5e-6)
    assert float(dist[(5, 4, 2, 2)]) == pytest.approx(0.10580, abs=5e-6)
    assert float(dist[(4, 3, 3, 3)]) == pytest.approx(0.10536, abs=5e-6)
    assert float(dist[(6, 3, 2, 2)]) == pytest.approx(0.05642, abs=5e-6)
    assert dist[(13, 0, 0, 0)] == Fraction(4, math.comb(52, 13))
    assert shape_of([2, 4, 3, 4]) == (4, 4, 3, 2)


def test_shape_distribution_by_brute_force_on_a_small_deck() -> None:
    # 3 suits of 3 cards, hands of 4: count every hand.
    counts: dict[tuple[int, ...], int] = {}
    for hand in itertools.combinations(range(9), 4):
        lengths = [0, 0, 0]
        for c in hand:
            lengths[c // 3] += 1
        s = shape_of(lengths)
        counts[s] = counts.get(s, 0) + 1
    total = math.comb(9, 4)
    assert shape_distribution(4, 3, 3) == {s: Fraction(c, total) for s, c in counts.items()}


@pytest.mark.parametrize(("hands", "hand_size", "groups", "group_size"),
                         [(3, 2, 2, 3), (2, 4, 4, 2), (4, 2, 2, 4), (2, 4, 2, 3), (2, 3, 2, 2)])
def test_pair_moments_by_brute_force(hands: int, hand_size: int, groups: int, group_size: int) -> None:
    n = hands * hand_size
    group_of = [c // group_size if c < groups * group_size else -1 for c in range(n)]
    values = []
    for perm in itertools.permutations(range(n)):
        x = 0
        for h in range(hands):
            hand = perm[h::hands]  # dealt one at a time
            for a, b in itertools.combinations(hand, 2):
                x += group_of[a] == group_of[b] != -1
        values.append(x)
    mean = Fraction(sum(values), len(values))
    var = Fraction(sum(v * v for v in values), len(values)) - mean * mean
    m = same_hand_pair_moments(hands, hand_size, groups, group_size)
    assert m.pairs == groups * math.comb(group_size, 2)
    assert m.mean == mean
    assert m.variance == var


def test_pair_moments_of_a_spades_deal() -> None:
    m = same_hand_pair_moments(4, 13, 13, 4)
    assert m.pairs == 78
    assert m.probability == Fraction(12, 51)
    assert m.mean == Fraction(78 * 12, 51)


def test_pool_bins_and_chi_square_test() -> None:
    probs = [0.001, 0.002, 0.3, 0.697]
    groups = pool_bins(probs, 1000)
    assert groups == [[3], [0, 1, 2]]  # 1 + 2 expected is too few, so the 300 joins them
    assert pool_bins(probs, 3000) == [[2], [3], [0, 1]]  # 3 expected alone is too few: 3 + 6
    assert pool_bins(probs, 10_000) == [[0], [1], [2], [3]]
    assert sorted(i for g in groups for i in g) == [0, 1, 2, 3]
    for g in groups:
        assert sum(probs[i] for i in g) * 1000 >= 5
    perfect = chi_square_test([1, 2, 300, 697], probs)
    assert perfect.statistic == pytest.approx(0.0)
    assert perfect.p_value == pytest.approx(1.0)
    off = chi_square_test([0, 0, 400, 600], probs)
    assert off.p_value < 1e-9
    assert chi_square_test([1, 0], [0.0, 1.0]).p_value == 0.0


def test_total_variation() -> None:
    assert total_variation({"a": 1, "b": 1}, {"a": 0.5, "b": 0.5}) == 0
    assert total_variation({"a": 2}, {"a": 0.5, "b": 0.5}) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        total_variation({}, {"a": 1.0})
