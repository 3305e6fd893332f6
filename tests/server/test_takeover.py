"""Bots in seats: a bot plays a dropped seat when its turn times out and hands it back mid-hand with
the right cards; a player who stands can take the seat back; the table never stalls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .harness import LiveServer, Player, Sock, event, seat_four, settle, wait_turn
from .test_play import choose

RULES = {"preset": "standard", "target": 100}


def my_cards_now(start: list[str], seat: int, events: list[dict[str, Any]]) -> set[str]:
    """A seat's cards: what it held, less what it has played since (no exchanges in these rules)."""
    played = {event(m)["action"]["play"] for m in events
              if event(m).get("kind") == "action"
              and event(m)["action"]["seat"] == seat and "play" in event(m)["action"]}
    return set(start) - played


@pytest.mark.slow  # waits out real turn timers (about 6 s)
def test_bot_takes_a_dropped_seat_and_hands_it_back(live: Callable[..., LiveServer]) -> None:
    srv = live(time_scale=0.2)  # a 25 s turn lasts 5 s (long enough for a loaded machine to answer its turns)
    tid, ps, socks = seat_four(lambda: Player(srv.url, srv.ws_url), RULES, turn_seconds=25, bot_level="random")
    assert socks[1].view is not None and socks[1].view["to_act"] == 1
    dealt = list(socks[1].view["hand"])
    k = socks[1].seq
    socks[1].close()
    # Seat 1's turn times out: a bot bids for it, and it is marked away.
    m = socks[0].until(lambda m: event(m).get("kind") == "action", timeout=30)
    assert event(m)["action"]["seat"] == 1 and event(m)["by"] == "timeout"
    info = socks[0].until(lambda m: m.get("type") == "table")
    assert info["table"]["seats"][1]["away"] is True
    away_from = len(socks[0].received)  # (on a loaded machine the server may see the socket close only after
    # that first timeout: then a second turn times out before the seat is marked away)
    others = {0: socks[0], 2: socks[2], 3: socks[3]}
    live_socks = [socks[0], socks[2], socks[3]]
    # Play on until two tricks are done (the bot playing seat 1 at once).
    while True:
        seat = wait_turn(live_socks, others)
        assert seat is not None
        v = socks[0].view
        assert v is not None
        if v["phase"] == "play" and len(v["tricks"]) >= 2 and not v["current"]:
            break
        assert others[seat].act(choose(others[seat].view))["type"] == "ack"  # type: ignore[arg-type]
    by_bot = [m for m in socks[0].received[away_from:] if event(m).get("kind") == "action"
              and event(m)["action"]["seat"] == 1]
    assert len(by_bot) >= 1 and {event(m)["by"] for m in by_bot} == {"bot"}
    # Seat 1 comes back mid-hand: caught up, its own cards exactly, no longer away.
    mark = len(socks[0].received)
    back = ps[1].sock(tid, last_seq=k)
    got = back.drain(0.3)
    # Play goes on meanwhile (turns time out every 5 s), so seat 0 may read the newest event after this
    # socket did: it must reach the same number, and this socket's events run on without a gap.
    last = back.seq
    if socks[0].seq < last:
        socks[0].until(lambda m: socks[0].seq >= last, timeout=30)
    seqs = [m["ev"] for m in got if "ev" in m]
    assert seqs[0] == k + 1 and seqs == list(range(k + 1, k + 1 + len(seqs))) and socks[0].seq >= last
    assert back.view is not None and back.view["seat"] == 1
    assert set(back.view["hand"]) == my_cards_now(dealt, 1, got)
    assert len(back.view["hand"]) == 13 - len(back.view["tricks"]) - (1 if any(s == 1 for s, _ in back.view["current"])
                                                                     else 0)
    seen = [m for m in socks[0].received[mark:] if m.get("type") == "table"]
    info = seen[-1] if seen else socks[0].until(lambda m: m.get("type") == "table")
    assert info["table"]["seats"][1]["away"] is False
    # When seat 1's turn comes, the player acts, not the bot.
    humans = {0: socks[0], 1: back, 2: socks[2], 3: socks[3]}
    everyone = [socks[0], back, socks[2], socks[3]]
    for _ in range(20):
        seat = wait_turn(everyone, humans)
        assert seat is not None
        ack = humans[seat].act(choose(humans[seat].view))  # type: ignore[arg-type]
        assert ack["type"] == "ack"
        if seat == 1:
            break
    settle(everyone, 0.1)
    mine = [m for m in back.received if event(m).get("kind") == "action"
            and event(m)["action"]["seat"] == 1]
    assert event(mine[-1])["by"] == "player"


def test_stand_then_reclaim_the_seat(player: Callable[[], Player]) -> None:
    tid, ps, socks = seat_four(player, RULES, bot_level="random")
    dealt = list(socks[2].view["hand"])  # type: ignore[index]
    k = socks[2].seq
    socks[2].send({"type": "stand", "id": "stand"})
    socks[2].until(lambda m: m.get("id") == "stand")
    seat_ev = socks[0].until(lambda m: event(m).get("kind") == "seat")
    assert event(seat_ev)["seat"] == 2 and event(seat_ev)["bot"] and event(seat_ev)["player"] is None
    socks[2].close()
    others = {0: socks[0], 1: socks[1], 3: socks[3]}
    for _ in range(6):  # the bids and a few plays, the bot acting for seat 2
        seat = wait_turn(list(others.values()), others)
        assert seat is not None
        assert others[seat].act(choose(others[seat].view))["type"] == "ack"  # type: ignore[arg-type]
    # Somebody else cannot take the kept seat; its player can.
    stranger = player().sock(tid)
    stranger.send({"type": "sit", "seat": 2, "id": "grab"})
    assert stranger.until(lambda m: m.get("id") == "grab")["code"] == "reserved"
    back = ps[2].sock(tid, last_seq=k)
    back.drain(0.2)
    back.send({"type": "sit", "seat": 2, "id": "again"})
    assert back.until(lambda m: m.get("id") == "again")["type"] == "ack"
    settle([back], 0.2)
    assert back.view is not None and back.view["seat"] == 2
    assert set(back.view["hand"]) == my_cards_now(dealt, 2, back.received)


def test_the_table_never_stalls_when_every_human_leaves(player: Callable[[], Player]) -> None:
    tid, _ps, socks = seat_four(player, {"preset": "standard", "target": 50, "lose_at": -50},
                                 bot_level="random")
    watcher: Sock = player().sock(tid)
    for i, s in enumerate(socks):
        s.send({"type": "stand", "id": f"stand{i}"})
        s.until(lambda m, i=i: m.get("id") == f"stand{i}")
        s.close()
    over = watcher.until(lambda m: event(m).get("kind") == "over", timeout=60)
    assert event(over)["winner"] is not None
