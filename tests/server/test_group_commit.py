"""The group commit gathers moves while they keep coming (``Hub.commit_gather``, issue 19): a write with
nothing before it goes at once, and so does one with a single table's rows before it; when the rows of
several tables were waiting as a write ended they wait the gathering window for more and go in one
transaction; every move is still acknowledged only once it is stored."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from typer.testing import CliRunner

from spades.cli import app as cli
from spades.server.hub import Hub
from spades.storage.base import DuplicateError, EventRow, StorageBusy, TableRow
from spades.storage.memory import MemoryStorage

TABLES = ("t1", "t2", "t3", "t4")


class Recording(MemoryStorage):
    """Records the tables of each group commit; the first one waits for ``release`` (a write under way)."""

    def __init__(self) -> None:
        super().__init__()
        self.commits: list[list[str]] = []
        self.writing = threading.Event()
        self.release = threading.Event()

    def append_many(self, batches: list[tuple[str, list[EventRow]]]) -> list[Exception | None]:
        if not self.commits:
            self.writing.set()
            assert self.release.wait(10)
        self.commits.append([tid for tid, _ in batches])
        return super().append_many(batches)


def _storage() -> Recording:
    storage = Recording()
    owner = storage.create_player("Ann")
    for tid in TABLES:
        storage.create_table(TableRow(tid, "standard", {}, True, None, owner.id, time.time()))
    return storage


def _row(seq: int = 1) -> list[EventRow]:
    return [EventRow(seq, "chat", {"name": "Ann", "player": None, "text": "hi"}, None, None, None)]


async def _moves_during_a_write(hub: Hub, storage: Recording, waiting: tuple[str, ...], late: str) -> list[Any]:
    """t1 is being written when the tables ``waiting`` move; ``late`` moves a moment after that write ends."""
    first = asyncio.create_task(hub._store("t1", _row()))
    while not storage.writing.is_set():
        await asyncio.sleep(0.001)
    behind = [asyncio.create_task(hub._store(tid, _row())) for tid in waiting]
    await asyncio.sleep(0.01)  # they wait behind the write under way
    storage.release.set()
    await first
    await asyncio.sleep(0.02)  # the write has ended
    last = asyncio.create_task(hub._store(late, _row()))
    return await asyncio.gather(*behind, last)


@pytest.mark.parametrize(("gather", "commits"), [
    (2.0, [["t1"], ["t2", "t3", "t4"]]),  # (a window far longer than t4 takes to come): gathered
    (0.0, [["t1"], ["t2", "t3"], ["t4"]]),  # no window: each waits only for the write before it
])
def test_several_tables_waiting_when_a_write_ends_gather_the_next_moves_into_one_commit(
        gather: float, commits: list[list[str]]) -> None:
    async def run() -> None:
        storage = _storage()
        hub = Hub(storage, commit_gather=gather)
        try:
            await _moves_during_a_write(hub, storage, ("t2", "t3"), "t4")
        finally:
            await hub.stop()
        assert storage.commits == commits
        assert [len(storage.load_events(tid)) for tid in TABLES] == [1, 1, 1, 1]  # each stored, once

    asyncio.run(run())


def test_one_table_waiting_when_a_write_ends_is_written_at_once() -> None:
    """A lightly loaded server: one table's rows behind a write do not wait for a minute's window."""

    async def run() -> None:
        storage = _storage()
        hub = Hub(storage, commit_gather=60.0)
        try:
            await asyncio.wait_for(_moves_during_a_write(hub, storage, ("t2",), "t3"), 10)
        finally:
            await hub.stop()
        assert storage.commits == [["t1"], ["t2"], ["t3"]]

    asyncio.run(run())


def test_a_move_with_nothing_before_it_is_written_at_once() -> None:
    """A gathering window of a minute: a lone move (and the next lone one) does not wait for it."""

    async def run() -> None:
        storage = _storage()
        storage.release.set()
        hub = Hub(storage, commit_gather=60.0)
        try:
            await asyncio.wait_for(hub._store("t1", _row(1)), 10)
            await asyncio.wait_for(hub._store("t1", _row(2)), 10)
        finally:
            await hub.stop()
        assert storage.commits == [["t1"], ["t1"]]

    asyncio.run(run())


def test_a_refused_batch_in_a_group_commit_keeps_only_itself_out() -> None:
    """A batch whose number is used is refused with its error; the batches written with it are stored."""

    async def run() -> None:
        storage = _storage()
        storage.release.set()
        storage.append_events("t2", _row(1))
        hub = Hub(storage, commit_gather=0.5)
        try:
            first = asyncio.create_task(hub._store("t1", _row(1)))
            late = [asyncio.create_task(hub._store("t2", _row(1))), asyncio.create_task(hub._store("t3", _row(1)))]
            await first
            got = await asyncio.gather(*late, return_exceptions=True)
        finally:
            await hub.stop()
        assert isinstance(got[0], DuplicateError) and got[1] is None
        assert [len(storage.load_events(tid)) for tid in TABLES] == [1, 1, 1, 0]

    asyncio.run(run())


@pytest.mark.slow  # it waits out two of the database's timeouts (about 4 s)
def test_a_stalled_commit_answers_busy_for_its_moves_and_those_behind_it() -> None:
    """The database thread stuck in a write for longer than ``storage_wait`` and two seconds (``Hub.db``):
    that write's moves, and then the moves waiting behind it, are answered ``StorageBusy`` instead of
    waiting for ever; the waiting ones are dropped unwritten, and once the thread is free the group commit
    writes again."""

    async def run() -> None:
        storage = _storage()
        hub = Hub(storage, commit_gather=0.0, storage_wait=0.1)
        try:
            first = asyncio.create_task(hub._store("t1", _row()))
            while not storage.writing.is_set():
                await asyncio.sleep(0.001)
            behind = asyncio.create_task(hub._store("t2", _row()))
            started = time.monotonic()
            got = await asyncio.wait_for(asyncio.gather(first, behind, return_exceptions=True), 10)
            took = time.monotonic() - started
            assert all(isinstance(e, StorageBusy) for e in got), got
            assert 2.0 <= took < 8.0, took  # (2.1 s for the stalled write, as much again for the next)
            storage.release.set()
            await asyncio.wait_for(hub._store("t3", _row()), 10)
        finally:
            storage.release.set()
            await hub.stop()
        assert storage.commits == [["t1"], ["t3"]]  # t2 was dropped with its answer; t1's write ended late
        assert [len(storage.load_events(tid)) for tid in TABLES] == [1, 0, 1, 0]

    asyncio.run(run())


def test_serve_refuses_a_gathering_window_out_of_range() -> None:
    for bad in ("-1", "51"):
        r = CliRunner().invoke(cli, ["serve", "--commit-gather-ms", bad])
        assert r.exit_code == 2 and "--commit-gather-ms must be 0 to 50" in r.output, r.output
