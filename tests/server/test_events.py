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
            assert m["type"] == "event"
            if seq is not None:
                assert m["seq"] == seq + 1, (s.name, m["seq"], seq)
            seq = m["seq"]
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
