"""The HTTP half of the site under attack (issue 15): forged requests, security headers, quotas, accounts and
odd inputs, each against the whole application (``create_app`` with the pages mounted) in process."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from spades.server.app import create_app
from spades.server.config import ServerConfig
from spades.server.protocol import PROTOCOL_VERSION
from spades.web.api import mount

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

# Quotas in these tests count per day: the sliding window weighs the previous window's count by the time
# left of it, so a test crossing a window's edge would see fewer (a day's edge is all but never crossed).

OWN = "http://testserver"
"""The origin of the TestClient's requests (``Host: testserver``)."""
OTHER_PORT = "http://testserver:8081"
"""Another origin of the same site: a page on another port of the same host."""


def whole_app(tmp_path: Path, **kw: Any) -> FastAPI:
    kw.setdefault("database_url", f"sqlite:///{tmp_path / 'spades.db'}")
    kw.setdefault("bot_delay", 0.0)
    app = create_app(ServerConfig(**kw))
    mount(app)
    return app


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """Start the whole application in process (``site(**config)``); each call is a fresh browser."""
    clients: list[TestClient] = []

    def start(**kw: Any) -> TestClient:
        c = TestClient(whole_app(tmp_path, **kw))
        c.__enter__()
        clients.append(c)
        return c

    yield start
    for c in clients:
        c.__exit__(None, None, None)


# ---------------------------------------------------------------------- finding 1: forged requests


def test_a_page_of_another_origin_cannot_claim_the_visitors_guest(site: Callable[..., TestClient]) -> None:
    c = site()
    me = c.get("/api/me").json()
    forged = c.post("/api/register", content=b'{"username": "mallory1", "password": "mallory-pass"}',
                     headers={"Origin": OTHER_PORT, "Content-Type": "text/plain;charset=UTF-8"})
    assert forged.status_code == 403 and forged.json()["error"]["code"] == "cross_site"
    renamed = c.post("/api/me/name", json={"name": "Pwned"}, headers={"Origin": OTHER_PORT})
    assert renamed.status_code == 403 and renamed.json()["error"]["code"] == "cross_site"
    same_site = c.post("/api/me/name", json={"name": "Pwned"}, headers={"Sec-Fetch-Site": "same-site"})
    assert same_site.status_code == 403 and same_site.json()["error"]["code"] == "cross_site"
    after = c.get("/api/me").json()
    assert after == me  # still a guest, same name
    assert c.post("/api/login", json={"username": "mallory1", "password": "mallory-pass"}).status_code == 401


def test_a_same_origin_body_must_be_json(site: Callable[..., TestClient]) -> None:
    c = site()
    c.get("/api/me")
    plain = c.post("/api/me/name", content=b'{"name": "Ann"}', headers={"Origin": OWN, "Content-Type": "text/plain"})
    assert plain.status_code == 403 and plain.json()["error"]["code"] == "bad_content_type"
    form_headers = {"Sec-Fetch-Site": "same-origin", "Content-Type": "application/x-www-form-urlencoded"}
    form = c.post("/api/score", content=b"rules=standard", headers=form_headers)
    assert form.status_code == 403 and form.json()["error"]["code"] == "bad_content_type"
    ok = c.post("/api/me/name", json={"name": "Ann"}, headers={"Origin": OWN, "Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 200 and ok.json()["name"] == "Ann"
    assert c.post("/api/logout", headers={"Origin": OWN}).status_code == 200  # no body: no content type needed


def test_an_origin_named_in_the_config_is_accepted(site: Callable[..., TestClient]) -> None:
    c = site(allowed_origins=("https://spades.example",))
    c.get("/api/me")
    ok = c.post("/api/me/name", json={"name": "Bea"}, headers={"Origin": "https://spades.example"})
    assert ok.status_code == 200
    assert c.post("/api/me/name", json={"name": "Bea"}, headers={"Origin": "null"}).status_code == 403


# ---------------------------------------------------------------------- finding 3: security headers


@pytest.mark.parametrize("path", ["/", "/table.html", "/js/table.js", "/css/site.css", "/api/me", "/nope.html"])
def test_every_answer_carries_the_security_headers(site: Callable[..., TestClient], path: str) -> None:
    r = site().get(path)
    csp = r.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["script-src"] == "'self'" and "unsafe" not in csp
    assert directives["frame-ancestors"] == "'none'"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "same-origin"
    assert "camera=()" in r.headers["permissions-policy"]
    assert "strict-transport-security" not in r.headers


def test_hsts_when_configured(site: Callable[..., TestClient]) -> None:
    r = site(hsts_seconds=31536000).get("/")
    assert r.headers["strict-transport-security"] == "max-age=31536000; includeSubDomains"


# ---------------------------------------------------------------------- finding 4: quotas (HTTP side)


def test_guests_per_address_are_limited_and_say_when_to_come_back(tmp_path: Path) -> None:
    app = whole_app(tmp_path, quotas={"guests": "3/day"})
    with TestClient(app, client=("203.0.113.7", 5000)) as first:
        me = first.get("/api/me").json()
        codes = [TestClient(app, client=("203.0.113.7", 5000)).get("/api/me").status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        r = TestClient(app, client=("203.0.113.7", 5000)).get("/api/me")
        assert r.status_code == 429 and 1 <= int(r.headers["retry-after"]) <= 86400
        assert r.json()["error"]["code"] == "rate_limited" and r.json()["error"]["quota"] == "guests"
        # A guest already made goes on playing; another address (another family) is not blocked.
        assert first.get("/api/me").json() == me
        assert TestClient(app, client=("198.51.100.9", 5000)).get("/api/me").status_code == 200


def test_tables_and_computer_games_per_player_are_limited(site: Callable[..., TestClient]) -> None:
    c = site(quotas={"tables": "2/day", "play": "2/day"})
    c.get("/api/me")
    made = [c.post("/api/tables", json={"public": False}).status_code for _ in range(3)]
    assert made == [200, 200, 429]
    games = [c.post("/api/play", json={"bot_level": "random"}) for _ in range(3)]
    assert [g.status_code for g in games] == [200, 200, 429]
    assert games[2].json()["error"]["quota"] == "play" and "retry-after" in games[2].headers
    # A refused settings error costs nothing: quotas count only tables made.
    other = site(quotas={"tables": "1/day"})
    other.get("/api/me")
    assert other.post("/api/tables", json={"turn_seconds": -1}).status_code == 400
    assert other.post("/api/tables", json={}).status_code == 200


def test_api_requests_per_address_are_limited_but_pages_are_not(site: Callable[..., TestClient]) -> None:
    c = site(quotas={"requests": "5/day"})
    codes = [c.get("/api/levels").status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]
    assert c.get("/api/levels").json()["error"]["quota"] == "requests"
    assert c.get("/healthz").status_code == 200 and c.get("/").status_code == 200


# ---------------------------------------------------------------------- finding 6: accounts


def account(c: TestClient, username: str, password: str = "open sesame") -> None:
    c.get("/api/me")
    assert c.post("/api/register", json={"username": username, "password": password}).status_code == 200


def test_failed_logins_slow_the_attacker_but_not_the_owner_elsewhere(tmp_path: Path) -> None:
    app = whole_app(tmp_path, login_attempts=3, login_window=300.0)
    with TestClient(app, client=("198.51.100.1", 1)) as owner, TestClient(app, client=("203.0.113.66", 1)) as bad:
        account(owner, "carol")
        owner.post("/api/logout")
        codes = [bad.post("/api/login", json={"username": "carol", "password": f"guess {i}"}).status_code
                 for i in range(5)]
        assert codes == [401, 401, 401, 429, 429]
        refused = bad.post("/api/login", json={"username": "carol", "password": "guess"})
        assert refused.json()["error"]["code"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
        # The owner, from home, is not locked out by the attacker's failures.
        assert owner.post("/api/login", json={"username": "carol", "password": "open sesame"}).status_code == 200


def test_failed_login_delays_grow() -> None:
    from spades.server.accounts import AttemptLimiter

    now = [1000.0]
    lim = AttemptLimiter(free=2, cap=60.0, clock=lambda: now[0])
    waits = []
    for _ in range(8):
        lim.fail("k")
        waits.append(lim.wait("k"))
        now[0] += waits[-1]
    assert waits == [0, 1, 2, 4, 8, 16, 32, 60]
    now[0] += 60
    assert lim.wait("k") == 0  # forgotten a while after the last failure


def test_an_unknown_name_is_checked_against_a_dummy_hash(site: Callable[..., TestClient],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import spades.server.routes.session as app_module
    from spades.server.accounts import dummy_hash

    c = site()
    account(c, "dora")
    checked: list[str] = []
    real = app_module.verify_password

    def spy(password_hash: str, password: str) -> bool:
        checked.append(password_hash)
        return real(password_hash, password)

    monkeypatch.setattr(app_module, "verify_password", spy)
    fresh = site()
    assert fresh.post("/api/login", json={"username": "nobody-here", "password": "whatever1"}).status_code == 401
    assert fresh.post("/api/login", json={"username": "dora", "password": "whatever1"}).status_code == 401
    assert len(checked) == 2 and checked[0] == dummy_hash() and checked[1].startswith("$argon2")
    assert checked[1] != dummy_hash()


def test_sign_ups_per_address_are_limited(tmp_path: Path) -> None:
    app = whole_app(tmp_path, quotas={"accounts": "3/day"})
    with TestClient(app, client=("203.0.113.5", 1)) as first:
        account(first, "erin")
        codes = []
        for name in ("erin", "erin", "frank"):  # someone else at the address tries names
            c = TestClient(app, client=("203.0.113.5", 1))
            c.get("/api/me")
            codes.append(c.post("/api/register", json={"username": name, "password": "long enough"}))
        # A sign-up must say the name is taken; the quota keeps that from answering a list of names.
        assert [r.status_code for r in codes] == [409, 409, 429]
        assert codes[0].json()["error"]["code"] == "username_taken"
        assert codes[2].json()["error"]["quota"] == "accounts"
        elsewhere = TestClient(app, client=("198.51.100.5", 1))
        account(elsewhere, "frank")


def test_register_and_login_give_a_new_session_token(site: Callable[..., TestClient]) -> None:
    c = site()
    c.get("/api/me")
    planted = c.cookies["spades_session"]
    r = c.post("/api/register", json={"username": "gina", "password": "open sesame"})
    assert r.status_code == 200
    after_register = r.cookies["spades_session"]
    assert after_register != planted
    attacker = site()
    attacker.cookies.set("spades_session", planted)
    assert attacker.get("/api/me").json()["id"] != r.json()["id"]  # the planted token is worth nothing
    r = c.post("/api/login", json={"username": "gina", "password": "open sesame"})
    assert r.status_code == 200 and r.cookies["spades_session"] not in (planted, after_register)


def test_logout_closes_the_sessions_sockets(site: Callable[..., TestClient]) -> None:
    from starlette.websockets import WebSocketDisconnect

    c = site()
    c.get("/api/me")
    made = c.post("/api/play", json={"bot_level": "random"}).json()
    with c.websocket_connect(f"/ws/tables/{made['id']}") as ws:
        ws.send_json({"type": "hello", "v": PROTOCOL_VERSION, "invite": made["invite"]})
        assert ws.receive_json()["type"] == "welcome"
        assert c.post("/api/logout").status_code == 200
        ws.send_json({"type": "ping"})  # an open socket would answer pong
        with pytest.raises(WebSocketDisconnect):
            for _ in range(100):  # the snapshot and events queued before the close, then the close
                assert ws.receive_json().get("type") != "pong"


def guesses_from(c: TestClient | Any, n: int) -> list[int]:
    """``n`` failed logins for different names, each claiming another address in X-Forwarded-For."""
    return [c.post("/api/login", json={"username": f"nobody{i}", "password": "wrong guess"},
                   headers={"X-Forwarded-For": f"192.0.2.{i + 1}"}).status_code for i in range(n)]


def test_forwarded_for_is_believed_only_from_a_named_proxy(site: Callable[..., TestClient]) -> None:
    assert guesses_from(site(login_attempts=2), 3) == [401, 401, 429]
    assert guesses_from(site(login_attempts=2, trusted_proxies=("testclient",)), 3) == [401, 401, 401]


@pytest.mark.slow
def test_spades_serve_ignores_forwarded_for_from_a_local_peer(tmp_path: Path) -> None:
    import httpx

    from .harness import ServeProcess

    srv = ServeProcess(tmp_path / "spades.db").start()
    try:
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            assert guesses_from(c, 6) == [401] * 5 + [429]
    finally:
        srv.stop()


# ---------------------------------------------------------------------- finding 7: odd inputs

LONE = "\ud800x"


def send_json(c: TestClient, method: str, path: str, body: Any) -> Any:
    """A JSON request written with escapes (``\\ud800``), as a script may send it."""
    return c.request(method, path, content=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("path", ["/api/tables", "/api/play"])
@pytest.mark.parametrize("level", [["normal"], {"a": 1}, 5])
def test_a_bot_level_that_is_not_a_name_is_refused(site: Callable[..., TestClient], path: str, level: Any) -> None:
    c = site()
    c.get("/api/me")
    r = c.post(path, json={"bot_level": level})
    error = r.json()["error"]
    assert r.status_code == 400 and error["code"] == "bad_level" and "bot_level" in error["reason"]


@pytest.mark.parametrize("bid", ["²", "blind ²", "٣", "1" * 4400])
def test_a_bid_that_is_not_ascii_digits_is_refused_by_the_score_sheet(site: Callable[..., TestClient],
                                                                      bid: str) -> None:
    r = site().post("/api/score", json={"hands": [{"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]},
                                                  {"bids": [3, bid, 3, 3], "tricks": [4, 3, 3, 3]}]})
    error = r.json()["error"]
    assert r.status_code == 422 and error["code"] == "bad_bid", r.text
    assert error["reason"].startswith("hands[1].bids[1]: ") and "is not a bid" in error["reason"]
    assert len(error["reason"]) < 200
    sides = site().post("/api/score", json={"hands": [{"sides": [{"bid": bid, "tricks": 8}, {"bid": 5, "tricks": 5}]}]})
    assert sides.status_code == 422 and sides.json()["error"]["reason"].startswith("hands[0].sides[0].bid: ")
    hand = site().post("/api/score/hand", json={"bids": [bid, 3, 3, 3], "tricks": [4, 3, 3, 3]})
    assert hand.status_code == 422 and hand.json()["error"]["reason"].startswith("bids[0]: ")


def test_a_bid_the_rules_refuse_is_still_a_hand_the_score_sheet_names() -> None:
    """Zero, or a bid over the hand's size, is written as a bid: the sheet scores the hands before it and
    names the hand (200, ``ok: false``), as the score keeper page expects."""
    from spades.web.api import ScoreRequest, score

    for bid in (0, 14, "blind 6"):
        out = score(ScoreRequest(hands=[{"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]},
                                        {"bids": [bid, 3, 3, 3], "tricks": [4, 3, 3, 3]}]))
        assert out["ok"] is False and out["error"]["hand"] == 1 and len(out["hands"]) == 1, (bid, out["error"])


def test_a_number_too_long_to_read_is_refused(site: Callable[..., TestClient]) -> None:
    raw = b'{"hands": [{"bids": [' + b"1" * 4400 + b', 3, 3, 3], "tricks": [4, 3, 3, 3]}]}'
    r = site().post("/api/score", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed" and "too long" in r.text


def test_lone_surrogates_are_refused_naming_the_field(site: Callable[..., TestClient]) -> None:
    c = site()
    c.get("/api/me")
    cases = [("/api/me/name", {"name": LONE}, "name"),
             ("/api/register", {"username": "hana", "password": "pass" + LONE + "word"}, "password"),
             ("/api/register", {"username": LONE + "abc", "password": "long enough"}, "username"),
             ("/api/login", {"username": "hana", "password": LONE * 9}, "password"),
             ("/api/score", {"hands": [{"bids": [LONE, 3, 3, 3], "tricks": [4, 3, 3, 3]}]}, "hands[0].bids[0]"),
             ("/api/replay", {"format": "spades-record/1", "players": ["a", LONE]}, "players[1]")]
    for path, body, field in cases:
        r = send_json(c, "POST", path, body)
        assert r.status_code == 400, (path, r.status_code, r.text)
        assert r.json()["error"]["code"] == "bad_text" and r.json()["error"]["reason"].startswith(field), path
    assert c.get("/api/me").json()["name"] != LONE


def test_score_games_with_lone_surrogates(site: Callable[..., TestClient]) -> None:
    c = site()
    account(c, "ivan")
    game = {"id": "g1", "name": "Friday " + LONE, "updated": 1, "hands": []}
    r = send_json(c, "PUT", "/api/scoregames/g1", {"game": game})
    assert r.status_code == 400 and r.json()["error"]["reason"].startswith("game.name")
    r = send_json(c, "PUT", "/api/scoregames/g1", {"game": {**game, "name": "Friday", "note": LONE}})
    assert r.status_code == 400 and r.json()["error"]["reason"].startswith("game.note")
    assert c.get("/api/scoregames").json()["games"] == []


def test_a_kept_score_game_with_a_lone_surrogate_still_lists(site: Callable[..., TestClient], tmp_path: Path) -> None:
    from spades.storage.sql import open_storage

    c = site()
    account(c, "jack")
    # A game kept before the check, its extra field holding a lone surrogate, must not break the list.
    db = open_storage(f"sqlite:///{tmp_path / 'spades.db'}")
    try:
        db.save_score_game(c.get("/api/me").json()["id"], "g1", "Old game",
                           {"id": "g1", "name": "Old game", "updated": 1, "hands": [], "note": LONE}, 1.0, 200)
    finally:
        db.close()
    r = c.get("/api/scoregames")
    assert r.status_code == 200 and r.json()["games"][0]["game"]["note"] == LONE


def test_serve_names_a_bad_quota_option() -> None:
    from typer.testing import CliRunner

    from spades.cli import app as cli
    from spades.server.cli import parse_quota_options

    assert parse_quota_options(["guests=10/minute;100/hour", "chat=none requests=5/second"]) == (
        {"guests": "10/minute;100/hour", "chat": "none", "requests": "5/second"}, None)
    for bad, said in [("nope=1/second", "unknown quota 'nope'"), ("guests", "NAME=RATE"),
                      ("guests=lots", "quota guests")]:
        r = CliRunner().invoke(cli, ["serve", "--quota", bad])
        assert r.exit_code == 2 and said in r.output, r.output
