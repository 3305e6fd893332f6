"""The levels players choose from: ``easy``, ``normal`` and ``expert``, and the ``ismcts`` baseline.

``easy`` and ``normal`` are fast rule-based players (``spades.ai.bidding``, ``spades.ai.play``);
``expert`` searches over guessed deals (``spades.ai.search``) within a time budget and falls back on
the normal player's choices for the rare phases (draw, discard, exchange, blind calls).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from spades.ai.base import Decision, bot_rng, infer_bags, only_action
from spades.ai.bidding import (
    choose_bid,
    choose_discard,
    choose_draw,
    choose_misdeal,
    choose_pass,
    estimate_tricks,
)
from spades.ai.knowledge import Knowledge
from spades.ai.play import PlayChooser, easy_play
from spades.ai.search import BidSearch, SearchStats, ismcts_play, pimc_bid, pimc_play
from spades.ai.situation import Situation
from spades.core.actions import Accept, Bid, BidValue, Look, Play
from spades.core.cards import card_name
from spades.core.hand import Phase
from spades.core.view import HandView

DEFAULT_BUDGET = 0.16
"""Seconds an ``expert`` spends on a card by default (bids get twice as much)."""


def situation(v: HandView, bags: tuple[int, ...]) -> Situation:
    """The score situation from a view (the viewer must be a seat)."""
    assert v.seat is not None
    return Situation.read(v.rules, v.seat, v.bids, v.tricks_taken, len(v.tricks), v.bidless, bags)


class NormalBot:
    """Knowledge-based play and bidding that read the score (fast: well under 20 ms a decision)."""

    level = "normal"

    def __init__(self, seed: int | None = None) -> None:
        """A normal player (``seed`` only matters for ties and rare random choices)."""
        self.rng = bot_rng(seed)

    def decide(self, view: HandView, totals: tuple[int, ...], deadline: float | None = None,
               bags: tuple[int, ...] | None = None) -> Decision:
        """Choose by the rules of thumb of good players."""
        only = only_action(view)
        if only is not None:
            return only
        b = infer_bags(view.rules, totals, bags)
        ph = view.phase
        if ph is Phase.PLAY:
            return self.play(view, totals, b, deadline)
        if ph is Phase.BID:
            return self.bid(view, totals, b, deadline)
        if ph is Phase.EXCHANGE:
            return Decision(*choose_pass(view))
        if ph is Phase.DISCARD:
            return Decision(*choose_discard(view))
        if ph is Phase.DRAW:
            return Decision(*choose_draw(view))
        return Decision(self.rng.choice(view.legal), "a legal choice")

    def play(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
             deadline: float | None) -> Decision:
        """A card by the rules of thumb."""
        k = Knowledge.from_view(view)
        card, why = PlayChooser(view, k, situation(view, bags)).choose()
        assert view.seat is not None
        return Decision(Play(view.seat, card), why)

    def bid(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
            deadline: float | None) -> Decision:
        """A bid (or a misdeal call, or the blind decision) by counting tricks."""
        md = choose_misdeal(view)
        if md is not None:
            return Decision(*md)
        return Decision(*choose_bid(view, totals, bags))


class EasyBot(NormalBot):
    """A simple, fast player: counts its tricks roughly, wins tricks when it can, ducks its own nil."""

    level = "easy"

    def play(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
             deadline: float | None) -> Decision:
        """Win when possible, else play low."""
        k = Knowledge.from_view(view)
        card, why = easy_play(view, k, situation(view, bags))
        assert view.seat is not None
        return Decision(Play(view.seat, card), why)

    def bid(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
            deadline: float | None) -> Decision:
        """Count aces, kings and spades; nil only with a very poor hand; never blind."""
        assert view.seat is not None
        if view.may_bid_blind or view.hand is None:
            return Decision(Look(view.seat), "look at my cards")
        bids = [a for a in view.legal if isinstance(a, Bid)]
        if not bids:
            return Decision(self.rng.choice(view.legal), "a legal choice")
        hand = 0
        for c in view.hand:
            hand |= 1 << c
        est = estimate_tricks(view.rules, hand) + self.rng.uniform(-0.8, 0.8)
        nil = [a for a in bids if a.value.is_nil and not a.value.blind]
        if nil and est < 0.8:
            return Decision(nil[0], "bid nil: a poor hand")
        accept = [a for a in view.legal if isinstance(a, Accept)]
        if accept:
            return Decision(accept[0], "let partner's total for our side stand")
        numbers = [a for a in bids if not a.value.is_nil and not a.value.blind] or bids
        want = max(1, round(est))
        pick = min(numbers, key=lambda a: (abs(a.value.tricks - want), a.value.tricks))
        return Decision(pick, f"about {want} tricks")


class _Searcher(NormalBot):
    """A bot that searches within a time budget (``expert`` and the ``ismcts`` baseline)."""

    def __init__(self, seed: int | None = None, budget: float = DEFAULT_BUDGET,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """A searcher with ``budget`` seconds a card (when the caller gives no deadline), measured on
        ``clock`` (the wall clock; ``time.thread_time`` gives every bot of a match the same CPU time on a
        busy machine; a caller's deadline is always on the wall clock)."""
        super().__init__(seed)
        self.budget = budget
        self.clock = clock

    def _deadline(self, deadline: float | None, factor: float = 1.0) -> float:
        """When the search should stop, on ``self.clock``."""
        own = self.clock() + self.budget * factor
        if deadline is None or self.clock is not time.monotonic:
            return own
        # Keep a margin for the caller before a hard deadline.
        return min(own, deadline - 0.02)


class ExpertBot(_Searcher):
    """Searches over deals consistent with what it knows (PIMC with rule-based roll-outs), anytime."""

    level = "expert"

    @staticmethod
    def _hard(deadline: float | None) -> float | None:
        return None if deadline is None else deadline - 0.05

    def play(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
             deadline: float | None) -> Decision:
        """The card with the best expected score over sampled deals."""
        return self.play_search(view, totals, bags, deadline)[0]

    def play_search(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
                    deadline: float | None, keep: Sequence[int] = (), max_worlds: int = 400,
                    min_worlds: int | None = None, exact: int = 0) -> tuple[Decision, SearchStats | None]:
        """The expert's card and what its search found (``None`` where a firm rule decided without
        searching). ``keep``: cards searched on every deal whatever they show (a review's played card);
        ``exact``: solve the guessed deals' last tricks exactly from that many cards left (``pimc_play``)."""
        assert view.seat is not None
        k = Knowledge.from_view(view)
        sit = situation(view, bags)
        chooser = PlayChooser(view, k, sit)
        rule_card, rule_why = chooser.choose()
        if chooser.firm:
            return Decision(Play(view.seat, rule_card), rule_why), None
        # With a nil alive a trick swings a hundred points or more: the search overrules the rules of
        # thumb on a smaller, surer gain than in other hands.
        nil_live = sit.my_nil or sit.partner_nil or bool(sit.opp_nils)
        if min_worlds is None:
            min_worlds = 2 if self.budget < 0.02 else 8
        card, stats = pimc_play(view, k, totals, bags, self._deadline(deadline), self.rng, prior=rule_card,
                                min_worlds=min_worlds, hard_deadline=self._hard(deadline), max_worlds=max_worlds,
                                clock=self.clock, margin=0.0 if nil_live else 2.0, z=1.0 if nil_live else 2.0,
                                keep=keep, exact=exact)
        if card == rule_card or stats.worlds == 0 or len(stats.means) == 1:
            why = rule_why
        else:
            why = f"look-ahead over {stats.worlds} deals: best expected score"
        if len(stats.means) > 1 and card != rule_card and rule_card in stats.means:
            gain = stats.means[card] - stats.means[rule_card]
            why += f" ({gain:+.0f} over the {card_name(rule_card)})"
        return Decision(Play(view.seat, card), why), stats

    def bid(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
            deadline: float | None) -> Decision:
        """Simulate the hand a few dozen times and bid what scores best; rules of thumb for blind calls."""
        return self.bid_search(view, totals, bags, deadline)[0]

    def bid_search(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
                   deadline: float | None, max_worlds: int = 160) -> tuple[Decision, BidSearch | None]:
        """The expert's bid and what its simulation found (``None`` where rules of thumb decided)."""
        assert view.seat is not None
        md = choose_misdeal(view)
        if md is not None:
            return Decision(*md), None
        numbers = [a for a in view.legal if isinstance(a, Bid) and not a.value.blind]
        if view.may_bid_blind or view.hand is None or len(numbers) <= 1 or view.rules.forced_bids == "mirror":
            return Decision(*choose_bid(view, totals, bags)), None
        rule_action, rule_why = choose_bid(view, totals, bags)
        k = Knowledge.from_view(view)
        found = pimc_bid(view, k, totals, bags, self._deadline(deadline, 2.0), self.rng, numbers_only=True,
                         hard_deadline=self._hard(deadline), clock=self.clock, max_worlds=max_worlds)
        if found.worlds == 0:
            return Decision(rule_action, rule_why), found
        nil_ok = any(isinstance(a, Bid) and a.value.is_nil and not a.value.blind for a in view.legal)
        u_nil = found.nil_utility(view.rules.nil_points) if nil_ok else None
        if u_nil is not None and u_nil > found.utility:
            return Decision(Bid(view.seat, BidValue(0)), f"bid nil: it survived {found.nil_rate:.0%} of "
                                                          f"{found.worlds} simulated deals, and scores best"), found
        est = estimate_tricks(view.rules, k.own)
        return Decision(Bid(view.seat, found.best), f"I count about {est:.1f} tricks; {found.best.tricks} scored "
                                                    f"best over {found.worlds} simulated deals"), found


class IsmctsBot(_Searcher):
    """The research baseline: normal bidding, and information-set MCTS with random roll-outs for play."""

    level = "ismcts"

    def play(self, view: HandView, totals: tuple[int, ...], bags: tuple[int, ...],
             deadline: float | None) -> Decision:
        """The most visited card of the search tree."""
        assert view.seat is not None
        k = Knowledge.from_view(view)
        card, iterations = ismcts_play(view, k, totals, bags, self._deadline(deadline), self.rng, clock=self.clock,
                                       hard_deadline=None if deadline is None else deadline - 0.02)
        return Decision(Play(view.seat, card), f"ISMCTS, {iterations} iterations")
