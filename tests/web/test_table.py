"""The table page against the real server (``create_app`` with the pages mounted) in a real browser: a
whole game against the computer, chat shown as text, reconnecting, and four players at one table."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import BOTH_SIZES, DESKTOP, PHONE, LiveServer, screenshot, wait_still

SHORT_GAME = {"preset": "standard", "target": 50, "lose_at": -10}  # random bots: over in a hand or two


def start_game(page: Any, server: LiveServer, rules: Any = SHORT_GAME, level: str = "random") -> str:
    """Make a game against the computer from the page (so the session cookie is the page's) and open it."""
    page.goto(f"{server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    made = page.evaluate("""([rules, level]) => fetch('/api/play', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: JSON.stringify({rules, bot_level: level})})
        .then(r => r.json())""", [rules, level])
    page.goto(f"{server.url}/table.html?id={made['id']}&invite={made['invite']}")
    page.wait_for_selector("html[data-ready=table]", state="attached")
    return str(made["id"])


# The hand's cards overlap: a person presses the visible strip at a card's left edge, not its middle.
CARD_SPOT = {"x": 6, "y": 24}


# The server's answer to the move just sent, read from the page's own state: the move is no longer offered
# at this position (the server took it: its event comes before its ack, docs/protocol.md), or the server
# refused it (the page says why under the actions; act() cleared the last reason when the move was sent).
MOVE_ANSWERED = """([hand, kind, card]) => {
    if (document.getElementById('action-error').textContent) return 'refused';
    const s = window.spadesTable.state;
    if (!s || s.hand !== hand || s.over) return 'taken';
    const still = ((s.view && s.view.legal) || []).some((a) => kind in a && (card === null || a[kind] === card));
    return still ? false : 'taken';
}"""


def make_move(page: Any, kind: str, locator: Any, card: str | None = None,
              position: dict[str, int] | None = None) -> bool:
    """Press the control of a move offered now (``kind``: bid, look, pass, discard or play; ``card`` the
    card played) and wait for the server's answer to show on the page: True when the server took the move.

    The page offers our move until we make it (the other seats wait for us), so the control is there to
    press, and Playwright's own wait lets a slow page draw it. A click is never taken back: the helper
    before gave a click 1.5 s and counted it as not made when that ran out, but under load the time ran out
    after Playwright had pressed ("click action done"), so a card was played and not counted (12 plays of
    13). And nothing is assumed about when the answer comes: until the page shows it, our card still looks
    playable, and a second press would send a move the server refuses."""
    hand = page.evaluate("window.spadesTable.state?.hand ?? null")
    locator.click(position=position)
    answer = page.wait_for_function(MOVE_ANSWERED, arg=[hand, kind, card], timeout=15_000).json_value()
    return bool(answer == "taken")


def take_turn(page: Any, bid: str = "3") -> str | None:
    """Make one move when it is ours: a bid, looking at the cards, an exchange or a card. Returns the move
    once the page shows that the server took it; None when no move of ours is offered, or the server
    refused the move (the page then shows why)."""
    buttons = page.locator("#action-buttons")
    # The bids offered, read at one moment (the panel is redrawn as events arrive).
    offered = page.eval_on_selector_all("#action-buttons [data-bid]:not(.blind)", "els => els.map(e => e.dataset.bid)")
    if offered:
        choice = bid if bid in offered else offered[0]
        return "bid" if make_move(page, "bid", buttons.locator(f"[data-bid='{choice}']")) else None
    look = buttons.get_by_text("Look at my cards")
    if look.count():
        return "look" if make_move(page, "look", look) else None
    confirm = page.locator("#confirm-cards")
    if confirm.count():
        kind = "pass" if (confirm.text_content() or "").startswith("Pass") else "discard"
        need = int((confirm.text_content() or "").split("/")[1])
        # Choosing a card redraws the hand at once (no message to wait for): the next one free is pressed.
        chosen = page.locator("#hand-cards button.hand-card[aria-pressed=true]")
        while (count := chosen.count()) < need:
            page.locator("#hand-cards button.hand-card[aria-disabled=false][aria-pressed=false]").first.click(
                position=CARD_SPOT)
            page.wait_for_function("(n) => document.querySelectorAll("
                                   "'#hand-cards button.hand-card[aria-pressed=true]').length > n", arg=count)
        return "pass" if make_move(page, kind, confirm) else None
    playable = page.locator("#hand-cards button.hand-card[aria-disabled=false]")
    if playable.count():
        card = playable.first.get_attribute("data-card")
        return "play" if make_move(page, "play", page.locator(f"#hand-cards button[data-card='{card}']"), card,
                                   CARD_SPOT) else None
    return None


@pytest.mark.parametrize("viewport", BOTH_SIZES, indirect=True)
@pytest.mark.smoke
def test_whole_game_against_the_computer(page: Any, game_server: LiveServer,
                                         viewport: tuple[str, dict[str, int]]) -> None:
    name = viewport[0]
    start_game(page, game_server)
    page.wait_for_selector("#action-buttons [data-bid]")
    assert page.locator("#hand-cards button").count() == 13
    # The hand is sorted clubs, diamonds, spades, hearts, each from high to low.
    cards = page.eval_on_selector_all("#hand-cards button", "els => els.map(e => e.dataset.card)")
    suit_order = "CDSH"
    keys = [(suit_order.index(c[1]), -"23456789TJQKA".index(c[0])) for c in cards]
    assert keys == sorted(keys)
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    screenshot(page, f"table-bid-{name}")
    moves = {"bid": 0, "play": 0}
    shot_taken = False
    summary_seen = False
    deadline = time.monotonic() + 120
    while not page.is_visible("#game-over"):
        assert time.monotonic() < deadline, "the game did not end in time"
        move = take_turn(page)
        if move in moves:
            moves[move] += 1
        if move is None:
            page.wait_for_timeout(40)
        if moves["play"] == 4 and not shot_taken:
            # Cards that may not be played now are darkened when it is our turn.
            page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]", timeout=15_000)
            wait_still(page)
            assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
            screenshot(page, f"table-play-{name}")
            shot_taken = True
        if not summary_seen and page.is_visible("#summary"):
            summary_seen = True
            page.wait_for_selector("#summary-body .lines li", timeout=5000)
            assert "contract" in page.text_content("#summary-body") or "nil" in page.text_content("#summary-body")
    # Each move is counted once the page shows the server took it: our 13 cards of every hand played, one
    # bid in each (a misdeal's hand may end before ours).
    results = page.evaluate("window.spadesTable.state.results")
    played = sum(1 for r in results if not r.get("misdeal"))
    assert played >= 1 and moves["play"] == 13 * played and played <= moves["bid"] <= len(results), (moves, results)
    over = page.text_content("#over-text")
    assert "won" in over
    totals = [int(page.text_content(f"[data-testid=pad-total-{k}]")) for k in range(2)]
    assert max(totals) >= 50 or min(totals) <= -10
    # The game-over screen: the winner, the final sheet hand by hand (its last row the final totals), and the
    # focus on Rematch.
    hands = page.locator("#over-sheet tbody tr").count()
    assert hands >= 1
    last = page.eval_on_selector_all("#over-sheet tbody tr:last-child td .num", "els => els.map(e => e.textContent)")
    assert [int(t) for t in last] == totals
    assert page.evaluate("document.activeElement.id") == "rematch"
    screenshot(page, f"table-over-{name}")
    # The finished game is in the player's history, and its replay opens from the server's record.
    table_url = page.url
    page.goto(f"{game_server.url}/")
    page.wait_for_selector("#history li a")
    page.click("#history li a")
    page.wait_for_selector("#replay:not([hidden])")
    assert page.locator(".replay-seat").count() == 4
    page.click("#step-last")
    page.wait_for_function("document.getElementById('replay-trick')?.textContent.includes('took')")
    page.goto(table_url)
    page.wait_for_selector("#game-over:not([hidden])")
    old = page.url
    page.click("#rematch")
    page.wait_for_function(f"location.href !== {old!r}")
    page.wait_for_selector("html[data-ready=table]", state="attached")
    page.wait_for_selector("#hand-cards button")
    # The server opened the rematch (the same seat for us); asking again gives the same table.
    assert "seat=0" in page.url
    old_id = old.split("id=")[1].split("&")[0]
    again = page.evaluate(f"fetch('/api/tables/{old_id}/rematch', {{method: 'POST', headers: "
                          "{'Content-Type': 'application/json'}, body: '{}'}).then(r => r.json())")
    assert f"id={again['id']}" in page.url


# A chat line from the player's second tab (its own socket); an id is applied once, so each line has its own.
CHAT_FROM_ANOTHER_TAB = """([table, text]) => new Promise((resolve) => {
    const ws = new WebSocket(`ws://${location.host}/ws/tables/${table}`);
    ws.onopen = () => ws.send(JSON.stringify({type: "hello", v: 2, last_seq: null}));
    ws.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.type === "snapshot") ws.send(JSON.stringify({type: "chat", id: text, text}));
        if (m.ev !== undefined && m.text === text) { ws.close(); resolve(); }
    };
    setTimeout(() => { ws.close(); resolve(); }, 15000);  // (then the wait for the line says it never came)
})"""


def press_across_a_redraw(page: Any, table: str, locator: Any, position: dict[str, int] | None = None) -> None:
    """Press ``locator`` (button down), let a chat line redraw the page (the hand and the actions are drawn
    again on every message), then let go."""
    box = locator.bounding_box()
    spot = position or {"x": box["width"] / 2, "y": box["height"] / 2}
    page.mouse.move(box["x"] + spot["x"], box["y"] + spot["y"])
    page.mouse.down()
    lines = page.locator("#chat-lines li").count()
    page.evaluate(CHAT_FROM_ANOTHER_TAB, [table, f"one moment {lines}"])
    page.wait_for_function("(n) => document.querySelectorAll('#chat-lines li').length > n", arg=lines)
    page.mouse.up()


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_a_press_that_spans_a_redraw_still_acts(page: Any, game_server: LiveServer) -> None:
    """A bid or a card pressed while a message redraws the page is still made: the page keeps the controls
    that did not change. Before, it drew new ones on every message, and a release on another element than
    the press clicked nothing: the move was lost (a person pressed again; a test counted a move never made)."""
    table = start_game(page, game_server, rules="standard")
    bid = page.locator("#action-buttons [data-bid='3']")
    press_across_a_redraw(page, table, bid)
    page.wait_for_function("document.querySelector('[data-testid=seat-0-bid]')?.textContent.startsWith('bid 3')")
    deadline = time.monotonic() + 60
    playable = page.locator("#hand-cards button.hand-card[aria-disabled=false]")
    while not playable.count():
        assert time.monotonic() < deadline, "no card of ours to play came"
        page.wait_for_timeout(40)
    card = playable.first.get_attribute("data-card")
    press_across_a_redraw(page, table, page.locator(f"#hand-cards button[data-card='{card}']"), CARD_SPOT)
    page.wait_for_function("(c) => !window.spadesTable.state.view.hand.includes(c)", arg=card)
    assert page.text_content("#action-error") == ""


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_table_on_a_desktop(page: Any, game_server: LiveServer) -> None:
    start_game(page, game_server, rules="standard")
    page.wait_for_selector("#action-buttons [data-bid]")
    screenshot(page, "table-bid-desktop")
    plays = 0
    deadline = time.monotonic() + 60  # bids and four tricks of random bots, on a loaded machine
    while plays < 4:
        assert time.monotonic() < deadline
        move = take_turn(page)
        plays += move == "play"
        if move is None:
            page.wait_for_timeout(40)
    page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]", timeout=15_000)
    page.mouse.move(0, 0)
    wait_still(page)  # the hovered card's transition ends
    # Whatever may not be played now is darkened and says so to screen readers.
    illegal = page.locator("#hand-cards button.illegal")
    for k in range(illegal.count()):
        assert illegal.nth(k).get_attribute("aria-disabled") == "true"
        assert "cannot be played now" in illegal.nth(k).get_attribute("aria-label")
    page.click("#show-last-trick")
    page.wait_for_function("document.querySelectorAll('#last-trick svg').length === 4")
    screenshot(page, "table-play-desktop")
    # Keyboard: arrows move between cards, Enter plays the focused one.
    page.locator("#hand-cards button.hand-card[aria-disabled=false]").first.focus()
    before = page.locator("#hand-cards button.hand-card").count()
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelectorAll('#hand-cards button.hand-card').length < {before}")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_chat_is_text_and_the_page_reconnects(page: Any, game_server: LiveServer) -> None:
    start_game(page, game_server, rules="standard")
    page.wait_for_selector("#action-buttons [data-bid]")
    evil = "<script>window.hacked = 1</script><img src=x onerror='window.hacked=2'><b>bold</b>"
    page.click("#open-panels")  # on a phone the chat is in the drawer beside the table
    page.fill("#chat-input", evil)
    page.click("#chat-form button")
    page.wait_for_selector("#chat-lines li")
    assert page.text_content("#chat-lines li span") == evil
    assert page.locator("#chat-lines b, #chat-lines img, #chat-lines script").count() == 0
    assert page.evaluate("window.hacked") is None

    before = page.evaluate("window.spadesTable.lastSeq")
    # "Reconnecting" shows only until the page is back (half a second): watched from inside the page, set up
    # before the drop, since a wait started afterwards may come too late on a loaded machine.
    said = page.evaluate("""() => new Promise((resolve) => {
        const node = document.getElementById('conn-status');
        const watch = new MutationObserver(() => {
            if (node.textContent.includes('Reconnecting')) { watch.disconnect(); resolve(node.textContent); }
        });
        watch.observe(node, {childList: true, characterData: true, subtree: true});
        setTimeout(() => resolve(node.textContent), 10000);  // never said: the assertion shows what was
        window.spadesTable.drop();
    })""")
    assert "Reconnecting" in said, said
    page.wait_for_function("document.getElementById('conn-status')?.textContent === ''", timeout=15_000)
    # A bid sent just as the socket drops is sent again after reconnecting, and counted once.
    page.wait_for_selector("#action-buttons [data-bid='3']")
    page.evaluate("window.spadesTable.act({bid: 3}); window.spadesTable.drop()")
    page.wait_for_function(f"window.spadesTable.lastSeq > {before}", timeout=15_000)
    page.wait_for_function("document.querySelector('[data-testid=seat-0-bid]')?.textContent.startsWith('bid 3')")
    assert page.text_content("#action-error") == ""
    page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]", timeout=15_000)
    # A reload (a closed tab opened again) gets a snapshot: the same cards, the chat line still there.
    cards = page.eval_on_selector_all("#hand-cards button", "els => els.map(e => e.dataset.card)")
    page.reload()
    page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]")
    page.click("#open-panels")
    assert page.eval_on_selector_all("#hand-cards button", "els => els.map(e => e.dataset.card)") == cards
    assert page.text_content("#chat-lines li span") == evil


@pytest.mark.slow
def test_four_players_at_one_table(browser: Any, game_server: LiveServer) -> None:
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(4)]
    try:
        pages = [c.new_page() for c in contexts]
        host = pages[0]
        host.goto(f"{game_server.url}/")
        host.wait_for_selector("#create-table:not([disabled])")
        host.select_option("#create-turn", "60")
        host.click("#create-table")
        host.wait_for_selector("html[data-ready=table]", state="attached")
        host.wait_for_selector("#seating:not([hidden])")
        link = host.input_value("#invite-link")
        for k, pg in enumerate(pages[1:], start=1):
            pg.goto(f"{game_server.url}/")
            pg.wait_for_selector("#lobby li")  # the public table is listed
            pg.fill("#join-link", link)
            pg.click("#join-form button")
            pg.wait_for_selector("html[data-ready=table]", state="attached")
            pg.click(f"#seat-buttons >> text=Sit in seat {k + 1}")
            pg.wait_for_selector(f".seat-box.me[data-seat='{k}']")
        for pg in pages:
            pg.wait_for_selector("#hand-cards button", timeout=15_000)
        hands = [pg.eval_on_selector_all("#hand-cards button", "els => els.map(e => e.dataset.card)") for pg in pages]
        assert all(len(h) == 13 for h in hands)
        assert len({c for h in hands for c in h}) == 52  # four different hands, nobody sees another's
        # Everyone bids in turn; every page shows every bid.
        deadline = time.monotonic() + 30
        bid = ("() => { const b = document.querySelector('#action-buttons [data-bid=\"3\"]');"
               " if (b) b.click(); return !!b; }")
        while any("bid –" in (pages[0].text_content(f"[data-testid=seat-{s}-bid]") or "") for s in range(4)):
            assert time.monotonic() < deadline
            for pg in pages:
                if pg.evaluate(bid):
                    pg.wait_for_selector("#action-buttons [data-bid]", state="detached", timeout=15_000)
        def shown() -> list[list[str]]:
            return [[pg.text_content(f"[data-testid=seat-{s}-bid]") or "" for s in range(4)] for pg in pages]

        deadline = time.monotonic() + 30
        while not all(b.startswith("bid 3") for row in shown() for b in row):
            assert time.monotonic() < deadline, (shown(), [pg.text_content("#action-error") for pg in pages])
            pages[0].wait_for_timeout(100)
    finally:
        for c in contexts:
            c.close()


@pytest.mark.slow
@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_account_register_log_out_and_in(page: Any, game_server: LiveServer) -> None:
    page.goto(f"{game_server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    assert "guest" in page.text_content("#me-summary")
    user = f"ann{int(time.time() * 1000) % 10**8}"
    page.click("text=Keep your games and rating: make an account")
    page.fill("#reg-user", user)
    page.fill("#reg-pass", "short")
    page.click("#register-form button")  # the browser refuses it (minlength) and says why
    assert not page.evaluate("document.getElementById('reg-pass').checkValidity()")
    page.fill("#reg-pass", "a good long password")
    page.click("#register-form button")
    page.wait_for_function(f"document.getElementById('me-summary')?.textContent.includes('{user}')")
    page.click("#logout")
    page.wait_for_function("document.getElementById('me-summary')?.textContent.includes('guest')")
    page.click("text=I have an account: log in")
    page.fill("#login-user", user)
    page.fill("#login-pass", "wrong password")
    page.click("#login-form button")
    page.wait_for_function("document.getElementById('me-status')?.textContent.includes('wrong')")
    page.fill("#login-pass", "a good long password")
    page.click("#login-form button")
    page.wait_for_function(f"document.getElementById('me-summary')?.textContent.includes('Signed in as {user}')")


HINT_STATE = """() => {
    const text = document.getElementById('hint-text');
    const button = document.getElementById('hint-button');
    return {seq: window.spadesTable.lastSeq, text: text.textContent, live: text.getAttribute('aria-live'),
            row: !document.getElementById('hint-row').hidden, enabled: !button.disabled,
            bids: [...document.querySelectorAll('#action-buttons button.hinted')].map(
                (e) => [e.dataset.bid || e.dataset.key, e.textContent]),
            cards: [...document.querySelectorAll('#hand-cards button.hinted')].map(
                (e) => [e.dataset.card, e.getAttribute('aria-label'), e.getAttribute('aria-disabled'),
                        e.querySelectorAll('.hint-star').length])};
}"""


@pytest.mark.parametrize("viewport", BOTH_SIZES, indirect=True)
def test_hint_marks_the_suggested_bid_and_card_then_the_hinted_card_is_played(
        page: Any, game_server: LiveServer, viewport: tuple[str, dict[str, int]]) -> None:
    """At a Play now table: the Hint key and button mark the computer's bid, then its card, with the reason
    in words in a live region; the mark goes when the player acts, and playing the hinted card goes on."""
    name = viewport[0]
    start_game(page, game_server)
    page.wait_for_selector("#action-buttons [data-bid]")
    assert page.locator("#hint-button").is_enabled()
    assert page.text_content("#hint-row kbd") == "H" and page.get_attribute("#hint-button", "aria-keyshortcuts") == "h"
    # "h" typed into the chat is text, not a hint request.
    if page.locator("#open-panels").is_visible():
        page.click("#open-panels")
    page.focus("#chat-input")
    page.keyboard.press("h")
    assert page.input_value("#chat-input") == "h"
    assert page.evaluate(HINT_STATE)["text"] == "" and page.locator("#hint-button").is_enabled()
    page.fill("#chat-input", "")
    if page.locator("#close-panels").is_visible():
        page.click("#close-panels")
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("h")  # the shortcut, from the page
    page.wait_for_selector("#action-buttons button.hinted")
    st = page.evaluate(HINT_STATE)
    assert st["live"] == "polite" and st["row"]
    assert len(st["bids"]) == 1 and st["cards"] == [], st
    bid, label = st["bids"][0]
    offered = page.eval_on_selector_all("#action-buttons [data-bid]", "els => els.map(e => e.dataset.bid)")
    assert bid in offered and "★" in label and "(the hint)" in label  # a star and words, not color alone
    assert st["text"].startswith(f"Hint: bid {bid} (") and st["text"].endswith(").") and len(st["text"]) > 14, st
    screenshot(page, f"table-hint-bid-{name}")
    assert make_move(page, "bid", page.locator("#action-buttons button.hinted"))
    page.wait_for_function("() => !document.querySelector('#action-buttons button.hinted')")
    assert page.text_content("#hint-text") == ""  # acting spends the hint
    # Take turns (as the other tests do) until we are to play a card.
    deadline = time.monotonic() + 60
    while not page.locator("#hand-cards button.hand-card[aria-disabled=false]").count() or \
            page.locator("#confirm-cards").count():
        assert time.monotonic() < deadline, "no turn to play a card came"
        assert page.locator("#game-over").is_hidden()
        take_turn(page)
        page.wait_for_timeout(50)
    page.click("#hint-button")
    page.wait_for_selector("#hand-cards button.hinted")
    st = page.evaluate(HINT_STATE)
    assert len(st["cards"]) == 1, st
    card, aria, disabled, stars = st["cards"][0]
    assert disabled == "false" and stars == 1 and aria.endswith(", the hint"), st
    card_name = aria.removesuffix(", the hint")
    assert st["text"].startswith(f"Hint: play the {card_name} ("), (st["text"], card_name)
    assert st["enabled"] and st["row"]
    screenshot(page, f"table-hint-card-{name}")
    seq = st["seq"]
    assert make_move(page, "play", page.locator(f"#hand-cards button.hinted[data-card='{card}']"), card, CARD_SPOT)
    # The card leaves the hand, the mark and the reason go, and the game goes on past our card.
    page.wait_for_function(f"() => !document.querySelector(\"#hand-cards [data-card='{card}']\")")
    page.wait_for_function(f"() => window.spadesTable.lastSeq > {seq}")
    after = page.evaluate(HINT_STATE)
    assert after["cards"] == [] and after["bids"] == [] and after["text"] == "", after
    assert page.locator("#action-error").text_content() == ""
    while page.evaluate("() => window.spadesTable.lastSeq") < seq + 6:  # four more moves, ours among them
        assert time.monotonic() < deadline + 30, "the game stopped after the hinted card"
        if page.locator("#game-over").is_visible():
            break
        take_turn(page)
        page.wait_for_timeout(50)


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_no_hint_button_at_a_rated_table(page: Any, game_server: LiveServer) -> None:
    page.goto(f"{game_server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    made = page.evaluate("""() => fetch('/api/tables', {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({rules: {preset: 'standard', target: 50}, rated: true, public: false})})
        .then(r => r.json())""")
    page.goto(f"{game_server.url}/table.html?id={made['id']}&invite={made['invite']}")
    page.wait_for_selector("html[data-ready=table]", state="attached")
    page.click("#fill-seats")
    page.wait_for_selector("#hand-cards button.hand-card")
    assert page.locator("#hint-row").is_hidden()
    page.keyboard.press("h")
    page.wait_for_timeout(300)
    assert page.text_content("#hint-text") == "" and page.locator("#action-error").text_content() == ""


@pytest.mark.parametrize("viewport", BOTH_SIZES, indirect=True)
def test_six_handed_table_marks_the_second_pack(page: Any, game_server: LiveServer,
                                                viewport: tuple[str, dict[str, int]]) -> None:
    start_game(page, game_server, rules="six-handed")
    page.wait_for_selector("#hand-cards button.hand-card", timeout=15_000)
    # One snapshot read in the page at once: bots keep playing, so a trick on show may be gathered between
    # two separate reads.
    snap = """() => {
        const t = document.querySelector("#trick [data-card$='*']");
        if (!t) return null;
        return {trick: {label: t.getAttribute('aria-label') || '', rings: t.querySelectorAll('circle').length},
                hand: [...document.querySelectorAll('#hand-cards button')].map(
                    (e) => [e.dataset.card, e.getAttribute('aria-label') || ''])};
    }"""
    deadline = time.monotonic() + 60
    while (seen := page.evaluate(snap)) is None:
        # Play until a second-pack card lies in the trick (ours or another seat's).
        assert time.monotonic() < deadline, "no second-pack card reached the trick"
        if take_turn(page) is None:
            page.wait_for_timeout(40)
    assert seen["hand"]
    # Second-pack cards in the hand and in the trick: marked in the picture and in their spoken name.
    mine = [code for code, _ in seen["hand"]]
    assert len(mine) == len(set(mine))  # two copies of a card are two different buttons
    assert "second pack" in seen["trick"]["label"]
    assert seen["trick"]["rings"] == 1  # the ringed 2
    for code, label in seen["hand"]:
        assert ("second pack" in label) == code.endswith("*"), (code, label)
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    screenshot(page, f"table-six-{viewport[0]}")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_dealer_discard_chooses_from_the_servers_choice(page: Any, game_server: LiveServer) -> None:
    """The view says "choose 2 of these cards" (not every pair): the page lets the dealer pick exactly two
    of their 15 cards, sends them, and goes on to the bidding with 13."""
    start_game(page, game_server, rules="jokers-54")  # seat 0 deals first: discard two of 15 cards
    page.wait_for_selector("#confirm-cards")
    assert page.locator("#hand-cards button").count() == 15
    assert page.text_content("#confirm-cards").strip() == "Discard 0/2"
    assert page.is_disabled("#confirm-cards")
    chosen = []
    for k in (0, 5):
        card = page.locator("#hand-cards button.hand-card").nth(k)
        chosen.append(card.get_attribute("data-card"))
        card.click(position=CARD_SPOT)
    assert page.text_content("#confirm-cards").strip() == "Discard 2/2"
    screenshot(page, "table-discard-phone")
    page.click("#confirm-cards")
    page.wait_for_function("document.querySelectorAll('#hand-cards button.hand-card').length === 13")
    left = page.eval_on_selector_all("#hand-cards button.hand-card", "els => els.map(e => e.dataset.card)")
    assert not set(chosen) & set(left)


COUNT_TRICK_ANIMATIONS = """
window.trickAnimations = 0;
window.trickGathers = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  if (this.closest && this.closest('#trick')) {
    window.trickAnimations += 1;
    if (args[1] && args[1].fill === 'forwards') window.trickGathers += 1;
  }
  return animate.apply(this, args);
};
"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_trick_animations_respect_reduced_motion(browser: Any, game_server: LiveServer, motion: str) -> None:
    context = browser.new_context(viewport=DESKTOP, reduced_motion=motion)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.add_init_script(COUNT_TRICK_ANIMATIONS)
        start_game(page, game_server, rules="standard")
        page.wait_for_selector("#action-buttons [data-bid]", timeout=15_000)
        felt = None
        plays, deadline = 0, time.monotonic() + 60
        while plays < 3:  # three tricks: every card played travels, every trick is gathered
            assert time.monotonic() < deadline
            move = take_turn(page)
            plays += move == "play"
            if move == "play" and felt is None:
                felt = page.locator("#felt").bounding_box()  # the felt is taller in play than while bidding
            if move is None:
                page.wait_for_timeout(40)
        if motion == "reduce":
            page.wait_for_timeout(TRICK_HOLD_MS + 500)  # time for an animation that must not come
            count, gathers = page.evaluate("[window.trickAnimations, window.trickGathers]")
            assert count == 0
        else:
            # Each card of the first two tricks at least flew in, and each finished trick was gathered (the
            # second trick is held TRICK_HOLD_MS on the page's clock, which a loaded machine runs late).
            flown = "window.trickAnimations - window.trickGathers >= 2 * 4 && window.trickGathers >= 2 * 4"
            with contextlib.suppress(PlaywrightTimeout):  # the assertion below says what was seen
                page.wait_for_function(f"() => {flown}", timeout=15_000)
            count, gathers = page.evaluate("[window.trickAnimations, window.trickGathers]")
            assert count - gathers >= 2 * 4 and gathers >= 2 * 4, (count, gathers)
            wait_still(page)  # the gathered cards finish leaving
        # No card is left behind in the middle once its trick was gathered.
        assert page.locator("#trick .trick-card").count() <= 4
        # Nothing moved the table itself.
        assert page.locator("#felt").bounding_box() == felt
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        assert not errors, errors
    finally:
        context.close()


TRICK_HOLD_MS = 1400  # table.js holds a finished trick this long before gathering it


CLOCK_IN_VIEW = """() => {
  const c = document.getElementById('game-clock').getBoundingClientRect();
  const f = document.getElementById('felt').getBoundingClientRect();
  const seats = [...document.querySelectorAll('#seats .seat-box')].map((s) => s.getBoundingClientRect());
  const apart = (a, b) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
  return {scrolled: window.scrollY, inView: c.width > 0 && c.top >= 0 && c.left >= 0
    && c.bottom <= window.innerHeight && c.right <= window.innerWidth,
    inFelt: c.top >= f.top && c.bottom <= f.bottom && c.left >= f.left && c.right <= f.right,
    clearOfSeats: seats.length > 0 && seats.every((s) => apart(c, s))};
}"""


def clock_seen_while_playing(page: Any) -> None:
    """On our turn the game clock is on screen in the felt, clear of the seats: with the page not scrolled,
    and scrolled just enough to see the whole hand (on a phone the hand's second row may end below)."""
    page.wait_for_selector("#action-buttons [data-bid], #hand-cards button.hand-card[aria-disabled=false]",
                           timeout=15_000)
    page.evaluate("window.scrollTo(0, 0)")  # undo any scrolling Playwright did to click a card
    seen = page.evaluate(CLOCK_IN_VIEW)
    assert seen == {"scrolled": 0, "inView": True, "inFelt": True, "clearOfSeats": True}, seen
    page.evaluate("document.getElementById('my-hand').scrollIntoView({block: 'end'})")
    seen = page.evaluate(CLOCK_IN_VIEW)
    assert seen["inView"] and seen["clearOfSeats"], seen
    page.evaluate("window.scrollTo(0, 0)")


def test_the_table_shows_its_rules(page: Any, game_server: LiveServer) -> None:
    # A player who joins a table with house rules can read them, each linked to its explanation.
    start_game(page, game_server, rules={"preset": "standard", "nil_points": 50, "target": 300})
    # In the rule book's plain words, the option's own name kept as the link's title; the length said once.
    page.wait_for_function("document.getElementById('table-rules')?.textContent.includes('Nil is worth')")
    assert page.text_content("#table-rules") == "Rules: standard, Nil is worth: 50 · game to 300"
    links = page.eval_on_selector_all("#table-rules a", "as => as.map((a) => [a.getAttribute('href'), a.title])")
    assert links == [["/rules.html#presets", ""], ["/rules.html#opt-nil_points", "nil_points"]]


@pytest.mark.parametrize("viewport", BOTH_SIZES, indirect=True)
def test_timed_game_shows_its_clock(page: Any, game_server: LiveServer,
                                    viewport: tuple[str, dict[str, int]]) -> None:
    name = viewport[0]
    start_game(page, game_server, rules={"preset": "standard", "time_limit_minutes": 30})
    page.wait_for_selector("#game-clock:not([hidden])", timeout=15_000)
    first = page.text_content("#game-clock") or ""
    assert first.startswith("Game clock: 29:") or first.startswith("Game clock: 30:00"), first
    assert first.endswith(" left"), first
    # Not announced every second: the ticking value is no live region.
    assert page.evaluate("document.getElementById('game-clock').closest('[aria-live]')") is None
    # The clock runs between the server's messages.
    page.wait_for_function(f"(document.getElementById('game-clock')?.textContent ?? {first!r}) !== {first!r}",
                           timeout=5_000)
    clock_seen_while_playing(page)
    screenshot(page, f"table-timed-{name}")
    for _ in range(3):  # a few moves: the clock stays in sight and the table keeps its size
        deadline = time.monotonic() + 30  # three random bots move before our turn comes back
        while take_turn(page) is None:
            assert time.monotonic() < deadline
            page.wait_for_timeout(40)
        clock_seen_while_playing(page)
    # An untimed game shows none.
    start_game(page, game_server)
    page.wait_for_selector("#hand-cards button", timeout=15_000)
    assert page.is_hidden("#game-clock")
    screenshot(page, f"table-untimed-{name}")


def test_timed_game_says_when_time_is_up(browser: Any, game_server: LiveServer) -> None:
    """The page counts down from the server's figure: a state saying 2 s are left turns into the last-hand
    notice without another message from the server."""
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    try:
        page = context.new_page()
        rewrite_server_messages(page, "game_seconds_left", shorten)
        start_game(page, game_server, rules={"preset": "standard", "time_limit_minutes": 30})
        page.wait_for_selector("#game-clock:not([hidden])", timeout=15_000)
        page.wait_for_selector("#game-clock.up", timeout=5_000)
        text = page.text_content("#game-clock") or ""
        assert "Time is up: last hand" in text and "unless the lead is tied" in text, text
        clock_seen_while_playing(page)
        screenshot(page, "table-time-up-phone")
    finally:
        context.close()


def rewrite_server_messages(page: Any, key: str | None, change: Callable[[dict[str, Any]], None]) -> None:
    """Relay the table socket, calling ``change`` on every object in a server message that has ``key``
    (``None``: on every message itself) before the page sees it (to show the page positions a real game
    rarely reaches)."""

    def walk(data: Any) -> None:
        if isinstance(data, dict):
            if key in data:
                change(data)
            for value in data.values():
                walk(value)
        elif isinstance(data, list):
            for value in data:
                walk(value)

    def relay(ws: Any) -> None:
        server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and (key is None or f'"{key}"' in message):
                data = json.loads(message)
                if key is None:
                    change(data)
                else:
                    walk(data)
                message = json.dumps(data)
            ws.send(message)

        server.on_message(to_page)
        ws.on_message(lambda message: server.send(message))

    page.route_web_socket("**/ws/tables/**", relay)


def shorten(data: dict[str, Any]) -> None:
    """A timed game's clock says 2 s are left."""
    if data["game_seconds_left"] is not None:
        data["game_seconds_left"] = 2.0


def test_long_seat_lines_stay_inside_their_seat_boxes_on_a_phone(browser: Any, game_server: LiveServer) -> None:
    """The longest seat line ("bid blind nil · took 0") wraps between its parts in a phone's narrow seat
    box instead of running past the box's edge."""
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        rewrite_server_messages(page, None, lengthen)
        start_game(page, game_server, rules={"preset": "standard"})
        with contextlib.suppress(PlaywrightTimeout):  # the assertion below says what was shown
            page.wait_for_function("document.querySelector('[data-testid=seat-3-bid]')?.textContent"
                                   " === 'bid blind nil · took 0'", timeout=15_000)
        lines = page.eval_on_selector_all("[data-testid^=seat-][data-testid$=-bid]",
                                          "els => els.map((e) => e.textContent)")
        assert len(lines) == 4 and lines[3] == "bid blind nil · took 0", lines
        boxes = page.evaluate("""() => [...document.querySelectorAll('.seat-box')].map(b => {
            const box = b.getBoundingClientRect(), line = b.querySelector('.seat-bid').getBoundingClientRect();
            return {seat: b.dataset.seat, inside: line.left >= box.left - 0.5 && line.right <= box.right + 0.5,
                    fits: b.scrollWidth <= b.clientWidth + 1};
        })""")
        assert len(boxes) == 4 and all(b["inside"] and b["fits"] for b in boxes), boxes
        assert not errors, errors
        screenshot(page, "table-long-seat-lines-phone")
    finally:
        context.close()


LONG_BIDS = ["blind 12", "blind 11", "blind 13", "blind nil"]


def lengthen(msg: dict[str, Any]) -> None:
    """Every seat shows the longest bid a seat line holds, for the whole test: the views' four-seat bid list
    is faked, and so are the bids that follow, which the page writes in from the action events themselves
    (js/events.js actOn) or by seat from a change ("@bids", docs/protocol.md). Faking the whole views only
    (as before changes) let a bot's real bid replace its faked one as soon as it bid, and the wait for seat
    3's faked line raced the bots' bidding."""
    if "ev" not in msg and msg.get("type") not in ("snapshot", "state", "welcome"):
        return
    if "ev" in msg and "kind" not in msg and "bid" in msg and msg.get("seat") in range(4):  # a bid's event
        msg["bid"] = LONG_BIDS[msg["seat"]]

    def views(data: Any) -> None:
        if isinstance(data, dict):
            view = data.get("view")
            if isinstance(view, dict):
                if isinstance(view.get("bids"), list) and len(view["bids"]) == 4:
                    view["bids"] = list(LONG_BIDS)
                view.pop("@bids", None)
            for value in data.values():
                views(value)
        elif isinstance(data, list):
            for value in data:
                views(value)

    views(msg)


def test_a_page_older_than_the_servers_protocol_reloads_once(page: Any, game_server: LiveServer) -> None:
    """A page from before a protocol change (kept by the browser, or open while the server was upgraded)
    gets error ``version`` on its ``hello``: it reloads once to fetch the server's own code; a server that
    still refuses it is then named in the page's notice, with no reload loop."""
    hellos: list[dict[str, Any]] = []

    def refuse(ws: Any) -> None:  # a server that speaks another version (nothing reaches the real one)
        def got(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "hello":
                hellos.append(msg)
                ws.send(json.dumps({"type": "error", "code": "version",
                                    "reason": "this server speaks protocol version 99"}))
        ws.on_message(got)

    loads: list[str] = []
    page.on("load", lambda p: loads.append(p.url))
    page.route_web_socket("**/ws/tables/**", refuse)
    page.goto(f"{game_server.url}/table.html?id=t0")
    page.wait_for_function("document.getElementById('conn-status').textContent.includes('version 99')")
    page.wait_for_timeout(500)  # (a second reload would come now)
    assert len(loads) == 2 and [m["v"] for m in hellos] == [2, 2], (loads, hellos)


def test_a_missed_event_brings_the_whole_state_back(page: Any, game_server: LiveServer) -> None:
    """Events carry changes, each applying to the state after the event before: when one never reaches the
    page (dropped here on its way), the page sees the gap in the event numbers, asks for its whole state
    (``{"type": "state"}``), and then shows exactly what a fresh socket is sent."""
    dropped: list[str] = []
    asked: list[str] = []

    def relay(ws: Any) -> None:
        server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and not dropped and '"change"' in message and '"play"' in message:
                dropped.append(message)  # a card played by somebody: lost on the way
                return
            ws.send(message)

        def to_server(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "state":
                asked.append(message)
            server.send(message)

        server.on_message(to_page)
        ws.on_message(to_server)

    page.route_web_socket("**/ws/tables/**", relay)
    table = start_game(page, game_server, rules="standard")
    deadline = time.monotonic() + 60
    while not (dropped and asked):
        assert time.monotonic() < deadline, (dropped, asked)
        take_turn(page)
        page.wait_for_timeout(40)
    # At our turn the computers wait for us: the page and a fresh socket then see the same position.
    page.wait_for_function("window.spadesTable.state?.view?.to_act === 0"
                           " && (window.spadesTable.state?.view?.legal?.length ?? 0) > 0", timeout=20_000)
    for _ in range(50):
        seq = page.evaluate("window.spadesTable.lastSeq")
        fresh = page.evaluate("""(table) => new Promise((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/ws/tables/${table}`);
            ws.onopen = () => ws.send(JSON.stringify({type: "hello", v: 2, last_seq: null}));
            ws.onmessage = (e) => {
                const m = JSON.parse(e.data);
                if (m.type === "snapshot") { ws.close(); resolve(m); }
            };
        })""", table)
        if fresh["seq"] == seq and fresh["state"]["view"]["to_act"] == 0:
            break
        page.wait_for_timeout(100)  # (the page is still catching up, or it was not our turn yet)
    shown = page.evaluate("window.spadesTable.state")
    state = fresh["state"]
    for st in (shown, state):
        st.pop("turn")
        st.pop("game_seconds_left")
    assert fresh["seq"] == page.evaluate("window.spadesTable.lastSeq")
    assert shown == state
    assert len(asked) == 1
