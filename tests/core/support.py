"""Shared helpers of the engine tests: a playing policy, an independent rules oracle, invariants.

The oracle re-derives legal plays and trick winners from ``rules.md`` directly (card faces, suits and
the ``top_trumps`` list), without the engine's bit sets, so a change to the engine's hot path that
breaks a rule shows up as a disagreement.
"""

from __future__ import annotations

import json
import random
from typing import Any

from spades.core import (
    Accept,
    Bid,
    Discard,
    Game,
    Hand,
    Look,
    Misdeal,
    Pass,
    Phase,
    Play,
    card_text,
    cards_of,
    record_of,
    view_hand,
)
from spades.core.cards import FACES_PER_PACK
from spades.variants import read_record

# ---------------------------------------------------------------------------------------------- policy


def choose(rng: random.Random, legal: list[Any], *, misdeal_p: float = 0.2, blind_p: float = 0.25,
           nil_p: float = 0.15) -> Any:
    """A random legal action that bids sensibly often enough for games to end."""
    misdeals = [a for a in legal if isinstance(a, Misdeal)]
    if misdeals and rng.random() < misdeal_p:
        return misdeals[0]
    legal = [a for a in legal if not isinstance(a, Misdeal)] or legal
    if any(isinstance(a, Bid | Look) for a in legal):
        looks = [a for a in legal if isinstance(a, Look)]
        blinds = [a for a in legal if isinstance(a, Bid) and a.value.blind]
        if looks and (not blinds or rng.random() > blind_p):
            return looks[0]
        if blinds:
            return rng.choice(blinds)
        bids = [a for a in legal if isinstance(a, Bid)]
        accepts = [a for a in legal if isinstance(a, Accept)]
        if accepts and rng.random() >= nil_p:
            return accepts[0]  # team bidding: let the partner's total stand
        nils = [a for a in bids if a.value.tricks == 0]
        if nils and (rng.random() < nil_p or len(nils) == len(bids)):
            return nils[0]
        numbers = [a for a in bids if a.value.tricks > 0] or bids
        want = rng.choice((1, 2, 3, 3, 4, 5))
        return min(numbers, key=lambda a: (abs(a.value.tricks - want), a.value.tricks))
    return rng.choice(legal)


# ---------------------------------------------------------------------------------------------- oracle


def eff_suit(rules: Any, card: int) -> str:
    """The suit a card counts as: 'S' for spades and top trumps."""
    t = card_text(card)
    if t in rules.top_trumps:
        return "S"
    return t[1]


def strength(rules: Any, card: int) -> int:
    """Strength within the effective suit: top trumps above the ace, in the listed order."""
    t = card_text(card)
    if t in rules.top_trumps:
        return 100 - rules.top_trumps.index(t)
    return "23456789TJQKA".index(t[0])


def trick_winner(rules: Any, cards: list[tuple[int, int]]) -> int:
    """rules.md: the highest trump, else the highest card of the suit led; of two identical cards the
    second played wins (six-handed)."""
    led = eff_suit(rules, cards[0][1])
    trumps = [(s, c) for s, c in cards if eff_suit(rules, c) == "S"]
    pool = trumps or [(s, c) for s, c in cards if eff_suit(rules, c) == led]
    best = max(strength(rules, c) for _, c in pool)
    return [s for s, c in pool if strength(rules, c) == best][-1]


def oracle_plays(hand: Hand) -> set[str]:
    """The legal cards (as texts) for the seat to act, derived from rules.md."""
    r = hand.rules
    held = cards_of(hand.hands[hand.to_act])
    cur = hand.current
    if not cur:
        if not hand.tricks:
            if r.first_lead == "lowest_club":
                live = [c for h in hand.hands for c in cards_of(h) if eff_suit(r, c) == "C"]
                low = min(live, key=lambda c: (strength(r, c), c))
                if any(c % FACES_PER_PACK == low % FACES_PER_PACK for c in held):  # either copy
                    return {card_text(low)}
            if r.first_lead_spade:
                return {card_text(c) for c in held}
            non = [c for c in held if eff_suit(r, c) != "S"]
            return {card_text(c) for c in (non or held)}
        played_spade = any(eff_suit(r, c) == "S" for t in hand.tricks for _, c in t.cards)
        if played_spade or r.spades_lead == "any_time":
            return {card_text(c) for c in held}
        non = [c for c in held if eff_suit(r, c) != "S"]
        return {card_text(c) for c in (non or held)}
    led = eff_suit(r, cur[0][1])
    follow = [c for c in held if eff_suit(r, c) == led]
    legal = follow or held
    if r.must_beat:
        beating = [c for c in legal if trick_winner(r, [*cur, (-1, c)]) == -1]
        if beating:
            legal = beating
    return {card_text(c) for c in legal}


def oracle_bids(hand: Hand) -> set[str]:
    """The legal bids (as texts) of the seat to act, derived from rules.md's bidding options."""
    r = hand.rules
    seat = hand.to_act
    size = hand.layout.hand_size
    partner = hand.layout.partner[seat]
    p_bid = hand.bids[partner] if partner is not None else None
    spades = sum(1 for c in cards_of(hand.hands[seat]) if eff_suit(r, c) == "S")
    blind = not hand.looked[seat]
    if r.team_bidding and p_bid is not None and not p_bid.is_nil:
        # rules.md: after the side's total "either may still bid nil" (or leave the bid to the partner).
        if blind:
            return {"blind nil"} if r.blind_nil else set()
        return {"bid nil"}
    values = list(range(0, size + 1))
    if r.forced_bids == "mirror":
        values = [spades]
    elif r.forced_bids == "whiz":
        values = [0, spades] if spades else [0]
    elif r.forced_bids == "suicide" and partner is not None and p_bid is not None:
        values = [k for k in values if (k == 0) != p_bid.is_nil]
    ok = []
    for k in values:
        partner_part = p_bid.tricks if p_bid is not None else 0
        contract = partner_part + k
        completes = (partner is None or p_bid is not None
                     or (r.team_bidding and k > 0)
                     or (r.forced_bids == "suicide" and k > 0))
        if r.max_side_bid is not None and contract > r.max_side_bid:
            continue
        if r.min_side_bid and completes and contract < r.min_side_bid:
            continue
        ok.append(k)
    if blind:
        out = {"blind nil"} if r.blind_nil and 0 in ok else set()
        if r.blind_bids:
            out |= {f"blind {k}" for k in ok if k >= r.blind_bid_min}
        return out
    return {"bid nil" if k == 0 else f"bid {k}" for k in ok}


# ---------------------------------------------------------------------------------------------- state


def snapshot(hand: Hand) -> dict[str, Any]:
    """Every slot of a hand except the undo history and the views' memos (caches of what the other slots
    say), deep-copied, for exact comparisons."""
    out = {}
    for name in Hand.__slots__:
        if name in ("_undo", "_own_memo", "_sides_memo", "_tricks_memo", "layout", "rules", "context"):
            continue
        if hasattr(hand, name):
            out[name] = _copy(getattr(hand, name))
    return out


def _copy(value: Any) -> Any:
    # Lists two levels deep (hands, draw_seen); everything inside is immutable (ints, tuples, frozen values).
    if isinstance(value, list):
        return [list(x) if isinstance(x, list) else x for x in value]
    return value


def all_cards_accounted(hand: Hand) -> None:
    """Each card of the deck is in exactly one place: a hand, a trick, out, the discard."""
    places: list[int] = []
    for h in hand.hands:
        places += cards_of(h)
    places += [c for t in hand.tricks for _, c in t.cards]
    places += [c for _, c in hand.current]
    places += cards_of(hand.out)
    places += list(hand.discard)
    places += [c for seen in hand.draw_seen for c in seen]  # two-handed: discarded after being seen
    if hand.phase is Phase.DRAW:
        places += list(hand.stock[hand.stock_pos:])
        assert len(places) == len(set(places)), "a card is in two places"
        assert set(places) <= set(hand.layout.deck)
        return
    assert sorted(places) == sorted(hand.layout.deck), "the cards do not add up to the deck"


def view_card_leaks(hand: Hand, seat: int) -> list[str]:
    """Cards in seat's view that the seat cannot know at a real table (should be empty)."""
    v = view_hand(hand, seat)
    may_know: set[int] = set()
    if hand.can_see_own_cards(seat):
        may_know |= set(cards_of(hand.hands[seat]))
    may_know |= {c for t in hand.tricks for _, c in t.cards} | {c for _, c in hand.current}
    for a, b, cs in hand.passes:
        if seat in (a, b):
            may_know |= set(cs)
    if seat == hand.dealer:
        may_know |= set(hand.discard)
    may_know |= set(hand.draw_seen[seat])
    if hand.phase is Phase.DRAW and seat == hand.to_act:
        may_know.add(hand.stock[hand.stock_pos])
    shown: set[int] = set(v.hand or ()) | {c for t in v.tricks for _, c in t.cards} | {c for _, c in v.current}
    for _, _, cs in v.passes:
        shown |= set(cs or ())
    shown |= set(v.discard or ()) | set(v.draw_seen)
    if v.top_card is not None:
        shown.add(v.top_card)
    for a in v.legal:
        if isinstance(a, Play):
            shown.add(a.card)
        elif isinstance(a, Pass | Discard):
            shown |= set(a.cards)
    faces_known = {c % FACES_PER_PACK for c in may_know}
    return [card_text(c) for c in shown if c not in may_know and c % FACES_PER_PACK not in faces_known]


def check_hand_step(hand: Hand, rng: random.Random) -> None:
    """Invariants before an action: cards add up, a legal action exists, plays agree with the oracle,
    undo and clone are exact, an illegal action changes nothing, views do not leak."""
    all_cards_accounted(hand)
    assert not hand.is_over
    legal = hand.legal_actions()
    assert legal, f"no legal action in phase {hand.phase} for seat {hand.to_act}"
    if hand.phase is Phase.BID:
        engine_bids = {("bid " + a.value.text()) if not a.value.blind else a.value.text()
                       for a in legal if isinstance(a, Bid)}
        assert engine_bids == oracle_bids(hand), (engine_bids, oracle_bids(hand))
    if hand.phase is Phase.PLAY:
        engine = {card_text(a.card) for a in legal}
        assert engine == oracle_plays(hand), (engine, oracle_plays(hand))
        assert {card_text(c) for c in cards_of(hand.legal_play_mask())} == engine
    before = snapshot(hand)
    twin = hand.clone()
    assert snapshot(twin) == before
    action = rng.choice(legal)
    hand.apply(action)
    hand.undo()
    assert snapshot(hand) == before, f"undo of {action} did not restore the hand"
    # An illegal action (a card or a seat that is wrong) leaves the hand untouched.
    wrong_seat = (hand.to_act + 1) % hand.n
    for bad in (Play(wrong_seat, 0), Bid(hand.to_act, legal[0].value) if isinstance(legal[0], Bid) else None):
        if bad is None or bad in hand.legal_actions(bad.seat):
            continue
        try:
            hand.apply(bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"{bad} was accepted")
        assert snapshot(hand) == before
    for seat in range(hand.n):
        assert not view_card_leaks(hand, seat), (seat, view_card_leaks(hand, seat))
    assert not view_card_leaks(hand, seat)


def play_game(rules: Any, seed: int, *, checks: bool = False, max_actions: int = 200_000,
              roundtrip: bool = False, first_dealer: int | None = None) -> Game:
    """Play a whole seeded game with ``choose``; with ``checks``, every invariant at every step."""
    from spades.core import seeded_shuffler

    rng = random.Random(seed)
    clock_now = [0.0]

    def clock() -> float:
        return clock_now[0]

    game = Game(rules, first_dealer=rng.randrange(rules.layout.n) if first_dealer is None else first_dealer,
                shuffler=seeded_shuffler(seed), clock=clock if rules.time_limit_minutes else None)
    hands_seen = 0
    for _ in range(max_actions):
        if game.over:
            break
        hand = game.hand
        if checks:
            check_hand_step(hand, rng)
        legal = game.legal_actions()
        assert legal, "no legal action before the game ended"
        game.apply(choose(rng, legal))
        if len(game.hands) != hands_seen:
            hands_seen = len(game.hands)
            clock_now[0] += 600.0  # ten minutes a hand
            if checks and len(game.hands) > 1:
                check_finished_hand(game, game.hands[-2])
    else:  # pragma: no cover
        raise AssertionError("the game did not end")
    if checks:
        check_finished_hand(game, game.hands[-1])
    if roundtrip:
        check_roundtrip(game, rules)
    return game


def check_finished_hand(game: Game, hand: Hand) -> None:
    """A finished hand: every trick complete and won as the oracle says, tricks add up."""
    assert hand.is_over
    all_cards_accounted(hand)
    if hand.phase is Phase.MISDEALT:
        return
    r = hand.rules
    assert len(hand.tricks) == hand.layout.hand_size
    assert sum(hand.tricks_taken) == hand.layout.hand_size
    leader = None
    for t in hand.tricks:
        assert len(t.cards) == hand.n
        assert [s for s, _ in t.cards] == [(t.leader + i) % hand.n for i in range(hand.n)]
        assert t.winner == trick_winner(r, list(t.cards))
        if leader is not None:
            assert t.leader == leader
        leader = t.winner
    for s in range(hand.n):
        assert hand.tricks_taken[s] == sum(1 for t in hand.tricks if t.winner == s)
        assert hand.hands[s] == 0


def check_roundtrip(game: Game, rules: Any) -> None:
    """Writing the game as a record and reading it back gives the same game."""
    spec = {"preset": "standard", **rules.to_options(type(rules)())}
    rec = json.loads(json.dumps(record_of(game, spec)))
    again = read_record(rec)
    assert again.totals == game.totals
    assert again.bags == game.bags
    if not rules.time_limit_minutes:  # records carry no clock: a timed game replays untimed
        assert again.winner == game.winner and again.over == game.over
    assert again.results == game.results
    assert len(again.hands) == len(game.hands)
    for a, b in zip(again.hands, game.hands, strict=True):
        assert faces_state(a) == faces_state(b)
    assert record_of(again, spec) == rec


def faces_state(hand: Hand) -> dict[str, Any]:
    """A hand's position with cards as texts (the two packs of six-handed are not told apart)."""
    def texts(mask: int) -> list[str]:
        return sorted(card_text(c) for c in cards_of(mask))
    return {
        "phase": hand.phase, "to_act": hand.to_act, "bids": hand.bids, "taken": hand.tricks_taken,
        "hands": [texts(h) for h in hand.hands], "dealt": [texts(h) for h in hand.dealt],
        "tricks": [(t.leader, [(s, card_text(c)) for s, c in t.cards], t.winner) for t in hand.tricks],
        "current": [(s, card_text(c)) for s, c in hand.current],
        "passes": [(a, b, sorted(card_text(c) for c in cs)) for a, b, cs in hand.passes],
        "discard": sorted(card_text(c) for c in hand.discard), "broken": hand.broken,
    }


# ---------------------------------------------------------------------------------------------- deals


def faces(text: str) -> list[int]:
    from spades.core import parse_face

    return [parse_face(t) for t in text.split()]


def make_hand(rules: Any, hands: list[str], *, dealer: int = 3, context: Any = None, fill: bool = False) -> Hand:
    """A hand dealt so that seat s holds ``hands[s]`` (card texts). With ``fill``, the cards not named are
    dealt in deck order to seats that still have room (the dealer last, for its extra cards)."""
    lay = rules.layout
    n = lay.n
    used: dict[int, int] = {}

    def card(f: int) -> int:
        k = used.get(f, 0)
        used[f] = k + 1
        return f + FACES_PER_PACK * k

    held = [[card(f) for f in faces(h)] for h in hands]
    if fill:
        rest = [c for c in lay.deck if c not in {x for h in held for x in h}]
        want = [lay.hand_size + (rules.dealer_discard if s == dealer else 0) for s in range(n)]
        for s in [*(x for x in range(n) if x != dealer), dealer]:
            while len(held[s]) < want[s] and rest:
                held[s].append(rest.pop(0))
        out = rest
    else:
        out = [c for c in lay.deck if c not in {x for h in held for x in h}]
    order = [held[(dealer + 1 + k) % n][i] for i in range(lay.hand_size) for k in range(n)]
    order += held[dealer][lay.hand_size:] + out
    return Hand(rules, dealer, order, context)


def held_texts(hand: Hand, seat: int) -> str:
    return " ".join(sorted(card_text(c) for c in cards_of(hand.hands[seat])))


def legal_texts(hand: Hand, seat: int | None = None) -> set[str]:
    """The legal actions as short texts: cards for plays, 'bid 3', 'blind nil', 'look', 'misdeal'."""
    out = set()
    for a in hand.legal_actions(seat):
        if isinstance(a, Play):
            out.add(card_text(a.card))
        elif isinstance(a, Bid):
            out.add(("bid " + a.value.text()) if not a.value.blind else a.value.text())
        elif isinstance(a, Look):
            out.add("look")
        elif isinstance(a, Misdeal):
            out.add("misdeal")
        elif isinstance(a, Accept):
            out.add("accept")
        else:
            out.add(repr(a))
    return out


def play_texts(hand: Hand, texts: str) -> None:
    """Play the given cards in turn (checked)."""
    from spades.core import parse_face

    for t in texts.split():
        f = parse_face(t)
        seat = hand.to_act
        c = f if hand.hands[seat] >> f & 1 else f + FACES_PER_PACK
        hand.apply(Play(seat, c))


def bid_round(hand: Hand, bids: list[Any]) -> None:
    """Bid in turn order: each entry is a number, 'nil', 'blind nil' or 'blind N' (Look first for numbers)."""
    from spades.core import parse_bid

    for b in bids:
        seat = hand.to_act
        v = parse_bid(b)
        if not v.blind and not hand.looked[seat]:
            hand.apply(Look(seat))
        hand.apply(Bid(seat, v))
