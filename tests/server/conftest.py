"""Fixtures: a live server per test, on a fresh SQLite database and again on a fresh ``MemoryStorage``
(the ``storage_kind`` parameter), so that the server's behaviour is checked on both storages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from spades.server.config import ServerConfig
from spades.storage import MemoryStorage, Storage, open_storage

from .harness import LiveServer, Player


@pytest.fixture(params=["sqlite", pytest.param("memory", marks=pytest.mark.slow)])
def storage_kind(request: pytest.FixtureRequest) -> str:
    """Which storage this test's servers use. SQLite, what `spades serve` runs on, in the quick `pytest`
    loop; the memory storage too under `./test` (marked slow)."""
    return str(request.param)


@pytest.fixture
def db(storage_kind: str, tmp_path: Path) -> Iterator[Storage]:
    """The storage this test's servers keep their tables in: the SQLite file (opened here too), or the one
    ``MemoryStorage`` every server of the test is given (so a restarted server finds its tables)."""
    if storage_kind == "memory":
        yield MemoryStorage()
        return
    st = open_storage(f"sqlite:///{tmp_path / 'spades.db'}")
    yield st
    st.close()


@pytest.fixture
def live(storage_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Callable[..., LiveServer]]:
    """Start servers (``live(bots=None, ws=None, **config)``) on ``tmp_path/spades.db`` or the test's ``MemoryStorage``
    (``db``); all stopped at the end. ``bots``: the bot levels the hub makes its bots from."""
    started: list[LiveServer] = []
    memory: Storage | None = request.getfixturevalue("db") if storage_kind == "memory" else None

    def start(bots: Any = None, ws: Any = None, **kw: Any) -> LiveServer:
        kw.setdefault("bot_delay", 0.0)
        kw.setdefault("rate_per_second", 500.0)
        kw.setdefault("rate_burst", 1000.0)
        kw.setdefault("database_url", f"sqlite:///{tmp_path / 'spades.db'}")
        more = {} if ws is None else {"ws": ws}  # (the WebSocket protocol uvicorn serves sockets with)
        srv = LiveServer(ServerConfig(**kw), storage=memory, bots=bots, **more).start()
        started.append(srv)
        return srv

    yield start
    for s in started:
        s.stop()


@pytest.fixture
def server(live: Callable[..., LiveServer]) -> LiveServer:
    """One live server with bots acting at once."""
    return live()


@pytest.fixture
def player(server: LiveServer) -> Callable[[], Player]:
    """Make players on ``server``."""
    return lambda: Player(server.url, server.ws_url)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The sync client's plain ``connect(...)`` call (no ``with``) is intended here."""
    for item in items:
        if "tests/server/" in str(item.fspath):
            item.add_marker(pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning"))
