"""Events carry the change: replaying what each viewer receives (each seat, a spectator, a late
spectator and a late second tab) from the state it started with gives, after every batch, exactly the
whole state the server would send it then, in every preset; and no change carries anything that state
does not (so the leak test's guarantee holds for changes as for states)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from spades.core.presets import PRESETS
from spades.core.view import apply_event
from spades.server.protocol import EVENT_ENVELOPE, event_message, event_of

from .event_streams import ViewerStream, run


def strings(value: Any) -> set[str]:
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def replay(s: ViewerStream) -> tuple[int, int]:
    """Replay one viewer's stream, checking every step; (changes applied, whole states received)."""
    state = s.start
    seq = None
    changes = states = 0
    for i, (msgs, expected) in enumerate(s.steps):
        for m in msgs:
            assert "type" not in m and "ev" in m, m
            if seq is not None:
                assert m["ev"] == seq + 1, (s.name, m["ev"], seq)
            seq = m["ev"]
            # The message is the event (``event_message``) plus what the batch brings: read back, it
            # gives the same message again, so no field of an event is lost beside the envelope.
            got = event_of(m)
            assert got is not None and got[0] == seq
            assert event_message(*got) == {k: v for k, v in m.items() if k not in ("change", "state", "table")}
            if "state" in m:
                states += 1
            elif "change" in m:
                assert state is not None, (s.name, "a change came before any state")
                assert strings(m["change"]) <= strings(expected), (s.name, i, m["change"])
                changes += 1
            state = apply_event(state, m)
        if msgs:
            assert state == expected, (s.name, i, msgs[-1])
    return changes, states


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_viewer_replays_to_the_servers_state(preset: str) -> None:
    streams = run(preset, seed=sum(map(ord, preset)), batches=300)
    assert {s.name for s in streams} >= {"seat 0", "spectator", "late spectator", "late seat 0"}
    for s in streams:
        changes, states = replay(s)
        assert changes > states, (s.name, changes, states)  # most events are changes, not whole states


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["standard", "two-handed", "six-handed"])
def test_whole_games_with_the_turn_clock(preset: str) -> None:
    streams = run({"preset": preset, "target": 100, "lose_at": -100}, seed=7, batches=4000, timed=True)
    for s in streams:
        replay(s)
    assert streams[0].steps[-1][1]["over"], "the game should have ended within the batches"


def test_a_change_is_a_fraction_of_the_whole_state() -> None:
    # Sizes, not times: what a change saves is what the protocol is for.
    streams = run("standard", seed=3, batches=200)
    changes = wholes = 0
    for s in streams:
        for msgs, expected in s.steps:
            if msgs and "change" in msgs[-1]:
                changes += len(orjson.dumps(msgs[-1]["change"]))
                wholes += len(orjson.dumps(expected))
    assert 0 < changes < wholes / 8, (changes, wholes)


def test_the_event_message_round_trips_every_kind() -> None:
    # One event of each kind, as project_event gives them: the compact message (protocol version 2) reads
    # back to the same event, and an action shows ``by`` only when it is not a player's.
    events = [
        {"kind": "action", "action": {"seat": 2, "play": "4D"}, "by": "player"},
        {"kind": "action", "action": {"seat": 1, "bid": "blind nil"}, "by": "bot"},
        {"kind": "action", "action": {"seat": 0, "pass": 2}, "by": "timeout"},
        {"kind": "action", "action": {"seat": 0, "draw": True}, "by": "player"},
        {"kind": "seat", "seat": 1, "name": "Ann", "player": "p1", "bot": None},
        {"kind": "claim", "seat": 3, "player": None, "name": ""},
        {"kind": "commit", "hand": 1, "commitment": "c"},
        {"kind": "seed", "hand": 1, "seat": 2, "seed": "s"},
        {"kind": "deal", "hand": 1, "dealer": 0, "commitment": "c", "client_seeds": ["(bot)", "s"]},
        {"kind": "reveal", "hand": 0, "seed": "x", "commitment": "c", "client_seeds": ["(none)"]},
        {"kind": "chat", "name": "Ann", "player": "p1", "text": "hi"},
        {"kind": "over", "winner": 0, "totals": [500, 120]},
    ]
    for e in events:
        fields = e["action"] if e["kind"] == "action" else e
        assert EVENT_ENVELOPE.isdisjoint(set(fields) - {"kind"}), e
        msg = event_message(70, e)
        assert event_of(msg) == (70, e)
        assert ("kind" in msg) == (e["kind"] != "action") and ("by" in msg) == (e.get("by", "player") != "player")
    assert event_message(216, events[0]) == {"ev": 216, "seat": 2, "play": "4D"}
    assert event_of({"type": "ack", "id": "x", "seq": 3}) is None


def test_the_bench_follows_a_version_1_baseline_server() -> None:
    # ``spades bench server --baseline`` may run an older server: its version-1 events are read as version 2.
    from spades.server.bench import _v2_event

    old = {"type": "event", "seq": 5, "event": {"kind": "action", "action": {"seat": 1, "bid": 3}, "by": "bot"},
           "change": {"view": {"to_act": 2}}}
    assert _v2_event(old) == {"ev": 5, "seat": 1, "bid": 3, "by": "bot", "change": {"view": {"to_act": 2}}}
    deal = {"type": "event", "seq": 6, "event": {"kind": "deal", "hand": 0, "dealer": 3}, "state": {"hand": 0}}
    assert _v2_event(deal) == {"ev": 6, "kind": "deal", "hand": 0, "dealer": 3, "state": {"hand": 0}}
