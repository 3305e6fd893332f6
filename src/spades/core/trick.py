"""Who wins a trick: the one definition of the trick-taking rule.

A trick is led with any card; its effective suit (``Layout.effective_suit``: jokers and top trumps
count as spades) is the suit led. A later card takes the lead when it is a spade and the trick is not
yet trumped or the spade is at least as strong as the best one; or when it follows the suit led, the
trick is not trumped and it is at least as strong as the best card. "At least as strong" (``>=``):
of the six-handed game's two identical cards, the one played later wins.

``takes_lead`` is the rule, ``TrickLead`` the state of a trick in progress (who is winning, with which
card), ``trick_step`` and ``trick_lead`` fold cards into it. Every path that plays cards uses them: the
checked and fast play of ``Hand``, the views, the computer players, the shuffle lab's simulated
hands. The random play-outs of ``Hand`` (the search's hot kernels) write the rule inline for speed;
tests hold each of them to ``trick_lead`` card for card in every preset.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from spades.core.cards import SPADES
from spades.core.rules import Layout


class TrickLead(NamedTuple):
    """Who is winning a trick in progress, and with which card."""

    led: int
    """The effective suit led; -1 before the lead."""
    seat: int
    """The seat winning the trick so far; -1 before the lead."""
    card: int
    """The card winning the trick so far; -1 before the lead."""
    trump: bool
    """Whether that card is a trump (a spade, joker or top trump)."""
    power: int
    """That card's power (``Layout.power``); -1 before the lead."""


NO_LEAD = TrickLead(-1, -1, -1, False, -1)
"""A trick nobody has led to yet."""


def beats(eff: int, power: int, led: int, trump: bool, best: int) -> bool:
    """The rule in numbers: whether a card of effective suit ``eff`` and power ``power`` takes the lead
    of a trick led in ``led`` whose best card so far is a trump (``trump``) of power ``best``."""
    if eff == SPADES:
        return not trump or power >= best
    return eff == led and not trump and power >= best


def takes_lead(layout: Layout, card: int, state: TrickLead) -> bool:
    """Whether ``card``, played now, would be winning the trick (any card wins an empty trick)."""
    if state.led < 0:
        return True
    return beats(layout.effective_suit[card], layout.power[card], state.led, state.trump, state.power)


def trick_step(layout: Layout, state: TrickLead, seat: int, card: int) -> TrickLead:
    """The trick after ``seat`` plays ``card``."""
    eff = layout.effective_suit[card]
    power = layout.power[card]
    if state.led < 0:
        return TrickLead(eff, seat, card, eff == SPADES, power)
    if beats(eff, power, state.led, state.trump, state.power):
        return TrickLead(state.led, seat, card, eff == SPADES, power)
    return state


def trick_lead(layout: Layout, cards: Iterable[tuple[int, int]]) -> TrickLead:
    """Who is winning a trick of ``(seat, card)`` played in order (the winner, once it is complete)."""
    state = NO_LEAD
    for seat, card in cards:
        state = trick_step(layout, state, seat, card)
    return state
