"""An action's client id makes a resend apply once, across restarts too, and the table alone answers it:
the log keeps every client id (migration 0006 dropped its client-id index, so the storage no longer
refuses one; its event numbers still keep a second copy out)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from spades.core.view import action_to_dict
from spades.server.hub import Conn, Hub
from spades.server.protocol import PROTOCOL_VERSION
from spades.server.table import Seat
from spades.storage.base import TableRow
from spades.storage.memory import MemoryStorage


def _conn(player: Any, table_id: str, inbox: list[dict[str, Any]]) -> Conn:
    def write_now(*texts: str) -> bool:
        inbox.extend(json.loads(t) for t in texts)
        return True
    return Conn(player, table_id, write_now=write_now)


def test_a_resent_action_is_applied_once_after_a_restart() -> None:
    storage = MemoryStorage()
    people = [storage.create_player(name) for name in ("Ann", "Bo", "Cy", "Di")]
    row = TableRow("t1", "standard", {"turn_seconds": None}, True, None, people[0].id, time.time())

    async def run() -> None:
        hub = Hub(storage, bot_delay=0, seed_seconds=0.01)  # (the first deal waits that long for seeds)
        await hub.start()
        await hub.create_table(row, [(i, Seat(p.id, p.name)) for i, p in enumerate(people)])
        t = hub.tables["t1"]
        for _ in range(500):
            if t.to_act() is not None:
                break
            await asyncio.sleep(0.01)
        seat = t.to_act()
        assert seat is not None
        action = action_to_dict(t.game.hand.legal_actions(seat)[-1])
        inbox: list[dict[str, Any]] = []
        conn = _conn(people[seat], "t1", inbox)
        await hub.handle(conn, {"type": "hello", "v": PROTOCOL_VERSION, "last_seq": None})
        await hub.handle(conn, {"type": "action", "id": "once", "action": action})
        acks = [m for m in inbox if m.get("type") == "ack"]
        assert len(acks) == 1 and not acks[0].get("duplicate")
        seq = acks[0]["seq"]
        await hub.stop()

        again = Hub(storage, bot_delay=0)  # a restart: the table is rebuilt from the log
        await again.start()
        try:
            inbox2: list[dict[str, Any]] = []
            conn2 = _conn(people[seat], "t1", inbox2)
            await again.handle(conn2, {"type": "hello", "v": PROTOCOL_VERSION, "last_seq": None})
            await again.handle(conn2, {"type": "action", "id": "once", "action": action})
            assert [m for m in inbox2 if m.get("type") == "ack"] == [
                {"type": "ack", "id": "once", "seq": seq, "duplicate": True}]
            assert again.tables["t1"].seq == seq  # nothing new was applied or stored
        finally:
            await again.stop()
        stored = [e for e in storage.load_events("t1") if e.client_id == "once"]
        assert [(e.seq, e.player_id) for e in stored] == [(seq, people[seat].id)]

    asyncio.run(run())
