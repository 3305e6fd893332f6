"""Models of how people and machines shuffle, for the shuffle lab.

Every model takes a pack as a sequence, **top card first** (index 0 is the card that would be dealt
first), and an injected ``random.Random``; it returns a new list and leaves the input alone. The
models are exact descriptions of a random process, not of any particular hands or device:

``riffle``
    The Gilbert-Shannon-Reeds model of a dovetail shuffle: cut the pack after ``c`` cards with ``c``
    binomial(n, 1/2), then drop cards one at a time from the bottoms of the two packets, each time from
    a packet with probability proportional to its size. Every one of the ``C(n, c)`` interleavings of
    the two packets is then equally likely.

``machine_pass``
    One pass of a two-pile card shuffler such as card clubs use: the machine takes the cards one
    at a time and sends each to pile A with probability ``bias`` (else to pile B), then one pile is
    stacked on the other. Two conventions, both parameters:

    * ``keep_order`` (default ``True``): each pile keeps the relative order its cards had in the pack.
      This is what happens when the machine takes cards from the **bottom** of the pack and each card
      lands on top of its pile; with ``bias = 1/2`` it is exactly the inverse of a GSR riffle.
      ``False``: each pile holds its cards in reverse order, as when the machine takes cards from the
      **top** of the pack and each card lands on top of its pile (dealing face down reverses a pile).
    * ``a_on_top`` (default ``True``): pile A is put on top of pile B; ``False`` puts B on top.

``overhand``
    An overhand shuffle: packets are slid off the top of the pack into the other hand, each on top of
    the packets before, so the packets come out in reverse order while each keeps its own order.
    Between any two neighbouring cards a packet ends with probability ``break_chance`` (independently;
    the mean packet has ``1 / break_chance`` cards).

``cut``
    Move the top ``c`` cards to the bottom, ``c`` binomial(n, 1/2) (a cut near the middle).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import TypeVar

T = TypeVar("T")

ShuffleModel = Callable[[Sequence[int], random.Random], list[int]]
"""One pass of a shuffle over a pack of card numbers: ``(pack, rng) -> new pack``."""

MODEL_NAMES = ("riffle", "machine", "overhand")
"""The model names the command line accepts."""


def _binomial_half(n: int, rng: random.Random) -> int:
    # The number of heads in n fair coin tosses.
    return rng.getrandbits(n).bit_count() if n > 0 else 0


def riffle(pack: Sequence[T], rng: random.Random) -> list[T]:
    """One Gilbert-Shannon-Reeds riffle shuffle of ``pack`` (top card first)."""
    n = len(pack)
    c = _binomial_half(n, rng)
    left = list(pack[:c])  # the top packet
    right = list(pack[c:])  # the bottom packet
    dropped: list[T] = []  # cards in the order they fall: the bottom of the new pack first
    while left and right:
        # From the bottom of a packet, with probability proportional to the packet's size.
        if rng.randrange(len(left) + len(right)) < len(left):
            dropped.append(left.pop())
        else:
            dropped.append(right.pop())
    dropped.extend(reversed(left))
    dropped.extend(reversed(right))
    dropped.reverse()
    return dropped


def machine_pass(pack: Sequence[T], rng: random.Random, bias: float = 0.5, *,
                 keep_order: bool = True, a_on_top: bool = True) -> list[T]:
    """One pass of a two-pile shuffling machine (an inverse riffle when ``bias`` is 1/2).

    Each card goes to pile A with probability ``bias``; see the module docstring for the two
    conventions ``keep_order`` and ``a_on_top``.
    """
    if not 0 < bias < 1:
        raise ValueError(f"the bias must lie strictly between 0 and 1, not {bias}")
    pile_a: list[T] = []
    pile_b: list[T] = []
    for card in pack:
        (pile_a if rng.random() < bias else pile_b).append(card)
    if not keep_order:
        pile_a.reverse()
        pile_b.reverse()
    return pile_a + pile_b if a_on_top else pile_b + pile_a


def overhand(pack: Sequence[T], rng: random.Random, break_chance: float = 0.2) -> list[T]:
    """One overhand shuffle: packets of random size moved from the top onto a new pile."""
    if not 0 < break_chance <= 1:
        raise ValueError(f"the chance of a packet break must lie in (0, 1], not {break_chance}")
    packets: list[list[T]] = []
    current: list[T] = []
    for i, card in enumerate(pack):
        current.append(card)
        if i == len(pack) - 1 or rng.random() < break_chance:
            packets.append(current)
            current = []
    return [card for packet in reversed(packets) for card in packet]


def cut(pack: Sequence[T], rng: random.Random) -> list[T]:
    """Cut the pack: the top ``c`` cards go to the bottom, ``c`` binomial(n, 1/2)."""
    return cut_at(pack, _binomial_half(len(pack), rng))


def cut_at(pack: Sequence[T], c: int) -> list[T]:
    """Move the top ``c`` cards to the bottom."""
    if not 0 <= c <= len(pack):
        raise ValueError(f"cannot cut {c} cards from a pack of {len(pack)}")
    return list(pack[c:]) + list(pack[:c])


def make_model(name: str, bias: float = 0.5, *, keep_order: bool = True,
               a_on_top: bool = True) -> ShuffleModel:
    """The shuffle model called ``name`` (one of ``MODEL_NAMES``); ``bias`` and the conventions apply
    to the machine only."""
    if name == "riffle":
        return riffle
    if name == "machine":
        if not 0 < bias < 1:
            raise ValueError(f"the bias must lie strictly between 0 and 1, not {bias}")
        return partial(machine_pass, bias=bias, keep_order=keep_order, a_on_top=a_on_top)
    if name == "overhand":
        return overhand
    raise ValueError(f"unknown shuffle model {name!r}: choose one of {', '.join(MODEL_NAMES)}")
