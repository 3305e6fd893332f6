"""Knowledge-based card play: the ``normal`` player's rules of thumb, with a reason for each card.

The rules are those good players teach: duck as the nil bidder (shed your highest safe card), cover
a partner's nil (beat partner's winning card, lead high), attack an opponent's nil (play under it,
lead low), never overtake a partner's sure winner, win cheaply when a trick is needed, cash sure
winners, and duck bags once the contract is safe unless the opponents can still be set.
"""

from __future__ import annotations

from spades.ai.knowledge import OUT, Knowledge, tables
from spades.ai.situation import WANT_ALL, Situation
from spades.core.actions import Play
from spades.core.cards import SPADES, cards_of
from spades.core.trick import takes_lead
from spades.core.view import HandView


def seats_after(v: HandView, me: int) -> tuple[int, ...]:
    """The seats still to play in the current trick after ``me``."""
    n = v.rules.layout.n
    return tuple((me + i) % n for i in range(1, n - len(v.current)))


class PlayChooser:
    """Chooses a card for one decision of a knowledge-based player."""

    def __init__(self, v: HandView, k: Knowledge, sit: Situation) -> None:
        """Prepare the lookups for one decision."""
        self.v = v
        self.k = k
        self.sit = sit
        self.rules = v.rules
        self.lay = v.rules.layout
        self.eff = self.lay.effective_suit
        self.power = self.lay.power
        self.key = tables(v.rules).key
        assert v.seat is not None
        self.me = v.seat
        self.trick = v.trick
        """Who is winning the trick in progress (the engine's reading, ``HandView.trick``)."""
        self.after = seats_after(v, self.me)
        self.legal = 0
        for a in v.legal:
            if isinstance(a, Play):
                self.legal |= 1 << a.card
        self.hand = k.own
        self.firm = False
        """Set by ``choose`` when the card follows a principle no search should overrule (a nil duck,
        covering partner's nil, leaving partner's sure trick, winning cheaply in last seat...)."""
        self.later_possible = [k.possible(s) for s in self.after]
        self.others = 0
        for s, _m in k.sizes.items():
            if s != OUT:
                self.others |= k.possible(s)

    # ------------------------------------------------------------------ card helpers

    def lowest(self, mask: int, avoid_trump: bool = True) -> int:
        """The weakest card of a set (non-trumps first when ``avoid_trump``)."""
        cs = cards_of(mask)
        if avoid_trump:
            non = [c for c in cs if self.eff[c] != SPADES]
            if non:
                cs = non
        return min(cs, key=lambda c: (self.power[c], c))

    def highest(self, mask: int) -> int:
        """The strongest card of a set (trumps above everything)."""
        return max(cards_of(mask), key=lambda c: (self.key[c], -c))

    def beats(self, c: int) -> bool:
        """Whether ``c`` would be winning the trick if played now."""
        return takes_lead(self.lay, c, self.trick)

    def winners(self) -> int:
        """Legal cards that would be winning the trick now."""
        m = 0
        for c in cards_of(self.legal):
            if self.beats(c):
                m |= 1 << c
        return m

    def outstanding_above(self, c: int, pool: int) -> int:
        """Cards of ``pool`` in ``c``'s suit at least as strong as ``c``."""
        s = self.eff[c]
        p = self.power[c]
        m = 0
        for x in cards_of(pool & self.lay.suit_mask[s]):
            if self.power[x] >= p and x != c:
                m |= 1 << x
        return m

    def safe(self, c: int, led: int | None = None) -> bool:
        """Whether ``c``, winning now, should survive the seats still to play (as far as I can tell)."""
        if led is None:
            led = self.trick.led if self.trick.led >= 0 else self.eff[c]
        trumps_out = self.lay.spade_mask
        for s, poss in zip(self.after, self.later_possible, strict=True):
            if self.eff[c] == SPADES:
                if self.outstanding_above(c, poss):
                    return False
                continue
            if self.outstanding_above(c, poss):
                return False
            void = self.k.voids.get(s, 0) >> led & 1
            left_in_suit = (self.others & self.lay.suit_mask[led]).bit_count()
            may_trump = poss & trumps_out
            if may_trump and (void or left_in_suit < len(self.after) + 1):
                return False
        return True

    def boss(self, c: int) -> bool:
        """Whether ``c`` is the strongest card of its suit that anyone else may still hold."""
        return not self.outstanding_above(c, self.others)

    def duck_danger(self, c: int) -> int:
        """How many other cards could beat ``c`` when it is led (more is safer for a nil)."""
        return self.outstanding_above(c, self.others).bit_count()

    # ------------------------------------------------------------------ choosing

    def choose(self) -> tuple[int, str]:
        """The card and a short reason."""
        legal = self.legal
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1, "the only legal card"
        sit = self.sit
        if sit.my_nil:
            return self.as_nil()
        if sit.partner_nil:
            got = self.cover_nil()
            if got is not None:
                return got
        if sit.opp_nils:
            got = self.attack_nil()
            if got is not None:
                return got
        if sit.need > 0 or sit.need == WANT_ALL or not sit.bags_hurt(self.rules) or sit.set_worth(self.rules):
            why = "set the opponents" if sit.need <= 0 and sit.set_worth(self.rules) else "take the tricks we need"
            return self.take(why)
        return self.duck_bags()

    def as_nil(self) -> tuple[int, str]:
        """My nil is alive: never win a trick I can lose."""
        legal = self.legal
        if self.trick.led < 0:
            best = max(cards_of(legal), key=lambda c: (self.eff[c] != SPADES, self.duck_danger(c), -self.power[c]))
            return best, "lead low to protect my nil"
        losers = legal & ~self.winners()
        if losers:
            non = [c for c in cards_of(losers) if self.eff[c] != SPADES]
            pool = non or cards_of(losers)
            self.firm = True
            return max(pool, key=lambda c: (self.power[c], c)), "duck under the trick to protect my nil"
        if self.after:
            return self.lowest(legal, avoid_trump=False), "forced over: play lowest and hope it is overtaken"
        return self.highest(legal), "forced to take this trick: shed my highest card"

    def cover_nil(self) -> tuple[int, str] | None:
        """My partner's nil is alive: take tricks away from them."""
        partner = self.sit.partner
        assert partner is not None
        t = self.trick
        legal = self.legal
        if t.led < 0:
            bosses = [c for c in cards_of(legal) if self.eff[c] != SPADES and self.boss(c)]
            if bosses:
                return max(bosses, key=lambda c: self.power[c]), "lead a winner to cover partner's nil"
            non = legal & ~self.lay.spade_mask
            if non:
                return self.highest(non), "lead high to cover partner's nil"
            return self.highest(legal), "lead high to cover partner's nil"
        if t.seat == partner:
            win = self.winners()
            if win:
                # Beat partner's card as cheaply as possible (a trump only when there is no other way).
                follow = [c for c in cards_of(win) if self.eff[c] == t.led]
                pool = follow or cards_of(win)
                self.firm = True
                return min(pool, key=lambda c: (self.key[c], c)), "cover partner's nil"
            return None
        if partner in self.after:
            win = self.winners()
            if win:
                follow = [c for c in cards_of(win) if self.eff[c] == t.led]
                if follow:
                    return max(follow, key=lambda c: self.power[c]), "play high so partner can duck (nil)"
                return min(cards_of(win), key=lambda c: self.key[c]), "trump so partner can duck (nil)"
            follow_mask = legal & self.lay.suit_mask[t.led]
            if follow_mask:
                return self.highest(follow_mask), "play high so partner can duck (nil)"
        return None

    def attack_nil(self) -> tuple[int, str] | None:
        """An opponent's nil is alive: make them take a trick."""
        t = self.trick
        legal = self.legal
        nils = self.sit.opp_nils
        if t.led < 0:
            target = nils[0]
            void = self.k.voids.get(target, 0)
            pool = [c for c in cards_of(legal) if not void >> self.eff[c] & 1 and self.eff[c] != SPADES]
            if not pool:
                return None
            return min(pool, key=lambda c: (self.power[c], c)), "lead low to attack their nil"
        if t.seat in nils:
            losers = legal & ~self.winners()
            if losers:
                self.firm = not self.after
                return max(cards_of(losers), key=lambda c: (self.eff[c] != SPADES, self.power[c])), \
                    "play under their nil so it takes the trick"
            return None
        if any(s in nils for s in self.after):
            follow = legal & self.lay.suit_mask[t.led]
            if follow:
                return self.lowest(follow), "play low under the nil bidder still to play"
            losers = legal & ~self.winners()
            if losers:
                return self.lowest(losers), "keep the trick low for the nil bidder to take"
        return None

    def take(self, why: str) -> tuple[int, str]:
        """Play for tricks, cheaply."""
        t = self.trick
        legal = self.legal
        partner = self.sit.partner
        if t.led < 0:
            non_spade_boss = [c for c in cards_of(legal) if self.eff[c] != SPADES and self.boss(c)
                              and self.safe_lead(c)]
            if non_spade_boss:
                return max(non_spade_boss, key=lambda c: self.power[c]), "cash a sure winner"
            spade_boss = [c for c in cards_of(legal) if self.eff[c] == SPADES and self.boss(c)]
            if spade_boss and (self.hand & self.lay.spade_mask).bit_count() >= 2:
                return max(spade_boss, key=lambda c: self.power[c]), "draw trumps with the top spade"
            return self.low_lead(), "lead low and keep my winners"
        if partner is not None and t.seat == partner and (not self.after or self.safe(t.card)):
            self.firm = not self.after
            return self.cheap_discard(), "partner's trick is safe: play low"
        win = self.winners()
        if win:
            if not self.after:
                follow = [c for c in cards_of(win) if self.eff[c] == t.led]
                pool = follow or cards_of(win)
                self.firm = bool(follow)
                return min(pool, key=lambda c: (self.key[c], c)), "win cheaply: " + why
            safe = [c for c in cards_of(win) if self.safe(c)]
            if safe:
                return min(safe, key=lambda c: (self.key[c], c)), "win with a card that should hold: " + why
            trumps = [c for c in cards_of(win) if self.eff[c] == SPADES and self.eff[c] != t.led]
            if trumps:
                return min(trumps, key=lambda c: self.power[c]), "trump low: " + why
            if partner is not None and partner in self.after:
                return self.cheap_discard(), "second hand low"
            return max(cards_of(win), key=lambda c: self.power[c]), "play high to force their winner"
        return self.cheap_discard(), "cannot win this trick: play low"

    def safe_lead(self, c: int) -> bool:
        """A led side-suit winner that no opponent is known to trump."""
        s = self.eff[c]
        for seat, m in self.k.voids.items():
            if seat == self.me or seat == self.sit.partner:
                continue
            if m >> s & 1 and self.k.possible(seat) & self.lay.spade_mask:
                return False
        return True

    def low_lead(self) -> int:
        """A low lead from my longest side suit (spades only when nothing else is legal)."""
        legal = self.legal
        best = None
        best_key: tuple[int, int] | None = None
        for c in cards_of(legal):
            if self.eff[c] == SPADES:
                continue
            length = (self.hand & self.lay.suit_mask[self.eff[c]]).bit_count()
            k = (length, -self.power[c])
            if best_key is None or k > best_key:
                best, best_key = c, k
        if best is None:
            return self.lowest(legal, avoid_trump=False)
        return best

    def cheap_discard(self) -> int:
        """The lowest card, following suit when I must, else from my shortest side suit."""
        t = self.trick
        legal = self.legal
        if t.led >= 0 and legal & self.lay.suit_mask[t.led]:
            return self.lowest(legal & self.lay.suit_mask[t.led], avoid_trump=False)
        non = [c for c in cards_of(legal) if self.eff[c] != SPADES]
        if non:
            return min(non, key=lambda c: ((self.hand & self.lay.suit_mask[self.eff[c]]).bit_count(),
                                           self.power[c]))
        return self.lowest(legal, avoid_trump=False)

    def duck_bags(self) -> tuple[int, str]:
        """The contract is safe: avoid over-tricks (bags)."""
        t = self.trick
        legal = self.legal
        if t.led < 0:
            best = max(cards_of(legal), key=lambda c: (self.eff[c] != SPADES, self.duck_danger(c), -self.power[c]))
            return best, "contract safe: lead low to duck bags"
        losers = legal & ~self.winners()
        if losers:
            non = [c for c in cards_of(losers) if self.eff[c] != SPADES]
            pool = non or cards_of(losers)
            self.firm = not self.after and all(need <= 0 for _, need in self.sit.opp_need)
            return max(pool, key=lambda c: (self.power[c], c)), "contract safe: duck the bag"
        if self.after:
            return self.lowest(legal, avoid_trump=False), "contract safe: play low"
        return self.highest(legal), "forced to take a bag: shed my highest card"


def easy_play(v: HandView, k: Knowledge, sit: Situation) -> tuple[int, str]:
    """A simple player: win when it can, duck as a nil bidder, otherwise play low."""
    ch = PlayChooser(v, k, sit)
    legal = ch.legal
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1, "the only legal card"
    if sit.my_nil:
        return ch.as_nil()
    if ch.trick.led < 0:
        return ch.highest(legal), "lead my best card"
    win = ch.winners()
    if win:
        return ch.highest(win), "try to win the trick"
    return ch.lowest(legal), "cannot win: play low"
