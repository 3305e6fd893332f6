"""Issue 15, finding 4, the table's side: one player's sockets are bounded, their chat lines are counted
across all their sockets, and tables nobody uses leave memory and come back from their log exactly."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from .harness import LiveServer, Player, settle
from .test_play import choose


def test_sockets_per_player_are_bounded(live: Callable[..., LiveServer]) -> None:
    server = live(sockets_per_player=3)
    p = Player(server.url, server.ws_url)
    tid = p.http.post("/api/tables", json={"rules": "standard"}).json()["id"]
    socks = [p.sock(tid) for _ in range(3)]
    extra = p.sock(tid, hello=False)
    m = extra.recv()
    assert m["type"] == "error" and m["code"] == "too_many_sockets" and m["quota"] == "sockets", m
    with pytest.raises(ConnectionClosed):
        extra.recv(timeout=5)
    assert extra.conn.close_code == 1008
    other = Player(server.url, server.ws_url).sock(tid)  # another player is not counted with this one
    server.wait_sockets(tid, 4)
    socks[0].close()
    server.wait_sockets(tid, 3)  # the server counts a socket until its handler lets it go
    again = p.sock(tid)  # one closed: one more may open
    again.send({"type": "ping"})
    assert again.until(lambda x: x.get("type") == "pong")
    other.close()


def chat_flood(p: Player, tid: str, sockets: int, lines: int) -> tuple[int, list[dict[str, Any]]]:
    """Every socket of ``p`` sends ``lines`` chat lines at once; the number acknowledged and the errors."""
    socks = [p.sock(tid) for _ in range(sockets)]
    for i, s in enumerate(socks):
        for k in range(lines):
            s.send({"type": "chat", "id": f"c{i}-{k}", "text": f"spam {i} {k}"})
    acks, errors = 0, []
    for s in socks:
        for _ in range(lines):
            m = s.until(lambda x: x.get("type") in ("ack", "error"))
            if m.get("type") == "ack":
                acks += 1
            else:
                errors.append(m)
    settle(socks, 0.1)
    return acks, errors


def test_chat_is_counted_across_a_players_sockets(player: Callable[[], Player]) -> None:
    p = player()
    tid = p.http.post("/api/tables", json={"rules": "standard"}).json()["id"]
    t0 = time.monotonic()
    acks, errors = chat_flood(p, tid, 10, 3)
    took = time.monotonic() - t0
    assert acks <= 5 * (took + 1), (acks, took)  # the default: 5 lines a second per player
    assert errors and all(e["code"] == "rate_limited" and e["quota"] == "chat" and e["retry_after"] >= 1
                          for e in errors), errors[:3]
    # Somebody else at the table still chats.
    q = player()
    s = q.sock(tid)
    s.send({"type": "chat", "id": "hi", "text": "hello"})
    assert s.until(lambda x: x.get("id") == "hi")["type"] == "ack"


@pytest.mark.slow  # plays whole hands over a live socket (2-5 s)
def test_idle_tables_leave_memory_and_come_back_exactly(live: Callable[..., LiveServer]) -> None:
    server = live(idle_table_seconds=0.4)
    hub = server.app.state.hub
    p = Player(server.url, server.ws_url)
    r = p.http.post("/api/play", json={"rules": "standard", "bot_level": "random"})
    tid = r.json()["id"]
    s = p.sock(tid)
    s.until(lambda m: m.get("state") is not None and m["state"]["view"] is not None
            and m["state"]["view"]["to_act"] == 0)
    settle([s], 0.2)
    seq, state = s.seq, s.state
    assert tid in hub.tables
    time.sleep(1.0)
    assert tid in hub.tables  # a socket is open: kept
    s.close()
    end = time.monotonic() + 10
    while tid in hub.tables and time.monotonic() < end:
        time.sleep(0.1)
    assert tid not in hub.tables
    again = p.sock(tid)  # hello loads it from the log
    snap = again.recv()
    assert snap["type"] == "snapshot" and snap["seq"] == seq
    assert {k: v for k, v in snap["state"].items() if k != "turn"} == {k: v for k, v in state.items() if k != "turn"}
    assert again.view is not None
    assert again.act(choose(again.view))["type"] == "ack"
    again.close()
    # The lobby loads a public table too.
    q = Player(server.url, server.ws_url)
    pub = q.http.post("/api/tables", json={"rules": "standard"}).json()["id"]
    end = time.monotonic() + 10
    while pub in hub.tables and time.monotonic() < end:
        time.sleep(0.1)
    assert pub not in hub.tables
    assert any(t["id"] == pub for t in httpx.get(server.url + "/api/lobby").json()["tables"])
    assert pub in hub.tables


