"""What one seat may know: the one place where hidden information is decided.

``view(state, seat)`` returns what the player in ``seat`` would know at a real table: their own
cards (once they may look), every bid, every card played, the cards they passed or received, the
dealer's own discard, the two-handed draw cards they saw, and the scores. ``seat=None`` is a
spectator: only what everyone at the table sees. The server, the record export for a seat and the
computer players all use it; ``HandView.to_dict`` is the JSON a client receives.

``hand_from_view`` turns a view plus a guess of the hidden cards back into a ``Hand`` for search.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from spades.core.actions import Accept, Action, Bid, BidValue, Discard, Draw, Look, Misdeal, Pass, Play
from spades.core.cards import CARD_CODES, FACES_PER_PACK, card_code, card_text, cards_of
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
            "dealer": self.dealer,
            "phase": self.phase.value,
            "to_act": self.to_act,
            "hand": cards(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "bids": [None if b is None else b.text() for b in self.bids],
            "tricks_taken": list(self.tricks_taken),
            "tricks": [trick_to_json(t) for t in self.tricks],
            "current": [[s, codes[c]] for s, c in self.current],
            "broken": self.broken,
            "passes": [{"from": a, "to": b, "cards": cards(cs)} for a, b, cs in self.passes],
            "discard": cards(self.discard),
            "discard_count": self.discard_count,
            "draw_seen": cards(self.draw_seen),
            "top_card": None if self.top_card is None else card_code(self.top_card),
            "stock_left": self.stock_left,
            "may_bid_blind": self.may_bid_blind,
            "bidless": self.bidless,
            "legal": legal_to_json(self.legal),
            "trick_winner": self.trick.seat if self.current else None,
            "sides": [side_to_json(side) for side in self.sides],
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
    own: tuple[int, ...] | None = None
    if seat is not None and hand.can_see_own_cards(seat):
        own = tuple(cards_of(hand.hands[seat]))
    passes = tuple((a, b, cs if sees_exchange(a, b, seat) else None) for a, b, cs in hand.passes)
    over = hand.is_over
    top = None
    if hand.phase is Phase.DRAW and seat == hand.to_act:
        top = hand.stock[hand.stock_pos]
    legal: tuple[Action, ...] = ()
    if seat is not None and not over:
        legal = tuple(hand.legal_actions(seat))
    return HandView(
        rules=hand.rules,
        seat=seat,
        dealer=hand.dealer,
        phase=hand.phase,
        to_act=None if over else hand.to_act,
        hand=own,
        hand_sizes=tuple(h.bit_count() for h in hand.hands),
        bids=tuple(hand.bids),
        tricks_taken=tuple(hand.tricks_taken),
        tricks=tuple(hand.tricks),
        current=tuple(hand.current),
        broken=hand.broken,
        passes=passes,
        discard=hand.discard if seat == hand.dealer and hand.discard else None,  # (only the dealer discards)
        discard_count=len(hand.discard),
        draw_seen=tuple(hand.draw_seen[seat]) if seat is not None else (),
        top_card=top,
        stock_left=max(0, 4 * hand.layout.hand_size - hand.stock_pos) if n == 2 else 0,
        may_bid_blind=seat is not None and hand.blind_ok[seat] and not hand.looked[seat]
        and hand.bids[seat] is None,
        blind_sides=hand.context.blind_sides,
        bidless=hand.context.bidless,
        legal=legal,
        trick=trick_lead(hand.layout, hand.current),
        sides=side_status(hand.rules, None if hand.context.bidless else hand.bids, hand.tricks_taken,
                          hand.layout.hand_size - hand.trick_no, _spoken(hand)),
    )


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
    text = card_code if marked else card_text
    if isinstance(action, Play):
        return {"seat": action.seat, "play": text(action.card)}
    if isinstance(action, Bid):
        v = action.value
        return {"seat": action.seat, "bid": v.tricks if not v.blind and v.tricks else v.text()}
    if isinstance(action, Pass):
        return {"seat": action.seat, "pass": [text(c) for c in sorted(action.cards, key=_by_face)]}
    if isinstance(action, Discard):
        return {"seat": action.seat, "discard": [text(c) for c in sorted(action.cards, key=_by_face)]}
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
    if isinstance(action, Discard | Draw):
        return viewer == action.seat
    return True


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


@lru_cache(maxsize=16384)
def trick_to_json(trick: Trick) -> dict[str, Any]:
    """A finished trick as JSON (``{"leader", "cards": [[seat, "AS"], ...], "winner"}``). Finished tricks
    are public and never change, and every view of a hand repeats them, so each is converted once: the
    dict is shared, and must not be changed."""
    return {"leader": trick.leader, "cards": [[s, CARD_CODES[c]] for s, c in trick.cards], "winner": trick.winner}


def legal_to_json(legal: tuple[Action, ...] | list[Action]) -> list[dict[str, Any]]:
    """Legal actions as a client receives them: each in the record's shape, except that the card
    combinations of an exchange or a discard (up to 715 of them) become one entry saying what to choose,
    ``{"seat": 1, "pass": {"choose": 4, "from": ["2C", ...]}}``: send ``{"pass": [...]}`` with exactly
    ``choose`` different cards of ``from``."""
    picks = [a for a in legal if isinstance(a, Pass | Discard)]
    out = [action_to_dict(a, marked=True) for a in legal if not isinstance(a, Pass | Discard)]
    if picks:
        kind = "pass" if isinstance(picks[0], Pass) else "discard"
        pool = sorted({c for a in picks for c in a.cards}, key=_by_face)
        out.append({"seat": picks[0].seat, kind: {"choose": len(picks[0].cards),
                                                  "from": [card_code(c) for c in pool]}})
    return out


def _by_face(card: int) -> tuple[int, int]:
    # The two packs' identical cards (six-handed) write the same text in the same place.
    return card % FACES_PER_PACK, card


def hand_from_view(v: HandView, hands: list[int]) -> Hand:
    """``Hand.from_view``: a ``Hand`` in the position ``v`` describes, with ``hands`` as every seat's cards."""
    return Hand.from_view(v, hands)
