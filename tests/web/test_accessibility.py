"""axe-core (through axe-playwright-python) on every page of the site, at a phone's size and a desktop's:
no serious or critical violation. The table is checked in each phase a player meets: bidding, passing
cards to a partner, the dealer's discard, playing, and the end of the game (slow), then the replay and the
player's page of that game."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import LiveServer

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}

PAGES = [("/", "home"), ("/score.html", "score"), ("/rules.html", "rules"), ("/replay.html", "replay"),
         ("/verify.html", "verify"), ("/lab.html", "lab"), ("/cards.html", "cards"), ("/player.html", "player")]


def serious(page: Any) -> list[str]:
    """The serious and critical violations axe-core finds on the page, one line each (rule, where)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    found = []
    for v in results.response["violations"]:
        if v.get("impact") in ("serious", "critical"):
            targets = [str(n.get("target")) for n in v["nodes"][:4]]
            found.append(f"{v['id']} ({v['impact']}): {v['help']} at {targets}")
    return found


@pytest.fixture(params=["phone", pytest.param("desktop", marks=pytest.mark.slow)])
def sized(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """A fresh page at a phone's or a desktop's size."""
    name = str(request.param)
    context = browser.new_context(viewport=SIZES[name], is_mobile=name == "phone", has_touch=name == "phone")
    page = context.new_page()
    page.set_default_timeout(30_000)  # the machine is shared: a slow answer is not a failure
    yield page
    context.close()



@pytest.mark.parametrize(("path", "ready"), PAGES)
def test_pages_have_no_serious_violations(sized: Any, game_server: LiveServer, path: str, ready: str) -> None:
    sized.goto(f"{game_server.url}{path}")
    sized.wait_for_selector(f"html[data-ready={ready}]", state="attached")
    sized.wait_for_load_state("networkidle")  # the lab fills its tables from the server after it is ready
    assert serious(sized) == []


def open_table(page: Any, server: LiveServer, rules: Any, level: str = "random") -> str:
    page.goto(f"{server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    made = page.evaluate("""([rules, level]) => fetch('/api/play', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: JSON.stringify({rules, bot_level: level})})
        .then(r => r.json())""", [rules, level])
    page.goto(f"{server.url}/table.html?id={made['id']}&invite={made['invite']}")
    page.wait_for_selector("html[data-ready=table]", state="attached")
    return str(made["id"])


def test_table_bidding_passing_and_playing(sized: Any, game_server: LiveServer) -> None:
    page = sized
    # A nil bid with a two-card exchange: bidding, then passing, then play.
    open_table(page, game_server, {"preset": "standard", "nil_pass": 2})
    page.wait_for_selector("#action-buttons [data-bid='nil']")
    assert serious(page) == [], "bidding"
    page.click("#action-buttons [data-bid='nil']")
    page.wait_for_selector("#confirm-cards")
    assert serious(page) == [], "passing"
    for _ in range(2):
        page.locator("#hand-cards button[aria-pressed=false]").first.click(position={"x": 6, "y": 24})
    page.click("#confirm-cards")
    page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]")
    assert serious(page) == [], "playing"


def test_table_discard(sized: Any, game_server: LiveServer) -> None:
    open_table(sized, game_server, "jokers-54")
    sized.wait_for_selector("#confirm-cards")
    assert serious(sized) == []


@pytest.mark.slow
def test_table_game_over_and_its_replay(sized: Any, game_server: LiveServer) -> None:
    page = sized
    table = open_table(page, game_server, {"preset": "standard", "target": 50, "lose_at": -10})
    deadline = time.monotonic() + 120
    while not page.is_visible("#game-over"):
        assert time.monotonic() < deadline, "the game did not end in time"
        page.evaluate("""() => {
            const b = document.querySelector('#action-buttons [data-bid]:not(.blind)')
                || document.querySelector('#hand-cards button.hand-card[aria-disabled=false]');
            if (b) b.click();
        }""")
        page.wait_for_timeout(60)
    assert serious(page) == [], "game over"
    page.goto(f"{game_server.url}/replay.html?table={table}")
    page.wait_for_selector("#replay:not([hidden])")
    assert serious(page) == [], "replay"
    page.goto(f"{game_server.url}/player.html")  # the player's page with a finished game on it
    page.wait_for_selector("html[data-ready=player]", state="attached")
    assert serious(page) == [], "player"
