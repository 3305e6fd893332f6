"""Hints: the computer's suggestion for a seated player's own move, with its reason; it changes nothing.

Each hint is checked against ``spades.ai.suggest.suggest`` run here on the table as the database holds
it (the server's own log, replayed), for the asker's seat: the same action, the same reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from spades.ai.suggest import suggest
from spades.core.view import action_to_dict
from spades.server.table import TableState
from spades.storage import Storage

from .harness import LiveServer, Player, Sock, anonymous_sock, seat_four, seat_to_act, settle, wait_turn
from .test_bad_inputs import assert_unchanged, error_for

RULES = {"preset": "standard", "target": 100}
HINT_KEYS = {"type", "id", "seq", "action", "reason"}


def logged_table(db: Storage, tid: str) -> TableState:
    """The table rebuilt from the server's database (what the server itself holds)."""
    row, rows = db.get_table(tid), db.load_events(tid)
    assert row is not None
    t = TableState(row)
    t.replay(rows)
    return t


def ask(s: Sock, cid: str) -> dict[str, Any]:
    """Send a hint request and return its answer (a hint or an error; no event may come first)."""
    s.send({"type": "hint", "id": cid})
    m = s.until(lambda x: x.get("type") in ("hint", "error", "ack") or "ev" in x)
    assert m["type"] in ("hint", "error") and m.get("id") == cid, m
    return m


def legal_for_client(action: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
    """``action`` is one of the client's legal entries (a pass or discard: the right number of offered cards)."""
    if action in legal:
        return True
    for kind in ("pass", "discard"):
        if kind in action:
            pick = next((e[kind] for e in legal if kind in e and isinstance(e[kind], dict)), None)
            cards = action[kind]
            return (pick is not None and len(cards) == pick["choose"] == len(set(cards))
                    and set(cards) <= set(pick["from"]))
    return False


@pytest.mark.slow
@pytest.mark.parametrize("rules", [
    {"preset": "standard", "target": 100, "blind_behind": 0, "blind_bids": True, "misdeal": True, "nil_pass": 2},
    {"preset": "jokers-54", "target": 100},
], ids=["blind-misdeal-nilpass", "dealer-discard"])
def test_every_hint_matches_suggest_is_legal_goes_only_to_the_asker_and_changes_nothing(
        player: Callable[[], Player], db: Storage, rules: dict[str, Any]) -> None:
    """Four players follow every hint through a whole hand: each is legal in their view, is what
    ``suggest`` says for that seat of the logged table, reaches only the asker, and adds no event."""
    tid, ps, socks = seat_four(player, rules)
    humans = dict(enumerate(socks))
    kinds: set[str] = set()
    asked: dict[int, set[str]] = {i: set() for i in range(4)}
    turns = 0
    while True:
        seat = wait_turn(socks, humans)
        if seat is None or (socks[0].state and socks[0].state["hand"] > 1 and "play" in kinds):
            break  # a whole hand played (one called off as a misdeal does not count)
        assert turns < 400
        s = socks[seat]
        seq = s.seq
        m = ask(s, f"h{turns}")
        asked[seat].add(f"h{turns}")
        assert m["type"] == "hint", m
        assert set(m) == HINT_KEYS and m["seq"] == seq, m
        action, reason = m["action"], m["reason"]
        assert action["seat"] == seat
        assert isinstance(reason, str) and reason
        assert legal_for_client(action, s.view["legal"]), (action, s.view["legal"])
        if "play" in action:
            assert action["play"] in s.view["hand"]
        t = logged_table(db, tid)
        assert t.seq == seq  # asking changed nothing
        who, decision = suggest(t.game, "normal", seat=seat)
        assert who == seat
        assert action == action_to_dict(decision.action, marked=True) and reason == decision.reason
        for i, other in enumerate(socks):  # only the asker hears it
            if i != seat:
                assert not [x for x in other.sync() if x.get("type") == "hint"]
        assert_unchanged(ps[seat], tid, seq)
        kinds |= set(action) - {"seat"}
        act = {k: v for k, v in action.items() if k != "seat"}  # the hint's shape is the action's
        assert s.act(act)["type"] == "ack"
        turns += 1
    assert {"bid", "play"} <= kinds
    for i, sock in enumerate(socks):  # over the whole hand, each socket heard only its own hints
        settle([sock], 0.05)
        heard = {x["id"] for x in sock.received if x.get("type") == "hint"}
        assert heard == asked[i], (i, heard, asked[i])
    assert ("discard" if rules["preset"] == "jokers-54" else "look") in kinds  # a blind decision is hinted too


def test_bad_hint_requests_get_an_error_and_change_nothing(player: Callable[[], Player],
                                                           server: LiveServer) -> None:
    tid, ps, socks = seat_four(player, RULES)
    first = seat_to_act(socks)
    s, other = socks[first], socks[(first + 1) % 4]
    seq = s.seq

    def refused(sock: Sock, msg: Any, code: str) -> None:
        assert error_for(sock, msg)["code"] == code
        assert_unchanged(ps[first], tid, seq)
        for x in socks:
            assert not [m for m in x.sync() if m.get("type") == "hint" or "ev" in m]

    refused(other, {"type": "hint", "id": "n1"}, "not_your_turn")
    refused(s, {"type": "hint", "id": 5}, "malformed")
    refused(s, {"type": "hint", "id": ""}, "malformed")
    refused(s, {"type": "hint", "seat": "1"}, "malformed")
    refused(s, {"type": "hint", "seat": (first + 1) % 4}, "not_your_seat")
    watcher = player().sock(tid)  # a player with a session who sits nowhere
    refused(watcher, {"type": "hint"}, "not_seated")
    refused(anonymous_sock(server.ws_url, tid), {"type": "hint"}, "spectator")
    # Before hello (the socket's table is not known yet).
    early = player().sock(tid, hello=False)
    refused(early, {"type": "hint"}, "hello_first")
    # The asker may name its own seat; the answer is the same.
    s.send({"type": "hint", "id": "mine", "seat": first})
    assert s.until(lambda x: x.get("type") in ("hint", "error"))["type"] == "hint"
    assert_unchanged(ps[first], tid, seq)


def test_no_hint_before_the_game_or_after_it(player: Callable[[], Player]) -> None:
    p = player()
    r = p.http.post("/api/tables", json={"rules": RULES})
    tid = r.json()["id"]
    s = p.sock(tid)
    assert error_for(s, {"type": "hint"})["code"] == "not_started"
    assert_unchanged(p, tid, s.seq)
    # A whole (short) game against random computer players, then a hint.
    made = p.http.post("/api/play", json={"rules": {"preset": "standard", "target": 50, "lose_at": -10},
                                          "bot_level": "random"}).json()
    g = p.sock(made["id"], invite=made["invite"])
    while True:
        seat = wait_turn([g], {0: g}, timeout=30)
        if seat is None:
            break
        legal = g.view["legal"]
        act = {k: v for k, v in legal[0].items() if k != "seat"}
        for kind in ("pass", "discard"):
            if isinstance(act.get(kind), dict):
                act = {kind: act[kind]["from"][:act[kind]["choose"]]}
        assert g.act(act)["type"] == "ack"
    assert error_for(g, {"type": "hint"})["code"] == "over"
    assert_unchanged(p, made["id"], g.seq)


def test_hints_are_off_at_rated_tables(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, RULES, rated=True)
    assert socks[0].table is not None and socks[0].table["rated"] is True
    first = seat_to_act(socks)
    seq = socks[first].seq
    m = error_for(socks[first], {"type": "hint", "id": "r1"})
    assert m["code"] == "rated" and "rated" in m["reason"] and m["id"] == "r1"
    assert_unchanged(ps[first], tid, seq)
    settle(socks, 0.05)


@pytest.mark.slow  # plays whole hands over a live socket (2-5 s)
def test_team_bidding_partner_accepts_or_bids_nil_over_the_socket(player: Callable[[], Player]) -> None:
    """rules.md, team bidding: after a side total "either may still bid nil"; the partner may also let it stand."""
    _, _, socks = seat_four(player, {"preset": "standard", "team_bidding": True, "target": 100})
    first = seat_to_act(socks)
    assert socks[first].act({"bid": 5})["type"] == "ack"
    settle(socks)
    second = seat_to_act(socks)
    assert socks[second].act({"bid": "nil"})["type"] == "ack"  # the other side starts with a nil
    settle(socks)
    partner = seat_to_act(socks)
    assert partner == (first + 2) % 4
    legal = socks[partner].view["legal"]
    assert {"seat": partner, "accept": True} in legal and {"seat": partner, "bid": "nil"} in legal
    # The partner's hint is one of those two choices (or a bid), and is legal.
    m = ask(socks[partner], "tb")
    assert m["type"] == "hint" and legal_for_client(m["action"], legal), m
    assert socks[partner].act({"accept": True})["type"] == "ack"
    settle(socks)
    last = seat_to_act(socks)
    assert last == (second + 2) % 4
    assert socks[last].act({"accept": True})["type"] == "error"  # after a nil the partner gives the total
    assert socks[last].act({"bid": 4})["type"] == "ack"
