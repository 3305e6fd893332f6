"""The one table pipeline with other parts plugged in, in one process (``spades.server.parts``): what the
hub asks its ``Ownership`` and its ``Bus`` at each step. The real cluster parts run in test_cluster.py."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from spades.server.hub import Conn, Hub
from spades.server.parts import LocalOwnership, NoBus, Published
from spades.server.protocol import PROTOCOL_VERSION
from spades.server.table import Seat
from spades.storage.base import TableRow
from spades.storage.memory import MemoryStorage

from .event_streams import drain


class RecordingBus(NoBus):
    """A bus that keeps what the hub gives it; ``watched``: the tables a socket here opened."""

    replicas = True

    def __init__(self) -> None:
        self.published: list[tuple[str, Published]] = []
        self.forwarded: list[tuple[str, str, dict[str, Any]]] = []
        self.watched: set[str] = set()

    async def watch(self, conn: Conn) -> None:
        self.watched.add(conn.table_id)

    def watches(self, table_id: str) -> bool:
        return table_id in self.watched

    def publish(self, table_id: str, update: Published) -> None:
        self.published.append((table_id, update))

    async def forward(self, owner: str, conn: Conn, msg: dict[str, Any]) -> bool:
        self.forwarded.append((owner, conn.table_id, msg))
        return True


class Elsewhere(LocalOwnership):
    """Another process ("there") owns every table; this one is "here"."""

    node = "here"

    def owns(self, table_id: str) -> bool:
        return False

    async def owner_of(self, table_id: str) -> str | None:
        return "there"

    async def start(self) -> None:
        """Takes nothing up."""


def test_the_owner_publishes_each_commit_and_a_replica_forwards_and_follows() -> None:
    async def run() -> None:
        storage = MemoryStorage()
        alice = storage.create_player("Alice")
        owner_bus, replica_bus = RecordingBus(), RecordingBus()
        owner = Hub(storage, bus=owner_bus)
        replica = Hub(storage, ownership=Elsewhere(), bus=replica_bus)
        await owner.start()
        await replica.start()
        try:
            row = TableRow("t1", "standard", {"turn_seconds": None}, True, None, alice.id, time.time())
            await owner.create_table(row, [])
            at_owner, at_replica = Conn(alice, "t1"), Conn(alice, "t1")
            await owner.hello(at_owner, {"v": PROTOCOL_VERSION})
            await replica.hello(at_replica, {"v": PROTOCOL_VERSION})
            assert replica_bus.watched == {"t1"}  # the bus watched the table for the socket here
            assert drain(at_owner)[0]["type"] == drain(at_replica)[0]["type"] == "welcome"

            # On the owner a change runs the whole pipeline: stored, sent here, then published.
            await owner.handle(at_owner, {"type": "chat", "text": "hello", "id": "c1"})
            stored = storage.load_events("t1")
            assert [r.kind for r in stored] == ["chat"]
            event, ack = drain(at_owner)
            assert event["ev"] == 1 and ack["type"] == "ack"
            assert [(tid, [r.seq for r in u.rows]) for tid, u in owner_bus.published] == [("t1", [1])]

            # Elsewhere the same message goes to the owner over the bus, and nothing is written here.
            msg = {"type": "chat", "text": "from afar", "id": "c2"}
            await replica.handle(at_replica, msg)
            assert replica_bus.forwarded == [("there", "t1", msg)]
            assert len(storage.load_events("t1")) == 1

            # What the owner published reaches the replica's socket, in order, without reading the log...
            _, update = owner_bus.published[0]
            assert await replica.follow("t1", update) is False
            got = drain(at_replica)
            assert [m["ev"] for m in got] == [1]
            # ...and a gap (row 2 lost, row 3 published) is filled from the log.
            await owner.handle(at_owner, {"type": "chat", "text": "two", "id": "c3"})
            await owner.handle(at_owner, {"type": "chat", "text": "three", "id": "c4"})
            assert await replica.follow("t1", owner_bus.published[-1][1]) is True
            assert [m["ev"] for m in drain(at_replica)] == [2, 3]
            assert replica.tables["t1"].seq == owner.tables["t1"].seq == 3
        finally:
            await owner.stop()
            await replica.stop()

    asyncio.run(run())


def test_a_takeover_tells_the_replicas_the_away_seats_it_read_from_the_log() -> None:
    """The process that takes a table up publishes the seats the log marks away (it once said none were,
    and every replica then showed a gone player as present until the next move)."""

    async def run() -> None:
        storage = MemoryStorage()
        alice = storage.create_player("Alice")
        first = Hub(storage, bot_delay=0, time_scale=0.02)
        await first.start()
        try:
            row = TableRow("t1", "standard", {"turn_seconds": 1}, True, None, alice.id, time.time())
            seats = [(0, Seat(player=alice.id, name="Alice"))] + [(i, Seat(bot="random")) for i in (1, 2, 3)]
            t = await first.create_table(row, seats)
            for _ in range(400):  # Alice has no socket: her turn runs out and the bot plays for her, away
                if any(r.data.get("away") for r in storage.load_events("t1")):
                    break
                await asyncio.sleep(0.01)
            assert t.away == {0}
        finally:
            await first.stop()
        bus = RecordingBus()
        second = Hub(storage, bus=bus)
        async with second.locks["t1"]:
            taken = await second.take_up("t1", restarted=True)
        assert taken is not None and taken.away == {0}  # read from the log
        assert [(tid, u.away, u.info) for tid, u in bus.published] == [("t1", [0], True)]
        await second.stop()

    asyncio.run(run())
