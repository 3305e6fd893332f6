"""The bot protocol, the level registry and the random player (for tests).

A bot sees only a seat's ``HandView`` (``spades.core.view``), the game's totals and, when the
caller knows them, the bag counts; it never receives a ``Hand`` or a ``Game``, so it cannot read
hidden cards. ``decide`` returns a legal action and a short reason by its deadline.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from spades.core.actions import Action
from spades.core.errors import SpadesError
from spades.core.rules import Rules
from spades.core.view import HandView


@dataclass(frozen=True)
class Decision:
    """A bot's choice and why, in a few words for a person ("cover partner's nil")."""

    action: Action
    reason: str


class Bot(Protocol):
    """A computer player. ``decide`` must return one of ``view.legal`` by ``deadline`` (seconds from
    ``time.monotonic``), and must not block an event loop for long: callers run it in a worker.

    ``bags`` (per side, the bag counts before this hand) is optional: without it a bot infers them
    from the totals where the rules allow (with ten-bag penalties a total's last digit is its bags).
    """

    level: str

    def decide(self, view: HandView, totals: tuple[int, ...], deadline: float | None = None,
               bags: tuple[int, ...] | None = None) -> Decision:
        """Choose an action for the viewer's seat."""
        ...


def infer_bags(rules: Rules, totals: Sequence[int], bags: Sequence[int] | None) -> tuple[int, ...]:
    """The bag counts if given, else as the totals show them (ten-bag penalty rules), else zeros."""
    sides = rules.layout.sides_count
    if bags is not None and len(bags) == sides:
        return tuple(bags)
    if rules.bags == "penalty" and rules.bag_limit == 10 and len(totals) == sides:
        return tuple(t % 10 for t in totals)
    return (0,) * sides


def only_action(view: HandView) -> Decision | None:
    """The decision when there is nothing to choose (one legal action); raises when there is none."""
    if not view.legal:
        raise SpadesError("there is no legal action for this seat now")
    if len(view.legal) == 1:
        return Decision(view.legal[0], "the only legal action")
    return None


_SHARED_RNG = random.Random()  # seeded by the operating system


def bot_rng(seed: int | None) -> random.Random:
    """A bot's generator: its own when it is given a seed (a seeded bot plays the same way every time), or,
    unseeded, one generator shared by the process, seeded by the operating system. A generator holds 2.5
    KiB of state: a server with thousands of computer players gives them none each. Its methods are safe
    to call from several threads (each draw is one call holding the interpreter's lock)."""
    return _SHARED_RNG if seed is None else random.Random(seed)


class RandomBot:
    """Plays a uniformly random legal action (seeded). For tests and as the weakest baseline."""

    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        """A random player (``bot_rng``: seeded, its own generator)."""
        self.rng = bot_rng(seed)

    def decide(self, view: HandView, totals: tuple[int, ...], deadline: float | None = None,
               bags: tuple[int, ...] | None = None) -> Decision:
        """Choose at random."""
        only = only_action(view)
        if only is not None:
            return only
        return Decision(self.rng.choice(view.legal), "a random legal choice")


LEVELS: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot}
"""Bot levels by name, weakest first: random, easy, normal, expert (and ismcts, the search baseline).

``spades.ai`` registers the other levels when the package is imported."""

PLAYER_LEVELS = ("easy", "normal", "expert")
"""The levels offered to players on the pages. ``random`` (for tests) and ``ismcts`` (a research baseline for
the arena) are not offered, but the server and the command line still take them by name."""


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of the named level; unknown levels raise ``SpadesError`` listing the known ones."""
    try:
        factory = LEVELS[level]
    except KeyError:
        raise SpadesError(f"unknown level {level!r}; the levels are: {', '.join(LEVELS)}") from None
    return factory(seed)
