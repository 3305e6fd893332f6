"""``TableState`` without a server: rebuilt from its rows, keeps a bounded window of recent events."""

from __future__ import annotations

from spades.server.protocol import project_event
from spades.server.table import EVENTS_KEEP, Seat, TableState
from spades.storage.base import TableRow


def new_table() -> TableState:
    return TableState(TableRow("t", {"preset": "standard", "target": 100}, {}, True, None, None, 0.0))


def test_replaying_the_rows_rebuilds_the_same_table() -> None:
    t = new_table()
    rows = t.seat_rows([(i, Seat(f"p{i}", f"P{i}")) for i in range(4)])
    assert [r.kind for r in rows] == ["seat"] * 4 + ["deal"]
    seat = t.game.hand.to_act
    rows += t.action_rows(t.game.legal_actions()[-1], "player", f"p{seat}", "c1")
    again = new_table()
    again.replay(rows)
    assert again.seq == t.seq == 6 and again.last_game_seq == 6
    assert again.game.hand.hands == t.game.hand.hands and again.game.hand.bids == t.game.hand.bids
    assert again.client_ids == {(f"p{seat}", "c1"): 6}
    # The deal row keeps its secrets to itself: a viewer gets only dealer and commitment.
    deal = next(r for r in rows if r.kind == "deal")
    shown = project_event(deal, 0, t.rules.layout)
    assert set(shown) == {"kind", "hand", "dealer", "commitment", "client_seeds"}


def test_only_recent_events_stay_in_memory() -> None:
    t = new_table()
    for i in range(3 * EVENTS_KEEP):
        t.chat_row("p", "P", f"line {i}", None)
    assert len(t.events) <= 2 * EVENTS_KEEP and t.seq == 3 * EVENTS_KEEP
    assert t.events_after(0) is None
    assert [r.seq for r in t.events_after(t.seq - 3) or []] == [t.seq - 2, t.seq - 1, t.seq]
    assert t.events_after(t.seq) == []
    assert len(t.chat) == 50
