"""Accounts: a guest claims an account, logs out and in again; login attempt limits; ratings for
rated games, the leaderboard and history."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from .harness import LiveServer, Player, seat_four, wait_turn
from .test_play import choose


def test_guest_claims_an_account_then_logs_in(server: LiveServer, player: Callable[[], Player]) -> None:
    p = player()
    guest_id = p.me["id"]
    r = p.http.post("/api/register", json={"username": "ann", "password": "correct horse"})
    assert r.status_code == 200 and r.json()["id"] == guest_id and r.json()["guest"] is False
    assert p.http.post("/api/register", json={"username": "ann2", "password": "correct horse"}).status_code == 409
    q = player()
    r = q.http.post("/api/register", json={"username": "ann", "password": "another one"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "username_taken"
    assert q.http.post("/api/register", json={"username": "x", "password": "correct horse"}).status_code == 400
    assert q.http.post("/api/register", json={"username": "bobby", "password": "short"}).status_code == 400
    assert p.http.post("/api/logout").json() == {"ok": True}
    fresh = httpx.Client(base_url=server.url, timeout=30)
    r = fresh.post("/api/login", json={"username": "ann", "password": "correct horse"})
    assert r.status_code == 200 and r.json()["id"] == guest_id
    assert "httponly" in r.headers["set-cookie"].lower()
    assert fresh.get("/api/me").json()["id"] == guest_id
    assert "password" not in r.text and "hash" not in r.text


def test_login_attempts_are_limited(server: LiveServer, player: Callable[[], Player]) -> None:
    p = player()
    p.http.post("/api/register", json={"username": "carol", "password": "open sesame"})
    c = httpx.Client(base_url=server.url, timeout=30)
    codes = [c.post("/api/login", json={"username": "carol", "password": f"guess {i}"}).status_code
             for i in range(7)]
    assert codes[:5] == [401] * 5 and codes[5:] == [429, 429]
    # Even the right password waits now.
    assert c.post("/api/login", json={"username": "carol", "password": "open sesame"}).status_code == 429
    assert c.post("/api/login", content=b"[1]").status_code == 400


def test_rated_game_updates_ratings_leaderboard_and_history(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, {"preset": "standard", "target": 50, "lose_at": -50}, rated=True)
    humans = dict(enumerate(socks))
    while (seat := wait_turn(socks, humans)) is not None:
        assert socks[seat].act(choose(socks[seat].view))["type"] == "ack"  # type: ignore[arg-type]
    winner = socks[0].state["winner"]  # type: ignore[index]
    board = ps[0].http.get("/api/leaderboard").json()["players"]
    assert {p["id"] for p in board} == {p.me["id"] for p in ps}
    assert all(p["rated_games"] == 1 for p in board)
    top = {p["id"] for p in board[:2]}
    assert top == {ps[winner].me["id"], ps[winner + 2].me["id"]}
    h = ps[1].http.get(f"/api/players/{ps[1].me['id']}/history").json()
    assert h["games"][0]["table"] == tid and h["games"][0]["won"] == (winner == 1)
    assert h["games"][0]["rated"] is True and h["games"][0]["rating_after"] is not None
    assert ps[1].http.get("/api/players/nobody/history").status_code == 404
