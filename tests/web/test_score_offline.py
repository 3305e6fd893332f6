"""The score keeper counts without a network: a game under house rules scored hand by hand with the network
cut, each hand's points, bags and the totals equal to spades.core's (the twin in js/scoring.js), the hand's
score shown as it is typed, a refused hand named by its players; at phone and desktop sizes."""

from __future__ import annotations

import random
from typing import Any

from spades.core.errors import SpadesError
from spades.scorekeeper import ScoreSheet
from spades.variants import load_rules

from .conftest import LiveServer, screenshot

RULES = {"preset": "standard", "nil_points": 50, "min_side_bid": 4, "bag_limit": 5, "bag_penalty": 50}
NAMES = ["North", "East", "South", "West"]


def seeded_hands(count: int, seed: int) -> list[tuple[list[Any], list[int]]]:
    """Hands the engine accepts under RULES, one after another (nils, sets, bags and bag penalties)."""
    rules = load_rules(RULES)
    rng = random.Random(seed)
    sheet = ScoreSheet(rules)
    out: list[tuple[list[Any], list[int]]] = []
    while len(out) < count:
        tricks = [0, 0, 0, 0]
        for _ in range(13):
            tricks[rng.randrange(4)] += 1
        bids: list[Any] = ["nil" if rng.random() < 0.15 else max(1, t + rng.choice((-2, -1, 0, 1))) for t in tricks]
        try:
            sheet.add_hand(bids, tricks)
        except SpadesError:
            continue
        out.append((bids, tricks))
    return out


def test_a_game_scored_offline_equals_the_engine(page: Any, live_server: LiveServer,
                                                 viewport: tuple[str, dict[str, int]]) -> None:
    page.goto(f"{live_server.url}/score.html#new")
    page.wait_for_selector("#start-game:not([disabled])")
    page.fill("#game-name", "Offline night")
    page.fill("#opt-nil_points", "50")
    page.dispatch_event("#opt-nil_points", "change")
    page.click("#opt-more > summary")
    for group in page.locator("#opt-more details.rule-group > summary").all():
        group.click()
    for name, value in (("min_side_bid", "4"), ("bag_limit", "5"), ("bag_penalty", "50")):
        page.fill(f"#opt-{name}", value)
        page.dispatch_event(f"#opt-{name}", "change")
    page.wait_for_function("document.getElementById('override-count')?.textContent === '(4 changed)'")
    page.wait_for_function("document.getElementById('start-game')?.disabled === false")
    page.click("#start-game")
    page.wait_for_selector("#bid-0")

    page.context.set_offline(True)
    # A hand the rules refuse (the side's contract under min_side_bid) is refused offline too, in names.
    for seat, (bid, took) in enumerate(zip([1, 5, 1, 4], [3, 4, 3, 3], strict=True)):
        page.select_option(f"#bid-{seat}", str(bid))
        page.fill(f"#tricks-{seat}", str(took))
    page.wait_for_function("document.getElementById('hand-preview')?.textContent.includes('cannot be scored')")
    page.click("#add-hand")
    page.wait_for_function("document.getElementById('hand-error')?.textContent.includes('min_side_bid')")
    error = page.text_content("#hand-error")
    assert "North & South" in error and "side 0" not in error, error
    assert page.locator("#sheet-body tr[data-hand]").count() == 0

    rules = load_rules(RULES)
    sheet = ScoreSheet(rules)
    for i, (bids, tricks) in enumerate(seeded_hands(6, seed=len(viewport[0]))):
        for seat, (bid, took) in enumerate(zip(bids, tricks, strict=True)):
            page.select_option(f"#bid-{seat}", str(bid))
            page.fill(f"#tricks-{seat}", str(took))
        sides = sheet.add_hand(bids, tricks)
        # The hand's score appears as it is typed, worked out on the device.
        page.wait_for_function("(t) => document.getElementById('hand-preview')?.textContent.includes(t)",
                               arg=f"North & South {'+' if sides[0].points > 0 else ''}{sides[0].points}")
        assert page.get_attribute("#hand-preview", "data-source") == "device"
        page.click("#add-hand")
        page.wait_for_selector(f"[data-testid=hand-{i}-total-1]")
        for k in range(2):
            assert page.text_content(f"[data-testid=hand-{i}-total-{k}]") == str(sum(
                h[k].points for h in sheet.hands))
            assert page.text_content(f"[data-testid=total-{k}]") == str(sheet.totals[k])
            bags = sheet.bags[k]
            assert page.text_content(f".total-card[data-side='{k}'] .bags") == f"{bags} bag{'' if bags == 1 else 's'}"
        if sheet.over:
            break
    assert "Offline" in page.text_content("#score-status")
    # The lines explaining a hand name the players, as the server's do.
    page.click("#sheet-body details.explain >> nth=0")
    assert "seat " not in page.text_content("#sheet-body details.explain >> nth=0")
    screenshot(page, f"score-keeper-offline-{viewport[0]}")

    # Back online, the server's answer replaces the device's and agrees with it.
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.wait_for_function("document.getElementById('score-status')?.textContent === ''")
    assert page.text_content("[data-testid=total-0]") == str(sheet.totals[0])


def test_a_tie_past_the_target_says_why_the_game_goes_on(page: Any, live_server: LiveServer) -> None:
    page.goto(f"{live_server.url}/score.html#new")
    page.wait_for_selector("#start-game:not([disabled])")
    page.click("#opt-more > summary")
    page.click("#opt-more details[data-group=scoring] > summary")
    page.fill("#opt-target", "100")
    page.dispatch_event("#opt-target", "change")
    page.wait_for_function("document.getElementById('rules-status')?.textContent.includes('game to 100')")
    page.click("#start-game")
    page.wait_for_selector("#bid-0")
    for n, tricks in enumerate(([3, 4, 3, 3], [4, 3, 3, 3]), start=1):
        for seat, took in enumerate(tricks):
            page.select_option(f"#bid-{seat}", "3")
            page.fill(f"#tricks-{seat}", str(took))
        page.click("#add-hand")
        page.wait_for_function(f"document.querySelectorAll('#sheet-body tr[data-hand]').length === {n}")
        page.wait_for_selector(f"[data-testid=hand-{n - 1}-total-1]")
    page.wait_for_function("document.getElementById('tie-note')?.textContent.includes('tied at 121')")
    note = page.text_content("#tie-note")
    assert "North & South and East & West" in note and "goes on" in note
    assert page.is_visible("#hand-form")
    assert "1 bag" in page.text_content(".total-card[data-side='0'] .bags")
