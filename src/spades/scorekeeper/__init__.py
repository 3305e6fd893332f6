"""The score sheet for a game played with real cards: bids and tricks in, points and bags out.

It scores with exactly the engine's functions (``spades.core.scoring``), so a kitchen-table game and
an online game with the same rules always agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from spades.core.actions import BidValue
from spades.core.bidding import blind_bid_allowed, possible_bids, side_bids_fault
from spades.core.errors import SpadesError
from spades.core.record import parse_bid
from spades.core.rules import Rules
from spades.core.scoring import SideScore, blind_eligible_sides, game_outcome, score_hand, tied_at_end


class ScoreSheetError(SpadesError):
    """A hand that cannot be entered; ``hand`` is its index (from 0)."""

    def __init__(self, reason: str, hand: int) -> None:
        super().__init__(f"hand {hand}: {reason}")
        self.reason = reason
        self.hand = hand


@dataclass
class ScoreSheet:
    """A running score: add hands in order; totals, bags, end and winner follow the rules."""

    rules: Rules
    hands: list[tuple[SideScore, ...]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    bags: list[int] = field(default_factory=list)
    over: bool = False
    winner: int | None = None
    time_up: bool = False
    """A timed game's time has run out (in a hand entered with ``time_up``)."""

    def __post_init__(self) -> None:
        k = self.rules.layout.sides_count
        self.totals = [0] * k
        self.bags = [0] * k

    def add_hand(
        self, bids: Sequence[Any] | None, tricks: Sequence[Any], time_up: bool = False
    ) -> tuple[SideScore, ...]:
        """Score one hand from per-seat bids (as in records: 3, "nil", "blind nil", "blind 6"; ``None``
        for a hand without bids) and per-seat tricks. Raises ``ScoreSheetError`` and changes nothing
        when the hand is impossible."""
        i = len(self.hands)
        lay = self.rules.layout
        r = self.rules
        if self.over:
            raise ScoreSheetError("the game is already over", i)
        if time_up and r.time_limit_minutes is None:
            raise ScoreSheetError("time_up is for a timed game (set time_limit_minutes)", i)
        bidless = not r.first_hand_bids and i == 0
        if not isinstance(tricks, list | tuple) or len(tricks) != lay.n:
            raise ScoreSheetError(f"tricks must list {lay.n} numbers, one per seat", i)
        if not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in tricks):
            raise ScoreSheetError("tricks must be whole numbers from 0", i)
        if sum(tricks) != lay.hand_size:
            raise ScoreSheetError(f"the tricks add up to {sum(tricks)}, not {lay.hand_size}", i)
        parsed: list[BidValue | None] | None
        if bidless:
            if bids is not None:
                raise ScoreSheetError("the first hand is played without bids (first_hand_bids is false)", i)
            parsed = None
        else:
            if not isinstance(bids, list | tuple) or len(bids) != lay.n:
                raise ScoreSheetError(f"bids must list {lay.n} bids, one per seat", i)
            parsed = []
            eligible = blind_eligible_sides(r, self.totals)
            for seat, b in enumerate(bids):
                if b is None and r.team_bidding:
                    parsed.append(None)  # team bidding: the partner gave the side's total
                    continue
                try:
                    v = parse_bid(b)
                except SpadesError as e:
                    raise ScoreSheetError(f"seat {seat}: {e}", i) from None
                if v.tricks > lay.hand_size:
                    raise ScoreSheetError(f"seat {seat}: a bid is at most {lay.hand_size}", i)
                if v.blind:
                    if not blind_bid_allowed(r, v):
                        raise ScoreSheetError(f"seat {seat}: these rules do not allow {v.text()}", i)
                    if not eligible[lay.side_of[seat]]:
                        raise ScoreSheetError(f"seat {seat}: only a side at least {r.blind_behind} points "
                                              "behind may bid blind", i)
                parsed.append(v)
            for seat, pv in enumerate(parsed):
                partner = lay.partner[seat]
                given = parsed[partner] if partner is not None else None
                if pv is None and (given is None or given.is_nil):
                    raise ScoreSheetError(f"seat {seat}: a bid is needed unless the partner gave the side's total", i)
            _check_side_bids(r, parsed, i)
        sides = score_hand(r, parsed, list(tricks), self.bags)
        self.hands.append(sides)
        for k, s in enumerate(sides):
            self.totals[k] += s.points
            self.bags[k] = s.bags_total
        # Time that ran out stays out: after a tie at the end of time, the next untied hand ends the game.
        self.time_up = self.time_up or time_up
        self.over, self.winner = game_outcome(r, self.totals, self.time_up)
        return sides

    def add_entry(self, entry: Any) -> tuple[SideScore, ...]:
        """Score one hand as typed in: per seat ``{"bids": [...], "tricks": [...]}``, or per side
        ``{"sides": [{"bid": 7, "tricks": 8, "nil": [{"seat": 1, "bid": "nil", "tricks": 0}]}, ...]}``
        (see ``seats_from_sides``); either may add ``"time_up": true`` when a timed game's time ran out in
        that hand. Raises ``ScoreSheetError`` and changes nothing when it cannot be scored (bids the rules
        do not allow included: blind bids, ``min_side_bid``, ``max_side_bid``, suicide's one nil a side)."""
        i = len(self.hands)
        if not isinstance(entry, dict):
            raise ScoreSheetError("a hand is an object with bids and tricks per seat, or sides", i)
        if "sides" in entry:
            if "bids" in entry or "tricks" in entry:
                raise ScoreSheetError("a hand is entered per seat (bids, tricks) or per side (sides), not both", i)
            bidless = not self.rules.first_hand_bids and i == 0
            bids, tricks = seats_from_sides(self.rules, entry["sides"], bidless, i)
            return self.add_hand(bids, tricks, _time_up(entry, i))
        if "tricks" not in entry:
            raise ScoreSheetError("a hand is an object with bids and tricks per seat, or sides", i)
        return self.add_hand(entry.get("bids"), entry["tricks"], _time_up(entry, i))

    @property
    def tied(self) -> bool:
        """The game has reached its end with the lead tied, so it goes on (``tied_at_end``)."""
        return bool(self.hands) and tied_at_end(self.rules, self.totals, self.time_up)

    def to_dict(self) -> dict[str, Any]:
        """The sheet as ``spades score --json`` prints it."""
        running = [0] * len(self.totals)
        out_hands = []
        for sides in self.hands:
            row = []
            for k, s in enumerate(sides):
                running[k] += s.points
                row.append({"points": s.points, "total": running[k], "bags": s.bags_total,
                            "lines": [[ln.text, ln.points] for ln in s.lines]})
            out_hands.append({"sides": row})
        return {"hands": out_hands, "totals": list(self.totals), "winner": self.winner}


def bid_choices(rules: Rules, totals: Sequence[int], hand_index: int) -> list[list[str]] | None:
    """The bids each seat may be entered with in hand ``hand_index`` (from 0) after these totals, as records
    write them (``nil``, ``3``, ``blind nil``, ``blind 6``); ``None`` for a hand played without bids. They are
    the engine's (``spades.core.bidding.possible_bids``), blind bids kept only for a side far enough behind
    (``blind_behind``), as ``add_hand`` checks."""
    if not rules.first_hand_bids and hand_index == 0:
        return None
    eligible = blind_eligible_sides(rules, totals)
    every = _possible(rules)
    side_of = rules.layout.side_of
    return [[text for text, blind in every if not blind or eligible[side_of[seat]]] for seat in range(rules.layout.n)]


@lru_cache(maxsize=256)
def _possible(rules: Rules) -> tuple[tuple[str, bool], ...]:
    return tuple((b.text(), b.blind) for b in possible_bids(rules))


def _time_up(entry: dict[str, Any], hand: int) -> bool:
    # A timed game (time_limit_minutes) ends after the hand in which the time ran out: the hand says so.
    value = entry.get("time_up", False)
    if not isinstance(value, bool):
        raise ScoreSheetError(f"time_up is true or false, not {str(value)[:20]!r}", hand)
    return value


def _check_side_bids(rules: Rules, bids: Sequence[BidValue | None], hand: int) -> None:
    """The bids the rules refuse between partners (the engine's own check, ``side_bids_fault``: a contract
    below ``min_side_bid`` or above ``max_side_bid``, suicide's one nil a side)."""
    for k, seats in enumerate(rules.layout.sides):
        fault = side_bids_fault(rules, seats, bids)
        if fault is not None:
            raise ScoreSheetError(f"side {k}: {fault}", hand)


def _count(value: Any, what: str, most: int, hand: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
        raise ScoreSheetError(f"{what} is a whole number from 0 to {most}, not {str(value)[:20]!r}", hand)
    return value


def seats_from_sides(rules: Rules, sides: Any, bidless: bool, hand: int = 0) -> tuple[list[Any] | None, list[int]]:
    """Per-seat bids and tricks that score exactly as a hand entered per side.

    Each side (in the order of ``rules.layout.sides``) gives ``bid``, its players' numbers together (``7``,
    or ``"blind 7"`` where blind bids are allowed; ``0`` or ``null`` when all of them bid nil), ``tricks``,
    every trick the side took (a nil bidder's too), and ``nil``: its nil and blind nil bids, each
    ``{"seat", "bid": "nil" | "blind nil", "tricks"}`` with the tricks that player took (0: the nil was
    made). The side's bid goes to its first non-nil player (the partners bid 1 each, or ``blind_bid_min``
    blind; with ``team_bidding`` they give no bid), and the tricks not taken by nil bidders to that same
    player: the engine scores a side from its contract, its nil bids and the tricks each nil bidder took,
    so this split changes no points. ``bidless``: the first hand of ``first_hand_bids: false``, which has
    tricks only.
    """
    lay = rules.layout
    if not isinstance(sides, list | tuple) or len(sides) != lay.sides_count:
        raise ScoreSheetError(f"sides must list {lay.sides_count} sides, in seat order of their first player", hand)
    bids: list[Any] = [None] * lay.n
    tricks = [0] * lay.n
    for k, (side, seats) in enumerate(zip(sides, lay.sides, strict=True)):
        who = f"side {k}"
        if not isinstance(side, dict):
            raise ScoreSheetError(f"{who}: a side is an object with bid, tricks and nil", hand)
        unknown = sorted(set(side) - {"bid", "tricks", "nil"})
        if unknown:
            raise ScoreSheetError(f"{who}: unknown field {unknown[0][:20]!r} (a side has bid, tricks and nil)", hand)
        taken = _count(side.get("tricks"), f"{who}: tricks", lay.hand_size, hand)
        nils = side.get("nil") or []
        if not isinstance(nils, list | tuple) or len(nils) > len(seats):
            raise ScoreSheetError(f"{who}: nil lists at most {len(seats)} nil bids", hand)
        nil_seats: dict[int, tuple[BidValue, int]] = {}
        for entry in nils:
            seat = entry.get("seat") if isinstance(entry, dict) else None
            if not isinstance(seat, int) or isinstance(seat, bool) or seat not in seats:
                raise ScoreSheetError(f"{who}: a nil bid names one of the side's seats {list(seats)}", hand)
            if seat in nil_seats:
                raise ScoreSheetError(f"{who}: seat {seat} bid nil twice", hand)
            try:
                value = parse_bid(entry.get("bid", "nil"))
            except SpadesError as e:
                raise ScoreSheetError(f"seat {seat}: {e}", hand) from None
            if not value.is_nil:
                raise ScoreSheetError(f"seat {seat}: nil lists only nil and blind nil bids", hand)
            nil_seats[seat] = (value, _count(entry.get("tricks", 0), f"seat {seat}: tricks", lay.hand_size, hand))
        nil_taken = sum(t for _, t in nil_seats.values())
        if nil_taken > taken:
            raise ScoreSheetError(f"{who}: its nil bidders took {nil_taken} tricks, more than the side's {taken}", hand)
        bidders = [s for s in seats if s not in nil_seats]
        for seat, (value, t) in nil_seats.items():
            bids[seat] = value
            tricks[seat] = t
        if bidders:
            tricks[bidders[0]] = taken - nil_taken
        elif taken != nil_taken:
            raise ScoreSheetError(f"{who}: every player bid nil, so the side's {taken} tricks must be theirs "
                                  f"(they took {nil_taken})", hand)
        raw = side.get("bid")
        if bidless:
            if raw is not None or nil_seats:
                raise ScoreSheetError("the first hand is played without bids (first_hand_bids is false)", hand)
            continue
        if not bidders:
            if raw not in (None, 0):
                raise ScoreSheetError(f"{who}: every player bid nil, so the side has no other bid", hand)
            continue
        try:
            total = parse_bid(raw)
        except SpadesError as e:
            raise ScoreSheetError(f"{who}: {e}", hand) from None
        if total.is_nil:
            raise ScoreSheetError(f"{who}: the side's bid is its players' numbers together; "
                                  "give nil bids player by player", hand)
        if total.blind and not rules.blind_bids:
            raise ScoreSheetError(f"{who}: these rules do not allow blind bids", hand)
        least = rules.blind_bid_min if total.blind else 1
        rest = 0 if rules.team_bidding else least * (len(bidders) - 1)
        if total.tricks - rest < least:
            raise ScoreSheetError(f"{who}: {len(bidders)} players bidding need a bid of at least "
                                  f"{least + rest}{' blind' if total.blind else ''}", hand)
        bids[bidders[0]] = BidValue(total.tricks - rest, total.blind)
        for seat in bidders[1:]:
            bids[seat] = None if rules.team_bidding else BidValue(least, total.blind)
    if bidless:
        return None, tricks
    return [None if b is None else b.tricks if b.tricks and not b.blind else b.text() for b in bids], tricks
