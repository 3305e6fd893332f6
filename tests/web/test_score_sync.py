"""Score-keeper games kept with an account: two browsers signed in as the same player share a game
(hands added on either, one entered offline, a deletion), and nobody else sees it."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE, LiveServer, screenshot
from .test_score_keeper import HAND_1, HAND_2, HAND_3, enter_hand, new_game


def sign(page: Any, server: LiveServer, path: str, user: str) -> None:
    page.goto(f"{server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    answer = page.evaluate("""([path, user]) => fetch(path, {method: 'POST', headers: {'Content-Type':
        'application/json'}, body: JSON.stringify({username: user, password: 'a long password'})})
        .then(r => r.status)""", [path, user])
    assert answer == 200


def server_games(page: Any) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = page.evaluate("fetch('/api/scoregames').then(r => r.json()).then(d => d.games)")
    return games


def wait_server(page: Any, check: Any, what: str) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 30  # a loaded machine answers slowly
    while True:
        games = server_games(page)
        if check(games):
            return games
        assert time.monotonic() < deadline, f"the server never had {what}: {games}"
        page.wait_for_timeout(100)


def open_score(page: Any, server: LiveServer, suffix: str = "") -> None:
    page.goto(f"{server.url}/score.html{suffix}")
    page.reload()  # a new visit, even when only the fragment differs from the page already open
    page.wait_for_selector("html[data-synced]", state="attached")


@pytest.mark.slow
@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_games_follow_the_account(page: Any, browser: Any, game_server: LiveServer) -> None:
    user = f"kt{int(time.time() * 1000) % 10**8}"
    sign(page, game_server, "/api/register", user)
    open_score(page, game_server)
    assert user in page.text_content("#sync-status")
    new_game(page, game_server, name="Shared")
    enter_hand(page, *HAND_1)
    games = wait_server(page, lambda g: len(g) == 1 and len(g[0]["game"]["hands"]) == 1, "the first hand")
    gid = games[0]["id"]
    assert "scored" not in games[0]["game"]

    other = browser.new_context(viewport=DESKTOP)
    try:
        two = other.new_page()
        sign(two, game_server, "/api/login", user)
        open_score(two, game_server)
        two.wait_for_selector("#game-list li")
        assert "Shared" in two.text_content("#game-list")
        # The game came without scores: the server scores it for the list.
        two.wait_for_function("document.getElementById('game-list')?.textContent.includes('North & South 53')")
        two.click("text=Shared")
        two.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '53'")
        enter_hand(two, *HAND_2)
        wait_server(two, lambda g: len(g[0]["game"]["hands"]) == 2, "the second hand")

        # The first browser gets the hand added on the other one.
        open_score(page, game_server, f"#game-{gid}")
        page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '107'")
        # A hand entered offline stays on the device and reaches the account when the server is back.
        page.context.set_offline(True)
        enter_hand(page, *HAND_3)
        page.context.set_offline(False)
        page.evaluate("window.dispatchEvent(new Event('online'))")
        wait_server(page, lambda g: len(g[0]["game"]["hands"]) == 3, "the hand entered offline")
        page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '50'")
        screenshot(page, "score-keeper-synced-phone")

        # Deleted on one browser, gone from the other at its next look.
        two.goto(f"{game_server.url}/score.html#game-{gid}")
        two.wait_for_selector("#delete-game")
        two.once("dialog", lambda d: d.accept())
        two.click("#delete-game")
        wait_server(two, lambda g: g == [], "the game deleted")
        open_score(page, game_server)
        page.wait_for_function("document.querySelectorAll('#game-list li').length === 0")
        assert page.is_visible("#no-games")
    finally:
        other.close()

    # Someone else (a guest) sees none of it and is told how to keep games on the server.
    guest = browser.new_context(viewport=PHONE)
    try:
        three = guest.new_page()
        open_score(three, game_server)
        assert "Sign in" in three.text_content("#sync-status")
        assert three.evaluate("fetch('/api/scoregames').then(r => r.status)") == 403
    finally:
        guest.close()


@pytest.mark.slow
@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_a_timed_game_keeps_its_clock_and_time_up_with_the_account(page: Any, browser: Any,
                                                                   game_server: LiveServer) -> None:
    from .test_score_timed import new_timed_game

    user = f"tm{int(time.time() * 1000) % 10**8}"
    sign(page, game_server, "/api/register", user)
    open_score(page, game_server)
    new_timed_game(page, game_server, name="Timed shared")
    page.click("#restart-clock")
    wait_server(page, lambda g: len(g) == 1 and "clockStarted" in g[0]["game"], "the clock's start")
    for seat, (bid, took) in enumerate(zip(*HAND_1, strict=True)):
        page.select_option(f"#bid-{seat}", str(bid))
        page.fill(f"#tricks-{seat}", str(took))
    page.check("#time-up")
    page.click("#add-hand")
    games = wait_server(page, lambda g: len(g[0]["game"]["hands"]) == 1, "the time-up hand")
    assert games[0]["game"]["hands"][0]["time_up"] is True

    other = browser.new_context(viewport=DESKTOP)
    try:
        two = other.new_page()
        sign(two, game_server, "/api/login", user)
        open_score(two, game_server, f"#game-{games[0]['id']}")
        two.wait_for_function("document.getElementById('time-result')?.textContent.includes('Game over')")
        assert "North & South win, 53 to -160" in two.text_content("#time-result")
        assert two.is_hidden("#hand-form")
    finally:
        other.close()
