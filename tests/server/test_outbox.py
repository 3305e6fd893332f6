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
