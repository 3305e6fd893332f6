"""The rules page, the home page and the cards in a real browser, at phone and desktop sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from spades.core.rules import OPTIONS
from spades.variants import PRESETS

from .conftest import LiveServer, finished_record, screenshot


def test_rules_page_links_every_house_rule(page: Any, live_server: LiveServer,
                                           viewport: tuple[str, dict[str, int]]) -> None:
    page.goto(f"{live_server.url}/rules.html#opt-nil_points")
    page.wait_for_selector("html[data-ready=rules]", state="attached")
    # Every option and every preset has its anchor, generated from /api/rules.
    ids = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
    assert {f"opt-{name}" for name in OPTIONS} <= ids
    assert {f"preset-{name}" for name in PRESETS} <= ids
    # Every in-page link resolves, and the prose links to the options by name.
    hrefs = page.eval_on_selector_all("a[href^='#']", "els => els.map(e => e.getAttribute('href'))")
    assert all(h[1:] in ids for h in hrefs), [h for h in hrefs if h[1:] not in ids]
    prose = page.eval_on_selector_all("article a[href^='#opt-']", "els => els.map(e => e.getAttribute('href'))")
    assert len(set(prose)) >= 25
    # The anchor in the address is scrolled to once the list exists.
    assert page.evaluate("Math.abs(document.getElementById('opt-nil_points').getBoundingClientRect().top) < 50")
    assert "50" in page.text_content("#opt-nil_points")
    six = page.text_content("#sizes-body")
    assert "102 from two packs" in six and "17" in six
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, f"rules-{viewport[0]}")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_home_and_cards(page: Any, live_server: LiveServer) -> None:
    page.goto(f"{live_server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    assert page.locator("#hero-cards svg").count() == 5
    page.click("text=See the cards")
    page.wait_for_selector("html[data-ready=cards]", state="attached")
    labels = page.eval_on_selector_all("#gallery svg[role=img]", "els => els.map(e => e.getAttribute('aria-label'))")
    assert "ace of spades" in labels and "ten of diamonds" in labels
    assert "big joker" in labels and "little joker" in labels
    assert "ace of spades, second pack" in labels and "face-down card" in labels
    assert len(labels) == 52 + 7
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # Sorting a hand: clubs, diamonds, spades (top trumps first), hearts, each high to low.
    order = page.evaluate("""async () => {
        const { sortHand } = await import('/js/cards.js');
        return sortHand(['2H', 'AS', '3C', 'BJ', 'KD', 'AC', '2S', 'TH'], ['BJ', 'LJ', '2S']);
    }""")
    assert order == ["AC", "3C", "KD", "BJ", "2S", "AS", "TH", "2H"]
    screenshot(page, "cards-phone")


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_keyboard_reaches_the_score_keeper(page: Any, live_server: LiveServer) -> None:
    page.goto(f"{live_server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    for _ in range(3):
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "/score.html"
    page.keyboard.press("Enter")
    page.wait_for_selector("html[data-ready=score]", state="attached")
    assert page.url.endswith("/score.html")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_replay_steps_through_a_record(page: Any, live_server: LiveServer, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(finished_record()))
    page.goto(f"{live_server.url}/replay.html")
    page.wait_for_selector("html[data-ready=replay]", state="attached")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#replay:not([hidden])")
    assert page.text_content("#replay-title") == "Ann & Cy vs Bob & Dee"
    counts = page.eval_on_selector_all(".replay-seat", "els => els.map(e => e.querySelectorAll('svg').length)")
    assert counts == [13, 13, 13, 13]
    page.click("#step-next")
    assert page.text_content("#step-label") == "Trick 1 of 13"
    assert page.locator("#replay-trick svg").count() == 4
    counts = page.eval_on_selector_all(".replay-seat", "els => els.map(e => e.querySelectorAll('svg').length)")
    assert counts == [12, 12, 12, 12]
    page.keyboard.press("ArrowRight")
    assert page.text_content("#step-label") == "Trick 2 of 13"
    page.click("#step-last")
    assert page.locator(".replay-seat svg").count() == 0
    assert "contract" in page.text_content("#replay-score") or "nil" in page.text_content("#replay-score")
    screenshot(page, "replay-phone")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_home_buttons_wait_for_their_handlers(page: Any, game_server: LiveServer) -> None:
    # While the page still loads the levels, a click on "Play now" or "Create the table" would submit the
    # form natively and just reload the home page; both buttons stay disabled until they can act.
    held: list[Any] = []
    page.route("**/api/levels", lambda route: held.append(route))
    page.goto(f"{game_server.url}/")
    page.wait_for_function("document.getElementById('online') && !document.getElementById('online')?.hidden")
    assert page.is_disabled("#play-now") and page.is_disabled("#create-table")
    assert held, "the page asked for the levels"
    held[0].continue_()
    page.wait_for_selector("#play-now:not([disabled])")
    page.wait_for_selector("#create-table:not([disabled])")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_replay_says_1_bag(page: Any, live_server: LiveServer, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(finished_record(4)))  # seed 4: the first hand leaves one side 1 bag
    page.goto(f"{live_server.url}/replay.html")
    page.wait_for_selector("html[data-ready=replay]", state="attached")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#replay:not([hidden])")
    page.click("#step-last")
    page.wait_for_selector("#replay-score li")
    text = page.text_content("#replay-score") or ""
    assert "1 bag)" in text and "1 bags" not in text, text
