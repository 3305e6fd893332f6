"""Seeded tables for the benchmarks that drive the server's own table (``TableState``) without a server:
tables of two people (seats 0 and 2) and two computers (seats 1 and 3), standard rules, each played by
its own seeded random choices one event at a time (``table_memory.py``, ``payloads.py``), and what such
a table sends for each event (``payloads``). Import it
inside the measurement, once ``sys.path`` is set: the ``spades`` measured is whichever it finds first (a
baseline checkout's ``src`` in its child process), and its modules are loaded before anything is traced."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from spades.core.view import view_hand
from spades.server.table import Seat, TableState
from spades.storage.base import TableRow


def new_tables(count: int) -> list[tuple[Any, random.Random]]:
    """``count`` seated tables (``TableState``), each with its own generator."""
    out = []
    for k in range(count):
        t = TableState(TableRow(f"t{k}", "standard", {"bot_level": "random"}, True, None, "p0", 0.0))
        t.seat_rows([(0, Seat("p0", "A")), (1, Seat(None, "B", "random")), (2, Seat("p2", "C")),
                     (3, Seat(None, "D", "random"))])
        out.append((t, random.Random(k)))
    return out


def next_rows(t: Any, rng: random.Random, step: int) -> list[Any] | None:
    """The rows of the table's next event (a deal, or a random legal action by a person or a computer,
    a person's with a client id), ``None`` once its game is over."""
    if t.over:
        return None
    if t.pending is not None:
        return [t.deal_row()]
    action = rng.choice(view_hand(t.game.hand, t.to_act()).legal)
    person = action.seat in (0, 2)
    return t.action_rows(action, "player" if person else "bot", f"p{action.seat}" if person else None,
                         f"c{step}" if person else None)


def payloads(t: Any, rows: list[Any], viewers: list[int | None], shown: Any) -> tuple[dict[Any, list[str]], Any]:
    """What the table sends its ``viewers`` for new rows, and what they have been shown after them, as the
    hub builds them with no clock running (``protocol.table_payloads``: the engine's change for a card,
    else the shared state compared), or, in code from before it, ``event_payloads``."""
    from spades.server import protocol

    choose = getattr(protocol, "table_payloads", None)
    got: tuple[dict[Any, list[str]], Any]
    if choose is None:
        got = protocol.event_payloads(rows, t.rules.layout, viewers, t.public_state(), t.own_fields, shown)
    else:
        got = choose(rows, t.rules.layout, viewers, t.game.hand if t.game.hands else None, t.own_fields, shown,
                     t.public_state, None, True)
    return got


async def hub_people(hub: Any, storage: Any, tables: int, table_id: Callable[[int], str] = lambda i: f"t{i}",
                     seeded_bots: bool = False) -> list[tuple[Any, int, asyncio.Event, random.Random]]:
    """``tables`` tables made on ``hub`` (``spades.server.hub``) as ``spades bench server`` seats them: two
    people (seats 0 and 2) and two random computers, standard rules, no turn clock; each person's in-process
    connection said ``hello``. Per person: its connection (whose writes only wake it), seat, that wake, and
    a generator of its own. ``seeded_bots``: every computer has a seed of its own, so that a table plays
    the same game in every run (``hub_instructions.py``)."""
    from spades.server.hub import Conn
    from spades.server.protocol import PROTOCOL_VERSION

    people = []
    for i in range(tables):
        a, c = storage.create_player(f"A{i}"), storage.create_player(f"C{i}")
        row = TableRow(table_id(i), "standard", {"bot_level": "random", "turn_seconds": None}, True, None, a.id,
                       time.time())
        await hub.create_table(row, [(0, Seat(a.id, a.name)), (1, Seat(None, "B", "random")),
                                     (2, Seat(c.id, c.name)), (3, Seat(None, "D", "random"))])
        if seeded_bots:
            for seat in (1, 3):
                hub.bots[(row.id, seat, "random")] = hub.levels["random"](i * 4 + seat)
        for seat, p in ((0, a), (2, c)):
            woken = asyncio.Event()

            def write_now(*texts: str, woken: asyncio.Event = woken) -> bool:
                woken.set()
                return True

            conn = Conn(p, row.id, write_now=write_now)
            people.append((conn, seat, woken, random.Random(i * 4 + seat)))
    for conn, _, _, _ in people:
        await hub.handle(conn, {"type": "hello", "v": PROTOCOL_VERSION, "last_seq": None})
    return people
