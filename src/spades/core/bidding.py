"""Which bids the rules allow: one definition for the engine's bidding and the score sheet's checks.

A bid is allowed when it is allowed on its own (a number up to the cards in a hand or nil; a blind bid
only as the rules permit it, ``blind_bid_allowed``; ``mirror`` and ``whiz`` fix it by the spades held)
and its side can still end with bids the rules accept together (``side_bids_fault``: ``min_side_bid``,
``max_side_bid``, ``suicide``'s one nil a side). The engine asks ``legal_bids`` at each turn; the score
sheet, which sees a hand's bids only when they are all in, asks the same two functions of them.
``possible_bids`` lists every bid a rule set may ever allow (what a page offers to type in).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from spades.core.actions import BLIND_NIL, NIL, BidValue
from spades.core.rules import Rules


def blind_bid_allowed(rules: Rules, value: BidValue) -> bool:
    """Whether these rules have such a blind bid at all: blind nil with ``blind_nil``, a blind number of
    ``blind_bid_min`` or more with ``blind_bids`` (who may bid blind, and when, is ``legal_bids``' part)."""
    return rules.blind_nil if value.is_nil else rules.blind_bids and value.tricks >= rules.blind_bid_min


def side_bids_fault(rules: Rules, seats: Sequence[int], bids: Sequence[BidValue | None]) -> str | None:
    """What the rules refuse in a side's bids once they are all in, or ``None``: a contract below
    ``min_side_bid`` or above ``max_side_bid``; in ``suicide`` partners without exactly one nil. (A seat
    without a bid, team bidding's partner who let the total stand, adds nothing; the score sheet takes a
    team's total typed as two partners' numbers too.)"""
    contract = sum(b.tricks for s in seats if (b := bids[s]) is not None)
    if contract < rules.min_side_bid:
        return f"its contract is {contract}, and min_side_bid is {rules.min_side_bid}"
    if rules.max_side_bid is not None and contract > rules.max_side_bid:
        return f"its contract is {contract}, and max_side_bid is {rules.max_side_bid}"
    if rules.forced_bids == "suicide" and len(seats) == 2:
        nils = sum(1 for s in seats if (b := bids[s]) is not None and b.is_nil)
        if nils != 1:
            return f"in suicide exactly one partner bids nil, not {nils}"
    return None


def legal_bids(rules: Rules, seat: int, bids: Sequence[BidValue | None], *, blind_now: bool,
               spades: int | None) -> list[BidValue]:
    """The bids ``seat`` may make now, nil first then by number: ``bids`` per seat so far (``None``: not yet
    bid), ``blind_now``: the seat may bid blind and has not looked, ``spades``: the spades it holds
    (``None`` when unknown: ``mirror`` and ``whiz`` then allow any number)."""
    lay = rules.layout
    top = lay.hand_size
    partner = lay.partner[seat]
    p_bid = bids[partner] if partner is not None else None
    if rules.team_bidding and p_bid is not None and not p_bid.is_nil:
        # docs/rules.md: the partner gave the side's total; "either may still bid nil" (or ``Accept``).
        if blind_now:
            return [BLIND_NIL] if rules.blind_nil else []
        return [NIL]
    forced = rules.forced_bids
    if forced == "mirror":
        if blind_now:
            return []
        return [BidValue(spades)] if spades is not None else [NIL, *(BidValue(k) for k in range(1, top + 1))]
    numbers: Sequence[int] = range(1, top + 1)
    if forced == "whiz" and spades is not None:
        numbers = [spades] if spades else []
    if blind_now:
        out = [BLIND_NIL] if rules.blind_nil else []
        if rules.blind_bids:
            out.extend(BidValue(k, blind=True) for k in numbers if k >= rules.blind_bid_min)
    else:
        out = [NIL, *(BidValue(k) for k in numbers)]
    if not (rules.min_side_bid or rules.max_side_bid is not None or forced == "suicide"):
        return out
    # Keep the bids with which the side can still end with bids the rules accept.
    seats = lay.sides[lay.side_of[seat]]
    pending = [s for s in seats if s != seat and bids[s] is None]
    trial = list(bids)
    kept: list[BidValue] = []
    for value in out:
        trial[seat] = value
        if any(side_bids_fault(rules, seats, done) is None for done in _completions(rules, trial, pending, value)):
            kept.append(value)
    return kept


def _completions(rules: Rules, bids: list[BidValue | None], pending: list[int],
                 given: BidValue) -> Iterator[list[BidValue | None]]:
    # Every way the partners still to bid could bid: nil or a number; after a side's total in team bidding,
    # nil or nothing (they let it stand).
    if not pending:
        yield bids
        return
    seat, rest = pending[0], pending[1:]
    if rules.team_bidding and not given.is_nil:
        options: list[BidValue | None] = [NIL, None]
    else:
        options = [NIL, *(BidValue(k) for k in range(1, rules.layout.hand_size + 1))]
    for option in options:
        trial = list(bids)
        trial[seat] = option
        yield from _completions(rules, trial, rest, given if option is None or option.is_nil else option)


def possible_bids(rules: Rules) -> list[BidValue]:
    """Every bid these rules may ever allow a player (with no bid made yet at the table, looking or not):
    what a score sheet offers to type in."""
    lay = rules.layout
    nobody: list[BidValue | None] = [None] * lay.n
    seen: list[BidValue] = []
    for seat in range(lay.n):
        for blind_now in (False, True):
            for value in legal_bids(rules, seat, nobody, blind_now=blind_now, spades=None):
                if value not in seen:
                    seen.append(value)
    return sorted(seen, key=lambda v: (v.blind, v.tricks))
