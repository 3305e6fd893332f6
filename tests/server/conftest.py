"""Fixtures: a live server with a fresh SQLite database per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from spades.server.config import ServerConfig

from .harness import LiveServer, Player


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Start servers (``live(**config)``) on ``tmp_path/spades.db``; all stopped at the end."""
    started: list[LiveServer] = []

    def start(**kw: Any) -> LiveServer:
        kw.setdefault("bot_delay", 0.0)
        kw.setdefault("rate_per_second", 500.0)
        kw.setdefault("rate_burst", 1000.0)
        kw.setdefault("database_url", f"sqlite:///{tmp_path / 'spades.db'}")
        srv = LiveServer(ServerConfig(**kw)).start()
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
