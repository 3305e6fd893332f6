"""What one seat knows about the hidden cards, and guessing them (determinization) for search.

Everything here is built from a ``HandView`` only. ``Knowledge`` collects the facts a careful
player tracks: the cards still unseen, who showed a void (failing to follow suit), who led a spade
before spades were broken (so held nothing but spades), the cards passed to partner, and how many
cards each seat and the unseen "out" pile hold. ``Knowledge.sample`` deals the unseen cards to the
other seats consistently with those facts, optionally weighing the bids as soft evidence
(a seat that bid 5 is more likely to hold high cards than one that bid nil).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache

from spades.core.cards import SPADES, cards_of
from spades.core.rules import Layout, Rules
from spades.core.view import HandView

OUT = -1
"""The holder index of cards out of play that nobody sees (set-aside cards, discards, the two-handed stock)."""


@dataclass(frozen=True)
class BidEvidence:
    """How guessed deals read the bids (``Knowledge.sample`` with ``bids_weight``): a seat's high-card
    count ``est`` is taken to be its bid plus ``number_offset``, give or take ``number_spread`` tricks
    (a Gaussian), and a nil bidder's to be at most ``nil_free``, give or take ``nil_spread`` above it;
    ``tries`` deals are drawn at most for one guess. The spread is looser than the bots' own bids
    (0.5 to 0.8 tricks), but reading bids that tightly did not measurably help (``benchmarks/README.md``,
    Sixth session)."""

    number_spread: float = 1.8
    number_offset: float = 0.0
    nil_free: float = 0.0
    nil_spread: float = 1.2
    tries: int = 6


BID_EVIDENCE = BidEvidence()
"""The model in use (an experiment may replace it: ``benchmarks/bid_evidence.py``)."""


@dataclass(frozen=True)
class CardTables:
    """Per-rule-set lookups for fast card logic: sort keys and each suit's cards by strength."""

    key: tuple[int, ...]
    """Per card: strength with trumps above every other suit (for "lowest card" choices)."""
    by_power: tuple[tuple[int, ...], ...]
    """Per effective suit: the deck's cards from weakest to strongest."""
    high_value: tuple[float, ...]
    """Per card: a rough count of the tricks the card takes on its own (for bid evidence)."""


@lru_cache(maxsize=64)
def tables(rules: Rules) -> CardTables:
    """The lookups for a rule set (cached)."""
    lay = rules.layout
    size = len(lay.power)
    key = [0] * size
    for c in range(size):
        key[c] = lay.power[c] + (200 if lay.effective_suit[c] == SPADES else 0)
    by_power: list[tuple[int, ...]] = []
    for s in range(4):
        in_suit = sorted((c for c in lay.deck if lay.effective_suit[c] == s), key=lambda c: (lay.power[c], c))
        by_power.append(tuple(in_suit))
    value = [0.0] * size
    for s in range(4):
        cs = by_power[s]
        n = len(cs)
        copies = 2 if lay.n == 6 else 1
        for i, c in enumerate(cs):
            from_top = (n - 1 - i) // copies
            if s == SPADES:
                value[c] = (1.0, 0.9, 0.7, 0.45, 0.3, 0.2)[from_top] if from_top < 6 else 0.12
            else:
                value[c] = (0.95, 0.7, 0.3)[from_top] if from_top < 3 else 0.0
    return CardTables(tuple(key), tuple(by_power), tuple(value))


def played_cards(v: HandView) -> int:
    """Every card played so far in the hand (finished tricks and the current one)."""
    m = 0
    for t in v.tricks:
        for _, c in t.cards:
            m |= 1 << c
    for _, c in v.current:
        m |= 1 << c
    return m


@dataclass
class Knowledge:
    """The viewer's knowledge of where the unseen cards may be (see the module docstring)."""

    rules: Rules
    seat: int
    own: int
    """The viewer's cards."""
    unseen: int
    """Cards the viewer has not seen that are still in someone's hand or out of play."""
    played: int
    sizes: dict[int, int]
    """How many unseen cards each other seat holds, and ``OUT`` the unseen out-of-play pile."""
    known: dict[int, int] = field(default_factory=dict)
    """Cards known to be in a seat's hand (passed to partner and not yet played)."""
    voids: dict[int, int] = field(default_factory=dict)
    """Per seat: a bit per effective suit it is known not to hold."""
    played_by: dict[int, int] = field(default_factory=dict)
    """Per seat: the cards it has played (for bid evidence)."""

    @classmethod
    def from_view(cls, v: HandView) -> Knowledge:
        """Collect the facts of a view (the viewer must be a seat)."""
        assert v.seat is not None
        rules = v.rules
        lay = rules.layout
        me = v.seat
        own = 0
        for c in v.hand or ():
            own |= 1 << c
        played = played_cards(v)
        gone = own | played
        for c in v.discard or ():
            gone |= 1 << c
        for c in v.draw_seen:
            gone |= 1 << c
        unseen = lay.deck_set & ~gone
        known: dict[int, int] = {}
        for a, b, cs in v.passes:
            if cs is None or a != me:
                continue
            for c in cs:
                if not (played | own) >> c & 1:
                    known[b] = known.get(b, 0) | 1 << c
        sizes = {s: v.hand_sizes[s] for s in range(lay.n) if s != me}
        if v.hand is None:
            # Blind: the viewer's own cards are unseen too; they are dealt like anyone's.
            sizes[me] = v.hand_sizes[me]
        out = unseen.bit_count() - sum(sizes.values())
        if out > 0:
            sizes[OUT] = out
        voids: dict[int, int] = {}
        played_by: dict[int, int] = {}
        eff = lay.effective_suit
        any_time = rules.spades_lead == "any_time"
        broken = False
        all_tricks = [(t.cards, i) for i, t in enumerate(v.tricks)]
        if v.current:
            all_tricks.append((v.current, len(v.tricks)))
        for cards, number in all_tricks:
            led = eff[cards[0][1]]
            lead_seat = cards[0][0]
            if led == SPADES and not broken:
                opening_ok = number == 0 and rules.first_lead_spade
                if not any_time and not opening_ok:
                    voids[lead_seat] = voids.get(lead_seat, 0) | 0b0111  # held nothing but spades
            for s, c in cards:
                played_by[s] = played_by.get(s, 0) | 1 << c
                if eff[c] != led:
                    voids[s] = voids.get(s, 0) | 1 << led
                if eff[c] == SPADES:
                    broken = True
        return cls(rules, me, own, unseen, played, sizes, known, voids, played_by)

    def holders(self) -> list[int]:
        """The holders of unseen cards: other seats, then ``OUT`` when some cards are out of play."""
        return list(self.sizes)

    def possible(self, seat: int) -> int:
        """The unseen cards ``seat`` may hold (its known cards, plus any unseen card of a suit it may hold)."""
        lay = self.rules.layout
        mask = 0
        v = self.voids.get(seat, 0)
        for s in range(4):
            if not v >> s & 1:
                mask |= lay.suit_mask[s]
        return (self.unseen & mask) | self.known.get(seat, 0)

    def sample(self, rng: random.Random, bids_weight: HandView | None = None,
               tries: int | None = None) -> dict[int, int]:
        """Deal the unseen cards to their holders consistently with the known facts.

        With ``bids_weight`` (the view), up to ``tries`` deals (``BID_EVIDENCE.tries`` by default) are
        drawn and one is kept with probability proportional to how well the seats' cards fit their bids.
        """
        best: dict[int, int] | None = None
        best_w = -1.0
        for _ in range(max(1, BID_EVIDENCE.tries if tries is None else tries)):
            deal = self._deal_once(rng)
            if bids_weight is None:
                return deal
            w = self._bid_fit(deal, bids_weight)
            if rng.random() < w:
                return deal
            if w > best_w:
                best, best_w = deal, w
        assert best is not None
        return best

    def _deal_once(self, rng: random.Random) -> dict[int, int]:
        lay = self.rules.layout
        holders = self.holders()
        remaining = dict(self.sizes)
        out: dict[int, int] = {h: 0 for h in holders}
        free = self.unseen
        for h, cs in self.known.items():
            if h in out:
                take = cs & free
                out[h] |= take
                remaining[h] -= take.bit_count()
                free &= ~take
        allowed_suits: dict[int, int] = {}
        for h in holders:
            vmask = self.voids.get(h, 0) if h != OUT else 0
            allowed_suits[h] = (~vmask) & 0b1111
        cards = cards_of(free)
        eff = lay.effective_suit
        if all(m == 0b1111 for m in allowed_suits.values()):
            # No void known: a plain shuffle is exact.
            rng.shuffle(cards)
            i = 0
            for h in holders:
                take = remaining[h]
                for c in cards[i:i + take]:
                    out[h] |= 1 << c
                i += take
            return out
        suit_holders = [[h for h in holders if allowed_suits[h] >> s & 1] for s in range(4)]
        # Deal the most constrained suits first, each card to a holder drawn by remaining room.
        order = sorted(range(4), key=lambda s: len(suit_holders[s]))
        by_suit: list[list[int]] = [[] for _ in range(4)]
        for c in cards:
            by_suit[eff[c]].append(c)
        for _attempt in range(20):
            rem = dict(remaining)
            got = dict.fromkeys(holders, 0)
            ok = True
            for s in order:
                pool = by_suit[s]
                rng.shuffle(pool)
                hs = suit_holders[s]
                for c in pool:
                    total = 0
                    for h in hs:
                        total += rem[h]
                    if total <= 0:
                        ok = False
                        break
                    pick = rng.random() * total
                    chosen = hs[-1]
                    for h in hs:
                        r = rem[h]
                        if r <= 0:
                            continue
                        pick -= r
                        if pick < 0:
                            chosen = h
                            break
                    if rem[chosen] <= 0:
                        chosen = next(h for h in hs if rem[h] > 0)
                    got[chosen] |= 1 << c
                    rem[chosen] -= 1
                if not ok:
                    break
            if ok:
                for h in holders:
                    out[h] |= got[h]
                return out
        # The facts could not all be met (should not happen): deal ignoring voids.
        rng_cards = cards[:]
        rng.shuffle(rng_cards)
        i = 0
        for h in holders:
            for _ in range(remaining[h]):
                out[h] |= 1 << rng_cards[i]
                i += 1
        return out

    def _bid_fit(self, deal: dict[int, int], v: HandView) -> float:
        """How well a deal fits the bids: 1 when every seat's strength matches its bid."""
        w = 1.0
        ev = BID_EVIDENCE
        for s, cs in deal.items():
            if s == OUT or s == self.seat:
                continue
            b = v.bids[s]
            if b is None or b.blind:
                continue
            est = bid_strength(self.rules, cs | self.played_by.get(s, 0))
            if b.is_nil:
                miss = max(0.0, est - ev.nil_free)
                sigma = ev.nil_spread
            else:
                miss = est - ev.number_offset - b.tricks
                sigma = ev.number_spread
            w *= pow(2.718281828, -(miss * miss) / (2 * sigma * sigma))
        return w


def bid_strength(rules: Rules, cards: int) -> float:
    """The quick count of a hand's tricks that guessed deals hold against its bid (``BidEvidence``):
    each card's high-card value, plus 0.6 for each spade beyond a fair share of three."""
    lay = rules.layout
    t = tables(rules)
    est = 0.0
    for c in cards_of(cards):
        est += t.high_value[c]
    spades = (cards & lay.spade_mask).bit_count()
    return est + max(0, spades - 3 * lay.hand_size / 13) * 0.6


def layout_of(v: HandView) -> Layout:
    """The view's layout (a shorthand)."""
    return v.rules.layout
