"""Game review: what each decision of a seat cost, hand by hand.

For every decision a seat made in a game (a bid, a blind decision, a nil exchange, a card), the review
asks the ``expert`` what it would have done from that seat's view at that moment (``view_hand``: never
a card the seat could not see), and measures the action played against the expert's choice on the same
sampled deals (common random numbers), so the standard error of their difference is small even when
each value alone is noisy:

- cards: the expert's own search (``ExpertBot.play_search``) with the played card kept on every deal;
  where a firm rule of thumb decides (no search), both cards are played out on the same deals. With
  ``ENDGAME_CARDS`` cards or fewer left to play, each guessed deal's rest is solved exactly
  (``spades.ai.endgame``) instead of played by the roll-out's rules of thumb, which miss endings such
  as a made side ducking the tricks that would set the opponents;
- bids: the expert's bidding simulation (``ExpertBot.bid_search``), which already scores every legal
  bid on the same deals;
- blind decisions (look, or bid blind), nil exchanges, the dealer's discard, the two-handed draw (keep
  or discard the top card), misdeal calls and team-bidding accepts: both actions played out on the same
  deals (the rest of the draw, the discard and the bidding by the expert's rules of thumb, then the play
  by the roll-out policy). A misdeal is worth a fresh deal: its value on each sample is a new deal
  played out the same way.

The loss is the expert's expected points minus the played action's. A decision is labelled
``inaccuracy``, ``mistake`` or ``blunder`` only when the loss exceeds twice its standard error *and*
the label's threshold in points (``THRESHOLDS``); otherwise it is ``fine``. A decision with one legal
action is not reviewed.

Sampling is seeded per decision, and sizes are fixed numbers of deals, so a review is deterministic for
its seed (a time cap per decision, ``budget``, makes it depend on the machine's speed).
"""

from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from spades.ai.bidding import (
    choose_bid,
    choose_discard,
    choose_draw,
    choose_misdeal,
    choose_pass,
    estimate_tricks,
    nearest_bid,
)
from spades.ai.bots import ExpertBot
from spades.ai.endgame import ENDGAME_CARDS, Endgame, solvable
from spades.ai.knowledge import Knowledge
from spades.ai.rollout import Rollout
from spades.ai.search import _bid_world, world_hands
from spades.core.actions import Accept, Action, Bid, BidValue, Discard, Draw, Look, Misdeal, Pass, Play
from spades.core.cards import card_name, card_text
from spades.core.errors import RecordError
from spades.core.game import Game
from spades.core.hand import Hand, HandContext, Phase, deal_order
from spades.core.view import HandView, action_to_dict, hand_from_view, view_hand
from spades.variants import read_record

LABELS = ("fine", "inaccuracy", "mistake", "blunder")
THRESHOLDS = {"inaccuracy": 1.5, "mistake": 4.0, "blunder": 20.0}
"""Points a decision must lose (besides twice its standard error) for each label."""
PLAY_DEALS = 48
"""Deals a card decision is measured on (the expert's search may settle sooner)."""
BID_DEALS = 48
"""Deals a bid, a blind decision or an exchange is measured on."""
FIRM_DEALS = 24
"""Deals for a card where a firm rule of thumb decided (two cards, no search)."""
MORE_DEALS = 24
MAX_DEALS = 480
"""An undecided measurement (a loss above the smallest threshold but within 2.5 standard errors) gets
``MORE_DEALS`` more deals at a time, up to ``MAX_DEALS`` in all: with a nil alive one deal can swing
hundreds of points (144 deals left two such losses undecided that 288 and 408 settle). A decided
measurement stops at once, so the extra deals go only where the call is open."""


@dataclass(frozen=True)
class ReviewedDecision:
    """One decision: what was played, what the expert prefers, and what the difference cost."""

    hand: int
    """The hand's index in the record (from 0)."""
    action: int
    """The action's index in the record's hand (a blind decision's look and a team-bidding accept, which
    records leave out, take the index of the action that follows them)."""
    kind: str
    """``bid``, ``blind``, ``pass`` or ``play``."""
    played: Action
    best: Action
    played_value: float
    best_value: float
    stderr: float
    """The standard error of the loss (paired over the same deals)."""
    deals: int
    loss: float
    label: str
    reason: str
    trick: int | None = None
    """For a card: the trick it was played to (from 0)."""

    @property
    def seat(self) -> int:
        """The seat that decided."""
        return self.played.seat

    def to_json(self) -> dict[str, Any]:
        """The decision as ``spades review --json`` gives it."""
        return {"hand": self.hand, "action": self.action, "kind": self.kind,
                "played": action_to_dict(self.played), "best": action_to_dict(self.best),
                "expected": {"played": round(self.played_value, 2), "best": round(self.best_value, 2),
                             "stderr": round(self.stderr, 2)},
                "deals": self.deals, "loss": round(self.loss, 2), "label": self.label, "reason": self.reason,
                **({} if self.trick is None else {"trick": self.trick})}


@dataclass
class Review:
    """A reviewed game (one seat's decisions, or every seat's)."""

    seat: int | None
    decisions: list[ReviewedDecision] = field(default_factory=list)
    not_reviewed: int = 0
    """Decisions with a choice that the review could not measure."""

    def summary(self, seat: int | None = None) -> dict[str, Any]:
        """Points lost in flagged decisions (bidding: every decision before the play: draws, discards,
        misdeal calls, bids, accepts, blind decisions and exchanges; play: cards)
        and the count of each label."""
        ds = [d for d in self.decisions if seat is None or d.seat == seat]
        lost = {"bidding": 0.0, "play": 0.0}
        for d in ds:
            if d.label != "fine":
                lost["play" if d.kind == "play" else "bidding"] += d.loss
        by_label = dict.fromkeys(LABELS, 0)
        for d in ds:
            by_label[d.label] += 1
        return {"points_lost": {k: round(v, 1) for k, v in lost.items()}, "by_label": by_label,
                "decisions": len(ds)}

    def to_json(self) -> dict[str, Any]:
        """The ``spades review --json`` shape: ``{"seat", "decisions": [...], "summary": {...}}`` (every
        seat: ``seat`` is null and ``by_seat`` holds each seat's summary)."""
        out: dict[str, Any] = {"seat": self.seat, "decisions": [d.to_json() for d in self.decisions],
                               "summary": self.summary(), "not_reviewed": self.not_reviewed}
        if self.seat is None:
            seats = sorted({d.seat for d in self.decisions})
            out["by_seat"] = {str(s): self.summary(s) for s in seats}
        return out


def label_for(loss: float, stderr: float) -> str:
    """The label of a loss: the worst whose threshold it passes, and only beyond twice its standard error."""
    if loss <= 2.0 * stderr:
        return "fine"
    for name in ("blunder", "mistake", "inaccuracy"):
        if loss > THRESHOLDS[name]:
            return name
    return "fine"


@dataclass(frozen=True)
class Position:
    """A decision to review: the game just before it, and the action taken."""

    hand: int
    action: int
    game_totals: tuple[int, ...]
    bags: tuple[int, ...]
    view: HandView
    played: Action


def positions(data: dict[str, Any], seat: int | None = None) -> tuple[list[Position], int]:
    """The decisions of ``seat`` (or every seat) in a record worth reviewing, and how many with a choice
    are left out. Raises ``RecordError`` for a bad record."""
    full = read_record(data)
    n = full.rules.layout.n
    if seat is not None and not 0 <= seat < n:
        raise RecordError(f"seat must be from 0 to {n - 1}, not {seat}")
    hands = data["hands"]
    out: list[Position] = []
    skipped = 0
    for hi, done in enumerate(full.hands):
        start = dict(hands[hi])
        start["actions"] = []
        start.pop("time_up", None)
        game = read_record({**data, "hands": [*hands[:hi], start]})
        j = 0
        for act in done.actions:
            hand = game.hand
            if seat is None or act.seat == seat:
                v = view_hand(hand, act.seat)
                if len(v.legal) > 1:
                    if _reviewable(v, act):
                        out.append(Position(hi, j, tuple(game.totals), tuple(game.bags), v, act))
                    else:
                        skipped += 1
            game.apply(act)
            if not isinstance(act, Look | Accept):
                j += 1
    return out, skipped


def _reviewable(v: HandView, act: Action) -> bool:
    if isinstance(act, Play | Pass | Discard | Draw | Misdeal | Accept):
        return True
    if isinstance(act, Look) or (isinstance(act, Bid) and act.value.blind):
        return v.may_bid_blind
    return isinstance(act, Bid) and v.hand is not None and any(isinstance(a, Bid) for a in v.legal)


def review_record(data: dict[str, Any], seat: int | None = None, seed: int = 0, budget: float | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Review:
    """Review a ``spades-record/1`` game for ``seat`` (every seat when ``None``); ``progress(done, total)``
    is called after each decision. ``budget``: at most that many seconds a decision (else fixed sizes)."""
    todo, skipped = positions(data, seat)
    review = Review(seat, not_reviewed=skipped)
    if progress is not None:
        progress(0, len(todo))
    for i, p in enumerate(todo):
        d = review_position(p, seed, budget)
        if d is not None:
            if isinstance(d.played, Play):
                d = replace(d, trick=len(p.view.tricks))
            review.decisions.append(d)
        if progress is not None:
            progress(i + 1, len(todo))
    return review


def review_game_position(game: Game, action: Action, seed: int = 0, budget: float | None = None,
                         hand: int = 0, index: int = 0) -> ReviewedDecision | None:
    """Review one decision: ``action`` taken by its seat in ``game``'s current position."""
    v = view_hand(game.hand, action.seat)
    return review_position(Position(hand, index, tuple(game.totals), tuple(game.bags), v, action), seed, budget)


def review_position(p: Position, seed: int = 0, budget: float | None = None) -> ReviewedDecision | None:
    """Measure one decision against the expert's choice (``None``: nothing the review can measure)."""
    rng = random.Random(f"review:{seed}:{p.hand}:{p.action}:{p.played.seat}:{type(p.played).__name__}")
    bot = ExpertBot(budget=budget if budget is not None else 1e9)
    bot.rng = rng
    v = p.view
    if isinstance(p.played, Play):
        return _review_play(p, bot, rng)
    if isinstance(p.played, Pass):
        best, why = choose_pass(v)
        kind = "pass"
    elif isinstance(p.played, Discard):
        best, why = choose_discard(v)
        kind = "discard"
    elif isinstance(p.played, Draw):
        best, why = choose_draw(v)
        kind = "draw"
    elif isinstance(p.played, Misdeal | Accept) or (isinstance(p.played, Bid) and choose_misdeal(v) is not None):
        # A misdeal call, an accept, or a bid where the expert calls a misdeal: its choice played out
        # against the played action on the same deals.
        decision, _ = bot.bid_search(v, p.game_totals, p.bags, None, max_worlds=BID_DEALS)
        best, why = decision.action, decision.reason
        kind = "misdeal" if isinstance(p.played, Misdeal) else "bid"
    elif v.may_bid_blind:
        best, why = choose_bid(v, p.game_totals, p.bags)
        kind = "blind"
    else:
        return _review_bid(p, bot, rng, budget)
    vp, vb = _paired_actions(p, [p.played, best], rng, budget)
    _extend(p, best, vp, vb, rng, budget)
    return _measure(p, kind, best, why, vp, vb)


def _review_bid(p: Position, bot: ExpertBot, rng: random.Random, budget: float | None) -> ReviewedDecision | None:
    v = p.view
    decision, found = bot.bid_search(v, p.game_totals, p.bags, None, max_worlds=BID_DEALS)
    assert isinstance(p.played, Bid)
    if found is None or p.played.value not in found.values or not isinstance(decision.action, Bid) \
            or decision.action.value not in found.values:
        return None
    vp, vb = list(found.values[p.played.value]), list(found.values[decision.action.value])
    _extend(p, decision.action, vp, vb, rng, budget)
    return _measure(p, "bid", decision.action, decision.reason, vp, vb)


def _review_play(p: Position, bot: ExpertBot, rng: random.Random) -> ReviewedDecision:
    assert isinstance(p.played, Play)
    played = p.played.card
    decision, stats = bot.play_search(p.view, p.game_totals, p.bags, None, keep=(played,), max_worlds=PLAY_DEALS,
                                      min_worlds=PLAY_DEALS // 2, exact=ENDGAME_CARDS)
    assert isinstance(decision.action, Play)
    best = decision.action.card
    if stats is not None and played in stats.values and best in stats.values:
        n = min(len(stats.values[played]), len(stats.values[best]))
        vp, vb = stats.values[played][:n], stats.values[best][:n]
    else:
        # A firm rule decided: play both cards out on the same deals.
        vp, vb = _paired_actions(p, [p.played, decision.action], rng, bot.budget, FIRM_DEALS)
    _extend(p, decision.action, vp, vb, rng, bot.budget)
    return _measure(p, "play", decision.action, decision.reason, vp, vb)


def _extend(p: Position, best: Action, vp: list[float], vb: list[float], rng: random.Random,
            budget: float | None) -> None:
    """More paired deals while the measurement is undecided (see ``MORE_DEALS``)."""
    while p.played != best and len(vp) < MAX_DEALS:
        loss, se = _loss(vp, vb)
        if loss <= THRESHOLDS["inaccuracy"] or loss > 2.5 * se:
            return
        more_p, more_b = _paired_actions(p, [p.played, best], rng, budget, MORE_DEALS)
        if not more_p:
            return
        vp.extend(more_p)
        vb.extend(more_b)


def _loss(vp: list[float], vb: list[float]) -> tuple[float, float]:
    """The mean paired loss (best minus played) and its standard error."""
    n = min(len(vp), len(vb))
    if n == 0:
        return 0.0, 0.0
    diffs = [vb[i] - vp[i] for i in range(n)]
    loss = sum(diffs) / n
    var = sum((d - loss) ** 2 for d in diffs) / max(1, n - 1)
    return loss, math.sqrt(var / n)


def _paired_actions(p: Position, actions: Sequence[Action], rng: random.Random, budget: float | None,
                    deals: int = BID_DEALS) -> tuple[list[float], list[float]]:
    """Two actions' utilities for the seat's side over the same sampled deals (equal actions: one)."""
    v = p.view
    assert v.seat is not None
    me = v.seat
    k = Knowledge.from_view(v)
    ro = Rollout(v.rules, p.bags, p.game_totals, v.bidless)
    side = v.rules.layout.side_of[me]
    same = actions[0] == actions[1]
    # Cards near the end of the hand: the rest of each guessed deal solved exactly, as the search does.
    solver = None
    if solvable(v) and all(isinstance(a, Play) for a in actions):
        bids = list(v.bids)
        solver = Endgame(side, lambda tricks: ro.score(bids, tricks)[side])
    out: tuple[list[float], list[float]] = ([], [])
    stop = None if budget is None or budget >= 1e8 else time.monotonic() + budget
    for _ in range(deals):
        if stop is not None and len(out[0]) >= 4 and time.monotonic() >= stop:
            break
        if v.phase is Phase.DRAW:
            world: list[int] | Hand = _draw_world(v, rng)
        else:
            world = world_hands(v, k, k.sample(rng, bids_weight=v))
        for i, a in enumerate(actions):
            if i == 1 and same:
                out[1].append(out[0][-1])
                continue
            if solver is not None and isinstance(a, Play) and not isinstance(world, Hand):
                h = hand_from_view(v, world)
                h.apply_unchecked(a)
                out[i].append(solver.value(h))
            else:
                out[i].append(_play_out(v, world, a, ro, rng)[side])
    return out


def _play_out(v: HandView, world: list[int] | Hand, a: Action, ro: Rollout,
              rng: random.Random | None = None) -> list[float]:
    """Every side's utility once ``a`` is taken in a guessed deal (``world``: every seat's cards, or in
    the draw a whole guessed ``Hand``) and the hand played out by the rules (a misdeal: a fresh deal)."""
    assert v.seat is not None
    me = v.seat
    rules = v.rules
    if isinstance(a, Misdeal):
        h = _fresh_deal(v, rng or random.Random(0))
    elif isinstance(world, Hand):  # the draw
        h = world.clone()
        h.apply_unchecked(a)
    elif v.phase is Phase.DISCARD:
        h = _discard_world(v, world)
        h.apply_unchecked(a)
    elif v.phase is Phase.BID and not isinstance(a, Accept) and not rules.team_bidding:
        hands = world
        bids: list[BidValue | None] = list(v.bids)
        for s in range(rules.layout.n):
            if bids[s] is None and s != me:
                bids[s] = BidValue(max(1, round(estimate_tricks(rules, hands[s]))))
        if isinstance(a, Bid):
            bids[me] = a.value
        else:  # looked: a number bid by the count of the cards dealt
            bids[me] = BidValue(max(1, round(estimate_tricks(rules, hands[me]))))
        h = _bid_world(v, hands, bids)
    else:
        h = hand_from_view(v, world)
        if isinstance(a, Look):  # looked: a number bid by the count of the cards dealt
            h.apply_unchecked(a)
            a = _rule_bid(h, me)
        h.apply_unchecked(a)
    _finish_by_rules(h)
    ro.play_out(h)
    return ro.utility(h)


def _rule_bid(h: Hand, s: int) -> Action:
    """A seat's bid by the rules of thumb of the roll-outs: the count of its cards (a team-bidding
    partner lets the side's total stand)."""
    legal = h.legal_actions(s)
    if Accept(s) in legal:
        return Accept(s)
    numbers = [a.value for a in legal if isinstance(a, Bid) and not a.value.blind and not a.value.is_nil]
    if not numbers:
        return next((a for a in legal if isinstance(a, Bid)), legal[0])
    return Bid(s, nearest_bid(numbers, max(1, round(estimate_tricks(h.rules, h.hands[s])))))


def _finish_by_rules(h: Hand) -> None:
    """Take a guessed hand through the draw, the discard and the bidding by rules of thumb (the play is
    the roll-out's)."""
    while h.phase in (Phase.DRAW, Phase.DISCARD, Phase.BID):
        s = h.to_act
        if h.phase is Phase.DRAW:
            h.apply_unchecked(choose_draw(view_hand(h, s))[0])
        elif h.phase is Phase.DISCARD:
            h.apply_unchecked(choose_discard(view_hand(h, s))[0])
        else:
            h.apply_unchecked(_rule_bid(h, s))


def _fresh_deal(v: HandView, rng: random.Random) -> Hand:
    """What a misdeal leads to: the same dealer deals again."""
    rules = v.rules
    perm = list(range(len(rules.layout.deck)))
    rng.shuffle(perm)
    return Hand(rules, v.dealer, deal_order(rules, perm), HandContext(blind_sides=v.blind_sides, bidless=v.bidless))


def _discard_world(v: HandView, hands: list[int]) -> Hand:
    """A guessed deal at the dealer's discard: every seat's cards as ``hands`` says."""
    rules = v.rules
    perm = list(range(len(rules.layout.deck)))
    h = Hand(rules, v.dealer, deal_order(rules, perm), HandContext(blind_sides=v.blind_sides, bidless=v.bidless))
    h.hands = list(hands)
    h.dealt = list(hands)
    return h


def _draw_world(v: HandView, rng: random.Random) -> Hand:
    """A guessed two-handed draw in ``v``'s position: the cards the seat has not seen shared at random
    between the opponent's hand, the stock under the top card and the cards already thrown away."""
    assert v.seat is not None and v.hand is not None and v.top_card is not None
    rules = v.rules
    lay = rules.layout
    me = v.seat
    other = 1 - me
    seen = {*v.hand, *v.draw_seen, v.top_card}
    unseen = [c for c in lay.deck if c not in seen]
    rng.shuffle(unseen)
    pos = 4 * lay.hand_size - v.stock_left
    n_opp = v.hand_sizes[other]
    opp, rest = unseen[:n_opp], unseen[n_opp:]
    below = rest[:v.stock_left - 1]
    gone = rest[v.stock_left - 1:]
    # The stock: whatever was drawn before (any order: it is only the deck's check), then the top card and
    # the guessed cards under it.
    drawn = [*v.hand, *v.draw_seen, *opp, *gone]
    assert len(drawn) == pos, (len(drawn), pos)
    h = Hand(rules, v.dealer, [*drawn, v.top_card, *below], HandContext(bidless=v.bidless))
    mine = sum(1 << c for c in v.hand)
    theirs = sum(1 << c for c in opp)
    h.hands = [mine, theirs] if me == 0 else [theirs, mine]
    seen_lists: list[list[int]] = [[], []]
    seen_lists[me] = list(v.draw_seen)
    h.draw_seen = seen_lists
    h.stock_pos = pos
    h.to_act = me
    return h


def _measure(p: Position, kind: str, best: Action, why: str, played_vals: list[float],
             best_vals: list[float]) -> ReviewedDecision:
    n = min(len(played_vals), len(best_vals))
    if p.played == best or n == 0:
        mean = sum(played_vals) / len(played_vals) if played_vals else 0.0
        return ReviewedDecision(p.hand, p.action, kind, p.played, best, mean, mean, 0.0, len(played_vals), 0.0,
                                "fine", f"the expert agrees: {why}")
    loss, se = _loss(played_vals, best_vals)
    pv = sum(played_vals[:n]) / n
    bv = sum(best_vals[:n]) / n
    label = label_for(loss, se)
    return ReviewedDecision(p.hand, p.action, kind, p.played, best, pv, bv, se, n, loss, label,
                            _reason(p.played, best, why, loss, se, label))


def action_words(a: Action) -> str:
    """An action in a few words: ``the queen of hearts``, ``bid 4``, ``nil``, ``look at the cards``."""
    if isinstance(a, Play):
        return f"the {card_name(a.card)}"
    if isinstance(a, Bid):
        return a.value.text() if a.value.is_nil or a.value.blind else f"bid {a.value.tricks}"
    if isinstance(a, Look):
        return "look at the cards"
    if isinstance(a, Pass):
        return "pass " + " ".join(card_text(c) for c in sorted(a.cards))
    if isinstance(a, Discard):
        return "discard " + " ".join(card_text(c) for c in sorted(a.cards))
    if isinstance(a, Draw):
        return "keep the top card" if a.keep else "let the top card go"
    if isinstance(a, Misdeal):
        return "call a misdeal"
    if isinstance(a, Accept):
        return "let partner's total stand"
    return a.describe()


def _reason(played: Action, best: Action, why: str, loss: float, se: float, label: str) -> str:
    why = re.sub(r" \([+-]\d+ over the [^)]*\)", "", why)  # the search's gain over its rule card: said below
    if label == "fine":
        if loss <= 0:
            return f"as good as the expert's {action_words(best)} here ({why})"
        return f"close: the expert prefers {action_words(best)} ({why}), by {loss:.1f} +- {se:.1f} points"
    return (f"{why}: {action_words(best)} was worth about {loss:.0f} points more than "
            f"{action_words(played)}")


def sample_game(hands: int = 10, seed: int = 1) -> dict[str, Any]:
    """A record of ``hands`` finished hands between normal players (standard rules with a far target, so
    the game lasts): what ``spades bench review`` times."""
    from spades.ai.base import make_bot
    from spades.core.game import seeded_shuffler
    from spades.core.record import record_of
    from spades.variants import load_rules

    rules_spec = {"preset": "standard", "target": 5000}
    rules = load_rules(rules_spec)
    rng = random.Random(seed)
    bots = [make_bot("normal", rng.randrange(10**6)) for _ in range(rules.layout.n)]
    game = Game(rules, shuffler=seeded_shuffler(rng.randrange(10**9)))
    while len(game.results) < hands and not game.over:
        hand = game.hand
        seat = hand.to_act
        game.apply(bots[seat].decide(view_hand(hand, seat), tuple(game.totals), None, tuple(game.bags)).action)
    data = record_of(game, rules_spec)
    data["hands"] = data["hands"][:hands]
    return data
