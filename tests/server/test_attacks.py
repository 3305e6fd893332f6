"""Issue 15's WebSocket findings, each as the attack that worked: odd inputs answered with ``internal``
(a superscript bid, a bid of thousands of digits, a bot level as a list), chat keeping bidi and
zero-width characters, and taking a bot's seat mid-hand to see its cards."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .harness import LiveServer, Player, Sock, seat_four, seat_to_act, settle
from .test_bad_inputs import assert_unchanged, error_for

RULES = {"preset": "standard", "target": 100, "blind_behind": 0}


def test_odd_bids_and_levels_are_named_errors(live: Callable[..., LiveServer]) -> None:
    server = live(max_message_bytes=16384)
    tid, ps, socks = seat_four(lambda: Player(server.url, server.ws_url), RULES)
    s = socks[seat_to_act(socks)]
    assert s.act({"look": True})["type"] == "ack"
    settle(socks, 0.1)
    seq = s.seq
    for bad in ("²", "blind ²", "٣", "1" * 4300, "blind " + "9" * 5000):
        m = s.act({"bid": bad})
        assert m["type"] == "error" and m["code"] == "illegal", (bad[:10], m)
        assert "is not a bid" in m["reason"] and len(m["reason"]) < 200, m
    for level in (["normal"], {"a": 1}, 3, True):
        m = error_for(s, {"type": "fill", "level": level})
        assert m["code"] == "bad_level" and "level" in m["reason"], m
    settle(socks, 0.1)
    assert_unchanged(ps[0], tid, seq)
    assert s.act({"bid": 3})["type"] == "ack"  # the socket is still usable


def test_chat_drops_bidi_and_zero_width(player: Callable[[], Player]) -> None:
    p = player()
    tid = p.http.post("/api/tables", json={"rules": "standard"}).json()["id"]
    s = p.sock(tid)
    s.send({"type": "chat", "id": "c1", "text": "gl\u202e\u2066hf\u200b\u200c\u200d\u2060\ufeff\u200e\u200f!"
                                                 "\u202a\u202b\u202c\u202d\u2067\u2068\u2069"})
    ev = s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "chat")
    assert ev["event"]["text"] == "glhf!"
    s.send({"type": "chat", "id": "c2", "text": "\u200b\u202e\ufeff"})
    assert s.until(lambda m: m.get("id") == "c2")["code"] == "chat_length"


def sit(s: Sock, seat: int, cid: str) -> dict[str, Any]:
    s.send({"type": "sit", "seat": seat, "id": cid})
    return s.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == cid)
