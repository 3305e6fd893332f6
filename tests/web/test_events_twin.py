"""The browser's event applier (js/events.js) against the engine's (``spades.core.view.apply_event``):
the event streams of seeded games in every preset, as each viewer receives them (each seat, a spectator,
a late spectator, a late second tab: ``tests/server/event_streams.py``), are replayed in Node, and the
state after every batch must be exactly the whole state the server would send then (and the event the page
reads from each message, eventOf, the one the server's protocol.event_of reads). So the page cannot
drift from the protocol, and it shows what the server means without working out a rule.

Runs in Node (``node`` on the path; CI installs it): without it the test skips on a developer machine and
fails under ``CI=true``.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from server.event_streams import run
from spades.core.presets import PRESETS
from spades.core.view import apply_event
from spades.server.protocol import event_of
from spades.web.api import STATIC_DIR

from .test_scoring_twin import node

APPLIER = STATIC_DIR / "js" / "events.js"

RUNNER = """
import { applyEvent, eventOf } from %s;
let text = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => { text += c; });
process.stdin.on("end", () => {
  const streams = JSON.parse(text);
  const out = streams.map((s) => {
    let state = s.start;
    return s.steps.map((msgs) => {
      for (const m of msgs) state = applyEvent(state, m);
      return [state, msgs.map(eventOf)];
    });
  });
  process.stdout.write(JSON.stringify(out));
});
"""


def replay_in_node(streams: list[dict[str, Any]]) -> list[list[Any]]:
    done = subprocess.run([node(), "--input-type=module", "-e", RUNNER % json.dumps(APPLIER.as_uri())],
                          input=json.dumps(streams), capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


# Node replays a preset's streams in about a second: the quick loop runs the standard one, ./test every preset.
@pytest.mark.parametrize("preset", [p if p == "standard" else pytest.param(p, marks=pytest.mark.slow)
                                    for p in sorted(PRESETS)])
def test_the_browser_applies_every_event_as_the_engine_does(preset: str) -> None:
    node()
    streams = run(preset, seed=sum(map(ord, preset)) + 1, batches=250, timed=preset == "standard")
    sent = [{"start": s.start, "steps": [msgs for msgs, _ in s.steps]} for s in streams]
    got = replay_in_node(sent)
    changes = 0
    for s, states in zip(streams, got, strict=True):
        py = s.start
        for i, ((msgs, expected), (js_state, js_events)) in enumerate(zip(s.steps, states, strict=True)):
            for m in msgs:
                py = apply_event(py, m)
                changes += "change" in m
            if msgs:
                assert py == expected, (s.name, i)
                assert js_state == expected, (preset, s.name, i, msgs)
            # The page reads each message's event (eventOf) as the server's own reader does.
            assert js_events == [event_of(m)[1] for m in msgs], (preset, s.name, i)  # type: ignore[index]
    assert changes > 0
