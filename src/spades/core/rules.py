"""The rule set: every house rule of ``docs/rules.md`` as one frozen value, and what it implies.

``Rules`` holds the options exactly as players name them (``nil_points``, ``bags``, ...). Building
one checks that the combination can be played and raises ``RulesError`` naming the options in
conflict otherwise, so every ``Rules`` that exists is played and scored as written.

``layout(rules)`` derives, once per rule set, what the engine needs at speed: seats and sides, the
deck, cards per hand, and each card's effective suit and trick-taking power (``top_trumps`` count as
spades above the ace).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from spades.core.cards import (
    BIG_JOKER,
    FACES_PER_PACK,
    LITTLE_JOKER,
    SPADES,
    card_text,
    natural_rank,
    natural_suit,
    parse_face,
)
from spades.core.errors import CardError, RulesError


@dataclass(frozen=True)
class Option:
    """One house rule: its public name, the values it takes, its default and its meaning."""

    name: str
    values: str
    """The values in words, for listings (``100, 50``; ``an integer from 1``)."""
    meaning: str
    choices: tuple[Any, ...] = ()
    """The allowed values when the option is a choice; empty when it is a number range or a list."""
    low: int | None = None
    high: int | None = None
    nullable: bool = False
    label: str = ""
    """A plain name for the option, for setup forms (``Nil is worth``)."""
    group: str = "table"
    """Where a setup form lists it: one of ``GROUPS``."""
    words: tuple[str, ...] = ()
    """Each of ``choices`` in plain words, in the same order (``once broken``, ``any time``)."""
    none_word: str = ""
    """A null or empty value in plain words (``no limit``), for nullable options and card lists."""

    def value_words(self, value: Any) -> str:
        """A value of this option in plain words, for people rather than the command line."""
        if value is None or value == () or value == []:
            return self.none_word or "none"
        for choice, word in zip(self.choices, self.words, strict=False):
            if value == choice and type(value) is type(choice):
                return word
        if isinstance(value, list | tuple):
            return ", ".join(str(v) for v in value)
        return str(value)


GROUPS: dict[str, str] = {
    "bidding": "Bidding",
    "nil": "Nil and blind nil",
    "play": "Play of the cards",
    "scoring": "Scoring and game end",
    "table": "Table and deck",
}
"""The groups of house rules on setup forms, in the order they are shown, with their headings."""


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("players", "4, 2, 3, 6", "table size; 2 is the draw game, 6 plays with two decks",
               choices=(4, 2, 3, 6),
               label="Players at the table", group="table",
               words=("4 players", "2 players", "3 players", "6 players")),
        Option("partnerships", "true for 4 and 6 players, else false",
               "partners sit facing each other (seats 1 and 3, 2 and 4; six: 1-4, 2-5, 3-6); off with 4 is cutthroat",
               choices=(True, False),
               label="Partners", group="table",
               words=("partners facing each other", "every player for themself")),
        Option("deck", "standard, jokers", "52 cards, or 54 with the big (BJ) and little (LJ) joker",
               choices=("standard", "jokers"),
               label="Deck", group="table",
               words=("52 cards", "54 cards, with two jokers")),
        Option("removed_cards", "list of cards, e.g. [\"2C\", \"2H\"]",
               "cards taken out before the deal (every copy, with two decks)",
               label="Cards taken out", group="table", none_word="none"),
        Option("top_trumps", "list of cards, highest first, e.g. [\"BJ\", \"LJ\", \"2S\"]",
               "cards above the ace of spades; they count as spades for following, breaking and leading",
               label="Trumps above the ace of spades", group="play", none_word="none"),
        Option("dealer_discard", "0, 2",
               "the dealer takes the cards left over after an even deal and discards this many face down "
               "before bidding (the 54-card four-player game)", choices=(0, 2),
               label="Dealer discards", group="table",
               words=("nothing", "2 cards")),
        Option("first_bidder", "left_of_dealer, dealer", "who bids first",
               choices=("left_of_dealer", "dealer"),
               label="Who bids first", group="bidding",
               words=("the player left of the dealer", "the dealer")),
        Option("team_bidding", "false, true",
               "partners talk it over and the first of them to speak gives one side total (either may "
               "still bid nil)", choices=(False, True),
               label="Partners bid together", group="bidding",
               words=("no, each player bids", "yes, one bid a side")),
        Option("nil_points", "100, 50 (any multiple of 10 from 10 to 500)",
               "won for a nil that takes no trick, lost otherwise", low=10, high=500,
               label="Nil is worth", group="nil"),
        Option("blind_nil", "true, false", "blind nil allowed", choices=(True, False),
               label="Blind nil", group="nil",
               words=("allowed", "not allowed")),
        Option("blind_nil_points", "200, 100 (10 to 1000)", "won or lost on a blind nil", low=10, high=1000,
               label="Blind nil is worth", group="nil"),
        Option("blind_behind", "100, 0 (0 to 1000)",
               "how far a side must trail the leader to bid blind (nil or blind bids); 0 = any time",
               low=0, high=1000,
               label="Blind only when behind by", group="bidding"),
        Option("blind_pass", "2 (1 to 4)", "cards exchanged with partner after a blind nil", low=1, high=4,
               label="Cards exchanged after a blind nil", group="nil"),
        Option("nil_pass", "0, 1, 2, 3, 4",
               "cards exchanged between a nil bidder and partner (nil bidder first)", choices=(0, 1, 2, 3, 4),
               label="Nil card exchange", group="nil",
               words=("none", "1 card", "2 cards", "3 cards", "4 cards")),
        Option("blind_bids", "false, true",
               "bids of the lowest blind bid or more, made before seeing the cards, score and lose double",
               choices=(False, True),
               label="Blind bids for double", group="bidding",
               words=("no", "yes")),
        Option("blind_bid_min", "6 (1 to 13)", "the lowest blind bid above nil", low=1, high=13,
               label="Lowest blind bid", group="bidding"),
        Option("min_side_bid", "0, 4 (0 to 13)",
               "a side's contract must reach this: the side's last bidder is held to it", low=0, high=13,
               label="Least a side may bid", group="bidding"),
        Option("max_side_bid", "null, 10 (1 to 13)", "a side's contract may not exceed this",
               low=1, high=13, nullable=True,
               label="Most a side may bid", group="bidding", none_word="no limit"),
        Option("first_hand_bids", "true, false",
               "when off, the first hand is played without bids: 10 per trick taken, no bags",
               choices=(True, False),
               label="Bids in the first hand", group="bidding",
               words=("yes", "no, 10 a trick")),
        Option("misdeal", "false, true",
               "a player holding no spades, one spade, no jack, queen or king, or 7+ cards of one suit may "
               "call for a redeal before their partner has bid", choices=(False, True),
               label="Redeal a hopeless hand", group="table",
               words=("no", "yes")),
        Option("first_lead", "left_of_dealer, dealer, lowest_club",
               "who leads the first trick; lowest_club: the holder of the lowest club leads it",
               choices=("left_of_dealer", "dealer", "lowest_club"),
               label="Who leads first", group="play",
               words=("the player left of the dealer", "the dealer", "whoever holds the lowest club")),
        Option("first_lead_spade", "false, true", "may the opening lead be a spade", choices=(False, True),
               label="A spade may open the hand", group="play",
               words=("no", "yes")),
        Option("spades_lead", "when_broken, any_time", "when spades may be led",
               choices=("when_broken", "any_time"),
               label="Spades may be led", group="play",
               words=("once broken", "any time")),
        Option("must_beat", "false, true",
               "when you can play a card that beats the best card so far, you must", choices=(False, True),
               label="Must beat the best card", group="play",
               words=("no", "yes")),
        Option("set_penalty", "bid, short", "a set side loses 10 x its contract, or 10 x the tricks short",
               choices=("bid", "short"),
               label="A set contract loses", group="scoring",
               words=("10 for each trick bid", "10 for each trick short")),
        Option("bags", "penalty, none, minus_one, count_only, minus_ten",
               "over-tricks: +1 each and counted to the limit; +1 and not counted; -1 each; 0 points but "
               "counted; -10 each", choices=("penalty", "none", "minus_one", "count_only", "minus_ten"),
               label="Over-tricks (bags)", group="scoring",
               words=("1 point each, penalty at the limit", "1 point each, not counted", "minus 1 each",
                      "counted, no points", "minus 10 each")),
        Option("bag_limit", "10 (1 to 100)", "bags that cost the bag penalty", low=1, high=100,
               label="Bags before the penalty", group="scoring"),
        Option("bag_penalty", "100 (0 to 1000)", "points lost each time the bag count reaches the limit",
               low=0, high=1000,
               label="Bag penalty", group="scoring"),
        Option("failed_nil_tricks", "bags_if_made, count_for_partner",
               "a nil bidder's tricks are bags only if the partner's contract is made, or they count "
               "toward the partner's contract", choices=("bags_if_made", "count_for_partner"),
               label="A nil bidder's tricks", group="nil",
               words=("bags if the partner makes the bid", "count toward the partner's bid")),
        Option("ten_for_two_hundred", "false, true",
               "a contract of exactly 10: +200 for exactly 10 tricks, -200 for any other number",
               choices=(False, True),
               label="Ten for two hundred", group="scoring",
               words=("no", "yes")),
        Option("boston", "false, true",
               "a contract of every trick: +200 / -200; bid blind, +400 / -400", choices=(False, True),
               label="Boston (every trick)", group="scoring",
               words=("no", "yes")),
        Option("target", "500, 300, 400, 1000 (50 to 10000)", "points to win", low=50, high=10000,
               label="Points to win", group="scoring"),
        Option("lose_at", "null, -200 (-10000 to -10)", "a side at or below this loses",
               low=-10000, high=-10, nullable=True,
               label="A side loses at", group="scoring", none_word="never"),
        Option("time_limit_minutes", "null, or minutes (1 to 1440)",
               "timed game: it ends after the hand in which the time runs out", low=1, high=1440,
               nullable=True,
               label="Timed game (minutes)", group="scoring", none_word="not timed"),
        Option("forced_bids", "none, suicide, mirror, whiz",
               "suicide: one partner of each side bids nil; mirror: bid your spade count; whiz: nil or "
               "your spade count", choices=("none", "suicide", "mirror", "whiz"),
               label="Forced bids", group="bidding",
               words=("none", "suicide: one partner of each side bids nil", "mirror: bid your spades",
                      "whiz: nil or your spades")),
    )
}
"""Every house rule by its public name, in the order of ``docs/rules.md``."""


@dataclass(frozen=True)
class Rules:
    """A complete rule set. The defaults are the standard four-player partnership game.

    Construct with keyword arguments named as in ``docs/rules.md``; an impossible combination raises
    ``RulesError``. ``Rules.from_options`` takes a JSON-like mapping and checks every value's type.
    """

    players: int = 4
    partnerships: bool | None = None
    """``None`` means the table's natural choice: partners with 4 or 6 players, solo otherwise."""
    deck: str = "standard"
    removed_cards: tuple[str, ...] = ()
    top_trumps: tuple[str, ...] = ()
    dealer_discard: int = 0
    first_bidder: str = "left_of_dealer"
    team_bidding: bool = False
    nil_points: int = 100
    blind_nil: bool = True
    blind_nil_points: int = 200
    blind_behind: int = 100
    blind_pass: int = 2
    nil_pass: int = 0
    blind_bids: bool = False
    blind_bid_min: int = 6
    min_side_bid: int = 0
    max_side_bid: int | None = None
    first_hand_bids: bool = True
    misdeal: bool = False
    first_lead: str = "left_of_dealer"
    first_lead_spade: bool = False
    spades_lead: str = "when_broken"
    must_beat: bool = False
    set_penalty: str = "bid"
    bags: str = "penalty"
    bag_limit: int = 10
    bag_penalty: int = 100
    failed_nil_tricks: str = "bags_if_made"
    ten_for_two_hundred: bool = False
    boston: bool = False
    target: int = 500
    lose_at: int | None = None
    time_limit_minutes: int | None = None
    forced_bids: str = "none"
    # Derived once by ``__post_init__`` (plain attributes, not properties: the engine reads them per action).
    layout: Layout = field(init=False, repr=False, compare=False)
    """What the rule set implies for seats, sides and cards."""
    fast: FastPaths = field(init=False, repr=False, compare=False)
    """Which of the engine's fast paths this rule set may take."""

    def __post_init__(self) -> None:
        if self.partnerships is None:
            object.__setattr__(self, "partnerships", self.players in (4, 6))
        for name, opt in OPTIONS.items():
            _check_value(opt, getattr(self, name))
        object.__setattr__(self, "removed_cards", tuple(_canonical_cards("removed_cards", self.removed_cards)))
        object.__setattr__(self, "top_trumps", tuple(_canonical_cards("top_trumps", self.top_trumps)))
        _check_combination(self)
        object.__setattr__(self, "layout", _build_layout(self))
        object.__setattr__(self, "fast", _fast_paths(self, self.layout))

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Rules:
        """Build from a mapping of option names to JSON values; unknown names are refused."""
        if not isinstance(options, Mapping):
            raise RulesError(f"rules must be an object of option names and values, not {options!r}")
        unknown = [k for k in options if k not in OPTIONS]
        if unknown:
            raise RulesError(f"unknown option {unknown[0]!r}; the options are: {', '.join(OPTIONS)}")
        kwargs: dict[str, Any] = {}
        for k, v in options.items():
            if k in ("removed_cards", "top_trumps"):
                if not isinstance(v, list | tuple):
                    raise RulesError(f"{k} must be a list of cards, not {v!r}")
                v = tuple(v)
            kwargs[k] = v
        return cls(**kwargs)

    def to_options(self, base: Rules | None = None) -> dict[str, Any]:
        """The options as a JSON-ready mapping; with ``base``, only those that differ from it."""
        out: dict[str, Any] = {}
        for name in OPTIONS:
            value = getattr(self, name)
            if base is not None and getattr(base, name) == value:
                continue
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (checked like a new rule set)."""
        return dataclasses.replace(self, **changes)


def _check_value(opt: Option, value: Any) -> None:
    if value is None:
        if opt.nullable:
            return
        raise RulesError(f"{opt.name} cannot be null; it takes {opt.values}")
    if opt.name in ("removed_cards", "top_trumps"):
        if not isinstance(value, tuple):
            raise RulesError(f"{opt.name} must be a list of cards, not {value!r}")
        return
    if opt.choices:
        # bool is an int in Python: keep true/false and numbers apart.
        ok = any(value == c and type(value) is type(c) for c in opt.choices)
        if not ok:
            raise RulesError(f"{opt.name} cannot be {value!r}; it takes {opt.values}")
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"{opt.name} must be a whole number, not {value!r}")
    assert opt.low is not None and opt.high is not None
    if not opt.low <= value <= opt.high:
        raise RulesError(f"{opt.name} cannot be {value}; it takes {opt.values}")
    if opt.name in ("nil_points", "blind_nil_points", "bag_penalty") and value % 10:
        raise RulesError(f"{opt.name} must be a multiple of 10, not {value}")


def _canonical_cards(name: str, cards: tuple[Any, ...]) -> list[str]:
    out: list[str] = []
    for c in cards:
        try:
            text = card_text(parse_face(c))
        except CardError as e:
            raise RulesError(f"{name}: {e}") from None
        if text in out:
            raise RulesError(f"{name} lists {text} twice")
        out.append(text)
    return out


def _conflict(*names: str, why: str) -> RulesError:
    return RulesError(f"these options cannot be played together: {', '.join(names)}: {why}")


def _check_combination(r: Rules) -> None:
    solo = not r.partnerships
    if r.partnerships and r.players not in (4, 6):
        raise _conflict("players", "partnerships", why=f"partnerships need 4 or 6 players, not {r.players}")
    if solo:
        for name, bad, why in (
            ("nil_pass", r.nil_pass != 0, "cards are exchanged with a partner"),
            ("team_bidding", r.team_bidding, "team bidding needs partners"),
            ("failed_nil_tricks", r.failed_nil_tricks != "bags_if_made", "a solo nil has no partner"),
        ):
            if bad:
                raise _conflict("partnerships", name, why=why)
        if r.forced_bids == "suicide":
            raise _conflict("partnerships", "forced_bids", why="suicide needs partners")
        if r.blind_pass != 2:
            raise _conflict("partnerships", "blind_pass", why="cards are exchanged with a partner")
    faces = _deck_faces(r)
    if r.players == 2:
        if r.dealer_discard:
            raise _conflict("players", "dealer_discard", why="the two-handed game has no deal to discard from")
        if r.misdeal:
            raise _conflict("players", "misdeal", why="the two-handed game draws its cards, there is no deal")
        if r.blind_nil or r.blind_bids:
            raise _conflict("players", "blind_nil" if r.blind_nil else "blind_bids",
                            why="in the two-handed draw game every card is seen as it is drawn, so no one "
                                "can bid blind (set blind_nil to false)")
        if len(faces) < 52:
            raise _conflict("players", "removed_cards",
                            why="the two-handed draw game needs at least 52 cards for 26 turns")
    total = len(faces) * (2 if r.players == 6 else 1)
    if r.players != 2 and (total - r.dealer_discard) // r.players < 8:
        raise _conflict("players", "deck", "removed_cards", why="too few cards to deal")
    hand_size = 13 if r.players == 2 else (total - r.dealer_discard) // r.players
    if r.min_side_bid > hand_size:
        raise _conflict("min_side_bid", "players", "deck", "removed_cards",
                        why=f"a side cannot bid {r.min_side_bid} with {hand_size} tricks in a hand")
    if r.blind_bids and r.blind_bid_min > hand_size:
        raise _conflict("blind_bids", "blind_bid_min", "players",
                        why=f"no blind bid of {r.blind_bid_min} is possible with {hand_size} tricks in a hand")
    if r.dealer_discard and (total - r.dealer_discard) % r.players:
        raise _conflict("dealer_discard", "deck", "removed_cards",
                        why=f"{total} cards less {r.dealer_discard} do not deal evenly to {r.players} players")
    jokers = {"BJ", "LJ"}
    for name, cards in (("removed_cards", r.removed_cards), ("top_trumps", r.top_trumps)):
        if r.deck == "standard" and jokers & set(cards):
            raise _conflict("deck", name, why="the standard deck has no jokers")
    for c in r.top_trumps:
        if c in r.removed_cards:
            raise _conflict("top_trumps", "removed_cards", why=f"{c} is removed, so it cannot be a trump")
    if r.deck == "jokers":
        loose = jokers - set(r.removed_cards) - set(r.top_trumps)
        if loose:
            raise _conflict("deck", "top_trumps",
                            why=f"{' and '.join(sorted(loose))} must rank somewhere: list it in top_trumps "
                                "or removed_cards")
    if r.min_side_bid and r.max_side_bid is not None and r.max_side_bid < r.min_side_bid:
        raise _conflict("min_side_bid", "max_side_bid", why="the maximum is below the minimum")
    if not r.blind_nil and not r.blind_bids and r.blind_behind != 100:
        raise _conflict("blind_behind", "blind_nil", "blind_bids", why="no blind bid is allowed")
    if not r.blind_nil and (r.blind_nil_points != 200 or r.blind_pass != 2):
        raise _conflict("blind_nil", "blind_nil_points", "blind_pass", why="blind nil is not allowed")
    if not r.blind_bids and r.blind_bid_min != 6:
        raise _conflict("blind_bids", "blind_bid_min", why="blind bids are not allowed")
    if r.bags in ("none", "minus_one", "minus_ten") and (r.bag_limit != 10 or r.bag_penalty != 100):
        raise _conflict("bags", "bag_limit", "bag_penalty", why=f"bags={r.bags} keeps no count of bags")
    if r.first_lead == "lowest_club" and r.first_lead_spade:
        raise _conflict("first_lead", "first_lead_spade", why="the opening lead is the lowest club")
    if r.first_lead == "lowest_club" and r.players == 2:
        raise _conflict("first_lead", "players", why="the two-handed game leaves 26 cards unseen; "
                                                     "the lowest club may not be in play")
    if r.forced_bids in ("mirror", "whiz"):
        for name, bad in (("blind_bids", r.blind_bids), ("team_bidding", r.team_bidding),
                          ("min_side_bid", r.min_side_bid != 0), ("max_side_bid", r.max_side_bid is not None)):
            if bad:
                raise _conflict("forced_bids", name, why=f"{r.forced_bids} fixes each bid by the spades held")
        if r.forced_bids == "mirror" and r.blind_nil:
            raise _conflict("forced_bids", "blind_nil", why="mirror fixes each bid by the spades held")
    if r.forced_bids == "suicide" and r.team_bidding:
        raise _conflict("forced_bids", "team_bidding", why="in suicide each partner bids for themself")
    if r.lose_at is not None and r.lose_at >= r.target:
        raise _conflict("lose_at", "target", why="the losing floor must be below the target")


def _deck_faces(r: Rules) -> list[int]:
    faces = list(range(52)) + ([LITTLE_JOKER, BIG_JOKER] if r.deck == "jokers" else [])
    removed = {parse_face(c) for c in r.removed_cards}
    for c in r.removed_cards:
        if parse_face(c) not in faces:
            raise _conflict("deck", "removed_cards", why=f"{c} is not in the {r.deck} deck")
    return [f for f in faces if f not in removed]


@dataclass(frozen=True, eq=False)
class Layout:
    """What a rule set implies for the table and the cards. Built once per ``Rules``."""

    n: int
    """Seats at the table."""
    sides: tuple[tuple[int, ...], ...]
    """Each side's seats, sides ordered by their lowest seat."""
    side_of: tuple[int, ...]
    """The side index of each seat."""
    partner: tuple[int | None, ...]
    """Each seat's partner, ``None`` in solo games."""
    deck: tuple[int, ...]
    """Every card number in play order of a fresh deck (pack 0 first)."""
    deck_set: int
    hand_size: int
    """Cards each seat plays (tricks in a hand)."""
    effective_suit: tuple[int, ...]
    """Per card number: the suit it counts as (top trumps count as spades)."""
    power: tuple[int, ...]
    """Per card number: strength within its effective suit; top trumps above the ace of spades."""
    suit_mask: tuple[int, ...]
    """Per effective suit 0..3: the card set of that suit."""
    spade_mask: int
    lowest_club: tuple[int, ...]
    """Card numbers of clubs from lowest to highest (for ``first_lead: lowest_club``)."""
    card_bit: Mapping[int, int]
    """Per card number of the deck: its card set (``1 << card``); dealing looks cards up here, so a card
    not in this deck is a missing key."""

    @property
    def sides_count(self) -> int:
        """How many sides score."""
        return len(self.sides)


@dataclass(frozen=True)
class FastPaths:
    """Which shortcuts of the engine's hot paths a rule set allows; each is a case the general code
    handles too, so a shortcut changes speed only. Built once per ``Rules``."""

    plain_bids: bool
    """A seat that has looked may bid nil or any number from 1 to ``hand_size``, whatever others bid:
    no team bidding, no side minimum or maximum, no forced bids, no misdeal calls."""
    natural_play: bool
    """The natural deck (cards removed or not), at most four seats, no top trumps, no must_beat: a card
    is ``13 * suit + rank`` and the spades (suit 3) are the trumps."""


def _fast_paths(r: Rules, lay: Layout) -> FastPaths:
    return FastPaths(
        plain_bids=(not r.team_bidding and not r.min_side_bid and r.max_side_bid is None
                    and r.forced_bids == "none" and not r.misdeal),
        natural_play=not r.must_beat and not r.top_trumps and lay.n <= 4 and r.deck == "standard",
    )


def _build_layout(r: Rules) -> Layout:
    return _layout_cached(r.players, bool(r.partnerships), r.deck, r.removed_cards, r.top_trumps,
                          r.dealer_discard)


@lru_cache(maxsize=256)
def _layout_cached(players: int, partnerships: bool, deck: str, removed: tuple[str, ...],
                   top: tuple[str, ...], dealer_discard: int) -> Layout:
    n = players
    sides: tuple[tuple[int, ...], ...]
    if partnerships:
        half = n // 2
        sides = tuple((s, s + half) for s in range(half))
    else:
        sides = tuple((s,) for s in range(n))
    side_of = [0] * n
    partner: list[int | None] = [None] * n
    for i, side in enumerate(sides):
        for s in side:
            side_of[s] = i
            if len(side) == 2:
                partner[s] = side[1] if s == side[0] else side[0]
    faces = list(range(52)) + ([LITTLE_JOKER, BIG_JOKER] if deck == "jokers" else [])
    removed_faces = {parse_face(c) for c in removed}
    faces = [f for f in faces if f not in removed_faces]
    packs = 2 if n == 6 else 1
    cards = tuple(f + FACES_PER_PACK * p for p in range(packs) for f in faces)
    hand_size = 13 if n == 2 else (len(cards) - dealer_discard) // n
    top_faces = [parse_face(c) for c in top]
    size = FACES_PER_PACK * packs
    eff = [0] * size
    power = [0] * size
    masks = [0, 0, 0, 0]
    for c in range(size):
        f = c % FACES_PER_PACK
        if f in top_faces:
            eff[c] = SPADES
            power[c] = 100 - top_faces.index(f)
        else:
            eff[c] = natural_suit(c) if f < 52 else SPADES
            power[c] = natural_rank(c)
    for c in cards:
        masks[eff[c]] |= 1 << c
    clubs = sorted((c for c in cards if eff[c] == 0), key=lambda c: (power[c], c))
    return Layout(
        n=n, sides=sides, side_of=tuple(side_of), partner=tuple(partner), deck=cards,
        deck_set=sum(1 << c for c in cards), hand_size=hand_size, effective_suit=tuple(eff),
        power=tuple(power), suit_mask=tuple(masks), spade_mask=masks[SPADES], lowest_club=tuple(clubs),
        card_bit={c: 1 << c for c in cards},
    )
