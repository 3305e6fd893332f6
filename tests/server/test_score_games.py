"""Score-keeper games kept on the server: only for signed-in players, each seeing only their own; size
and count limits; a copy changed later on the server is never overwritten; every refusal is worded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from spades.server.routes import score_games as score_games_module

from .harness import LiveServer, Player


def game(gid: str = "g1", updated: float = 1000.0, **extra: Any) -> dict[str, Any]:
    return {"id": gid, "name": "Friday", "created": 900, "updated": updated, "preset": "standard",
            "overrides": {}, "names": ["N", "E", "S", "W"],
            "hands": [{"bids": [3, "nil", 2, 6], "tricks": [5, 1, 3, 4]}], **extra}


def account(player: Callable[[], Player], name: str) -> Player:
    p = player()
    r = p.http.post("/api/register", json={"username": name, "password": "a long password"})
    assert r.status_code == 200, r.text
    return p


def test_save_list_update_and_delete(server: LiveServer, player: Callable[[], Player]) -> None:
    ann = account(player, "ann")
    assert ann.http.get("/api/scoregames").json()["games"] == []
    r = ann.http.put("/api/scoregames/g1", json={"game": game(scored={"totals": [53, -160]}, scoredKey="k")})
    assert r.status_code == 200 and r.json()["ok"] is True
    got = ann.http.get("/api/scoregames").json()["games"]
    assert [g["id"] for g in got] == ["g1"] and got[0]["name"] == "Friday" and got[0]["updated"] == 1000
    assert got[0]["game"] == game()  # kept as sent, without the page's cache of scores
    # A later change replaces it; an older copy does not, and the answer carries the newer one.
    assert ann.http.put("/api/scoregames/g1", json={"game": game(updated=2000, name="Friday night")}).status_code == 200
    stale = ann.http.put("/api/scoregames/g1", json={"game": game(updated=1500)})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "newer_on_server"
    assert stale.json()["game"]["game"]["name"] == "Friday night"
    ann.http.put("/api/scoregames/g2", json={"game": game("g2", updated=3000)})
    assert [g["id"] for g in ann.http.get("/api/scoregames").json()["games"]] == ["g2", "g1"]
    assert ann.http.delete("/api/scoregames/g1").json() == {"ok": True}
    gone = ann.http.delete("/api/scoregames/g1")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "no_game"
    assert [g["id"] for g in ann.http.get("/api/scoregames").json()["games"]] == ["g2"]


def test_only_signed_in_players_and_only_their_own_games(server: LiveServer, player: Callable[[], Player]) -> None:
    ann, bob = account(player, "ann"), account(player, "bob")
    ann.http.put("/api/scoregames/g1", json={"game": game()})
    # Bob sees none of Ann's games, cannot delete them, and his game of the same id is his own.
    assert bob.http.get("/api/scoregames").json()["games"] == []
    assert bob.http.delete("/api/scoregames/g1").status_code == 404
    assert bob.http.put("/api/scoregames/g1", json={"game": game(name="Bob's", updated=5)}).status_code == 200
    assert ann.http.get("/api/scoregames").json()["games"][0]["game"]["name"] == "Friday"
    assert bob.http.get("/api/scoregames").json()["games"][0]["game"]["name"] == "Bob's"
    # A guest and a visitor without a session are told what to do; nothing is stored for them.
    guest = player()
    r = guest.http.put("/api/scoregames/g1", json={"game": game()})
    assert r.status_code == 403 and "sign in" in r.json()["error"]["reason"]
    assert guest.http.get("/api/scoregames").status_code == 403
    nobody = httpx.Client(base_url=server.url, timeout=30)
    r = nobody.get("/api/scoregames")
    assert r.status_code == 401 and r.json()["error"]["code"] == "no_session"
    assert "spades_session" not in nobody.cookies  # no guest is made by asking
    # After logging out, the old cookie no longer reaches Ann's games.
    ann.http.post("/api/logout")
    assert ann.http.get("/api/scoregames").status_code == 401


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("g1", {"game": {**game(), "id": "other"}}, 400, "bad_id"),
        ("bad id!", {"game": game("bad id!")}, 400, "bad_id"),
        ("g1", {"game": game(name="")}, 400, "bad_name"),
        ("g1", {"game": game(name="x" * 81)}, 400, "bad_name"),
        ("g1", {"game": game(updated="soon")}, 400, "bad_updated"),
        ("g1", {"game": game(updated=True)}, 400, "bad_updated"),
        ("g1", {"game": game(hands={"a": 1})}, 400, "bad_hands"),
        ("g1", {"game": game(hands=[{}] * 401)}, 400, "bad_hands"),
        ("g1", {"games": []}, 400, "malformed"),
        ("g1", [1, 2], 400, "malformed"),
        ("g1", {"game": game(notes="x" * (200 * 1024))}, 413, "too_large"),
    ],
    ids=lambda x: str(x)[:30],
)
def test_bad_games_are_refused(server: LiveServer, player: Callable[[], Player], path: str, body: Any,
                               status: int, code: str) -> None:
    ann = account(player, "ann")
    r = ann.http.put(f"/api/scoregames/{path}", json=body)
    assert r.status_code == status and r.json()["error"]["code"] == code, r.text
    assert r.json()["error"]["reason"]
    assert ann.http.get("/api/scoregames").json()["games"] == []


def test_not_json_and_too_many_games(server: LiveServer, player: Callable[[], Player],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ann = account(player, "ann")
    r = ann.http.put("/api/scoregames/g1", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"
    monkeypatch.setattr(score_games_module, "MAX_SCORE_GAMES", 3)
    for k in range(3):
        assert ann.http.put(f"/api/scoregames/g{k}", json={"game": game(f"g{k}")}).status_code == 200
    r = ann.http.put("/api/scoregames/g9", json={"game": game("g9")})
    assert r.status_code == 409 and r.json()["error"]["code"] == "too_many_games"
    # Changing a game already kept still works at the limit.
    assert ann.http.put("/api/scoregames/g1", json={"game": game("g1", updated=5000)}).status_code == 200
