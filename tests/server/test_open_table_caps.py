"""Issue 15, finding 4: how many tables one player holds open at once is capped (not only how fast they
make them). Counted in the database, so every process of a cluster sees the same count."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from spades.storage import Storage

from .harness import LiveServer, Player


def test_the_open_table_cap_refuses_the_next_table_until_one_finishes(
        live: Callable[..., LiveServer], db: Storage) -> None:
    server = live(open_tables_per_player=3)
    p = Player(server.url, server.ws_url)
    made = [p.http.post("/api/tables", json={"rules": "standard"}) for _ in range(3)]
    assert [r.status_code for r in made] == [200, 200, 200]
    over = p.http.post("/api/tables", json={"rules": "standard", "public": False})
    assert over.status_code == 429 and int(over.headers["Retry-After"]) >= 1
    err = over.json()["error"]
    assert err["code"] == "too_many_tables" and err["quota"] == "open_tables", err
    assert "3 tables open" in err["reason"]
    # Games against the computer are counted apart, and so is another player.
    assert p.http.post("/api/play", json={"rules": "standard"}).status_code == 200
    assert Player(server.url, server.ws_url).http.post("/api/tables", json={"rules": "standard"}).status_code == 200
    db.set_table_status(made[0].json()["id"], "over")  # what a finished game does
    assert p.http.post("/api/tables", json={"rules": "standard"}).status_code == 200
    assert p.http.post("/api/tables", json={"rules": "standard"}).status_code == 429


def test_play_now_ends_the_oldest_abandoned_computer_game_and_refuses_when_all_are_in_use(
        live: Callable[..., LiveServer], db: Storage) -> None:
    server = live(computer_games_per_player=2)
    p = Player(server.url, server.ws_url)
    first, second = (p.http.post("/api/play", json={"rules": "standard"}).json()["id"] for _ in range(2))
    assert db.get_table(first).settings["computer"] is True  # type: ignore[union-attr]
    # Both games are in use (a socket on each): the third is refused with a reason the page shows.
    socks = [p.sock(first), p.sock(second)]
    over = p.http.post("/api/play", json={"rules": "standard"})
    assert over.status_code == 429 and int(over.headers["Retry-After"]) >= 1
    err = over.json()["error"]
    assert err["code"] == "too_many_games" and err["quota"] == "computer_games", err
    assert "2 games against the computer" in err["reason"]
    assert {t.id for t in db.player_open_tables(p.me["id"])} == {first, second}  # nothing was ended
    # The player leaves the first one: "Play now" ends that abandoned game to make room.
    socks[0].close()
    server.wait_sockets(first, 0)
    third = p.http.post("/api/play", json={"rules": "standard"})
    assert third.status_code == 200, third.text
    assert [t.id for t in db.player_open_tables(p.me["id"])] == [second, third.json()["id"]]
    assert db.get_table(first).status == "over"  # type: ignore[union-attr]
    # Tables for people are not counted with these games.
    assert p.http.post("/api/tables", json={"rules": "standard"}).status_code == 200
    socks[1].close()


def test_two_servers_on_one_database_share_the_count(live: Callable[..., LiveServer]) -> None:
    """The count is read from the database, so processes sharing it (a cluster) need nothing more."""
    a, b = live(open_tables_per_player=2), live(open_tables_per_player=2)
    p = Player(a.url, a.ws_url)
    assert [p.http.post("/api/tables", json={"rules": "standard"}).status_code for _ in range(2)] == [200, 200]
    on_b = httpx.Client(base_url=b.url, timeout=30, cookies={"spades_session": p.token})
    assert on_b.get("/api/me").json()["id"] == p.me["id"]
    over = on_b.post("/api/tables", json={"rules": "standard"})
    assert over.status_code == 429 and over.json()["error"]["code"] == "too_many_tables"
    on_b.close()


def test_a_table_nobody_joined_is_given_up_for_a_new_one_once_old(
        live: Callable[..., LiveServer], db: Storage) -> None:
    """A table for people that never filled must not hold its maker's slot for ever: over the cap, the
    oldest one nobody joined and nobody is connected to is given up once ``abandoned_table_seconds`` old;
    a table another person sat at is kept."""
    from .test_attacks import sit

    server = live(open_tables_per_player=2, abandoned_table_seconds=0)
    p, q = Player(server.url, server.ws_url), Player(server.url, server.ws_url)
    joined, lonely = (p.http.post("/api/tables", json={"rules": "standard"}).json()["id"] for _ in range(2))
    s = q.sock(joined)
    assert sit(s, 1, "join")["type"] == "ack"
    s.close()
    server.wait_sockets(joined, 0)
    third = p.http.post("/api/tables", json={"rules": "standard"})
    assert third.status_code == 200, third.text
    assert db.get_table(lonely).status == "over"  # type: ignore[union-attr]
    assert db.get_table(joined).status == "open"  # type: ignore[union-attr]
    # Now both open tables count (one joined, one just made but in use by nobody and old enough: given up).
    mine = p.sock(third.json()["id"])
    over = p.http.post("/api/tables", json={"rules": "standard"})
    assert over.status_code == 429 and "given up after 0 seconds" in over.json()["error"]["reason"], over.text
    mine.close()
