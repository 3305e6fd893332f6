"""What one seat may know: the one place where hidden information is decided.

``view(state, seat)`` returns what the player in ``seat`` would know at a real table: their own
cards (once they may look), every bid, every card played, the cards they passed or received, the
dealer's own discard, the two-handed draw cards they saw, and the scores. ``seat=None`` is a
spectator: only what everyone at the table sees. The server, the record export for a seat and the
computer players all use it; ``HandView.to_dict`` is the JSON a client receives.

``hand_from_view`` turns a view plus a guess of the hidden cards back into a ``Hand`` for search.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from spades.core.actions import Accept, Action, Bid, BidValue, Discard, Draw, Look, Misdeal, Pass, Play
from spades.core.cards import CARD_CODES, CARD_TEXTS, FACES_PER_PACK, by_face, card_code, card_text, cards_of
from spades.core.game import Game, HandResult
from spades.core.hand import Hand, Phase, Trick
from spades.core.rules import Layout, Rules
from spades.core.scoring import SideStatus, side_status
from spades.core.trick import TrickLead, trick_lead


@dataclass(frozen=True)
class HandView:
    """One seat's knowledge of a hand."""

    rules: Rules
    seat: int | None
    """The viewer's seat, ``None`` for a spectator."""
    dealer: int
    phase: Phase
    to_act: int | None
    """The seat to act, ``None`` once the hand is over."""
    hand: tuple[int, ...] | None
    """The viewer's cards, or ``None`` while hidden (spectator, or before a blind decision)."""
    hand_sizes: tuple[int, ...]
    bids: tuple[BidValue | None, ...]
    tricks_taken: tuple[int, ...]
    tricks: tuple[Trick, ...]
    current: tuple[tuple[int, int], ...]
    broken: bool
    passes: tuple[tuple[int, int, tuple[int, ...] | None], ...]
    """Exchanges made: (from, to, cards); the cards only when the viewer gave or received them."""
    discard: tuple[int, ...] | None
    """The dealer's discard: the cards for the dealer, ``None`` for everyone else."""
    discard_count: int
    draw_seen: tuple[int, ...]
    """Two-handed game: cards the viewer saw and discarded."""
    top_card: int | None
    """Two-handed game: the stock's top card, for the seat to draw."""
    stock_left: int
    may_bid_blind: bool
    """The viewer may still bid blind (has not looked)."""
    blind_sides: tuple[bool, ...] | None
    bidless: bool
    legal: tuple[Action, ...]
    """The viewer's legal actions now (empty for spectators)."""
    trick: TrickLead
    """Who is winning the trick in progress, with which card (``NO_LEAD`` before its lead)."""
    sides: tuple[SideStatus, ...]
    """Each side's contract: its bid, the tricks toward it, and whether it is made or set (``side_status``)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form with card texts (what a client receives). Cards of the six-handed game's
        second pack carry the mark: ``AS*`` (``card_code``)."""
        codes = CARD_CODES

        def cards(cs: tuple[int, ...] | None) -> list[str] | None:
            return None if cs is None else [codes[c] for c in cs]
        return {
            "seat": self.seat,
            **_shared_json(self.dealer, self.phase, self.to_act, self.hand_sizes, self.bids, self.tricks_taken,
                           [trick_to_json(t) for t in self.tricks], self.current, self.broken,
                           self.discard_count, self.stock_left,
                           self.bidless, self.trick.seat, [side_to_json(side) for side in self.sides]),
            "hand": cards(self.hand),
            "passes": [{"from": a, "to": b, "cards": cards(cs)} for a, b, cs in self.passes],
            "discard": cards(self.discard),
            "draw_seen": cards(self.draw_seen),
            "top_card": None if self.top_card is None else card_code(self.top_card),
            "may_bid_blind": self.may_bid_blind,
            "legal": legal_to_json(self.legal),
        }


_CARD_PAIRS = tuple(tuple([seat, CARD_CODES[c]] for c in range(2 * FACES_PER_PACK)) for seat in range(6))
"""``[seat, "AS"]``, a card played as the views write it, made once for every seat and card and shared by
every trick and table written since (a trick's four were 290 bytes of its 600): never to be changed."""


def _shared_json(dealer: int, phase: Phase, to_act: int | None, hand_sizes: Iterable[int],
                 bids: Iterable[BidValue | None], tricks_taken: Iterable[int], tricks: list[dict[str, Any]],
                 current: Iterable[tuple[int, int]], broken: bool, discard_count: int, stock_left: int,
                 bidless: bool, trick_winner: int | None, sides: list[dict[str, Any]]) -> dict[str, Any]:
    # The fields every viewer of a hand shares, as a client receives them: written here only, for a
    # view (``HandView.to_dict``) and straight from a hand (``public_fields``).
    pairs = _CARD_PAIRS
    cur = [pairs[s][c] for s, c in current]
    return {
        "dealer": dealer,
        "phase": phase.value,
        "to_act": to_act,
        "hand_sizes": list(hand_sizes),
        "bids": [None if b is None else b.text() for b in bids],
        "tricks_taken": list(tricks_taken),
        "tricks": tricks,
        "current": cur,
        "broken": broken,
        "discard_count": discard_count,
        "stock_left": stock_left,
        "bidless": bidless,
        "trick_winner": trick_winner if cur else None,
        "sides": sides,
    }


@dataclass(frozen=True)
class GameView:
    """One seat's knowledge of a game: the current hand's view and the public score."""

    hand: HandView | None
    totals: tuple[int, ...]
    bags: tuple[int, ...]
    results: tuple[HandResult, ...]
    over: bool
    winner: int | None


def view_hand(hand: Hand, seat: int | None) -> HandView:
    """One seat's view of a hand (``None``: a spectator)."""
    n = hand.n
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"there is no seat {seat} at a table of {n}")
    own, passes, discard, draw_seen, top, may_bid_blind, legal = _own(hand, seat)
    over = hand.is_over
    # Made as the dataclass's ``__init__`` would, without its frozen ``object.__setattr__`` for each of the
    # 24 fields: 0.3 µs instead of 3.1 of the view's 9.4, paid at every computer player's move (issue 19).
    # ``tests/core/test_view_parts.py`` holds it to ``HandView(**fields)``.
    view = object.__new__(HandView)
    view.__dict__.update(
        rules=hand.rules,
        seat=seat,
        dealer=hand.dealer,
        phase=hand.phase,
        to_act=None if over else hand.to_act,
        hand=own,
        hand_sizes=tuple(map(int.bit_count, hand.hands)),
        bids=tuple(hand.bids),
        tricks_taken=tuple(hand.tricks_taken),
        tricks=tuple(hand.tricks),
        current=tuple(hand.current),
        broken=hand.broken,
        passes=passes,
        discard=discard,
        discard_count=len(hand.discard),
        draw_seen=draw_seen,
        top_card=top,
        stock_left=_stock_left(hand),
        may_bid_blind=may_bid_blind,
        blind_sides=hand.context.blind_sides,
        bidless=hand.context.bidless,
        legal=legal,
        trick=trick_lead(hand.layout, hand.current),
        sides=_sides(hand),
    )
    return view


def _stock_left(hand: Hand) -> int:
    return max(0, 4 * hand.layout.hand_size - hand.stock_pos) if hand.n == 2 else 0


def _sides(hand: Hand) -> tuple[SideStatus, ...]:
    """``side_status`` of the hand as it stands, worked out again only when what it reads has changed (a
    bid, a trick taken, the phase): the same answer is asked for at every card of a trick."""
    return _sides_memo(hand)[1]


def _sides_json(hand: Hand) -> list[dict[str, Any]]:
    """``_sides`` as clients receive them (``side_to_json`` of each), kept with them: the list is shared by
    the states built from the same statuses, and must not be changed."""
    memo = _sides_memo(hand)
    if memo[2] is None:
        memo = hand._sides_memo = (memo[0], memo[1], [side_to_json(side) for side in memo[1]])
    return cast("list[dict[str, Any]]", memo[2])


def _sides_memo(hand: Hand) -> tuple[Any, tuple[SideStatus, ...], list[dict[str, Any]] | None]:
    # The hand's statuses with what they read, and their JSON once asked for.
    key = (hand.phase, hand.bid_pos, hand.trick_no, tuple(hand.bids), tuple(hand.tricks_taken))
    memo = getattr(hand, "_sides_memo", None)
    if memo is not None and memo[0] == key:
        return cast("tuple[Any, tuple[SideStatus, ...], list[dict[str, Any]] | None]", memo)
    sides = side_status(hand.rules, None if hand.context.bidless else hand.bids, hand.tricks_taken,
                        hand.layout.hand_size - hand.trick_no, _spoken(hand))
    memo = hand._sides_memo = (key, sides, None)
    return memo


_Own = tuple[tuple[int, ...] | None, tuple[tuple[int, int, tuple[int, ...] | None], ...], tuple[int, ...] | None,
             tuple[int, ...], int | None, bool, tuple[Action, ...]]


def _own(hand: Hand, seat: int | None, actions: bool = True) -> _Own:
    # What depends on who looks (``OWN_FIELDS``): the one place each of these is decided. ``actions``
    # False: no legal actions (``own_fields`` names them from ``_legal_json``).
    own: tuple[int, ...] | None = None
    if seat is not None and hand.can_see_own_cards(seat):
        own = tuple(cards_of(hand.hands[seat]))
    passes = tuple((a, b, cs if sees_exchange(a, b, seat) else None) for a, b, cs in hand.passes)
    top = None
    if hand.phase is Phase.DRAW and seat == hand.to_act:
        top = hand.stock[hand.stock_pos]
    legal: tuple[Action, ...] = ()
    if actions and seat is not None and not hand.is_over:
        legal = tuple(hand.legal_actions(seat))
    discard = hand.discard if seat == hand.dealer and hand.discard else None  # (only the dealer discards)
    draw_seen = tuple(hand.draw_seen[seat]) if seat is not None else ()
    may_bid_blind = (seat is not None and hand.blind_ok[seat] and not hand.looked[seat]
                     and hand.bids[seat] is None)
    return own, passes, discard, draw_seen, top, may_bid_blind, legal


OWN_FIELDS = ("seat", "hand", "passes", "discard", "draw_seen", "top_card", "may_bid_blind", "legal")
"""The fields of ``HandView.to_dict`` that depend on who looks; every other field is the same for every
viewer (a spectator's view has them all)."""


def public_fields(hand: Hand) -> dict[str, Any]:
    """The fields of a view of ``hand`` that every viewer shares (``HandView.to_dict`` without
    ``OWN_FIELDS``): built once per position, however many look."""
    over = hand.is_over
    return _shared_json(hand.dealer, hand.phase, None if over else hand.to_act, [h.bit_count() for h in hand.hands],
                        hand.bids, hand.tricks_taken, _tricks_json(hand), hand.current, hand.broken,
                        len(hand.discard), _stock_left(hand), hand.context.bidless,
                        hand.win_seat, _sides_json(hand))


def _tricks_json(hand: Hand) -> list[dict[str, Any]]:
    """The hand's finished tricks as clients receive them (``trick_to_json`` of each), the list built again
    only when a trick was added or taken back, and then keeping the dicts of the tricks it still starts
    with: each trick is written once, and the list is the same at every card of a trick. The list is
    shared by the states built from the same tricks (``spades.server.protocol.Shown`` keeps it and
    compares it by identity), and must not be changed."""
    tricks = hand.tricks
    memo = getattr(hand, "_tricks_memo", None)
    if memo is None:
        out = [trick_to_json(t) for t in tricks]
    else:
        seen, written = memo
        if len(seen) == len(tricks) and (not tricks or seen[-1] is tricks[-1]):  # the same trick as before
            return cast("list[dict[str, Any]]", written)
        same = 0  # the tricks this list still starts with (the same, or equal when taken back and restored)
        for a, b in zip(seen, tricks, strict=False):
            if a is not b and a != b:
                break
            same += 1
        out = [*written[:same], *(trick_to_json(t) for t in tricks[same:])]
    hand._tricks_memo = (tuple(tricks), out)
    return out


def own_fields(hand: Hand, seat: int | None) -> dict[str, Any]:
    """The fields of ``seat``'s view that depend on who looks (``OWN_FIELDS``), as ``HandView.to_dict``
    writes them: ``{**public_fields(hand), **own_fields(hand, seat)} == view_hand(hand, seat).to_dict()``."""
    if seat is not None and not 0 <= seat < hand.n:
        raise ValueError(f"there is no seat {seat} at a table of {hand.n}")
    if hand.phase is not Phase.PLAY or seat == hand.to_act:
        return _own_json(hand, seat)
    # In play, a seat not to act has no legal action, and what it sees of its own changes only with its
    # cards: the fields are built again only when something they read has changed. The dict is shared
    # by the calls that read the same position, and must not be changed.
    key: tuple[Any, ...] = (tuple(hand.passes),)  # all a spectator's own fields read
    if seat is not None:
        key += (hand.hands[seat], hand.looked[seat], hand.bids[seat], hand.blind_ok[seat], tuple(hand.discard),
                tuple(hand.draw_seen[seat]))
    memo = getattr(hand, "_own_memo", None) or {}
    got = memo.get(seat)
    if got is not None and got[0] == key:
        return cast("dict[str, Any]", got[1])
    fields = _own_json(hand, seat)
    hand._own_memo = {**memo, seat: (key, fields)}  # a new dict: a copy of the hand may share the old one
    return fields


def _own_json(hand: Hand, seat: int | None) -> dict[str, Any]:
    own, passes, discard, draw_seen, top, may_bid_blind, _ = _own(hand, seat, actions=False)
    codes = CARD_CODES
    return {
        "seat": seat,
        "hand": None if own is None else [codes[c] for c in own],
        "passes": [{"from": a, "to": b, "cards": None if cs is None else [codes[c] for c in cs]}
                   for a, b, cs in passes],
        "discard": None if discard is None else [codes[c] for c in discard],
        "draw_seen": [codes[c] for c in draw_seen],
        "top_card": None if top is None else card_code(top),
        "may_bid_blind": may_bid_blind,
        "legal": _legal_json(hand, seat),
    }


def _legal_json(hand: Hand, seat: int | None) -> list[dict[str, Any]]:
    # ``legal_to_json`` of the seat's legal actions, with a choice of cards named from ``Hand.card_choice``
    # instead of from every combination of them (``legal_actions`` makes up to 715 actions for it).
    if seat is None or hand.is_over:
        return []
    if hand.phase is Phase.PLAY:  # (only plays: ``legal_to_json`` of them, without the ``Play`` values)
        codes = CARD_CODES
        return [{"seat": seat, "play": codes[c]} for c in hand.legal_cards(seat)]
    choice = hand.card_choice(seat)
    if choice is None:
        return legal_to_json(hand.legal_actions(seat))
    kind, k, cards = choice
    if k > len(cards):
        return []  # (no combination at all)
    return [_choice_json(seat, kind, k, cards if k else ())]


Marks = tuple[int | None, int | None, bool, list[dict[str, Any]]]
"""The shared view fields a card played changes beyond what the card itself says (``act_on``) and its
trick's close (``close_trick``): the view's ``to_act``, ``trick_winner``, ``broken`` and ``sides`` (the
contracts' statuses as clients receive them: a list shared with the hand, never to be changed)."""


def played_change(hand: Hand, before: Marks) -> tuple[dict[str, Any], Marks] | None:
    """What changed in the shared view fields when a card was just played and the hand's play goes on,
    beyond ``act_on`` of the card and, when the card closed its trick, ``close_trick``: ``won`` (the
    trick's winner) for a trick closed, then those of ``to_act``, ``broken``, ``trick_winner`` (while the
    trick is open) and ``sides`` (once it closed) that differ from ``before`` (the ``Marks`` of the view
    before the card), in the view's order; with the marks after the card. ``None`` when the play is over
    (the hand's last card): then the views are compared (``change_of``).

    The engine's own answer, worked out from the hand alone: neither view is built, and while a trick is
    open the statuses are not asked for (what they read, the bids and the tricks taken, changes only
    when a trick closes). It is exactly what comparing the two views gives
    (``spades.server.protocol.event_payloads``; ``tests/server/test_play_payloads.py`` holds the two to
    each other in every preset), and a table sends it for every card but a hand's last
    (``spades.server.protocol.play_payloads``, issue 19)."""
    if hand.phase is not Phase.PLAY:
        return None
    to_act, broken, open_trick = hand.to_act, hand.broken, bool(hand.current)
    out: dict[str, Any] = {} if open_trick else {"won": hand.tricks[-1].winner}
    if to_act != before[0]:
        out["to_act"] = to_act
    if broken != before[2]:
        out["broken"] = broken
    if open_trick:
        winner = hand.win_seat
        if winner != before[1]:
            out["trick_winner"] = winner
        return out, (to_act, winner, broken, before[3])
    sides = _sides_json(hand)
    if sides is not before[3]:
        out.update(change_of({"sides": before[3]}, {"sides": sides}))
    return out, (to_act, None, broken, sides)


def played_own_change(hand: Hand, viewer: int | None, player: int) -> dict[str, Any]:
    """What changed in ``viewer``'s own view fields when ``player`` played a card and the hand's play goes
    on (beyond ``act_on``, which takes the card from the player's hand): the seat to act now gets its
    plays, the player (when not to act again, as a trick's winner) has no legal action left, and nobody
    else's own fields change. What comparing the two views' own fields gives (``played_change``)."""
    if viewer is None:
        return {}
    if viewer == hand.to_act:
        codes = CARD_CODES
        return {"legal_plays": [codes[c] for c in hand.legal_cards(viewer)]}
    if viewer == player:
        return {"legal": []}
    return {}


def bid_change(hand: Hand, before: Marks, player: int) -> tuple[dict[str, Any], Marks] | None:
    """What changed in the shared view fields when ``player`` just bid, beyond ``act_on`` of the bid (which
    writes it in ``bids``): ``to_act`` and ``sides`` where they differ from ``before`` (the ``Marks`` of the
    view before the bid), in the view's order, and ``phase`` first when it was the bidding's last bid (the
    cards change hands next, or the play begins); with the marks after the bid. ``None`` (the views are
    compared instead, ``change_of``) unless the bids are plain (no team bidding, side limits, forced bids
    or misdeal calls: ``FastPaths.plain_bids``). A blind bid is one too: it shows the bidder its cards
    (``bid_own_change``).

    The engine's answer for a bid as ``played_change`` is for a card: exactly what comparing the two views
    gives (``tests/server/test_play_payloads.py`` holds the two to each other in every preset)."""
    if not hand.rules.fast.plain_bids:
        return None
    ph = hand.phase
    out: dict[str, Any] = {}
    to_act = hand.to_act
    if ph is Phase.BID:
        if to_act == player:
            return None
    elif hand.trick_no == 0 and not hand.current and not hand.passes and (ph is Phase.PLAY or ph is Phase.EXCHANGE):
        out["phase"] = ph.value  # the bidding's last bid: the exchange or the play begins
    else:
        return None
    if to_act != before[0]:
        out["to_act"] = to_act
    sides = _sides_json(hand)
    if sides is not before[3]:
        out.update(change_of({"sides": before[3]}, {"sides": sides}))
    return out, (to_act, before[1], before[2], sides)


def bid_own_change(hand: Hand, viewer: int | None, player: int) -> dict[str, Any]:
    """What changed in ``viewer``'s own view fields when ``player`` bid and ``bid_change`` answered. A blind
    bid shows the bidder its cards (``hand``) and ends its blind choice (``may_bid_blind``). The seat to act
    now gets its legal actions (no other seat has one in plain bidding), the bidder has none left unless it
    acts next (when the bidding's last bid makes it the first to pass cards, or to lead), and nobody else's
    own fields change. After the bidding's last bid, when the play begins: the leader's plays, as after a
    card (``played_own_change``)."""
    if viewer is None:
        return {}
    out: dict[str, Any] = {}
    if viewer == player and not hand.looked[player]:  # a blind bid: the bidder sees its cards now
        out["hand"] = _cards_json(hand, player)
        out["may_bid_blind"] = False
    if hand.phase is Phase.PLAY:
        out.update(played_own_change(hand, viewer, player))
    elif viewer == hand.to_act:
        after = _legal_json(hand, viewer)
        if viewer == player:
            # The bidder passes first: its bids (nil and every number, two at least) give way to the
            # pass, a list that neither starts with them nor is as long, so the change is the new list.
            out["legal"] = after
        else:
            out.update(change_of({"seat": viewer, "legal": []}, {"seat": viewer, "legal": after}))
    elif viewer == player:
        out["legal"] = []
    return out


def looked_change(hand: Hand, before: Marks, player: int) -> tuple[dict[str, Any], Marks] | None:
    """What changed in the shared view fields when ``player``, to bid, looked at its cards in plain bidding
    (``FastPaths.plain_bids``): nothing (the seat to act, the bids and the contracts stay), with the marks
    as they were. ``None`` otherwise (the views are compared instead). Exactly what comparing the two views
    gives (``tests/server/test_play_payloads.py``)."""
    if hand.phase is not Phase.BID or not hand.rules.fast.plain_bids or hand.to_act != player:
        return None
    return {}, before


def looked_own_change(hand: Hand, viewer: int | None, player: int) -> dict[str, Any]:
    """What changed in ``viewer``'s own view fields when ``player`` looked and ``looked_change`` answered: the
    player sees its cards, may no longer bid blind, and may bid nil or any number (a list of bids only,
    written ``legal_bids``: before, it held the look and the blind bids); nobody else's change."""
    if viewer is None or viewer != player:
        return {}
    legal = _legal_json(hand, player)
    return {"hand": _cards_json(hand, player), "may_bid_blind": False, "legal_bids": [a["bid"] for a in legal]}


def passed_change(hand: Hand, before: Marks, player: int) -> tuple[dict[str, Any], Marks] | None:
    """What changed in the shared view fields when ``player`` just passed cards to a partner (the exchange
    after a nil): ``phase`` first when it was the last pass and the play begins, ``to_act`` when another
    seat passes (or leads) next, the two seats' ``hand_sizes`` (the cards went from one to the other at
    once), and ``sides`` where they differ from ``before``; with the marks after it. ``None`` when the last
    action was not that pass. Exactly what comparing the two views gives
    (``tests/server/test_play_payloads.py`` holds the two to each other in every preset)."""
    ph = hand.phase
    if not hand.passes or hand.passes[-1][0] != player or (
            ph is not Phase.EXCHANGE and (ph is not Phase.PLAY or hand.current or hand.trick_no)):
        return None
    giver, receiver, cards = hand.passes[-1]
    out: dict[str, Any] = {}
    if ph is Phase.PLAY:
        out["phase"] = ph.value
    to_act = hand.to_act
    if to_act != before[0]:
        out["to_act"] = to_act
    sizes = [h.bit_count() for h in hand.hands]
    was = sizes[:]
    was[giver] += len(cards)
    was[receiver] -= len(cards)
    out.update(change_of({"hand_sizes": was}, {"hand_sizes": sizes}))
    sides = _sides_json(hand)
    if sides is not before[3]:
        out.update(change_of({"sides": before[3]}, {"sides": sides}))
    return out, (to_act, before[1], before[2], sides)


def passed_own_change(hand: Hand, viewer: int | None, player: int) -> dict[str, Any]:
    """What changed in ``viewer``'s own view fields when ``player`` passed cards and ``passed_change``
    answered: the pass is added to everyone's ``passes`` (its cards only for the two partners,
    ``sees_exchange``), the giver's and the receiver's ``hand`` change, the giver's choice ends (or is made
    again from its cards now, when it passes next), and the seat to act next gets its choice (or its plays,
    when the play begins)."""
    giver, receiver, cards = hand.passes[-1]
    seen = sees_exchange(giver, receiver, viewer)
    codes = CARD_CODES
    out: dict[str, Any] = {}
    moved = 0
    for c in cards:
        moved |= 1 << c
    held: list[int] = []
    if seen:
        assert viewer is not None
        now = hand.hands[viewer]
        held = cards_of(now | moved if viewer == giver else now & ~moved)  # the viewer's cards before the pass
        out.update(change_of({"hand": [codes[c] for c in held]}, {"hand": _cards_json(hand, viewer)}))
    out["+passes"] = [{"from": giver, "to": receiver, "cards": [codes[c] for c in cards] if seen else None}]
    if viewer is not None and (viewer == giver or viewer == hand.to_act):
        had = [_choice_json(giver, Pass, len(cards), held)] if viewer == giver else []
        out.update(change_of({"seat": viewer, "legal": had}, {"seat": viewer, "legal": _legal_json(hand, viewer)}))
    return out


def _cards_json(hand: Hand, seat: int) -> list[str]:
    # A seat's cards as its view writes them (``_own_json``'s ``hand``).
    codes = CARD_CODES
    return [codes[c] for c in cards_of(hand.hands[seat])]


def next_change_known(hand: Hand) -> bool:
    """Whether the change of the hand's next action will be the engine's (``played_change``, ``bid_change``,
    ``looked_change``, ``passed_change``) rather than a comparison of two views, so that no view before it
    needs keeping: in the play, unless the next card is the hand's last; in plain bidding (a look, a bid,
    blind or not, the last one too); in the exchange after a nil (every pass, the last one too)."""
    ph = hand.phase
    if ph is Phase.PLAY:
        return hand.cards_to_play > 1
    if ph is Phase.EXCHANGE:
        return True
    return ph is Phase.BID and hand.rules.fast.plain_bids


def change_of(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from ``before`` to ``after`` (two states a client is shown, or two views), so that
    ``apply_change(before, change_of(before, after)) == after``. Pure: values are compared, no rule is
    worked out. A field whose value is the same is left out; otherwise (``docs/protocol.md``, Changes):

    - a dict that was a dict: its own change (``{"view": {"to_act": 2}}``);
    - a list that grew at its end: ``"+name"``, the new entries (``{"+tricks": [{...}]}``);
    - a list of the same length with at most half its entries changed, or only dict entries that kept
      their keys: ``"@name"``, those entries by index, a dict entry as its change (``{"@sides": {"1":
      {"tricks": 5, "needed": 2}}}``);
    - ``legal`` made only of the viewer's plays: ``"legal_plays"``, their cards (``["2D", "KD"]``);
    - anything else: the new value."""
    out: dict[str, Any] = {}
    if "won" in before:
        raise ValueError("a trick closed is a change, not a field")
    for key, value in after.items():
        if key not in before:
            out[key] = value
            continue
        old = before[key]
        if old == value and type(old) is type(value):
            continue
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = change_of(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            kind = _one_kind(value, after.get("seat")) if key == "legal" else None
            if kind is not None:
                out[f"legal_{kind}s"] = [a[kind] for a in value]
            elif len(value) > len(old) and value[:len(old)] == old:
                out["+" + key] = value[len(old):]
            elif len(value) == len(old) and len(old) > 1:
                changed = [i for i, (x, y) in enumerate(zip(old, value, strict=True))
                           if x != y or type(x) is not type(y)]
                nested = all(isinstance(old[i], dict) and isinstance(value[i], dict)
                             and old[i].keys() == value[i].keys() for i in changed)
                if nested or (len(changed) * 2 <= len(old)
                              and not any(isinstance(old[i], dict) and isinstance(value[i], dict) for i in changed)):
                    out["@" + key] = {str(i): change_of(old[i], value[i]) if nested else value[i] for i in changed}
                else:
                    out[key] = value
            else:
                out[key] = value
        else:
            out[key] = value
    for key in before:
        if key not in after:
            raise ValueError(f"a change cannot remove the field {key!r}")
    return out


LISTED_KINDS = ("play", "bid")
"""Legal actions a change lists by value alone when they are all of one of these kinds (``legal_plays``,
``legal_bids``)."""


def _one_kind(legal: list[Any], seat: Any) -> str | None:
    # The kind all of a viewer's legal actions share, when they are plays or bids of its own seat only.
    if not legal or seat is None:
        return None
    for kind in LISTED_KINDS:
        if all(len(a) == 2 and a.get("seat") == seat and kind in a for a in legal):
            return kind
    return None


def apply_change(state: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """A state (or a view) with a change applied (``change_of``): a new dict, ``state`` is left as it
    was. The browser's twin is ``applyChange`` in ``js/events.js``."""
    out = dict(state) if "won" not in change else close_trick(state, change["won"])
    for key, value in change.items():
        if key == "won":
            continue
        if key[:1] == "+":
            out[key[1:]] = [*out[key[1:]], *value]
        elif key[:1] == "@":
            entries = list(out[key[1:]])
            for index, entry in value.items():
                i = int(index)
                old = entries[i]
                entries[i] = apply_change(old, entry) if isinstance(old, dict) and isinstance(entry, dict) else entry
            out[key[1:]] = entries
        elif key in _LISTED:
            kind = _LISTED[key]
            out["legal"] = [{"seat": out["seat"], kind: v} for v in value]
        elif isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = apply_change(out[key], value)
        else:
            out[key] = value
    return out


_LISTED = {f"legal_{kind}s": kind for kind in LISTED_KINDS}


def act_on(view: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    """A view (or part of one) after an action as every client sees it (``action_to_dict``), as far as
    the action itself says: a bid is written in ``bids`` (a number as its digits: ``{"bid": 4}`` is
    ``"4"``); a card played joins ``current``, the seat holds one card fewer, and the player's own hand
    loses it. Nothing else (whose turn, who wins the trick, whether it closed, a contract's status) is
    worked out: that comes in the change. A new dict; fields the part has not are left alone; other
    actions change nothing here. The browser's twin is ``actOn`` in ``js/events.js``."""
    if "play" in action:
        return play_on(view, action["seat"], action["play"])
    if "bid" in action and "bids" in view:
        bid = action["bid"]
        bids = list(view["bids"])
        bids[action["seat"]] = str(bid) if isinstance(bid, int) else bid
        return {**view, "bids": bids}
    return view


def play_on(view: dict[str, Any], seat: int, card: str) -> dict[str, Any]:
    """A view (or part of one) after ``seat`` played ``card``: ``act_on`` for a card."""
    out = dict(view)
    if "current" in out:
        out["current"] = [*out["current"], [seat, card]]
    if "hand_sizes" in out:
        sizes = list(out["hand_sizes"])
        sizes[seat] -= 1
        out["hand_sizes"] = sizes
    if out.get("seat") == seat and out.get("hand") is not None and card in out["hand"]:
        held = list(out["hand"])
        held.remove(card)
        out["hand"] = held
    return out


def close_trick(view: dict[str, Any], winner: int) -> dict[str, Any]:
    """A view after the trick on the table closed, won by ``winner`` (the engine's, from the change's
    ``won``): the cards of ``current`` become the last finished trick, the winner's count goes up, and
    the table is empty (so ``trick_winner``, the winner of the cards on the table, is ``null``). A new
    dict. The browser's twin is ``closeTrick`` in ``js/events.js``."""
    out = dict(view)
    current = out["current"]
    out["tricks"] = [*out["tricks"], {"leader": current[0][0], "cards": current, "winner": winner}]
    taken = list(out["tricks_taken"])
    taken[winner] += 1
    out["tricks_taken"] = taken
    out["current"] = []
    out["trick_winner"] = None
    return out


def closed_trick(before: dict[str, Any], after: dict[str, Any]) -> int | None:
    """The winner of the trick ``before`` shows complete on the table when ``after`` has it as its next
    finished trick (what ``close_trick`` does then gives ``after``'s tricks); ``None`` otherwise."""
    current = before.get("current")
    done = after.get("tricks")
    if not current or done is None or len(current) != len(before.get("hand_sizes") or ()):
        return None
    k = len(before["tricks"])
    if len(done) <= k or done[k]["cards"] != current or done[k]["leader"] != current[0][0]:
        return None
    return int(done[k]["winner"])


def apply_event(state: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any] | None:
    """The state a client shows after one event message (``docs/protocol.md``, protocol version 2): its
    whole ``state`` when it carries one; otherwise its action (a message without ``kind`` is an action,
    its fields at the top level: ``act_on`` reads ``seat``, ``play`` and ``bid`` there) and then its
    ``change`` (``apply_change``); when the change moves the view's ``to_act`` and says nothing of
    ``turn``, ``turn.seat`` follows it (the two are always the same seat). ``state`` must be the one
    after the previous event."""
    if "state" in message:
        return message["state"]  # type: ignore[no-any-return]
    if state is None:
        return None
    if "kind" not in message and state.get("view") is not None:
        state = {**state, "view": act_on(state["view"], message)}
    change = message.get("change")
    if change is None:
        return state
    state = apply_change(state, change)
    view = state.get("view")
    if "turn" not in change and isinstance(view, dict) and "to_act" in change.get("view", {}):
        state["turn"] = {**state["turn"], "seat": view["to_act"]}  # (``turn.seat`` is the view's ``to_act``)
    return state


def _spoken(hand: Hand) -> list[bool]:
    # Whose turn to bid has passed (a team-bidding partner who left the bid to the other has no bid).
    n = hand.n
    if hand.phase in (Phase.BID, Phase.MISDEALT):
        spoken = [False] * n
        for s in hand.bid_order[:hand.bid_pos]:
            spoken[s] = True
        return spoken
    return [hand.phase not in (Phase.DRAW, Phase.DISCARD)] * n


def side_to_json(side: SideStatus) -> dict[str, Any]:
    """A side's contract status as clients receive it (``HandView.to_dict``'s ``sides``)."""
    return {"seats": list(side.seats), "contract": side.contract, "tricks": side.tricks, "needed": side.needed,
            "status": side.status,
            "nils": [{"seat": x.seat, "bid": "blind nil" if x.blind else "nil", "tricks": x.tricks,
                      "status": x.status} for x in side.nils]}


def view(state: Game | Hand, seat: int | None) -> GameView | HandView:
    """What ``seat`` may know of a game or a hand (``None``: a spectator)."""
    if isinstance(state, Hand):
        return view_hand(state, seat)
    return view_game(state, seat)


def view_game(game: Game, seat: int | None) -> GameView:
    """One seat's view of a game."""
    return GameView(
        hand=view_hand(game.hand, seat) if game.hands else None,
        totals=tuple(game.totals),
        bags=tuple(game.bags),
        results=tuple(game.results),
        over=game.over,
        winner=game.winner,
    )


def action_to_dict(action: Action, marked: bool = False) -> dict[str, Any]:
    """An action in the record's shape: ``{"seat": 1, "bid": "nil"}``, ``{"seat": 0, "play": "4C"}``.

    Records name faces; with ``marked`` (what clients receive) a second-pack card is written ``4C*``."""
    if isinstance(action, Play):
        return {"seat": action.seat, "play": (CARD_CODES if marked else CARD_TEXTS)[action.card]}
    text = card_code if marked else card_text
    if isinstance(action, Bid):
        v = action.value
        return {"seat": action.seat, "bid": v.tricks if not v.blind and v.tricks else v.text()}
    if isinstance(action, Pass):
        return {"seat": action.seat, "pass": [text(c) for c in sorted(action.cards, key=by_face)]}
    if isinstance(action, Discard):
        return {"seat": action.seat, "discard": [text(c) for c in sorted(action.cards, key=by_face)]}
    if isinstance(action, Misdeal):
        return {"seat": action.seat, "misdeal": True}
    if isinstance(action, Draw):
        return {"seat": action.seat, "draw": "keep" if action.keep else "discard"}
    if isinstance(action, Look):
        return {"seat": action.seat, "look": True}
    if isinstance(action, Accept):
        return {"seat": action.seat, "accept": True}
    raise TypeError(f"not an action: {action!r}")


def sees_exchange(giver: int, receiver: int, viewer: int | None) -> bool:
    """Whether ``viewer`` may see the cards of an exchange: only the two partners who gave and received them."""
    return viewer is not None and viewer in (giver, receiver)


def sees_action(action: Action, viewer: int | None, layout: Layout) -> bool:
    """Whether ``viewer`` (``None``: a spectator) may see an action in full: passed cards only the two
    partners, a discard only the dealer who made it, a two-handed draw choice only the drawer; the rest
    everyone."""
    if isinstance(action, Pass):
        partner = layout.partner[action.seat]
        return sees_exchange(action.seat, action.seat if partner is None else partner, viewer)
    if isinstance(action, _SEEN_BY_ACTOR):
        return viewer == action.seat
    return True


_SEEN_BY_ACTOR = (Discard, Draw)
"""(A tuple made once: ``Discard | Draw`` would build a union at each call, for each viewer of each event.)"""


def action_seen(action: Action, viewer: int | None, layout: Layout) -> dict[str, Any]:
    """An action as ``viewer`` may see it, in the clients' shape (``action_to_dict`` with the second-pack
    mark): in full when ``sees_action``, else only how many cards were passed or discarded, or that a
    draw was made."""
    if sees_action(action, viewer, layout):
        return action_to_dict(action, marked=True)
    if isinstance(action, Pass):
        return {"seat": action.seat, "pass": len(action.cards)}
    if isinstance(action, Discard):
        return {"seat": action.seat, "discard": len(action.cards)}
    return {"seat": action.seat, "draw": True}


def trick_to_json(trick: Trick) -> dict[str, Any]:
    """A finished trick as JSON (``{"leader", "cards": [[seat, "AS"], ...], "winner"}``). Finished tricks
    are public and never change: ``public_fields`` converts each once per hand and keeps the list on the
    hand (``_tricks_json``), so no cache of every trick seen is kept here (one of 16,384 tricks' dicts was
    over a quarter of what a table grew by: benchmarks/README.md, sixth session)."""
    pairs = _CARD_PAIRS
    return {"leader": trick.leader, "cards": [pairs[s][c] for s, c in trick.cards], "winner": trick.winner}


def legal_to_json(legal: tuple[Action, ...] | list[Action]) -> list[dict[str, Any]]:
    """Legal actions as a client receives them: each in the record's shape, except that the card
    combinations of an exchange or a discard (up to 715 of them) become one entry saying what to choose,
    ``{"seat": 1, "pass": {"choose": 4, "from": ["2C", ...]}}``: send ``{"pass": [...]}`` with exactly
    ``choose`` different cards of ``from``."""
    picks = [a for a in legal if isinstance(a, Pass | Discard)]
    out = [action_to_dict(a, marked=True) for a in legal if not isinstance(a, Pass | Discard)]
    if picks:
        first = picks[0]
        out.append(_choice_json(first.seat, type(first), len(first.cards), {c for a in picks for c in a.cards}))
    return out


def _choice_json(seat: int, kind: type[Pass] | type[Discard], k: int, cards: Iterable[int]) -> dict[str, Any]:
    # A choice of ``k`` of ``cards`` as one legal entry (``legal_to_json``).
    return {"seat": seat, "pass" if kind is Pass else "discard": {
        "choose": k, "from": [card_code(c) for c in sorted(cards, key=by_face)]}}


def hand_from_view(v: HandView, hands: list[int]) -> Hand:
    """``Hand.from_view``: a ``Hand`` in the position ``v`` describes, with ``hands`` as every seat's cards."""
    return Hand.from_view(v, hands)
