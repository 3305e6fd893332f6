"""Event streams of seeded games as each viewer receives them, from the hub's own send path.

A table of people in every seat plays a seeded game (random legal moves, now and then a misdeal call, a
chat line, a client seed, a deal in the same batch as the hand's last card as ``Hub._settle`` makes it);
after every batch of rows ``Hub._broadcast`` sends them to one socket per seat, a spectator, and two late
joiners (a spectator and a second tab of seat 0 that open their socket mid-game and start from the state
``hello`` gives them). For each socket the stream keeps the messages of each batch as sent (encoded, then
decoded) and the whole state the server would send that viewer right after it (``Hub.state``), so a test
can replay the messages and compare at every step.
"""

from __future__ import annotations

import asyncio
import json
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

from spades.core.actions import Misdeal
from spades.server.hub import Conn, Hub
from spades.server.table import Seat, TableState
from spades.storage.base import EventRow, TableRow

Msg = dict[str, Any]


@dataclass
class ViewerStream:
    """What one socket received: the state it started from (``None``: it was there before the first
    state) and, per batch, the messages and the state the server would send it then."""

    name: str
    viewer: int | None
    start: Msg | None
    steps: list[tuple[list[Msg], Msg]] = field(default_factory=list)


def drain(conn: Conn) -> list[Msg]:
    """Every message the hub has queued for an in-process connection, decoded."""
    out = []
    for text in conn.outbox.take_now():
        assert text is not None
        out.append(json.loads(text))
    return out


def play(rules: Any, seed: int, batches: int = 400, timed: bool = False) -> list[ViewerStream]:
    """Play a seeded game at a table of ``rules`` for at most ``batches`` batches of rows (or to its end);
    every viewer's stream. ``timed``: the turn clock runs (each state's ``turn.seconds_left`` changes)."""
    rng = random.Random(seed)
    now = [1_000_000.0]
    hub = Hub(cast(Any, None), clock=lambda: now[0])
    row = TableRow(f"t{seed}", rules, {"turn_seconds": 30 if timed else None}, True, None, "p0", now[0])
    t = TableState(row, clock=lambda: now[0])
    hub.tables[t.id] = t
    n = t.n
    streams: list[tuple[Conn, ViewerStream]] = []

    def join(name: str, player: str | None) -> None:
        conn = Conn(cast(Any, None if player is None else SimpleNamespace(id=player, name=player)), t.id)
        viewer = hub.viewer_of(t, conn)
        start = hub.state(t, viewer) if t.seq else None
        hub.conns[t.id].add(conn)
        streams.append((conn, ViewerStream(name, viewer, start)))

    def send(rows: list[EventRow]) -> None:
        now[0] += rng.choice((0.5, 1.0, 7.25))
        if timed and t.to_act() is not None:
            hub.deadlines[t.id] = now[0] + rng.choice((12.0, 30.0))
        else:
            hub.deadlines.pop(t.id, None)
        hub._broadcast(t, rows)
        for conn, s in streams:
            s.viewer = hub.viewer_of(t, conn)  # (the seats are taken after the sockets open)
            s.steps.append((drain(conn), hub.state(t, s.viewer)))

    for i in range(n):
        join(f"seat {i}", f"p{i}")
    join("spectator", None)
    first = rng.randrange(3, max(4, batches // 3))
    late = {first: ("late spectator", None), first + rng.randrange(1, max(2, batches // 3)): ("late seat 0", "p0")}
    send(t.seat_rows([(i, Seat(f"p{i}", f"P{i}", None, None)) for i in range(n)]))
    for k in range(batches):
        if k in late:
            join(*late[k])
        if t.over:
            break
        if t.pending is not None:
            sent = t.seats_sent()
            waiting = [i for i in range(n) if i not in sent]
            if waiting and rng.random() < 0.3:
                s = rng.choice(waiting)
                send([t.seed_row(s, f"p{s}", t.pending["hand"], t.pending["commitment"], f"seed{k}", None)])
            else:
                send([t.deal_row()])
            continue
        if rng.random() < 0.05:
            send([t.chat_row("p1", "P1", f"line {k}", None)])
            continue
        hand = t.game.hand
        seat = hand.to_act
        legal = hand.legal_actions(seat)
        calls = [a for a in legal if isinstance(a, Misdeal)]
        moves = [a for a in legal if not isinstance(a, Misdeal)]
        action = calls[0] if calls and rng.random() < 0.2 else rng.choice(moves or calls)
        rows = t.action_rows(action, "player", f"p{action.seat}", f"c{k}")
        if t.pending is not None and not t.over and rng.random() < 0.5:
            rows.append(t.deal_row())  # dealt in the same batch, as when no client seed is awaited
        send(rows)
    hub.db_pool.shutdown()
    hub.bot_pool.shutdown()
    return [s for _, s in streams]


def run(rules: Any, seed: int, batches: int = 400, timed: bool = False) -> list[ViewerStream]:
    """``play`` inside an event loop of its own (the hub's queues want one), on a thread of its own: the
    calling thread may already run a loop (Playwright's sync API keeps one running in a pytest-xdist worker
    that ran a browser test before), and ``asyncio.run`` refuses to start inside a running loop."""
    async def go() -> list[ViewerStream]:
        return play(rules, seed, batches, timed)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, go()).result()
