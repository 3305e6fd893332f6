"""Bad inputs: each is answered with an error message and changes nothing; the game goes on."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from spades.core.cards import parse_face
from spades.server.protocol import PROTOCOL_VERSION

from .harness import LiveServer, Player, Sock, anonymous_sock, seat_four, seat_to_act, settle
from .test_play import choose

RULES = {"preset": "standard", "target": 100, "blind_behind": 0}


def error_for(s: Sock, msg: Any, raw: bool = False) -> dict[str, Any]:
    """Send something and return the error it gets (and check no event follows it)."""
    if raw:
        s.conn.send(msg)
    else:
        s.send(msg)
    m = s.until(lambda x: x.get("type") in ("error", "ack") or "ev" in x)
    assert m["type"] == "error", m
    assert isinstance(m["reason"], str) and m["reason"]
    return m


def assert_unchanged(p: Player, tid: str, seq: int) -> None:
    """A fresh socket that saw ``seq`` has nothing to catch up on."""
    s = p.sock(tid, last_seq=seq)
    m = s.recv()
    assert m["type"] == "state" and m["seq"] == seq, m
    s.close()


def test_bad_messages_and_illegal_bids(player: Callable[[], Player], server: LiveServer) -> None:
    tid, ps, socks = seat_four(player, RULES)
    seq = socks[0].seq
    first = seat_to_act(socks)  # seat 1, left of dealer 0
    s = socks[first]
    other = socks[(first + 1) % 4]
    # Malformed, unknown, oversized, binary, deeply nested.
    assert error_for(s, "{not json", raw=True)["code"] == "malformed"
    assert error_for(s, "[1, 2]", raw=True)["code"] == "malformed"
    assert error_for(s, {"type": "fly"})["code"] == "unknown_type"
    assert error_for(s, {"type": "chat", "text": "x" * 5000})["code"] == "too_large"
    assert error_for(s, b"\x00\x01binary", raw=True)["code"] == "binary"
    nested: Any = 1
    for _ in range(20):
        nested = [nested]
    assert error_for(s, {"type": "action", "id": "n", "action": nested})["code"] == "too_deep"
    assert error_for(s, "[" * 2000 + "]" * 2000, raw=True)["code"] in ("too_deep", "malformed")
    assert error_for(s, {"type": "action", "action": {"bid": 3}})["code"] == "malformed"  # no client id
    assert error_for(s, {"type": "action", "id": "x", "action": {"bid": 3, "play": "AS"}})["code"] == "malformed"
    # Illegal bids: negative, over the maximum, blind nil after looking, out of turn, for another seat.
    assert s.act({"look": True})["type"] == "ack"  # the event (with the new state) comes before the ack
    seq = s.seq
    settle(socks, 0.1)
    for bad in ({"bid": -1}, {"bid": 14}, {"bid": 0}, {"bid": "blind nil"}, {"bid": "lots"}, {"bid": True}):
        m = s.act(bad)
        assert m["type"] == "error" and m["code"] in ("illegal", "malformed"), (bad, m)
    assert other.act({"bid": 3})["code"] == "illegal"  # not their turn
    assert s.act({"seat": (first + 2) % 4, "bid": 3})["code"] == "not_your_seat"
    # Spectators (a player not seated, and an anonymous socket) cannot act.
    watcher = player().sock(tid)
    assert watcher.act({"bid": 3})["code"] == "spectator"
    anon = anonymous_sock(server.ws_url, tid)
    assert error_for(anon, {"type": "action", "id": "z", "action": {"bid": 3}})["code"] == "spectator"
    assert error_for(anon, {"type": "chat", "text": "hi"})["code"] == "spectator"
    for x in socks:
        assert not [m for m in x.drain(0.1) if "ev" in m]
    assert_unchanged(ps[0], tid, seq)
    # Bidding twice: after a legal bid, the same seat bids again.
    assert s.act({"bid": 3})["type"] == "ack"
    assert s.act({"bid": 4})["code"] == "illegal"
    # The game goes on for everybody.
    nxt = socks[(first + 1) % 4]
    nxt.drain(0.1)
    assert nxt.view is not None and nxt.view["to_act"] == (first + 1) % 4
    # An action on a position that has since changed (an older version) is refused as stale.
    nxt.send({"type": "action", "id": "old", "seq": nxt.seq - 1, "action": {"bid": 3}})
    assert nxt.until(lambda m: m.get("id") == "old")["code"] == "stale"
    nxt.send({"type": "action", "id": "now", "seq": nxt.seq, "action": {"look": True}})
    got = nxt.until(lambda m: m.get("id") == "now")
    assert got["type"] == "ack", got


def play_until(socks: list[Sock], pred: Callable[[int, dict[str, Any]], bool], limit: int = 400) -> int:
    """Play simple legal moves until the seat to act, by its own view, satisfies ``pred``."""
    for _ in range(limit):
        settle(socks, 0.05)
        seat = seat_to_act(socks)
        v = socks[seat].view
        assert v is not None
        if pred(seat, v):
            return seat
        assert socks[seat].act(choose(v))["type"] == "ack"
    raise AssertionError("the situation never came")


@pytest.mark.slow  # plays whole hands over a live socket (2-5 s)
def test_cards_not_held_revokes_and_spades_led_early(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, {"preset": "standard", "target": 100})

    def suits(v: dict[str, Any]) -> set[str]:
        return {c[-1] for c in v["hand"]}

    # Bidding done: the opening lead, a spade while unbroken (holding other suits).
    seat = play_until(socks, lambda s, v: v["phase"] == "play" and not v["current"] and not v["broken"]
                      and "S" in suits(v) and suits(v) - {"S"})
    v = socks[seat].view
    assert v is not None
    seq = socks[seat].seq
    spade = next(c for c in v["hand"] if c.endswith("S"))
    assert socks[seat].act({"play": spade})["code"] == "illegal"
    # A card the seat does not hold.
    mine = set(v["hand"])
    missing = next(c for c in (f"{r}{s}" for s in "CDHS" for r in "23456789TJQKA") if c not in mine)
    assert socks[seat].act({"play": missing})["code"] == "illegal"
    assert socks[seat].act({"play": "ZZ"})["code"] == "illegal"
    assert socks[seat].act({"play": 12})["code"] == "illegal"
    assert_unchanged(ps[0], tid, seq)
    # A revoke: following with another suit while holding the suit led.
    seat = play_until(socks, lambda s, v: v["phase"] == "play" and bool(v["current"])
                      and v["current"][0][1][-1] in suits(v) and bool(suits(v) - {v["current"][0][1][-1]}))
    v = socks[seat].view
    assert v is not None
    led = v["current"][0][1][-1]
    off = next(c for c in v["hand"] if c[-1] != led)
    seq = socks[seat].seq
    m = socks[seat].act({"play": off})
    assert m["code"] == "illegal" and "follow suit" in m["reason"]
    assert_unchanged(ps[0], tid, seq)
    assert parse_face(off) >= 0


def test_blind_nil_and_wrong_passes(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, RULES)
    first = seat_to_act(socks)
    assert socks[first].act({"bid": "blind nil"})["type"] == "ack"
    for k in range(1, 4):
        seat = (first + k) % 4
        settle(socks, 0.05)
        s = socks[seat]
        assert s.act({"look": True})["type"] == "ack"
        assert s.act({"bid": 3})["type"] == "ack"
    settle(socks, 0.1)
    v = socks[first].view
    assert v is not None and v["phase"] == "exchange" and v["to_act"] == first
    seq = socks[first].seq
    s = socks[first]
    hand = v["hand"]
    # The view says what to choose (not the 78 pairs of cards): two cards of the player's own.
    assert v["legal"] == [{"seat": first, "pass": {"choose": 2, "from": v["legal"][0]["pass"]["from"]}}]
    assert sorted(v["legal"][0]["pass"]["from"]) == sorted(hand)
    partner = socks[(first + 2) % 4]
    assert partner.view is not None and partner.view["legal"] == []  # the partner passes after
    for bad, why in ((hand[:3], "choose exactly 2 cards to pass to your partner: you chose 3"),
                     (hand[:1], "you chose 1"), ([], "you chose 0"),
                     ([hand[0], hand[0]], "chosen twice"), ([hand[0], "ZZ"], "'ZZ' is not a card")):
        m = s.act({"pass": bad})
        assert m["code"] == "illegal" and why in m["reason"], (bad, m)
    partner_cards = partner.view["hand"]
    m = s.act({"pass": [c for c in partner_cards if c not in hand][:2]})  # cards not held
    assert m["code"] == "illegal" and "not in that hand" in m["reason"], m
    for bad_value in ("2C", [hand[0], 7], {"2C": True}):
        assert s.act({"pass": bad_value})["code"] == "malformed"
    assert s.act({"discard": hand[:2]})["code"] == "illegal"  # not the dealer's discard
    assert partner.act({"pass": partner_cards[:2]})["code"] == "illegal"  # not their turn yet
    assert_unchanged(ps[0], tid, seq)
    assert s.act({"pass": hand[:2]})["type"] == "ack"


def test_foreign_origin_is_refused(server: LiveServer, player: Callable[[], Player]) -> None:
    p = player()
    tid = p.http.post("/api/tables", json={"rules": "standard"}).json()["id"]
    with pytest.raises(InvalidStatus):
        p.sock(tid, origin="https://evil.example")
    ok = p.sock(tid, origin=server.url)
    ok.close()


def test_flood_closes_only_that_socket(live: Callable[..., LiveServer]) -> None:
    srv = live(rate_per_second=5.0, rate_burst=10.0)
    p, q = Player(srv.url, srv.ws_url), Player(srv.url, srv.ws_url)
    tid = p.http.post("/api/tables", json={"rules": "standard"}).json()["id"]
    a, b = p.sock(tid), q.sock(tid)
    a.drain(0.1)
    with pytest.raises(ConnectionClosed) as info:
        for _ in range(200):
            a.send({"type": "ping"})
        while True:
            a.recv(timeout=5)
    assert info.value.rcvd is not None and info.value.rcvd.code == 1008
    b.send({"type": "ping"})
    assert b.until(lambda m: m.get("type") == "pong")["type"] == "pong"


def test_private_table_needs_its_invite(server: LiveServer, player: Callable[[], Player]) -> None:
    p, q = player(), player()
    r = p.http.post("/api/tables", json={"rules": "standard", "public": False}).json()
    assert p.http.get("/api/lobby").json()["tables"] == []
    conn = connect(f"{server.ws_url}/ws/tables/{r['id']}", additional_headers={"Cookie": f"spades_session={q.token}"},
                   ping_interval=None)
    conn.send(json.dumps({"type": "hello", "v": PROTOCOL_VERSION}))
    assert json.loads(conn.recv(timeout=5))["code"] == "forbidden"
    with pytest.raises(ConnectionClosed):
        conn.recv(timeout=5)
    s = q.sock(r["id"], invite=r["invite"])
    assert s.recv()["type"] == "snapshot"
    assert q.http.get(f"/api/invite/{r['invite']}").json() == {"id": r["id"]}


def test_bad_table_settings_are_explained(player: Callable[[], Player]) -> None:
    p = player()
    r = p.http.post("/api/tables", json={"rules": {"preset": "standard", "nil_points": "lots"}})
    assert r.status_code == 400 and "nil_points" in r.json()["error"]["reason"]
    r = p.http.post("/api/tables", json={"rules": "nonsense"})
    assert r.status_code == 400 and "unknown preset" in r.json()["error"]["reason"]
    r = p.http.post("/api/tables", json={"rules": "standard", "turn_seconds": -5})
    assert r.status_code == 400
    r = p.http.post("/api/tables", json={"rules": "standard", "bot_level": "godlike"})
    assert r.status_code == 400
