"""Computer players behind one small protocol.

A bot sees only a seat's view (``spades.core.view``), never the hidden cards, and returns a
``Decision``: a legal action and a short reason a person can read. ``make_bot(level, seed)`` builds
one by its level name: ``random`` (tests), ``easy``, ``normal``, ``expert`` (search), and
``ismcts`` (a plain information-set MCTS with random rollouts: the research baseline).
"""

from __future__ import annotations

from spades.ai.base import LEVELS, PLAYER_LEVELS, Bot, Decision, RandomBot, make_bot
from spades.ai.bots import EasyBot, ExpertBot, IsmctsBot, NormalBot

LEVELS.update({"easy": EasyBot, "normal": NormalBot, "expert": ExpertBot, "ismcts": IsmctsBot})

__all__ = ["LEVELS", "PLAYER_LEVELS", "Bot", "Decision", "EasyBot", "ExpertBot", "IsmctsBot", "NormalBot",
           "RandomBot", "make_bot"]
