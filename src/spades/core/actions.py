"""Actions: everything a seat can do in a hand, as small frozen values.

``Action`` is the union of ``Bid``, ``Look``, ``Accept``, ``Pass``, ``Discard``, ``Misdeal``, ``Draw`` and
``Play``. Each names the acting ``seat``. Cards are card numbers (see ``spades.core.cards``);
card sets in ``Pass`` and ``Discard`` are tuples, sorted on construction, so equal actions compare
equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from spades.core.cards import FACES_PER_PACK, card_name


@dataclass(frozen=True, slots=True)
class BidValue:
    """A bid: ``tricks`` (0 means nil) and whether it was made ``blind`` (before seeing the cards)."""

    tricks: int
    blind: bool = False

    @property
    def is_nil(self) -> bool:
        """True for nil and blind nil."""
        return self.tricks == 0

    def text(self) -> str:
        """The bid as written in records: ``3``, ``nil``, ``blind nil``, ``blind 6``."""
        core = "nil" if self.tricks == 0 else str(self.tricks)
        return f"blind {core}" if self.blind else core

    def __str__(self) -> str:
        return self.text()


NIL = BidValue(0)
BLIND_NIL = BidValue(0, blind=True)


@dataclass(frozen=True, slots=True)
class Bid:
    """Name a number of tricks, nil, or a blind bid. With team bidding, the side's total."""

    seat: int
    value: BidValue

    def describe(self) -> str:
        """The action in a player's words."""
        return f"seat {self.seat} bids {self.value.text()}"


@dataclass(frozen=True, slots=True)
class Look:
    """Look at one's cards, giving up a blind bid this hand.

    Only a seat that may still bid blind has to look before it bids a number; records leave the look
    out, since a number bid implies it.
    """

    seat: int

    def describe(self) -> str:
        """The action in a player's words."""
        return f"seat {self.seat} looks at their cards"


@dataclass(frozen=True, slots=True)
class Accept:
    """Team bidding: leave the side's total to the partner who gave it, without a nil of one's own.

    Records leave it out: the next seat's action implies it."""

    seat: int

    def describe(self) -> str:
        """The action in a player's words."""
        return f"seat {self.seat} leaves the side's bid to their partner"


@dataclass(frozen=True, slots=True)
class Pass:
    """Hand cards face down to partner (after a nil or blind nil)."""

    seat: int
    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))

    def describe(self) -> str:
        """The action in a player's words."""
        return f"seat {self.seat} passes {', '.join(card_name(c) for c in self.cards)}"


@dataclass(frozen=True, slots=True)
class Discard:
    """The dealer's face-down discard (54-card four-player game)."""

    seat: int
    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))

    def describe(self) -> str:
        """The action in a player's words."""
        return f"seat {self.seat} discards {', '.join(card_name(c) for c in self.cards)}"


@dataclass(frozen=True, slots=True)
class Misdeal:
    """Call for a redeal (``misdeal`` house rule)."""

    seat: int

    def describe(self) -> str:
        """The action in a player's words."""
        return f"seat {self.seat} calls a misdeal"


@dataclass(frozen=True, slots=True)
class Draw:
    """A turn of the two-handed draw game: ``keep`` the top card (and discard the next unseen), or not
    (discard it and take the next)."""

    seat: int
    keep: bool

    def describe(self) -> str:
        """The action in a player's words."""
        return f"seat {self.seat} {'keeps' if self.keep else 'discards'} the top card"


@dataclass(frozen=True, slots=True)
class Play:
    """Play one card to the trick."""

    seat: int
    card: int

    def describe(self) -> str:
        """The action in a player's words."""
        return f"seat {self.seat} plays the {card_name(self.card)}"


Action = Bid | Look | Accept | Pass | Discard | Misdeal | Draw | Play
"""Any action of a hand."""

PLAYS = tuple(tuple(Play(seat, c) for c in range(2 * FACES_PER_PACK)) for seat in range(6))
"""``Play(seat, card)`` for every seat and card number, made once (``PLAYS[seat][card]``): the engine's
legal actions are these, and so are the plays the server reads (``play``)."""


def play(seat: int, card: int) -> Play:
    """``Play(seat, card)``: the copy in ``PLAYS`` when there is one. A hand's log of plays then holds
    pointers to them, not 52 copies of its own (2 KiB a hand, kept for the game's record)."""
    if 0 <= seat < len(PLAYS) and 0 <= card < len(PLAYS[0]):
        return PLAYS[seat][card]
    return Play(seat, card)
