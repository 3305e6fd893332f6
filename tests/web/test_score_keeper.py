"""The score keeper in a real browser: the seed's worked hands, editing, undo, reload, offline, export,
at phone and desktop sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer, screenshot

HAND_1 = ([3, "nil", 2, 6], [5, 1, 3, 4])  # seed: N/S 3+2 take 8 -> 53; E nil takes 1, W 6 takes 4 -> -160
HAND_1_NIL_MADE = ([3, "nil", 2, 6], [5, 0, 3, 5])  # had E taken none and W five -> +40
HAND_2 = ([3, 2, 2, 2], [5, 2, 4, 2])  # N/S bid 5 take 9 -> 107 (7 bags)
HAND_3 = ([2, 3, 2, 3], [4, 3, 3, 3])  # N/S bid 4 take 7 -> 150 - 100 = 50 (0 bags)


def new_game(page: Any, server: LiveServer, name: str = "Kitchen table", preset: str = "standard") -> None:
    page.goto(f"{server.url}/score.html#new")
    page.wait_for_selector("#option-grid .field", state="attached")
    page.fill("#game-name", name)
    if preset != "standard":
        page.select_option("#preset", preset)
    page.wait_for_selector(f"#new-form[data-checked='{preset}']", state="attached")
    page.click("#start-game")
    page.wait_for_selector("#bid-0")


def open_all_rules(page: Any) -> None:
    """Open "More house rules" and each of its groups."""
    page.click("#opt-more > summary")
    for group in page.locator("#opt-more details.rule-group > summary").all():
        group.click()


def enter_hand(page: Any, bids: list[Any], tricks: list[int]) -> None:
    for seat, (bid, took) in enumerate(zip(bids, tricks, strict=True)):
        page.select_option(f"#bid-{seat}", str(bid))
        page.fill(f"#tricks-{seat}", str(took))
    before = page.locator("#sheet-body tr[data-hand]").count()
    page.click("#add-hand")
    # A new hand adds a row; its totals come from the server a moment later (see totals()).
    page.wait_for_function(f"document.querySelectorAll('#sheet-body tr[data-hand]').length > {before}")


def totals(page: Any) -> list[str]:
    page.wait_for_function("![...document.querySelectorAll('[data-testid^=total-]')]"
                           ".some(e => e.textContent === '…')")
    return [page.text_content(f"[data-testid=total-{k}]") for k in range(2)]


def hand_totals(page: Any, side: int) -> list[str]:
    return [t.strip() for t in page.locator(f"[data-testid$='-total-{side}']").all_text_contents()]


def test_seed_worked_hands_edit_undo_and_reload(page: Any, live_server: LiveServer,
                                                viewport: tuple[str, dict[str, int]]) -> None:
    new_game(page, live_server)
    enter_hand(page, *HAND_1)
    assert totals(page) == ["53", "-160"]
    page.click("#sheet-body details.explain summary")
    explained = page.text_content("#sheet-body details.explain")
    assert "nil failed (East took 1 trick): -100" in explained
    assert "set: contract of 6, took 4: -60" in explained

    # Edit the hand: had East taken none and West five, East & West score +40.
    page.click("button[aria-label='Edit hand 1']")
    assert page.text_content("#hand-title") == "Edit hand 1"
    assert page.input_value("#bid-1") == "nil" and page.input_value("#tricks-3") == "4"
    for seat, took in enumerate(HAND_1_NIL_MADE[1]):
        page.fill(f"#tricks-{seat}", str(took))
    page.click("#add-hand")
    page.wait_for_function("document.querySelector('[data-testid=total-1]')?.textContent === '40'")
    assert totals(page) == ["53", "40"]

    # Back to the seed's hand, then the bag sequence 53, 107, 50.
    page.click("button[aria-label='Edit hand 1']")
    for seat, took in enumerate(HAND_1[1]):
        page.fill(f"#tricks-{seat}", str(took))
    page.click("#add-hand")
    page.wait_for_function("document.querySelector('[data-testid=total-1]')?.textContent === '-160'")
    enter_hand(page, *HAND_2)
    page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '107'")
    enter_hand(page, *HAND_3)
    page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '50'")
    assert totals(page)[0] == "50"
    assert hand_totals(page, 0) == ["53", "107", "50"]
    assert page.text_content("#totals [data-side='0'] .bags") == "0 bags"

    # The hands survive a reload (they live in localStorage).
    page.reload()
    page.wait_for_selector("[data-testid=hand-2-total-0]")
    assert hand_totals(page, 0) == ["53", "107", "50"]

    # Undo takes the last hand back; "Put it back" restores it.
    page.click("#undo-hand")
    page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '107'")
    page.click("#redo-hand")
    page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '50'")
    name = viewport[0]
    page.click("#sheet-body tr.explain-row:nth-of-type(2) summary")
    screenshot(page, f"score-keeper-{name}")


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_wrong_tricks_are_refused_and_offline_hands_are_kept(page: Any, live_server: LiveServer) -> None:
    new_game(page, live_server)
    bids, tricks = HAND_1
    for seat in range(4):
        page.select_option(f"#bid-{seat}", str(bids[seat]))
        page.fill(f"#tricks-{seat}", str(tricks[seat]))
    page.fill("#tricks-3", "3")
    page.click("#add-hand")
    assert "add up to 12" in page.text_content("#hand-error")
    assert page.locator("#sheet-body tr[data-hand]").count() == 0
    # The bids offered are the engine's (bid_choices): no blind nil while no side is 100 behind.
    page.fill("#tricks-3", "4")
    offered = page.eval_on_selector_all("#bid-1 option", "els => els.map(e => e.value)")
    assert "nil" in offered and "13" in offered and "blind nil" not in offered
    enter_hand(page, *HAND_1)

    # The service worker has saved the pages: the score keeper opens again without a connection.
    assert page.evaluate("navigator.serviceWorker.ready.then(r => Boolean(r.active))")
    page.context.set_offline(True)
    enter_hand(page, *HAND_2)
    page.wait_for_function("document.getElementById('score-status')?.textContent.includes('Offline')")
    # Scored on the device by the twin of the engine's scoring, under the same rules.
    assert page.text_content("[data-testid=total-0]") == "107"
    assert page.locator("#sheet-body tr[data-hand]").count() == 2
    page.reload()
    page.wait_for_selector("html[data-ready=score]", state="attached")
    page.wait_for_function("document.getElementById('score-status')?.textContent.includes('Offline')")
    assert page.locator("#sheet-body tr[data-hand]").count() == 2
    assert page.text_content("[data-testid=hand-0-total-0]") == "53"
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    # The server's answer replaces the device's (and agrees with it).
    page.wait_for_function("document.getElementById('score-status')?.textContent === ''")
    assert page.text_content("[data-testid=total-0]") == "107"


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_several_games_export_and_import(page: Any, live_server: LiveServer, tmp_path: Path) -> None:
    new_game(page, live_server, name="Friday")
    enter_hand(page, *HAND_1)
    new_game(page, live_server, name="Three of us", preset="three-handed")
    assert page.locator("#seats .seat-row").count() == 3
    page.goto(f"{live_server.url}/score.html")
    page.wait_for_selector("#game-list li")
    names = page.locator("#game-list li").all_text_contents()
    assert len(names) == 2 and any("Friday" in n and "53" in n for n in names)

    page.click("text=Friday")
    page.wait_for_selector("[data-testid=hand-0-total-0]")
    with page.expect_download() as info:
        page.click("#export-json")
    path = tmp_path / "friday.json"
    info.value.save_as(str(path))
    data = json.loads(path.read_text())
    assert data["rules"] == "standard"
    assert data["hands"] == [{"bids": [3, "nil", 2, 6], "tricks": [5, 1, 3, 4]}]

    page.goto(f"{live_server.url}/score.html")
    page.set_input_files("#import-file", str(path))
    page.wait_for_selector("[data-testid=hand-0-total-0]")
    assert totals(page) == ["53", "-160"]
    page.goto(f"{live_server.url}/score.html")
    assert page.locator("#game-list li").count() == 3


@pytest.mark.slow
@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_house_rules_change_the_score(page: Any, live_server: LiveServer) -> None:
    page.goto(f"{live_server.url}/score.html#new")
    page.wait_for_selector("#opt-nil_points", state="attached")
    open_all_rules(page)
    page.fill("#opt-nil_points", "50")
    page.dispatch_event("#opt-nil_points", "change")
    page.wait_for_function("document.getElementById('override-count')?.textContent.includes('1 changed')")
    page.fill("#opt-target", "7")
    page.dispatch_event("#opt-target", "change")
    page.wait_for_function("document.getElementById('rules-status')?.textContent.includes('cannot be played')")
    assert page.is_disabled("#start-game")
    page.fill("#opt-target", "300")
    page.dispatch_event("#opt-target", "change")
    page.wait_for_function("document.getElementById('start-game')?.disabled === false")
    page.click("#start-game")
    page.wait_for_selector("#bid-0")
    assert "Nil is worth: 50" in page.text_content("#game-rules")
    enter_hand(page, *HAND_1)
    assert totals(page) == ["53", "-110"]


def test_a_slow_rules_check_keeps_what_is_being_typed(page: Any, live_server: LiveServer) -> None:
    # Each check answers 400 ms late: the player goes on typing into the next field meanwhile, and the
    # answer to the first change must neither replace that field nor reset what is in it.
    page.add_init_script("""
        const realFetch = window.fetch;
        window.fetch = (url, opts) => String(url).includes('/api/rules/check')
            ? new Promise((done) => setTimeout(done, 400)).then(() => realFetch(url, opts))
            : realFetch(url, opts);
    """)
    page.goto(f"{live_server.url}/score.html#new")
    page.wait_for_selector("#opt-nil_points", state="attached")
    open_all_rules(page)
    page.fill("#opt-nil_points", "50")
    page.dispatch_event("#opt-nil_points", "change")
    page.fill("#opt-target", "7")
    page.wait_for_selector("#option-grid .field.changed #opt-nil_points", state="attached")
    assert page.input_value("#opt-target") == "7"
    assert page.evaluate("document.activeElement.id") == "opt-target"
    assert page.input_value("#opt-nil_points") == "50"
    page.dispatch_event("#opt-target", "change")
    page.wait_for_function("document.getElementById('rules-status')?.textContent.includes('cannot be played')")
    assert page.input_value("#opt-target") == "7"
    page.fill("#opt-target", "300")
    page.dispatch_event("#opt-target", "change")
    page.wait_for_function("document.getElementById('start-game')?.disabled === false")
    # Typing a house rule and pressing Start at once: the start waits for the slow check of it.
    page.fill("#opt-nil_points", "60")
    page.click("#start-game")
    page.wait_for_selector("#bid-0")
    rules = page.text_content("#game-rules")
    assert "Nil is worth: 60" in rules and "game to 300" in rules


def test_enter_confirms_a_rule_and_shows_it_as_checked(page: Any, live_server: LiveServer) -> None:
    # Enter in a house-rule field checks that rule and does not start the game (more rules may follow).
    page.goto(f"{live_server.url}/score.html#new")
    page.wait_for_selector("#opt-removed_cards", state="attached")
    open_all_rules(page)
    page.press("#opt-nil_points", "Enter")  # nothing typed: nothing changes
    page.fill("#opt-removed_cards", "2c 10h")
    page.press("#opt-removed_cards", "Enter")  # confirms this rule; the field keeps the focus
    page.wait_for_function("document.getElementById('opt-removed_cards')?.value === '2C, TH'")
    assert page.evaluate("document.activeElement.id") == "opt-removed_cards"
    assert page.is_visible("#new-form") and page.text_content("#override-count") == "(1 changed)"
    page.fill("#opt-target", "300")
    page.press("#opt-target", "Enter")
    page.wait_for_function("document.getElementById('override-count')?.textContent === '(2 changed)'")
    assert page.is_visible("#new-form") and not page.is_visible("#bid-0")
    page.click("#start-game")  # the button starts the game, with both rules
    page.wait_for_selector("#bid-0")
    assert "Cards taken out: 2C, TH" in page.text_content("#game-rules")
    assert "game to 300" in page.text_content("#game-rules")


def enter_side_hand(page: Any, sides: list[tuple[int | None, int, dict[int, str]]]) -> None:
    """Enter a hand per side: (bid or None, tricks, {seat: "nil made" / "nil failed 1" ...})."""
    for k, (bid, took, nils) in enumerate(sides):
        for seat, what in nils.items():
            choice, _, count = what.partition("failed")
            page.select_option(f"#nil-{seat}", (choice + "failed").strip() if count else what)
            if count:
                page.fill(f"#nil-tricks-{seat}", count.strip())
        if bid is not None:
            page.select_option(f"#side-bid-{k}", str(bid))
        page.fill(f"#side-tricks-{k}", str(took))
    before = page.locator("#sheet-body tr[data-hand]").count()
    page.click("#add-hand")
    page.wait_for_function(f"document.querySelectorAll('#sheet-body tr[data-hand]').length > {before}")


def test_hands_entered_per_side(page: Any, live_server: LiveServer, viewport: tuple[str, dict[str, int]]) -> None:
    new_game(page, live_server, name="By sides")
    page.check("#entry-side")
    page.wait_for_selector("#side-bid-0")
    assert page.locator("#seats fieldset.side-entry").count() == 2
    # The seed's first hand: North & South bid 5 and take 8; East's nil fails (1 trick), West bid 6.
    page.select_option("#side-bid-0", "5")
    page.fill("#side-tricks-0", "8")
    page.fill("#side-tricks-1", "4")
    page.select_option("#nil-1", "nil failed")
    page.select_option("#side-bid-1", "6")
    page.click("#add-hand")
    assert "add up to 12" in page.text_content("#hand-error")
    page.fill("#side-tricks-1", "5")
    page.click("#add-hand")
    page.wait_for_selector("[data-testid=hand-0-total-0]")
    assert totals(page) == ["53", "-160"]
    assert "bid 6 + East nil failed (1) · took 5" in page.text_content("#sheet-body tr[data-hand='0']")
    # An all-nil side has no bid to choose.
    page.select_option("#nil-1", "nil made")
    page.select_option("#nil-3", "nil made")
    assert page.is_disabled("#side-bid-1")
    page.select_option("#nil-3", "")
    # The way of entering is kept for the game; the next two hands of the seed give 107, then 50.
    page.reload()
    page.wait_for_selector("#side-bid-0")
    assert page.is_checked("#entry-side")
    enter_side_hand(page, [(5, 9, {}), (4, 4, {})])
    page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '107'")
    screenshot(page, f"score-keeper-sides-{viewport[0]}")
    enter_side_hand(page, [(4, 7, {}), (6, 6, {})])
    page.wait_for_function("document.querySelector('[data-testid=total-0]')?.textContent === '50'")
    assert hand_totals(page, 0) == ["53", "107", "50"]
    # Editing a hand entered per side opens it per side, with what was entered.
    page.click("button[aria-label='Edit hand 1']")
    assert page.input_value("#side-bid-1") == "6" and page.input_value("#nil-1") == "nil failed"
    assert page.input_value("#nil-tricks-1") == "1" and page.input_value("#side-tricks-0") == "8"
    page.fill("#side-tricks-0", "9")
    page.fill("#side-tricks-1", "4")
    page.click("#add-hand")  # N/S take one more: 54 in hand 1
    page.wait_for_function("document.querySelector('[data-testid=hand-0-total-0]')?.textContent === '54'")
    # A hand of the same game may still be entered per player.
    page.check("#entry-seat")
    page.wait_for_selector("#bid-0")
