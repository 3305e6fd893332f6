"""Cards and card sets.

A card is an ``int``: ``face + 54 * copy``. The face numbers the 54 distinct cards of one pack:
``suit * 13 + rank`` for the 52 suited cards (suits clubs, diamonds, hearts, spades = 0..3; ranks
2..A = 0..12), then 52 for the little joker and 53 for the big joker. ``copy`` is 0, or 1 for the
second pack of the six-handed game, so two identical cards stay distinct objects.

A card set is an ``int`` used as a bit set over card numbers (bit ``c`` set = card ``c`` present).
Bit sets make the hot paths of play (following suit, legal moves, removing a played card) single
integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NewType

from spades.core.errors import CardError

Card = NewType("Card", int)
"""A card number: ``face + 54 * copy`` (see the module docstring)."""

CardSet = int
"""A set of cards as a bit set over card numbers."""

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = "CDHS"
"""Suit letters in suit-number order."""
RANKS = "23456789TJQKA"
"""Rank letters, lowest first."""
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace")
LITTLE_JOKER = 52
BIG_JOKER = 53
FACES_PER_PACK = 54
JOKER_SUIT = 4
"""The natural suit of a joker: none of the four (rules decide what a joker counts as)."""


def face(card: int) -> int:
    """The face of a card, ignoring which pack it came from."""
    return card % FACES_PER_PACK


def by_face(card: int) -> tuple[int, int]:
    """A sort key that puts cards in face order, a first pack's copy before the second's: the two packs'
    identical cards (six-handed) write the same text in the same place whichever copy is held."""
    return card % FACES_PER_PACK, card


def natural_suit(card: int) -> int:
    """The printed suit of a card (``JOKER_SUIT`` for jokers)."""
    f = card % FACES_PER_PACK
    return f // 13 if f < 52 else JOKER_SUIT


def natural_rank(card: int) -> int:
    """The printed rank, 0 for a two up to 12 for an ace; 13 and 14 for the little and big joker."""
    f = card % FACES_PER_PACK
    return f % 13 if f < 52 else 13 + (f - 52)


def card_text(card: int) -> str:
    """The card's text as in ``docs/rules.md``: ``AS``, ``TD``, ``2C``, ``BJ``, ``LJ``."""
    f = card % FACES_PER_PACK
    if f == BIG_JOKER:
        return "BJ"
    if f == LITTLE_JOKER:
        return "LJ"
    return RANKS[f % 13] + SUITS[f // 13]


SECOND_PACK_MARK = "*"
"""Written after a card's text to say it comes from the second pack (six-handed game): ``AS*``."""


def card_code(card: int) -> str:
    """The card's text with its pack: ``AS`` for the first pack, ``AS*`` for the second (the six-handed
    game's two decks). What the server sends to clients, so a table can draw which pack a card is from."""
    text = card_text(card)
    return text + SECOND_PACK_MARK if card >= FACES_PER_PACK else text


def parse_card_code(text: object) -> tuple[int, int | None]:
    """A card's text, with or without the second-pack mark, as ``(face, copy)``: ``copy`` is 1 for
    ``AS*`` and ``None`` for ``AS`` (an unmarked text names a face, either pack's).

    Raises ``CardError`` quoting the input when it is not a card."""
    if isinstance(text, str) and text.strip().endswith(SECOND_PACK_MARK):
        return parse_face(text.strip()[:-1]), 1
    return parse_face(text), None


def code_card(text: object, held: CardSet) -> int:
    """The held card a client's text names: ``AS*`` the second pack's ace of spades exactly, ``AS`` the
    first pack's copy when both are held (``held_copy``). A card not held comes back as named, for the
    engine's checked ``apply`` to refuse."""
    f, copy = parse_card_code(text)
    if copy is None:
        return held_copy(f, held)
    return f + FACES_PER_PACK * copy


CARD_CODES: tuple[str, ...] = tuple(card_code(c) for c in range(2 * FACES_PER_PACK))
"""``card_code`` of every card number of two packs, for code that writes many cards (client views)."""

CARD_TEXTS: tuple[str, ...] = tuple(card_text(c) for c in range(2 * FACES_PER_PACK))
"""``card_text`` of every card number of two packs, for code that writes many cards (records)."""


def card_name(card: int) -> str:
    """The card in words for players: ``ace of spades``, ``big joker``."""
    f = card % FACES_PER_PACK
    if f == BIG_JOKER:
        return "big joker"
    if f == LITTLE_JOKER:
        return "little joker"
    return f"{RANK_NAMES[f % 13]} of {SUIT_NAMES[f // 13]}"


def parse_face(text: object) -> int:
    """Parse a card's text (``AS``, ``10D``, ``td``, ``BJ``) to its face number.

    Raises ``CardError`` quoting the input when it is not a card.
    """
    if not isinstance(text, str):
        raise CardError(f"{text!r} is not a card: cards are written like 'AS', 'TD', '2C', 'BJ'")
    t = text.strip().upper()
    if t == "BJ":
        return BIG_JOKER
    if t == "LJ":
        return LITTLE_JOKER
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise CardError(f"{text!r} is not a card: cards are written like 'AS', 'TD', '2C', 'BJ'")
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


def bit(card: int) -> CardSet:
    """The card set holding just ``card``."""
    return 1 << card


_BYTE_CARDS = tuple(tuple(tuple(8 * k + r for r in range(8) if b >> r & 1) for b in range(256))
                    for k in range((2 * FACES_PER_PACK + 7) // 8))
"""For each eight card numbers from ``8 * k`` and each set of them (a byte of a card set), those cards:
``cards_of`` reads a set a byte at a time (3,584 small tuples, made once; about 0.3 MB)."""
_TABLED_BITS = 8 * len(_BYTE_CARDS)


def cards_of(cards: CardSet) -> list[int]:
    """The cards of a set, lowest card number first."""
    # (A byte at a time from ``_BYTE_CARDS``: a hand of 13 in 0.68 us instead of 1.55 bit by bit; this is
    # asked at every move, for the cards a seat holds and may play. Issue 19.)
    out: list[int] = []
    if cards >> _TABLED_BITS:  # (past every card number: each bit is named all the same, one at a time)
        while cards:
            low = cards & -cards
            out.append(low.bit_length() - 1)
            cards ^= low
        return out
    k = 0
    windows = _BYTE_CARDS
    while cards:
        b = cards & 255
        if b:
            out += windows[k][b]
        cards >>= 8
        k += 1
    return out


def iter_cards(cards: CardSet) -> Iterator[int]:
    """Iterate over the cards of a set, lowest card number first."""
    while cards:
        low = cards & -cards
        yield low.bit_length() - 1
        cards ^= low


def card_set(cards: Iterable[int]) -> CardSet:
    """The set of the given card numbers."""
    s = 0
    for c in cards:
        s |= 1 << c
    return s


def count(cards: CardSet) -> int:
    """How many cards are in a set."""
    return cards.bit_count()


def set_text(cards: CardSet) -> list[str]:
    """The texts of a set's cards, lowest card number first."""
    return [card_text(c) for c in iter_cards(cards)]


def held_copy(face_number: int, held: CardSet) -> int:
    """The card with this face in ``held``: the first pack's copy when both are held (six-handed).

    When neither copy is held, the first pack's card, which the engine's checked ``apply`` then refuses
    as not held. Records and client messages name faces; this turns a face into a held card."""
    for copy in range(2):
        c = face_number + FACES_PER_PACK * copy
        if held >> c & 1:
            return c
    return face_number
