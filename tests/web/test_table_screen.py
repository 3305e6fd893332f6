"""The table on one screen: at a phone's sizes (held upright and turned) and a desktop's, in every phase
(bidding, passing to a partner, the dealer's discard, playing), the whole hand, the seats, the score bar and
the action panel lie inside the viewport and the document does not scroll. Then what the page shows from
the engine (a set contract with a broken blind nil), focus after each action by keyboard, the mute setting,
the two-tap play of a card on a touch screen, and the cards a partner passed marked."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .conftest import LiveServer, screenshot, wait_still
from .test_table import CARD_SPOT, rewrite_server_messages

SIZES = {
    "390x844": (390, 844), "360x740": (360, 740), "844x390": (844, 390), "1280x800": (1280, 800),
    "1920x1080": (1920, 1080),
}
QUICK = ("390x844", "1280x800")

ONE_SCREEN = """() => {
  const W = window.innerWidth, H = window.innerHeight, out = [];
  const inside = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5; };
  const parts = '#hand-cards .hand-card, #actions, #action-buttons button, .seat-box, .side-score, #trick .trick-card';
  for (const e of document.querySelectorAll(parts)) {
    if (!inside(e)) out.push(e.id || (e.className + ' ' + (e.dataset.card || e.dataset.seat || '')));
  }
  // Seat names whole: no name is cut.
  for (const e of document.querySelectorAll('.seat-box .seat-name')) {
    if (e.scrollWidth > e.clientWidth + 1) out.push('cut name ' + e.textContent);
  }
  const se = document.scrollingElement;
  return {outside: out, cards: document.querySelectorAll('#hand-cards .hand-card').length,
          scrolls: se.scrollHeight > H, sideways: se.scrollWidth > W,
          chips: [...document.querySelectorAll('.seat-box .chip')].filter(inside).map((e) => e.textContent)};
}"""


@pytest.fixture
def sized(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """A page at the size in the test's parameter (phones with touch)."""
    name = str(request.param)
    w, h = SIZES[name]
    phone = w < 1000
    context = browser.new_context(viewport={"width": w, "height": h}, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(30_000)  # the machine is shared: a slow answer is not a failure
    page.size_name = name  # type: ignore[attr-defined]
    yield page
    context.close()
    assert not errors, errors


def open_table(page: Any, server: LiveServer, rules: Any) -> None:
    page.goto(f"{server.url}/")
    page.wait_for_selector("html[data-ready=home]", state="attached")
    made = page.evaluate("""(rules) => fetch('/api/play', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: JSON.stringify({rules, bot_level: 'random'})})
        .then(r => r.json())""", rules)
    page.goto(f"{server.url}/table.html?id={made['id']}&invite={made['invite']}")
    page.wait_for_selector("html[data-ready=table]", state="attached")


def one_screen(page: Any, phase: str) -> dict[str, Any]:
    wait_still(page)  # a card in flight lands
    seen = page.evaluate(ONE_SCREEN)
    assert seen["outside"] == [] and not seen["scrolls"] and not seen["sideways"], (phase, seen)
    assert seen["cards"] >= 12, (phase, seen)
    assert "dealer" in seen["chips"] and "computer" in seen["chips"], (phase, seen)
    screenshot(page, f"screen-{phase}-{page.size_name}")
    return seen


def size_params() -> list[Any]:
    return [pytest.param(k, marks=[] if k in QUICK else [pytest.mark.slow]) for k in SIZES]


@pytest.mark.parametrize("sized", size_params(), indirect=True)
def test_bidding_passing_and_playing_fit_one_screen(sized: Any, game_server: LiveServer) -> None:
    page = sized
    open_table(page, game_server, {"preset": "standard", "nil_pass": 2})  # we deal: we bid last
    page.wait_for_selector("#action-buttons [data-bid='nil']")
    one_screen(page, "bid")
    page.click("#action-buttons [data-bid='nil']")
    page.wait_for_selector("#confirm-cards")
    one_screen(page, "pass")
    # The random partner may bid nil too: then there is a second exchange, and the Pass panel comes back.
    rounds = 0
    while page.query_selector("#confirm-cards") is not None and rounds < 4:
        rounds += 1
        page.wait_for_function("document.getElementById('confirm-cards') === null"
                               " || document.getElementById('confirm-cards')?.textContent.includes('0/2')")
        if page.query_selector("#confirm-cards") is None:
            break
        # Pass cards of our own: a card received in the first exchange may go back in the second, and then
        # it is no longer in the hand to be counted as received.
        codes = page.eval_on_selector_all("#hand-cards button[aria-pressed=false]:not(.received)",
                                          "els => els.map(e => e.dataset.card)")
        for code in codes[:2]:
            page.click(f"#hand-cards button[data-card='{code}']", position=CARD_SPOT)
            page.wait_for_selector(f"#hand-cards button[data-card='{code}'][aria-pressed=true]")
        page.wait_for_function("document.getElementById('confirm-cards')?.textContent.includes('2/2')")
        page.click("#confirm-cards")
        # The page redraws the panel at 0/2 as soon as it sends the pass, so the panel says nothing of the
        # server's answer: this exchange is over once the partner's two cards are in the hand, marked...
        page.wait_for_function(f"document.querySelectorAll('#hand-cards .received').length >= {2 * rounds}",
                               timeout=30_000)
        # ...and then either another exchange asks for our cards or a seat is to play (a random partner
        # takes its time, the more so on a loaded machine: no fixed pause decides it).
        page.wait_for_function("document.getElementById('confirm-cards')?.textContent.includes('0/2')"
                               " || [...document.querySelectorAll('#seats .chip.turn')]"
                               ".some((c) => c.textContent === 'to play')", timeout=30_000)
    page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]")
    # The two cards the partner passed are marked, in the picture and in their names, until play starts.
    received = page.eval_on_selector_all("#hand-cards .received", "els => els.map(e => e.getAttribute('aria-label'))")
    assert len(received) == 2 * rounds and all("passed to you by" in r for r in received), (rounds, received)
    one_screen(page, "play")


@pytest.mark.parametrize("sized", size_params(), indirect=True)
def test_the_dealers_discard_fits_one_screen(sized: Any, game_server: LiveServer) -> None:
    open_table(sized, game_server, "jokers-54")
    sized.wait_for_selector("#confirm-cards")
    assert one_screen(sized, "discard")["cards"] == 15


THEIRS = {"seats": [1, 3], "contract": 6, "tricks": 3, "needed": 3, "status": "open", "nils": []}


def position(bids: list[str], tricks: list[int], ours: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """A rewrite of a four-seat view to a position: the bids, the tricks taken and our side's report from the
    engine (theirs: a 6 that needs 3)."""
    def rewrite(view: dict[str, Any]) -> None:
        if isinstance(view.get("bids"), list) and len(view["bids"]) == 4:
            view["bids"], view["tricks_taken"], view["sides"] = bids, tricks, [ours, THEIRS]
    return rewrite


# The hand: partner's blind nil took 2 tricks, our 4 took 3; the engine says set.
broken_blind_nil = position(["4", "3", "blind nil", "3"], [3, 3, 2, 3], {
    "seats": [0, 2], "contract": 4, "tricks": 3, "needed": 1, "status": "set",
    "nils": [{"seat": 2, "bid": "blind nil", "tricks": 2, "status": "broken"}]})
# Both of our side bid nil and have taken nothing yet (the engine's contract of 0, made by itself).
both_nil = position(["nil", "3", "nil", "3"], [0, 2, 0, 1], {
    "seats": [0, 2], "contract": 0, "tricks": 0, "needed": 0, "status": "made",
    "nils": [{"seat": 0, "bid": "nil", "tricks": 0, "status": "alive"},
             {"seat": 2, "bid": "nil", "tricks": 0, "status": "alive"}]})


def kept_in_whole_views(rewrite: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    """A rewrite of the server's messages that applies ``rewrite`` to every whole view; the changes of the
    real game that follow no longer fit that position, so they leave the view alone (the page keeps
    showing it)."""
    def apply(data: dict[str, Any]) -> None:
        view = data["view"]
        if not isinstance(view, dict):
            return
        if "dealer" in view and "legal" in view:
            rewrite(view)
        elif "state" not in data:
            data["view"] = {}
    return apply


@pytest.mark.parametrize("sized", ["390x844"], indirect=True)
def test_a_set_contract_with_a_broken_blind_nil_shows_set(sized: Any, game_server: LiveServer) -> None:
    page = sized
    rewrite_server_messages(page, "view", kept_in_whole_views(broken_blind_nil))
    open_table(page, game_server, "standard")
    page.wait_for_function("(document.querySelector('[data-testid=pad-hand-0]') || {}).textContent"
                           " && document.querySelector('[data-testid=pad-hand-0]')?.textContent.includes('bid 4')")
    ours = page.text_content("[data-testid=pad-hand-0]") or ""
    assert "set" in ours and "made" not in ours, ours
    assert "broken" in ours and "took 3" in ours, ours
    assert "needs 3" in (page.text_content("[data-testid=pad-hand-1]") or "")
    assert page.text_content("[data-testid=seat-2-nil]") == "blind nil: broken"
    assert page.is_visible("[data-testid=pad-hand-0]")
    screenshot(page, "screen-set-blind-nil-390x844")


@pytest.mark.parametrize("sized", ["390x844"], indirect=True)
def test_a_side_of_two_nils_shows_its_nils_and_no_contract(sized: Any, game_server: LiveServer) -> None:
    page = sized
    rewrite_server_messages(page, "view", kept_in_whole_views(both_nil))
    open_table(page, game_server, "standard")
    page.wait_for_function("document.querySelector('[data-testid=pad-hand-0]')?.textContent?.includes('nil')")
    ours = page.text_content("[data-testid=pad-hand-0]") or ""
    assert ours.count("nil no trick yet") == 2 and "bid 0" not in ours and "made" not in ours, ours
    assert "bid 6 · took 3 · needs 3" in (page.text_content("[data-testid=pad-hand-1]") or "")


@pytest.mark.parametrize("sized", ["1280x800"], indirect=True)
def test_keyboard_focus_follows_the_game(sized: Any, game_server: LiveServer) -> None:
    """Bid and play with the keyboard alone: after each action the focus is on the next sensible control
    (a card to play, or the hand while others play), never on the page's body."""
    page = sized
    open_table(page, game_server, "standard")
    page.wait_for_selector("#action-buttons [data-bid='3']")
    page.focus("#action-buttons [data-bid='3']")
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]")
    for _ in range(3):  # three cards, each played with Enter where the focus already is
        page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]")
        focused = ("document.activeElement && document.activeElement.matches("
                   "'#hand-cards button.hand-card[aria-disabled=false]')")
        try:
            page.wait_for_function(focused, timeout=5_000)
        except Exception:
            raise AssertionError(page.evaluate("[document.activeElement.outerHTML.slice(0, 200), "
                                               "document.getElementById('action-prompt').textContent]")) from None
        before = page.locator("#hand-cards button.hand-card").count()
        page.keyboard.press("Enter")
        page.wait_for_function(f"document.querySelectorAll('#hand-cards button.hand-card').length < {before}")
        assert page.evaluate("document.activeElement !== document.body")
    # A card played and a trick taken are said to a screen reader, politely.
    page.wait_for_function("document.getElementById('announce')?.textContent.includes('took the trick')")
    assert page.get_attribute("#announce", "aria-live") == "polite"
    assert "played the" in (page.text_content("#announce") or "")


@pytest.mark.parametrize("sized", ["390x844"], indirect=True)
def test_mute_is_remembered_and_silences_the_turn_tone(sized: Any, game_server: LiveServer) -> None:
    page = sized
    open_table(page, game_server, "standard")
    page.wait_for_selector("#action-buttons [data-bid]")
    page.wait_for_function("window.spadesTable.cues.includes('turn')")
    assert page.get_attribute("#mute", "aria-pressed") == "false"
    page.click("#mute")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    # While the tab is hidden, the title says it is our turn.
    page.evaluate("""() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
        document.dispatchEvent(new Event('visibilitychange')); }""")
    assert page.title().startswith("Your turn")
    page.reload()
    page.wait_for_selector("#action-buttons [data-bid]")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    page.wait_for_timeout(300)
    assert page.evaluate("window.spadesTable.cues") == []
    assert page.title() == "Table · Spades"


@pytest.mark.parametrize("sized", ["390x844"], indirect=True)
def test_a_tapped_card_lifts_and_a_second_tap_plays_it(sized: Any, game_server: LiveServer) -> None:
    page = sized
    open_table(page, game_server, "standard")
    page.wait_for_selector("#action-buttons [data-bid='3']")
    page.tap("#action-buttons [data-bid='3']")
    page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]")
    card = page.locator("#hand-cards button.hand-card[aria-disabled=false]").first
    code = card.get_attribute("data-card")
    card.tap(position=CARD_SPOT)
    lifted = page.locator(f"#hand-cards button.lifted[data-card='{code}']")
    lifted.wait_for()
    assert "press again to play" in (lifted.get_attribute("aria-label") or "")
    lifted.tap(position=CARD_SPOT)
    page.wait_for_selector(f"#hand-cards [data-card='{code}']", state="detached")
    # One-tap play, chosen in the settings, is remembered and plays at once.
    page.click("#open-panels")
    page.check("#one-tap")
    page.click("#close-panels")
    page.reload()
    page.wait_for_selector("#hand-cards button.hand-card[aria-disabled=false]", timeout=20_000)
    card = page.locator("#hand-cards button.hand-card[aria-disabled=false]").first
    code = card.get_attribute("data-card")
    card.tap(position=CARD_SPOT)
    page.wait_for_selector(f"#hand-cards [data-card='{code}']", state="detached")


def tied(state: dict[str, Any]) -> None:
    state["goes_on"] = "Tied for the lead at 510: the game is to 500, but a tie never ends a game."


@pytest.mark.parametrize("sized", ["390x844"], indirect=True)
def test_a_tied_game_says_why_it_goes_on_and_errors_name_the_player(sized: Any, game_server: LiveServer) -> None:
    page = sized
    rewrite_server_messages(page, "goes_on", tied)
    open_table(page, game_server, "standard")
    page.wait_for_selector("#tie-note:not([hidden])")
    assert "a tie never ends a game" in (page.text_content("#tie-note") or "")
    # The engine counts seats from 0; a person reads the seat's name.
    page.wait_for_selector("#action-buttons [data-bid]")
    page.evaluate("window.spadesTable.act({bid: 99})")
    page.wait_for_function("(document.getElementById('action-error')?.textContent || '') !== ''")
    error = page.text_content("#action-error") or ""
    me = page.text_content(".seat-box.me .seat-name") or ""
    assert "seat 0" not in error.lower() and me in error, (error, me)
