"""Small statistics for the shuffle tests and the shuffle lab, in plain Python.

Exact distributions of what a player sees in a uniformly dealt hand (spades in a hand, hand shapes,
pairs of cards landing in one hand), computed with ``math.comb`` and ``fractions.Fraction``; the
chi-square tail probability by the regularized upper incomplete gamma function; a two-sided normal
p-value; the total variation distance between observed counts and an exact distribution.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import TypeVar

K = TypeVar("K")

Shape = tuple[int, ...]
"""A hand shape: the suit lengths of a hand, longest first (``(4, 4, 3, 2)``)."""


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square distributed with ``df`` degrees of freedom.

    This is the regularized upper incomplete gamma function ``Q(df/2, x/2)``, summed in closed form:
    for even ``df`` a Poisson tail, for odd ``df`` ``erfc(sqrt(x/2))`` plus the terms of the recurrence
    ``Q(a + 1, y) = Q(a, y) + y**a * exp(-y) / Gamma(a + 1)``. Every term is positive and computed in
    log space, so deep tails keep their relative precision.
    """
    if df < 1:
        raise ValueError(f"a chi-square distribution needs at least 1 degree of freedom, not {df}")
    if x <= 0:
        return 1.0
    y = x / 2
    log_y = math.log(y)
    if df % 2 == 0:
        total = sum(math.exp(i * log_y - y - math.lgamma(i + 1)) for i in range(df // 2))
    else:
        total = math.erfc(math.sqrt(y)) + sum(
            math.exp((i + 0.5) * log_y - y - math.lgamma(i + 1.5)) for i in range((df - 1) // 2)
        )
    return min(1.0, total)


def normal_two_sided_p(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2))


def hypergeometric(population: int, successes: int, draws: int) -> list[Fraction]:
    """P(k successes) for k = 0..draws when drawing ``draws`` of ``population`` without replacement.

    E.g. ``hypergeometric(52, 13, 13)[k]`` is the chance that a 13-card hand holds exactly k spades.
    """
    total = math.comb(population, draws)
    return [
        Fraction(math.comb(successes, k) * math.comb(population - successes, draws - k), total)
        for k in range(draws + 1)
    ]


@cache
def shape_distribution(hand_size: int = 13, suits: int = 4, suit_size: int = 13) -> dict[Shape, Fraction]:
    """The exact chance of each hand shape in a uniformly dealt hand, shapes longest suit first.

    P(shape) = (number of ways to give the lengths to the suits) * prod C(suit_size, length)
    / C(suits * suit_size, hand_size).
    """
    total = math.comb(suits * suit_size, hand_size)
    out: dict[Shape, Fraction] = {}

    def parts(left: int, slots: int, cap: int) -> list[Shape]:
        if slots == 0:
            return [()] if left == 0 else []
        return [(p, *rest) for p in range(min(left, cap), -1, -1) for rest in parts(left - p, slots - 1, p)]

    for shape in parts(hand_size, suits, suit_size):
        arrangements = math.factorial(suits)
        for length in set(shape):
            arrangements //= math.factorial(shape.count(length))
        ways = arrangements * math.prod(math.comb(suit_size, length) for length in shape)
        out[shape] = Fraction(ways, total)
    return out


def shape_of(suit_lengths: Sequence[int]) -> Shape:
    """The shape of a hand from its suit lengths in any order."""
    return tuple(sorted(suit_lengths, reverse=True))


@dataclass(frozen=True)
class PairMoments:
    """Mean and variance of the number of same-group pairs that land in one hand (uniform deal)."""

    pairs: int
    """How many same-group pairs there are in all."""
    probability: Fraction
    """The chance that one given pair of cards lands in one hand."""
    mean: Fraction
    """Expected number of same-group pairs in one hand, summed over all hands, per deal."""
    variance: Fraction
    """Variance of that number per deal."""


def same_hand_pair_moments(hands: int, hand_size: int, groups: int, group_size: int) -> PairMoments:
    """Moments of the count of same-group pairs landing in one hand under a uniform deal.

    The deck is ``hands * hand_size`` cards dealt into ``hands`` hands of ``hand_size``; ``groups``
    disjoint groups of ``group_size`` cards (e.g. the 13 tricks of 4 cards of the last hand) are
    marked. ``X`` counts the pairs of cards from one group that land in one hand. The variance sums
    the covariances of the pair indicators: a pair with itself, two pairs sharing one card (all three
    cards in one hand), and two disjoint pairs (both together: all four in one hand, or the two pairs
    in two different hands).
    """
    n = hands * hand_size
    if groups * group_size > n:
        raise ValueError("the groups hold more cards than the deck")
    if n < 4:
        raise ValueError("the moments need a deck of at least 4 cards")
    h = hand_size
    q = Fraction(h - 1, n - 1)
    three = Fraction((h - 1) * (h - 2), (n - 1) * (n - 2))
    four = Fraction((h - 1) * (h - 2) * (h - 3), (n - 1) * (n - 2) * (n - 3)) + q * Fraction(
        (n - h) * (h - 1), (n - 2) * (n - 3)
    )
    per_group = math.comb(group_size, 2)
    pairs = groups * per_group
    sharing = groups * per_group * 2 * (group_size - 2)
    disjoint = pairs * (pairs - 1) - sharing
    variance = pairs * (q - q * q) + sharing * (three - q * q) + disjoint * (four - q * q)
    return PairMoments(pairs=pairs, probability=q, mean=pairs * q, variance=variance)


def pool_bins(probabilities: Sequence[float], trials: int, min_expected: float = 5.0) -> list[list[int]]:
    """Group categories so each group expects at least ``min_expected`` of ``trials`` observations.

    Every category expecting at least that many stays on its own; the rest are lumped into one group,
    which, when it still expects too few, takes in the smallest remaining category. Categories with
    probability 0 are dropped.
    """
    order = sorted((i for i, p in enumerate(probabilities) if p > 0), key=lambda i: probabilities[i])
    small = [i for i in order if probabilities[i] * trials < min_expected]
    big = [i for i in order if probabilities[i] * trials >= min_expected]
    groups = [[i] for i in big]
    if small:
        if sum(probabilities[i] for i in small) * trials < min_expected and groups:
            small += groups.pop(0)
        groups.append(sorted(small))
    return groups


@dataclass(frozen=True)
class ChiSquare:
    """The result of a chi-square goodness-of-fit test."""

    statistic: float
    df: int
    p_value: float


def chi_square_test(observed: Sequence[int], probabilities: Sequence[float],
                    min_expected: float = 5.0) -> ChiSquare:
    """Goodness of fit of counts to a distribution, bins pooled by ``pool_bins``.

    ``observed[i]`` counts category ``i``, which has probability ``probabilities[i]``; a category
    observed though its probability is 0 makes the statistic infinite and the p-value 0.
    """
    trials = sum(observed)
    if trials == 0:
        raise ValueError("no observations to test")
    if any(o and not p for o, p in zip(observed, probabilities, strict=True)):
        return ChiSquare(math.inf, max(1, len(probabilities) - 1), 0.0)
    groups = pool_bins(probabilities, trials, min_expected)
    if len(groups) < 2:
        return ChiSquare(0.0, 1, 1.0)
    stat = 0.0
    for group in groups:
        expected = trials * sum(probabilities[i] for i in group)
        got = sum(observed[i] for i in group)
        stat += (got - expected) ** 2 / expected
    df = len(groups) - 1
    return ChiSquare(stat, df, chi_square_sf(stat, df))


def total_variation(observed: Mapping[K, int], exact: Mapping[K, float | Fraction]) -> float:
    """Half the sum of absolute differences between observed frequencies and exact probabilities."""
    trials = sum(observed.values())
    if trials == 0:
        raise ValueError("no observations")
    keys = set(observed) | set(exact)
    return 0.5 * sum(abs(observed.get(k, 0) / trials - float(exact.get(k, 0))) for k in keys)
