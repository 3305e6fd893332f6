"""A socket's outbox (``spades.server.hub.Outbox``): messages come out in order, in batches, and the
socket's writer is woken when something is queued (``Conn.wake``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from spades.server.hub import Conn, Outbox

from .harness import LiveServer, Player, seat_four, seat_to_act
from .test_play import choose
from .test_reconnect import fresh_state


def test_messages_come_out_in_order_once_each() -> None:
    box = Outbox()
    box.put("a")
    box.put("b")
    assert box.take_now() == ["a", "b"] and box.busy  # (taken, not yet sent)
    box.put("c")
    box.put(None)
    box.sent()
    assert box.busy and box.take_now() == ["c", None]
    box.sent()
    assert not box.busy and box.take_now() == [] and not box.busy


def test_the_writer_is_woken_only_for_what_is_queued() -> None:
    """A socket's writer runs only while something waits: a message written at once wakes nobody; one
    queued, and the close, wake it."""
    woken: list[int] = []
    sock = _Socket()
    conn = Conn(None, "t", write_now=sock.write_now, wake=lambda: woken.append(len(conn.outbox)))
    conn.send_text("a")
    assert sock.took == ["a"] and woken == []
    sock.full = True
    conn.send_text("b")
    conn.send_text("c")
    assert woken == [1, 2]  # (each time: ``wake`` starts the writer only when none runs)
    conn.close(1000)
    assert woken == [1, 2, 3] and conn.outbox.take_now() == ["b", "c", None]


def test_a_stuck_socket_is_closed_and_then_takes_nothing() -> None:
    conn = Conn(None, "t")
    for i in range(3000):
        conn.send_text(str(i))
    assert conn.closed and conn.close_code == 1008
    items = conn.outbox.take_now()
    assert items[-1] is None and len(items) == 2001  # up to the limit, then the close
    conn.send_text("late")
    assert conn.outbox.take_now() == []


class _Socket:
    """A socket that can take messages at once until ``full``; what it took, in order, and in how many
    writes."""

    def __init__(self) -> None:
        self.took: list[str] = []
        self.writes = 0
        self.full = False

    def write_now(self, *texts: str) -> bool:
        if self.full:
            return False
        self.took.extend(texts)
        self.writes += 1
        return True


def test_held_messages_go_in_one_write_in_order() -> None:
    sock = _Socket()
    conn = Conn(None, "t", write_now=sock.write_now)
    conn.hold()
    conn.send_text("event")
    conn.send_text("ack")
    assert sock.took == [] and len(conn.outbox) == 0  # kept back
    conn.flush()
    assert sock.took == ["event", "ack"] and sock.writes == 1
    conn.send_text("next")  # no longer held
    assert sock.took == ["event", "ack", "next"] and sock.writes == 2
    # A socket that cannot take them now: queued in order for its writer, behind nothing.
    sock.full = True
    conn.hold()
    conn.send_text("b")
    conn.send_text("c")
    conn.flush()
    assert conn.outbox.take_now() == ["b", "c"]
    # Closed meanwhile: what was kept back goes to the writer before the close, and nothing after it.
    sock.full = False
    conn.outbox.sent()
    conn.hold()
    conn.send_text("d")
    conn.close(1000)
    conn.send_text("e")
    conn.flush()
    assert sock.took == ["event", "ack", "next"] and conn.outbox.take_now() == ["d", None]


def test_a_message_is_written_at_once_only_when_nothing_waits_before_it() -> None:
    sock = _Socket()
    conn = Conn(None, "t", write_now=sock.write_now)
    conn.send_text("a")
    assert sock.took == ["a"] and len(conn.outbox) == 0  # written at once: the writer never woke
    sock.full = True
    conn.send_text("b")  # the socket cannot take it: queued for the writer
    sock.full = False
    conn.send_text("c")  # "b" waits before it: queued too, not written past "b"
    assert sock.took == ["a"] and conn.outbox.busy
    taken = conn.outbox.take_now()  # the writer took both and is still sending them
    assert taken == ["b", "c"] and conn.outbox.busy
    conn.send_text("d")
    assert sock.took == ["a"] and conn.outbox.take_now() == ["d"]
    conn.outbox.sent()
    assert not conn.outbox.busy
    conn.send_text("e")
    assert sock.took == ["a", "e"]
    conn.close(1000)
    conn.send_text("f")  # closed: neither written nor queued
    assert sock.took == ["a", "e"] and conn.outbox.take_now() == [None]


def test_a_socket_that_cannot_take_messages_still_closes_at_the_limit() -> None:
    sock = _Socket()
    sock.full = True
    conn = Conn(None, "t", write_now=sock.write_now)
    for i in range(3000):
        conn.send_text(str(i))
    assert conn.closed and conn.close_code == 1008 and sock.took == []


@pytest.mark.parametrize("protocol", [None, WebSocketsSansIOProtocol])
def test_the_sender_gets_the_event_and_then_its_ack(live: Callable[..., LiveServer], protocol: Any) -> None:
    """The event and the ack are held back together while the action is stored and sent (``Conn.hold``):
    written at once in one write (the server's own protocol) or queued for the writer (uvicorn's), the
    event still comes first, right before its ack."""
    srv = live(ws=protocol)
    _, _, socks = seat_four(lambda: Player(srv.url, srv.ws_url), {"preset": "standard", "target": 100})
    for _ in range(6):
        for s in socks:
            s.sync()
        seat = seat_to_act(socks)
        ack = socks[seat].act(choose(socks[seat].view))  # type: ignore[arg-type]
        got = socks[seat].received
        assert ack["type"] == "ack" and got[-1] is ack
        assert got[-2].get("ev") == ack["seq"] and got[-2]["seat"] == seat, got[-2:]


def test_without_writing_at_once_every_message_goes_through_the_writer_in_order(
        live: Callable[..., LiveServer]) -> None:
    """Under uvicorn's own protocol nothing is written at once (it offers no ``SEND_NOW``): every message
    is queued, and each socket's writer starts, sends and stops again at every event. Every socket still
    gets every event in order (``Sock.recv`` checks the numbers) and ends at the server's state."""
    srv = live(ws=WebSocketsSansIOProtocol)
    tid, ps, socks = seat_four(lambda: Player(srv.url, srv.ws_url), {"preset": "standard", "target": 100})
    for _ in range(24):  # the bids and five tricks
        for s in socks:
            s.sync()  # (everything sent so far is in)
        seat = seat_to_act(socks)
        assert socks[seat].act(choose(socks[seat].view))["type"] == "ack"  # type: ignore[arg-type]
    for s, p in zip(socks, ps, strict=True):
        s.sync()
        assert s.state is not None and dict(s.state, turn=None) == fresh_state(p, tid)
    assert srv.app.state.hub.conns[tid]  # (the sockets are still open)
