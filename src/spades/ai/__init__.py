"""Computer players behind one small protocol.

A bot sees only a seat's view (``spades.core.view``), never the hidden cards, and returns a
``Decision``: a legal action and a short reason a person can read. ``make_bot(level, seed)`` builds
one by its level name.
"""

from __future__ import annotations

from spades.ai.base import LEVELS, Bot, Decision, RandomBot, make_bot

__all__ = ["LEVELS", "Bot", "Decision", "RandomBot", "make_bot"]
