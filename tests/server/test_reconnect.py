"""Reconnecting: missing 1, 50 and thousands of events; a forged last-seen number; two tabs on one
seat; an action sent twice is applied once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from spades.server.protocol import PROTOCOL_VERSION

from .harness import LiveServer, Player, Sock, event, seat_four, seat_to_act, settle
from .test_play import choose

RULES = {"preset": "standard", "target": 100}


@pytest.fixture
def server(live: Callable[..., LiveServer]) -> LiveServer:
    """The server of these tests sends chat lines by the hundred to make events: no chat quota."""
    return live(quotas={"chat": "none"})


def chat_lines(s: Sock, count: int, tag: str, batch: int = 200) -> None:
    """Send chat lines in acknowledged batches."""
    for start in range(0, count, batch):
        last = min(count, start + batch) - 1
        for i in range(start, last + 1):
            s.send({"type": "chat", "text": f"{tag} {i}", "id": f"{tag}-{i}"})
        s.until(lambda m, last=last: m.get("type") == "ack" and m.get("id") == f"{tag}-{last}")


def fresh_state(p: Player, tid: str) -> dict[str, Any]:
    """The state of a fresh snapshot."""
    s = p.sock(tid)
    m = s.until(lambda m: m.get("type") == "snapshot")
    s.close()
    return dict(m["state"], turn=None)


def test_reconnect_after_missing_1_and_50_events(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, RULES)
    first = seat_to_act(socks)
    assert first == 1
    k = socks[0].seq
    socks[0].close()
    assert socks[1].act(choose(socks[1].view))["type"] == "ack"  # type: ignore[arg-type]
    back = ps[0].sock(tid, last_seq=k)
    got = back.drain(0.3)
    assert [m["ev"] for m in got] == [k + 1]
    assert event(got[0])["action"]["seat"] == 1 and "state" in got[0]
    assert dict(got[0]["state"], turn=None) == fresh_state(ps[0], tid)
    # Miss 50: two bids and 48 chat lines.
    k = back.seq
    back.close()
    settle(socks[1:], 0.05)
    for seat in (2, 3):
        settle(socks[1:], 0.05)
        assert socks[seat].act(choose(socks[seat].view))["type"] == "ack"  # type: ignore[arg-type]
    chat_lines(socks[1], 48, "hello")
    back = ps[0].sock(tid, last_seq=k)
    got = back.drain(0.3)
    assert [m["ev"] for m in got] == list(range(k + 1, k + 51))
    assert all("ev" in m for m in got) and "state" in got[-1] and "state" not in got[0]
    assert [event(m)["kind"] for m in got[:2]] == ["action", "action"]
    assert event(got[-1]) == {"kind": "chat", "name": ps[1].me["name"], "player": ps[1].me["id"],
                                "text": "hello 47"}
    assert dict(got[-1]["state"], turn=None) == fresh_state(ps[0], tid)
    # It is seat 0's turn and the caught-up client can act.
    assert back.act(choose(back.view))["type"] == "ack"  # type: ignore[arg-type]


@pytest.mark.slow
def test_reconnect_after_thousands_of_events_gets_a_snapshot(live: Callable[..., LiveServer]) -> None:
    # The flood below is 2,000 messages from one socket. The tests' usual limit (500 a second, bursts of
    # 1,000) closed that socket with 1008 whenever the server got through them in under two seconds.
    srv = live(rate_per_second=100_000.0, rate_burst=100_000.0, quotas={"chat": "none"})
    tid, ps, socks = seat_four(lambda: Player(srv.url, srv.ws_url), RULES)
    k = socks[0].seq
    socks[0].close()
    chat_lines(socks[2], 2000, "x")
    back = ps[0].sock(tid, last_seq=k)
    m = back.recv()
    assert m["type"] == "snapshot" and m["seq"] == k + 2000
    assert len(m["chat"]) == 50 and m["chat"][-1]["text"] == "x 1999"
    assert m["state"]["view"]["hand"] is not None and m["state"]["view"]["seat"] == 0


def test_forged_last_seen_numbers(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, RULES)
    seq = socks[0].seq
    for forged in (seq + 1, seq + 10**9, -1):
        s = ps[0].sock(tid, last_seq=forged)
        err = s.recv()
        assert err["type"] == "error" and err["code"] == "bad_last_seq"
        snap = s.recv()
        assert snap["type"] == "snapshot" and snap["seq"] == seq
        s.close()
    s = ps[0].sock(tid, hello=False)
    s.send({"type": "hello", "v": PROTOCOL_VERSION, "last_seq": "12"})
    assert s.recv()["code"] == "malformed"
    s.send({"type": "hello", "v": 1})  # version 1: events in the long envelope, no longer spoken
    err = s.recv()
    assert err["code"] == "version" and "speaks protocol version 2" in err["reason"], err
    s.send({"type": "chat", "text": "before hello"})
    assert s.recv()["code"] == "hello_first"
    s.send({"type": "hello", "v": PROTOCOL_VERSION, "last_seq": seq})
    assert s.recv()["type"] == "welcome" and s.recv()["type"] == "state"


def test_two_tabs_on_one_seat_and_exactly_once(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, RULES)
    tab2 = ps[1].sock(tid)
    snap = tab2.recv()
    assert snap["type"] == "snapshot" and snap["state"]["view"]["seat"] == 1
    assert snap["state"]["view"]["hand"] == socks[1].view["hand"]  # type: ignore[index]
    action = choose(socks[1].view)  # type: ignore[arg-type]
    ack = socks[1].act(action, cid="bid-once")
    assert ack["type"] == "ack"
    seen = tab2.until(lambda m: "ev" in m)
    assert seen["ev"] == ack["seq"] and event(seen)["action"] == {"seat": 1, **action}
    # The same client id again, from either tab: acknowledged, not applied again.
    dup = tab2.act(action, cid="bid-once")
    assert dup == {"type": "ack", "id": "bid-once", "seq": ack["seq"], "duplicate": True}
    dup = socks[1].act({"bid": 5}, cid="bid-once")
    assert dup["duplicate"] is True
    settle([*socks, tab2], 0.2)
    assert socks[0].seq == ack["seq"] and tab2.seq == ack["seq"]
    assert socks[0].view is not None and socks[0].view["to_act"] == 2
    # One tab closing leaves the other working.
    socks[1].close()
    settle(socks[2:], 0.1)
    assert socks[2].act(choose(socks[2].view))["type"] == "ack"  # type: ignore[arg-type]
    assert event(tab2.until(lambda m: "ev" in m))["action"]["seat"] == 2


def test_missed_events_older_than_memory_come_from_the_log_or_a_snapshot(server: LiveServer,
                                                                         player: Callable[[], Player]) -> None:
    """A table keeps only its last few events (``EVENTS_KEEP``); a client that missed more, within the
    resume window, gets them read from the log, and when the log cannot be read, a snapshot (nothing lost,
    no error)."""
    from spades.server.table import EVENTS_KEEP

    tid, ps, socks = seat_four(player, RULES)
    k = socks[0].seq
    socks[0].close()
    chat_lines(socks[1], 3 * EVENTS_KEEP, "old")  # more than a table keeps, fewer than the window
    hub = server.app.state.hub
    assert hub.tables[tid].events_after(k) is None
    back = ps[0].sock(tid, last_seq=k)
    got = back.drain(0.3)
    assert [m["ev"] for m in got] == list(range(k + 1, k + 3 * EVENTS_KEEP + 1))
    assert dict(got[-1]["state"], turn=None) == fresh_state(ps[0], tid)
    k = back.seq
    back.close()
    chat_lines(socks[1], 3 * EVENTS_KEEP, "more")
    log = hub.log
    real = log.load_events

    def unreadable(*args: Any) -> Any:
        raise OSError("the disk is gone")

    log.load_events = unreadable
    try:
        again = ps[0].sock(tid, last_seq=k)
        first = again.until(lambda m: m.get("type") in ("snapshot", "error") or "ev" in m)
    finally:
        log.load_events = real
    assert first["type"] == "snapshot" and first["seq"] == hub.tables[tid].seq
