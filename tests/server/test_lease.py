"""Table leases on PostgreSQL: one owner at a time, fencing of a stalled former owner, takeover after
expiry, release. (Under CI=true PostgreSQL must be there.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from spades.storage import DuplicateError, EventRow, SqlStorage, TableRow, open_storage
from spades.storage.lease import LeaseLost, Leases

from .test_storage import pg_storage


@pytest.fixture
def pg() -> Iterator[SqlStorage]:
    yield from pg_storage()


def _table(st: SqlStorage, tid: str) -> None:
    st.create_table(TableRow(tid, "standard", {}, True, None, None, time.time()))


def _row(seq: int) -> EventRow:
    return EventRow(seq, "chat", {"player": None, "name": "x", "text": f"line {seq}"})


def _stall_past_lease(who: Leases, tid: str) -> None:
    """Wait until ``who``'s lease on ``tid`` has run out by the database's clock (the clock leases are
    judged by), however slowly this machine runs."""
    end = time.monotonic() + 30
    while (lease := who.get(tid)) is not None and lease.owner == who.owner and lease.expires_in > 0:
        assert time.monotonic() < end, lease
        time.sleep(min(0.05, lease.expires_in + 0.001))


def test_two_owners_racing_for_one_table_exactly_one_wins(pg: SqlStorage) -> None:
    _table(pg, "t1")
    a, b = Leases(pg, "node-a", 30), Leases(pg, "node-b", 30)
    results: dict[str, int | None] = {}
    go = threading.Barrier(2)

    def race(who: Leases) -> None:
        go.wait()
        results[who.owner] = who.acquire("t1")

    threads = [threading.Thread(target=race, args=(x,)) for x in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [k for k, v in results.items() if v is not None]
    assert len(winners) == 1 and results[winners[0]] == 1
    winner, loser = (a, b) if winners[0] == "node-a" else (b, a)
    winner.append_fenced("t1", 1, [_row(1)])
    with pytest.raises(LeaseLost):
        loser.append_fenced("t1", 1, [_row(2)])
    assert [r.seq for r in pg.load_events("t1")] == [1]
    lease = a.get("t1")
    assert lease is not None and lease.owner == winner.owner and lease.expires_in > 20


def test_a_stalled_owner_is_fenced_after_a_takeover(pg: SqlStorage) -> None:
    _table(pg, "t2")
    a, b = Leases(pg, "node-a", 0.3), Leases(pg, "node-b", 30)
    assert a.acquire("t2") == 1
    assert b.acquire("t2") is None  # still held
    a.append_fenced("t2", 1, [_row(1)])
    _stall_past_lease(a, "t2")  # a stalls past its lease
    assert b.acquire("t2") == 2
    with pytest.raises(LeaseLost):
        a.append_fenced("t2", 1, [_row(2)])
    assert a.renew() == {}
    b.append_fenced("t2", 2, [_row(2)])
    with pytest.raises(DuplicateError):  # the log's unique number is the last guard
        b.append_fenced("t2", 2, [_row(2)])
    assert [r.seq for r in pg.load_events("t2")] == [1, 2]
    assert b.max_seqs(["t2", "nope"]) == {"t2": 2}


def test_renew_release_and_orphans(pg: SqlStorage) -> None:
    for tid in ("t3", "t4"):
        _table(pg, tid)
    a, b = Leases(pg, "node-a", 30), Leases(pg, "node-b", 30)
    assert a.orphans() == []  # just made: left to their maker for a while
    assert sorted(a.orphans(settle=-1)) == ["t3", "t4"]
    assert a.acquire("t3") == 1
    assert b.orphans(settle=-1) == ["t4"]
    assert a.renew() == {"t3": 1}
    assert not b.release("t3", 1)  # not b's to give
    assert a.release("t3", 1)
    assert a.renew() == {}  # released stays released: the next owner can take it
    assert sorted(b.orphans(settle=-1)) == ["t3", "t4"]
    assert "t3" in b.orphans()  # released: free at once
    assert b.acquire("t3") == 2
    pg.set_table_status("t4", "over")
    assert b.orphans(settle=-1) == []


def test_leases_need_postgresql(tmp_path: object) -> None:
    st = open_storage(f"sqlite:///{tmp_path}/x.db")
    try:
        with pytest.raises(ValueError, match="PostgreSQL"):
            Leases(st, "n", 1)
    finally:
        st.close()


def test_group_commit_is_fenced_table_by_table(pg: SqlStorage) -> None:
    from spades.server.cluster import FencedLog

    for tid in ("g1", "g2"):
        _table(pg, tid)
    a, b = Leases(pg, "node-a", 0.3), Leases(pg, "node-b", 30)
    owned = {"g1": a.acquire("g1"), "g2": a.acquire("g2")}
    fenced = FencedLog(pg, a.guard(owned.get))
    assert fenced.append_many([("g1", [_row(1)]), ("g2", [_row(1)])]) == [None, None]
    _stall_past_lease(a, "g2")
    assert b.acquire("g2") == 2  # a stalled past its lease on g2 only
    a.renew()
    errors = fenced.append_many([("g1", [_row(2)]), ("g2", [_row(2)])])
    assert errors[0] is None and isinstance(errors[1], LeaseLost)
    assert [r.seq for r in pg.load_events("g1")] == [1, 2]
    assert [r.seq for r in pg.load_events("g2")] == [1]
