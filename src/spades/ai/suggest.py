"""Hints: the computer's choice for the seat to act, with a reason a person can read.

One function serves ``spades suggest``, the terminal's hint key and (later) the browser: it gives the
chosen bot only the acting seat's view, the totals and the bag counts.
"""

from __future__ import annotations

from typing import Any

from spades.ai.arena import build_bot
from spades.ai.base import Decision
from spades.core.errors import SpadesError
from spades.core.game import Game
from spades.core.view import action_to_dict, view_hand


def suggest(game: Game, level: str = "normal", seed: int = 0, budget: float | None = None,
            seat: int | None = None) -> tuple[int, Decision]:
    """The seat to act (or ``seat``) and the bot's decision for it; ``SpadesError`` when nothing is to decide."""
    if game.over:
        raise SpadesError("the game is over: there is nothing to suggest")
    if not game.hands or game.hand.is_over:
        raise SpadesError("the hand is over and the next one is not dealt: there is nothing to suggest")
    hand = game.hand
    who = hand.to_act if seat is None else seat
    v = view_hand(hand, who)
    if not v.legal:
        raise SpadesError(f"seat {who} has nothing to do now")
    bot = build_bot(level, seed, budget)
    return who, bot.decide(v, tuple(game.totals), None, tuple(game.bags))


def suggestion_json(seat: int, decision: Decision, level: str) -> dict[str, Any]:
    """The ``spades suggest --json`` shape: ``{"seat", "action" (record shape), "reason", "level"}``."""
    return {"seat": seat, "action": action_to_dict(decision.action), "reason": decision.reason, "level": level}
