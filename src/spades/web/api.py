"""HTTP endpoints the pages need besides table play: the rule book as data, rule-set checking, the
score sheet for a physical table, replays and checking a revealed deal.

Scoring goes through ``spades.scorekeeper.ScoreSheet`` (which uses the engine's scoring), so the score
keeper in the browser has no scoring of its own that could drift from the engine.

``mount(app)`` adds these endpoints and serves the static pages at ``/``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import Receive, Scope, Send

from spades.core.bidding import possible_bids
from spades.core.cards import card_text, cards_of, face
from spades.core.errors import SpadesError
from spades.core.record import bid_writing_problem, parse_bid
from spades.core.rules import GROUPS, OPTIONS, Rules
from spades.core.scoring import blind_eligible_sides, score_hand
from spades.scorekeeper import ScoreSheet, ScoreSheetError, bid_choices
from spades.shuffle.fair import FairDealError, check_server_seed
from spades.shuffle.verify import derive_hand
from spades.variants import PRESETS, load_rules, read_record
from spades.web.http import ApiError, LimitedRoute, install

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""The pages, styles, scripts and icons served at ``/``."""

MAX_HANDS = 400
"""The most hands one score request may hold (a game to 500 rarely needs 30)."""

MAX_BODY = 512 * 1024
"""The largest request body these endpoints read (a long game's record is a few tens of KiB); bodies are
read, and errors answered, as everywhere on the site (``spades.web.http``)."""

MAX_CLIENT_SEEDS = 64
"""The most client seeds one deal to verify may have (a table gives two)."""


router = APIRouter(prefix="/api", tags=["web"], route_class=LimitedRoute.with_limit(MAX_BODY))
"""The endpoints of this module; ``mount`` includes it."""


class RulesCheck(BaseModel):
    """A rule set to check: a preset name and option overrides."""

    preset: str = "standard"
    overrides: dict[str, Any] = Field(default_factory=dict)


class ScoreHand(BaseModel):
    """One hand as typed in at a table: per-seat bids (``3``, ``"nil"``, ``"blind nil"``, ``"blind 6"``;
    ``null`` for a hand played without bids) and per-seat tricks, or per side
    (``ScoreSheet.add_entry``, ``seats_from_sides``): each side's bid, tricks and nil bids. ``time_up``: a
    timed game's time ran out in this hand (the game ends after it)."""

    bids: list[Any] | None = None
    tricks: list[Any] | None = None
    sides: list[Any] | None = Field(default=None, max_length=16)
    time_up: bool | None = None


class HandScoreRequest(BaseModel):
    """One hand of an online game to explain: per-seat bids and tricks, and each side's bags before it."""

    rules: Any = "standard"
    bids: list[Any] | None = None
    tricks: list[Any]
    bags_before: list[int] | None = None


class ScoreRequest(BaseModel):
    """A score sheet: the rules (as ``load_rules`` takes them) and the hands in order."""

    rules: Any = "standard"
    hands: list[ScoreHand] = Field(default_factory=list, max_length=MAX_HANDS)


class VerifyHandRequest(BaseModel):
    """One hand's revealed deal to check: the rules, the dealer, the commitment published before the deal,
    the server seed revealed after it and the client seeds (``spades-deal/1``, ``docs/fair-dealing.md``).

    The fields are read loosely here and checked by ``verify_hand``, which names whatever is wrong."""

    rules: Any = "standard"
    dealer: Any = None
    commitment: Any = None
    seed: Any = None
    client_seeds: Any = Field(default_factory=list)


def layout_of(rules: Rules) -> dict[str, Any]:
    """What a page needs to know to draw a table or a score sheet for these rules."""
    lay = rules.layout
    return {
        "players": lay.n,
        "partnerships": bool(rules.partnerships),
        "sides": [list(s) for s in lay.sides],
        "hand_size": lay.hand_size,
        "first_hand_bids": rules.first_hand_bids,
        "blind_nil": rules.blind_nil,
        "blind_bids": rules.blind_bids,
        "blind_bid_min": rules.blind_bid_min,
        "bids": [b.text() for b in possible_bids(rules)],  # what a seat may ever bid (the engine's rule)
        "blind_behind": rules.blind_behind,
        "target": rules.target,
        "two_decks": lay.n == 6,
        "deck_size": len(lay.deck),
        "top_trumps": list(rules.top_trumps),
        "time_limit_minutes": rules.time_limit_minutes,
    }


def _option_dict(name: str, default: Any) -> dict[str, Any]:
    opt = OPTIONS[name]
    return {
        "name": name,
        "values": opt.values,
        "meaning": opt.meaning,
        "choices": list(opt.choices),
        "low": opt.low,
        "high": opt.high,
        "nullable": opt.nullable,
        "default": list(default) if isinstance(default, tuple) else default,
        "label": opt.label,
        "group": opt.group,
        "words": list(opt.words),
        "none_word": opt.none_word,
    }


FIRST_OPTIONS = ("nil_points", "blind_nil", "blind_nil_points", "nil_pass", "bag_penalty", "spades_lead")
"""The house rules people ask for first: a setup form shows them as plain controls, the others under
"More house rules" by group."""


@router.get("/rules")
def rules_catalogue() -> dict[str, Any]:
    """Every preset (its overrides, description and table layout) and every option with its values, plain
    label, group and values in words; the groups in order, and the options a setup form shows first."""
    base = Rules()
    defaults = base.to_options()
    presets = []
    for p in PRESETS.values():
        r = load_rules(p.name)
        presets.append({
            "name": p.name,
            "description": p.description,
            "options": dict(p.options),
            "layout": layout_of(r),
        })
    return {
        "presets": presets,
        "options": [_option_dict(name, defaults[name]) for name in OPTIONS],
        "defaults": defaults,
        "groups": [{"name": k, "title": v} for k, v in GROUPS.items()],
        "first": list(FIRST_OPTIONS),
    }


@router.post("/rules/check")
def rules_check(body: RulesCheck) -> dict[str, Any]:
    """Whether a preset with overrides can be played: the full options and layout, or the error text."""
    try:
        rules = load_rules({"preset": body.preset, **body.overrides})
    except SpadesError as e:
        return {"ok": False, "error": str(e)}
    except (TypeError, ValueError) as e:  # a value of the wrong shape that the checks did not word
        return {"ok": False, "error": f"these rules cannot be read: {e}"}
    return {"ok": True, "options": rules.to_options(), "layout": layout_of(rules)}


def _refuse_malformed_bids(where: str, bids: Any) -> None:
    """A bid that is not written as a bid at all is a malformed request (422, naming the field), not a
    hand the rules refuse (which the answer's ``error`` names)."""
    if not isinstance(bids, list):
        return
    for j, b in enumerate(bids):
        problem = bid_writing_problem(b)
        if problem is not None:
            raise ApiError(422, "bad_bid", f"{where}bids[{j}]: {problem}")


def _refuse_malformed_side_bids(where: str, sides: Any) -> None:
    """The same for hands typed in per side: each side's ``bid`` and its nil bids."""
    for k, side in enumerate(sides if isinstance(sides, list) else []):
        if not isinstance(side, dict):
            continue
        problem = bid_writing_problem(side.get("bid"))
        if problem is not None:
            raise ApiError(422, "bad_bid", f"{where}sides[{k}].bid: {problem}")
        nils = side.get("nil")
        for m, nil in enumerate(nils if isinstance(nils, list) else []):
            problem = bid_writing_problem(nil.get("bid")) if isinstance(nil, dict) else None
            if problem is not None:
                raise ApiError(422, "bad_bid", f"{where}sides[{k}].nil[{m}].bid: {problem}")


@router.post("/score")
def score(body: ScoreRequest) -> dict[str, Any]:
    """Score a sheet of hands with ``ScoreSheet``.

    The answer has the hands scored so far (as ``spades score --json``, each side with its lines,
    contract, tricks and whether the contract was made), the totals and bags, the winner, which sides may
    bid blind on the next hand and the bids each seat may be entered with in it (``bid_choices``; each
    hand has its own too, for editing it). When a
    hand cannot be scored, ``error`` names it (``hand``
    from 0) and the hands before it are still scored; when the rules cannot be read, ``hand`` is null.
    A bid not written as a bid at all (``"²"``, a list) is refused whole with 422 ``bad_bid`` naming it.
    """
    for i, entry in enumerate(body.hands):
        _refuse_malformed_bids(f"hands[{i}].", entry.bids)
        _refuse_malformed_side_bids(f"hands[{i}].", entry.sides)
    try:
        rules = load_rules(body.rules)
    except SpadesError as e:
        return {"ok": False, "error": {"hand": None, "reason": str(e)}}
    except (TypeError, ValueError) as e:
        return {"ok": False, "error": {"hand": None, "reason": f"these rules cannot be read: {e}"}}
    sheet = ScoreSheet(rules)
    error: dict[str, Any] | None = None
    for i, hand in enumerate(body.hands):
        try:
            sheet.add_entry(hand.model_dump(exclude_unset=True))
        except ScoreSheetError as e:
            error = {"hand": i, "reason": e.reason}
            break
        except SpadesError as e:
            error = {"hand": i, "reason": str(e)}
            break
    out = sheet.to_dict()
    before = [0] * rules.layout.sides_count
    for i, (row, sides) in enumerate(zip(out["hands"], sheet.hands, strict=True)):
        row["bid_choices"] = bid_choices(rules, before, i)  # what this hand could be entered with
        before = [t + s.points for t, s in zip(before, sides, strict=True)]
        for d, s in zip(row["sides"], sides, strict=True):
            d["contract"] = s.contract
            d["made"] = s.made
            d["tricks"] = s.tricks
            d["new_bags"] = s.bags
    out["ok"] = error is None
    out["error"] = error
    out["bags"] = list(sheet.bags)
    out["over"] = sheet.over
    out["time_up"] = sheet.time_up
    out["tied"] = sheet.tied
    out["layout"] = layout_of(rules)
    out["blind_eligible"] = blind_eligible_sides(rules, sheet.totals)
    out["next_hand_bids"] = rules.first_hand_bids or len(sheet.hands) > 0
    out["bid_choices"] = None if sheet.over else bid_choices(rules, sheet.totals, len(sheet.hands))
    return out


@router.post("/score/hand")
def score_one_hand(body: HandScoreRequest) -> dict[str, Any]:
    """Score one hand with the engine's ``score_hand`` and explain it line by line (the table page's
    end-of-hand summary). Bids are as in records; ``bags_before`` is per side (zeros when omitted)."""
    _refuse_malformed_bids("", body.bids)
    try:
        rules = load_rules(body.rules)
        lay = rules.layout
        bids = None if body.bids is None else [parse_bid(b) for b in body.bids]
        bags = body.bags_before if body.bags_before is not None else [0] * lay.sides_count
        tricks = body.tricks
        if (bids is not None and len(bids) != lay.n) or len(tricks) != lay.n or len(bags) != lay.sides_count:
            raise SpadesError(f"give {lay.n} bids and tricks, and {lay.sides_count} bag counts")
        if not all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t <= lay.hand_size for t in tricks):
            raise SpadesError(f"tricks are whole numbers from 0 to {lay.hand_size}")
        sides = score_hand(rules, bids, tricks, bags)
    except SpadesError as e:
        return {"ok": False, "error": str(e)}
    except (TypeError, ValueError) as e:
        return {"ok": False, "error": f"this hand cannot be read: {e}"}
    return {"ok": True, "sides": [{"points": s.points, "bags": s.bags, "bags_total": s.bags_total,
                                   "tricks": s.tricks, "contract": s.contract, "made": s.made,
                                   "lines": [[ln.text, ln.points] for ln in s.lines]} for s in sides]}


@router.post("/replay")
def replay(record: dict[str, Any]) -> dict[str, Any]:
    """A ``spades-record/1`` replayed by the engine (everything checked), laid out for the replay page:
    per hand the dealer, the deal, the bids, the exchanges, each seat's cards when play began, every
    trick with its winner, and each side's score explained. A record that does not replay answers
    ``{"ok": false, "error": ...}`` with the engine's reason."""
    hands_in = record.get("hands")
    if isinstance(hands_in, list) and len(hands_in) > MAX_HANDS:
        return {"ok": False, "error": f"a record may hold at most {MAX_HANDS} hands here"}
    try:
        game = read_record(record)
    except SpadesError as e:
        return {"ok": False, "error": str(e)}
    except (TypeError, ValueError, KeyError) as e:
        return {"ok": False, "error": f"this record cannot be read: {e}"}
    n = game.rules.layout.n
    out_hands: list[dict[str, Any]] = []
    running = [0] * game.rules.layout.sides_count
    for i, hand in enumerate(game.hands):
        result = game.results[i] if i < len(game.results) else None
        played: list[list[str]] = [[] for _ in range(n)]
        for trick in hand.tricks:
            for seat, card in trick.cards:
                played[seat].append(card_text(card))
        for seat, card in hand.current:
            played[seat].append(card_text(card))
        sides: list[dict[str, Any]] = []
        if result is not None:
            for k, side in enumerate(result.sides):
                running[k] += side.points
                sides.append({"points": side.points, "total": running[k], "bags": side.bags_total,
                              "contract": side.contract, "made": side.made,
                              "lines": [[ln.text, ln.points] for ln in side.lines]})
        source = hands_in[i] if isinstance(hands_in, list) and i < len(hands_in) else {}
        out_hands.append({
            "dealer": hand.dealer,
            "deal": source.get("deal") if isinstance(source, dict) else None,
            "bids": [None if b is None else b.text() for b in hand.bids],
            "passes": [{"from": a, "to": b, "cards": [card_text(c) for c in cs]} for a, b, cs in hand.passes],
            "in_play": played,
            "tricks": [{"leader": t.leader, "winner": t.winner, "cards": [[s, card_text(c)] for s, c in t.cards]}
                       for t in hand.tricks],
            "tricks_taken": list(hand.tricks_taken),
            "misdeal": bool(result is not None and result.misdeal),
            "finished": result is not None,
            "sides": sides,
        })
    players = record.get("players")
    return {
        "ok": True,
        "rules": record.get("rules", "standard"),
        "players": players if isinstance(players, list) else [f"Seat {s + 1}" for s in range(n)],
        "layout": layout_of(game.rules),
        "hands": out_hands,
        "totals": list(game.totals),
        "over": game.over,
        "winner": game.winner,
    }


def _bad_verify_input(body: VerifyHandRequest) -> tuple[Rules | None, str | None]:
    """The rules of a verify request, or the reason its input cannot be checked at all."""
    try:
        rules = load_rules(body.rules)
    except SpadesError as e:
        return None, f"rules: {e}"
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        return None, f"rules: these rules cannot be read: {e}"
    n = rules.layout.n
    dealer = body.dealer
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
        return None, f"dealer must be a seat number from 0 to {n - 1}, not {dealer!r}"
    if not isinstance(body.commitment, str):
        return None, "commitment is missing: give the 64 hex digits published before the deal"
    try:
        check_server_seed(body.commitment)  # a commitment has a seed's shape: 64 hex digits
    except FairDealError:
        return None, f"commitment {body.commitment[:80]!r} must be exactly 64 hex digits"
    if not isinstance(body.seed, str):
        return None, "seed is missing: give the server seed revealed after the hand (64 hex digits)"
    try:
        check_server_seed(body.seed)
    except FairDealError:
        return None, f"seed {body.seed[:80]!r} must be exactly 64 hex digits"
    clients = body.client_seeds
    if not isinstance(clients, list) or not all(isinstance(c, str) for c in clients):
        return None, "client_seeds must be a list of strings"
    if len(clients) > MAX_CLIENT_SEEDS:
        return None, f"client_seeds may hold at most {MAX_CLIENT_SEEDS} seeds"
    return rules, None


def _texts(cards: int) -> list[str]:
    """A card set's texts in suit and rank order (clubs to spades, two to ace, jokers last)."""
    return [card_text(c) for c in sorted(cards_of(cards), key=face)]


@router.post("/verify/hand", response_model=None)
def verify_hand(body: VerifyHandRequest) -> dict[str, Any] | Response:
    """Re-derive one hand's deal from its revealed seed, as ``spades verify`` does for a record.

    The answer has ``ok`` and ``reason`` (whether the seed hashes to the commitment), ``deal`` (each
    seat's cards as dealt, sorted), ``out`` (cards left out of play), ``stock`` (the two-handed game's
    stock, top first) and the rules' ``layout``. A seed that does not match its commitment is a verdict
    (``ok: false``, empty deal); input that cannot be checked at all answers 400 naming what is wrong.
    ``deck`` (the rules' deck in order) and ``dealer_discard`` let a page deal the seeds' permutation itself.
    """
    rules, problem = _bad_verify_input(body)
    if rules is None:
        raise ApiError(400, "bad_request", problem or "this deal cannot be checked")
    lay = rules.layout
    # The deck in order (public: it follows from the rules) lets the page deal the seeds' permutation
    # itself and compare, rather than take this answer's word for it (js/deal.js).
    public = {"layout": layout_of(rules), "deck": [card_text(c) for c in lay.deck],
              "dealer_discard": lay.n != 2 and bool(rules.dealer_discard)}
    try:
        hand = derive_hand(rules, body.dealer, body.commitment, body.seed, body.client_seeds)
    except FairDealError as e:
        return {"ok": False, "reason": str(e), "deal": [[] for _ in range(lay.n)], "out": [], **public}
    except SpadesError as e:
        raise ApiError(400, "bad_request", str(e)) from None
    out: dict[str, Any] = {
        "ok": True,
        "reason": "the seed matches the commitment; this is the deal the seeds make",
        "deal": [_texts(m) for m in hand.dealt],
        "out": _texts(hand.out),
        **public,
    }
    if lay.n == 2:
        out["stock"] = [card_text(c) for c in hand.stock]
    return out


#: How long a browser may keep a static file. Pages, scripts and styles are kept but checked on each use
#: (``no-cache`` with the ETag StaticFiles sends: an unchanged file costs a 304 and no body), so a page and
#: its scripts never come from two versions; the icons change rarely and are kept a week. The service
#: worker (sw.js) keeps copies for offline use on top of this.
CACHE_CONTROL = {".svg": "public, max-age=604800"}
CACHE_DEFAULT = "no-cache"


class Pages(StaticFiles):
    """The static pages; a WebSocket to a path nothing else serves is closed politely (StaticFiles
    itself only speaks HTTP)."""

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = CACHE_CONTROL.get(Path(full_path).suffix, CACHE_DEFAULT)
        return response

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await super().__call__(scope, receive, send)


def mount(app: FastAPI) -> None:
    """Add the pages' endpoints to ``app`` and serve the static pages at ``/`` (after every other
    route, so call it last)."""
    from spades.web.lab import router as lab_router
    from spades.web.security import SiteGuard

    if not getattr(app.state, "guarded", False):  # a bare app: the headers and forgery checks, no quotas
        app.add_middleware(SiteGuard)
        app.state.guarded = True
    if not getattr(app.state, "compressed", False):  # pages, scripts and JSON answers gzipped when asked
        app.add_middleware(GZipMiddleware, minimum_size=600)
        app.state.compressed = True
    install(app)
    app.include_router(router)
    app.include_router(lab_router)
    app.mount("/", Pages(directory=STATIC_DIR, html=True), name="web")


__all__ = ["STATIC_DIR", "layout_of", "mount", "router"]
