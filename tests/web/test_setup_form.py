"""Setting up a game in plain words: the home page's setup form (Play now and Create a table) and the
score keeper's New game share one form, with the game length, the first house rules as toggles and every
other rule grouped under "More house rules"; what is chosen reaches the table that is made."""

from __future__ import annotations

from typing import Any

from .conftest import LiveServer, screenshot


def keep_answers(page: Any, pattern: str) -> list[dict[str, Any]]:
    """The JSON answers to requests matching ``pattern``, kept before the page navigates away."""
    kept: list[dict[str, Any]] = []

    def handle(route: Any) -> None:
        response = route.fetch()
        kept.append(response.json())
        route.fulfill(response=response)

    page.route(pattern, handle)
    return kept


def open_more(page: Any, prefix: str) -> None:
    page.click(f"#{prefix}more > summary")
    for group in page.locator(f"#{prefix}more details.rule-group > summary").all():
        group.click()


def test_play_now_takes_length_level_and_house_rules(page: Any, game_server: LiveServer,
                                                     viewport: tuple[str, dict[str, int]]) -> None:
    page.goto(f"{game_server.url}/")
    page.wait_for_selector("#play-now:not([disabled])")
    # Only the levels for people; plain labels, not code names, with the code name small beside.
    assert page.eval_on_selector_all("#play-level option", "els => els.map(e => e.value)") == [
        "easy", "normal", "expert"]
    quick = page.eval_on_selector_all(".quick-rules label", "els => els.map(e => e.textContent.trim())")
    assert quick == ["Nil is worth", "Blind nil", "Blind nil is worth", "Nil card exchange", "Bag penalty",
                     "Spades may be led any time"]
    assert page.text_content("[data-option=nil_pass] code") == "nil_pass"
    assert page.eval_on_selector_all("#setup-nil_pass option", "els => els.map(e => e.textContent)")[:2] == [
        "none", "1 card"]
    # Grouped, each with a plain label; choice values in words (no left_of_dealer, no false).
    groups = page.eval_on_selector_all("#setup-more details.rule-group > summary",
                                       "els => els.map(e => e.textContent.trim())")
    assert groups == ["Bidding", "Nil and blind nil", "Play of the cards", "Scoring and game end", "Table and deck"]
    assert not page.is_visible("#setup-first_bidder")
    open_more(page, "setup-")
    assert page.is_visible("#setup-first_bidder")
    texts = page.eval_on_selector_all("#setup-more select option", "els => els.map(e => e.textContent)")
    assert "the player left of the dealer" in texts
    assert not any("_" in t or t in ("true", "false") for t in texts)
    screenshot(page, f"setup-more-{viewport[0]}")
    page.click("#setup-more > summary")  # close it again

    page.select_option("#setup-length", "300")
    page.select_option("#play-level", "expert")
    page.select_option("#setup-nil_pass", "2")
    page.check("#setup-spades_lead")
    page.uncheck("#setup-blind_nil")
    page.wait_for_function("document.getElementById('play-status')?.textContent.includes('game to 300')")
    page.wait_for_selector("#setup-blind_nil_points", state="hidden")  # no blind nil: its value does not matter
    screenshot(page, f"setup-home-{viewport[0]}")
    answers = keep_answers(page, "**/api/play")
    page.click("#play-now")
    page.wait_for_selector("html[data-ready=table]", state="attached")
    made = answers[0]["table"]
    assert made["bot_level"] == "expert"
    assert made["rules"] == {"preset": "standard", "target": 300, "nil_pass": 2, "spades_lead": "any_time",
                             "blind_nil": False}


def test_a_timed_table_for_friends(page: Any, game_server: LiveServer) -> None:
    page.goto(f"{game_server.url}/")
    page.wait_for_selector("#create-table:not([disabled])")
    assert page.is_hidden("#setup-minutes")
    page.select_option("#setup-length", "timed")
    page.wait_for_selector("#setup-minutes", state="visible")
    page.fill("#setup-minutes", "45")
    page.dispatch_event("#setup-minutes", "change")
    page.wait_for_function("document.getElementById('play-status')?.textContent.includes('timed, 45 minutes')")
    open_more(page, "setup-")
    page.check("#setup-team_bidding")
    page.wait_for_function("document.querySelector('[data-group-count=bidding]')?.textContent === '(1 changed)'")
    answers = keep_answers(page, "**/api/tables")
    page.click("#create-table")
    page.wait_for_selector("html[data-ready=table]", state="attached")
    made = answers[0]["table"]
    assert made["rules"] == {"preset": "standard", "time_limit_minutes": 45, "team_bidding": True}
    assert made["bot_level"] == "normal"


def test_the_score_keeper_uses_the_same_form(page: Any, live_server: LiveServer) -> None:
    page.goto(f"{live_server.url}/score.html#new")
    page.wait_for_selector("#start-game:not([disabled])")
    # The form draws its rules after the button is enabled: wait for them before counting.
    page.wait_for_function("document.querySelectorAll('#option-grid .quick-rules [data-option]').length >= 6")
    assert page.locator("#option-grid .quick-rules [data-option]").count() == 6
    page.select_option("#opt-length", "300")
    page.wait_for_function("document.getElementById('rules-status')?.textContent.includes('game to 300')")
    page.fill("#opt-nil_points", "50")
    page.dispatch_event("#opt-nil_points", "change")
    page.wait_for_function("document.getElementById('override-count')?.textContent === '(2 changed)'")
    page.click("#start-game")
    page.wait_for_selector("#bid-0")
    rules = page.text_content("#game-rules")
    assert "game to 300" in rules and "Nil is worth: 50" in rules
