"""``TableState`` without a server: rebuilt from its rows, keeps a bounded window of recent events."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import spades.server.table as table_module
from spades.core.actions import PLAYS, Look, Misdeal, Play
from spades.server.protocol import project_event
from spades.server.table import CHAT_KEEP, EVENTS_KEEP, ClientIds, Seat, TableState, event_of_kept, kept_event
from spades.storage import open_storage
from spades.storage.base import EventRow, TableRow


def new_table() -> TableState:
    return TableState(TableRow("t", {"preset": "standard", "target": 100}, {}, True, None, None, 0.0))


def test_replaying_the_rows_rebuilds_the_same_table() -> None:
    t = new_table()
    rows = t.seat_rows([(i, Seat(f"p{i}", f"P{i}")) for i in range(4)])
    assert [r.kind for r in rows] == ["seat"] * 4 + ["commit"]
    assert not t.started and t.seeding() == {"hand": 0, "commitment": rows[-1].data["commitment"], "sent": []}
    rows.append(t.seed_row(2, "p2", 0, rows[-1].data["commitment"], "abc", "s1"))
    halfway = new_table()
    halfway.replay(rows)  # a restart while the deal waits: the commitment and the seed so far come back
    assert halfway.pending == t.pending and halfway.seats_sent() == [2] and not halfway.started
    rows.append(t.deal_row())
    assert rows[-1].data["client_seeds"] == ["(none)", "(none)", "abc", "(none)"]
    seat = t.game.hand.to_act
    rows += t.action_rows(t.game.legal_actions()[-1], "player", f"p{seat}", "c1")
    again = new_table()
    again.replay(rows)
    assert again.seq == t.seq == 8 and again.last_game_seq == 8
    assert again.game.hand.hands == t.game.hand.hands and again.game.hand.bids == t.game.hand.bids
    assert again.client_ids.get("p2", "s1") == 6 and again.client_ids.get(f"p{seat}", "c1") == 8
    assert len(again.client_ids) == 2 and again.client_ids.get("p2", "c1") is None
    assert again.client_ids.get(f"p{seat}", "s1") is None and again.client_ids.get("p9", "c1") is None
    assert again.deals == t.deals and again.pending is None
    # The deal row keeps its secrets to itself: a viewer gets only dealer and commitment.
    deal = next(r for r in rows if r.kind == "deal")
    shown = project_event(deal, 0, t.rules.layout)
    assert set(shown) == {"kind", "hand", "dealer", "commitment", "client_seeds"}


def test_the_events_kept_in_memory_are_the_rows_the_log_gives_back(tmp_path: Path) -> None:
    """A table keeps its recent events as JSON text (``kept_event``): read back, they are exactly the rows
    the log stores and loads, for every kind a hand makes (seats, commit, seed, deal with its secrets,
    bids, plays, reveal, the next commit); and a table replayed from the log has the same deals."""
    t = new_table()
    rows = t.seat_rows([(i, Seat(f"p{i}", f"P{i}")) for i in range(4)])
    rows.append(t.seed_row(1, "p1", 0, rows[-1].data["commitment"], "seed-of-p1", "c0"))
    rows.append(t.deal_row())
    rng = random.Random(7)
    while not t.game.hand.is_over:
        seat = t.game.hand.to_act
        rows += t.action_rows(rng.choice(t.game.legal_actions()), "player", f"p{seat}", f"c{len(rows)}")
    assert {"seat", "commit", "seed", "deal", "action", "reveal"} <= {r.kind for r in rows}
    assert t.seq == len(rows) and EVENTS_KEEP <= len(t.events) < len(rows)  # the recent ones in memory
    st = open_storage(f"sqlite:///{tmp_path / 'spades.db'}")
    try:
        st.create_table(t.row)
        st.append_events(t.id, rows)
        stored = st.load_events(t.id)
    finally:
        st.close()
    assert [event_of_kept(kept_event(r)) for r in rows] == stored  # every kind, as a table keeps it
    kept = len(t.events)
    assert t.events_after(len(rows) - kept) == stored[-kept:]
    assert t.events_after(len(rows) - 3) == stored[-3:]
    assert t.events_after(len(rows) - kept - 1) is None  # (older: the hub reads them from the log)
    reveal = next(r for r in stored if r.kind == "reveal")
    deal = next(r for r in stored if r.kind == "deal")
    assert reveal.data == {k: deal.data[k] for k in ("hand", "seed", "commitment", "client_seeds")}
    again = new_table()
    again.replay(stored)
    assert again.deals == t.deals and again.seq == t.seq and again.events == t.events
    # The plays read back from the log are the engine's one copy of each (``spades.core.actions.play``).
    plays = [a for a in again.game.hands[0].actions if isinstance(a, Play)]
    assert len(plays) == 52 and all(a is PLAYS[a.seat][a.card] for a in plays)


def test_only_recent_events_stay_in_memory() -> None:
    t = new_table()
    count = 3 * EVENTS_KEEP + CHAT_KEEP
    for i in range(count):
        t.chat_row("p", "P", f"line {i}", None)
    assert EVENTS_KEEP <= len(t.events) <= EVENTS_KEEP * 3 // 2 and t.seq == count
    assert t.events_after(0) is None
    assert [r.seq for r in t.events_after(t.seq - EVENTS_KEEP) or []] == list(range(t.seq - EVENTS_KEEP + 1,
                                                                                      t.seq + 1))
    assert [r.seq for r in t.events_after(t.seq - 3) or []] == [t.seq - 2, t.seq - 1, t.seq]
    assert t.events_after(t.seq) == []
    assert len(t.chat) == CHAT_KEEP and t.chat[-1]["text"] == f"line {count - 1}"


def test_a_timed_game_replays_to_the_same_end_whenever_it_is_loaded() -> None:
    """The game clock is read from the rows' stored times, live and on replay: a game whose minute ran out
    during its second hand ends where it ended when its log is replayed a day later, or "too early"."""
    now = [1000.0]
    spec = {"preset": "standard", "time_limit_minutes": 1, "target": 10000}
    t = TableState(TableRow("t", spec, {}, True, None, None, 0.0), clock=lambda: now[0])
    rows = t.seat_rows([(i, Seat(f"p{i}", f"P{i}")) for i in range(4)])
    rows.append(t.deal_row())  # the hub deals once the client seeds are in (here: none)
    assert t.game.started_at == 1000.0 and t.game_seconds_left(1030.0) == 30.0
    hands_seen = 0
    rng = random.Random(5)
    while not t.over and hands_seen < 10:
        hand = t.game.hand_count
        options = [a for a in t.game.legal_actions() if not isinstance(a, Misdeal | Look)]
        rows += t.action_rows(rng.choice(options), "player", None, None)
        if t.pending is not None:
            rows.append(t.deal_row())
        if t.game.hand_count != hand or t.over:
            hands_seen += 1
            now[0] += 50.0  # each hand takes 50 seconds: the minute is up at the end of the second
    assert hands_seen >= 2 and t.game.over  # a tie for first place plays another hand
    for later in (1000.0, 99999.0):
        again = TableState(TableRow("t", spec, {}, True, None, None, 0.0), clock=lambda later=later: later)
        again.replay(rows)
        assert again.over and again.game.over and again.game.winner == t.game.winner
        assert again.game.hand_count == hands_seen and again.game.started_at == 1000.0
        assert again.turn_started_at == t.turn_started_at


def test_a_restart_remembers_which_players_are_away() -> None:
    """A player found gone at a timeout stays away when the log is replayed (the bot goes on playing the
    seat at once after a restart); a slow but connected player's timeout does not make them away, and
    the player's own move brings them back."""
    t = new_table()
    rows = t.seat_rows([(i, Seat(f"p{i}", f"P{i}")) for i in range(4)])
    rows.append(t.deal_row())

    def act(by: str) -> int:
        seat = t.game.hand.to_act
        rows.extend(t.action_rows(t.game.legal_actions()[-1], by, f"p{seat}" if by == "player" else None, None))
        return seat

    def replayed() -> set[int]:
        again = new_table()
        again.replay(rows)
        assert again.seq == t.seq
        return again.away

    slow = act("timeout")  # connected: the hub did not mark the seat away
    assert replayed() == set() and not rows[-1].data.get("away")
    gone = t.game.hand.to_act
    t.away.add(gone)  # what the hub does when the player has no socket left
    assert act("timeout") == gone and rows[-1].data["away"] is True
    assert replayed() == {gone} and slow != gone
    while t.game.hand.to_act != gone:
        act("player")
    act("bot")  # the bot plays the away seat's next turn
    assert replayed() == {gone}
    t.away.discard(gone)  # the player comes back and plays
    while t.game.hand.to_act != gone:
        act("player")
    act("player")
    assert replayed() == set()


def test_client_ids_answer_each_id_with_its_event_and_nothing_else() -> None:
    """Every id a player used is found with the number of the event it made, for that player only; an id
    never used is not found, nor is one used by another player."""
    ids = ClientIds()
    rng = random.Random(5)
    used: dict[tuple[str, str], int] = {}
    for seq in range(1, 2001):
        player, cid = f"p{rng.randrange(3)}", f"{rng.getrandbits(40):x}-{seq}"
        used[player, cid] = seq
        ids.add(player, cid, seq)
    assert len(ids) == 2000
    assert all(ids.get(player, cid) == seq for (player, cid), seq in used.items())
    assert ids.get("p0", "never") is None and ids.get("p9", "1-1") is None
    assert sum(ids.get(f"p{(int(p[1]) + 1) % 3}", cid) is not None for p, cid in used) == 0
    # Twelve bytes an id (the strings held about 125).
    kept = sum(len(h) + len(s) * s.itemsize for h, s in ids._players.values())
    assert kept == 12 * 2000


def test_a_client_id_is_not_found_across_two_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ids' hashes lie end to end: eight bytes that match across two of them are no id."""
    keys = {"a": b"\x00" * 4 + b"\x01" * 4, "b": b"\x01" * 4 + b"\x02" * 4, "c": b"\x01" * 8}
    monkeypatch.setattr(table_module, "_id_key", keys.__getitem__)
    ids = ClientIds()
    ids.add("p", "a", 3)
    ids.add("p", "b", 4)
    assert ids.get("p", "c") is None  # b"\x01" * 8 lies at bytes 4-11
    ids.add("p", "c", 9)
    assert (ids.get("p", "a"), ids.get("p", "b"), ids.get("p", "c")) == (3, 4, 9)


def test_a_table_keeps_its_current_hand_and_writes_the_rest_for_the_record() -> None:
    """A table lets each finished hand go when the next is dealt: the deal's row carries that hand's record
    entry (its deal's seeds and commitment too), which the log stores beside it, and the table holds no
    entry itself. The game's record (``TableState.record`` given those entries) is the one a table that
    kept every hand writes, shuffles and all, live and when the log is replayed."""
    spec = {"preset": "standard", "target": 150, "lose_at": -150}
    t = TableState(TableRow("t", spec, {}, True, None, None, 0.0))
    rows = t.seat_rows([(i, Seat(f"p{i}", f"P{i}")) for i in range(4)])
    rng = random.Random(3)
    while not t.over:
        if t.pending is not None:
            rows.append(t.deal_row())
        options = [a for a in t.game.legal_actions() if not isinstance(a, Misdeal)]
        rows += t.action_rows(rng.choice(options), "player", None, None)
        assert len(t.game.hands) == 1 and t.let_go == t.game.hand_count - 1
    assert t.game.hand_count >= 2
    written = [r.hand_record for r in rows if r.hand_record is not None]
    assert len(written) == t.let_go
    assert {r.kind for r in rows if r.hand_record is not None} == {"deal"}
    assert all(r.hand_record is None for r in rows if r.kind == "deal" and r.data["hand"] == 0)
    full = TableState(TableRow("t", spec, {}, True, None, None, 0.0), keep_hands=True)
    full.replay(rows)
    assert len(full.game.hands) == t.game.hand_count and full.let_go == 0
    assert t.record(written) == full.record()
    assert [hd["seed"] for hd in t.record(written)["hands"]] == [d["seed"] for d in full.deals]
    assert t.deals == full.deals[-1:]  # (a hand's deal is written with it when the table lets it go)
    with pytest.raises(ValueError):
        t.record(written[:-1])  # a record without an entry of every hand let go is refused
    again = TableState(TableRow("t", spec, {}, True, None, None, 0.0))
    again.replay([EventRow(r.seq, r.kind, r.data, r.player_id, r.client_id, r.created_at) for r in rows])
    assert again.let_go == t.let_go and again.record(written) == t.record(written)
