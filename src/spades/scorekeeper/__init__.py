"""The score sheet for a game played with real cards: bids and tricks in, points and bags out.

It scores with exactly the engine's functions (``spades.core.scoring``), so a kitchen-table game and
an online game with the same rules always agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from spades.core.actions import BidValue
from spades.core.errors import SpadesError
from spades.core.record import parse_bid
from spades.core.rules import Rules
from spades.core.scoring import SideScore, blind_eligible_sides, game_outcome, score_hand


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
                    allowed = r.blind_nil if v.is_nil else r.blind_bids and v.tricks >= r.blind_bid_min
                    if not allowed:
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
        sides = score_hand(r, parsed, list(tricks), self.bags)
        self.hands.append(sides)
        for k, s in enumerate(sides):
            self.totals[k] += s.points
            self.bags[k] = s.bags_total
        self.over, self.winner = game_outcome(r, self.totals, time_up)
        return sides

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
