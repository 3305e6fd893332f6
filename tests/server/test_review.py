"""Game reviews over HTTP (``spades.server.review``): a finished game for the seat its player played,
stored once; an uploaded record for any seat; bad input refused; the queue bounded."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from spades.server.review import MAX_RECORD_BYTES, Job, ReviewQueue
from spades.web.http import ApiError

from .harness import Player
from .test_play import choose

SHORT = {"preset": "standard", "target": 50, "lose_at": -10}


def finished_game(p: Player) -> str:
    r = p.http.post("/api/play", json={"rules": SHORT, "bot_level": "random"})
    assert r.status_code == 200, r.text
    tid = str(r.json()["id"])
    s = p.sock(tid)
    s.until(lambda m: m.get("type") == "snapshot")
    while not (s.state and s.state["over"]):
        view = s.view
        if view and view["to_act"] == 0 and view["legal"]:
            s.act(choose(view))
        else:
            s.until(lambda m: "state" in m, timeout=30)
    s.close()
    return tid


def wait_done(get: Callable[[], Any], seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    seen: set[str] = set()
    while True:
        r = get()
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        seen.add(data["state"])
        if data["state"] in ("done", "failed"):
            data["seen"] = sorted(seen)
            return data
        assert time.monotonic() < deadline, data
        time.sleep(0.2)


@pytest.mark.slow  # plays whole hands over a live socket (2-5 s)
def test_a_finished_game_is_reviewed_for_the_players_seat_once(player: Callable[[], Player]) -> None:
    p = player()
    tid = finished_game(p)
    assert p.http.get(f"/api/tables/{tid}/review").json()["state"] == "none"
    r = p.http.post(f"/api/tables/{tid}/review")
    assert r.status_code == 200, r.text
    assert r.json()["state"] in ("queued", "running", "done")
    done = wait_done(lambda: p.http.get(f"/api/tables/{tid}/review"))
    assert done["state"] == "done", done
    review = done["review"]
    assert review["seat"] == 0 == done["seat"]
    assert review["decisions"] and all(d["played"]["seat"] == 0 for d in review["decisions"])
    assert set(review["summary"]) >= {"points_lost", "by_label"}
    # Stored: asking again answers at once with the same review, computed once.
    again = p.http.post(f"/api/tables/{tid}/review").json()
    assert again["state"] == "done" and again["review"] == review
    # Only the player of the seat may review it, and only that seat.
    other = player()
    assert other.http.get(f"/api/tables/{tid}/review").status_code == 403
    r = other.http.post(f"/api/tables/{tid}/review")
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_seat"
    assert p.http.post(f"/api/tables/{tid}/review?seat=1").status_code == 403
    assert p.http.post("/api/tables/nosuchtable/review").status_code == 404
    # An uploaded copy of the record can be reviewed for any seat.
    record = p.http.get(f"/api/tables/{tid}/record").json()
    r = other.http.post("/api/reviews", json={"record": record, "seat": 1})
    assert r.status_code == 200, r.text
    rid = r.json()["id"]
    done = wait_done(lambda: other.http.get(f"/api/reviews/{rid}"))
    assert done["state"] == "done" and done["review"]["seat"] == 1


@pytest.mark.parametrize(("body", "status", "says"), [
    ({"record": {"format": "spades-record/1", "hands": [{"dealer": 7}]}, "seat": 0}, 400, "dealer"),
    ({"record": {"format": "nope"}, "seat": 0}, 400, "format"),
    ({"record": [], "seat": 0}, 400, "record must be"),
    ({"record": {"format": "spades-record/1", "rules": "standard", "hands": []}, "seat": 0}, 400, "no hand"),
    ({"record": {"format": "spades-record/1", "rules": "standard", "hands": []}, "seat": 9}, 400, "seat"),
])
def test_bad_uploads_are_refused_naming_the_problem(player: Callable[[], Player], body: dict[str, Any],
                                                    status: int, says: str) -> None:
    p = player()
    r = p.http.post("/api/reviews", json=body)
    assert r.status_code == status, r.text
    assert says in r.json()["error"]["reason"]


def test_oversized_and_malformed_uploads_and_unknown_reviews(player: Callable[[], Player]) -> None:
    p = player()
    big = json.dumps({"record": {"format": "spades-record/1", "pad": "x" * (MAX_RECORD_BYTES + 10)}, "seat": 0})
    r = p.http.post("/api/reviews", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    r = p.http.post("/api/reviews", content=b"{nope", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"
    assert p.http.get("/api/reviews/u-" + "0" * 40 + "-1").status_code == 404
    assert p.http.get("/api/reviews/t-anything-0").status_code == 404


def test_the_queue_runs_one_at_a_time_one_per_player_and_is_bounded() -> None:
    gate = threading.Event()
    ran: list[str] = []
    saved: list[str] = []

    def run(record: dict[str, Any], seat: int, progress: Callable[[int, int], None]) -> dict[str, Any]:
        progress(1, 3)
        gate.wait(10)
        ran.append(record["name"])
        return {"seat": seat}

    async def save(job: Job, result: dict[str, Any]) -> None:
        saved.append(job.review_id)

    async def scenario() -> None:
        q = ReviewQueue(save, run, max_waiting=2)
        end = time.monotonic() + 30
        q.submit(Job("a", "p1", None, 0, {"name": "a"}))
        assert q.submit(Job("a", "p1", None, 0, {"name": "a"})).review_id == "a"  # the same review again
        while (st := q.status("a")) is None or (st["state"], st["done"]) != ("running", 1):  # a is running
            assert time.monotonic() < end, st
            await asyncio.sleep(0.01)
        q.submit(Job("b", "p2", None, 1, {"name": "b"}))
        q.submit(Job("c", "p3", None, 2, {"name": "c"}))
        with pytest.raises(ApiError) as one:
            q.submit(Job("d", "p1", None, 3, {"name": "d"}))
        assert one.value.code == "one_at_a_time"
        with pytest.raises(ApiError) as full:
            q.submit(Job("e", "p5", None, 0, {"name": "e"}))
        assert full.value.code == "queue_full"
        a, b, c = q.status("a"), q.status("b"), q.status("c")
        assert a is not None and a["state"] == "running" and (a["done"], a["total"]) == (1, 3)
        assert b is not None and b["state"] == "queued" and b["position"] == 2
        assert c is not None and c["position"] == 3
        gate.set()
        while len(saved) < 3 and time.monotonic() < end:
            await asyncio.sleep(0.01)
        assert ran == ["a", "b", "c"] and saved == ["a", "b", "c"]
        done = q.status("c")
        assert done is not None and done["state"] == "done" and done["review"] == {"seat": 2}

    asyncio.run(scenario())
