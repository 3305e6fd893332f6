"""Every page works under the site's Content-Security-Policy (no inline script or style): Chromium with the
policy enforced (``browser.strict``, not the tests' CSP-bypassing contexts) logs no violation and no error."""

from __future__ import annotations

from typing import Any

import pytest

from spades.web.api import STATIC_DIR

from .conftest import DESKTOP, LiveServer, screenshot

PAGES = sorted(p.name for p in STATIC_DIR.glob("*.html"))


def watch(page: Any) -> list[str]:
    """Console errors and warnings (Chromium reports every CSP violation there) and page errors."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: seen.append(f"pageerror: {e}"))
    return seen


def test_the_page_list_is_every_page() -> None:
    assert {"index.html", "table.html", "score.html", "verify.html", "replay.html", "rules.html"} <= set(PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_each_page_runs_under_the_policy(browser: Any, game_server: LiveServer, name: str) -> None:
    context = browser.strict.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        seen = watch(page)
        page.goto(f"{game_server.url}/")  # the home page makes the session
        page.wait_for_selector("html[data-ready=home]", state="attached")
        path = f"/{name}"
        if name == "table.html":  # a real game against the computer, dealt and waiting for this player
            made = page.evaluate("""() => fetch('/api/play', {method: 'POST', headers: {'Content-Type':
                'application/json'}, body: JSON.stringify({bot_level: 'random'})}).then(r => r.json())""")
            path = f"/table.html?id={made['id']}&invite={made['invite']}"
        page.goto(game_server.url + path)
        ready = name.removesuffix(".html").replace("index", "home")
        page.wait_for_selector(f"html[data-ready={ready}]", state="attached", timeout=60_000)  # the lab computes
        if name == "table.html":
            page.wait_for_selector("#hand-cards button")
            page.wait_for_selector(".seat-box[data-seat='2']")
            screenshot(page, "table-under-csp")
        page.wait_for_load_state("networkidle", timeout=60_000)  # the lab fetches as it computes: slow under load
        header = page.evaluate("() => fetch(location.href).then(r => r.headers.get('content-security-policy'))")
        assert header and "script-src 'self'" in header
        assert seen == [], f"{name}: {seen}"
    finally:
        context.close()
