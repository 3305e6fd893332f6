"""Commit, then client seeds, then the deal, over real sockets (``docs/fair-dealing.md``, "At the table")."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from spades.core.cards import card_text
from spades.shuffle.verify import derive_hand, verify_record
from spades.variants import load_rules

from .harness import LiveServer, Msg, Player, ServeProcess, Sock, event
from .test_play import choose

RULES = {"preset": "standard", "target": 100, "lose_at": -100}


def events(s: Sock, kind: str) -> list[Msg]:
    """The events of one kind this socket received, in order, with their numbers."""
    return [dict(event(m), seq=m["ev"]) for m in s.received if event(m).get("kind") == kind]


def wait_event(s: Sock, kind: str, hand: int | None = None, timeout: float = 20) -> Msg:
    """The first event of a kind (for a hand) this socket got, waiting for it when it has not come yet."""
    def match(e: Msg) -> bool:
        return hand is None or e.get("hand") == hand
    got = [e for e in events(s, kind) if match(e)]
    if not got:
        s.until(lambda m: event(m).get("kind") == kind and match(event(m)), timeout)
        got = [e for e in events(s, kind) if match(e)]
    return got[0]


def seed_msg(commit: Msg, seed: Any, **extra: Any) -> Msg:
    return {"type": "seed", "hand": commit["hand"], "commitment": commit["commitment"], "seed": seed, **extra}


def reply(s: Sock, msg: Msg, cid: str) -> Msg:
    """Send a message with an id and return its ack or error."""
    s.send(dict(msg, id=cid))
    return s.until(lambda m: m.get("type") in ("ack", "error") and m.get("id") == cid)


def test_the_deal_waits_for_every_players_seed_and_derives_from_them(live: Callable[..., LiveServer]) -> None:
    srv = live(seed_seconds=60.0)  # the window never ends in this test: only the seeds deal
    ps = [Player(srv.url, srv.ws_url) for _ in range(4)]
    long_game = {"preset": "standard", "target": 500, "lose_at": -1000}  # a second hand always follows
    tid = ps[0].http.post("/api/tables", json={"rules": long_game, "turn_seconds": None,
                                               "bot_level": "random"}).json()["id"]
    socks = [ps[0].sock(tid, seeds=True)]
    early = reply(socks[0], {"type": "seed", "hand": 0, "commitment": "0" * 64, "seed": "early"}, "e0")
    assert early["type"] == "error" and early["code"] == "no_commitment"  # nothing to answer yet
    for i in range(1, 4):
        s = ps[i].sock(tid, seeds=True)
        assert reply(s, {"type": "sit", "seat": i}, f"sit{i}")["type"] == "ack"
        socks.append(s)
    commits = [wait_event(s, "commit") for s in socks]
    commit = commits[0]
    assert commit["hand"] == 0 and all(c == commit for c in commits)
    assert set(commit) == {"kind", "hand", "commitment", "seq"}  # never the server seed
    assert socks[0].state is not None and socks[0].state["seeding"] == {
        "hand": 0, "commitment": commit["commitment"], "sent": []}
    mine = ["ann-1", "B0b_2", "c", "d" * 64]
    for i in range(3):
        ack = reply(socks[i], seed_msg(commit, mine[i]), f"seed{i}")
        assert ack["type"] == "ack" and ack["seq"] > commit["seq"]
    socks[3].drain(0.3)
    assert not events(socks[3], "deal")  # three seeds in: still waiting for the fourth
    assert [e["seat"] for e in events(socks[3], "seed")] == [0, 1, 2]
    assert "seed" not in events(socks[3], "seed")[0]  # another player's seed stays theirs until the deal
    assert socks[3].state is not None and socks[3].state["seeding"]["sent"] == [0, 1, 2]
    assert reply(socks[3], seed_msg(commit, mine[3]), "seed3")["type"] == "ack"
    first = next(m for m in socks[3].received if event(m).get("kind") == "deal")
    assert first["table"]["status"] == "playing"  # the page learns the game has begun
    views = []
    for s in socks:
        deal = wait_event(s, "deal")
        assert deal["client_seeds"] == mine and deal["commitment"] == commit["commitment"]
        assert deal["seq"] > max(e["seq"] for e in events(s, "seed")) > commit["seq"]
        if s.state is None or s.state["seeding"] is not None:
            s.until(lambda m: "state" in m and m["state"]["seeding"] is None)
        assert s.state is not None and s.state["view"] is not None
        views.append(s.state["view"])
    again = reply(socks[0], seed_msg(commit, "late"), "late")
    assert again["type"] == "error" and again["code"] == "no_commitment"
    # Everyone stands up: bots play the hand out, the seed is revealed, and the deal re-derives from it.
    for i, s in enumerate(socks):
        assert reply(s, {"type": "stand"}, f"stand{i}")["type"] == "ack"
    reveal = wait_event(socks[0], "reveal", 0, timeout=30)
    assert hashlib.sha256(bytes.fromhex(reveal["seed"])).hexdigest() == commit["commitment"]
    assert reveal["client_seeds"] == mine
    hand = derive_hand(load_rules(long_game), views[0]["dealer"], commit["commitment"], reveal["seed"], mine)
    for seat, view in enumerate(views):
        dealt = sorted(card_text(c) for c in range(52) if hand.dealt[seat] >> c & 1)
        assert sorted(view["hand"]) == dealt
    # The next hand: its commitment comes before its deal; bots' seats give "(bot)".
    deal1 = wait_event(socks[0], "deal", 1, timeout=30)
    nxt = wait_event(socks[0], "commit", 1)
    assert nxt["seq"] < deal1["seq"] and deal1["commitment"] == nxt["commitment"]
    assert deal1["client_seeds"] == ["(bot)"] * 4


def test_forged_and_bad_seed_messages_are_refused(live: Callable[..., LiveServer]) -> None:
    srv = live(seed_seconds=60.0)
    ps = [Player(srv.url, srv.ws_url) for _ in range(2)]
    tid = ps[0].http.post("/api/tables", json={"rules": RULES, "turn_seconds": None}).json()["id"]
    me = ps[0].sock(tid, seeds=True)
    other = ps[1].sock(tid, seeds=True)  # a spectator
    assert reply(me, {"type": "fill", "level": "random"}, "fill")["type"] == "ack"
    commit = wait_event(me, "commit")
    cases = [
        (other, seed_msg(commit, "spectator"), "not_seated"),
        (me, seed_msg(commit, "x", seat=1), "not_your_seat"),
        (me, seed_msg(commit, "x", hand=1), "wrong_hand"),
        (me, seed_msg(commit, "x", commitment="f" * 64), "wrong_commitment"),
        (me, seed_msg(commit, "x", commitment=None), "wrong_commitment"),
        (me, seed_msg(commit, ""), "bad_seed"),
        (me, seed_msg(commit, "e" * 65), "bad_seed"),
        (me, seed_msg(commit, "(bot)"), "bad_seed"),
        (me, seed_msg(commit, "caf\u00e9"), "bad_seed"),
        (me, seed_msg(commit, 12345), "bad_seed"),
        (me, seed_msg(commit, ["a"]), "bad_seed"),
    ]
    for k, (s, msg, code) in enumerate(cases):
        err = reply(s, msg, f"bad{k}")
        assert err["type"] == "error" and err["code"] == code, (msg, err)
        assert err["reason"]
    assert "at most 64 characters" in reply(me, seed_msg(commit, "e" * 65), "long")["reason"]
    assert "character 4, '\u00e9'" in reply(me, seed_msg(commit, "caf\u00e9"), "accent")["reason"]
    me.drain(0.2)
    assert not events(me, "deal") and not events(me, "seed")  # nothing changed
    assert reply(me, seed_msg(commit, "mine"), "good")["type"] == "ack"
    assert wait_event(me, "deal")["client_seeds"] == ["mine", "(bot)", "(bot)", "(bot)"]
    assert events(me, "seed")[0]["seed"] == "mine"  # the sender sees its own seed


def test_a_silent_player_gets_the_default_and_the_table_goes_on(live: Callable[..., LiveServer]) -> None:
    srv = live(seed_seconds=0.3)
    p = Player(srv.url, srv.ws_url)
    tid = p.http.post("/api/tables", json={"rules": RULES, "turn_seconds": None}).json()["id"]
    s = p.sock(tid, seeds=True)  # promises seeds, then sends none
    assert reply(s, {"type": "fill", "level": "random"}, "fill")["type"] == "ack"
    assert wait_event(s, "deal", timeout=10)["client_seeds"] == ["(none)", "(bot)", "(bot)", "(bot)"]


def test_play_alone_with_seeds_every_hand_and_verify_the_record(live: Callable[..., LiveServer]) -> None:
    srv = live(seed_seconds=30.0)
    p = Player(srv.url, srv.ws_url)
    rules = {"preset": "standard", "target": 150, "lose_at": -1000}  # a few hands
    tid = p.http.post("/api/play", json={"rules": rules, "bot_level": "random"}).json()["id"]
    s = p.sock(tid, seeds=True)
    sent: dict[int, str] = {}
    s.until(lambda m: m.get("type") == "snapshot")
    while not (s.state and s.state["over"]):
        seeding = s.state["seeding"] if s.state else None
        view = s.view
        if seeding is not None and seeding["hand"] not in sent and 0 not in seeding["sent"]:
            sent[seeding["hand"]] = f"hand-{seeding['hand']}-seed"
            assert reply(s, seed_msg(seeding, sent[seeding["hand"]]), f"s{seeding['hand']}")["type"] == "ack"
        elif seeding is None and view and view["to_act"] == 0 and view["legal"]:
            assert s.act(choose(view))["type"] == "ack"
        else:
            s.until(lambda m: "state" in m, timeout=30)
    rec = p.http.get(f"/api/tables/{tid}/record").json()
    assert len(rec["hands"]) == len(sent) >= 2
    for i, hd in enumerate(rec["hands"]):
        assert hd["client_seeds"] == [sent[i], "(bot)", "(bot)", "(bot)"]
        assert hashlib.sha256(bytes.fromhex(hd["seed"])).hexdigest() == hd["commitment"]
    checks = verify_record(rec)
    assert checks and all(c.ok for c in checks), checks


@pytest.mark.slow
def test_a_waiting_deal_survives_kill_9_and_takes_the_seed_afterwards(tmp_path: Path) -> None:
    db = tmp_path / "spades.db"
    srv = ServeProcess(db, extra=["--bot-delay", "0", "--seed-seconds", "30"]).start()
    try:
        p = Player(srv.url, srv.ws_url)
        tid = p.http.post("/api/tables", json={"rules": RULES, "turn_seconds": None}).json()["id"]
        s = p.sock(tid, seeds=True)
        assert reply(s, {"type": "fill", "level": "random"}, "fill")["type"] == "ack"
        commit = wait_event(s, "commit")
        s.close()
        srv.kill9()
        srv = ServeProcess(db, port=srv.port, extra=["--bot-delay", "0", "--seed-seconds", "30"]).start()
        back = p.sock(tid, seeds=True)
        snap = back.until(lambda m: m.get("type") == "snapshot")
        assert snap["state"]["seeding"] == {"hand": 0, "commitment": commit["commitment"], "sent": []}
        assert reply(back, seed_msg(commit, "after-the-restart"), "seed")["type"] == "ack"
        deal = wait_event(back, "deal")
        assert deal["commitment"] == commit["commitment"]
        assert deal["client_seeds"] == ["after-the-restart", "(bot)", "(bot)", "(bot)"]
    finally:
        srv.stop()
