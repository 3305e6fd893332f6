"""Events carry the change, end to end: over a live server, two people, two bots, a spectator and a late
joiner follow a game by applying each event to the state they had (the test socket applies them with
``spades.core.view.apply_event``, as the page does with its twin);
asked for their whole state (``{"type": "state"}``) after every move of a person, each gets exactly the
state its events led to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .harness import LiveServer, Player, Sock, settle
from .test_play import concrete


def whole_state(s: Sock) -> tuple[Any, Any]:
    """The state the socket's events led to, and the whole state the server answers ``state`` with."""
    s.send({"type": "state"})
    while True:
        before = s.state
        m = s.recv()
        if m.get("type") == "state":
            return before, m["state"]


# A whole game over a live socket (about 20 s): slow; tests/server/test_events.py covers every preset in process.
@pytest.mark.slow
def test_the_state_the_events_lead_to_is_the_servers(live: Callable[..., LiveServer]) -> None:
    srv = live(bot_delay=0.0)
    ps = [Player(srv.url, srv.ws_url) for _ in range(4)]
    r = ps[0].http.post("/api/tables", json={"rules": {"preset": "standard", "target": 100}, "public": True,
                                             "turn_seconds": None})
    tid = r.json()["id"]
    humans = {0: ps[0].sock(tid)}
    humans[2] = ps[1].sock(tid)
    humans[2].send({"type": "sit", "seat": 2, "id": "sit"})
    humans[2].until(lambda m: m.get("id") == "sit")
    watcher = ps[2].sock(tid)
    humans[0].send({"type": "fill", "level": "random", "id": "fill"})
    socks = [*humans.values(), watcher]
    settle(socks, 0.2)
    late: Sock | None = None
    changes = compared = 0
    for move in range(90):
        settle(socks, 0.05)
        if move == 20:
            late = ps[3].sock(tid)  # a late joiner: a snapshot, then changes
            socks.append(late)
        for s in socks:
            mine, theirs = whole_state(s)
            assert mine == theirs, (move, s.view and s.view.get("seat"))
            compared += 1
        state = socks[0].state
        assert state is not None
        if state["over"]:
            break
        seat = state["view"]["to_act"]
        if seat not in humans:
            continue
        legal = humans[seat].view["legal"]  # type: ignore[index]
        plays = [a for a in legal if "play" in a]
        bids = [a for a in legal if isinstance(a.get("bid"), int)]
        action = plays[0] if plays else bids[0] if bids else concrete(next(a for a in legal if "misdeal" not in a))
        assert humans[seat].act(action)["type"] == "ack"
    for s in socks:
        changes += sum("change" in m for m in s.received)
    # The game's length is the deal's (a game to 100 can end within a few hands): the floor is what the loop
    # itself guarantees once the late joiner came in at move 20 (21 rounds of at least three sockets).
    assert late is not None and compared > 21 * 3 and changes > 21 * 3
