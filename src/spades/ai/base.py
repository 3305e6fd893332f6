"""The bot protocol and the random player (for tests)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from spades.core.actions import Action
from spades.core.errors import SpadesError
from spades.core.view import HandView


@dataclass(frozen=True)
class Decision:
    """A bot's choice and why, in a few words for a person ("cover partner's nil")."""

    action: Action
    reason: str


class Bot(Protocol):
    """A computer player. ``decide`` must return one of ``view.legal`` by ``deadline`` (seconds from
    ``time.monotonic``), and must not block an event loop for long: callers run it in a worker."""

    level: str

    def decide(self, view: HandView, totals: tuple[int, ...], deadline: float | None = None) -> Decision:
        """Choose an action for the viewer's seat."""
        ...


class RandomBot:
    """Plays a uniformly random legal action (seeded). For tests and as the weakest baseline."""

    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: HandView, totals: tuple[int, ...], deadline: float | None = None) -> Decision:
        """Choose at random."""
        if not view.legal:
            raise ValueError("there is no legal action for this seat now")
        return Decision(self.rng.choice(view.legal), "a random legal choice")


LEVELS: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot}
"""Bot levels by name, weakest first."""


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of the named level; unknown levels raise ``SpadesError`` listing the known ones."""
    try:
        factory = LEVELS[level]
    except KeyError:
        raise SpadesError(f"unknown level {level!r}; the levels are: {', '.join(LEVELS)}") from None
    return factory(seed)
