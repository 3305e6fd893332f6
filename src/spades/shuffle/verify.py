"""``spades verify``: re-derive each hand's deal of a record from its revealed seed and commitment.

A record's hand carries ``commitment`` (published before the deal), ``seed`` (the server seed,
revealed after the hand) and ``client_seeds`` (the players' contributions, one per seat in seat order:
the seed a player's client sent after the commitment, ``(bot)`` for a bot's seat, ``(none)`` for a
player who sent none; ``[]`` when none were given). The deal must equal ``deal_order(rules,
derive_permutation(seed, client_seeds, deck size))`` dealt one card at a time from the dealer's left,
as the engine deals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spades.core.cards import FACES_PER_PACK, card_text
from spades.core.errors import RecordError, SpadesError
from spades.core.hand import Hand, deal_order
from spades.core.presets import load_rules
from spades.core.rules import Rules
from spades.shuffle.fair import verify_deal


@dataclass(frozen=True)
class HandCheck:
    """The verdict on one hand's deal."""

    hand: int
    ok: bool
    reason: str
    commitment: str | None = None
    client_seeds: list[str] | None = None
    """The hand's client seeds as recorded (``None`` when they are missing or malformed)."""


def _faces(cards: Any) -> Counter[str] | None:
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        return None
    return Counter(c.strip().upper().replace("10", "T") for c in cards)


def derive_hand(rules: Rules, dealer: int, commitment: str, seed: str, client_seeds: Sequence[str]) -> Hand:
    """The hand the engine deals from a revealed seed: its ``dealt`` cards, ``out`` and ``stock``.

    Raises ``FairDealError`` when the seed or commitment is malformed or the seed does not hash to the
    commitment, and ``IllegalActionError`` when ``dealer`` is not a seat.
    """
    perm = verify_deal(commitment, seed, client_seeds, len(rules.layout.deck))
    return Hand(rules, dealer, deal_order(rules, perm))


def check_hand(rules: Rules, index: int, hd: dict[str, Any]) -> HandCheck:
    """Check one hand of a record: commitment, seed, and the deal derived from them."""
    commit = hd.get("commitment")
    seed = hd.get("seed")
    clients = hd.get("client_seeds", [])
    if not isinstance(clients, list) or not all(isinstance(c, str) for c in clients):
        return HandCheck(index, False, "client_seeds must be a list of strings", commit if isinstance(commit, str)
                         else None)
    verdict = _checked(rules, index, hd, commit, seed, clients)
    return HandCheck(verdict.hand, verdict.ok, verdict.reason, verdict.commitment, list(clients))


def _checked(rules: Rules, index: int, hd: dict[str, Any], commit: Any, seed: Any, clients: list[str]) -> HandCheck:
    if commit is None:
        return HandCheck(index, False, "no commitment recorded for this hand")
    if seed is None:
        return HandCheck(index, False, "the server seed has not been revealed yet", commit)
    dealer = hd.get("dealer")
    lay = rules.layout
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < lay.n:
        return HandCheck(index, False, f"dealer must be a seat from 0 to {lay.n - 1}", commit)
    try:
        hand = derive_hand(rules, dealer, commit, seed, clients)
    except SpadesError as e:
        return HandCheck(index, False, str(e), commit)
    if lay.n == 2:
        expected = [card_text(c) for c in hand.stock]
        got = hd.get("stock")
        if not isinstance(got, list) or [str(c).upper().replace("10", "T") for c in got] != expected:
            return HandCheck(index, False, "the stock is not the one the seeds derive", commit)
        return HandCheck(index, True, "the stock matches the seeds", commit)
    deal = hd.get("deal")
    if not isinstance(deal, list) or len(deal) != lay.n:
        return HandCheck(index, False, f"deal must be a list of {lay.n} hands", commit)
    for seat in range(lay.n):
        want = Counter(card_text(c) for c in range(2 * FACES_PER_PACK) if hand.dealt[seat] >> c & 1)
        if _faces(deal[seat]) != want:
            return HandCheck(index, False, f"seat {seat}'s cards are not the ones the seeds deal", commit)
    return HandCheck(index, True, "the deal matches the seeds", commit)


def verify_record(data: dict[str, Any]) -> list[HandCheck]:
    """Check every hand of a record; raises ``RecordError`` when the record itself is unreadable."""
    try:
        rules = load_rules(data.get("rules", "standard"))
    except SpadesError as e:
        raise RecordError(f"rules: {e}") from None
    hands = data.get("hands")
    if not isinstance(hands, list):
        raise RecordError("hands must be a list")
    out: list[HandCheck] = []
    for i, hd in enumerate(hands):
        if not isinstance(hd, dict):
            raise RecordError("a hand must be an object", i)
        out.append(check_hand(rules, i, hd))
    return out
