"""Recovery: ``spades serve`` as a real process, SIGKILLed mid-bidding, mid-trick and during a
blind-nil exchange, then restarted on the same database: every table resumes exactly, no action is
lost or doubled, and clients reconnect and catch up."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from spades.server.hub import RESTART_GRACE

from .harness import Player, ServeProcess, Sock, event, seat_four, settle, wait_turn
from .test_play import choose


def state_of(s: Sock) -> dict[str, Any]:
    """A comparable state (without the turn clock)."""
    assert s.state is not None
    return {k: v for k, v in s.state.items() if k != "turn"}


def advance(socks: list[Sock], until: Any, limit: int = 200) -> None:
    """Play simple legal moves until ``until(view of seat 0)`` holds."""
    humans = dict(enumerate(socks))
    for _ in range(limit):
        seat = wait_turn(socks, humans)
        assert seat is not None
        if until(socks[0].view):
            return
        assert socks[seat].act(choose(socks[seat].view))["type"] == "ack"  # type: ignore[arg-type]
    raise AssertionError("the position never came")


@pytest.mark.slow
def test_kill_9_and_resume(tmp_path: Path) -> None:
    db = tmp_path / "spades.db"
    srv = ServeProcess(db, extra=["--bot-delay", "0"]).start()
    try:
        def make() -> Player:
            return Player(srv.url, srv.ws_url)

        # Table A: mid-bidding. Table B: mid-trick. Table C: during a blind-nil exchange.
        ta, pa, sa = seat_four(make, {"preset": "standard", "target": 100})
        advance(sa, lambda v: sum(b is not None for b in v["bids"]) == 2)
        tb, pb, sb = seat_four(make, {"preset": "standard", "target": 100})
        advance(sb, lambda v: v["phase"] == "play" and len(v["tricks"]) == 2 and len(v["current"]) == 2)
        tc, pc, sc = seat_four(make, {"preset": "standard", "target": 100, "blind_behind": 0})
        first = sc[0].view["to_act"]  # type: ignore[index]
        assert sc[first].act({"bid": "blind nil"})["type"] == "ack"
        advance(sc, lambda v: v["phase"] == "exchange" and len(v["passes"]) == 1)
        # Table D: alone against bots, waiting for the person.
        alone = make()
        td = alone.http.post("/api/play", json={"bot_level": "random"}).json()["id"]
        sd = alone.sock(td)
        wait_turn([sd], {0: sd})
        tables = [(ta, pa, sa), (tb, pb, sb), (tc, pc, sc), (td, [alone], [sd])]
        for _, _, socks in tables:
            settle(socks, 0.1)
        before = [[(s.seq, state_of(s)) for s in socks] for _, _, socks in tables]
        # An action in flight on table B at the moment of the kill.
        seat = sb[0].view["to_act"]  # type: ignore[index]
        in_flight = choose(sb[seat].view)  # type: ignore[arg-type]
        sb[seat].send({"type": "action", "id": "in-flight", "action": in_flight})
        srv.kill9()
        srv.start()
        # Every client reconnects with the last number it saw and catches up.
        for (tid, players, socks), was in zip(tables, before, strict=True):
            for i, (p, old) in enumerate(zip(players, socks, strict=True)):
                s = p.sock(tid, last_seq=old.seq)
                s.drain(0.2)
                socks[i] = s
                if tid != tb:
                    assert s.seq == was[i][0] and state_of(s) == was[i][1], f"table {tid} seat {i} changed"
        # The in-flight action, sent again with the same id, is applied exactly once.
        ack = sb[seat].act(in_flight, cid="in-flight")
        assert ack["type"] == "ack"
        settle(sb, 0.2)
        again = sb[seat].act(in_flight, cid="in-flight")
        assert again.get("duplicate") is True and again["seq"] == ack["seq"]
        fresh = pb[0].sock(tb)
        fresh.drain(0.2)
        assert fresh.view is not None and state_of(fresh) == state_of(sb[0])
        played = [c for t in fresh.view["tricks"] for _, c in t["cards"]] + [c for _, c in fresh.view["current"]]
        assert len(played) == len(set(played)) == 2 * 4 + 3
        # Every table plays on: bidding ends, the exchange completes, the trick finishes.
        advance(sa, lambda v: v["phase"] == "play")
        advance(sb, lambda v: len(v["tricks"]) == 3)
        advance(sc, lambda v: v["phase"] == "play")
        assert sc[first].view is not None and len(sc[first].view["hand"]) == 13
        sd = tables[3][2][0]
        assert sd.act(choose(sd.view))["type"] == "ack"  # type: ignore[arg-type]
    finally:
        srv.stop()


@pytest.mark.slow
def test_turn_timers_and_game_clocks_resume_after_kill_9(tmp_path: Path) -> None:
    """After a SIGKILL and a restart a turn keeps the time it had left (no fresh timer) and a timed game's
    clock goes on from its first deal; a deadline that passed while the server was down gets the short
    restart grace, then the bot plays that turn. Turns run at a tenth of real time (``--time-scale``)."""
    scale = 0.1
    srv = ServeProcess(tmp_path / "spades.db", extra=["--bot-delay", "0", "--time-scale", str(scale)]).start()
    try:
        def make() -> Player:
            return Player(srv.url, srv.ws_url)

        def clocks(s: Sock) -> tuple[int, float, float | None]:
            assert s.state is not None
            turn = s.state["turn"]
            return turn["seat"], turn["seconds_left"], s.state["game_seconds_left"]

        # Table A: 600 s turns (60 s here) in a 5-minute game. Table B: 40 s turns (4 s here).
        ta, pa, _ = seat_four(make, {"preset": "standard", "time_limit_minutes": 5}, turn_seconds=600)
        tb, pb, sb = seat_four(make, {"preset": "standard"}, turn_seconds=40)
        probe = pa[0].sock(ta)
        probe.until(lambda m: m.get("type") == "snapshot")
        read_at = time.monotonic()
        seat_a, left_a, game_a = clocks(probe)
        assert 0 < left_a <= 60 and game_a is not None and 0 < game_a <= 300
        seat_b, left_b, game_b = clocks(sb[0])
        assert left_b > 0 and game_b is None
        srv.kill9()
        time.sleep(4.2)  # table B's deadline passes while the server is down
        srv.start()
        up = time.monotonic()
        # Table B: the deadline passed during the downtime: after the short grace the bot plays that turn
        # (a fresh timer would wait 4 s more).
        b = pb[0].sock(tb, last_seq=sb[0].seq)
        ev = b.until(lambda m: "ev" in m and event(m).get("by") == "timeout", timeout=10)
        assert event(ev)["action"]["seat"] == seat_b
        assert time.monotonic() - up <= min(40, RESTART_GRACE) * scale + 2.0
        # Table A: the same turn, with what was left less the time that passed (a fresh timer gives 60 s),
        # and the game clock going on.
        again = pa[0].sock(ta)
        again.until(lambda m: m.get("type") == "snapshot")
        elapsed = time.monotonic() - read_at
        seat, left, game = clocks(again)
        assert seat == seat_a
        assert left <= max(left_a - elapsed, RESTART_GRACE * scale) + 0.5, (left_a, elapsed, left)
        assert game is not None and game <= game_a - elapsed + 0.5, (game_a, elapsed, game)
    finally:
        srv.stop()


@pytest.mark.slow
def test_an_away_player_stays_away_after_a_restart(tmp_path: Path) -> None:
    """A player whose turn timed out with no socket left is away: after a SIGKILL and a restart the seat
    is still shown away and the bot plays its next turn at once, not after another turn timer."""
    srv = ServeProcess(tmp_path / "spades.db", extra=["--bot-delay", "0"]).start()
    try:
        def make() -> Player:
            return Player(srv.url, srv.ws_url)

        # 4 s turns (the restart grace is shorter): long enough to tell a bot's move from a timeout.
        tid, ps, socks = seat_four(make, {"preset": "standard", "target": 100}, turn_seconds=4,
                                   bot_level="random")
        gone = socks[0].view["to_act"]  # type: ignore[index]
        socks[gone].close()
        m = socks[(gone + 1) % 4].until(lambda m: m.get("type") == "table" and m["table"]["seats"][gone]["away"],
                                        timeout=15)
        assert m["table"]["seats"][gone]["away"] is True
        srv.kill9()
        srv.start()
        here = {i: ps[i].sock(tid) for i in range(4) if i != gone}
        for s in here.values():
            s.drain(0.2)
            assert s.table is not None and s.table["seats"][gone]["away"] is True
        # Play round to the away seat's next turn: the bot answers it well inside its 4 s timer.
        watcher = next(iter(here.values()))

        def by_gone(since: int) -> list[dict[str, Any]]:
            return [m for m in watcher.received[since:] if event(m).get("kind") == "action"
                    and event(m)["action"]["seat"] == gone]

        for _ in range(12):
            seat = wait_turn(list(here.values()), here, timeout=10)
            assert seat is not None
            mark = len(watcher.received)
            assert here[seat].act(choose(here[seat].view))["type"] == "ack"  # type: ignore[arg-type]
            acted = time.monotonic()
            watcher.drain(0.05)
            if by_gone(mark):
                break
            if watcher.view is not None and watcher.view["to_act"] == gone:
                watcher.until(lambda m, mark=mark: bool(by_gone(mark)), timeout=10)
                break
        else:
            raise AssertionError("the away seat's turn never came")
        assert [event(m)["by"] for m in by_gone(mark)] == ["bot"] and time.monotonic() - acted < 2.5
    finally:
        srv.stop()
