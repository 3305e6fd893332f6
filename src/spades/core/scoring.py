"""Scoring as pure functions of the rules, the bids, the tricks and the bags carried.

``score_hand`` scores one hand for every side and explains each side's points line by line (the
browser and the score sheet show those lines). ``apply_bags`` is the bag count and its penalty.
Nothing here knows about cards or turns, so the score keeper for a physical table uses exactly the
same code as the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from spades.core.actions import BidValue
from spades.core.rules import Rules


class ScoreLine(NamedTuple):
    """One line of a side's score for a hand, e.g. ``("contract of 5 made", 50)``."""

    text: str
    points: int


_new = tuple.__new__
"""A named tuple made without its Python-level ``__new__`` (scores are made by the thousand in search)."""


def _line(text: str, points: int) -> ScoreLine:
    return _new(ScoreLine, (text, points))


class SideScore(NamedTuple):
    """A side's result for one hand. (Named tuples: scoring runs in search, where they are cheap.)"""

    points: int
    """Points this hand, bag penalties included."""
    bags: int
    """Bags added to the count this hand (0 where the bag mode keeps no count)."""
    bags_total: int
    """The side's bag count after this hand and any penalty."""
    tricks: int
    """Tricks the side's players took."""
    contract: int
    """The side's contract (sum of its non-nil bids); 0 when all its players bid nil or no bids."""
    made: bool | None
    """Whether the contract was made; ``None`` when the side had no contract."""
    lines: tuple[ScoreLine, ...]
    """How the points come about, line by line."""


def side_contract(bids: Sequence[BidValue | None], seats: Sequence[int]) -> int:
    """A side's contract: the sum of its number bids (0 when all its players bid nil)."""
    return sum(b.tricks for s in seats if (b := bids[s]) is not None and b.tricks)


def side_toward(rules: Rules, bids: Sequence[BidValue | None], tricks: Sequence[int], seats: Sequence[int]) -> int:
    """Tricks that count toward a side's contract: those of its number bidders, of a partner who gave no bid
    (team bidding: the partner plays for the side's total), and of its nil bidders only when
    ``failed_nil_tricks`` is ``count_for_partner`` (docs/rules.md: otherwise a nil bidder's tricks never
    count toward the contract, and are bags when it is made)."""
    total = 0
    if rules.failed_nil_tricks == "count_for_partner":
        for s in seats:
            total += tricks[s]
        return total
    for s in seats:
        b = bids[s]
        if b is None or b.tricks:
            total += tricks[s]
    return total


def contract_made(rules: Rules, contract: int, toward: int) -> bool:
    """Whether a contract is made with ``toward`` tricks counting toward it: at least the contract, except
    a Boston (``boston``: a bid of every trick) and ``ten_for_two_hundred``'s bid of 10, made only with
    exactly that many."""
    if rules.boston and contract == rules.layout.hand_size:
        return toward == contract
    if rules.ten_for_two_hundred and contract == 10:
        return toward == 10
    return toward >= contract


class NilStatus(NamedTuple):
    """A nil or blind nil bid during a hand."""

    seat: int
    blind: bool
    tricks: int
    status: str
    """``alive`` (no trick yet, tricks left to play), ``made`` (the hand is over without a trick) or ``broken``."""


class SideStatus(NamedTuple):
    """A side's contract during a hand (``HandView`` carries one per side)."""

    seats: tuple[int, ...]
    contract: int | None
    """The sum of its number bids; ``None`` until all its players have bid, and in a hand without bids."""
    tricks: int
    """Tricks counting toward the contract (``side_toward``)."""
    needed: int
    """Tricks still needed; 0 once reached, and without a contract."""
    status: str
    """``bidding`` (its bids are not all in), ``open``, ``made`` (made whatever the tricks left do) or ``set``
    (it cannot be made any more). A hand without bids is ``open`` throughout. At the end of a hand ``made``
    and ``set`` are ``score_hand``'s ``made``."""
    nils: tuple[NilStatus, ...]


def side_status(rules: Rules, bids: Sequence[BidValue | None] | None, tricks: Sequence[int], tricks_left: int,
                spoken: Sequence[bool]) -> tuple[SideStatus, ...]:
    """Every side's contract status with ``tricks`` taken per seat and ``tricks_left`` to play. ``bids`` is
    ``None`` for a hand played without bids; ``spoken[seat]``: that seat's turn to bid has passed (with team
    bidding a partner may leave the bid to the other, and has no bid of its own)."""
    # (The named tuples are made with ``_new``, and no generator runs: a table asks this after every
    # trick and bid, issue 19.)
    out: list[SideStatus] = []
    for seats in rules.layout.sides:
        if bids is None:
            out.append(_new(SideStatus, (tuple(seats), None, sum([tricks[s] for s in seats]), 0, "open", ())))
            continue
        nils = tuple([_new(NilStatus, (s, b.blind, tricks[s],
                                       "broken" if tricks[s] else "alive" if tricks_left else "made"))
                      for s in seats if (b := bids[s]) is not None and not b.tricks])
        toward = side_toward(rules, bids, tricks, seats)
        bidding = False
        for s in seats:
            if not spoken[s]:
                bidding = True
                break
        if bidding:
            out.append(_new(SideStatus, (tuple(seats), None, toward, 0, "bidding", nils)))
            continue
        contract = side_contract(bids, seats)
        # Made (or set) when every way the tricks left can fall makes (or sets) it. ``contract_made`` is
        # either "at least the contract" or "exactly the contract", so over the tricks still possible its
        # answers are all found at the two ends and at the contract itself (3 calls instead of up to 14).
        most = toward + tricks_left
        ends = {contract_made(rules, contract, toward), contract_made(rules, contract, most)}
        if toward < contract < most:
            ends.add(contract_made(rules, contract, contract))
        status = "open" if len(ends) > 1 else "made" if ends.pop() else "set"
        out.append(_new(SideStatus, (tuple(seats), contract, toward, max(0, contract - toward), status, nils)))
    return tuple(out)


def apply_bags(rules: Rules, count: int, new_bags: int) -> tuple[int, int, list[ScoreLine]]:
    """Add ``new_bags`` over-tricks to a side's ``count``.

    Returns ``(points, new_count, lines)``: the over-tricks' points (by ``rules.bags``) and any
    penalty each time the count reaches ``bag_limit`` (the rest carry on).
    """
    lines: list[ScoreLine] = []
    mode = rules.bags
    if new_bags <= 0:
        return 0, count, lines
    plural = "s" if new_bags != 1 else ""
    if mode == "penalty":
        pts = new_bags
        lines.append(_line(f"{new_bags} bag{plural}", new_bags))
    elif mode == "none":
        return new_bags, count, [ScoreLine(f"{new_bags} over-trick{plural}", new_bags)]
    elif mode == "minus_one":
        return -new_bags, count, [ScoreLine(f"{new_bags} over-trick{plural} at -1", -new_bags)]
    elif mode == "minus_ten":
        return -10 * new_bags, count, [ScoreLine(f"{new_bags} over-trick{plural} at -10", -10 * new_bags)]
    else:  # count_only
        pts = 0
        lines.append(_line(f"{new_bags} bag{plural} (counted, no points)", 0))
    count += new_bags
    while count >= rules.bag_limit:
        count -= rules.bag_limit
        pts -= rules.bag_penalty
        lines.append(_line(f"{rules.bag_limit} bags reached", -rules.bag_penalty))
    return pts, count, lines


def score_hand(
    rules: Rules,
    bids: Sequence[BidValue | None] | None,
    tricks: Sequence[int],
    bags_before: Sequence[int],
) -> tuple[SideScore, ...]:
    """Score one hand for every side, sides ordered by their lowest seat.

    ``bids`` has one entry per seat, or is ``None`` for a hand played without bids
    (``first_hand_bids: false``: 10 per trick, no bags). ``tricks`` is per seat and ``bags_before``
    per side.
    """
    lay = rules.layout
    if len(tricks) != lay.n or len(bags_before) != lay.sides_count:
        raise ValueError("score_hand needs one trick count per seat and one bag count per side")
    out: list[SideScore] = []
    for side_index, seats in enumerate(lay.sides):
        if bids is None:
            taken = sum(tricks[s] for s in seats)
            pts = 10 * taken
            out.append(SideScore(pts, 0, bags_before[side_index], taken, 0, None,
                                 (ScoreLine(f"{taken} tricks at 10, no bids this hand", pts),)))
            continue
        out.append(_score_side(rules, seats, bids, tricks, bags_before[side_index]))
    return tuple(out)


def _score_side(rules: Rules, seats: Sequence[int], bids: Sequence[BidValue | None], tricks: Sequence[int],
                bags: int) -> SideScore:
    # One pass over the side's seats gathers what the rules below need (search scores hands by the
    # thousand, so no list is built per question); nil lines come first, in seat order.
    lines: list[ScoreLine] = []
    partner_counts = rules.failed_nil_tricks == "count_for_partner"
    toward = side_toward(rules, bids, tricks, seats)
    taken = contract = blind_part = nil_tricks = 0
    has_bidder = has_nil = False
    for s in seats:
        bid = bids[s]
        n = tricks[s]
        taken += n
        if bid is None:  # team bidding: the partner who gave no bid (its tricks count: ``side_toward``)
            continue
        if bid.tricks:
            has_bidder = True
            contract += bid.tricks
            if bid.blind:
                blind_part += bid.tricks
        else:
            has_nil = True
            value = rules.blind_nil_points if bid.blind else rules.nil_points
            name = "blind nil" if bid.blind else "nil"
            if n == 0:
                lines.append(_line(f"{name} made (seat {s})", value))
            else:
                lines.append(_line(f"{name} failed (seat {s} took {n} trick{'s' if n != 1 else ''})", -value))
            if not partner_counts:
                nil_tricks += n
    made: bool | None = None
    over = 0
    all_tricks = rules.layout.hand_size
    if has_bidder:
        blind = " blind" if blind_part else ""
        made = contract_made(rules, contract, toward)
        if rules.boston and contract == all_tricks:
            value = 400 if blind_part else 200
            lines.append(_line(f"{blind.strip() + ' ' if blind else ''}Boston {'made' if made else 'failed'}",
                                   value if made else -value))
        elif rules.ten_for_two_hundred and contract == 10:
            lines.append(_line(f"ten for two hundred {'made' if made else f'missed ({toward} tricks)'}",
                                   200 if made else -200))
        else:
            value = 10 * (contract - blind_part) + 20 * blind_part
            if made:
                lines.append(_line(f"contract of {contract}{blind} made", value))
                over = toward - contract
            else:
                if rules.set_penalty == "bid":
                    lines.append(_line(f"set: contract of {contract}{blind}, took {toward}", -value))
                else:
                    short = contract - toward
                    loss = 10 * short * (2 if blind_part else 1)
                    lines.append(_line(f"set: {short} short of {contract}{blind}", -loss))
    else:
        made = True if has_nil else None  # an all-nil side's contract of 0 counts as made
    # docs/rules.md: a nil bidder's tricks never count toward the contract, but are bags when it is made.
    if made and nil_tricks:
        over += nil_tricks
    bags_after = bags
    if over > 0:  # (``apply_bags`` adds nothing for no over-tricks)
        _, bags_after, bag_lines = apply_bags(rules, bags, over)
        lines.extend(bag_lines)
    points = 0
    for line in lines:
        points += line.points
    # (points, bags, bags_total, tricks, contract, made, lines)
    return _new(SideScore, (points, over if rules.bags in ("penalty", "count_only") else 0, bags_after, taken,
                            contract, made, tuple(lines)))


def blind_eligible_sides(rules: Rules, totals: Sequence[int]) -> list[bool]:
    """Which sides may bid blind: those at least ``blind_behind`` behind the best other side."""
    out: list[bool] = []
    for i, t in enumerate(totals):
        others = [x for j, x in enumerate(totals) if j != i]
        lead = max(others) if others else t
        out.append(rules.blind_behind == 0 or lead - t >= rules.blind_behind)
    return out


def game_outcome(rules: Rules, totals: Sequence[int], time_up: bool = False) -> tuple[bool, int | None]:
    """Whether a game ends with these totals after a hand, and the winning side.

    It ends when a side reaches the target, a side falls to ``lose_at``, or the time is up; the
    highest total wins. A tie for first place is never a result: the game goes on (``(False, None)``).
    """
    if not _end_reached(rules, totals, time_up):
        return False, None
    best = max(totals)
    leaders = [i for i, x in enumerate(totals) if x == best]
    return (True, leaders[0]) if len(leaders) == 1 else (False, None)


def _end_reached(rules: Rules, totals: Sequence[int], time_up: bool) -> bool:
    """A side reached the target, a side fell to ``lose_at``, or the time is up."""
    ends = max(totals) >= rules.target or time_up
    if rules.lose_at is not None and min(totals) <= rules.lose_at:
        ends = True
    return ends


def tie_note(rules: Rules, totals: Sequence[int], time_up: bool = False) -> str | None:
    """Why a game goes on past its end, in words for the players: the end was reached (``game_outcome``)
    but two or more sides share the lead, and a tie is never a result. ``None`` when that is not so."""
    if not totals or not _end_reached(rules, totals, time_up):
        return None
    best = max(totals)
    if sum(1 for x in totals if x == best) < 2:
        return None
    why = "time is up" if time_up and best < rules.target else f"the game is to {rules.target}"
    return f"Tied for the lead at {best}: {why}, but a tie never ends a game, so it goes on until one side leads."


def tied_at_end(rules: Rules, totals: Sequence[int], time_up: bool = False) -> bool:
    """Whether the game has reached its end (the target, ``lose_at`` or the time) with the lead tied, so it
    goes on (``tie_note`` words the reason)."""
    return tie_note(rules, totals, time_up) is not None
