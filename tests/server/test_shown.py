"""``protocol.Shown``: a table's last-shown state, kept between events, reads back exactly as it was sent
and keeps what changes at every event out of the garbage collector's sight (bytes, not containers)."""

from __future__ import annotations

import gc
import random
import tracemalloc

from spades.core.view import view_hand
from spades.server.protocol import event_payloads, full_state
from spades.server.table import Seat, TableState
from spades.storage.base import TableRow


def test_what_was_shown_reads_back_and_is_not_walked_by_the_collector() -> None:
    t = TableState(TableRow("t", "standard", {"bot_level": "random"}, True, None, "p0", 0.0))
    t.seat_rows([(0, Seat("p0", "A")), (1, Seat(None, "B", "random")), (2, Seat("p2", "C")),
                 (3, Seat(None, "D", "random"))])
    rng = random.Random(5)
    shown = None
    for _ in range(40):
        rows = [t.deal_row()] if t.pending is not None else t.action_rows(
            rng.choice(view_hand(t.game.hand, t.to_act()).legal), "bot", None, None)
        public = t.public_state()
        _, shown = event_payloads(rows, t.rules.layout, [0, 2, None], public, t.own_fields, shown)
        assert shown.public == public
        for v in (0, 2, None):
            assert shown.own(v) == t.own_fields(v)
            assert full_state(shown.public, shown.own(v) or {}) == t.game_state(v)
        assert shown.own(1) is None  # seat 1 was never a viewer
        assert not gc.is_tracked(shown.view_json) and not gc.is_tracked(shown.own_json)
        assert shown.tricks is public["view"]["tricks"]  # finished tricks are shared, not copied
        assert shown.sides is public["view"]["sides"]  # and so are the contract statuses


def test_what_was_shown_takes_the_memory_of_its_text() -> None:
    """A table keeps its last-shown state for as long as it is played: each encoded part costs about its
    length (``orjson.dumps``'s bytes each held a 4 KiB buffer, 12 KiB a table of two people)."""
    t = TableState(TableRow("t", "standard", {"bot_level": "random"}, True, None, "p0", 0.0))
    t.seat_rows([(0, Seat("p0", "A")), (1, Seat(None, "B", "random")), (2, Seat("p2", "C")),
                 (3, Seat(None, "D", "random"))])
    rows = [t.deal_row()]
    public = t.public_state()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        texts, shown = event_payloads(rows, t.rules.layout, [0, 2], public, t.own_fields, None)
        del texts  # sent and gone: only what was shown stays
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    kept = sum(s.size_diff for s in after.compare_to(before, "filename"))
    text = len(shown.view_json) + sum(len(v) for v in shown.own_json.values())
    assert text > 300  # a dealt hand's view and two hands of thirteen cards
    assert kept < text + 2048, (kept, text)
