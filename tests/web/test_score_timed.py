"""A timed game in the score keeper (time_limit_minutes): the game clock, the "time ran out during this
hand" box, the end of the game with the leader winning, a tie that goes on, editing and undoing, and no
box in an untimed game.

The page reads its clock through ``window.spadesNow`` when a test sets it; here it is the real time plus
a shift kept in localStorage (``test.clockShift``, in minutes), so a test moves the clock on without
waiting and the shift survives a reload.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from .conftest import LiveServer, screenshot
from .test_score_keeper import HAND_1, HAND_2, enter_hand, new_game, totals

CLOCK = """window.spadesNow = () => Date.now() + 60000 * Number(localStorage.getItem('test.clockShift') || 0);"""
TIED = ([4, 4, 4, 4], [3, 3, 3, 4])  # each side bids 8 and is set (6 and 7 tricks): -80 each
NORTH_AHEAD = ([3, 3, 3, 3], [4, 3, 4, 2])  # N/S take 8 of 6 (+62), E/W take 5 of 6 (-60)


def new_timed_game(page: Any, server: LiveServer, minutes: int = 30, name: str = "Timed") -> None:
    page.add_init_script(CLOCK)
    page.goto(f"{server.url}/score.html#new")
    page.wait_for_selector("#opt-length", state="attached")
    page.fill("#game-name", name)
    page.select_option("#opt-length", "timed")  # the game length: timed, with its minutes
    page.wait_for_selector("#opt-minutes", state="visible")
    page.fill("#opt-minutes", str(minutes))
    page.dispatch_event("#opt-minutes", "change")
    # The controls are drawn again once the server has checked the rules (the count changes before).
    page.wait_for_function(f"document.getElementById('rules-status')?.textContent.includes('timed, {minutes} minutes')")
    page.wait_for_function("document.getElementById('start-game')?.disabled === false")
    page.click("#start-game")
    page.wait_for_selector("#bid-0")


def shift_clock(page: Any, minutes: int) -> None:
    page.evaluate("m => localStorage.setItem('test.clockShift', String(m))", minutes)


def stored_game(page: Any) -> dict[str, Any]:
    store = json.loads(page.evaluate("localStorage.getItem('spades.scorekeeper.v1')"))
    assert len(store["games"]) == 1
    game: dict[str, Any] = store["games"][0]
    return game


def fill_hand(page: Any, bids: list[Any], tricks: list[int]) -> None:
    for seat, (bid, took) in enumerate(zip(bids, tricks, strict=True)):
        page.select_option(f"#bid-{seat}", str(bid))
        page.fill(f"#tricks-{seat}", str(took))


@pytest.mark.slow
def test_time_up_ends_the_game_and_the_leader_wins(page: Any, live_server: LiveServer,
                                                   viewport: tuple[str, dict[str, int]]) -> None:
    new_timed_game(page, live_server)
    assert "Timed game (minutes): 30" in page.text_content("#game-rules")
    assert page.get_attribute("#game-clock", "data-left") == "30"
    assert "Time left: 30 min of 30" in page.text_content("#clock-text")
    assert page.is_visible("#time-up-row") and not page.is_checked("#time-up")
    assert page.is_visible("#restart-clock")  # until the first hand: for a game set up ahead of time
    enter_hand(page, *HAND_1)
    assert totals(page) == ["53", "-160"]
    assert not page.is_visible("#restart-clock")
    assert page.text_content("#time-result") == ""

    # Twenty minutes on, ten are left; past thirty the box of the hand being played ticks itself.
    shift_clock(page, 20)
    page.wait_for_selector("#game-clock[data-left='10']")
    assert not page.is_checked("#time-up")
    shift_clock(page, 31)
    page.wait_for_selector("#time-up:checked")
    assert "Time is up" in page.text_content("#clock-text")
    screenshot(page, f"score-keeper-timed-up-{viewport[0]}")
    enter_hand(page, *HAND_2)  # N/S 107, E/W -120: the leader wins when the time ran out
    page.wait_for_function("document.getElementById('time-result')?.textContent.includes('Game over')")
    assert page.text_content("#time-result") == "Time ran out in hand 2. Game over: North & South win, 107 to -120."
    assert totals(page) == ["107", "-120"]
    assert "wins!" in page.text_content("#totals [data-side='0']")
    assert page.is_hidden("#hand-form")
    assert page.is_visible("[data-testid=hand-1-time-up]")
    assert page.locator("[data-testid=hand-0-time-up]").count() == 0
    assert "ran out in hand 2" in page.text_content("#clock-text")
    hands = stored_game(page)["hands"]
    assert hands[1]["time_up"] is True and "time_up" not in hands[0]
    screenshot(page, f"score-keeper-timed-over-{viewport[0]}")

    # Undo takes the time-up hand back: the game goes on and the box is ticked again (the clock is up).
    page.click("#undo-hand")
    page.wait_for_selector("#hand-form", state="visible")
    page.wait_for_function("document.getElementById('time-result')?.textContent === ''")
    assert page.is_checked("#time-up")
    page.click("#redo-hand")
    page.wait_for_function("document.getElementById('time-result')?.textContent.includes('North & South win')")
    assert page.is_hidden("#hand-form")

    # Editing the hand shows the box as entered; unticked, the game goes on after it.
    page.click("button[aria-label='Edit hand 2']")
    assert page.is_checked("#time-up")
    page.uncheck("#time-up")
    page.click("#add-hand")
    page.wait_for_function("document.getElementById('time-result')?.textContent === ''")
    page.wait_for_selector("#hand-form", state="visible")
    assert page.text_content("#hand-title") == "Hand 3"
    assert "time_up" not in stored_game(page)["hands"][1]
    assert page.locator("[data-testid=hand-1-time-up]").count() == 0
    page.wait_for_selector("#time-up:checked")  # the clock is still up for the next hand

    # Ticking it on hand 1 would end the game before hand 2: refused in words, nothing changed.
    page.click("button[aria-label='Edit hand 1']")
    assert not page.is_checked("#time-up")
    page.check("#time-up")
    page.click("#add-hand")
    page.wait_for_function("document.getElementById('hand-error')?.textContent.includes('later hand')")
    assert "game is over after hand 1, but 1 later hand is entered" in page.text_content("#hand-error")
    assert not any("time_up" in h for h in stored_game(page)["hands"])
    page.click("#cancel-edit")
    assert page.text_content("#time-result") == ""

    # After a reload the clock and the hands are as they were.
    page.reload()
    page.wait_for_selector("[data-testid=hand-1-total-0]")
    assert "Time is up" in page.text_content("#clock-text")
    assert page.is_checked("#time-up")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_a_tie_when_the_time_runs_out_goes_on_to_the_next_hand(page: Any, live_server: LiveServer) -> None:
    new_timed_game(page, live_server, minutes=45)
    # The clock is not up, but the players say the time ran out (their own watch): tick the box by hand.
    assert not page.is_checked("#time-up")
    fill_hand(page, *TIED)
    page.check("#time-up")
    page.click("#add-hand")
    page.wait_for_function("document.getElementById('time-result')?.textContent.includes('tied')")
    assert "North & South and East & West are tied at -80: the game goes on" in page.text_content("#time-result")
    assert page.is_visible("#hand-form") and page.is_hidden("#time-up-row")
    assert "this hand unless the lead is still tied" in page.text_content("#time-up-note")
    screenshot(page, "score-keeper-timed-tie-phone")

    # Another tie goes on again; the first hand that leaves one side ahead ends the game.
    enter_hand(page, *TIED)
    page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '-160'")
    assert "tied at -160" in page.text_content("#time-result") and page.is_visible("#hand-form")
    assert not any("time_up" in h for h in stored_game(page)["hands"][1:])

    # A refusal from the server is shown in its words and changes nothing.
    page.route("**/api/score", lambda route: route.fulfill(
        status=400, content_type="application/json",
        body=json.dumps({"error": {"code": "bad_request", "reason": "the score sheet is closed for repairs"}})))
    fill_hand(page, *NORTH_AHEAD)
    page.click("#add-hand")
    page.wait_for_function("document.getElementById('hand-error')?.textContent.includes('closed for repairs')")
    assert page.locator("#sheet-body tr[data-hand]").count() == 2 and len(stored_game(page)["hands"]) == 2
    page.unroute("**/api/score")
    page.click("#add-hand")
    page.wait_for_function("document.getElementById('time-result')?.textContent.includes('Game over')")
    assert page.text_content("#time-result") == "Time ran out in hand 1. Game over: North & South win, -98 to -220."
    assert page.is_hidden("#hand-form")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_an_untimed_game_has_no_clock_and_no_time_up_box(page: Any, live_server: LiveServer) -> None:
    page.add_init_script(CLOCK)
    new_game(page, live_server)
    shift_clock(page, 24 * 60)
    page.wait_for_timeout(1200)  # a tick of the page's clock: it must still show nothing
    assert page.is_hidden("#game-clock") and page.is_hidden("#time-up-row")
    assert page.locator("#time-up:checked").count() == 0
    enter_hand(page, *HAND_1)
    assert totals(page) == ["53", "-160"]
    assert page.is_hidden("#time-up-row") and page.text_content("#time-result") == ""
    assert "time_up" not in stored_game(page)["hands"][0]


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_a_timed_game_saved_before_the_clock_runs_from_its_creation(page: Any, live_server: LiveServer) -> None:
    """A game kept by an earlier version: no clockStarted, no time_limit_minutes in its layout."""
    created = int(time.time() * 1000) - 40 * 60000
    layout = {"players": 4, "partnerships": True, "sides": [[0, 2], [1, 3]], "hand_size": 13,
              "first_hand_bids": True, "blind_nil": False, "blind_bids": False, "blind_bid_min": 6,
              "blind_behind": 100, "target": 500, "two_decks": False, "deck_size": 52, "top_trumps": []}
    game = {"id": "gold1", "name": "Old timed", "created": created, "updated": created, "preset": "standard",
            "overrides": {"time_limit_minutes": 30}, "layout": layout,
            "names": ["North", "East", "South", "West"], "hands": [], "scored": None, "scoredKey": None}
    # Kept before the page's first script runs (a page already open would save its own copy over it).
    page.add_init_script("localStorage.getItem('spades.scorekeeper.v1') || localStorage.setItem("
                         f"'spades.scorekeeper.v1', JSON.stringify({{games: [{json.dumps(game)}]}}))")
    page.goto(f"{live_server.url}/score.html#game-gold1")
    page.wait_for_selector("#bid-0")
    assert "Time is up: 30 min since" in page.text_content("#clock-text")
    assert page.is_checked("#time-up")
    # Starting the clock again (the game was set up ahead of time) gives the whole half hour back.
    page.click("#restart-clock")
    page.wait_for_selector("#game-clock[data-left='30']")
    assert not page.is_checked("#time-up")
    assert stored_game(page)["clockStarted"] > created
