"""The engine's change for a card played or a bid (``play_payloads``) is exactly what comparing the states gives
(``event_payloads``): in seeded games of every preset, through the hub's own send path
(``table_payloads``), every message a table sends is the one the comparison would have sent, and no event
ever falls back to whole states for want of a state to compare with (``Live``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import spades.server.protocol as protocol
from spades.core.presets import PRESETS, load_rules
from spades.server.protocol import Live, event_payloads, play_payloads

from .event_streams import run


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_engines_change_is_the_comparisons(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    counts: Counter[str] = Counter()
    shadow: dict[str, Any] = {"shown": None, "expected": None}

    def fast(rows: Any, layout: Any, viewers: Any, hand: Any, own: Any, shown: Any, public: Any,
             table: Any = None, clock_free: bool = False) -> Any:
        viewers = list(viewers)
        # What comparing the states sends, kept beside the table's own (which may be a ``Live``).
        shadow["expected"], shadow["shown"] = event_payloads(rows, layout, viewers, public(), own, shadow["shown"],
                                                             table)
        got = play_payloads(rows, layout, viewers, hand, own, shown, public, table, clock_free)
        kind = rows[-1].data["action"]["a"] if len(rows) == 1 and rows[-1].kind == "action" else None
        if got is not None:
            counts["live" if isinstance(got[1], Live) else "fast"] += 1
            counts[f"fast {kind}"] += 1
            assert got[0] == shadow["expected"], rows
        elif kind is not None:
            counts[f"slow {kind}"] += 1
        return got

    def slow(rows: Any, layout: Any, viewers: Any, public: Any, own: Any, shown: Any, table: Any = None) -> Any:
        got = event_payloads(rows, layout, viewers, public, own, shown, table)
        counts["slow"] += 1
        if isinstance(shown, Live):
            counts["whole states for want of a state"] += 1
        else:
            assert got[0] == shadow["expected"], rows
        return got

    monkeypatch.setattr(protocol, "play_payloads", fast)
    monkeypatch.setattr(protocol, "event_payloads", slow)
    run(preset, seed=sum(map(ord, preset)) + 1, batches=300)
    assert counts["whole states for want of a state"] == 0, counts
    # Both paths were taken, and nothing was kept to compare with for most cards (all but a hand's last two).
    assert counts["fast"] > 0 and counts["slow"] > 0 and counts["live"] > counts["fast"], counts
    # Bids, looks and passes take it too where the bids are plain, every one of them (so no state is kept
    # through the bidding and the exchange), but no bid does where rules restrict them.
    plain = load_rules(preset).fast.plain_bids
    assert (counts["fast bid"] > 0) == plain, counts
    if plain:
        assert not counts["slow bid"] and not counts["slow look"] and not counts["slow pass"], counts


def test_looks_and_passes_take_the_engines_change() -> None:
    """A game with looks (a side behind may bid blind) and passes (after a blind nil) sends them all as the
    engine's change: the test above does not only hold cards and bids."""
    counts: Counter[str] = Counter()

    def fast(*args: Any, **kwargs: Any) -> Any:
        got = play_payloads(*args, **kwargs)
        rows = args[0]
        if len(rows) == 1 and rows[0].kind == "action":
            counts[f"{'fast' if got is not None else 'slow'} {rows[0].data['action']['a']}"] += 1
        return got

    with pytest.MonkeyPatch.context() as m:
        m.setattr(protocol, "play_payloads", fast)
        run("standard", seed=7, batches=600)
    assert counts["fast look"] > 0 and counts["fast pass"] > 0, counts
    assert not counts["slow look"] and not counts["slow pass"] and not counts["slow bid"], counts


def test_a_running_clock_takes_the_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the turn clock running the state changes with time: every event is compared."""
    taken: Counter[bool] = Counter()

    def fast(*args: Any, **kwargs: Any) -> Any:
        got = play_payloads(*args, **kwargs)
        taken[got is not None] += 1
        return got

    monkeypatch.setattr(protocol, "play_payloads", fast)
    run("standard", seed=5, batches=120, timed=True)
    assert taken[True] == 0 and taken[False] > 100, taken
