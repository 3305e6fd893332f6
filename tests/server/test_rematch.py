"""A rematch (``POST /api/tables/{id}/rematch``, spades.server.rematch): after a finished game of two people
and two computers, one asks; the table's description tells the other where the new table is, the new table
has the same rules and settings, the asker and the computers in their old seats and the other person's seat
kept free for them; asking again gives the same table; nobody else may ask, nor before the end."""

from __future__ import annotations

from typing import Any

from .harness import LiveServer, Player, wait_turn
from .test_play import choose

SHORT = {"preset": "standard", "target": 50, "lose_at": -10}


def test_a_rematch_keeps_the_seats_and_tells_everyone(server: LiveServer) -> None:
    host, guest, stranger = (Player(server.url, server.ws_url) for _ in range(3))
    r = host.http.post("/api/tables", json={"rules": SHORT, "public": False, "turn_seconds": 60,
                                            "bot_level": "random"})
    assert r.status_code == 200, r.text
    tid, invite = r.json()["id"], r.json()["invite"]
    hs = host.sock(tid)
    gs = guest.sock(tid, invite=invite)
    gs.send({"type": "sit", "seat": 2, "id": "sit2"})
    assert gs.until(lambda m: m.get("id") == "sit2")["type"] == "ack"
    hs.send({"type": "fill", "id": "fill", "level": "random"})
    assert hs.until(lambda m: m.get("id") == "fill")["type"] == "ack"
    early = guest.http.post(f"/api/tables/{tid}/rematch", json={})
    assert early.status_code == 409 and early.json()["error"]["code"] == "not_over"
    humans = {0: hs, 2: gs}
    while (seat := wait_turn([hs, gs], humans, timeout=30)) is not None:
        view: Any = humans[seat].view
        humans[seat].act(choose(view))
    assert stranger.http.post(f"/api/tables/{tid}/rematch", json={}).status_code == 403
    asked = host.http.post(f"/api/tables/{tid}/rematch", json={})
    assert asked.status_code == 200, asked.text
    new = asked.json()
    assert new["seat"] == 0 and new["by"] == host.me["name"] and new["invite"]
    # The guest's page hears of it in the table's description.
    told = gs.until(lambda m: m.get("type") == "table" and (m["table"].get("rematch") or {}).get("id") == new["id"])
    assert told["table"]["rematch"]["invite"] == new["invite"]
    again = guest.http.post(f"/api/tables/{tid}/rematch", json={})
    assert again.status_code == 200 and again.json()["id"] == new["id"] and again.json()["seat"] == 2
    ns = guest.sock(new["id"], invite=new["invite"])
    table: Any = ns.table
    ns.close()
    kinds = [s["kind"] for s in table["seats"]]
    assert kinds == ["human", "bot", "empty", "bot"], table["seats"]
    assert table["rules"] == SHORT and table["turn_seconds"] == 60 and table["public"] is False
    hs.close()
    gs.close()
