"""A table's live state, rebuilt from its event log: the game, the seats, the chat, the client ids
already applied. Pure and synchronous: ``TableState`` produces new log rows and applies rows; the hub
persists and broadcasts them.
"""

from __future__ import annotations

import time
import zlib
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from spades.core.actions import Action
from spades.core.game import Game
from spades.core.hand import deal_order
from spades.core.record import hand_record, record_of
from spades.core.scoring import tie_note
from spades.core.view import own_fields, public_fields
from spades.server.protocol import ProtocolError, decode_action, encode_action
from spades.shuffle import fair
from spades.storage.base import EventRow, TableRow
from spades.variants import load_rules

CHAT_KEEP = 50
"""Chat lines kept in memory per table for snapshots."""

EVENTS_KEEP = 8
"""Recent events kept in memory per table for catching clients up. A table keeps its last 8 to 12 rows,
what a client that lost its socket for a moment (two tricks of play) missed; one that missed more, within
the hub's resume window, gets them from the log (``Hub.missed_since``: one indexed read), and beyond it a
snapshot. Each kept row holds about 150 bytes: 64 to 96 of them were about 6 KiB of every connection of a
table in play, and 1,000-2,000 were once most of what a table held; 16 to 24 were still 1.7 KiB more than
8 to 12 of a young table's 16.6 (``benchmarks/table_memory.py``, issue 19)."""


class ClientIds:
    """Each player's client ids at a table, to the number of the event each made: every id of the game, so
    that none is ever applied twice. An id is kept as its 64-bit ``hash`` (keyed afresh by each process,
    so nobody outside can make two ids collide, and the odds of a collision by chance are about one in
    10^13 for a player's thousand ids) beside its event's number, in a byte string and an array per player:
    12 bytes an id, where a dict of the id strings held about 125 (a long game's ids were some 20 KiB of
    a table: benchmarks/README.md, sixth session). A lookup is one byte search of the player's hashes, about
    a microsecond for 300 ids."""

    __slots__ = ("_players",)

    def __init__(self) -> None:
        self._players: dict[str, tuple[bytearray, array[int]]] = {}

    def add(self, player_id: str, client_id: str, seq: int) -> None:
        """Remember that ``player_id``'s ``client_id`` made event ``seq``."""
        kept = self._players.get(player_id)
        if kept is None:
            kept = self._players[player_id] = (bytearray(), array("i"))
        kept[0].extend(_id_key(client_id))
        kept[1].append(seq)

    def get(self, player_id: str, client_id: str) -> int | None:
        """The number of the event ``player_id``'s ``client_id`` made, or ``None`` if it made none."""
        kept = self._players.get(player_id)
        if kept is None:
            return None
        hashes, seqs = kept
        key = _id_key(client_id)
        at = hashes.find(key)
        while at > 0 and at % 8:  # a match straddling two hashes is none
            at = hashes.find(key, at + 1)
        return None if at < 0 else seqs[at // 8]

    def __len__(self) -> int:
        return sum(len(seqs) for _, seqs in self._players.values())


def _id_key(client_id: str) -> bytes:
    return hash(client_id).to_bytes(8, "little", signed=True)


def _with_deal(entry: dict[str, Any], deal: dict[str, Any]) -> None:
    """A hand's record entry completed with what its deal says of the shuffle (``TableState.deals``)."""
    entry["commitment"], entry["seed"], entry["client_seeds"] = deal["commitment"], deal["seed"], deal["client_seeds"]


def kept_event(row: EventRow) -> str:
    """A row as a table keeps it among its recent events: one JSON text, ``[seq, kind, data, player_id,
    client_id, created_at]`` with the data as the log stores it. As an ``EventRow`` with its data as dicts
    and lists a row held 300-500 bytes, two thirds of a young table's memory; as an object holding the data
    as text, about 270; as one text, about 160 (``benchmarks/table_memory.py``), and the garbage collector does
    not walk it. ``event_of_kept`` reads it back as the log would give it."""
    return orjson.dumps((row.seq, row.kind, row.data, row.player_id, row.client_id, row.created_at),
                        option=orjson.OPT_NON_STR_KEYS).decode()


def event_of_kept(text: str) -> EventRow:
    """The row ``kept_event`` wrote."""
    seq, kind, data, player_id, client_id, created_at = orjson.loads(text)
    return EventRow(seq, kind, data, player_id, client_id, created_at)


@dataclass(slots=True)
class Seat:
    """Who sits in a seat: a player, a bot (``bot`` is its level), or nobody."""

    player: str | None = None
    name: str = ""
    bot: str | None = None
    reserved: str | None = None
    """A player who left mid-game: the bot keeps the seat warm and they may take it back."""
    waiting: str | None = None
    """A player who asked for this computer's seat during a hand: they take it when the hand ends (until
    then they watch as a spectator and never see the cards the bot holds)."""
    waiting_name: str = ""

    @property
    def empty(self) -> bool:
        """No player and no bot."""
        return self.player is None and self.bot is None

    def public(self, index: int) -> dict[str, Any]:
        """What everyone may know of the seat."""
        kind = "human" if self.player else "bot" if self.bot else "empty"
        waiting = {"player": self.waiting, "name": self.waiting_name} if self.waiting else None
        return {"seat": index, "kind": kind, "name": self.name, "player": self.player, "bot": self.bot,
                "waiting": waiting}


class TableState:
    """One table in memory. Build it with ``TableState(row)`` then ``replay`` each logged row.

    Time comes from the log: every row carries the wall-clock time it was made (``clock``, seconds since
    the epoch), and the two clocks of a table are derived from those times, so they read the same after
    a restart as before it. The turn started at the last game row (``turn_started_at``); a timed game's
    clock started at the first deal, and whether its time was up at the end of a hand is judged at the
    time of that hand's last action, both live and when the log is replayed.

    A table keeps its current hand only (``Game(keep_hands=False)``, unless ``keep_hands``): the deal that
    lets a hand go carries that hand's record entry, written once as JSON and compressed (``deal_row``:
    about 0.5 KiB a hand, against 1.5 as text and some 3.5 as the hand itself), and the log stores it
    beside the row (``EventLog.hand_records``) for the game's record (``record``). The finished hands were
    most of what a table grew by as its game went on, and after them their entries kept here
    (``benchmarks/table_memory.py``, issue 19)."""

    def __init__(self, row: TableRow, clock: Callable[[], float] = time.time, keep_hands: bool = False) -> None:
        self.row = row
        self.id = row.id
        self.rules = load_rules(row.rules)
        self.n = self.rules.layout.n
        self.clock = clock
        self._at: float | None = None
        """The time of the row being made or replayed (the game clock reads it)."""
        timed = self.rules.time_limit_minutes is not None
        self.game = Game(self.rules, first_dealer=0, clock=self._game_clock if timed else None, keep_hands=keep_hands)
        self.turn_started_at = 0.0
        """When the seat to act got its turn: the time of the last deal or action row."""
        self.seats = [Seat() for _ in range(self.n)]
        self.events: list[str] = []
        """The most recent events (``EVENTS_KEEP`` to one and a half times as many), for catching clients up,
        each as ``kept_event`` writes it: the last is event ``seq``, and the numbers have no gaps."""
        self._seq = 0
        self.client_ids = ClientIds()
        """Each player's client ids at this table, to the number of the event each made (every one of the
        game: one is never applied twice)."""
        self.chat: list[dict[str, Any]] = []
        self.deals: list[dict[str, Any]] = []
        """What each hand the game still holds says of its shuffle in its reveal and the game's record:
        ``hand``, ``seed``, ``commitment`` and ``client_seeds`` (the order the hand holds itself). A hand's
        deal goes into its written entry when the game lets it go (``deal_row``)."""
        self.pending: dict[str, Any] | None = None
        """The next hand's commitment while client seeds come in (``commit`` logged, no ``deal`` yet):
        ``hand``, ``commitment``, ``seed`` (secret) and ``seeds``, seat -> {``player``, ``seed``}."""
        self.last_game_seq = 0
        self.over = False
        self.away: set[int] = set()
        """Seats whose (disconnected) player timed out: a bot plays them until they come back."""
        self.rematch: dict[str, Any] | None = None
        """The table a finished game's players were asked to for a rematch (spades.server.rematch)."""
        self.shown: Any = None
        """What its viewers were last sent (``spades.server.protocol.Shown``): the next events carry
        only what changed since."""

    # ------------------------------------------------------------------ reading

    @property
    def seq(self) -> int:
        """The number of the last event."""
        return self._seq

    @property
    def settings(self) -> dict[str, Any]:
        """The table's settings."""
        return self.row.settings

    @property
    def started(self) -> bool:
        """A hand has been dealt."""
        return bool(self.game.hands)

    def seat_of(self, player_id: str | None) -> int | None:
        """The seat a player sits in, if any."""
        if player_id is None:
            return None
        for i, s in enumerate(self.seats):  # (asked for every socket at every event: no generator)
            if s.player == player_id:
                return i
        return None

    def waiting_seat(self, player_id: str | None) -> int | None:
        """The computer's seat a player waits to take at the next deal, if any."""
        if player_id is None:
            return None
        return next((i for i, s in enumerate(self.seats) if s.waiting == player_id), None)

    def hand_in_play(self) -> bool:
        """A hand is dealt and not over: its cards are secret."""
        return self.started and not self.over and not self.game.hand.is_over

    def to_act(self) -> int | None:
        """The seat whose turn it is, or ``None`` (not started, or over)."""
        hands = self.game.hands  # (asked several times at every event: no property read twice)
        if self.over or not hands:
            return None
        hand = hands[-1]
        return None if hand.is_over else hand.to_act

    def _game_clock(self) -> float:
        return self._at if self._at is not None else self.clock()

    def game_seconds_left(self, now: float) -> float | None:
        """A timed game's time left at ``now`` (``None``: untimed, or not dealt yet); the game ends after the
        hand in which it reaches 0."""
        minutes = self.rules.time_limit_minutes
        if minutes is None or not self.started:
            return None
        return max(0.0, self.game.started_at + 60 * minutes - now)

    def bot_plays(self, seat: int) -> bool:
        """A bot acts for this seat now (no player, or the player is away)."""
        s = self.seats[seat]
        return (s.player is None and s.bot is not None) or (s.player is not None and seat in self.away)

    def info(self) -> dict[str, Any]:
        """The table's public description."""
        st = self.settings
        return {"id": self.id, "rules": self.row.rules, "public": self.row.public, "status":
                "over" if self.over else "playing" if self.started else "seating",
                "turn_seconds": st.get("turn_seconds"), "rated": st.get("rated", False),
                "bot_level": st.get("bot_level"),
                "seats": [dict(s.public(i), away=i in self.away) for i, s in enumerate(self.seats)],
                "rematch": self.rematch}

    def game_state(self, viewer: int | None) -> dict[str, Any]:
        """The state a viewer may see: the current hand's view (exactly ``view_hand``'s) and the score."""
        st = self.public_state()
        if st["view"] is not None:
            st["view"] = {**st["view"], **self.own_fields(viewer)}
        return st

    def own_fields(self, viewer: int | None) -> dict[str, Any]:
        """The fields of ``viewer``'s view that depend on who looks (``spades.core.view.own_fields``;
        empty before the first deal)."""
        return own_fields(self.game.hand, viewer) if self.game.hands else {}

    def public_state(self) -> dict[str, Any]:
        """What every viewer's state shares: ``game_state`` with only the view's shared fields
        (``spades.core.view.public_fields``); ``own_fields`` completes it for one viewer."""
        g = self.game
        view = public_fields(g.hand) if g.hands else None
        return {"hand": g.hand_count, "view": view, "totals": list(g.totals), "bags": list(g.bags),
                "results": self._results_shown(), "over": g.over, "winner": g.winner, "seeding": self.seeding(),
                "goes_on": self._goes_on()}

    def _results_shown(self) -> list[dict[str, Any]]:
        """``game.results`` as the state shows them, written out when a whole state is built (about three
        times a hand, and at each ``hello``): a table that kept them written out between those held some
        0.3 KiB a finished hand for nothing (issue 19)."""
        return [{"misdeal": r.misdeal, "points": [s.points for s in r.sides], "bags": [s.bags_total for s in r.sides],
                 "tricks": list(r.tricks)} for r in self.game.results]

    def record(self, earlier: Sequence[bytes] = ()) -> dict[str, Any]:
        """The game's record (``spades.core.record.record_of``), every hand with its shuffle's commitment, seed
        and client seeds, and the seats' names as they are now. ``earlier``: the entries of the hands the
        game let go (``EventRow.hand_record``, as the log keeps them: ``EventLog.hand_records``), one for
        each of them."""
        out = record_of(self.game, self.row.rules, [s.name or f"Seat {i}" for i, s in enumerate(self.seats)],
                        earlier=[orjson.loads(zlib.decompress(data)) for data in earlier])
        for hd, deal in zip(out["hands"][len(earlier):], self.deals, strict=False):
            _with_deal(hd, deal)
        return out

    @property
    def let_go(self) -> int:
        """How many finished hands the game no longer holds (their entries are in the log's hand records)."""
        g = self.game
        return g.hand_count - len(g.hands)

    def _goes_on(self) -> str | None:
        g = self.game
        # Why a game past its end goes on (a tie for the lead), in the engine's words.
        return None if g.over or not g.results else tie_note(g.rules, g.totals, g.time_up_hand is not None)

    def seeding(self) -> dict[str, Any] | None:
        """The commitment waiting for client seeds, as everyone may see it: ``hand``, ``commitment`` and
        ``sent``, the seats whose player has fixed a seed for it. ``None`` when no deal is waiting."""
        p = self.pending
        if p is None:
            return None
        return {"hand": p["hand"], "commitment": p["commitment"], "sent": self.seats_sent()}

    def seats_sent(self) -> list[int]:
        """The seats whose present player has fixed a client seed for the waiting deal."""
        p = self.pending
        if p is None:
            return []
        return sorted(i for i, got in p["seeds"].items()
                      if self.seats[i].player is not None and got["player"] == self.seats[i].player)

    def client_seeds(self) -> list[str]:
        """The waiting deal's client seeds in seat order, as they stand now: the seed the seat's player
        sent, ``fair.ABSENT_SEED`` for a player who sent none, ``fair.BOT_SEED`` for a bot's seat."""
        p = self.pending
        sent = p["seeds"] if p is not None else {}
        out = []
        for i, s in enumerate(self.seats):
            got = sent.get(i)
            if s.player is None:
                out.append(fair.BOT_SEED)
            elif got is not None and got["player"] == s.player:
                out.append(got["seed"])
            else:
                out.append(fair.ABSENT_SEED)
        return out

    # ------------------------------------------------------------------ building rows

    def _row(self, kind: str, data: dict[str, Any], offset: int, player: str | None = None,
             client_id: str | None = None, at: float | None = None, hand_record: bytes | None = None) -> EventRow:
        return EventRow(self.seq + offset, kind, data, player, client_id, self.clock() if at is None else at,
                        hand_record)

    def seat_rows(self, changes: list[tuple[int, Seat]]) -> list[EventRow]:
        """Rows for seat changes, then a deal when every seat is filled and nothing is dealt yet."""
        rows = [self._row("seat", {"seat": i, "player": s.player, "name": s.name, "bot": s.bot,
                                   "reserved": s.reserved}, k + 1) for k, (i, s) in enumerate(changes)]
        for r in rows:
            self.apply_row(r)
        if not self.started and not self.over and self.pending is None and all(not s.empty for s in self.seats):
            rows.append(self._commit_row())
            self.apply_row(rows[-1])
        return rows

    def sit_rows(self, seat: int, player: str, name: str, client_id: str | None) -> list[EventRow]:
        """A player takes ``seat`` (the caller checked it is theirs to take): at once when it is empty, kept
        for them, or no hand is in play; a computer's seat while a hand is in play only at the end of that
        hand (a ``claim`` row; ``_after_action`` seats them), so nobody sees the cards the bot holds."""
        s = self.seats[seat]
        if s.bot is not None and s.reserved is None and self.hand_in_play():
            if s.waiting is not None:
                raise ProtocolError("claimed", f"seat {seat} is already promised to {s.waiting_name} at the next deal")
            row = self._row("claim", {"seat": seat, "player": player, "name": name}, 1, player, client_id)
            self.apply_row(row)
            return [row]
        return self.seat_rows([(seat, Seat(player, name, None, None))])

    def withdraw_rows(self, player: str) -> list[EventRow]:
        """A waiting player no longer wants the computer's seat (nothing when they wait for none)."""
        seat = self.waiting_seat(player)
        if seat is None:
            return []
        row = self._row("claim", {"seat": seat, "player": None, "name": ""}, 1)
        self.apply_row(row)
        return [row]

    def action_rows(self, action: Action, by: str, player: str | None, client_id: str | None) -> list[EventRow]:
        """Apply a (checked) action and return its row plus what follows: the reveal of a finished
        hand's seed, the commitment for the next deal, or the end of the game. Raises
        ``IllegalActionError`` with nothing changed when the action is illegal."""
        now = self.clock()
        self._at = now  # the game clock reads the row's own time, as it will when the log is replayed
        try:
            self.game.apply(action)
        finally:
            self._at = None
        data: dict[str, Any] = {"action": encode_action(action), "by": by}
        if by == "timeout" and action.seat in self.away:
            data["away"] = True  # the hub found the player gone: replaying the log marks the seat away again
        row = self._row("action", data, 1, player, client_id, now)
        self._record(row)
        rows = [row]
        rows += self._after_action()
        return rows

    def _after_action(self) -> list[EventRow]:
        rows: list[EventRow] = []
        g = self.game
        if g.hands and g.hand.is_over:
            rows.append(self._row("reveal", dict(self.deals[-1]), 1))  # (the hand's own deal)
            self.apply_row(rows[-1])
            if not g.over:  # the players waiting for computers' seats take them before the next deal
                for i, s in enumerate(self.seats):
                    if s.waiting is not None and s.bot is not None and s.player is None:
                        rows.append(self._row("seat", {"seat": i, "player": s.waiting, "name": s.waiting_name,
                                                       "bot": None, "reserved": None}, 1))
                        self.apply_row(rows[-1])
            if g.over:
                rows.append(self._row("over", {"winner": g.winner, "totals": list(g.totals)}, 1))
                self.apply_row(rows[-1])
            elif g.awaiting_deal:
                rows.append(self._commit_row())
                self.apply_row(rows[-1])
        return rows

    def _commit_row(self) -> EventRow:
        """A fresh secret server seed for the next hand and its public commitment (before any client
        seed for that hand can be sent)."""
        seed = fair.new_server_seed()
        return self._row("commit", {"hand": self.game.hand_count, "commitment": fair.commitment(seed),
                                    "seed": seed}, 1)

    def seed_row(self, seat: int, player: str, hand: Any, commitment: Any, value: Any,
                 client_id: str | None) -> EventRow:
        """A seated player's client seed for the waiting deal (applied here), or ``ProtocolError`` with
        nothing changed: no deal waiting, a hand or commitment other than the waiting one, a seed
        already fixed, or a seed that breaks the length or character rules."""
        p = self.pending
        if p is None:
            raise ProtocolError("no_commitment", "no deal is waiting for client seeds: the seeds of the "
                                                 "current hand were fixed when it was dealt")
        if hand != p["hand"] or isinstance(hand, bool):
            raise ProtocolError("wrong_hand", f"the deal waiting for seeds is hand {p['hand']}, "
                                              f"not {str(hand)[:20]!r}")
        if not isinstance(commitment, str) or commitment.lower() != p["commitment"]:
            raise ProtocolError("wrong_commitment", "\"commitment\" must repeat the commitment published for "
                                                    f"hand {p['hand']}: {p['commitment']}")
        if seat in self.seats_sent():
            raise ProtocolError("seed_fixed", f"your client seed for hand {p['hand']} is already fixed")
        try:
            fair.check_client_seed(value)
        except fair.FairDealError as e:
            raise ProtocolError("bad_seed", str(e)) from None
        row = self._row("seed", {"hand": p["hand"], "seat": seat, "player": player, "seed": value}, 1,
                        player, client_id)
        self.apply_row(row)
        return row

    def deal_row(self) -> EventRow:
        """Deal the waiting hand from its server seed and the client seeds as they stand (applied here)."""
        p = self.pending
        assert p is not None, "no commitment is waiting"
        client_seeds = self.client_seeds()
        perm = fair.derive_permutation(p["seed"], client_seeds, len(self.rules.layout.deck))
        g = self.game
        entry = None
        if g.hands and not g.keep_hands:  # the hand the deal lets go, as the record will write it
            entry = hand_record(g.hand)
            _with_deal(entry, self.deals[0])
        row = self._row("deal", {"hand": p["hand"], "dealer": g.next_dealer, "order": deal_order(self.rules, perm),
                                 "seed": p["seed"], "commitment": p["commitment"], "client_seeds": client_seeds}, 1,
                        hand_record=None if entry is None else zlib.compress(orjson.dumps(entry)))
        self.apply_row(row)
        return row

    def chat_row(self, player: str | None, name: str, text: str, client_id: str | None) -> EventRow:
        """A chat line's row (applied here)."""
        row = self._row("chat", {"player": player, "name": name, "text": text}, 1, player, client_id)
        self.apply_row(row)
        return row

    # ------------------------------------------------------------------ applying rows

    def _record(self, row: EventRow) -> None:
        if row.seq != self.seq + 1:
            raise ValueError(f"event {row.seq} does not follow event {self.seq}")
        self.events.append(kept_event(row))
        self._seq = row.seq
        if len(self.events) > EVENTS_KEEP + EVENTS_KEEP // 2:
            del self.events[:-EVENTS_KEEP]
        if row.kind in ("action", "deal"):
            self.last_game_seq = row.seq
            self.turn_started_at = row.created_at
        if row.player_id and row.client_id:
            self.client_ids.add(row.player_id, row.client_id, row.seq)

    def apply_row(self, row: EventRow) -> None:
        """Apply one logged row to the live state (replaying the log, or after building it)."""
        d = row.data
        if row.kind == "action":
            self._at = row.created_at
            action = decode_action(d["action"])
            try:
                self.game.apply(action)
            finally:
                self._at = None
            self._replay_away(action.seat, d.get("by"), bool(d.get("away")))
        elif row.kind == "commit":
            self.pending = {"hand": d["hand"], "commitment": d["commitment"], "seed": d["seed"], "seeds": {}}
        elif row.kind == "seed":
            if self.pending is not None:
                self.pending["seeds"][d["seat"]] = {"player": d["player"], "seed": d["seed"]}
        elif row.kind == "deal":
            self.pending = None
            g = self.game
            if not g.hands:
                g.started_at = row.created_at  # a timed game's clock starts at the first deal
            elif not g.keep_hands:  # the hand it lets go was written with the row (``deal_row``)
                del self.deals[0]
            self.deals.append({k: d[k] for k in ("hand", "seed", "commitment", "client_seeds")})
            # A table goes forward only: its hand keeps no undo history (some 5-10 KiB a table).
            g.start_hand(d["order"]).seal()
        elif row.kind == "seat":
            s = self.seats[d["seat"]]
            s.player, s.name, s.bot, s.reserved = d["player"], d["name"], d["bot"], d.get("reserved")
            s.waiting, s.waiting_name = None, ""
            self.away.discard(d["seat"])
        elif row.kind == "claim":
            s = self.seats[d["seat"]]
            s.waiting, s.waiting_name = d["player"], d["name"]
        elif row.kind == "chat":
            self.chat.append({"seq": row.seq, "player": d["player"], "name": d["name"], "text": d["text"]})
            del self.chat[:-CHAT_KEEP]
        elif row.kind == "over":
            self.over = True
        self._record(row)

    def events_after(self, last: int) -> list[EventRow] | None:
        """The events after number ``last`` (as the log holds them), or ``None`` when they are no longer in
        memory."""
        first = self.seq - len(self.events) + 1
        if not self.events or last < first - 1:
            return None if last < self.seq else []
        return [event_of_kept(e) for e in self.events[last - first + 1:]]

    def _replay_away(self, seat: int, by: str | None, away: bool) -> None:
        """Whether a seated player is away, as the log says (after a restart the bot goes on playing
        for a player who was gone, until that player comes back): a bot's move for a seated player or a
        timeout logged as away marks the seat away, the player's own move clears it."""
        if self.seats[seat].player is None:
            return
        if by == "player":
            self.away.discard(seat)
        elif by == "bot" or away:
            self.away.add(seat)

    def replay(self, rows: list[EventRow]) -> None:
        """Rebuild from the log (rows in order from 1)."""
        for r in rows:
            self.apply_row(r)
