"""Perft for Spades: the number of action sequences of each length from a position, counted with the
engine's legal actions, and (play phase only) with the independent oracle of ``support``.

Regenerate the data file with ``python -m core.perft`` from ``tests/`` after a deliberate rule change.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from spades.core import Game, Hand, Phase, Play, parse_face, record_of, seeded_shuffler
from spades.core.cards import FACES_PER_PACK
from spades.variants import load_rules, read_record

try:
    from .support import choose, oracle_plays
except ImportError:  # run as a script
    from core.support import choose, oracle_plays  # type: ignore[no-redef]

DATA = Path(__file__).resolve().parent.parent / "data" / "perft" / "positions.json"
ABOUT_ADD = (" Blind decisions and a misdeal call (seat 0's cards qualify, seat 1's do not): 10 = blind nil,"
             " blind 6..13, look; 105 = 9 x 10 + 15 (after the look: misdeal, nil, 1..13);"
             " 1077 = 9 x (10 + 80 + 14) + 1 + 14 x 10.")


def perft(hand: Hand, depth: int) -> int:
    """Leaves of the action tree ``depth`` actions deep (a finished hand is a leaf)."""
    if depth == 0 or hand.is_over:
        return 1
    total = 0
    for action in hand.legal_actions():
        hand.apply_unchecked(action)
        total += perft(hand, depth - 1)
        hand.undo()
    return total


def oracle_perft(hand: Hand, depth: int) -> int:
    """The same count in the play phase, with the legal cards from the rules oracle."""
    if depth == 0 or hand.is_over:
        return 1
    assert hand.phase is Phase.PLAY
    total = 0
    for text in sorted(oracle_plays(hand)):
        f = parse_face(text)
        card = f if hand.hands[hand.to_act] >> f & 1 else f + FACES_PER_PACK
        hand.apply_unchecked(Play(hand.to_act, card))
        total += oracle_perft(hand, depth - 1)
        hand.undo()
    return total


def position(record: dict[str, Any]) -> Hand:
    """The last hand of a record, as a position to count from."""
    return read_record(record).hand


# (label, rules, seed, dealer, number of actions to take with a seeded policy, depth)
POSITIONS: list[tuple[str, Any, int, int, int, int]] = [
    ("standard: bidding", "standard", 1, 3, 0, 2),
    ("standard: first lead", "standard", 1, 3, 4, 4),
    ("standard: mid-hand, spades broken", "standard", 2, 0, 4 + 4 * 5, 4),
    ("cutthroat (must_beat): first lead", "cutthroat", 3, 1, 4, 4),
    ("cutthroat (must_beat): mid-hand", "cutthroat", 3, 1, 4 + 4 * 4, 4),
    ("first_lead lowest_club", {"first_lead": "lowest_club"}, 4, 2, 4, 4),
    ("first_lead dealer, first_lead_spade", {"first_lead": "dealer", "first_lead_spade": True}, 4, 2, 4, 4),
    ("spades_lead any_time: mid-hand", {"spades_lead": "any_time"}, 5, 0, 4 + 4 * 3, 4),
    ("nil_pass 2: the exchange", {"nil_pass": 2}, 6, 3, -1, 2),
    ("three-handed: first lead", "three-handed", 7, 2, 3, 4),
    ("three-handed-jokers: first lead", "three-handed-jokers", 8, 0, 3, 4),
    ("two-handed: the draw", "two-handed", 9, 1, 0, 6),
    ("two-handed: first lead", "two-handed", 9, 1, 28, 4),
    ("six-handed: first lead", "six-handed", 10, 5, 6, 3),
    ("six-handed: mid-hand", "six-handed", 10, 5, 6 + 6 * 4, 3),
    ("jokers: first lead", "jokers", 11, 3, 4, 4),
    ("jokers: mid-hand", "jokers", 11, 3, 4 + 4 * 5, 4),
    ("new-york: mid-hand", "new-york", 12, 3, 4 + 4 * 5, 4),
    ("jokers-54: the dealer's discard", "jokers-54", 13, 3, 0, 2),
    ("mirror: bidding", "mirror", 14, 3, 0, 4),
    ("suicide: bidding", "suicide", 15, 3, 0, 3),
    ("team_bidding: bidding", {"team_bidding": True, "min_side_bid": 4}, 16, 3, 0, 3),
    ("blind decisions and a misdeal call", {"misdeal": True, "blind_behind": 0, "blind_bids": True}, 18, 3, 0, 3),
]


def build(rules_spec: Any, seed: int, dealer: int, steps: int) -> dict[str, Any]:
    """A record of a game dealt with ``seed``, after ``steps`` actions (bids of 3 where possible, then
    seeded random plays). ``steps == -1``: bid 3, nil, 3, 3 and stop at the exchange."""
    rules = load_rules(rules_spec)
    game = Game(rules, first_dealer=dealer, shuffler=seeded_shuffler(seed))
    rng = random.Random(seed)
    hand = game.hand
    if steps == -1:
        for b in (3, 0, 3, 3):
            legal = [a for a in game.legal_actions() if getattr(getattr(a, "value", None), "tricks", None) == b]
            game.apply(legal[0])
        return record_of(game, rules_spec)
    for _ in range(steps):
        legal = game.legal_actions()
        threes = [a for a in legal if getattr(getattr(a, "value", None), "tricks", None) == 3]
        game.apply(threes[0] if threes else choose(rng, legal, misdeal_p=0, blind_p=0))
    assert game.hand is hand
    return record_of(game, rules_spec)


def generate() -> list[dict[str, Any]]:
    out = []
    for label, spec, seed, dealer, steps, depth in POSITIONS:
        rec = build(spec, seed, dealer, steps)
        hand = position(rec)
        counts = [perft(hand, d) for d in range(1, depth + 1)]
        if hand.phase is Phase.PLAY:
            assert counts == [oracle_perft(hand, d) for d in range(1, depth + 1)], label
        out.append({"label": label, "phase": hand.phase.value, "counts": counts, "record": rec})
        print(label, counts)
    return out


if __name__ == "__main__":
    DATA.write_text(json.dumps({"about": "Legal-action counts (perft) from fixed positions: counts[d-1] is the "
                                "number of action sequences of length d from the last hand of 'record'."
                                " team_bidding depth 3: 11 x (1 x 10 + 10 x 2) = 330 (after a total the partner"
                                " bids nil or accepts)." + ABOUT_ADD,
                                "positions": generate()}, separators=(",", ":")) + "\n")
