"""The shuffle lab's simulation: how many passes does tonight's deck need?

A finished hand of spades goes back into the pack as thirteen tricks of four cards, mostly one suit
each, so the pack is far from random before the first pass. ``simulate`` repeats, for each
trial: play a plausible hand (``play_random_hand``), gather the tricks into a pack (``gather``), run
``k`` passes of a shuffle model, deal 13 cards to each of four seats one at a time, and measure what
a player would notice, for every ``k`` in the range asked for:

- **spades per hand**: the distribution of the number of spades in a hand, against the exact
  hypergeometric ``C(13, s) C(39, 13 - s) / C(52, 13)``;
- **hand shapes**: the frequencies of 4-4-3-2, 5-3-3-2, 4-3-3-3, ... against the exact values;
- **same-trick pairs**: the share of the 78 pairs of cards that lay in one trick of the last hand and
  land in one hand again, against ``12/51`` for a uniform shuffle.

For each ``k`` it reports the total variation distance between the observed and the exact
distributions (all four hands pooled) and three p-values: chi-square tests of the spades count and of
the shape of one hand per deal (the seats take turns, so the samples are independent), and a z-test of
the same-trick pair count per deal, whose exact mean and variance under a uniform deal come from
``stats.same_hand_pair_moments``. A number of passes looks uniform when all three p-values are at
least ``alpha`` (default 0.001): with that many deals, a player could not tell the deck from a perfect
shuffle. ``passes_needed`` is the smallest ``k`` in the range that looks uniform, and whose next
count ``k + 1`` looks uniform too when it is in the range. The same figures for a perfect shuffle
with the same number of trials are reported as the noise floor. More trials detect smaller flaws, so
the answer grows slowly with ``trials``: think of ``trials`` as the number of deals a very attentive
table would watch.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spades.core.rules import Rules
from spades.core.trick import trick_lead
from spades.shuffle.models import MODEL_NAMES, make_model
from spades.shuffle.stats import (
    Shape,
    chi_square_test,
    hypergeometric,
    normal_two_sided_p,
    same_hand_pair_moments,
    shape_distribution,
    shape_of,
    total_variation,
)

SEATS = 4
HAND = 13
DECK = 52
SPADE_SUIT = 3

_SPADES_EXACT = [float(p) for p in hypergeometric(DECK, HAND, HAND)]
_SHAPES_EXACT = {shape: float(p) for shape, p in shape_distribution(HAND, 4, 13).items()}
_SHAPE_LIST = sorted(_SHAPES_EXACT, reverse=True)
_LAYOUT = Rules().layout
"""The standard game's deck: its card numbers are the face numbers used here, and the engine says who wins a trick."""
_PAIRS = same_hand_pair_moments(SEATS, HAND, groups=13, group_size=SEATS)


@dataclass(frozen=True)
class PlayedHand:
    """The tricks of one hand of four-player spades, as played."""

    tricks: tuple[tuple[int, ...], ...]
    """Each trick's four cards in the order played (face numbers 0..51, ``suit * 13 + rank``)."""
    leaders: tuple[int, ...]
    """The seat that led each trick; the card ``i`` of a trick was played by ``(leader + i) % 4``."""
    winners: tuple[int, ...]
    """The seat that won each trick (and led the next)."""


def play_random_hand(rng: random.Random) -> PlayedHand:
    """A plausible hand of four-player spades: a uniform deal, then random legal play.

    The leader leads any card of a suit other than spades until spades are broken (or only spades are
    left); the others follow suit with a random card of the suit led when they can, and otherwise
    trump with a spade half the time they hold one, else discard at random. The highest spade, else
    the highest card of the suit led, wins and leads next (the engine's rule, ``spades.core.trick``). So
    most tricks are four cards of one suit, with the occasional trump or discard, as at a real table.
    """
    deck = list(range(DECK))
    rng.shuffle(deck)
    hands = [sorted(deck[s::SEATS]) for s in range(SEATS)]
    leader = rng.randrange(SEATS)
    broken = False
    tricks: list[tuple[int, ...]] = []
    leaders: list[int] = []
    winners: list[int] = []
    for _ in range(HAND):
        trick: list[int] = []
        for i in range(SEATS):
            hand = hands[(leader + i) % SEATS]
            if i == 0:
                options = hand if broken else [c for c in hand if c // 13 != SPADE_SUIT] or hand
            else:
                led = trick[0] // 13
                options = [c for c in hand if c // 13 == led]
                if not options:
                    spades = [c for c in hand if c // 13 == SPADE_SUIT]
                    options = spades if spades and rng.random() < 0.5 else hand
            card = rng.choice(options)
            hand.remove(card)
            trick.append(card)
        broken = broken or any(c // 13 == SPADE_SUIT for c in trick)
        tricks.append(tuple(trick))
        leaders.append(leader)
        leader = trick_lead(_LAYOUT, [((leader + i) % SEATS, c) for i, c in enumerate(trick)]).seat
        winners.append(leader)
    return PlayedHand(tuple(tricks), tuple(leaders), tuple(winners))


def gather(hand: PlayedHand, rng: random.Random) -> list[int]:
    """The pack, top card first, as the tricks are gathered at the table after the hand.

    Each side keeps its tricks in one face-down pile, each trick laid on the ones before with its cards
    in the order played (the first card played lowest). The dealer stacks one side's pile on the other
    (which one is a coin toss) and deals from the top, so the top card is the last card of the last
    trick on the upper pile.
    """
    piles: list[list[int]] = [[], []]
    for trick, winner in zip(hand.tricks, hand.winners, strict=True):
        piles[winner % 2].extend(trick)  # bottom to top
    upper, lower = (piles[0], piles[1]) if rng.random() < 0.5 else (piles[1], piles[0])
    return list(reversed(upper)) + list(reversed(lower))


def gathered_pack(rng: random.Random) -> tuple[list[int], list[int]]:
    """A freshly gathered pack (top card first) and, per card, the index of the trick it lay in."""
    hand = play_random_hand(rng)
    trick_of = [0] * DECK
    for t, trick in enumerate(hand.tricks):
        for c in trick:
            trick_of[c] = t
    return gather(hand, rng), trick_of


@dataclass(frozen=True)
class PassFigures:
    """What a player would notice after ``passes`` passes (``None``: a perfect shuffle)."""

    passes: int | None
    spades_tv: float
    """Total variation between the observed and the exact distribution of spades in a hand."""
    shape_tv: float
    """Total variation between the observed and the exact distribution of hand shapes."""
    same_trick_pairs: float
    """Share of same-trick pairs of the last hand that land in one hand (uniform: 12/51)."""
    spades_p: float
    """p-value of the chi-square test of the spades count (one hand per deal)."""
    shape_p: float
    """p-value of the chi-square test of the hand shape (one hand per deal)."""
    pairs_p: float
    """p-value of the z-test of the same-trick pair count per deal."""
    uniform_like: bool
    """Whether every p-value is at least the significance level."""

    def as_json(self) -> dict[str, Any]:
        """The figures as a JSON object (the ``simulate --json`` keys)."""
        return {
            "passes": self.passes, "spades_tv": self.spades_tv, "shape_tv": self.shape_tv,
            "same_trick_pairs": self.same_trick_pairs, "spades_p": self.spades_p,
            "shape_p": self.shape_p, "pairs_p": self.pairs_p, "uniform_like": self.uniform_like,
        }


@dataclass(frozen=True)
class SimulationResult:
    """The figures for each number of passes, the perfect-shuffle noise floor, and the answer."""

    model: str
    bias: float
    trials: int
    seed: int
    alpha: float
    figures: tuple[PassFigures, ...]
    uniform: PassFigures
    """The same figures for a perfect shuffle (Fisher-Yates) over the same number of trials."""
    passes_needed: int | None
    """The smallest pass count that looks uniform, as does the next one if in range (else ``None``)."""

    expected_same_trick_pairs: float = float(_PAIRS.probability)

    def as_json(self) -> dict[str, Any]:
        """The ``simulate --json`` object."""
        return {
            "model": self.model, "bias": self.bias, "trials": self.trials, "seed": self.seed,
            "alpha": self.alpha, "expected_same_trick_pairs": self.expected_same_trick_pairs,
            "figures": [f.as_json() for f in self.figures], "uniform": self.uniform.as_json(),
            "passes_needed": self.passes_needed,
        }


class _Tally:
    """Running counts for one number of passes."""

    def __init__(self) -> None:
        self.spades_all = [0] * (HAND + 1)
        self.spades_one = [0] * (HAND + 1)
        self.shapes_all: Counter[Shape] = Counter()
        self.shapes_one: Counter[Shape] = Counter()
        self.pairs_sum = 0
        self.pairs_sq = 0
        self.deals = 0

    def add(self, pack: Sequence[int], trick_of: Sequence[int]) -> None:
        chosen = self.deals % SEATS  # the seats take turns as the one hand tested per deal
        pairs = 0
        for seat in range(SEATS):
            hand = pack[seat::SEATS]  # one card at a time from the dealer's left
            lengths = [0, 0, 0, 0]
            tricks = [0] * HAND
            for c in hand:
                lengths[c // 13] += 1
                tricks[trick_of[c]] += 1
            pairs += sum(t * (t - 1) // 2 for t in tricks)
            shape = shape_of(lengths)
            self.spades_all[lengths[SPADE_SUIT]] += 1
            self.shapes_all[shape] += 1
            if seat == chosen:
                self.spades_one[lengths[SPADE_SUIT]] += 1
                self.shapes_one[shape] += 1
        self.pairs_sum += pairs
        self.pairs_sq += pairs * pairs
        self.deals += 1

    def figures(self, passes: int | None, alpha: float) -> PassFigures:
        n = self.deals
        spades_tv = total_variation(dict(enumerate(self.spades_all)), dict(enumerate(_SPADES_EXACT)))
        shape_tv = total_variation(self.shapes_all, _SHAPES_EXACT)
        spades_p = chi_square_test(self.spades_one, _SPADES_EXACT).p_value
        shape_p = chi_square_test([self.shapes_one[s] for s in _SHAPE_LIST],
                                  [_SHAPES_EXACT[s] for s in _SHAPE_LIST]).p_value
        mean = self.pairs_sum / n
        z = (mean - float(_PAIRS.mean)) / (float(_PAIRS.variance) / n) ** 0.5
        pairs_p = normal_two_sided_p(z)
        return PassFigures(
            passes=passes, spades_tv=spades_tv, shape_tv=shape_tv,
            same_trick_pairs=self.pairs_sum / (n * _PAIRS.pairs),
            spades_p=spades_p, shape_p=shape_p, pairs_p=pairs_p,
            uniform_like=min(spades_p, shape_p, pairs_p) >= alpha,
        )


def simulate(model: str, passes: range, trials: int, seed: int, bias: float = 0.5, *,
             alpha: float = 1e-3, keep_order: bool = True, a_on_top: bool = True,
             progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Run the experiment described in the module docstring.

    ``passes`` is a range of pass counts with step 1 (``range(1, 11)``); ``progress``, if given, is
    called with the number of trials just finished (in batches). Everything is drawn from one
    ``random.Random(seed)``, so a run repeats exactly.
    """
    if passes.step != 1 or len(passes) == 0 or passes.start < 0:
        raise ValueError(f"the passes must be a non-empty range of counts from 0 up, not {passes}")
    if trials < 1:
        raise ValueError(f"the number of trials must be 1 or more, not {trials}")
    if not 0 < bias < 1:
        raise ValueError(f"the bias must lie strictly between 0 and 1, not {bias}")
    if not 0 < alpha < 1:
        raise ValueError(f"the significance level must lie strictly between 0 and 1, not {alpha}")
    shuffle = make_model(model, bias, keep_order=keep_order, a_on_top=a_on_top)
    rng = random.Random(seed)
    tallies = {k: _Tally() for k in passes}
    perfect = _Tally()
    batch = max(1, trials // 100)
    pending = 0
    for trial in range(trials):
        pack, trick_of = gathered_pack(rng)
        shuffled = pack
        for k in range(passes.stop):
            if k > 0:
                shuffled = shuffle(shuffled, rng)
            if k in tallies:
                tallies[k].add(shuffled, trick_of)
        uniform = pack[:]
        rng.shuffle(uniform)
        perfect.add(uniform, trick_of)
        pending += 1
        if progress is not None and (pending == batch or trial + 1 == trials):
            progress(pending)
            pending = 0
    figures = tuple(tallies[k].figures(k, alpha) for k in passes)
    return SimulationResult(model=model, bias=bias, trials=trials, seed=seed, alpha=alpha,
                            figures=figures, uniform=perfect.figures(None, alpha),
                            passes_needed=first_uniform_run(figures))


def first_uniform_run(figures: Sequence[PassFigures]) -> int | None:
    """The first pass count that looks uniform and whose next one (if listed) does too, else ``None``.

    Requiring every later count to pass would not do: at ``alpha`` per test a perfect shuffle fails
    now and then by chance, and a long range would make such a false alarm ever more likely to push
    the answer up. Requiring two in a row guards against a flawed count that passes by chance.
    """
    for i, f in enumerate(figures):
        if f.uniform_like and (i + 1 == len(figures) or figures[i + 1].uniform_like):
            return f.passes
    return None


__all__ = [
    "MODEL_NAMES",
    "PassFigures",
    "PlayedHand",
    "SimulationResult",
    "first_uniform_run",
    "gather",
    "gathered_pack",
    "play_random_hand",
    "simulate",
]
