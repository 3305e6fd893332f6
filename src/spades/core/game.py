"""A game: hands in sequence, the dealer moving left, totals and bags, the end and the winner.

Randomness and time are injected. A ``Game`` deals each new hand from its ``shuffler`` (a callable
returning a permutation of the deck), or, with no shuffler, waits for ``start_hand`` with a given
deal (replaying a record). The clock is a callable returning seconds, for timed games.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from spades.core.actions import Action, BidValue
from spades.core.errors import IllegalActionError
from spades.core.hand import Hand, HandContext, Phase, deal_order
from spades.core.rules import Rules
from spades.core.scoring import SideScore, blind_eligible_sides, game_outcome, score_hand

Shuffler = Callable[[int], Sequence[int]]
"""Given the deck size, a permutation of ``range(size)`` for the next deal."""

MAX_HANDS = 10_000
"""A guard: no game is played past this many hands (it would mean the rules never end it)."""


def seeded_shuffler(seed: int | str) -> Shuffler:
    """A reproducible shuffler for tests, simulations and bots (not for real money or real games:
    the server deals with ``spades.shuffle``)."""
    rng = random.Random(seed)

    def shuffle(size: int) -> list[int]:
        perm = list(range(size))
        rng.shuffle(perm)
        return perm

    return shuffle


@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: its bids and tricks per seat, and each side's score (``Game.results`` keeps one
    copy of the equal parts of results, between hands and games: ``shared``)."""

    dealer: int
    bids: tuple[BidValue | None, ...] | None
    """``None`` for a hand played without bids."""
    tricks: tuple[int, ...]
    sides: tuple[SideScore, ...]
    misdeal: bool = False
    """A misdeal was called: no score, the same dealer deals again."""


SHARED_MAX = 10_000
"""Distinct values of each type ``shared`` keeps (then it shares only those it has: a few MB at most)."""

_SHARED: dict[type, dict[Any, Any]] = {}
"""The values ``shared`` keeps, by type (a named tuple equals a plain tuple of the same items)."""

H = TypeVar("H", bound=Hashable)


def shared(value: H) -> H:
    """The one copy kept of every value equal to ``value`` and of its type (an immutable value of a finished
    hand: its score lines, side scores, bids and tricks, never changed). A finished hand stays for the rest
    of its game, and the same parts come up again and again at every table ("contract of 4 made" and its
    40 points, "1 bag", the tricks 4-3-3-3): a server holding thousands of games keeps each once instead
    of about 0.8 KiB a table a hand (issue 19). Past ``SHARED_MAX`` values of its type a new one is its own
    copy. (Whole results, and a hand's pair of side scores, hardly ever repeat: 27,470 distinct results in
    27,500 hands of random play, against 169 distinct score lines in 117,867; they are not kept here.)"""
    kept = _SHARED.get(type(value))
    if kept is None:
        kept = _SHARED.setdefault(type(value), {})
    got: H | None = kept.get(value)
    if got is None:
        if len(kept) >= SHARED_MAX:
            return value
        got = kept.setdefault(value, value)
    return got


def shared_score(side: SideScore) -> SideScore:
    """``shared`` for a side's score, whose lines are shared too (equal lines recur in unequal scores)."""
    got: SideScore | None = _SHARED.get(SideScore, {}).get(side)
    if got is not None:
        return got
    return shared(side._replace(lines=tuple(shared(line) for line in side.lines)))


class Game:
    """A whole game. ``apply`` acts in the current hand; finished hands are scored at once."""

    def __init__(
        self,
        rules: Rules,
        *,
        first_dealer: int = 0,
        shuffler: Shuffler | None = None,
        clock: Callable[[], float] | None = None,
        keep_hands: bool = True,
    ) -> None:
        """Start a game. With a ``shuffler`` the first hand is dealt at once; without one, call
        ``start_hand`` with each deal. ``clock`` (seconds) is needed for timed games. ``keep_hands`` False:
        a finished hand is let go when the next one is dealt, and ``hands`` holds the current hand only
        (``hand_count`` still counts them all; the scores and ``results`` are kept): for a game whose hands
        are kept elsewhere (a server's table writes each as it goes, ``spades.core.record.hand_record``, and
        gives them to ``record_of``)."""
        n = rules.layout.n
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < n:
            raise IllegalActionError(f"the first dealer must be a seat from 0 to {n - 1}")
        if rules.time_limit_minutes is not None and clock is None:
            raise IllegalActionError("a timed game needs a clock")
        self.rules = rules
        self.shuffler = shuffler
        self.clock = clock
        self.started_at = clock() if clock else 0.0
        self.totals = [0] * rules.layout.sides_count
        self.bags = [0] * rules.layout.sides_count
        self.results: list[HandResult] = []
        self.hands: list[Hand] = []
        """The hands dealt, in order (with ``keep_hands`` False, only the current or last one)."""
        self.keep_hands = keep_hands
        self.hand_count = 0
        """How many hands have been dealt (misdeals included): the current hand's index is one less."""
        self.next_dealer = first_dealer
        self.winner: int | None = None
        """The winning side's index once the game is over."""
        self.over = False
        self.time_up_hand: int | None = None
        """A timed game: the index of the hand in which the time ran out (``None`` while there is time)."""
        if shuffler is not None:
            self.start_hand()

    # ------------------------------------------------------------------ hands

    @property
    def hand(self) -> Hand:
        """The current (or last) hand."""
        if not self.hands:
            raise IllegalActionError("no hand has been dealt yet")
        return self.hands[-1]

    @property
    def awaiting_deal(self) -> bool:
        """True when the next hand must be dealt with ``start_hand``."""
        return not self.over and (not self.hands or self.hand.is_over)

    def context(self) -> HandContext:
        """What the next hand needs from the game: blind eligibility and whether it has bids."""
        bidless = not self.rules.first_hand_bids and not any(not r.misdeal for r in self.results)
        sides = tuple(blind_eligible_sides(self.rules, self.totals))
        return HandContext(blind_sides=sides, bidless=bidless)

    def start_hand(self, order: Sequence[int] | None = None) -> Hand:
        """Deal the next hand: from ``order`` (cards, top of the deck first) or from the shuffler."""
        if self.over:
            raise IllegalActionError("the game is over")
        if self.hands and not self.hand.is_over:
            raise IllegalActionError("the current hand is not finished")
        if self.hand_count >= MAX_HANDS:
            raise IllegalActionError(f"the game has gone {MAX_HANDS} hands without ending")
        if order is None:
            if self.shuffler is None:
                raise IllegalActionError("this game has no shuffler: give the deal")
            order = deal_order(self.rules, self.shuffler(len(self.rules.layout.deck)))
        hand = Hand(self.rules, self.next_dealer, order, self.context())
        if self.hands:
            self.hands[-1].seal()  # a game goes forward: a dealt-over hand is never taken back
            if not self.keep_hands:
                self.hands.clear()  # (its tricks, actions and cards: most of what a long game holds)
        self.hands.append(hand)
        self.hand_count += 1
        return hand

    # ------------------------------------------------------------------ acting

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """The current hand's legal actions (see ``Hand.legal_actions``); none once the game is over."""
        if self.over or not self.hands or self.hand.is_over:
            return []
        return self.hand.legal_actions(seat)

    def apply(self, action: Action) -> None:
        """Apply a legal action to the current hand (checked); score the hand when it ends."""
        if self.over:
            raise IllegalActionError(f"{action.describe()}: the game is over")
        if not self.hands or self.hand.is_over:
            raise IllegalActionError(f"{action.describe()}: the next hand has not been dealt")
        self.hand.apply(action)
        self._after_action()

    def apply_unchecked(self, action: Action) -> None:
        """Apply an action taken from ``legal_actions`` without checking it."""
        self.hand.apply_unchecked(action)
        self._after_action()

    def _after_action(self) -> None:
        hand = self.hand
        if not hand.is_over:
            return
        n = self.rules.layout.n
        if hand.phase is Phase.MISDEALT:
            self.results.append(HandResult(hand.dealer, shared(tuple(hand.bids)), shared(tuple(hand.tricks_taken)),
                                           (), misdeal=True))
            # The same dealer deals again.
        else:
            bids = None if hand.context.bidless else tuple(hand.bids)
            sides = score_hand(self.rules, bids, hand.tricks_taken, self.bags)
            for i, s in enumerate(sides):
                self.totals[i] += s.points
                self.bags[i] = s.bags_total
            self.results.append(HandResult(hand.dealer, None if bids is None else shared(bids),
                                           shared(tuple(hand.tricks_taken)), tuple(shared_score(s) for s in sides)))
            self.next_dealer = (hand.dealer + 1) % n
            self._check_end()
        if not self.over and self.shuffler is not None:
            self.start_hand()

    def _check_end(self) -> None:
        r = self.rules
        time_up = self.time_up_hand is not None or (
            r.time_limit_minutes is not None and self.clock is not None
            and self.clock() - self.started_at >= 60 * r.time_limit_minutes)
        if time_up and self.time_up_hand is None:
            self.time_up_hand = self.hand_count - 1
        self.over, self.winner = game_outcome(r, self.totals, time_up)

    # ------------------------------------------------------------------ reading

    def side_of(self, seat: int) -> int:
        """The side index of a seat."""
        return self.rules.layout.side_of[seat]
