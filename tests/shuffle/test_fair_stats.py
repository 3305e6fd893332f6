"""Statistical tests of dealing: do the shuffles deal like a perfectly random deck?

Each test deals many 52-card, four-seat hands from fixed seeds (so it is deterministic) and compares
what it sees with the exact values for a uniform shuffle:

- positions: how often each card lands at each position of the deal;
- suits per seat, spades per hand, hand shapes (4-4-3-2, 5-3-3-2, ...): exact multivariate
  hypergeometric values from ``math.comb``;
- pairs in one hand: how often neighbouring cards of the unshuffled deck (pairs 2C-3C, 4C-5C, ...
  and groups of four) land in one hand, against the exact mean and variance.

A test fails when its p-value is below ``ALPHA = 1e-3``. The seeds are fixed, so the outcome never
changes; the last tests show that the same checks catch real flaws (modulo bias, the naive "swap
with any position" shuffle) by a wide margin.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache

import pytest

from spades.shuffle.fair import byte_stream, derive_permutation, secure_permutation
from spades.shuffle.stats import (
    chi_square_sf,
    chi_square_test,
    hypergeometric,
    normal_two_sided_p,
    same_hand_pair_moments,
    shape_distribution,
    shape_of,
)

ALPHA = 1e-3
DEALS = 12_000
N = 52
SEATS = 4

PermSource = Callable[[int], Iterator[list[int]]]
"""Makes the permutations of so many deals, the same ones every time."""


def _derived(deals: int) -> Iterator[list[int]]:
    for i in range(deals):
        seed = hashlib.sha256(f"stats-{i}".encode()).hexdigest()
        yield derive_permutation(seed, ["table-7", f"hand-{i}"], N)


def _seeded(deals: int) -> Iterator[list[int]]:
    rng = random.Random(20240601)  # the seeded stand-in for secrets.randbelow
    for _ in range(deals):
        yield secure_permutation(N, rng.randrange)


SOURCES: dict[str, PermSource] = {"derive_permutation": _derived, "secure_permutation": _seeded}


class Tally:
    """Everything the tests look at, gathered in one pass over the deals."""

    def __init__(self) -> None:
        self.position = [[0] * N for _ in range(N)]
        self.suit_seat = [[0] * 4 for _ in range(SEATS)]
        self.spades = [0] * 14
        self.shapes: Counter[tuple[int, ...]] = Counter()
        self.pairs2: list[int] = []
        self.pairs4: list[int] = []

    def add(self, deal_index: int, perm: list[int]) -> None:
        for pos, card in enumerate(perm):
            self.position[pos][card] += 1
        tested_seat = deal_index % SEATS  # one hand per deal for the one-hand tests: independent samples
        p2 = p4 = 0
        for seat in range(SEATS):
            hand = perm[seat::SEATS]  # the engine deals one card at a time; deck = 0..51
            lengths = [0, 0, 0, 0]
            by2: Counter[int] = Counter()
            by4: Counter[int] = Counter()
            for c in hand:
                lengths[c // 13] += 1
                by2[c // 2] += 1
                by4[c // 4] += 1
            for suit in range(4):
                self.suit_seat[seat][suit] += lengths[suit]
            if seat == tested_seat:
                self.spades[lengths[3]] += 1
                self.shapes[shape_of(lengths)] += 1
            p2 += sum(v * (v - 1) // 2 for v in by2.values())
            p4 += sum(v * (v - 1) // 2 for v in by4.values())
        self.pairs2.append(p2)
        self.pairs4.append(p4)


@cache
def tally(source: str, deals: int = DEALS) -> Tally:
    t = Tally()
    for i, perm in enumerate(SOURCES[source](deals)):
        t.add(i, perm)
    return t


@pytest.fixture(scope="module", params=sorted(SOURCES))
def dealt(request: pytest.FixtureRequest) -> Tally:
    return tally(request.param)


def _position_p(position: list[list[int]], deals: int) -> float:
    # Pearson statistic over the 52 x 52 card-by-position table. For independent uniform permutations
    # it is asymptotically (n / (n - 1)) * chi-square((n - 1)^2): the covariance of a random permutation
    # matrix's entries, scaled by their mean, is n / (n - 1) times the identity on tables with zero
    # row and column sums, and zero elsewhere (the margins are fixed).
    expected = deals / N
    stat = sum((o - expected) ** 2 / expected for row in position for o in row)
    return chi_square_sf(stat * (N - 1) / N, (N - 1) ** 2)


def test_positions_are_uniform(dealt: Tally) -> None:
    assert _position_p(dealt.position, DEALS) >= ALPHA


def test_suits_per_seat_are_uniform(dealt: Tally) -> None:
    # Same argument as for positions: a seat's count of one suit is hypergeometric(52, 13, 13) with
    # variance 13 * 1/4 * 3/4 * 39/51, i.e. 52/51 times its mean times 3/4, on a 3 x 3 free table.
    expected = DEALS * 13 / 4
    stat = sum((o - expected) ** 2 / expected for row in dealt.suit_seat for o in row)
    assert chi_square_sf(stat * 51 / 52, 9) >= ALPHA


def test_spades_per_hand_are_hypergeometric(dealt: Tally) -> None:
    exact = [float(p) for p in hypergeometric(52, 13, 13)]
    assert chi_square_test(dealt.spades, exact).p_value >= ALPHA


def test_hand_shapes_match_the_exact_frequencies(dealt: Tally) -> None:
    exact = shape_distribution()
    shapes = sorted(exact)
    result = chi_square_test([dealt.shapes[s] for s in shapes], [float(exact[s]) for s in shapes])
    assert result.df >= 15  # the common shapes are each tested on their own
    assert result.p_value >= ALPHA


@pytest.mark.parametrize("group_size", [2, 4])
def test_neighbouring_cards_land_together_as_often_as_chance(dealt: Tally, group_size: int) -> None:
    counts = dealt.pairs2 if group_size == 2 else dealt.pairs4
    m = same_hand_pair_moments(SEATS, 13, N // group_size, group_size)
    z = (sum(counts) / DEALS - float(m.mean)) / (float(m.variance) / DEALS) ** 0.5
    assert normal_two_sided_p(z) >= ALPHA


@pytest.mark.slow
def test_two_hundred_thousand_derived_deals() -> None:
    deals = 200_000
    t = tally("derive_permutation", deals)
    exact_shapes = shape_distribution()
    shapes = sorted(exact_shapes)
    p_values = {
        "positions": _position_p(t.position, deals),
        "spades": chi_square_test(t.spades, [float(p) for p in hypergeometric(52, 13, 13)]).p_value,
        "shapes": chi_square_test([t.shapes[s] for s in shapes],
                                  [float(exact_shapes[s]) for s in shapes]).p_value,
    }
    for group_size, counts in ((2, t.pairs2), (4, t.pairs4)):
        m = same_hand_pair_moments(SEATS, 13, N // group_size, group_size)
        z = (sum(counts) / deals - float(m.mean)) / (float(m.variance) / deals) ** 0.5
        p_values[f"pairs of {group_size}"] = normal_two_sided_p(z)
    assert min(p_values.values()) >= ALPHA, p_values


def _modulo_biased(deals: int) -> Iterator[list[int]]:
    # derive_permutation's stream without the rejection step: x mod m favours small j.
    for i in range(deals):
        stream = byte_stream(hashlib.sha256(f"biased-{i}".encode()).hexdigest(), ["x"])
        perm = list(range(N))
        for k in range(N - 1, 0, -1):
            j = next(stream) % (k + 1)
            perm[k], perm[j] = perm[j], perm[k]
        yield perm


def _naive(deals: int) -> Iterator[list[int]]:
    # The classic mistake: swap each position with any position (n^n paths onto n! orders).
    rng = random.Random(99)
    for _ in range(deals):
        perm = list(range(N))
        for k in range(N):
            j = rng.randrange(N)
            perm[k], perm[j] = perm[j], perm[k]
        yield perm


@pytest.mark.parametrize(("flawed", "deals"), [(_modulo_biased, DEALS), (_naive, 2000)])
def test_the_checks_catch_flawed_shuffles(flawed: PermSource, deals: int) -> None:
    position = [[0] * N for _ in range(N)]
    for perm in flawed(deals):
        for pos, card in enumerate(perm):
            position[pos][card] += 1
    assert _position_p(position, deals) < 1e-6
