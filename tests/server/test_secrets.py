"""The secret-leak test: for every viewer (each seat, so partner and opponents, a spectator, an
anonymous socket, a bot) and every payload type, no card appears that the viewer may not know, and
no deck order or unrevealed seed appears at all."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from spades.ai.base import LEVELS, Decision, RandomBot
from spades.core.actions import Bid, Look, Misdeal
from spades.core.cards import card_text
from spades.core.hand import Hand, HandContext
from spades.core.view import HandView
from spades.storage import Storage
from spades.variants import load_rules

from .harness import LiveServer, Player, Sock, anonymous_sock, event, settle, wait_turn
from .test_play import concrete

RULES = {"preset": "standard", "target": 50, "blind_behind": 0, "bags": "none"}
CARD = re.compile(r"(?:[2-9TJQKA][CDHS]|LJ|BJ)")
SPY_VIEWS: list[dict[str, Any]] = []


class SpyBot(RandomBot):
    """A random bot that keeps every view it is given."""

    level = "spy"

    def decide(self, view: HandView, totals: tuple[int, ...], deadline: float | None = None,
               bags: tuple[int, ...] | None = None) -> Decision:
        SPY_VIEWS.append(view.to_dict())
        legal = [a for a in view.legal if not isinstance(a, Misdeal)]
        looks = [a for a in legal if isinstance(a, Look)]
        bids = [a for a in legal if isinstance(a, Bid) and a.value.tricks > 0 and not a.value.blind]
        return Decision(looks[0] if looks else bids[0] if bids else self.rng.choice(legal), "spy")


def strings(value: Any) -> list[str]:
    """Every string (values and keys) inside a JSON value."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            out.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


class Truth:
    """What the log says happened, and so what each seat may know at each event number."""

    def __init__(self, db: Storage, tid: str) -> None:
        self.events = db.load_events(tid)
        rules = load_rules(RULES)
        self.hands: list[dict[str, Any]] = []
        for e in self.events:
            d = e.data
            if e.kind == "deal":
                hand = Hand(rules, d["dealer"], d["order"], HandContext())
                self.hands.append({"start": e.seq, "end": 10**9, "seed": d["seed"], "dealt": [
                    {card_text(c) for c in range(64) if hand.dealt[s] >> c & 1} for s in range(4)],
                    "plays": [], "passes": []})
            elif e.kind == "reveal":
                self.hands[-1]["end"] = e.seq
            elif e.kind == "action":
                a = d["action"]
                if a["a"] == "play":
                    self.hands[-1]["plays"].append((e.seq, card_text(a["card"])))
                elif a["a"] == "pass":
                    self.hands[-1]["passes"].append((e.seq, (a["seat"] + 2) % 4, {card_text(c) for c in a["cards"]}))

    def allowed(self, seat: int | None, seq: int) -> set[str]:
        """The cards ``seat`` may have seen by event ``seq``."""
        current = [h for h in self.hands if h["start"] <= seq]
        if not current:
            return set()
        h = current[-1]
        if seq >= h["end"]:
            return set().union(*h["dealt"])
        known = {c for s, c in h["plays"] if s <= seq}
        if seat is not None:
            known |= h["dealt"][seat]
            for s, to, cards in h["passes"]:
                if s <= seq and to == seat:
                    known |= cards
        return known

    def secret_seeds(self, seq: int) -> set[str]:
        """Seeds not yet revealed at event ``seq``."""
        return {h["seed"] for h in self.hands if h["end"] > seq}


def check(sock: Sock, seat: int | None, truth: Truth, who: str) -> int:
    """Check every message a socket received; returns how many were checked."""
    seq = 0
    for raw in sock.raw:
        m = json.loads(raw)  # as sent (the test socket adds the state a change leads to, for the tests)
        if "ev" in m:
            seq = m["ev"]
        elif m["type"] in ("snapshot", "state", "welcome") and "seq" in m:
            seq = m["seq"]
        words = strings(m)
        assert "order" not in words and "deck" not in words, (who, m)
        bad = {w for w in words if CARD.fullmatch(w)} - truth.allowed(seat, seq)
        assert not bad, f"{who} at event {seq} saw {bad} in {m.get('type', 'an event')}: {raw[:300]}"
        for secret in truth.secret_seeds(seq):
            assert secret not in raw, f"{who} saw an unrevealed seed at event {seq}"
    return len(sock.received)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_no_viewer_ever_sees_a_hidden_card(live: Callable[..., LiveServer], db: Storage) -> None:
    SPY_VIEWS.clear()
    srv = live(bots={**LEVELS, "spy": SpyBot})
    ps = [Player(srv.url, srv.ws_url) for _ in range(4)]
    r = ps[0].http.post("/api/tables", json={"rules": RULES, "public": True, "turn_seconds": None})
    tid = r.json()["id"]
    socks = [ps[0].sock(tid)]
    for i in (1, 2):
        s = ps[i].sock(tid)
        s.send({"type": "sit", "seat": i, "id": f"sit{i}"})
        socks.append(s)
    settle(socks, 0.2)
    watcher = ps[3].sock(tid)
    anon = anonymous_sock(srv.ws_url, tid)
    # Before the game: a record is not available to anybody.
    assert ps[0].http.get(f"/api/tables/{tid}/record").status_code == 404
    socks[0].send({"type": "fill", "level": "spy", "id": "fill"})
    everyone = [*socks, watcher, anon]
    settle(everyone, 0.2)
    blind_done: set[int] = set()
    errors = 0
    humans = dict(enumerate(socks))
    for move in range(600):
        seat = wait_turn(everyone, humans)
        if seat is None:
            break
        sv = socks[seat].view
        assert sv is not None
        legal = sv["legal"]
        # An out-of-turn attempt by the next seat: an error payload to check too.
        if errors < 20 and seat != 2:
            errors += 1
            socks[(seat + 1) % 3].act({"bid": 3} if sv["phase"] == "bid" else {"look": True})
        hand_no = socks[0].state["hand"]  # type: ignore[index]
        blind = [a for a in legal if a.get("bid") == "blind nil"]
        if blind and hand_no == 1 and not blind_done:
            blind_done.add(hand_no)
            action = blind[0]
        else:
            looks = [a for a in legal if "look" in a]
            bids = [a for a in legal if isinstance(a.get("bid"), int)]
            plays = [a for a in legal if "play" in a]
            action = looks[0] if looks else bids[0] if bids else plays[-1] if plays else concrete(next(
                a for a in legal if "misdeal" not in a))
        assert sv["hand"] is not None or "look" in action or "bid" in action
        if move % 10 == 0:
            socks[seat].send({"type": "chat", "text": f"seat {seat} thinks", "id": f"chat{move}"})
            socks[seat].until(lambda m, move=move: m.get("id") == f"chat{move}")
        assert socks[seat].act(action)["type"] == "ack"
    else:
        raise AssertionError(f"the game did not end: {socks[0].state}")
    settle(everyone, 0.3)
    truth = Truth(db, tid)
    assert any(h["passes"] for h in truth.hands), "no blind nil exchange happened"
    checked = sum(check(s, seat, truth, f"seat {seat}") for seat, s in enumerate(socks))
    checked += check(watcher, None, truth, "spectator") + check(anon, None, truth, "anonymous")
    # Every human move sends an event to each of the five viewers. How long a game lasts depends on the deal
    # (the server shuffles, so no seed fixes it); a game has at least one whole hand, in which the three
    # human seats make at least 14 moves each.
    assert move >= 42 and checked >= 5 * move
    # Most events carry a change, not a whole state (``protocol.md``, Changes): those were checked too,
    # the exchanges' cards and the deals' hands among them.
    for s in [*socks, watcher, anon]:
        sent = [json.loads(raw) for raw in s.raw]
        assert sum("change" in m for m in sent) > 3 * sum("state" in m for m in sent)
    assert any("hand" in json.loads(raw).get("change", {}).get("view", {}) for raw in socks[0].raw)
    kinds = {event(m)["kind"] for m in watcher.received if "ev" in m}
    assert kinds >= {"seat", "deal", "action", "reveal", "chat", "over"}
    types = {m.get("type", "event") for s in socks for m in s.received}
    assert types >= {"welcome", "snapshot", "event", "ack", "error"}
    # Passes: only the two partners see the cards; everyone else sees how many.
    for s, seat in ((watcher, None), (socks[0], 0), (socks[2], 2)):
        for m in s.received:
            a = event(m).get("action", {})
            if "pass" in a:
                assert isinstance(a["pass"], list) == (seat is not None and seat in (a["seat"], (a["seat"] + 2) % 4))
    # The bot's views: its own cards only, passes only its own.
    assert SPY_VIEWS
    for v in SPY_VIEWS:
        assert v["seat"] == 3
        for p in v["passes"]:
            assert (p["cards"] is not None) == (3 in (p["from"], p["to"]))
        if v["hand"] is not None:
            assert any(set(v["hand"]) <= h["dealt"][3] | set().union(*[c for _, to, c in h["passes"] if to == 3])
                       for h in truth.hands)
    # After the game: the full record for its players only, seeds revealed.
    rec = ps[0].http.get(f"/api/tables/{tid}/record")
    assert rec.status_code == 200 and all("seed" in h and "deal" in h for h in rec.json()["hands"])
    assert ps[3].http.get(f"/api/tables/{tid}/record").status_code == 403
    assert "deal" not in json.dumps(ps[3].http.get("/api/lobby").json())
