"""Exact mixing figures of the Gilbert-Shannon-Reeds riffle shuffle (Bayer and Diaconis 1992).

After ``k`` GSR riffles of ``n`` cards, the chance of an arrangement depends only on its number ``r``
of rising sequences (maximal runs of consecutive card values ``v, v+1, ...`` lying in increasing
positions; ``r - 1`` is the number of descents of the inverse permutation)::

    P_k(r) = C(2**k + n - r, n) / 2**(k * n)

and ``A(n, r)``, the Eulerian number, arrangements have ``r`` rising sequences. Every figure below is a
sum over ``r`` computed exactly with Python integers and fractions, and rounded to ``float`` at the end:

- total variation distance to uniform: ``1/2 * sum_r A(n, r) * |P_k(r) - 1/n!|``;
- separation distance: ``1 - n! * min_r P_k(r)`` (the minimum is at ``r = n``);
- bits of order left: the relative entropy (Kullback-Leibler divergence) of the riffle distribution
  from uniform, in bits: ``sum_r A(n, r) * P_k(r) * log2(n! * P_k(r))``. It equals ``log2(n!)`` minus
  the entropy of the arrangement: how many bits of information about the order survive. It is
  ``log2(n!)`` (225.58 bits for 52 cards) before the first riffle and 0 for a perfect shuffle.

The machine pass with an even bias that keeps each pile's order is the inverse riffle; a permutation
and its inverse are equally far from uniform, so these figures hold for it too.

Source: D. Bayer and P. Diaconis, "Trailing the dovetail shuffle to its lair", Annals of Applied
Probability 2(2), 1992, 294-313.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

_LOG_PRECISION = 80
"""Decimal digits for the relative entropy: enough that its rounding to float is exact in practice."""


@cache
def eulerian_row(n: int) -> tuple[int, ...]:
    """``(A(n, 1), ..., A(n, n))``: how many arrangements of ``n`` cards have ``r`` rising sequences.

    Built by the recurrence on descents ``d = r - 1``:
    ``A(m, d) = (d + 1) * A(m - 1, d) + (m - d) * A(m - 1, d - 1)``. For ``n = 0`` the row is empty.
    """
    if n < 0:
        raise ValueError(f"no arrangements of {n} cards")
    if n == 0:
        return ()
    row = [1]
    for m in range(2, n + 1):
        prev = [*row, 0]
        row = [(d + 1) * prev[d] + (m - d) * (prev[d - 1] if d else 0) for d in range(m)]
    return tuple(row)


def eulerian(n: int, r: int) -> int:
    """The Eulerian number: arrangements of ``n`` cards with exactly ``r`` rising sequences."""
    row = eulerian_row(n)
    return row[r - 1] if 1 <= r <= n else 0


def rising_sequences(arrangement: list[int] | tuple[int, ...]) -> int:
    """The number of rising sequences of an arrangement of ``0..n-1`` (top of the deck first).

    One more than the number of values ``v`` whose successor ``v + 1`` lies above ``v`` in the deck.
    """
    n = len(arrangement)
    if n == 0:
        return 0
    where = [0] * n
    for position, value in enumerate(arrangement):
        where[value] = position
    return 1 + sum(1 for v in range(n - 1) if where[v + 1] < where[v])


def _check(n: int, k: int) -> None:
    if n < 1:
        raise ValueError(f"cannot shuffle {n} cards: the count must be 1 or more")
    if k < 0:
        raise ValueError(f"cannot riffle {k} times: the number of passes must be 0 or more")


def riffle_probability(n: int, k: int, r: int) -> Fraction:
    """The exact chance of one given arrangement with ``r`` rising sequences after ``k`` riffles."""
    _check(n, k)
    if not 1 <= r <= n:
        raise ValueError(f"an arrangement of {n} cards has 1 to {n} rising sequences, not {r}")
    return Fraction(math.comb(2**k + n - r, n), 2 ** (k * n))


@lru_cache(maxsize=64)
def _numerators(n: int, k: int) -> tuple[int, ...]:
    # C(2^k + n - r, n) for r = 1..n: the probabilities times 2^(kn). Walking down from r = 1 with
    # C(a - 1, n) = C(a, n) * (a - n) / a (an exact division) is far cheaper than n separate combs.
    a = 2**k + n - 1
    c = math.comb(a, n)
    out = [c]
    for _ in range(n - 1):
        c = c * (a - n) // a
        a -= 1
        out.append(c)
    return tuple(out)


def total_variation_exact(n: int, k: int) -> Fraction:
    """The exact total variation distance from uniform after ``k`` riffles of ``n`` cards."""
    _check(n, k)
    scale = 2 ** (k * n)
    fact = math.factorial(n)
    total = sum(a * abs(fact * c - scale) for a, c in zip(eulerian_row(n), _numerators(n, k), strict=True))
    return Fraction(total, 2 * scale * fact)


def separation_exact(n: int, k: int) -> Fraction:
    """The exact separation distance ``1 - n! * min_r P_k(r)`` after ``k`` riffles of ``n`` cards."""
    _check(n, k)
    lowest = _numerators(n, k)[-1]  # C(2^k, n): the numerators fall as r grows
    return 1 - Fraction(math.factorial(n) * lowest, 2 ** (k * n))


def bits_left_decimal(n: int, k: int) -> decimal.Decimal:
    """The relative entropy from uniform after ``k`` riffles, in bits, to 80 significant digits.

    ``sum_r A(n, r) * P_k(r) * log2(n! * P_k(r))``; the probabilities are exact fractions turned into
    80-digit decimals, the logarithms are taken in that precision, and terms with ``P_k(r) = 0`` count
    0.
    """
    _check(n, k)
    scale = 2 ** (k * n)
    fact = math.factorial(n)
    with decimal.localcontext() as ctx:
        ctx.prec = _LOG_PRECISION
        total = decimal.Decimal(0)
        for a, c in zip(eulerian_row(n), _numerators(n, k), strict=True):
            if c == 0:
                continue
            weight = decimal.Decimal(a * c) / decimal.Decimal(scale)
            ratio = decimal.Decimal(fact * c) / decimal.Decimal(scale)
            total += weight * ratio.ln()
        result = total / decimal.Decimal(2).ln()
        return +result


def total_variation(n: int, k: int) -> float:
    """The total variation distance from uniform after ``k`` riffles of ``n`` cards, as a float."""
    return float(total_variation_exact(n, k))


def separation(n: int, k: int) -> float:
    """The separation distance from uniform after ``k`` riffles of ``n`` cards, as a float."""
    return float(separation_exact(n, k))


def bits_left(n: int, k: int) -> float:
    """The relative entropy from uniform after ``k`` riffles of ``n`` cards, in bits, as a float.

    The same sum as ``bits_left_decimal``, rewritten so that no term is negative and nothing cancels:
    with ``u_r = A(n, r) / n!`` and ``x_r = n! * P_k(r)`` (so ``sum_r u_r * (x_r - 1) = 0``), the
    divergence is ``sum_r u_r * f(x_r)`` with ``f(x) = x ln x - x + 1 >= 0``. Each ``f(x_r)`` is taken
    from the exact ratio (a series in ``x - 1`` near 1, logarithms of big integers far from it), so
    the float result keeps about 13 significant digits however close to uniform the deck is.
    """
    _check(n, k)
    scale = 2 ** (k * n)
    fact = math.factorial(n)
    total = 0.0
    for a, c in zip(eulerian_row(n), _numerators(n, k), strict=True):
        u = a / fact  # int / int: correctly rounded
        num = fact * c  # x = num / scale
        if 2 * abs(num - scale) <= scale:
            total += u * _f_near_one((num - scale) / scale)
        elif num < scale:
            x = num / scale
            total += u * (x * math.log(x) - x + 1) if x > 0 else u
        else:
            # u * f(x) = w * (ln x - 1) + u with w = u * x, which stays finite however large x is.
            w = a * c / scale
            log_x = math.log(num / scale) if num < _FLOAT_MAX * scale else math.log(num) - math.log(scale)
            total += w * (log_x - 1) + u
    return total / math.log(2)


_FLOAT_MAX = 2**1000


def _f_near_one(delta: float) -> float:
    # f(1 + delta) for |delta| <= 1/2, f(x) = x ln x - x + 1.
    if abs(delta) < 1e-2:
        # f(1 + d) = sum_{m >= 2} (-1)^m d^m / (m (m - 1)); 12 terms leave an error below 1e-24 * d^2.
        return sum((-delta) ** m / (m * (m - 1)) for m in range(2, 14))
    return (1 + delta) * math.log1p(delta) - delta


@dataclass(frozen=True)
class MixingFigures:
    """The exact figures for ``passes`` riffles of ``cards`` cards."""

    cards: int
    passes: int
    tv: float
    """Total variation distance from uniform."""
    separation: float
    """Separation distance from uniform."""
    bits_left: float
    """Relative entropy from uniform, in bits."""

    def as_json(self) -> dict[str, int | float]:
        """The public ``--json`` object: exactly ``passes``, ``tv``, ``separation``, ``bits_left``."""
        return {"passes": self.passes, "tv": self.tv, "separation": self.separation,
                "bits_left": self.bits_left}


def mixing_figures(n: int, k: int) -> MixingFigures:
    """Total variation, separation and bits left after ``k`` riffles of ``n`` cards."""
    return MixingFigures(cards=n, passes=k, tv=total_variation(n, k), separation=separation(n, k),
                         bits_left=bits_left(n, k))


def mixing_table(n: int, passes: range) -> list[MixingFigures]:
    """The figures for each number of riffles in ``passes``."""
    return [mixing_figures(n, k) for k in passes]


def passes_needed(n: int, tv_threshold: float = 0.5, max_passes: int = 64) -> int:
    """The fewest riffles of ``n`` cards that bring the total variation distance to at most the threshold.

    Raises ``ValueError`` when ``max_passes`` riffles are not enough.
    """
    if not 0 < tv_threshold < 1:
        raise ValueError(f"the threshold must lie strictly between 0 and 1, not {tv_threshold}")
    target = Fraction(tv_threshold)
    for k in range(max_passes + 1):
        if total_variation_exact(n, k) <= target:
            return k
    raise ValueError(f"{max_passes} riffles do not bring {n} cards within {tv_threshold} of uniform")
