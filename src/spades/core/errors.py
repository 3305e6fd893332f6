"""Errors raised by the rules engine.

Every error is a ``ValueError`` whose message says, in a player's words, what was tried and why it
is not allowed, so the command line, the server and the browser can show it as it is.
"""

from __future__ import annotations


class SpadesError(ValueError):
    """Base class of every error the engine raises on bad input."""


class CardError(SpadesError):
    """A text that is not a card, or a card that is not in this game's deck."""


class RulesError(SpadesError):
    """A rule set that is unknown, malformed, or cannot be played (names the conflicting options)."""


class IllegalActionError(SpadesError):
    """An action that is not legal in the current position; the state is left untouched."""


class RecordError(SpadesError):
    """A game record that is malformed or contains an illegal deal or action.

    ``hand`` and ``action`` are the indexes (from 0) of the first problem, when it is in a hand.
    """

    def __init__(self, reason: str, hand: int | None = None, action: int | None = None) -> None:
        where = ""
        if hand is not None:
            where = f"hand {hand}" + (f", action {action}" if action is not None else "") + ": "
        super().__init__(where + reason)
        self.reason = reason
        self.hand = hand
        self.action = action
