"""The game record, ``spades-record/1`` (``docs/record.md``): read with every check, write.

``game_from_record`` rebuilds a ``Game`` from a record, checking the deal and every action in order;
the first problem raises ``RecordError`` with its hand and action index (from 0). ``record_of``
writes a game as a record. A record's rules are a preset name or a preset with overrides
(``spades.core.presets.load_rules``). ``read_record`` takes the JSON text or the parsed object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from spades.core.actions import Accept, Action, Bid, BidValue, Discard, Draw, Look, Misdeal, Pass, Play
from spades.core.cards import CARD_TEXTS, FACES_PER_PACK, by_face, card_text, cards_of, held_copy, parse_face
from spades.core.errors import CardError, IllegalActionError, RecordError, SpadesError
from spades.core.game import Game
from spades.core.hand import Hand, Phase
from spades.core.presets import load_rules
from spades.core.rules import Rules
from spades.core.view import action_to_dict

FORMAT = "spades-record/1"
ACTION_KEYS = ("bid", "pass", "discard", "misdeal", "draw", "play")

def parse_record_text(text: str) -> dict[str, Any]:
    """Parse a record's JSON text, or raise ``RecordError`` saying where it is malformed."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    return data


def read_record(source: str | Mapping[str, Any]) -> Game:
    """Replay a ``spades-record/1`` (JSON text or parsed) into a game, checking everything."""
    data = parse_record_text(source) if isinstance(source, str) else dict(source)
    return game_from_record(data)


def game_from_record(data: dict[str, Any]) -> Game:
    """Replay a record into a ``Game``, checking everything; raises ``RecordError`` at the first problem."""
    if data.get("format") != FORMAT:
        raise RecordError(f"the format must be {FORMAT!r}, not {data.get('format')!r}")
    try:
        rules = load_rules(data.get("rules", "standard"))
    except SpadesError as e:
        raise RecordError(f"rules: {e}") from None
    n = rules.layout.n
    players = data.get("players")
    if players is not None and (not isinstance(players, list) or len(players) != n
                                or not all(isinstance(p, str) for p in players)):
        raise RecordError(f"players must be a list of {n} names")
    hands = data.get("hands")
    if not isinstance(hands, list):
        raise RecordError("hands must be a list")
    game: Game | None = None
    for hi, hd in enumerate(hands):
        if not isinstance(hd, dict):
            raise RecordError("a hand must be an object", hi)
        dealer = hd.get("dealer")
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
            raise RecordError(f"dealer must be a seat from 0 to {n - 1}, not {dealer!r}", hi)
        if game is None:
            # A timed game's clock is the record's word: it stands still until a hand says "time_up".
            game = Game(rules, first_dealer=dealer, clock=(lambda: 0.0) if rules.time_limit_minutes else None)
        if game.over:
            raise RecordError("the game was already over before this hand", hi)
        if not game.awaiting_deal:
            raise RecordError("the previous hand is not finished", hi)
        if dealer != game.next_dealer:
            raise RecordError(f"seat {game.next_dealer} deals this hand, not seat {dealer}", hi)
        time_up = hd.get("time_up", False)
        if time_up is not False and (time_up is not True or rules.time_limit_minutes is None):
            raise RecordError("time_up is true, in a timed game (time_limit_minutes), on the hand in which the "
                              "time ran out", hi)
        order = _deal_order(rules, hd, dealer, hi)
        hand = game.start_hand(order)
        if time_up:
            game.time_up_hand = hi
        actions = hd.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError("actions must be a list", hi)
        for ai, ad in enumerate(actions):
            if game.hand is not hand or hand.is_over:
                raise RecordError("the hand is already over", hi, ai)
            try:
                action = _parse_action(ad, hand)
                # Records leave out the accept of a partner who let a team total stand: the next action implies
                # it (another seat's, or the same seat's first action of a later phase: a dealer who accepts
                # last and then leads, with first_lead "dealer").
                while (hand.phase is Phase.BID and Accept(hand.to_act) in hand.legal_actions()
                        and (action.seat != hand.to_act or not isinstance(action, Bid | Look | Misdeal))):
                    game.apply(Accept(hand.to_act))
                # ... and the look that a number bid (or a misdeal call) implies.
                if ((isinstance(action, Misdeal) or (isinstance(action, Bid) and not action.value.blind))
                        and not hand.looked[action.seat] and action.seat == hand.to_act
                        and hand.phase is Phase.BID):
                    game.apply(Look(action.seat))
                game.apply(action)
            except (IllegalActionError, CardError) as e:
                raise RecordError(str(e), hi, ai) from None
        if hi < len(hands) - 1 and not hand.is_over:
            raise RecordError("only the last hand may be unfinished", hi)
    if game is None:
        game = Game(rules)
    return game


def _cards(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise CardError(f"{what} must be a list of cards")
    return [parse_face(c) for c in value]


def _assign_copies(faces: list[int], rules: Rules, used: dict[int, int]) -> list[int]:
    # Six-handed: the first time a face appears it is pack 0's card, the second time pack 1's.
    deck = set(rules.layout.deck)
    out: list[int] = []
    for f in faces:
        k = used.get(f, 0)
        card = f + FACES_PER_PACK * k
        if card not in deck:
            if k == 0:
                raise CardError(f"{card_text(f)} is not in this game's deck")
            raise CardError(f"{card_text(f)} appears more often than the deck holds it")
        used[f] = k + 1
        out.append(card)
    return out


def _deal_order(rules: Rules, hd: dict[str, Any], dealer: int, hi: int) -> list[int]:
    lay = rules.layout
    n = lay.n
    used: dict[int, int] = {}
    try:
        if n == 2:
            if "stock" not in hd:
                raise RecordError("the two-handed game records the stock, not a deal", hi)
            stock = _assign_copies(_cards(hd["stock"], "stock"), rules, used)
            if len(stock) != len(lay.deck):
                raise RecordError(f"the stock must hold all {len(lay.deck)} cards, not {len(stock)}", hi)
            return stock
        deal = hd.get("deal")
        if not isinstance(deal, list) or len(deal) != n:
            raise RecordError(f"deal must be a list of {n} hands", hi)
        hands = [_assign_copies(_cards(h, f"seat {s}'s deal"), rules, used) for s, h in enumerate(deal)]
        out = _assign_copies(_cards(hd["out"], "out"), rules, used) if "out" in hd else None
    except CardError as e:
        raise RecordError(f"deal: {e}", hi) from None
    for s, h in enumerate(hands):
        want = lay.hand_size + (rules.dealer_discard if s == dealer else 0)
        if len(h) != want:
            raise RecordError(f"seat {s} must be dealt {want} cards, not {len(h)}", hi)
    dealt = {c for h in hands for c in h}
    missing = [c for c in lay.deck if c not in dealt]
    if out is None:
        out = missing
    elif sorted(out) != sorted(missing):
        raise RecordError(f"out must list the cards not dealt: {[card_text(c) for c in missing]}", hi)
    # Rebuild an order that deals these hands: one card at a time from the dealer's left.
    order: list[int] = []
    for i in range(lay.hand_size):
        for k in range(n):
            order.append(hands[(dealer + 1 + k) % n][i])
    order += hands[dealer][lay.hand_size:] + out
    return order


def _parse_action(ad: Any, hand: Hand) -> Action:
    if not isinstance(ad, dict):
        raise IllegalActionError("an action must be an object")
    seat = ad.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < hand.n:
        raise IllegalActionError(f"seat must be a seat from 0 to {hand.n - 1}, not {seat!r}")
    kinds = [k for k in ACTION_KEYS if k in ad]
    if len(kinds) != 1:
        raise IllegalActionError(f"an action needs exactly one of {', '.join(ACTION_KEYS)}")
    kind = kinds[0]
    value = ad[kind]
    held = hand.hands[seat]
    if kind == "bid":
        return Bid(seat, parse_bid(value))
    if kind == "play":
        return Play(seat, held_copy(parse_face(value), held))
    if kind in ("pass", "discard"):
        cards = _cards(value, kind)
        picked: list[int] = []
        for f in cards:
            c = held_copy(f, held & ~sum(1 << x for x in picked))
            picked.append(c)
        return Pass(seat, tuple(picked)) if kind == "pass" else Discard(seat, tuple(picked))
    if kind == "misdeal":
        if value is not True:
            raise IllegalActionError("misdeal must be true")
        return Misdeal(seat)
    if value not in ("keep", "discard"):
        raise IllegalActionError(f"draw must be 'keep' or 'discard', not {value!r}")
    return Draw(seat, value == "keep")


_BID_DIGITS = re.compile(r"[0-9]{1,3}")
"""A bid's number as written: one to three ASCII digits (no table has 1,000 tricks)."""


def parse_bid(value: Any) -> BidValue:
    """Parse a bid as written in records: ``3``, ``"nil"``, ``"blind nil"``, ``"blind 6"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value == 0:
            raise IllegalActionError("zero can only be bid as nil")
        if value > 0:
            return BidValue(value)
    if isinstance(value, str):
        t = value.strip().lower()
        blind = t.startswith("blind ")
        core = t[6:].strip() if blind else t
        if core == "nil":
            return BidValue(0, blind)
        if _BID_DIGITS.fullmatch(core) and int(core) > 0:  # ASCII digits only: "²" is a digit to str.isdigit
            return BidValue(int(core), blind)
    shown = repr(value) if len(repr(value)) <= 24 else repr(value)[:20] + "..."
    raise IllegalActionError(f"{shown} is not a bid: bids are a number, 'nil', 'blind nil' or 'blind N'")


def bid_writing_problem(value: Any) -> str | None:
    """Why ``value`` is not written as a bid at all (a list, a superscript digit, thousands of digits),
    or ``None`` when it is one, even one the rules may then refuse (``0``, ``99``): the difference
    between malformed input and a bid to judge."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return None
    try:
        parse_bid(value)
    except IllegalActionError as e:
        return str(e)
    return None


def record_of(game: Game, rules_spec: Any, players: Sequence[str] | None = None,
              hidden_deals: bool = False, earlier: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Write a game as a ``spades-record/1`` document.

    ``rules_spec`` is written as the record's ``rules`` (a preset name or preset plus overrides).
    ``hidden_deals`` leaves the deals out (a game in progress shared with a player); such a record
    cannot be replayed. ``earlier``: the entries (``hand_record``) of the hands a game let go
    (``Game(keep_hands=False)``), in order; with them the game's own hands make every hand it dealt, or
    ``ValueError`` says how many are missing.
    """
    if len(earlier) + len(game.hands) != game.hand_count:
        raise ValueError(f"the game dealt {game.hand_count} hands: the record has {len(earlier)} written "
                         f"and {len(game.hands)} kept (a game that lets its hands go needs them written as "
                         "they go: hand_record)")
    out: dict[str, Any] = {"format": FORMAT, "rules": rules_spec}
    if players is not None:
        out["players"] = list(players)
    hands: list[dict[str, Any]] = [*earlier, *(hand_record(hand, hidden_deals) for hand in game.hands)]
    if game.time_up_hand is not None and game.time_up_hand < len(hands):
        # A timed game's time ran out in this hand: the game ends after it (or a tie).
        hands[game.time_up_hand] = {**hands[game.time_up_hand], "time_up": True}
    out["hands"] = hands
    return out


def hand_record(hand: Hand, hidden_deals: bool = False) -> dict[str, Any]:
    """One hand as a record writes it (an entry of ``record_of``'s ``hands``, but for ``time_up``, which is
    the game's to say): its dealer, its deal (unless ``hidden_deals``) and its actions."""
    hd: dict[str, Any] = {"dealer": hand.dealer}
    if not hidden_deals:
        if hand.n == 2:
            hd["stock"] = [card_text(c) for c in hand.stock]
        else:
            hd["deal"] = [_dealt_texts(hand, s) for s in range(hand.n)]
            if hand.rules.dealer_discard == 0 and hand.out:
                hd["out"] = [card_text(c) for c in sorted(_bits(hand.out), key=by_face)]
    hd["actions"] = [action_to_dict(a) for a in hand.actions if not isinstance(a, _UNRECORDED)]
    return hd


_UNRECORDED = (Look, Accept)
"""The actions a record leaves out (a tuple made once: ``Look | Accept`` would build a union at each use)."""


def _bits(s: int) -> list[int]:
    return [c for c in range(s.bit_length()) if s >> c & 1]


def _dealt_texts(hand: Hand, seat: int) -> list[str]:
    # By face, so the two packs' identical cards (six-handed) write the same text in the same place
    # whichever copy a seat holds: a record read and written again is unchanged. (A first pack's cards are
    # in face order already. A server writes each hand this way as it lets it go: ``hand_record``.)
    cards = cards_of(hand.dealt[seat])
    if cards and cards[-1] >= FACES_PER_PACK:
        cards.sort(key=by_face)
    texts = CARD_TEXTS
    return [texts[c] for c in cards]
