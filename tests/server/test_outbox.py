"""A socket's outbox (``spades.server.hub.Outbox``): messages come out in order, in batches, and a waiting
writer wakes when something is put."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from spades.server.hub import Conn, Outbox


def test_messages_come_out_in_order_once_each() -> None:
    async def go() -> list[list[str | None]]:
        box = Outbox()
        got: list[list[str | None]] = []

        async def writer() -> None:
            while True:
                items = await box.take()
                got.append(items)
                if None in items:
                    return

        task = asyncio.create_task(writer())
        await asyncio.sleep(0)  # the writer waits on an empty box
        box.put("a")
        box.put("b")
        await asyncio.sleep(0)
        box.put("c")
        box.put(None)
        await asyncio.wait_for(task, 1)
        return got

    with ThreadPoolExecutor(1) as pool:  # a loop of its own (a browser test's may run on this thread)
        assert pool.submit(asyncio.run, go()).result() == [["a", "b"], ["c", None]]


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
    """A socket that can take messages at once until ``full``; what it took, in order."""

    def __init__(self) -> None:
        self.took: list[str] = []
        self.full = False

    def write_now(self, text: str) -> bool:
        if self.full:
            return False
        self.took.append(text)
        return True


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
