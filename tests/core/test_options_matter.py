"""No option is accepted and ignored: every value of every house rule (each value the property tests draw,
``OPTION_VALUES``) changes the play or the score of some seeded game against the same game without it.

The same seed gives the same shuffles and the same random choices, so two games over rule sets that play
and score alike are identical action for action and point for point; an option the engine accepted but
never read would leave them so. Each value is tried over the first base table that accepts it.
``target``, ``lose_at`` and ``time_limit_minutes`` end games rather than change hands: ``test_game``
checks them (a target, a floor, and a timed game with an injected clock). ``deck: jokers`` is accepted only
with both jokers placed (in ``top_trumps`` or ``removed_cards``), so it never changes alone: the joker
presets' deals, perft counts and scoring tables cover it.
"""

from __future__ import annotations

from typing import Any

import pytest

from spades.core import Game, Rules, RulesError
from spades.core.view import action_to_dict
from spades.variants import load_rules

from .support import play_game
from .test_properties import OPTION_VALUES

BASES: list[dict[str, Any]] = [
    {"preset": "standard"},
    {"preset": "standard", "blind_bids": True, "blind_behind": 0},
    {"preset": "standard", "nil_pass": 2},
    {"preset": "cutthroat"},
    {"preset": "three-handed"},
    {"preset": "six-handed"},
    {"preset": "jokers-54"},
    {"preset": "two-handed"},
]
"""Tables to try a value over, in order (some values need blind bids, a nil exchange, a joker deck...)."""

ENDS = {"target", "lose_at", "time_limit_minutes"}
ALONE_REFUSED = {"deck"}
SHORT = {"target": 300, "lose_at": -300}
"""Every game here is short: ended by a side reaching 300 or falling to -300."""


def trace(game: Game) -> tuple[Any, ...]:
    """Everything a game did: each hand's actions and each side's points."""
    return ([[action_to_dict(a) for a in h.actions] for h in game.hands],
            [[s.points for s in r.sides] for r in game.results], game.winner)


def pairs(name: str, value: Any) -> list[tuple[Rules, Rules]]:
    out = []
    for base in BASES:
        try:
            without = load_rules({**base, **SHORT})
            with_it = load_rules({**base, **SHORT, name: value})
        except RulesError:
            continue
        if with_it != without:
            out.append((without, with_it))
    return out


CASES = [(name, value) for name, values in OPTION_VALUES.items() if name not in ENDS for value in values
         if pairs(name, value)]


def test_every_option_is_tried() -> None:
    # Every option but the three that end games (and deck) has at least one non-default value tried here.
    assert {name for name, _ in CASES} == set(OPTION_VALUES) - ENDS - ALONE_REFUSED


@pytest.mark.parametrize(("name", "value"), CASES, ids=lambda x: str(x))
def test_the_value_changes_some_game(name: str, value: Any) -> None:
    for without, with_it in pairs(name, value):
        for seed in range(12):
            if trace(play_game(without, seed)) != trace(play_game(with_it, seed)):
                return
    pytest.fail(f"{name}={value!r} is accepted but no game played or scored differently with it")
