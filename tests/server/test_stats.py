"""A player's statistics (GET /api/players/{id}/stats), worked out by replaying the stored records."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from spades.ai.base import make_bot
from spades.core.game import Game, seeded_shuffler
from spades.core.record import record_of
from spades.core.view import view_hand
from spades.server.app import create_app
from spades.server.config import ServerConfig
from spades.server.stats import player_stats, seat_stats
from spades.storage.base import GameSeat, TableRow
from spades.storage.sql import open_storage
from spades.variants import load_rules

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

SPEC = {"preset": "standard", "target": 200, "lose_at": -200}


def play(seed: int) -> tuple[Game, dict[str, Any]]:
    game = Game(load_rules(SPEC), first_dealer=0, shuffler=seeded_shuffler(seed))
    bots = [make_bot("easy", seed * 10 + s) for s in range(4)]
    while not game.over:
        seat = game.hand.to_act
        game.apply(bots[seat].decide(view_hand(game.hand, seat), tuple(game.totals), None).action)
    return game, record_of(game, SPEC, ["Ann", "Bob", "Cy", "Dee"])


def test_a_seat_in_one_game_matches_the_engine_totals() -> None:
    game, record = play(3)
    for seat in range(4):
        s = seat_stats(record, seat)
        side = game.rules.layout.side_of[seat]
        # The side's points over the hands are the game's total: the replay scored every hand as the engine did.
        assert s.points == game.totals[side]
        assert s.hands == sum(1 for r in game.results if not r.misdeal)
        bids = [r.bids[seat] for r in game.results if r.bids is not None and not r.misdeal]
        assert s.nils + s.blind_nils == sum(1 for b in bids if b is not None and b.is_nil)
        assert s.contracts == sum(1 for b in bids if b is not None and not b.is_nil)
        assert 0 <= s.contracts_made <= s.contracts and 0 <= s.nils_made <= s.nils


@pytest.fixture
def stored(tmp_path: Path) -> Any:
    storage = open_storage(f"sqlite:///{tmp_path / 's.db'}")
    yield storage
    storage.close()


def test_player_stats_over_stored_games(stored: Any) -> None:
    ann = stored.create_player("Ann")
    other = stored.create_player("Bob")
    expected_points = 0
    won = 0
    hands = 0
    for i, seed in enumerate((3, 4, 5)):
        game, record = play(seed)
        tid = f"t{i}"
        stored.create_table(TableRow(tid, SPEC, {}, False, None, ann.id, float(i)))
        seat = i % 4  # Ann sits somewhere else each time
        side = game.rules.layout.side_of[seat]
        did_win = game.winner == side
        won += did_win
        expected_points += game.totals[side]
        hands += sum(1 for r in game.results if not r.misdeal)
        stored.finish_game(tid, record, False, game.winner, [GameSeat(seat, ann.id, side, did_win, game.totals[side])])
    out = player_stats(stored, ann.id)
    assert out is not None
    assert out["games"] == 3 and out["won"] == won and out["hands"] == hands
    assert out["points"] == expected_points
    assert out["points_per_hand"] == round(expected_points / hands, 1)
    assert [g["table"] for g in out["recent"]] == ["t2", "t1", "t0"]
    assert out["recent"][0]["replay"] == "/replay.html?table=t2"
    assert out["contracts_made"] <= out["contracts"] and out["nils_made"] <= out["nils"]
    empty = player_stats(stored, other.id)
    assert empty is not None and empty["games"] == 0 and empty["points_per_hand"] is None
    assert player_stats(stored, "nobody") is None


def test_the_endpoint(tmp_path: Path) -> None:
    app = create_app(ServerConfig(database_url=f"sqlite:///{tmp_path / 'a.db'}"))
    with TestClient(app) as http:
        me = http.get("/api/me").json()
        r = http.get(f"/api/players/{me['id']}/stats")
        assert r.status_code == 200 and r.json()["games"] == 0 and r.json()["player"]["name"] == me["name"]
        missing = http.get("/api/players/nobody/stats")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_player"
