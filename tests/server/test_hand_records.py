"""A finished game's record from the hand records the log keeps beside it (``EventLog.hand_records``), and
from the log alone for a game begun before they were kept (migration 0007)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import delete

from spades.server.hub import Hub
from spades.server.table import Seat, TableState
from spades.storage import open_storage
from spades.storage import schema as s
from spades.storage.base import TableRow


def test_a_finished_games_record_is_made_of_its_stored_hands_or_of_its_log(tmp_path: Path) -> None:
    """Four computers play a game through the hub on SQLite: the table holds its current hand only, the log
    keeps an entry for every hand it let go, and the stored record is the one a table that kept every hand
    makes from the whole log. With the entries gone (a game begun before they were kept) the record made
    from the log is the same."""
    storage = open_storage(f"sqlite:///{tmp_path / 'spades.db'}")

    async def run() -> None:
        hub = Hub(storage, bot_delay=0.0)
        try:
            row = TableRow("t1", {"preset": "standard", "target": 500, "lose_at": -500},
                           {"bot_level": "random"}, True, None, None, 1.0)
            t = await hub.create_table(row, [(i, Seat(None, f"B{i}", "random")) for i in range(4)])
            for _ in range(3000):
                if storage.game_record("t1") is not None:
                    break
                await asyncio.sleep(0.01)
            record = storage.game_record("t1")
            assert record is not None and t.over and t.let_go >= 1  # (random play: a hand or more)
            assert len(t.game.hands) == 1 and len(storage.hand_records("t1")) == t.let_go
            whole = TableState(row, keep_hands=True)
            whole.replay(storage.load_events("t1"))
            assert record == whole.record() == await hub._record(t)
            assert [hd["seed"] for hd in record["hands"]] == [d["seed"] for d in whole.deals]
            with storage.engine.begin() as c:
                c.execute(delete(s.hand_records))
            assert await hub._record(t) == record  # made from the log
        finally:
            await hub.stop()

    try:
        asyncio.run(run())
    finally:
        storage.close()
