"""Hints: the computer's suggestion for a seated player's own move, with its reason; it changes nothing."""

from __future__ import annotations

from collections.abc import Callable

from .harness import Player, seat_four, seat_to_act, settle
from .test_bad_inputs import assert_unchanged, error_for

RULES = {"preset": "standard", "target": 100}


def test_hint_suggests_a_legal_move_and_changes_nothing(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, RULES)
    first = seat_to_act(socks)
    s = socks[first]
    seq = s.seq
    s.send({"type": "hint", "id": "h1"})
    m = s.until(lambda x: x["type"] in ("hint", "error", "event"))
    assert m["type"] == "hint" and m["id"] == "h1", m
    legal = s.state["view"]["legal"]
    assert {"seat": first, **{k: v for k, v in m["action"].items() if k != "seat"}} in legal
    assert isinstance(m["reason"], str) and m["reason"]
    assert_unchanged(ps[first], tid, seq)
    # Not your turn: an error with a reason, and nothing changes.
    other = socks[(first + 1) % 4]
    assert error_for(other, {"type": "hint"})["code"] == "not_your_turn"
    assert_unchanged(ps[first], tid, seq)


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
    assert socks[partner].act({"accept": True})["type"] == "ack"
    settle(socks)
    last = seat_to_act(socks)
    assert last == (second + 2) % 4
    assert socks[last].act({"accept": True})["type"] == "error"  # after a nil the partner gives the total
    assert socks[last].act({"bid": 4})["type"] == "ack"
