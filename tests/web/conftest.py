"""Fixtures for the web tests: the pages served by uvicorn on a free port (a bare FastAPI app with
``mount``), and a headless Debian Chromium driven by Playwright.

Browser tests skip when ``/usr/bin/chromium`` is missing on a developer machine, and fail under
``CI=true`` where it must be installed.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
import uvicorn
from fastapi import FastAPI

from spades.server.socket_protocol import LeanWebSocketProtocol
from spades.web.api import mount

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def web_app() -> FastAPI:
    """A bare application with only the web package mounted."""
    app = FastAPI()
    mount(app)
    return app


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The bare web app in process (``TestClient``), for the HTTP endpoints' tests."""
    with TestClient(web_app()) as c:
        yield c


class LiveServer:
    """uvicorn in a background thread serving ``factory()`` (default: the bare web app)."""

    def __init__(self, factory: Callable[[], FastAPI] = web_app, lifespan: Literal["on", "off"] = "off") -> None:
        self.factory = factory
        self.lifespan = lifespan
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Serve until ``stop``; returns once the port answers."""
        config = uvicorn.Config(self.factory(), host="127.0.0.1", port=self.port, log_level="warning",
                                lifespan=self.lifespan, ws=LeanWebSocketProtocol)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 60  # generous: a loaded machine starts slowly
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop serving (the port then refuses connections)."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            self._server = None


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    """The pages and API on a free local port for the whole session."""
    server = LiveServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def game_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The whole application (``spades.server.create_app``) with the web pages mounted, on a fresh
    SQLite database, bots acting at once."""
    from spades.server.app import create_app
    from spades.server.config import ServerConfig

    db = tmp_path_factory.mktemp("web-db") / "spades.db"

    def factory() -> FastAPI:
        app = create_app(ServerConfig(database_url=f"sqlite:///{db}", bot_delay=0.0, bot_think=0.5,
                                      rate_per_second=200.0, rate_burst=400.0))
        mount(app)
        return app

    server = LiveServer(factory, lifespan="on")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """A headless Chromium for the session (skips without Chromium unless ``CI=true``)."""
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium is missing at /usr/bin/chromium; CI must install it (apt-get install chromium)")
        pytest.skip("Chromium is not installed at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield CspBypassingBrowser(b)
        b.close()


class CspBypassingBrowser:
    """The browser, whose contexts let the tests' own scripts run on the pages (Playwright's
    ``wait_for_function("...")`` evaluates a string, which the site's Content-Security-Policy forbids).
    ``strict`` is the browser itself: tests/web/test_csp.py checks the pages under the real policy there."""

    def __init__(self, strict: Any) -> None:
        self.strict = strict

    def new_context(self, **kw: Any) -> Any:
        kw.setdefault("bypass_csp", True)
        return self.strict.new_context(**kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.strict, name)


# Phone first: most people play on a phone. The desktop run of the same test is marked slow, so the quick
# `pytest` loop runs each browser test once and `./test` runs both sizes.
BOTH_SIZES = ["phone", pytest.param("desktop", marks=pytest.mark.slow)]


@pytest.fixture(params=BOTH_SIZES)
def viewport(request: pytest.FixtureRequest) -> tuple[str, dict[str, int]]:
    """Each browser test runs at a 390x844 phone size and a desktop size (the desktop one marked slow)."""
    name = str(request.param)
    return name, PHONE if name == "phone" else DESKTOP


@pytest.fixture
def page(browser: Any, viewport: tuple[str, dict[str, int]]) -> Iterator[Any]:
    """A fresh browser context (empty storage) and page at the test's viewport; fails on script errors."""
    name, size = viewport
    context = browser.new_context(viewport=size, device_scale_factor=1, is_mobile=name == "phone",
                                  has_touch=name == "phone")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(10_000)
    yield pg
    context.close()
    assert not errors, f"script errors on the page: {errors}"


def finished_record(seed: int = 7) -> dict[str, Any]:
    """A whole game of random computer players as a ``spades-record/1`` (short: 100 points or -100)."""
    from spades.ai.base import make_bot
    from spades.core.game import Game, seeded_shuffler
    from spades.core.record import record_of
    from spades.core.view import view_hand
    from spades.variants import load_rules

    spec = {"preset": "standard", "target": 100, "lose_at": -100}
    game = Game(load_rules(spec), first_dealer=0, shuffler=seeded_shuffler(seed))
    bot = make_bot("random", seed)
    while not game.over:
        game.apply(bot.decide(view_hand(game.hand, game.hand.to_act), tuple(game.totals), None).action)
    return record_of(game, spec, ["Ann", "Bob", "Cy", "Dee"])


STILL = "() => document.getAnimations().every((a) => !a.pending && a.playState !== 'running')"


def wait_still(page: Any, timeout: float = 15_000) -> None:
    """Wait until nothing on the page moves (every animation and transition has finished): a card in
    flight has landed, however slowly a loaded machine draws it."""
    page.wait_for_function(STILL, timeout=timeout)


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under artifacts/screenshots/ and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A browser test costs seconds of Chromium: the quick ``pytest`` loop keeps those marked ``smoke`` (a
    whole game against the computer) and leaves the rest to ``./test``."""
    for item in items:
        if "tests/web/" in str(item.fspath) and "browser" in getattr(item, "fixturenames", ()) \
                and item.get_closest_marker("smoke") is None:
            item.add_marker(pytest.mark.slow)
