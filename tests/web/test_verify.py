"""Verifying a revealed deal: ``POST /api/verify/hand``, the verify page in a browser, and the table page's
"Verify this deal" link after a hand."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlencode

import pytest

from spades.core.cards import card_text, cards_of
from spades.shuffle.fair import commitment, derive_permutation, new_server_seed
from spades.shuffle.verify import check_hand, derive_hand
from spades.variants import load_rules

from .conftest import LiveServer, TestClient, screenshot
from .test_table import start_game, take_turn

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
CLIENTS = ["alice", "bob", "carol", "dave"]
# The worked example of docs/fair-dealing.md: the dealer is seat 3, so seat 0 is the dealer's left.
EXAMPLE_SEAT_0 = ["QH", "5D", "3S", "AH", "TC", "KS", "6H", "3D", "QD", "6D", "7D", "7S", "TH"]


def honest(rules: Any = "standard", dealer: int = 3, clients: list[str] | None = None,
           seed: str = SEED) -> dict[str, Any]:
    """A request body for a deal exactly as a table would reveal it."""
    return {"rules": rules, "dealer": dealer, "commitment": commitment(seed), "seed": seed,
            "client_seeds": CLIENTS if clients is None else clients}


def verify(client: TestClient, body: Any, status: int = 200) -> dict[str, Any]:
    r = client.post("/api/verify/hand", json=body)
    assert r.status_code == status, r.text
    data: dict[str, Any] = r.json()
    return data


def test_an_honest_deal_verifies(client: TestClient) -> None:
    data = verify(client, honest())
    assert data["ok"] is True and "matches" in data["reason"]
    assert sorted(data["deal"][0]) == sorted(EXAMPLE_SEAT_0)  # the worked example of the docs
    assert [len(h) for h in data["deal"]] == [13, 13, 13, 13]
    assert len({c for h in data["deal"] for c in h}) == 52
    assert data["out"] == [] and "stock" not in data
    # Sorted for display: suit by suit (clubs first), two to ace.
    assert data["deal"][1] == sorted(data["deal"][1], key=lambda t: ("CDHS".index(t[1]), "23456789TJQKA".index(t[0])))
    # The same verdict as `spades verify` gives for a record hand carrying this deal.
    rules = load_rules("standard")
    hd = {"dealer": 3, "commitment": commitment(SEED), "seed": SEED, "client_seeds": CLIENTS, "deal": data["deal"]}
    assert check_hand(rules, 0, hd).ok


def test_the_deal_is_the_engines(client: TestClient) -> None:
    for preset, dealer in [("six-handed", 5), ("three-handed-jokers", 1), ("standard", 0)]:
        seed = new_server_seed()
        data = verify(client, honest(preset, dealer, ["table-x", "7"], seed))
        hand = derive_hand(load_rules(preset), dealer, commitment(seed), seed, ["table-x", "7"])
        assert data["ok"]
        for seat, cards in enumerate(hand.dealt):
            assert sorted(data["deal"][seat]) == sorted(card_text(c) for c in cards_of(cards))
        assert sorted(data["out"]) == sorted(card_text(c) for c in cards_of(hand.out))


def test_two_handed_gives_the_stock(client: TestClient) -> None:
    data = verify(client, honest("two-handed", 1))
    hand = derive_hand(load_rules("two-handed"), 1, commitment(SEED), SEED, CLIENTS)
    assert data["ok"] and data["stock"] == [card_text(c) for c in hand.stock]
    assert len(data["stock"]) == 52


def test_a_tampered_seed_fails_with_the_reason(client: TestClient) -> None:
    body = honest()
    body["seed"] = SEED[:-1] + "0"
    data = verify(client, body)
    assert data["ok"] is False
    assert "does not match the commitment" in data["reason"]
    assert data["deal"] == [[], [], [], []]
    # Other client seeds still match the commitment, but deal other cards.
    other = verify(client, honest(clients=["alice", "bob", "carol", "eve"]))
    assert other["ok"] and sorted(other["deal"][0]) != sorted(EXAMPLE_SEAT_0)


@pytest.mark.parametrize(("change", "words"), [
    ({"seed": "xyz"}, "seed 'xyz' must be exactly 64 hex digits"),
    ({"seed": None}, "seed is missing"),
    ({"commitment": "12" * 31}, "commitment"),
    ({"commitment": 5}, "commitment is missing"),
    ({"dealer": 4}, "dealer must be a seat number from 0 to 3"),
    ({"dealer": True}, "dealer must be a seat number"),
    ({"dealer": "1"}, "dealer must be a seat number"),
    ({"client_seeds": "alice"}, "client_seeds must be a list of strings"),
    ({"client_seeds": ["a", 1]}, "client_seeds must be a list of strings"),
    ({"client_seeds": ["a"] * 65}, "at most 64"),
    ({"rules": "no-such-game"}, "rules: unknown preset"),
    ({"rules": {"preset": "standard", "target": "lots"}}, "rules: target"),
    ({"rules": [1, 2]}, "rules:"),
])
def test_malformed_input_is_refused_with_a_reason(client: TestClient, change: dict[str, Any], words: str) -> None:
    body = {**honest(), **change}
    data = verify(client, body, 400)
    assert words in data["error"]["reason"]


def test_a_body_that_is_not_an_object_is_refused(client: TestClient) -> None:
    r = client.post("/api/verify/hand", content=b"[1, 2]", headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    r = client.post("/api/verify/hand", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422


def fragment(body: dict[str, Any], seat: int, mine: list[str], myseed: str | None = None) -> str:
    """The verify page's fragment as the table page writes it."""
    parts = {"rules": body["rules"] if isinstance(body["rules"], str) else json.dumps(body["rules"]),
             "dealer": body["dealer"], "commitment": body["commitment"], "seed": body["seed"],
             "clients": json.dumps(body["client_seeds"]), "seat": seat, "mine": ",".join(mine)}
    if myseed is not None:
        parts["myseed"] = myseed
    return urlencode(parts)


def test_verify_page_shows_a_match_and_a_mismatch(page: Any, live_server: LiveServer,
                                                    viewport: tuple[str, dict[str, int]]) -> None:
    myseed = "9c1f0e57aa40b3d2c81e6f7a0b9d2e44"  # as a table page sends it: 32 random hex digits
    body = honest({"preset": "standard", "target": 250}, 3, ["(none)", myseed, "(bot)", "Ann_s-seed"],
                  new_server_seed())
    derived = derive_hand(load_rules("standard"), 3, body["commitment"], body["seed"], body["client_seeds"])
    mine = [card_text(c) for c in cards_of(derived.dealt[1])][::-1]  # any order will do
    page.goto(f"{live_server.url}/verify.html#{fragment(body, 1, mine, myseed)}")
    page.wait_for_selector("html[data-ready=verify]", state="attached")
    assert "matches the commitment" in page.text_content("#seed-verdict")
    assert page.text_content("#mine-verdict") == "Your 13 cards match the seeds."
    assert f"Your seed {myseed} is the client seed of your seat" in page.text_content("#seed-mine-verdict")
    seeds_shown = [page.text_content(f"[data-seat-seed='{i}']") for i in range(4)]
    assert seeds_shown == ["(none): no seed sent in time", myseed, "(bot): a computer player's seat", "Ann_s-seed"]
    assert page.locator("#verify-seats svg.card").count() == 52
    assert "(you)" in page.text_content(".verify-seat.mine h3")
    assert "Seat 4 (dealer)" in page.text_content("#verify-seats")
    assert "spades verify" in page.text_content("#by-hand")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    # The link to the explanation scrolls there without losing the deal in the address.
    page.click("a[href='#by-hand']")
    assert "seed=" in page.url
    screenshot(page, f"verify-{viewport[0]}")
    # A hand that is not the one the seeds deal: say which cards differ.
    tampered = [*mine[:-1], "AS" if "AS" not in mine else "2C"]
    if tampered[-1] in mine:
        tampered[-1] = next(c for c in ("AH", "AD", "KS") if c not in mine)
    page.goto(f"{live_server.url}/verify.html#{fragment(body, 1, tampered)}")
    page.wait_for_function("document.getElementById('mine-verdict')?.textContent.includes('NOT match')")
    text = page.text_content("#mine-verdict")
    assert f"You were dealt {tampered[-1]}" in text and f"The seeds give you {mine[-1]}" in text
    assert page.locator(".verify-seat.mine svg.differs").count() == 1
    screenshot(page, f"verify-mismatch-{viewport[0]}")
    # A seed that the page sent but the deal did not use.
    page.goto(f"{live_server.url}/verify.html#{fragment(body, 1, mine, 'not-the-one')}")
    page.wait_for_function("document.getElementById('seed-mine-verdict')?.textContent.includes('but the deal')")
    assert f'used "{myseed}" for your seat' in page.text_content("#seed-mine-verdict")
    # A revealed seed that does not match its commitment.
    bad = {**body, "seed": new_server_seed()}
    page.goto(f"{live_server.url}/verify.html#{fragment(bad, 1, mine)}")
    page.wait_for_function("document.getElementById('seed-verdict')?.textContent.includes('NOT match')")
    assert page.locator("#verify-seats svg").count() == 0
    # A link that lost a part says what is missing.
    page.goto(f"{live_server.url}/verify.html#dealer=1&seed={body['seed']}")
    page.wait_for_function("document.getElementById('verify-status')?.textContent.includes('commitment')")


@pytest.mark.slow
@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_table_links_to_the_deal_after_a_hand(page: Any, game_server: LiveServer) -> None:
    start_game(page, game_server)
    page.wait_for_selector("#action-buttons [data-bid]")
    deadline = time.monotonic() + 120
    while not page.is_visible("[data-testid=verify-link]"):
        assert time.monotonic() < deadline, "no verify link after the first hand"
        if take_turn(page) is None:
            page.wait_for_timeout(40)
    href = page.get_attribute("[data-testid=verify-link]", "href")
    assert href is not None and href.startswith("/verify.html#")
    for part in ("rules=", "dealer=", "commitment=", "seed=", "clients=", "seat=0", "mine=", "myseed="):
        assert part in href
    page.goto(f"{game_server.url}{href}")
    page.wait_for_selector("html[data-ready=verify]", state="attached")
    assert "matches the commitment" in page.text_content("#seed-verdict")
    assert page.text_content("#mine-verdict") == "Your 13 cards match the seeds."
    assert "is the client seed of your seat" in page.text_content("#seed-mine-verdict")
    assert page.text_content("[data-seat-seed='1']") == "(bot): a computer player's seat"


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_the_table_page_sends_a_random_seed_and_checks_the_deal_used_it(page: Any, game_server: LiveServer) -> None:
    start_game(page, game_server)
    page.wait_for_function("document.getElementById('seed-status')?.textContent.includes('was dealt with your seed')")
    status = page.text_content("#seed-status") or ""
    sent = status.rsplit(" ", 1)[-1].rstrip(".")
    assert len(sent) == 32 and all(c in "0123456789abcdef" for c in sent)  # 16 random bytes
    nxt = page.input_value("#seed-input")
    assert len(nxt) == 32 and nxt != sent  # a fresh one waits for the next deal
    # A seed the server would refuse is caught as it is typed, in the server's words.
    page.click("#open-panels")  # on a phone the side panels are a drawer beside the table
    page.click("#seed-title")  # the box is folded away until asked for
    page.fill("#seed-input", "caf\u00e9!")
    assert "character 4" in (page.text_content("#seed-error") or "") and page.is_visible("#seed-error")
    page.fill("#seed-input", "x" * 64)
    assert not page.is_visible("#seed-error")
    screenshot(page, "table-seed-phone")


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_the_browser_derives_the_deal_itself(page: Any, live_server: LiveServer) -> None:
    """js/deal.js computes spades-deal/1 with the browser's own Web Crypto: the same commitment and
    permutation as the Python reference, including client seeds outside ASCII and a 102-card deck."""
    page.goto(f"{live_server.url}/verify.html")
    page.wait_for_selector("html[data-ready=verify]", state="attached")
    cases = [(SEED, CLIENTS, 52), (new_server_seed(), ["(none)", "é ü", "😀 \"q\" \\", "(bot)"], 102),
             (new_server_seed().upper(), [], 54)]
    for seed, clients, n in cases:
        got = page.evaluate("""async ([seed, clients, n]) => {
            const d = await import('/js/deal.js');
            return {c: await d.commitmentOf(seed), p: await d.derivePermutation(seed, clients, n)};
        }""", [seed, clients, n])
        assert got == {"c": commitment(seed), "p": derive_permutation(seed, clients, n)}, (seed, clients, n)


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_the_verify_page_checks_the_servers_answer(page: Any, live_server: LiveServer) -> None:
    """The page deals the seeds itself and compares: it agrees with an honest answer at every table size
    and catches an answer whose deal was changed on the way."""

    def checked(body: dict[str, Any]) -> str:
        """The browser's verdict once the page has checked ``body`` (a new fragment is a new check of the same
        page: ``data-ready`` comes back when the newest check is done)."""
        page.evaluate("delete document.documentElement.dataset.ready")
        page.goto(f"{live_server.url}/verify.html#{fragment(body, 0, [])}")
        page.wait_for_selector("html[data-ready=verify]", state="attached")
        return page.text_content("#browser-verdict") or ""

    for rules, dealer in (("standard", 3), ("jokers-54", 1), ("six-handed", 5), ("three-handed", 0),
                          ("two-handed", 1)):
        verdict = checked(honest(rules, dealer, ["a", "b"], new_server_seed()))
        assert "in your browser" in verdict
        assert "dealt the same cards" in verdict, rules

    def lie(route: Any) -> None:
        answer = route.fetch().json()
        answer["deal"][0], answer["deal"][1] = answer["deal"][1], answer["deal"][0]
        route.fulfill(json=answer)

    page.route("**/api/verify/hand", lie)
    assert "DIFFERENTLY" in checked(honest("standard", 3, ["a", "b"], new_server_seed()))


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_a_check_overtaken_by_a_newer_fragment_shows_nothing(page: Any, live_server: LiveServer) -> None:
    """Two deals asked for in turn, the first answered last (and answered wrongly): the page shows the
    newest deal's verdict, and the late answer to the older one changes nothing."""
    held: list[Any] = []
    page.goto(f"{live_server.url}/verify.html")
    page.wait_for_selector("html[data-ready=verify]", state="attached")

    def hold(route: Any) -> None:  # each request waits until the test answers it
        held.append(route)

    page.route("**/api/verify/hand", hold)
    for k in (1, 2):
        body = honest("standard", 3, ["a", "b"], new_server_seed())
        page.evaluate("h => { location.hash = h; }", fragment(body, 0, []))
        while len(held) < k:
            page.wait_for_timeout(20)
    newer = held[1]
    newer.fulfill(json=newer.fetch().json())
    page.wait_for_selector("html[data-ready=verify]", state="attached")
    assert "dealt the same cards" in (page.text_content("#browser-verdict") or "")
    older = held[0]
    wrong = older.fetch().json()
    wrong["deal"][0], wrong["deal"][1] = wrong["deal"][1], wrong["deal"][0]
    older.fulfill(json=wrong)
    page.wait_for_timeout(1000)  # (time for the older check to finish, had it gone on)
    verdict = page.text_content("#browser-verdict") or ""
    assert "dealt the same cards" in verdict and "DIFFERENTLY" not in verdict
