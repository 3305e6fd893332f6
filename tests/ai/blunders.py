"""Loading and checking the labelled blunder positions of ``tests/data/blunders/``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from spades.ai.arena import build_bot
from spades.core import Game, action_to_dict, view_hand
from spades.variants import read_record

BLUNDER_DIR = Path(__file__).resolve().parents[1] / "data" / "blunders"


@dataclass
class Position:
    """One labelled position: the game cut before the decision and what must (not) be chosen."""

    name: str
    source: Game | Callable[[], Game]
    """The game, or how to make it: ``load_positions`` replays each record only when a test asks for its
    game (replaying all of them while pytest collects took about 3 s in every worker)."""
    seat: int
    label: str
    expected: list[dict[str, Any]] | None
    forbidden: list[dict[str, Any]] | None

    @property
    def game(self) -> Game:
        """The game cut before the decision (replayed once, on first use)."""
        if not isinstance(self.source, Game):
            self.source = self.source()
        return self.source


def load_positions(directory: Path = BLUNDER_DIR) -> list[Position]:
    """Every blunder position, sorted by file name."""
    out = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        b = data["blunder"]
        out.append(Position(path.stem, partial(read_record, data), b["seat"], b["label"], b.get("expected"),
                            b.get("forbidden")))
    return out


def check(pos: Position, level: str, budget: float | None = None, seed: int = 0) -> tuple[bool, dict[str, Any]]:
    """Whether ``level`` avoids the blunder here, and the action it chose (record shape)."""
    game = pos.game
    assert game.hand.to_act == pos.seat
    bot = build_bot(level, seed, budget)
    d = bot.decide(view_hand(game.hand, pos.seat), tuple(game.totals), None, tuple(game.bags))
    got = action_to_dict(d.action)
    ok = True
    if pos.expected is not None and got not in pos.expected:
        ok = False
    if pos.forbidden is not None and got in pos.forbidden:
        ok = False
    return ok, got
