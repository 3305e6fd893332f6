"""Playing through the server: alone against bots, and four WebSocket clients to the end of a game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .harness import LiveServer, Player, Sock, settle, wait_turn


def concrete(action: dict[str, Any]) -> dict[str, Any]:
    """A legal entry as an action to send: a choice of cards (``{"pass": {"choose": 2, "from": [...]}}``)
    becomes its first cards."""
    for kind in ("pass", "discard"):
        if isinstance(action.get(kind), dict):
            return {"seat": action["seat"], kind: action[kind]["from"][: action[kind]["choose"]]}
    return action


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """A simple legal move from the view: look rather than bid blind, small bids, else the first."""
    legal = view["legal"]
    looks = [a for a in legal if "look" in a]
    if looks:
        return looks[0]
    bids = [a for a in legal if "bid" in a and isinstance(a["bid"], int)]
    if bids:
        return min(bids, key=lambda a: abs(a["bid"] - 3))
    return concrete(next(a for a in legal if "misdeal" not in a))


def test_healthz(server: LiveServer) -> None:
    import httpx

    assert httpx.get(server.url + "/healthz").json() == {"ok": True}


def test_guest_gets_cookie_at_once(server: LiveServer) -> None:
    import httpx

    r = httpx.get(server.url + "/api/me")
    assert r.status_code == 200
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    assert r.json()["name"].startswith("Guest-") and r.json()["guest"] is True


def test_play_alone_against_the_computer(player: Callable[[], Player]) -> None:
    p = player()
    rules = {"preset": "standard", "target": 100, "lose_at": -100}
    r = p.http.post("/api/play", json={"rules": rules, "bot_level": "random"})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    s = p.sock(tid)
    s.until(lambda m: m.get("type") == "snapshot")
    moves = 0
    while not (s.state and s.state["over"]):
        view = s.view
        if view and view["to_act"] == 0 and view["legal"]:
            res = s.act(choose(view))
            assert res["type"] == "ack", res
            moves += 1
        else:
            s.until(lambda m: "state" in m, timeout=30)
    assert s.state is not None and s.state["winner"] is not None
    assert moves > 13
    rec = p.http.get(f"/api/tables/{tid}/record")
    assert rec.status_code == 200 and rec.json()["format"] == "spades-record/1"
    # The record replays, and every deal re-derives from its revealed seed and commitment.
    from spades.shuffle.verify import verify_record
    from spades.variants import read_record

    game = read_record(rec.json())
    assert game.over and list(game.totals) == s.state["totals"]
    checks = verify_record(rec.json())
    assert checks and all(c.ok for c in checks), checks


def test_four_clients_play_a_whole_game(player: Callable[[], Player]) -> None:
    ps = [player() for _ in range(4)]
    rules = {"preset": "standard", "target": 100, "lose_at": -100}
    r = ps[0].http.post("/api/tables", json={"rules": rules, "public": True})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    socks: list[Sock] = [ps[0].sock(tid)]
    for i in range(1, 4):
        s = ps[i].sock(tid)
        s.send({"type": "sit", "seat": i, "id": f"sit{i}"})
        s.until(lambda m: m.get("type") in ("ack", "error") and m.get("id", "").startswith("sit"))
        socks.append(s)
    humans = dict(enumerate(socks))
    while (seat := wait_turn(socks, humans)) is not None:
        res = socks[seat].act(choose(socks[seat].view))  # type: ignore[arg-type]
        assert res["type"] == "ack", res
    settle(socks, 0.1)
    assert all(s.state is not None and s.state["over"] for s in socks)
    winners = {s.state["winner"] for s in socks if s.state}
    assert len(winners) == 1
    for s in socks:
        assert s.state is not None and (max(s.state["totals"]) >= 100 or min(s.state["totals"]) <= -100)
