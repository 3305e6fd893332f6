"""The web package's HTTP endpoints on a bare FastAPI app: rules catalogue, rule checks and scoring."""

from __future__ import annotations

from typing import Any

import pytest

from spades.core.rules import OPTIONS
from spades.variants import PRESETS

from .conftest import TestClient, finished_record


def score(client: TestClient, hands: list[dict[str, Any]], rules: Any = "standard") -> dict[str, Any]:
    r = client.post("/api/score", json={"rules": rules, "hands": hands})
    assert r.status_code == 200
    data: dict[str, Any] = r.json()
    return data


def test_rules_catalogue_lists_every_preset_and_option(client: TestClient) -> None:
    data = client.get("/api/rules").json()
    assert [p["name"] for p in data["presets"]] == list(PRESETS)
    assert [o["name"] for o in data["options"]] == list(OPTIONS)
    nil = next(o for o in data["options"] if o["name"] == "nil_points")
    assert nil["default"] == 100 and nil["low"] == 10 and nil["meaning"]
    six = next(p for p in data["presets"] if p["name"] == "six-handed")
    assert six["layout"]["players"] == 6 and six["layout"]["hand_size"] == 17 and six["layout"]["two_decks"]
    assert six["layout"]["sides"] == [[0, 3], [1, 4], [2, 5]]


def test_rules_check_accepts_and_refuses(client: TestClient) -> None:
    ok = client.post("/api/rules/check", json={"preset": "standard", "overrides": {"nil_points": 50}}).json()
    assert ok["ok"] and ok["options"]["nil_points"] == 50 and ok["layout"]["players"] == 4
    bad = client.post("/api/rules/check", json={"preset": "standard", "overrides": {"nil_points": "x"}}).json()
    assert not bad["ok"] and "nil_points" in bad["error"]
    unknown = client.post("/api/rules/check", json={"preset": "nope"}).json()
    assert not unknown["ok"] and "unknown preset" in unknown["error"]
    conflict = client.post("/api/rules/check", json={"preset": "three-handed", "overrides": {"nil_pass": 2}}).json()
    assert not conflict["ok"] and "nil_pass" in conflict["error"]


def test_seed_worked_hand(client: TestClient) -> None:
    data = score(client, [{"bids": [3, "nil", 2, 6], "tricks": [5, 1, 3, 4]}])
    assert data["ok"] and data["totals"] == [53, -160]
    ns, ew = data["hands"][0]["sides"]
    assert ns["points"] == 53 and ns["bags"] == 3 and ns["contract"] == 5 and ns["made"] is True
    assert ew["points"] == -160 and [p for _, p in ew["lines"]] == [-100, -60]
    assert data["blind_eligible"] == [False, True]


def test_seed_nil_made_but_set(client: TestClient) -> None:
    data = score(client, [{"bids": [3, "nil", 2, 6], "tricks": [5, 0, 3, 5]}])
    assert data["totals"] == [53, 40]


def test_seed_bag_sequence(client: TestClient) -> None:
    hands: list[dict[str, Any]] = [
        {"bids": [3, "nil", 2, 6], "tricks": [5, 1, 3, 4]},
        {"bids": [3, 2, 2, 2], "tricks": [5, 2, 4, 2]},
        {"bids": [2, 3, 2, 3], "tricks": [4, 3, 3, 3]},
    ]
    data = score(client, hands)
    assert [h["sides"][0]["total"] for h in data["hands"]] == [53, 107, 50]
    assert [h["sides"][0]["bags"] for h in data["hands"]] == [3, 7, 0]
    assert data["bags"][0] == 0


def test_hands_entered_per_side_mix_with_per_seat_hands(client: TestClient) -> None:
    hands: list[dict[str, Any]] = [
        {"sides": [{"bid": 5, "tricks": 8}, {"bid": 6, "tricks": 5, "nil": [{"seat": 1, "bid": "nil", "tricks": 1}]}]},
        {"bids": [3, 2, 2, 2], "tricks": [5, 2, 4, 2]},
        {"sides": [{"bid": 4, "tricks": 7}, {"bid": 6, "tricks": 6}]},
    ]
    data = score(client, hands)
    assert data["ok"] and [h["sides"][0]["total"] for h in data["hands"]] == [53, 107, 50]
    assert [p for _, p in data["hands"][0]["sides"][1]["lines"]] == [-100, -60]
    # A side hand that cannot be scored is named like any other.
    bad = score(client, [hands[0], {"sides": [{"bid": 5, "tricks": 9}, {"bid": 1, "tricks": 4}]}])
    assert not bad["ok"] and bad["error"]["hand"] == 1 and "at least 2" in bad["error"]["reason"]
    both = score(client, [{"sides": hands[0]["sides"], "tricks": [5, 1, 3, 4]}])
    assert not both["ok"] and "not both" in both["error"]["reason"]


def test_bad_hand_is_named_and_earlier_hands_still_scored(client: TestClient) -> None:
    hands: list[dict[str, Any]] = [{"bids": [3, "nil", 2, 6], "tricks": [5, 1, 3, 4]},
                                   {"bids": [3, 2, 2, 2], "tricks": [5, 2, 4, 1]}]
    data = score(client, hands)
    assert not data["ok"] and data["error"]["hand"] == 1 and "add up to 12" in data["error"]["reason"]
    assert len(data["hands"]) == 1 and data["totals"] == [53, -160]


def test_blind_nil_needs_to_be_behind(client: TestClient) -> None:
    data = score(client, [{"bids": ["blind nil", 3, 4, 3], "tricks": [0, 3, 6, 4]}])
    assert not data["ok"] and "behind" in data["error"]["reason"]
    data = score(client, [{"bids": ["blind nil", 3, 4, 3], "tricks": [0, 3, 6, 4]}],
                 rules={"preset": "standard", "blind_behind": 0})
    assert data["ok"] and data["totals"][0] == 200 + 42


def test_rules_error_and_bidless_first_hand(client: TestClient) -> None:
    data = score(client, [], rules={"preset": "standard", "target": 7})
    assert not data["ok"] and data["error"]["hand"] is None and "target" in data["error"]["reason"]
    rules = {"preset": "standard", "first_hand_bids": False}
    data = score(client, [{"bids": None, "tricks": [4, 3, 3, 3]}], rules=rules)
    assert data["ok"] and data["totals"] == [70, 60] and data["next_hand_bids"]


def test_score_a_timed_game_ends_after_the_hand_marked_time_up(client: TestClient) -> None:
    hands = [{"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]}]
    assert score(client, hands, {"time_limit_minutes": 30})["winner"] is None
    hands.append({"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3], "time_up": True})
    assert score(client, hands, {"time_limit_minutes": 30})["winner"] == 0
    assert "time_limit_minutes" in score(client, hands)["error"]["reason"]


def test_score_says_when_time_is_up_and_the_lead_is_tied(client: TestClient) -> None:
    timed = {"time_limit_minutes": 30}
    tied = [{"bids": [4, 4, 4, 4], "tricks": [3, 3, 3, 4]}]  # both sides bid 8 and are set: -80 each
    data = score(client, tied, timed)
    assert not data["time_up"] and data["layout"]["time_limit_minutes"] == 30
    tied[0]["time_up"] = True
    data = score(client, tied, timed)
    assert data["time_up"] and not data["over"] and data["winner"] is None  # the next hand decides
    data = score(client, [*tied, {"bids": [3, 3, 3, 3], "tricks": [3, 4, 3, 3]}], timed)  # -20 to -19
    assert data["time_up"] and data["over"] and data["winner"] == 1
    assert score(client, tied[:0])["layout"]["time_limit_minutes"] is None


def test_score_refuses_a_malformed_body(client: TestClient) -> None:
    r = client.post("/api/score", json={"hands": "many"})
    assert r.status_code == 422
    r = client.post("/api/score", json={"hands": [{"bids": [1, 1, 1, 1], "tricks": [4, 3, 3, 3]}] * 401})
    assert r.status_code == 422


def test_static_pages_are_served(client: TestClient) -> None:
    for path in ("/", "/score.html", "/rules.html", "/cards.html", "/table.html", "/replay.html"):
        r = client.get(path)
        assert r.status_code == 200 and "<!doctype html>" in r.text.lower(), path
    js = client.get("/js/score.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"]


def test_one_hand_explained(client: TestClient) -> None:
    r = client.post("/api/score/hand", json={"rules": "standard", "bids": ["3", "nil", 2, 6],
                                             "tricks": [5, 1, 3, 4], "bags_before": [8, 0]}).json()
    assert r["ok"]
    ns, ew = r["sides"]
    assert ns["points"] == 53 - 100 and ns["bags_total"] == 1
    assert [text for text, _ in ns["lines"]] == ["contract of 5 made", "3 bags", "10 bags reached"]
    assert ew["points"] == -160
    bad = client.post("/api/score/hand", json={"bids": [3, 3], "tricks": [5, 8]}).json()
    assert not bad["ok"] and "give 4" in bad["error"]


def test_replay_lays_out_every_trick(client: TestClient) -> None:
    record = finished_record()
    data = client.post("/api/replay", json=record).json()
    assert data["ok"] and data["over"] and data["players"] == ["Ann", "Bob", "Cy", "Dee"]
    first = data["hands"][0]
    assert first["deal"] == record["hands"][0]["deal"]
    assert len(first["tricks"]) == 13 and all(len(t["cards"]) == 4 for t in first["tricks"])
    assert sorted(len(cards) for cards in first["in_play"]) == [13, 13, 13, 13]
    assert [t["winner"] for t in first["tricks"]].count(0) == first["tricks_taken"][0]
    assert sum(h["sides"][0]["points"] for h in data["hands"]) == data["totals"][0]
    record["hands"][0]["actions"][0]["bid"] = 99
    bad = client.post("/api/replay", json=record).json()
    assert not bad["ok"] and bad["error"].startswith("hand 0, action 0:") and "99" in bad["error"]


def test_oversized_and_deeply_nested_bodies_are_refused(client: TestClient) -> None:
    big = {"rules": "standard", "hands": [], "pad": "x" * (600 * 1024)}
    r = client.post("/api/score", json=big)
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    deep = "[" * 100_000 + "]" * 100_000
    r = client.post("/api/replay", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code in (400, 422)


def test_a_socket_to_an_unknown_path_is_closed(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws/nowhere"):
        pass
    assert closed.value.code == 1008


def test_the_rule_book_gives_plain_labels_groups_and_the_first_rules(client: Any) -> None:
    cat = client.get("/api/rules").json()
    by_name = {o["name"]: o for o in cat["options"]}
    assert by_name["spades_lead"]["label"] == "Spades may be led"
    assert by_name["spades_lead"]["words"] == ["once broken", "any time"]
    assert by_name["nil_pass"]["group"] == "nil"
    assert [g["name"] for g in cat["groups"]] == ["bidding", "nil", "play", "scoring", "table"]
    assert cat["first"] == ["nil_points", "blind_nil", "blind_nil_points", "nil_pass", "bag_penalty", "spades_lead"]
    assert all(name in by_name for name in cat["first"])


def test_the_layout_offers_the_bids_the_engine_allows(client: TestClient) -> None:
    from spades.core.bidding import possible_bids
    from spades.variants import load_rules

    for overrides in ({}, {"blind_bids": True}, {"min_side_bid": 3, "partnerships": False}):
        got = client.post("/api/rules/check", json={"preset": "standard", "overrides": overrides}).json()
        assert got["layout"]["bids"] == [b.text() for b in possible_bids(load_rules(overrides))]
    solo = client.post("/api/rules/check", json={"preset": "cutthroat", "overrides": {"min_side_bid": 3}}).json()
    assert "nil" not in solo["layout"]["bids"] and solo["layout"]["bids"][0] == "3"


def test_static_files_and_json_are_compressed_and_kept_with_a_check(client: TestClient) -> None:
    """A phone downloads table.js gzipped (a third of its size or less) and keeps it: the next load asks
    with its ETag and gets a 304 with no body. JSON answers are gzipped too."""
    plain = client.get("/js/table.js", headers={"Accept-Encoding": "identity"})
    zipped = client.get("/js/table.js", headers={"Accept-Encoding": "gzip"})
    assert plain.status_code == zipped.status_code == 200
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plain.content  # httpx unzips: the same file
    assert int(zipped.headers["content-length"]) * 3 < len(plain.content)
    assert zipped.headers["cache-control"] == "no-cache" and zipped.headers.get("etag")
    again = client.get("/js/table.js", headers={"If-None-Match": zipped.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/icons/favicon.svg").headers["cache-control"].startswith("public, max-age=")
    rules = client.get("/api/rules", headers={"Accept-Encoding": "gzip"})
    assert rules.status_code == 200 and rules.headers["content-encoding"] == "gzip"


def test_score_says_why_a_tied_game_goes_on_and_which_bids_to_offer(client: Any) -> None:
    rules = {"preset": "standard", "target": 100}
    hands = [{"bids": [3, 3, 3, 3], "tricks": [3, 4, 3, 3]}, {"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]}]
    data = score(client, hands, rules)
    assert data["totals"] == [121, 121] and not data["over"] and data["tied"]
    assert not score(client, hands[:1], rules)["tied"]
    # The bids offered: no blind nil while no side is 100 behind; each hand has its own list.
    assert data["bid_choices"][0] == ["nil", *map(str, range(1, 14))]
    assert data["hands"][0]["bid_choices"] == data["bid_choices"]
    behind = score(client, [{"bids": [3, "nil", 3, 3], "tricks": [4, 2, 4, 3]}], rules)
    assert behind["totals"] == [62, -68]
    assert "blind nil" in behind["bid_choices"][1] and "blind nil" not in behind["bid_choices"][0]
    capped = score(client, [], {"preset": "standard", "max_side_bid": 10, "first_hand_bids": False})
    assert capped["bid_choices"] is None
    assert score(client, hands[:1], {"preset": "standard", "max_side_bid": 10})["bid_choices"][0][-1] == "10"
