"""The HTTP half of the site under attack (issue 15): forged requests, security headers, quotas, accounts and
odd inputs, each against the whole application (``create_app`` with the pages mounted) in process."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from spades.server.app import create_app
from spades.server.config import ServerConfig
from spades.web.api import mount

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

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
