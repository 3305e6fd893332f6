"""The rules engine: pure rules, no I/O, no global random state.

The public API, re-exported here: cards (``parse_face``, ``card_text``), the rule set (``Rules``,
``OPTIONS``), actions, a hand's phase machine (``Hand``, ``Phase``), the game (``Game``), scoring
(``score_hand``), per-seat views (``view``), the named presets (``PRESETS``, ``load_rules``) and the
record format (``game_from_record``, ``read_record``, ``record_of``).
"""

from spades.core.actions import (
    BLIND_NIL,
    NIL,
    Accept,
    Action,
    Bid,
    BidValue,
    Discard,
    Draw,
    Look,
    Misdeal,
    Pass,
    Play,
)
from spades.core.cards import Card, CardSet, card_name, card_text, cards_of, parse_face
from spades.core.errors import CardError, IllegalActionError, RecordError, RulesError, SpadesError
from spades.core.game import Game, HandResult, seeded_shuffler
from spades.core.hand import Hand, HandContext, Phase, Trick, deal_order
from spades.core.presets import PRESETS, Preset, load_rules
from spades.core.record import game_from_record, parse_bid, read_record, record_of
from spades.core.rules import OPTIONS, Layout, Rules
from spades.core.scoring import ScoreLine, SideScore, apply_bags, score_hand
from spades.core.view import GameView, HandView, action_to_dict, hand_from_view, view, view_game, view_hand

__all__ = [
    "BLIND_NIL", "NIL", "OPTIONS", "PRESETS", "Accept", "Action", "Bid", "BidValue", "Card", "CardError", "CardSet",
    "Discard", "Draw", "Game", "GameView", "Hand", "HandContext", "HandResult", "HandView", "IllegalActionError",
    "Layout", "Look", "Misdeal", "Pass", "Phase", "Play", "Preset", "RecordError", "Rules", "RulesError",
    "ScoreLine", "SideScore", "SpadesError", "Trick", "action_to_dict", "apply_bags", "card_name", "card_text",
    "cards_of", "deal_order", "game_from_record", "hand_from_view", "load_rules", "parse_bid", "parse_face",
    "read_record", "record_of", "score_hand", "seeded_shuffler", "view", "view_game", "view_hand",
]
