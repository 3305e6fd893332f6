"""Fast play-outs and the evaluation of a finished hand, for search.

``Rollout.play_out`` finishes a guessed hand (a determinization) with a quick rule-based policy:
nil bidders duck, their partners cover, a partner's winning trick is left alone, tricks are won
cheaply while the contract needs them and ducked once it is made. ``Rollout.utility`` scores the
result as the game does (contract, set, nil, bags with the side's bag count, the target) and turns
it into one number per side: its points minus the average of the others', with each new bag
charged its share of the coming bag penalty and a bonus for winning the game on this hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from spades.ai.knowledge import tables
from spades.core.actions import BidValue
from spades.core.cards import SPADES, cards_of
from spades.core.hand import Hand, Phase
from spades.core.rules import Rules
from spades.core.scoring import game_outcome, score_hand, side_contract, side_toward
from spades.core.trick import beats

WIN_BONUS = 150.0
"""Utility for winning the game on this hand (points are the rest of the utility)."""


class Rollout:
    """Play-outs and evaluation for one decision (the bids, bags and totals it was built with)."""

    def __init__(self, rules: Rules, bags: Sequence[int], totals: Sequence[int], bidless: bool = False) -> None:
        """Prepare the lookups."""
        self.rules = rules
        lay = rules.layout
        self.lay = lay
        self.eff = lay.effective_suit
        self.power = lay.power
        self.key = tables(rules).key
        self.suit_mask = lay.suit_mask
        self.bags = tuple(bags)
        self.totals = tuple(totals)
        self.bidless = bidless
        self.count_for_partner = rules.failed_nil_tricks == "count_for_partner"
        self.liability = rules.bag_penalty / rules.bag_limit if rules.bags in ("penalty", "count_only") else 0.0
        self.duck_bags = rules.bags != "none"
        self.setting = True
        """Roll-out players keep taking tricks after their contract while another side can still be set
        within two tricks."""
        self.smart = True
        """Roll-out players see the guessed deal: a card is judged by whether the opponents still to play
        can beat it (off: simpler rules of thumb)."""

    # ------------------------------------------------------------------ play-outs

    def exchange(self, h: Hand) -> None:
        """Make the pending nil exchanges: the nil bidder passes high, the partner low."""
        from spades.core.actions import Pass

        key = self.key
        power = self.power
        while h.phase is Phase.EXCHANGE:
            giver, _, k = h.exchanges[0]
            b = h.bids[giver]
            cs = cards_of(h.hands[giver])
            if b is not None and b.is_nil:
                cs.sort(key=lambda c: -key[c])
            else:
                cs.sort(key=lambda c: power[c])
            h.apply_unchecked(Pass(giver, tuple(cs[:k])))

    def play_out(self, h: Hand, rng: random.Random | None = None) -> None:
        """Play the hand to its end with the rule-based policy (``rng``: random moves instead)."""
        if h.phase is Phase.EXCHANGE:
            self.exchange(h)
        lay = self.lay
        n = lay.n
        eff = self.eff
        power = self.power
        key = self.key
        side_of = lay.side_of
        partner_of = lay.partner
        sides = lay.sides
        bids = h.bids
        nil = [b is not None and b.tricks == 0 for b in bids]
        any_nil = any(nil)
        hand_size = lay.hand_size
        n_sides = len(sides)
        setting = self.setting and n_sides > 1
        contract = [side_contract(bids, ss) for ss in sides]
        suit_mask = self.suit_mask
        spade_mask = lay.spade_mask
        smart = self.smart
        bidless = self.bidless or all(b is None for b in bids)
        rules = self.rules
        duck_bags = self.duck_bags
        hands = h.hands
        tt = h.tricks_taken
        while h.phase is Phase.PLAY:
            legal = h.legal_play_mask()
            if legal & (legal - 1) == 0:
                h.play_fast(legal.bit_length() - 1)
                continue
            if rng is not None:
                cs = cards_of(legal)
                h.play_fast(cs[rng.randrange(len(cs))])
                continue
            seat = h.to_act
            hands = h.hands
            side = side_of[seat]
            my_nil = nil[seat] and tt[seat] == 0
            p = partner_of[seat]
            p_nil = p is not None and nil[p] and tt[p] == 0
            cs = cards_of(legal)
            cur = h.current
            if bidless:
                need = 1
            else:
                need = contract[side] - side_toward(rules, bids, tt, sides[side])
                if need <= 0 and duck_bags and setting:
                    # Our contract is made: keep taking tricks only while another side can still be set
                    # within two tricks (as good players do); otherwise duck bags.
                    left = hand_size - sum(tt)
                    for o in range(n_sides):
                        if o == side or contract[o] <= 0:
                            continue
                        o_need = contract[o] - side_toward(rules, bids, tt, sides[o])
                        if o_need > 0 and left - o_need + 1 <= 2:
                            need = 1
                            break
            # An opponent's nil still alive: the seat to attack (the first one found).
            target = -1
            if any_nil and not my_nil and not p_nil:
                for s in range(n):
                    if nil[s] and tt[s] == 0 and side_of[s] != side:
                        target = s
                        break
            if not cur:
                non = [c for c in cs if eff[c] != SPADES] or cs
                if my_nil:
                    card = min(non, key=power.__getitem__)
                elif p_nil:
                    card = max(non, key=power.__getitem__)
                elif target >= 0 and (card := _nil_attack_lead(non, hands[target], eff, power, suit_mask)) >= 0:
                    pass
                elif need > 0:
                    others = 0
                    for s in range(n):
                        if s != seat:
                            others |= hands[s]
                    card = -1
                    best = -1
                    for c in non:
                        pc = power[c]
                        if pc > best:
                            above = others & suit_mask[eff[c]]
                            boss = True
                            for x in cards_of(above):
                                if power[x] > pc:
                                    boss = False
                                    break
                            if boss:
                                card, best = c, pc
                    if card < 0:
                        card = min(non, key=power.__getitem__)
                else:
                    card = min(non, key=power.__getitem__)
                h.play_fast(card)
                continue
            led = eff[cur[0][1]]
            wt = h.win_trump
            wp = h.win_power
            ws = h.win_seat
            win: list[int] = []
            lose: list[int] = []
            for c in cs:
                (win if beats(eff[c], power[c], led, wt, wp) else lose).append(c)
            last = len(cur) == n - 1
            if my_nil:
                if lose:
                    card = max(lose, key=lambda c: (eff[c] != SPADES, power[c]))
                else:
                    card = max(cs, key=key.__getitem__) if last else min(cs, key=key.__getitem__)
            elif p_nil and ws == p:
                card = min(win, key=key.__getitem__) if win else min(cs, key=key.__getitem__)
            elif p_nil and not last and all(s != p for s, _ in cur):
                follow = [c for c in win if eff[c] == led]
                if follow:
                    card = max(follow, key=power.__getitem__)
                elif win:
                    card = min(win, key=key.__getitem__)
                else:
                    card = min(cs, key=key.__getitem__)
            elif p is not None and ws == p:
                card = min(cs, key=key.__getitem__)
                if (smart and not last and need > 0
                        and _beaten_later(h, seat, wt, wp, led, power, suit_mask, spade_mask, side_of)):
                    hold = [c for c in win if not _beaten_later(h, seat, eff[c] == SPADES, power[c], led, power,
                                                                suit_mask, spade_mask, side_of)]
                    if hold:
                        card = min(hold, key=key.__getitem__)
            elif nil[ws] and tt[ws] == 0 and side_of[ws] != side:
                card = max(lose, key=key.__getitem__) if lose else min(cs, key=key.__getitem__)
            elif target >= 0 and all(s != target for s, _ in cur):
                # The nil bidder plays after me: keep the trick low so it has to win it.
                card = min(cs, key=key.__getitem__)
            elif need > 0 or not duck_bags:
                if win and smart and not last:
                    hold = [c for c in win if not _beaten_later(h, seat, eff[c] == SPADES, power[c], led, power,
                                                                suit_mask, spade_mask, side_of)]
                    card = min(hold, key=key.__getitem__) if hold else min(cs, key=key.__getitem__)
                elif win:
                    follow = [c for c in win if eff[c] == led]
                    if last or not follow:
                        card = min(win, key=key.__getitem__)
                    elif len(cur) == 1 and p is not None and follow:
                        card = max(follow, key=power.__getitem__) if _is_boss(h, follow, power, suit_mask, eff) \
                            else min(cs, key=key.__getitem__)
                    else:
                        card = max(follow, key=power.__getitem__)
                else:
                    card = min(cs, key=key.__getitem__)
            else:
                card = max(lose, key=key.__getitem__) if lose else (
                    max(cs, key=key.__getitem__) if last else min(cs, key=key.__getitem__))
            h.play_fast(card)

    # ------------------------------------------------------------------ evaluation

    def utility(self, h: Hand) -> list[float]:
        """Each side's utility for a finished hand (see the module docstring)."""
        return self.score(h.bids, h.tricks_taken)

    def score(self, bids: Sequence[BidValue | None], tricks: Sequence[int]) -> list[float]:
        """Each side's utility for a hand's bids and tricks per seat."""
        rules = self.rules
        sides = score_hand(rules, None if self.bidless else bids, tricks, self.bags)
        k = len(sides)
        raw = [0.0] * k
        totals = self.totals
        for i, s in enumerate(sides):
            u = float(s.points)
            if self.liability:
                before = self.bags[i]
                # Each bag counted carries its share of a coming penalty; a penalty paid now (already in
                # the points) clears the share the old bags carried.
                u -= self.liability * (s.bags_total - before)
            raw[i] = u
        if totals and len(totals) == k:
            _, winner = game_outcome(rules, [totals[i] + sides[i].points for i in range(k)])
            if winner is not None:
                raw[winner] += WIN_BONUS
        if k == 1:
            return raw
        total = sum(raw)
        return [raw[i] - (total - raw[i]) / (k - 1) for i in range(k)]


def _nil_attack_lead(non: list[int], target_hand: int, eff: Sequence[int], power: Sequence[int],
                     suit_mask: Sequence[int]) -> int:
    """A lead against an opponent's nil: my lowest card of the suit where the nil bidder's lowest card
    is highest (hardest for it to duck), when some card of theirs beats my lead; -1 for none."""
    best = -1
    best_key = -1
    for c in non:
        held = target_hand & suit_mask[eff[c]]
        if not held:
            continue
        pc = power[c]
        lowest = min(power[x] for x in cards_of(held))
        highest = max(power[x] for x in cards_of(held))
        if highest <= pc:
            continue
        k = lowest * 64 - pc
        if k > best_key:
            best, best_key = c, k
    return best


def _is_boss(h: Hand, follow: list[int], power: Sequence[int], suit_mask: Sequence[int],
             eff: Sequence[int]) -> bool:
    """Whether the best of ``follow`` beats every card of its suit still held by others."""
    c = max(follow, key=power.__getitem__)
    seat = h.to_act
    others = 0
    for s, m in enumerate(h.hands):
        if s != seat:
            others |= m
    pc = power[c]
    return all(power[x] < pc for x in cards_of(others & suit_mask[eff[c]]))


def _beaten_later(h: Hand, seat: int, trump: bool, pw: int, led: int, power: Sequence[int],
                  suit_mask: Sequence[int], spade_mask: int, side_of: Sequence[int]) -> bool:
    """Whether an opponent of ``seat`` still to play this trick can beat a winning card (trump?, power)."""
    n = len(h.hands)
    side = side_of[seat]
    eff = h.layout.effective_suit
    s = seat
    for _ in range(n - len(h.current) - 1):
        s = (s + 1) % n
        if side_of[s] == side:
            continue
        held = h.hands[s]
        # It must follow suit when it can; void, only its trumps can take the lead (``beats``).
        for x in cards_of(held & suit_mask[led] or held & spade_mask):
            if beats(eff[x], power[x], led, trump, pw):
                return True
    return False
