""""Review my game" in the browser: a short game played on the table page, reviewed from its game-over
screen on the replay page (queue, progress, summary, marks on the timeline); an uploaded record reviewed
for a chosen seat. Phone and desktop."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer, finished_record, screenshot
from .test_table import start_game, take_turn


def play_to_the_end(page: Any) -> None:
    deadline = time.monotonic() + 150
    while not page.is_visible("#game-over"):
        assert time.monotonic() < deadline, "the game did not end in time"
        if take_turn(page) is None:
            page.wait_for_timeout(40)


def check_marks(page: Any, review: dict[str, Any], name: str) -> None:
    """Every hand's flagged decisions are listed; a flagged card shows the better card beside it."""
    flagged = [d for d in review["decisions"] if d["label"] != "fine"]
    by_hand: dict[int, int] = {}
    for d in flagged:
        by_hand[d["hand"]] = by_hand.get(d["hand"], 0) + 1
    tabs = page.locator("#hand-tabs button")
    for hand in range(tabs.count()):
        tabs.nth(hand).click()
        page.wait_for_selector("#review-marks h3, #review-marks p")
        assert page.locator("#review-marks .review-mark").count() == by_hand.get(hand, 0)
    card = next((d for d in flagged if "trick" in d), None)
    if card is not None:
        tabs.nth(card["hand"]).click()
        mark = f".review-mark[data-hand='{card['hand']}'][data-trick='{card['trick']}']"
        page.locator(f"#review-marks {mark} button").click()
        page.wait_for_selector("#replay-trick figure.flagged")
        assert page.locator("[data-testid=better-card]").count() == 1
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        screenshot(page, f"review-marks-{name}")


@pytest.mark.slow
def test_review_my_game_from_the_game_over_screen(page: Any, game_server: LiveServer,
                                                  viewport: tuple[str, dict[str, int]]) -> None:
    name = viewport[0]
    tid = start_game(page, game_server, rules={"preset": "standard", "target": 50, "lose_at": -10})
    play_to_the_end(page)
    page.wait_for_selector("#review-game")
    page.locator("#game-over").scroll_into_view_if_needed()
    screenshot(page, f"review-game-over-{name}")
    assert page.get_attribute("#review-game", "href") == f"/replay.html?table={tid}&review=1"
    page.click("#review-game")
    page.wait_for_selector("#replay:not([hidden])")
    # The review starts at once: the queue place or the progress shows while it runs.
    page.wait_for_function("document.getElementById('review-status')?.textContent.length > 0"
                           " || document.querySelector('[data-testid=review-summary]')")
    status = page.text_content("#review-status")
    assert ("queue" in status or "Reviewing" in status or "Asking" in status
            or page.locator("[data-testid=review-summary]").count() == 1)
    page.wait_for_selector("[data-testid=review-summary]", timeout=150_000)
    summary = page.text_content("[data-testid=review-summary]")
    assert "decisions reviewed" in summary and "Points lost" in summary
    assert page.locator("#review-seat-row").is_hidden()  # the server reviews the seat the player played
    screenshot(page, f"review-summary-{name}")
    review = page.evaluate(f"fetch('/api/tables/{tid}/review').then(r => r.json())")
    assert review["state"] == "done" and review["review"]["seat"] == 0
    check_marks(page, review["review"], name)
    # Opening the replay again shows the stored review without asking for a new one.
    page.goto(f"{game_server.url}/replay.html?table={tid}")
    page.wait_for_selector("[data-testid=review-summary]")
    assert page.is_disabled("#review-start")


@pytest.mark.slow
@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_review_an_uploaded_record_for_any_seat(page: Any, game_server: LiveServer, tmp_path: Path) -> None:
    record = finished_record(seed=11)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    page.goto(f"{game_server.url}/replay.html")
    page.wait_for_selector("html[data-ready=replay]", state="attached")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#review-panel:not([hidden])")
    assert page.locator("#review-seat option").count() == 4
    page.select_option("#review-seat", "2")
    page.click("#review-start")
    page.wait_for_selector("[data-testid=review-summary]", timeout=150_000)
    assert page.text_content("[data-testid=review-summary]").startswith("Cy:")
