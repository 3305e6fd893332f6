"""The shuffle lab's page and endpoints: the exact table, the simulation with its answer and plot, limits,
the cache, and the page in a browser at phone and desktop size (reached from the rules page)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from spades.shuffle.mixing import mixing_table
from spades.web import lab

from .conftest import LiveServer, TestClient, screenshot


def get(client: TestClient, url: str, status: int = 200) -> Any:
    r = client.get(url)
    assert r.status_code == status, r.text
    return r.json()


def test_the_exact_table_is_the_mixing_modules(client: TestClient) -> None:
    data = get(client, "/api/lab/mixing?cards=52&from=1&to=12")
    assert data["figures"] == [f.as_json() for f in mixing_table(52, range(1, 13))]
    assert round(data["figures"][6]["tv"], 4) == 0.3341 and data["passes_for_half"] == 7  # Bayer-Diaconis
    big = get(client, "/api/lab/mixing?cards=104&from=8&to=8")
    assert round(big["figures"][0]["tv"], 4) == 0.4538 and big["passes_for_half"] == 8


@pytest.mark.parametrize(("query", "words"), [
    ("cards=1", "cards must be from 2 to 208, not 1"),
    ("cards=209", "cards must be from 2 to 208"),
    ("cards=abc", "cards must be a whole number"),
    ("cards=52&from=5&to=2", "the passes run backwards"),
    ("cards=52&from=0&to=40", "at most 30 rows"),
    ("cards=52&to=41", "to must be from 0 to 40"),
])
def test_the_exact_table_refuses_what_is_out_of_bounds(client: TestClient, query: str, words: str) -> None:
    assert words in get(client, f"/api/lab/mixing?{query}", 400)["error"]["reason"]


def test_a_simulation_answers_and_is_cached(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    lab.clear_caches()
    runs = []
    real = lab.simulate
    monkeypatch.setattr(lab, "simulate", lambda *a, **k: runs.append(a) or real(*a, **k))
    url = "/api/lab/simulate?model=riffle&from=0&to=3&trials=200&seed=5"
    data = get(client, url)
    assert data["model"] == "riffle" and data["trials"] == 200 and data["seed"] == 5
    assert [f["passes"] for f in data["figures"]] == [0, 1, 2, 3] and "passes_needed" in data
    assert data["figures"][0]["same_trick_pairs"] == 0  # unshuffled tricks go to four different hands
    assert get(client, url) == data and len(runs) == 1  # the second answer comes from the cache
    svg = client.get(url.replace("/simulate?", "/simulate.svg?"))
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    assert svg.content.startswith(b"<?xml") and b"<svg" in svg.content and len(runs) == 1


@pytest.mark.parametrize(("query", "words"), [
    ("model=shaker", "model must be one of"),
    ("trials=50", "trials must be from 100 to 4000"),
    ("trials=5000", "trials must be from 100 to 4000"),
    ("to=61", "to must be from 0 to 60"),
    ("from=4&to=3", "the passes run backwards"),
    ("trials=4000&to=20", "too much work for one request"),
    ("bias=0", "bias must be from 1 to 99"),
    ("reverse_piles=maybe", "reverse_piles must be 1 or 0"),
    ("seed=-1", "seed must be a whole number"),
])
def test_a_simulation_refuses_what_is_out_of_bounds(client: TestClient, query: str, words: str) -> None:
    assert words in get(client, f"/api/lab/simulate?{query}", 400)["error"]["reason"]
    assert words in get(client, f"/api/lab/simulate.svg?{query}", 400)["error"]["reason"]


def test_one_simulation_at_a_time(client: TestClient) -> None:
    lab.clear_caches()
    held = lab._sim_lock.acquire()  # another request is simulating
    assert held
    try:
        err = get(client, "/api/lab/simulate?trials=100&to=2&seed=9", 503)["error"]
        assert err["code"] == "busy" and "try again" in err["reason"]
    finally:
        lab._sim_lock.release()
    assert get(client, "/api/lab/simulate?trials=100&to=2&seed=9")["trials"] == 100
    # A cached answer needs no lock.
    done = threading.Event()
    with lab._sim_lock:
        assert get(client, "/api/lab/simulate?trials=100&to=2&seed=9")["trials"] == 100
        done.set()
    assert done.is_set()


@pytest.mark.slow
def test_the_lab_page_from_the_rules_page(page: Any, live_server: LiveServer,
                                          viewport: tuple[str, dict[str, int]]) -> None:
    page.goto(f"{live_server.url}/rules.html")
    page.wait_for_selector("html[data-ready=rules]", state="attached")
    page.click("[data-testid=lab-link]")
    page.wait_for_selector("html[data-ready=lab]", state="attached", timeout=60_000)
    assert page.url.endswith("/lab.html")
    # The default question: the two-pile machine, 0-10 passes, 2000 deals, seed 1.
    assert page.text_content("[data-testid=sim-answer]") == (
        "Tonight's deck needs about 4 passes of the two-pile machine.")
    rows = page.locator("#sim-table tbody tr")
    assert rows.count() == 12 and rows.nth(11).locator("th").text_content() == "perfect"
    assert page.locator("#sim-table tr.lab-needed th").text_content() == "4"
    page.wait_for_function("document.getElementById('sim-plot')?.complete"
                           " && document.getElementById('sim-plot').naturalWidth > 0")
    # The exact tables: Bayer and Diaconis's 0.334 at 7 riffles of 52 cards, 0.454 at 8 of 104.
    assert page.locator("#exact-52 tr.lab-needed td").first.text_content() == "0.3341"
    assert page.locator("#exact-104 tr.lab-needed td").first.text_content() == "0.4538"
    assert "7 riffles" in page.text_content("#exact-52 caption")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    screenshot(page, f"lab-{viewport[0]}")
    # Too much asked: the server's reason, and nothing else changes.
    page.fill("#sim-trials", "4000")
    page.fill("#sim-to", "40")
    page.click("#sim-run")
    page.wait_for_function("document.getElementById('sim-status')?.textContent.includes('too much work')")
    assert page.text_content("[data-testid=sim-answer]").startswith("Tonight's deck needs about 4")
