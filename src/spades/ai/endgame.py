"""Exact play of a guessed deal's last tricks (double dummy), for search.

A roll-out policy plays the rest of a guessed deal by rules of thumb; near the end of a hand the rest
can be searched exactly instead: every seat sees every card (the guessed deal), the seat's side plays
to maximise its utility and the other side to minimise it (with two sides the utility of
``Rollout.score`` is zero-sum: one side's is minus the other's). This is what the rules of thumb get
wrong in endings: a side whose contract is made ducks a trick it should take to set the opponents, a
card is kept that should have been thrown, and so on.

The search is alpha-beta over the engine's own legal cards (``Hand.legal_play_mask``, played with
``apply_unchecked`` and taken back with ``undo``), with a table of bounds at each trick's start and
cards of one holder that are equivalent (adjacent in its suit once the cards between are gone) tried
once. Its cost grows quickly with the cards left: ``ENDGAME_CARDS`` is where it stays cheap.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from spades.core.actions import Play
from spades.core.cards import cards_of
from spades.core.hand import Hand, Phase
from spades.core.view import HandView

ENDGAME_CARDS = 17
"""Cards left to play (in every hand) from which a search solves the rest exactly: four tricks and the
last card of a fifth (about 5 ms a guessed deal; a fifth whole trick costs several times more)."""


def solvable(v: HandView, cards: int = ENDGAME_CARDS) -> bool:
    """Whether the position ``v`` shows is in the play with at most ``cards`` cards left to play and
    two sides (zero-sum)."""
    return v.phase is Phase.PLAY and sum(v.hand_sizes) <= cards and len(v.rules.layout.sides) == 2


class Endgame:
    """Solves the rest of hands for one side with one utility (scores cached by tricks taken)."""

    def __init__(self, side: int, score: Callable[[list[int]], float]) -> None:
        """``score(tricks_taken)``: the side's utility of a finished hand with those tricks per seat."""
        self.side = side
        self.score = score
        self._scores: dict[tuple[int, ...], float] = {}
        self.nodes = 0

    def value(self, h: Hand) -> float:
        """The side's utility of ``h`` with perfect play from here by every seat (``h`` is left as it was)."""
        table: dict[tuple[object, ...], tuple[float, float]] = {}
        return self._search(h, -math.inf, math.inf, table)

    def _leaf(self, tricks: list[int]) -> float:
        key = tuple(tricks)
        got = self._scores.get(key)
        if got is None:
            got = self._scores[key] = self.score(tricks)
        return got

    def _cards(self, h: Hand) -> list[int]:
        """The legal cards less those equivalent to one already listed (same holder, same suit, no card
        of another holder or of the trick between them)."""
        lay = h.layout
        eff, power = lay.effective_suit, lay.power
        legal = h.legal_play_mask()
        others = 0  # the cards that can tell two of mine apart: others' cards and the trick's
        for s, m in enumerate(h.hands):
            if s != h.to_act:
                others |= m
        for _, c in h.current:
            others |= 1 << c
        cs = sorted(cards_of(legal), key=lambda c: (eff[c], -power[c]))
        out: list[int] = []
        prev = -1
        for c in cs:
            if prev >= 0 and eff[prev] == eff[c]:
                lo, hi = power[c], power[prev]
                if not any(lo < power[x] < hi for x in cards_of(others & lay.suit_mask[eff[c]])):
                    prev = c
                    continue
            out.append(c)
            prev = c
        return out

    def _search(self, h: Hand, alpha: float, beta: float,
                table: dict[tuple[object, ...], tuple[float, float]]) -> float:
        self.nodes += 1
        if h.phase is not Phase.PLAY:
            return self._leaf(h.tricks_taken)
        key = None
        if not h.current:
            key = (tuple(h.hands), h.to_act, tuple(h.tricks_taken), h.broken)
            got = table.get(key)
            if got is not None:
                lo, hi = got
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        seat = h.to_act
        maxing = h.layout.side_of[seat] == self.side
        best = -math.inf if maxing else math.inf
        for c in self._cards(h):
            h.apply_unchecked(Play(seat, c))
            v = self._search(h, alpha, beta, table)
            h.undo()
            if maxing:
                if v > best:
                    best = v
                if best > alpha:
                    alpha = best
            else:
                if v < best:
                    best = v
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        if key is not None:
            lo, hi = table.get(key, (-math.inf, math.inf))
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            table[key] = (lo, hi)
        return best
