"""A player's page: the numbers of their finished games, worked out by the server from the stored records,
with the recent games linking to their replays; at phone and desktop sizes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from spades.server.stats import player_stats
from spades.storage.base import GameSeat, TableRow
from spades.storage.sql import open_storage
from spades.web.api import mount

from .conftest import LiveServer, finished_record, screenshot


@pytest.fixture(scope="module")
def stats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Path]]:
    """The whole application on a SQLite file this module can also write finished games into."""
    from spades.server.app import create_app
    from spades.server.config import ServerConfig

    db = tmp_path_factory.mktemp("stats-db") / "spades.db"

    def factory() -> FastAPI:
        app = create_app(ServerConfig(database_url=f"sqlite:///{db}", bot_delay=0.0))
        mount(app)
        return app

    server = LiveServer(factory, lifespan="on")
    server.start()
    yield server, db
    server.stop()


def test_the_player_page(page: Any, stats_server: tuple[LiveServer, Path],
                         viewport: tuple[str, dict[str, int]]) -> None:
    server, db = stats_server
    page.goto(f"{server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    me = page.evaluate("fetch('/api/me').then(r => r.json())")
    storage = open_storage(f"sqlite:///{db}")
    try:
        for k, seed in enumerate((7, 8)):
            record = finished_record(seed)
            tid = f"{viewport[0]}-{k}"
            storage.create_table(TableRow(tid, record["rules"], {}, False, None, me["id"], float(k)))
            storage.finish_game(tid, record, False, 0, [GameSeat(k, me["id"], k % 2, k % 2 == 0, 100)])
        expected = player_stats(storage, me["id"])
    finally:
        storage.close()
    assert expected is not None and expected["hands"] > 0
    page.click("#my-page")
    page.wait_for_selector("html[data-ready=player]", state="attached")
    page.wait_for_selector("#stat-grid .stat")
    assert page.text_content("#player-title") == f"Your games, {me['name']}"
    stats = dict(zip(page.locator("#stat-grid dt").all_text_contents(),
                     page.locator("#stat-grid .stat-value").all_text_contents(), strict=True))
    assert stats["Games played"] == "2"
    assert stats["Contracts made"] == f"{expected['contracts_made']} of {expected['contracts']}"
    assert stats["Nils made"] == f"{expected['nils_made']} of {expected['nils']}"
    assert stats["Points per hand"] == str(expected["points_per_hand"])
    assert page.locator("#recent a").count() == 2
    assert page.get_attribute("#recent a >> nth=0", "href") == f"/replay.html?table={viewport[0]}-1"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"player-{viewport[0]}")
    page.click("#recent a >> nth=0")
    page.wait_for_selector("#replay-title")
