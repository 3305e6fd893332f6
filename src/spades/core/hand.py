"""One hand of Spades as a phase machine: deal, draw or discard, bidding (with blind decisions),
card exchanges, play, and the scored end.

``Hand`` is mutable. Its three ways to change it:

- ``apply(action)``: checked. An illegal action raises ``IllegalActionError`` saying, in a player's
  words, what was tried and why it is not allowed; the hand is left untouched. Undoable.
- ``apply_unchecked(action)``: the same without the legality check, for callers that took the action
  from ``legal_actions()``. Undoable. An illegal action here corrupts the hand.
- ``play_fast(card)``: the play phase's hot path for search and rollouts: no check, no undo, no
  action log. ``clone()`` first when the position is needed again.

``legal_actions()`` is the one source of truth for what may happen next, in a fixed order; the
checked ``apply`` agrees with it exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple

from spades.core.actions import (
    NIL,
    PLAYS,
    Accept,
    Action,
    Bid,
    BidValue,
    Discard,
    Draw,
    Look,
    Misdeal,
    Pass,
    Play,
)
from spades.core.bidding import legal_bids
from spades.core.cards import (
    FACES_PER_PACK,
    SPADES,
    SUIT_NAMES,
    card_name,
    cards_of,
    natural_rank,
)
from spades.core.errors import IllegalActionError
from spades.core.rules import Rules
from spades.core.trick import beats

if TYPE_CHECKING:
    from spades.core.view import HandView

_PACK0 = (1 << FACES_PER_PACK) - 1
_RANKS_OF = tuple(tuple(r for r in range(13) if m >> r & 1) for m in range(1 << 13))
"""For each 13-bit suit window, the ranks present (the rollout's fast pick within a suit)."""
_DEAL_STARTS = {n: tuple(tuple((seat - dealer - 1) % n for seat in range(n)) for dealer in range(n))
                for n in range(2, 7)}
"""For a table of n seats, per dealer: where each seat's cards start in the deal (every n-th card from
there; the first goes to the dealer's left)."""
_BID_ORDERS = {n: tuple([*range(first, n), *range(first)] for first in range(n)) for n in range(2, 7)}
"""For a table of n seats, per first bidder: the seats in bidding order (shared by every hand)."""
_COUNT_OF = tuple(len(ranks) for ranks in _RANKS_OF)
"""For each 13-bit suit window, how many ranks it holds."""
_PAIRS = tuple(tuple((seat, c) for c in range(2 * FACES_PER_PACK)) for seat in range(6))
"""``(seat, card)`` for every seat and card number, made once: the entries of a trick's ``cards``."""
_FOLLOW4 = tuple((s1, 4 * s1, _PAIRS[s1], s2, 4 * s2, _PAIRS[s2], s3, 4 * s3, _PAIRS[s3])
                 for s1, s2, s3 in (((s + 1) % 4, (s + 2) % 4, (s + 3) % 4) for s in range(4)))
"""Four seats, per leader: each follower in turn, the start of its suit windows and its ``(seat, card)``
pairs (``_play_out_four``)."""
_JQK_RANKS = (9, 10, 11)
_FOLLOWERS = {n: tuple(tuple((s + i) % n for i in range(1, n)) for s in range(n)) for n in range(2, 7)}
"""For a table of n seats, per leader: the seats that follow in a trick, in turn."""
_new_hand = object.__new__
_tuple_new = tuple.__new__
"""``Trick(...)`` without the named tuple's Python-level ``__new__`` (tricks are made in the hot path)."""
_PLAYS = PLAYS
"""``legal_actions`` hands these out."""


_PLAIN_BIDS: dict[int, tuple[tuple[Bid, ...], ...]] = {}
"""Per hand size and seat: the bids when nothing restricts them (``FastPaths.plain_bids``): nil, then 1
to the hand size. Made once, on first use; ``legal_actions`` hands these out."""


def _plain_bids_row(size: int) -> tuple[tuple[Bid, ...], ...]:
    row = tuple((Bid(seat, NIL), *(Bid(seat, BidValue(k)) for k in range(1, size + 1))) for seat in range(6))
    _PLAIN_BIDS[size] = row
    return row


_SLOT_SETTERS: dict[type, tuple[Any, Any]] = {kind: (vars(kind)["seat"].__set__, vars(kind)["cards"].__set__)
                                               for kind in (Pass, Discard)}
"""The slots' own setters of the card-set actions (``Pass``, ``Discard``), for ``_card_sets``."""


def _card_sets(kind: type[Pass] | type[Discard], seat: int, cards: list[int], k: int) -> list[Action]:
    # ``[kind(seat, combo) for combo in combinations(cards, k)]`` without each value's ``__init__`` and the
    # sort of its ``__post_init__``: the combinations of cards in card-number order are in that order
    # already. An exchange's legal actions are up to 715 of these, and a computer player's view of the
    # exchange holds them all (49.8 -> 15.7 us for the 78 pairs of a hand; issue 19).
    set_seat, set_cards = _SLOT_SETTERS[kind]
    new = object.__new__
    out: list[Action] = []
    for combo in itertools.combinations(cards, k):
        action = new(kind)
        set_seat(action, seat)
        set_cards(action, combo)
        out.append(action)
    return out


_UNDO_PLAY, _UNDO_BID, _UNDO_ALL = "play", "bid", "all"
"""The kinds of undo record: what a play changes, what a bid changes, the whole state."""


class Phase(Enum):
    """Where a hand stands."""

    DRAW = "draw"
    """Two-handed game: the players draw their hands from the stock."""
    DISCARD = "discard"
    """The dealer discards face down (54-card four-player game)."""
    BID = "bid"
    """Bidding, once around; blind decisions are taken at a seat's turn before it looks."""
    EXCHANGE = "exchange"
    """Nil and blind-nil card passing: the nil bidder first, then the partner."""
    PLAY = "play"
    """Tricks."""
    DONE = "done"
    """Every trick is played; the hand can be scored."""
    MISDEALT = "misdealt"
    """A misdeal was called; the same dealer deals again and nothing is scored."""


# The phases as module constants: ``Phase.PLAY`` is a class attribute lookup that costs Python 3.11
# about 0.2 us (the enum's descriptor), a global about a tenth of that.
_DRAW, _DISCARD, _BID, _EXCHANGE, _PLAY, _DONE, _MISDEALT = (
    Phase.DRAW, Phase.DISCARD, Phase.BID, Phase.EXCHANGE, Phase.PLAY, Phase.DONE, Phase.MISDEALT)

# The kinds of action ``_check`` tells apart, made once: ``Bid | Look | ...`` builds a new union at every
# call (0.6 us of a checked apply's 1.7, which every move on a server pays), and so did the dict.
_ACTIONS = (Bid, Look, Accept, Pass, Discard, Misdeal, Draw, Play)
_BIDDING = (Bid, Look, Accept)
_CARD_SETS = (Pass, Discard)
_PHASE_ACTIONS: dict[Phase, tuple[type, ...]] = {_PLAY: (Play,), _BID: _BIDDING, _EXCHANGE: (Pass,),
                                                _DISCARD: (Discard,), _DRAW: (Draw,)}


class Trick(NamedTuple):
    """A finished trick: who led, the cards in the order played (seat, card), and who won it.

    A named tuple rather than a frozen dataclass: tricks are made in the rollout hot path."""

    leader: int
    cards: tuple[tuple[int, int], ...]
    winner: int


@dataclass(frozen=True)
class HandContext:
    """What a hand needs from its game: which sides may bid blind, and whether bids are made."""

    blind_sides: tuple[bool, ...] | None = None
    """Per side: may it bid blind this hand. ``None``: no side may."""
    bidless: bool = False
    """The first hand of a ``first_hand_bids: false`` game: no bidding."""


_NO_CONTEXT = HandContext()


class Hand:
    """One hand, from the deal to the last trick. See the module docstring for the three ways to act."""

    __slots__ = (
        "_own_memo",  # ``spades.core.view``'s own fields of the seats not to act in play, with what they read
        "_sides_memo",  # ``spades.core.view``'s last contract statuses of this hand, with what they read
        "_tricks_memo",  # ``spades.core.view``'s finished tricks of this hand as JSON, with the last of them
        "_undo",
        "actions",
        "bid_order",
        "bid_pos",
        "bids",
        "blind_ok",
        "broken",
        "context",
        "current",
        "dealer",
        "dealt",
        "discard",
        "draw_seen",
        "exchanges",
        "hands",
        "layout",
        "leader",
        "led",
        "looked",
        "out",
        "passes",
        "phase",
        "rules",
        "stock",
        "stock_pos",
        "to_act",
        "trick_no",
        "tricks",
        "tricks_taken",
        "win_power",
        "win_seat",
        "win_trump",
    )

    rules: Rules
    _own_memo: dict[int | None, tuple[Any, Any]]
    _sides_memo: tuple[Any, Any, Any]
    _tricks_memo: tuple[Any, Any]
    dealer: int
    phase: Phase
    to_act: int
    """The seat whose turn it is (meaningless once the hand is over)."""
    hands: list[int]
    """Each seat's cards now, as card sets."""
    dealt: list[int]
    """Each seat's cards as dealt (before exchanges and discards); after the draw in the two-handed game."""
    out: int
    """Cards out of play and seen by nobody."""
    stock: tuple[int, ...]
    """Two-handed game: the stock, top first."""
    bids: list[BidValue | None]
    tricks_taken: list[int]
    tricks: list[Trick]
    current: list[tuple[int, int]]
    """The trick being played: (seat, card) in order."""
    broken: bool
    """Spades broken (a spade or top trump has been played)."""
    passes: list[tuple[int, int, tuple[int, ...]]]
    """Card exchanges made: (from seat, to seat, cards)."""
    discard: tuple[int, ...]
    actions: list[Action]

    # ------------------------------------------------------------------ construction

    def __init__(self, rules: Rules, dealer: int, order: Sequence[int], context: HandContext | None = None):
        """Deal a hand from ``order``: the deck's cards in the order they come off the top.

        Cards go one at a time starting at the dealer's left; what is left after an even deal goes
        to the dealer with ``dealer_discard``, else out of play unseen. In the two-handed game
        ``order`` is the stock. Use ``deal_order`` to turn a permutation into an order.
        """
        lay = rules.layout
        n = lay.n
        if not 0 <= dealer < n:
            raise IllegalActionError(f"dealer must be a seat from 0 to {n - 1}, not {dealer}")
        self.rules = rules
        self.layout = lay
        self.dealer = dealer
        self.context = context = context or _NO_CONTEXT
        # Seat (dealer + 1 + k) gets every n-th card from position k; the rest is left over. Each card
        # is looked up in the deck's ``card_bit`` (a card not in the deck is a missing key) and a hand is
        # the sum of its cards' bits, all in C. Sums of distinct bits never carry, and any carry loses a
        # bit, so ``len(order)`` cards whose bits add up to the deck's set are exactly the deck.
        bit = lay.card_bit.__getitem__
        dealt_count = 4 * lay.hand_size if n == 2 else n * lay.hand_size
        try:
            rest = sum(map(bit, order[dealt_count:]))
            if n == 4:
                a, b, c, d = _DEAL_STARTS[4][dealer]
                dealt = [sum(map(bit, order[a:dealt_count:4])), sum(map(bit, order[b:dealt_count:4])),
                         sum(map(bit, order[c:dealt_count:4])), sum(map(bit, order[d:dealt_count:4]))]
                given = rest + dealt[0] + dealt[1] + dealt[2] + dealt[3]
            elif n == 2:
                dealt = [0, 0]
                given = rest + sum(map(bit, order[:dealt_count]))
            else:
                dealt = [sum(map(bit, order[k:dealt_count:n])) for k in _DEAL_STARTS[n][dealer]]
                given = rest + sum(dealt)
        except (KeyError, TypeError):
            given = -1
        if len(order) != len(lay.deck) or given != lay.deck_set:
            raise IllegalActionError("the cards to deal are not exactly this game's deck")
        self.stock = tuple(order) if n == 2 else ()
        self.out = 0
        if n != 2 and rules.dealer_discard:
            dealt[dealer] |= rest
        else:
            self.out = rest
        self.hands = dealt
        self.dealt = dealt[:]
        self.draw_seen: list[list[int]] = [[]] * n  # (replaced, never changed in place: see ``_do_draw``)
        self.stock_pos = 0
        self.bids = [None] * n
        self.tricks_taken = [0] * n
        self.tricks = []
        self.current = []
        self.broken = False
        self.passes = []
        self.discard = ()
        self.actions = []
        self.exchanges: list[tuple[int, int, int]] = []
        self._undo: list[tuple[Any, ...]] | None = []
        """What each action changed, to take it back; ``None`` once sealed (``seal``)."""
        self.trick_no = 0
        self.leader = (dealer + 1) % n
        self.led = -1
        self.win_seat = -1
        self.win_trump = False
        self.win_power = -1
        first = dealer if rules.first_bidder == "dealer" else (dealer + 1) % n
        self.bid_order = _BID_ORDERS[n][first]  # the seats from ``first`` round the table (never changed)
        self.bid_pos = 0
        sides = context.blind_sides
        if sides is None or not (rules.blind_nil or rules.blind_bids) or context.bidless or n == 2:
            # No blind bids this hand (the common case): everyone looks at once. In the two-handed
            # game the draw shows each player every card they take.
            self.blind_ok = [False] * n
            self.looked = [True] * n
        else:
            self.blind_ok = [bool(sides[side]) for side in lay.side_of]
            if rules.dealer_discard:
                self.blind_ok[dealer] = False  # the dealer must look at the cards to discard
            self.looked = [not ok for ok in self.blind_ok]
        if n == 2:
            self.phase = _DRAW
            self.to_act = (dealer + 1) % n
        elif rules.dealer_discard:
            self.phase = _DISCARD
            self.to_act = dealer
        elif not context.bidless:
            # ``_start_bidding`` without its hop.
            self.phase = _BID
            self.to_act = first
        else:
            self._start_bidding()

    @classmethod
    def from_view(cls, v: HandView, hands: list[int]) -> Hand:
        """A hand in the position ``v`` describes, with ``hands`` as every seat's current cards.

        For search: a computer player guesses the hidden cards (consistent with its view) and plays the
        position out. Works in the bidding, exchange and play phases. The result has no undo history. It
        is dealt like any hand (so every field is set as ``__init__`` sets it), then put in the view's
        position: the bids, the tricks, the exchanges still due (``_start_exchanges``, less those made),
        the cards of the trick in progress played again.
        """
        if v.phase not in (_BID, _EXCHANGE, _PLAY):
            raise ValueError(f"cannot search from the {v.phase.value} phase")
        rules = v.rules
        lay = rules.layout
        n = lay.n
        if len(hands) != n or any(h.bit_count() != size for h, size in zip(hands, v.hand_sizes, strict=True)):
            raise ValueError("the guessed hands do not match the hand sizes in the view")
        h = cls(rules, v.dealer, lay.deck, HandContext(blind_sides=v.blind_sides, bidless=v.bidless))
        h.stock = ()
        h.out = 0
        h.hands = list(hands)
        h.dealt = list(hands)
        h.bids = list(v.bids)
        h.tricks_taken = list(v.tricks_taken)
        h.tricks = list(v.tricks)
        h.broken = v.broken
        h.passes = [(a, b, cs or ()) for a, b, cs in v.passes]
        h.trick_no = len(v.tricks)
        # Only the viewer's blind decision is known; everyone else is taken to have looked.
        h.blind_ok = [False] * n
        h.looked = [True] * n
        if v.seat is not None:
            h.blind_ok[v.seat] = v.may_bid_blind
            h.looked[v.seat] = not v.may_bid_blind
        if v.phase is _BID:
            # Team bidding skips silent partners: the position in the bidding order is the seat to act's.
            h.phase = _BID
            h.bid_pos = next((i for i, s in enumerate(h.bid_order) if s == v.to_act), 0)
        elif v.phase is _EXCHANGE:
            h.bid_pos = n
            h._start_exchanges()
            h.exchanges = h.exchanges[len(v.passes):]
        else:
            h.bid_pos = n
            h.phase = _PLAY
        h.to_act = v.to_act if v.to_act is not None else 0
        h.leader = v.current[0][0] if v.current else h.to_act
        h.led, h.win_seat, h.win_trump, h.win_power = -1, -1, False, -1
        if v.phase is _PLAY and v.current:
            for s, c in v.current:
                h.hands[s] |= 1 << c
            h.to_act = v.current[0][0]
            for _, c in v.current:
                h.play_fast(c)
        return h

    def clone(self) -> Hand:
        """An independent copy (the undo history is not copied).

        The lists the hand changes in place (hands, bids, tricks, the trick being played, the action
        log) are copied; the others (``dealt``, ``draw_seen``, ``passes``, ``exchanges``, ``bid_order``,
        ``blind_ok``, ``looked``) are only ever replaced by new lists, so the copy shares them."""
        h = _new_hand(Hand)
        h.rules = self.rules
        h.layout = self.layout
        h.dealer = self.dealer
        h.context = self.context
        h.phase = self.phase
        h.to_act = self.to_act
        h.hands = self.hands[:]
        h.dealt = self.dealt
        h.out = self.out
        h.stock = self.stock
        h.stock_pos = self.stock_pos
        h.draw_seen = self.draw_seen
        h.bids = self.bids[:]
        h.tricks_taken = self.tricks_taken[:]
        h.tricks = self.tricks[:]
        h.current = self.current[:]
        h.broken = self.broken
        h.passes = self.passes
        h.discard = self.discard
        h.actions = self.actions[:]
        h.exchanges = self.exchanges
        h._undo = []
        h.trick_no = self.trick_no
        h.leader = self.leader
        h.led = self.led
        h.win_seat = self.win_seat
        h.win_trump = self.win_trump
        h.win_power = self.win_power
        h.bid_order = self.bid_order
        h.bid_pos = self.bid_pos
        h.blind_ok = self.blind_ok
        h.looked = self.looked
        return h

    # ------------------------------------------------------------------ queries

    @property
    def n(self) -> int:
        """Seats at the table."""
        return self.layout.n

    @property
    def is_over(self) -> bool:
        """True once every trick is played or a misdeal was called."""
        phase = self.phase
        return phase is _DONE or phase is _MISDEALT

    @property
    def cards_to_play(self) -> int:
        """Cards still to be played before the hand's play ends (every seat's, in every trick left; 0 once
        the hand is over). Meaningful from the play's start: before it, the whole play's count."""
        if self.is_over:
            return 0
        return (self.layout.hand_size - self.trick_no) * self.layout.n - len(self.current)

    @property
    def bid_turns_left(self) -> int:
        """Seats still to speak in the bidding, the one to act included (every seat speaks once: a bid, or
        with team bidding an ``Accept``); 0 outside the bidding."""
        return self.layout.n - self.bid_pos if self.phase is _BID else 0

    def partner(self, seat: int) -> int | None:
        """The seat's partner, or ``None`` in solo games."""
        return self.layout.partner[seat]

    def can_see_own_cards(self, seat: int) -> bool:
        """False while a seat that may still bid blind has not looked (or bid)."""
        return self.looked[seat] or self.bids[seat] is not None

    def spade_count(self, seat: int) -> int:
        """Spades (top trumps included) in a seat's hand."""
        return (self.hands[seat] & self.layout.spade_mask).bit_count()

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of ``seat`` (default: the seat to act), in a fixed order.

        Bidding: misdeal, blind nil, blind bids upward, look, nil, bids upward, accept (team bidding).
        Exchanges and discards: card combinations in card-number order. Play: cards in card-number order (one of
        two identical cards). A seat that is not to act can only call a misdeal, when allowed.
        """
        if seat is None:
            seat = self.to_act
        ph = self.phase
        if ph is _PLAY:
            # The hot case for search: one shared ``Play`` value per seat and card, no misdeal to ask about.
            row = _PLAYS[seat]
            return [row[c] for c in self.legal_cards(seat)]
        if ph is _BID and seat == self.to_act and self.looked[seat] and self.rules.fast.plain_bids:
            size = self.layout.hand_size
            return list((_PLAIN_BIDS.get(size) or _plain_bids_row(size))[seat])
        if self.is_over:
            return []
        out: list[Action] = []
        if self.phase is _BID and self._may_call_misdeal(seat):
            out.append(Misdeal(seat))
        if seat != self.to_act:
            return out
        if ph is _BID:
            out.extend(Bid(seat, v) for v in self._legal_bids(seat))
            if not self.looked[seat]:
                blinds = len(out)
                out.insert(blinds, Look(seat))
            if self._partner_gave_total(seat):
                out.append(Accept(seat))
            return out
        choice = self.card_choice(seat)
        if choice is not None:
            kind, k, cards = choice
            return _card_sets(kind, seat, cards, k)
        if ph is _DRAW:
            return [Draw(seat, True), Draw(seat, False)]
        return out

    def legal_cards(self, seat: int) -> list[int]:
        """The cards ``seat`` may play now, in card-number order (one of two identical cards): the cards of
        ``legal_actions`` in the play, which are all plays. Empty when it is not the play or not ``seat``'s
        turn."""
        if self.phase is not _PLAY or seat != self.to_act:
            return []
        return cards_of(self._dedupe(self.legal_play_mask()))

    def card_choice(self, seat: int) -> tuple[type[Pass] | type[Discard], int, list[int]] | None:
        """What ``seat`` must choose now when that is a set of its cards (an exchange's pass, the dealer's
        discard): the action's class, how many cards, and the cards to choose from. ``legal_actions`` is
        every combination of them; a view names the choice instead (up to 715 combinations). ``None``
        when the seat has no such choice to make."""
        if seat != self.to_act:
            return None
        ph = self.phase
        if ph is _EXCHANGE:
            return Pass, self.exchanges[0][2], cards_of(self.hands[seat])
        if ph is _DISCARD:
            return Discard, self.rules.dealer_discard, cards_of(self.hands[seat])
        return None

    def legal_play_mask(self) -> int:
        """The cards the seat to act may play now, as a card set (play phase only)."""
        lay = self.layout
        hand = self.hands[self.to_act]
        if self.current:
            legal = hand & lay.suit_mask[self.led] or hand
            if self.rules.must_beat:
                return self._must_beat(legal)
            return legal
        if self.trick_no == 0:
            r = self.rules
            if r.first_lead == "lowest_club":
                low = self._lowest_club_in_play()
                if low is not None and hand & (both := 1 << low | 1 << low + FACES_PER_PACK):
                    return hand & both  # six-handed: the leader's copy, whichever pack it came from
            if r.first_lead_spade:
                return hand
            return hand & ~lay.spade_mask or hand
        if self.broken or self.rules.spades_lead == "any_time":
            return hand
        return hand & ~lay.spade_mask or hand

    def _must_beat(self, legal: int) -> int:
        # must_beat: of the legal cards, those that would take the lead in the trick, if any.
        lay = self.layout
        beat = 0
        eff = lay.effective_suit
        power = lay.power
        led = self.led
        trump, best = self.win_trump, self.win_power
        for c in cards_of(legal):
            if beats(eff[c], power[c], led, trump, best):
                beat |= 1 << c
        return beat or legal

    def _dedupe(self, mask: int) -> int:
        # Two identical cards (six-handed) are one choice: keep the first pack's copy.
        return mask & ~((mask & _PACK0) << FACES_PER_PACK)

    def _lowest_club_in_play(self) -> int | None:
        live = 0
        for h in self.hands:
            live |= h
        for c in self.layout.lowest_club:
            if live >> c & 1:
                return c
        return None

    def _legal_bids(self, seat: int) -> list[BidValue]:
        return legal_bids(self.rules, seat, self.bids, blind_now=self.blind_ok[seat] and not self.looked[seat],
                          spades=self.spade_count(seat))

    def _partner_gave_total(self, seat: int) -> bool:
        # Team bidding: the partner spoke first and gave the side's total (not a nil).
        if not self.rules.team_bidding:
            return False
        partner = self.layout.partner[seat]
        p_bid = self.bids[partner] if partner is not None else None
        return p_bid is not None and not p_bid.is_nil

    def _may_call_misdeal(self, seat: int) -> bool:
        if not self.rules.misdeal or self.phase is not _BID or self.bids[seat] is not None:
            return False
        if not self.looked[seat]:
            return False
        partner = self.layout.partner[seat]
        if partner is not None and self.bids[partner] is not None:
            return False
        return self.misdeal_hand(seat)

    def misdeal_hand(self, seat: int) -> bool:
        """Whether a seat's cards qualify for a misdeal call: no spades or one spade, no jack, queen
        or king, or seven or more cards of one suit."""
        lay = self.layout
        hand = self.hands[seat]
        if (hand & lay.spade_mask).bit_count() <= 1:
            return True
        if not any(natural_rank(c) in _JQK_RANKS for c in cards_of(hand)):
            return True
        return any((hand & m).bit_count() >= 7 for m in lay.suit_mask)

    # ------------------------------------------------------------------ acting

    def apply(self, action: Action) -> None:
        """Apply a legal action, or raise ``IllegalActionError`` and change nothing."""
        self._check(action)
        self.apply_unchecked(action)

    def apply_unchecked(self, action: Action) -> None:
        """Apply an action known to be legal (taken from ``legal_actions``). Undoable unless sealed."""
        # Plays and bids, the actions searches and rollouts apply by the million, save only what they
        # can change (see ``_restore``); the rare others save the whole state.
        undo = self._undo
        if isinstance(action, Play):
            if undo is not None:
                undo.append((_UNDO_PLAY, self.to_act, self.hands[self.to_act], self.current, len(self.current),
                             self.led, self.win_seat, self.win_power, self.win_trump, self.broken,
                             len(self.tricks), self.trick_no, self.leader, self.phase))
            self.actions.append(action)
            self.play_fast(action.card)
            return
        if isinstance(action, Bid):
            bids = self.bids
            pos = self.bid_pos
            seat = action.seat
            # A bid changes the seat's bid, the turn, and at the last bid the phase, the exchanges due
            # (a new list) and the leader; nothing else.
            if undo is not None:
                undo.append((_UNDO_BID, self.phase, self.to_act, pos, seat, bids[seat], self.exchanges,
                             self.leader))
            self.actions.append(action)
            # ``_next_bidder`` inlined.
            bids[seat] = action.value
            self.bid_pos = pos = pos + 1
            if pos < self.layout.n:
                self.to_act = self.bid_order[pos]
            else:
                self._start_exchanges()
            return
        if undo is not None:
            undo.append(self._snapshot())
        self.actions.append(action)
        if isinstance(action, Look):
            self._look(action.seat)
        elif isinstance(action, Accept):
            self._look(action.seat)
            self._next_bidder()
        elif isinstance(action, Pass):
            self._do_pass(action.seat, action.cards)
        elif isinstance(action, Discard):
            for c in action.cards:
                self.hands[action.seat] &= ~(1 << c)
            self.discard = tuple(action.cards)
            self._start_bidding()
        elif isinstance(action, Misdeal):
            self.phase = _MISDEALT
        elif isinstance(action, Draw):
            self._do_draw(action.seat, action.keep)
        else:  # pragma: no cover - the union is closed
            raise TypeError(f"not an action: {action!r}")

    def _look(self, seat: int) -> None:
        # ``looked`` is replaced, never changed in place, so clones share it.
        looked = self.looked[:]
        looked[seat] = True
        self.looked = looked

    def seal(self) -> None:
        """No action of this hand will be taken back: let its undo history go and keep none from now on (a
        hand's is up to 10 KiB; a ``Game`` seals each hand when it deals the next, and a server's table,
        which only goes forward, seals its hand as it deals it), and what the views kept of its last
        position (``spades.core.view`` builds it again if asked). ``undo`` then refuses; the rest is
        unchanged, and a ``clone`` can be taken back again."""
        self._undo = None
        for memo in ("_own_memo", "_sides_memo", "_tricks_memo"):
            if hasattr(self, memo):
                delattr(self, memo)

    def undo(self) -> None:
        """Take back the last action applied with ``apply`` or ``apply_unchecked``."""
        if self._undo is None:
            raise IllegalActionError("this hand is sealed: its actions are not taken back (take them back on "
                                     "a clone)")
        if not self._undo:
            raise IllegalActionError("there is no action to take back")
        self._restore(self._undo.pop())
        self.actions.pop()

    def play_fast(self, card: int) -> None:
        """Play ``card`` for the seat to act: no check, no undo, no log (the search hot path)."""
        lay = self.layout
        seat = self.to_act
        self.hands[seat] &= ~(1 << card)
        cur = self.current
        eff = lay.effective_suit[card]
        power = lay.power[card]
        if not cur:
            self.led = eff
            self.win_seat = seat
            self.win_power = power
            self.win_trump = eff == SPADES
            if eff == SPADES:
                self.broken = True
        elif eff == SPADES:
            self.broken = True
            # ``trick.beats`` written out (the search's hot path; tests hold it to ``trick_lead`` card by card).
            # ">=": of two identical cards (six-handed), the second played wins.
            if not self.win_trump or power >= self.win_power:
                self.win_seat = seat
                self.win_trump = True
                self.win_power = power
        elif eff == self.led and not self.win_trump and power >= self.win_power:
            self.win_seat = seat
            self.win_power = power
        cur.append(_PAIRS[seat][card])
        n = lay.n
        if len(cur) < n:
            self.to_act = seat + 1 if seat + 1 < n else 0
            return
        w = self.win_seat
        self.tricks.append(_tuple_new(Trick, (self.leader, tuple(cur), w)))
        self.tricks_taken[w] += 1
        self.current = []
        self.trick_no += 1
        self.leader = self.to_act = w
        if self.trick_no == lay.hand_size:
            self.phase = _DONE

    def play_out_random(self, rand: Callable[[], float]) -> None:
        """Play the rest of the hand with uniformly random legal cards (the rollout hot path).

        ``rand`` returns floats in [0, 1) (e.g. ``random.Random(seed).random``). No check, no undo,
        no log; the result equals playing ``play_fast`` with random picks from ``legal_play_mask``.
        """
        if self.phase is not _PLAY:
            raise IllegalActionError("the hand is not in the play phase")
        r = self.rules
        if r.fast.natural_play:
            self._play_out_natural(rand)
            return
        lay = self.layout
        n = lay.n
        eff_of = lay.effective_suit
        power_of = lay.power
        suit_mask = lay.suit_mask
        hands = self.hands
        taken = self.tricks_taken
        tricks = self.tricks
        slow = r.must_beat
        last = lay.hand_size
        while self.trick_no < last:
            if slow or self.trick_no == 0 or self.current:
                # Rules with extra constraints, and a trick already begun: the general path.
                self._play_random_card(rand)
                continue
            # A whole trick from its lead, inlined.
            seat = leader = self.to_act
            hand = hands[seat]
            m = hand if self.broken or r.spades_lead == "any_time" else hand & ~lay.spade_mask or hand
            k = int(rand() * m.bit_count())
            while k:
                m &= m - 1
                k -= 1
            card = (m & -m).bit_length() - 1
            hands[seat] = hand ^ (1 << card)
            led = eff_of[card]
            win_seat, win_power, win_trump = seat, power_of[card], led == SPADES
            broken = self.broken or win_trump
            follow_mask = suit_mask[led]
            cards = [(seat, card)]
            for _ in range(n - 1):
                seat = seat + 1 if seat + 1 < n else 0
                hand = hands[seat]
                m = hand & follow_mask or hand
                k = int(rand() * m.bit_count())
                while k:
                    m &= m - 1
                    k -= 1
                card = (m & -m).bit_length() - 1
                hands[seat] = hand ^ (1 << card)
                e = eff_of[card]
                p = power_of[card]
                # ``trick.beats``, inlined (the rollout hot path; tests hold it to ``trick_lead``).
                if e == SPADES:
                    broken = True
                    if not win_trump or p >= win_power:
                        win_seat, win_power, win_trump = seat, p, True
                elif e == led and not win_trump and p >= win_power:
                    win_seat, win_power = seat, p
                cards.append((seat, card))
            self.broken = broken
            tricks.append(_tuple_new(Trick, (leader, tuple(cards), win_seat)))
            taken[win_seat] += 1
            self.trick_no += 1
            self.leader = self.to_act = win_seat
            self.led, self.win_seat, self.win_power, self.win_trump = led, win_seat, win_power, win_trump
        self.phase = _DONE

    def _play_random_card(self, rand: Callable[[], float]) -> None:
        # One uniformly random legal card by ``play_fast``: the k-th lowest of the legal mask.
        m = self.legal_play_mask()
        k = int(rand() * m.bit_count())
        while k:
            m &= m - 1
            k -= 1
        self.play_fast((m & -m).bit_length() - 1)

    def _play_out_natural(self, rand: Callable[[], float]) -> None:
        # ``play_out_random`` for the natural 52-card deck (cards removed or not), four or fewer seats,
        # no top trumps, no must_beat: card = 13 * suit + rank and spades (suit 3) are trumps. A suit is
        # then a 13-bit window of a hand and _RANKS_OF lists its ranks, so following suit is one table
        # lookup, the k-th lowest card of a hand is found a suit at a time (not a bit at a time), and a
        # card's suit and power are its window and rank (no lookups in the layout's tables). Picks draw
        # ``rand`` exactly as the general path does, so the results are the same card for card.
        # The trick's winner is ``trick.beats`` written out for the natural deck (power = rank, trumps =
        # spades); tests hold every finished trick to ``trick_lead``.
        hands = self.hands
        tricks = self.tricks
        taken = self.tricks_taken
        lay = self.layout
        n = lay.n
        last = lay.hand_size
        r = self.rules
        while self.current and self.trick_no < last:
            self._play_random_card(rand)  # finish a trick already begun
        if self.trick_no == 0 and r.first_lead == "lowest_club":
            for _ in range(n):
                self._play_random_card(rand)  # the opening lead is forced: the general path
        if n == 4:
            left = last - self.trick_no
            h0, h1, h2, h3 = hands
            if h0.bit_count() == left and h1.bit_count() == left and h2.bit_count() == left \
                    and h3.bit_count() == left:
                self._play_out_four(rand)
                return
        followers = _FOLLOWERS[n]
        no_spades = ~lay.spade_mask
        any_time = r.spades_lead == "any_time"
        broken = self.broken
        trick_no = self.trick_no
        seat = self.to_act
        led = self.led
        win_seat, win_power, win_trump = self.win_seat, self.win_power, self.win_trump
        while trick_no < last:
            leader = seat
            hand = hands[seat]
            # The lead: spades only once broken (or by the rules' leave), unless nothing else is held.
            m = hand if (r.first_lead_spade if trick_no == 0 else broken or any_time) else hand & no_spades or hand
            k = int(rand() * m.bit_count())
            base = 0
            ranks = _RANKS_OF[m & 8191]
            while k >= len(ranks):
                k -= len(ranks)
                base += 13
                ranks = _RANKS_OF[m >> base & 8191]
            win_power = ranks[k]
            card = base + win_power
            hands[seat] = hand ^ (1 << card)
            led = base // 13
            led_spades = win_trump = led == SPADES
            broken = broken or win_trump
            win_seat = seat
            cards = [(seat, card)]
            for seat in followers[leader]:
                hand = hands[seat]
                ranks = _RANKS_OF[hand >> base & 8191]
                if ranks:
                    # Following suit: a higher card takes the lead unless the trick was trumped (led
                    # spades are trumps themselves); spades were broken already if they were led.
                    rank = ranks[int(rand() * len(ranks))]
                    card = base + rank
                    if rank >= win_power and (led_spades or not win_trump):
                        win_seat, win_power = seat, rank
                else:
                    # Void in the led suit: any card, the k-th lowest of the hand. Only a spade can win.
                    k = int(rand() * hand.bit_count())
                    b = 0
                    ranks = _RANKS_OF[hand & 8191]
                    while k >= len(ranks):
                        k -= len(ranks)
                        b += 13
                        ranks = _RANKS_OF[hand >> b & 8191]
                    rank = ranks[k]
                    card = b + rank
                    if b == 39:  # a spade: it trumps
                        broken = True
                        if not win_trump or rank >= win_power:
                            win_seat, win_power, win_trump = seat, rank, True
                hands[seat] = hand ^ (1 << card)
                cards.append((seat, card))
            tricks.append(_tuple_new(Trick, (leader, tuple(cards), win_seat)))
            taken[win_seat] += 1
            trick_no += 1
            seat = win_seat
        # Leave every field as ``play_fast`` would have.
        self.broken = broken
        self.trick_no = trick_no
        self.leader = self.to_act = seat
        self.led, self.win_seat, self.win_power, self.win_trump = led, win_seat, win_power, win_trump
        self.current = []
        self.phase = _DONE

    def _play_out_four(self, rand: Callable[[], float]) -> None:
        # ``_play_out_natural`` for four seats from the start of a trick, every seat holding a card per
        # trick left: the standard game's rollouts. Each seat's hand is split into four 13-bit suit
        # windows for the play-out (``S[4 * seat + suit]``, small ints that Python adds and shifts on its
        # fast path), the trick's three followers are written out one after the other (no inner loop, no
        # list of the trick's cards), and a window's ranks and their count come from the two tables
        # (``len`` is a call). Same picks from the same ``rand`` draws as the general path, card for card.
        # The winner is ``trick.beats`` unrolled per seat; tests hold every trick to ``trick_lead``.
        hands = self.hands
        tricks = self.tricks
        taken = self.tricks_taken
        r = self.rules
        ranks_of, count_of, follow, pairs = _RANKS_OF, _COUNT_OF, _FOLLOW4, _PAIRS
        new_trick, trick = _tuple_new, Trick
        any_time = r.spades_lead == "any_time"
        broken = self.broken
        trick_no = self.trick_no
        left = self.layout.hand_size - trick_no  # cards in each hand
        seat = self.to_act
        led, ws, wp, trump = self.led, self.win_seat, self.win_power, self.win_trump
        S: list[int] = []
        for h in hands:
            S += (h & 8191, h >> 13 & 8191, h >> 26 & 8191, h >> 39)
        while left:
            # The lead: the k-th lowest card, spades only once broken (or by the rules' leave) unless
            # nothing else is held; found a window at a time.
            j = 4 * seat
            if broken or any_time if trick_no else r.first_lead_spade:
                k = int(rand() * left)
            else:
                k = left - count_of[S[j + 3]]  # cards that are not spades
                k = int(rand() * (k or left))
            i = j
            m = S[i]
            while k >= count_of[m]:
                k -= count_of[m]
                i += 1
                m = S[i]
            wp = ranks_of[m][k]
            S[i] = m ^ 1 << wp
            led = i - j
            base = 13 * led
            c0 = base + wp
            ws = seat
            spades_led = trump = led == SPADES
            if spades_led:
                broken = True
            s1, j1, p1, s2, j2, p2, s3, j3, p3 = follow[seat]
            # Second hand: follows suit (a higher card takes the lead) or, void, plays the k-th lowest
            # card of the hand (a spade trumps).
            i = j1 + led
            m = S[i]
            if m:
                rank = ranks_of[m][int(rand() * count_of[m])]
                S[i] = m ^ 1 << rank
                c1 = base + rank
                if rank >= wp:
                    ws, wp = s1, rank
            else:
                k = int(rand() * left)
                i = j1
                m = S[i]
                while k >= count_of[m]:
                    k -= count_of[m]
                    i += 1
                    m = S[i]
                rank = ranks_of[m][k]
                S[i] = m ^ 1 << rank
                i -= j1
                c1 = 13 * i + rank
                if i == SPADES:
                    broken = trump = True
                    ws, wp = s1, rank
            # Third and fourth hand: the same, where a trumped trick is taken only by a higher spade
            # (led spades are trumps themselves). ">=" nowhere matters: there are no identical cards.
            i = j2 + led
            m = S[i]
            if m:
                rank = ranks_of[m][int(rand() * count_of[m])]
                S[i] = m ^ 1 << rank
                c2 = base + rank
                if rank >= wp and (spades_led or not trump):
                    ws, wp = s2, rank
            else:
                k = int(rand() * left)
                i = j2
                m = S[i]
                while k >= count_of[m]:
                    k -= count_of[m]
                    i += 1
                    m = S[i]
                rank = ranks_of[m][k]
                S[i] = m ^ 1 << rank
                i -= j2
                c2 = 13 * i + rank
                if i == SPADES:
                    broken = True
                    if not trump or rank >= wp:
                        ws, wp, trump = s2, rank, True
            i = j3 + led
            m = S[i]
            if m:
                rank = ranks_of[m][int(rand() * count_of[m])]
                S[i] = m ^ 1 << rank
                c3 = base + rank
                if rank >= wp and (spades_led or not trump):
                    ws, wp = s3, rank
            else:
                k = int(rand() * left)
                i = j3
                m = S[i]
                while k >= count_of[m]:
                    k -= count_of[m]
                    i += 1
                    m = S[i]
                rank = ranks_of[m][k]
                S[i] = m ^ 1 << rank
                i -= j3
                c3 = 13 * i + rank
                if i == SPADES:
                    broken = True
                    if not trump or rank >= wp:
                        ws, wp, trump = s3, rank, True
            tricks.append(new_trick(trick, (seat, (pairs[seat][c0], p1[c1], p2[c2], p3[c3]), ws)))
            taken[ws] += 1
            trick_no += 1
            left -= 1
            seat = ws
        hands[:] = [S[j] | S[j + 1] << 13 | S[j + 2] << 26 | S[j + 3] << 39 for j in (0, 4, 8, 12)]
        # Leave every field as ``play_fast`` would have.
        self.broken = broken
        self.trick_no = trick_no
        self.leader = self.to_act = seat
        self.led, self.win_seat, self.win_power, self.win_trump = led, ws, wp, trump
        self.current = []
        self.phase = _DONE

    # ------------------------------------------------------------------ phase steps

    def _start_bidding(self) -> None:
        if self.context.bidless:
            self._start_play()
            return
        self.phase = _BID
        self.bid_pos = 0
        self.to_act = self.bid_order[0]

    def _next_bidder(self) -> None:
        # Every seat speaks once, in order (with team bidding a partner may answer a total with Accept).
        self.bid_pos += 1
        if self.bid_pos < self.layout.n:
            self.to_act = self.bid_order[self.bid_pos]
        else:
            self._start_exchanges()

    def _start_exchanges(self) -> None:
        r = self.rules
        ex: list[tuple[int, int, int]] = []
        # Cards change hands only after a nil bid (``BidValue.is_nil``, inlined), so most hands skip the loop.
        nil = False
        if r.partnerships:
            for b in self.bids:
                if b is not None and not b.tricks:
                    nil = True
                    break
        if nil:
            for s in self.bid_order:
                b = self.bids[s]
                partner = self.layout.partner[s]
                if b is None or not b.is_nil or partner is None:
                    continue
                k = r.blind_pass if b.blind else r.nil_pass
                if k:
                    ex.append((s, partner, k))
                    ex.append((partner, s, k))
        self.exchanges = ex
        if ex:
            self.phase = _EXCHANGE
            self.to_act = ex[0][0]
        else:
            self._start_play()

    def _do_pass(self, seat: int, cards: tuple[int, ...]) -> None:
        # ``exchanges`` and ``passes`` are replaced, never changed in place, so clones share them.
        giver, receiver, _ = self.exchanges[0]
        self.exchanges = self.exchanges[1:]
        moved = 0
        for c in cards:
            moved |= 1 << c
        self.hands[giver] &= ~moved
        self.hands[receiver] |= moved
        self.passes = [*self.passes, (giver, receiver, tuple(cards))]
        if self.exchanges:
            self.to_act = self.exchanges[0][0]
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = _PLAY
        n = self.n
        r = self.rules
        if r.first_lead == "dealer":
            lead = self.dealer
        elif r.first_lead == "lowest_club":
            low = self._lowest_club_in_play()
            lead = (self.dealer + 1) % n
            if low is not None:
                # Six-handed: of two holders of the lowest club, the first from the dealer's left leads,
                # whichever copy each holds (records name faces, not packs).
                both = 1 << low | 1 << low + FACES_PER_PACK
                lead = next(s for s in ((self.dealer + 1 + i) % n for i in range(n)) if self.hands[s] & both)
        else:
            lead = (self.dealer + 1) % n
        self.leader = self.to_act = lead

    def _do_draw(self, seat: int, keep: bool) -> None:
        top = self.stock[self.stock_pos]
        nxt = self.stock[self.stock_pos + 1]
        if keep:
            self.hands[seat] |= 1 << top
            self.out |= 1 << nxt  # discarded unseen
        else:
            # ``draw_seen`` is replaced, never changed in place, so clones share it.
            seen = self.draw_seen[:]
            seen[seat] = [*seen[seat], top]
            self.draw_seen = seen
            self.hands[seat] |= 1 << nxt
        self.stock_pos += 2
        self.to_act = 1 - seat
        if self.stock_pos >= 4 * self.layout.hand_size:
            self.dealt = list(self.hands)
            self._start_bidding()

    # ------------------------------------------------------------------ checking

    def _check(self, action: Action) -> None:
        if not isinstance(action, _ACTIONS):
            raise IllegalActionError(f"{action!r} is not an action")
        seat = action.seat
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            raise IllegalActionError(f"there is no seat {seat!r} at a table of {self.n}")
        if self.is_over:
            raise IllegalActionError(f"{action.describe()}: the hand is over")
        if isinstance(action, Misdeal):
            if action in self.legal_actions(seat):
                return
            raise IllegalActionError(f"{action.describe()}: {self._why_no_misdeal(seat)}")
        if seat != self.to_act:
            raise IllegalActionError(f"{action.describe()}: it is seat {self.to_act}'s turn to "
                                     f"{self._phase_verb()}")
        if not isinstance(action, _PHASE_ACTIONS[self.phase]):
            raise IllegalActionError(f"{action.describe()}: now is the time to {self._phase_verb()}")
        if isinstance(action, Play):
            self._check_play(action)
        elif isinstance(action, _BIDDING):
            if action not in self.legal_actions(seat):
                raise IllegalActionError(f"{action.describe()}: {self._why_bid(action)}")
        elif isinstance(action, _CARD_SETS):
            k = self.exchanges[0][2] if isinstance(action, Pass) else self.rules.dealer_discard
            self._check_cards(action.cards, k, self.hands[seat], action)

    def _phase_verb(self) -> str:
        return {_PLAY: "play a card", _BID: "bid", _EXCHANGE: "pass cards to partner",
                _DISCARD: "discard", _DRAW: "draw"}.get(self.phase, "act")

    def _check_cards(self, cards: Iterable[int], k: int, hand: int, action: Action) -> None:
        cards = tuple(cards)
        bad = [c for c in cards if not isinstance(c, int) or not 0 <= c < 2 * FACES_PER_PACK]
        if bad:  # before describing the action, which names each card
            raise IllegalActionError(f"seat {action.seat}: {bad[0]!r} is not a card")
        if len(cards) != k:
            verb = "pass to your partner" if isinstance(action, Pass) else "discard"
            raise IllegalActionError(f"seat {action.seat}: choose exactly {k} card{'s' if k != 1 else ''} to {verb}: "
                                     f"you chose {len(cards)} (exactly {k} different cards are needed)")
        if len(set(cards)) != k:
            raise IllegalActionError(f"{action.describe()}: exactly {k} different cards are needed")
        for c in cards:
            if not isinstance(c, int) or not hand >> c & 1:
                raise IllegalActionError(f"{action.describe()}: the {card_name(c)} is not in that hand")

    def _check_play(self, action: Play) -> None:
        c = action.card
        hand = self.hands[action.seat]
        if not isinstance(c, int) or not 0 <= c < 2 * FACES_PER_PACK or not hand >> c & 1:
            what = card_name(c) if isinstance(c, int) and c >= 0 else repr(c)
            raise IllegalActionError(f"{action.describe()}: the {what} is not in that hand")
        if self.legal_play_mask() >> c & 1:
            return
        lay = self.layout
        cur = self.current
        if cur:
            led = lay.effective_suit[cur[0][1]]
            if hand & lay.suit_mask[led] and lay.effective_suit[c] != led:
                raise IllegalActionError(f"{action.describe()}: you must follow suit ({SUIT_NAMES[led]} "
                                         "were led and you hold some)")
            raise IllegalActionError(f"{action.describe()}: you must beat the best card in the trick "
                                     "when you can (must_beat)")
        if self.trick_no == 0 and self.rules.first_lead == "lowest_club":
            low = self._lowest_club_in_play()
            assert low is not None
            raise IllegalActionError(f"{action.describe()}: the first lead must be the lowest club, "
                                     f"the {card_name(low)}")
        if self.trick_no == 0:
            raise IllegalActionError(f"{action.describe()}: the opening lead cannot be a spade "
                                     "unless you hold nothing but spades")
        raise IllegalActionError(f"{action.describe()}: spades are not broken yet; you may lead a spade "
                                 "only when you hold nothing but spades")

    def _why_bid(self, action: Bid | Look | Accept) -> str:
        seat = action.seat
        r = self.rules
        if isinstance(action, Look):
            return "you can already see your cards"
        if isinstance(action, Accept):
            return "only a partner answering a side's total (team bidding) may leave the bid to it"
        if self._partner_gave_total(seat):
            return "your partner gave the side's total: you may bid nil or leave the bid to them"
        v = action.value
        if not isinstance(v, BidValue) or not isinstance(v.tricks, int):
            return "that is not a bid"
        if v.tricks < 0 or v.tricks > self.layout.hand_size:
            return f"a bid is nil or a number from 1 to {self.layout.hand_size}"
        if v.blind:
            if not self.blind_ok[seat]:
                if not (r.blind_nil if v.is_nil else r.blind_bids):
                    return "these rules do not allow that blind bid"
                return (f"only a side at least {r.blind_behind} points behind may bid blind"
                        if self.context.blind_sides is not None or r.blind_behind else "you may not bid blind now")
            if self.looked[seat]:
                return "you have seen your cards, so you cannot bid blind"
            if not v.is_nil and v.tricks < r.blind_bid_min:
                return f"a blind bid must be at least {r.blind_bid_min}"
        elif not self.looked[seat]:
            return "look at your cards first (or bid blind)"
        if r.forced_bids == "mirror":
            return f"in mirror you bid your spades: {self.spade_count(seat)}"
        if r.forced_bids == "whiz":
            return f"in whiz you bid nil or your spades: {self.spade_count(seat)}"
        if r.forced_bids == "suicide":
            return "in suicide exactly one partner of each side bids nil"
        if r.min_side_bid or r.max_side_bid is not None:
            return (f"a side's contract must be at least {r.min_side_bid}"
                    + (f" and at most {r.max_side_bid}" if r.max_side_bid is not None else ""))
        return "that bid is not allowed here"

    def _why_no_misdeal(self, seat: int) -> str:
        if not self.rules.misdeal:
            return "these rules do not allow misdeal calls"
        if self.phase is not _BID:
            return "a misdeal can only be called during the bidding"
        if self.bids[seat] is not None:
            return "you have already bid"
        partner = self.layout.partner[seat]
        if partner is not None and self.bids[partner] is not None:
            return "your partner has already bid"
        if not self.looked[seat]:
            return "look at your cards first"
        return "your hand does not qualify (no spade or one, no jack, queen or king, or 7+ of a suit)"

    # ------------------------------------------------------------------ undo support

    def _snapshot(self) -> tuple[Any, ...]:
        return (_UNDO_ALL, self.phase, self.to_act, self.hands[:], self.dealt, self.out, self.stock_pos,
                [x[:] for x in self.draw_seen], self.bids[:], self.tricks_taken[:], len(self.tricks),
                self.current[:], self.broken, len(self.passes), self.discard, self.exchanges[:],
                self.trick_no, self.leader, self.led, self.win_seat, self.win_trump, self.win_power, self.bid_pos,
                self.looked[:])

    def _restore(self, s: tuple[Any, ...]) -> None:
        kind = s[0]
        if kind is _UNDO_PLAY:
            # What ``play_fast`` changes: the player's hand, the trick in progress (appended to, or
            # replaced by a fresh list once full), the trick state, and a finished trick with its count.
            (_, seat, held, cur, k, self.led, self.win_seat, self.win_power, self.win_trump, self.broken,
             n_tricks, self.trick_no, self.leader, self.phase) = s
            self.to_act = seat
            self.hands[seat] = held
            del cur[k:]
            self.current = cur
            if len(self.tricks) > n_tricks:
                self.tricks_taken[self.tricks.pop().winner] -= 1
            return
        if kind is _UNDO_BID:
            # What a bid changes, up to the start of the exchanges or of the play.
            _, self.phase, self.to_act, self.bid_pos, seat, self.bids[seat], self.exchanges, self.leader = s
            return
        (_, self.phase, self.to_act, self.hands, self.dealt, self.out, self.stock_pos, self.draw_seen,
         self.bids, self.tricks_taken, n_tricks, self.current, self.broken, n_passes, self.discard,
         self.exchanges, self.trick_no, self.leader, self.led, self.win_seat, self.win_trump, self.win_power,
         self.bid_pos, self.looked) = s
        del self.tricks[n_tricks:]
        if len(self.passes) != n_passes:
            self.passes = self.passes[:n_passes]  # a new list: clones may share the old one


def deal_order(rules: Rules, permutation: Sequence[int]) -> list[int]:
    """The cards in dealing order for a permutation of ``range(len(deck))`` (``spades.shuffle``)."""
    deck = rules.layout.deck
    size = len(deck)
    bits = _INDEX_BITS.get(size) or _INDEX_BITS.setdefault(size, {i: 1 << i for i in range(size)})
    # As in ``Hand()``: ``size`` distinct bits add up to all of them, and any repeat loses one.
    try:
        ok = len(permutation) == size and sum(map(bits.__getitem__, permutation)) == (1 << size) - 1
    except (KeyError, TypeError):
        ok = False
    if not ok:
        raise IllegalActionError(f"a deal needs a permutation of 0..{size - 1}")
    return list(map(deck.__getitem__, permutation))  # (the comprehension's loop, in C)


_INDEX_BITS: dict[int, dict[int, int]] = {}
"""Per deck size: each position's bit, for checking permutations in ``deal_order``."""
