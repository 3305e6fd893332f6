"""Knowledge-based bidding and the small decisions around it: blind calls, misdeal calls, card
exchanges, the dealer's discard and the two-handed draw.

``estimate_tricks`` counts a hand's likely tricks the way players do (top spades with enough guards,
spade length beyond a fair share, side-suit honours that are not trumped too early, ruffs from short
suits with spare spades), scaled to the table: more players or two decks make high cards weaker.
``choose_bid`` turns the estimate into a legal bid that reads the score: nil when the hand is safe
for it, safer bids when ahead near the target, bolder ones when far behind.
"""

from __future__ import annotations

from collections.abc import Sequence

from spades.ai.knowledge import tables
from spades.core.actions import Accept, Action, Bid, BidValue, Discard, Draw, Look, Misdeal, Pass
from spades.core.cards import SPADES, cards_of
from spades.core.rules import Rules
from spades.core.view import HandView


def estimate_tricks(rules: Rules, hand: int) -> float:
    """The tricks a hand should take on its own (a real number)."""
    lay = rules.layout
    t = tables(rules)
    n = lay.n
    copies = 2 if n == 6 else 1
    est = 0.0
    spade_cards = sorted(cards_of(hand & lay.spade_mask), key=lambda c: -lay.power[c])
    spades = len(spade_cards)
    deck_spades = len(t.by_power[SPADES])
    top_order = list(reversed(t.by_power[SPADES]))
    high_counted = 0
    for c in spade_cards:
        rank_from_top = top_order.index(c) // copies
        if rank_from_top <= 3 and spades >= rank_from_top + 1:
            est += (1.0, 0.95, 0.8, 0.55)[rank_from_top] / (1.25 if copies == 2 else 1.0)
            high_counted += 1
        elif rank_from_top <= 2:
            est += 0.4
            high_counted += 1
    fair = deck_spades / n
    est += max(0.0, spades - max(fair, high_counted)) * 0.85
    spare = max(0, spades - high_counted)
    for s in range(3):
        suit_cards = sorted(cards_of(hand & lay.suit_mask[s]), key=lambda c: -lay.power[c])
        length = len(suit_cards)
        deck_len = len(t.by_power[s])
        rounds = deck_len / n  # rounds before someone is likely void
        order = list(reversed(t.by_power[s]))
        for c in suit_cards:
            r = order.index(c) // copies
            if r >= 3:
                break
            if length >= r + 1 and r < rounds - 0.5:
                value = (0.95, 0.7, 0.35)[r]
                if length > rounds + 2:
                    value *= 0.6  # a long suit's honours get trumped
                est += value / (1.3 if copies == 2 else 1.0)
        if spare > 0:
            if length == 0:
                est += 0.9 * min(spare, 2) * 0.6
                spare -= min(spare, 2)
            elif length == 1:
                est += 0.45
                spare -= 1
    return est


def nil_safety(rules: Rules, hand: int) -> float:
    """How safe a nil looks, 0 (hopeless) to 1 (very safe)."""
    lay = rules.layout
    t = tables(rules)
    danger = 0.0
    spade_cards = cards_of(hand & lay.spade_mask)
    top_spades = list(reversed(t.by_power[SPADES]))
    for c in spade_cards:
        r = top_spades.index(c) // (2 if lay.n == 6 else 1)
        danger += 1.0 if r < 2 else 0.6 if r < 4 else 0.3 if r < 7 else 0.12
    danger += max(0, len(spade_cards) - 3) * 0.5
    for s in range(3):
        cs = cards_of(hand & lay.suit_mask[s])
        if not cs:
            continue
        order = list(reversed(t.by_power[s]))
        low_guards = sum(1 for c in cs if order.index(c) >= 7)
        for c in cs:
            r = order.index(c)
            if r < 2:
                danger += 0.75 if low_guards < 3 else 0.35
            elif r < 4:
                danger += 0.35 if low_guards < 2 else 0.12
    return max(0.0, 1.0 - danger / 2.2)


def legal_bids(v: HandView) -> list[BidValue]:
    """The bids among the legal actions."""
    return [a.value for a in v.legal if isinstance(a, Bid)]


def nearest_bid(options: Sequence[BidValue], want: int) -> BidValue:
    """The legal number bid closest to ``want`` (the lower one on a tie)."""
    numbers = [b for b in options if not b.is_nil and not b.blind]
    if not numbers:
        numbers = [b for b in options if not b.blind] or list(options)
    return min(numbers, key=lambda b: (abs(b.tricks - want), b.tricks))


def side_totals(v: HandView, totals: Sequence[int]) -> tuple[int, int]:
    """My side's total and the best other side's total."""
    assert v.seat is not None
    side = v.rules.layout.side_of[v.seat]
    mine = totals[side] if side < len(totals) else 0
    others = [t for i, t in enumerate(totals) if i != side]
    return mine, max(others) if others else mine


def choose_bid(v: HandView, totals: Sequence[int], bags: Sequence[int], nil_p: float | None = None,
               expected: float | None = None) -> tuple[Action, str]:
    """A legal bid (or look, or blind bid) for the seat to act, with a reason.

    ``nil_p`` and ``expected`` let a searching player pass its simulated nil success rate and trick
    count instead of the rules of thumb.
    """
    assert v.seat is not None
    rules = v.rules
    lay = rules.layout
    me = v.seat
    options = legal_bids(v)
    mine, best_other = side_totals(v, totals)
    if v.may_bid_blind or v.hand is None:
        blind = blind_choice(v, totals)
        if blind is not None:
            return blind
        return Look(me), "look at my cards"
    hand = 0
    for c in v.hand:
        hand |= 1 << c
    est = estimate_tricks(rules, hand) if expected is None else expected
    safety = nil_safety(rules, hand) if nil_p is None else nil_p
    partner = lay.partner[me]
    p_bid = v.bids[partner] if partner is not None else None
    if any(isinstance(a, Accept) for a in v.legal):
        # Team bidding: partner gave our side's total. Add a nil only with a hand that ducks everything.
        if options and safety >= 0.75 and est < 1.0:
            return Bid(me, options[0]), "our total stands, and my hand can duck every trick: nil"
        return Accept(me), "let partner's total for our side stand"
    nil_allowed = any(b.is_nil and not b.blind for b in options)
    numbers = [b for b in options if not b.is_nil and not b.blind]
    if rules.forced_bids == "mirror" or (len(options) == 1):
        return Bid(me, options[0]), "the only bid allowed"
    if rules.forced_bids == "whiz":
        spades = (hand & lay.spade_mask).bit_count()
        if nil_allowed and (not numbers or safety >= 0.5 or (spades <= 1 and safety >= 0.35)):
            return Bid(me, BidValue(0)), "whiz: nil looks safer than my spades"
        return Bid(me, numbers[0] if numbers else options[0]), "whiz: bid my spades"
    # Nil: when the hand is safe enough for what nil is worth here.
    if nil_allowed:
        value = rules.nil_points
        partner_strong = p_bid is not None and not p_bid.is_nil and p_bid.tricks >= 4
        double_nil = p_bid is not None and p_bid.is_nil
        p_success = safety if nil_p is not None else min(0.95, 0.25 + 0.75 * safety)
        nil_gain = p_success * value - (1 - p_success) * value
        bid_gain = 10 * max(1.0, est) * 0.8
        threshold = 0.0
        if partner_strong:
            threshold -= 15
        if double_nil:
            threshold += 60
        if partner is None:
            threshold += 10
        forced_nil = rules.forced_bids == "suicide" and not numbers
        if forced_nil or (nil_gain - bid_gain > threshold and est < 2.6):
            reason = "suicide: one of us must bid nil" if forced_nil else "bid nil: my hand can duck every trick"
            return Bid(me, BidValue(0)), reason
        if rules.forced_bids == "suicide" and p_bid is None and est < 3.0 and numbers:
            return Bid(me, BidValue(0)), "suicide: my hand is the weaker, so I bid nil"
    if not numbers:
        return Bid(me, options[0]), "the only bid allowed"
    want = est
    if rules.team_bidding and partner is not None and p_bid is None:
        want += (lay.hand_size - est) / (lay.n - 1) * 0.85
        reason = "our side's count"
    else:
        reason = "my count of tricks"
    # Read the score: near the target and ahead, bid safe; far behind with the others near it, push.
    if best_other >= rules.target - 120 and mine < best_other - 100:
        want += 0.6
        reason += ", pushed: they are close to winning"
    elif mine >= rules.target - 80 and mine > best_other:
        want -= 0.3
        reason += ", safe: we are close to winning"
    side = lay.side_of[me]
    if rules.bags in ("penalty", "count_only") and bags and bags[side] >= rules.bag_limit - 2:
        want += 0.3
        reason += ", bid up to avoid bags"
    if partner is not None and p_bid is not None and p_bid.is_nil:
        want += 0.4  # covering a nil costs tricks as well as saving them; bid a little more carefully
        want = max(want, 1.0)
    pick = nearest_bid(numbers, max(1, int(want + 0.5)))
    return Bid(me, pick), f"{reason}: about {est:.1f} tricks"


def blind_choice(v: HandView, totals: Sequence[int]) -> tuple[Action, str] | None:
    """A blind nil (or big blind bid) when far behind with the others near the target; else ``None``."""
    assert v.seat is not None
    rules = v.rules
    mine, best_other = side_totals(v, totals)
    behind = best_other - mine
    options = [a for a in v.legal if isinstance(a, Bid) and a.value.blind]
    blind_nils = [a for a in options if a.value.is_nil]
    partner = rules.layout.partner[v.seat]
    p_bid = v.bids[partner] if partner is not None else None
    if blind_nils and partner is not None and (p_bid is None or not p_bid.is_nil):
        desperate = behind >= 200 and best_other >= rules.target - 150
        if desperate or (behind >= 300 and rules.blind_nil_points >= 200):
            return blind_nils[0], "blind nil: we are far behind and need the points"
    return None


def choose_misdeal(v: HandView) -> tuple[Action, str] | None:
    """Call a misdeal when allowed and the cards are poor for both a bid and a nil."""
    assert v.seat is not None
    for a in v.legal:
        if isinstance(a, Misdeal) and v.hand is not None:
            hand = 0
            for c in v.hand:
                hand |= 1 << c
            if estimate_tricks(v.rules, hand) < 1.5 and nil_safety(v.rules, hand) < 0.4:
                return a, "a poor hand for any bid: call a misdeal"
    return None


def choose_pass(v: HandView) -> tuple[Action, str]:
    """Nil exchange: the nil bidder passes its highest cards, the partner its lowest."""
    assert v.seat is not None and v.hand is not None
    rules = v.rules
    lay = rules.layout
    me = v.seat
    passes = [a for a in v.legal if isinstance(a, Pass)]
    k = len(passes[0].cards)
    b = v.bids[me]
    key = tables(rules).key
    if b is not None and b.is_nil:
        cards = sorted(v.hand, key=lambda c: (-key[c], c))[:k]
        return Pass(me, tuple(cards)), "nil: pass my highest cards to partner"
    cards = sorted(v.hand, key=lambda c: (lay.power[c], lay.effective_suit[c] == SPADES, c))[:k]
    return Pass(me, tuple(cards)), "partner is nil: pass back my lowest cards"


def choose_discard(v: HandView) -> tuple[Action, str]:
    """Dealer's discard: the lowest cards of the shortest side suits (to make voids for trumping)."""
    assert v.seat is not None and v.hand is not None
    rules = v.rules
    lay = rules.layout
    k = rules.dealer_discard
    hand = 0
    for c in v.hand:
        hand |= 1 << c

    def order(c: int) -> tuple[int, int, int]:
        s = lay.effective_suit[c]
        return (s == SPADES, (hand & lay.suit_mask[s]).bit_count(), lay.power[c])

    cards = sorted(v.hand, key=order)[:k]
    return Discard(v.seat, tuple(cards)), "discard from my shortest suit"


def choose_draw(v: HandView) -> tuple[Action, str]:
    """Two-handed draw: keep spades and high cards, let low side cards go."""
    assert v.seat is not None
    rules = v.rules
    lay = rules.layout
    c = v.top_card
    if c is None:
        return Draw(v.seat, True), "keep the top card"
    if lay.effective_suit[c] == SPADES and lay.power[c] >= 5:
        return Draw(v.seat, True), "keep a good spade"
    if lay.power[c] >= 10:
        return Draw(v.seat, True), "keep a high card"
    return Draw(v.seat, False), "a low card: take the next one instead"
