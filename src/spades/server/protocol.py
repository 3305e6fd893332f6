"""The wire protocol: reading client messages (with every limit), actions to and from the log, and the
per-viewer projection of logged events. Nothing here sends anything; ``docs/protocol.md`` describes it.

Secrets live only in the log's ``commit`` rows (the next hand's server seed) and ``deal`` rows (the deck
order and the server seed). ``project_event``
is the one function that turns a log row into what a viewer may see; every event a client receives
goes through it, and every state it receives is built from ``view_hand``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import orjson

from spades.core.actions import Accept, Action, Bid, BidValue, Discard, Draw, Look, Misdeal, Pass, Play, play
from spades.core.cards import FACES_PER_PACK, card_name, code_card
from spades.core.errors import CardError, IllegalActionError, SpadesError
from spades.core.hand import Hand
from spades.core.record import parse_bid
from spades.core.rules import Layout
from spades.core.view import (
    Marks,
    act_on,
    action_seen,
    action_to_dict,
    bid_change,
    bid_own_change,
    change_of,
    close_trick,
    closed_trick,
    looked_change,
    looked_own_change,
    next_change_known,
    passed_change,
    passed_own_change,
    played_change,
    played_own_change,
    sees_action,
)
from spades.storage.base import EventRow

PROTOCOL_VERSION = 2
"""The protocol's version, sent in ``welcome``; a client sends it in ``hello`` as ``v``. Version 2 is
version 1 with the compact event message (``event_message``)."""

MAX_DEPTH = 6
"""The deepest nesting of arrays and objects accepted in a message."""

MAX_CLIENT_ID = 64
"""The longest client id of an action."""

MAX_CHAT = 300
"""The longest chat line, in characters."""


INVISIBLE = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"
                      "\u200b\u200c\u200d\u2060\ufeff")
"""Characters a chat line loses: the bidi controls (embeddings, overrides, isolates, marks), which can make
a line read backwards or run into the next, and the zero-width characters, which hide text or make two
lines that look alike differ."""


def clean_chat(text: str) -> str:
    """A chat line as kept: control characters (but newlines), bidi controls and zero-width characters
    removed, outer white space stripped."""
    return "".join(ch for ch in text if (ch >= " " or ch == "\n") and ch not in INVISIBLE).strip()


class ProtocolError(Exception):
    """A message the server refuses: ``code`` is a stable word, ``reason`` a sentence for a person."""

    def __init__(self, code: str, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.extra = extra
        """More fields of the error message (``retry_after`` and ``quota`` of ``rate_limited``)."""


def decode_message(text: str | None, data: bytes | None, max_bytes: int) -> dict[str, Any]:
    """A client message as a JSON object with a string ``type``, or ``ProtocolError``."""
    if text is None:
        if data is not None:
            raise ProtocolError("binary", "binary messages are not accepted: send JSON text")
        raise ProtocolError("malformed", "empty message")
    if len(text) > max_bytes or len(text.encode("utf-8")) > max_bytes:
        raise ProtocolError("too_large", f"a message may be at most {max_bytes} bytes")
    try:
        msg = orjson.loads(text)
    except json.JSONDecodeError as e:  # orjson's error is one
        if "depth limit" in e.msg or "recursion" in e.msg:
            raise ProtocolError("too_deep", f"a message may nest at most {MAX_DEPTH} levels") from None
        raise ProtocolError("malformed", f"not valid JSON: {e.msg} at column {e.colno}") from None
    # (Walked only when it could be too deep: a level needs a bracket of its own, and most messages
    # have two or three.)
    if text.count("{") + text.count("[") > MAX_DEPTH and _depth(msg) > MAX_DEPTH:
        raise ProtocolError("too_deep", f"a message may nest at most {MAX_DEPTH} levels")
    if not isinstance(msg, dict):
        raise ProtocolError("malformed", "a message is a JSON object with a \"type\"")
    if not isinstance(msg.get("type"), str):
        raise ProtocolError("malformed", "a message needs a \"type\" (a string)")
    return msg


def encode_message(message: dict[str, Any]) -> str:
    """A message to a client as compact JSON text (orjson: several times faster than ``json``)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def _depth(value: Any) -> int:
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v)
    return deepest


def client_id_of(msg: dict[str, Any], required: bool) -> str | None:
    """The message's ``id`` (a client id for exactly-once actions)."""
    cid = msg.get("id")
    if cid is None and not required:
        return None
    if not isinstance(cid, str) or not 1 <= len(cid) <= MAX_CLIENT_ID:
        raise ProtocolError("malformed", f"\"id\" must be a string of 1 to {MAX_CLIENT_ID} characters")
    return cid


ACTION_KEYS = ("bid", "pass", "discard", "misdeal", "draw", "play", "look", "accept")
_ACTION_KEY_SET = frozenset(ACTION_KEYS)


def parse_action(data: Any, seat: int, hand: Hand) -> Action:
    """A client's action for its own ``seat``, in the record's shape plus ``{"look": true}`` and
    ``{"accept": true}``.

    A ``seat`` key, when present, must be the sender's own seat. Card texts name cards; the engine's
    checked ``apply`` decides legality afterwards."""
    if not isinstance(data, dict):
        raise ProtocolError("malformed", "\"action\" must be an object such as {\"play\": \"AS\"}")
    if "seat" in data and data["seat"] != seat:
        raise ProtocolError("not_your_seat", f"you sit at seat {seat}: you cannot act for seat {data['seat']!r}")
    keys = [k for k in data if k != "seat"]
    if len(keys) != 1 or keys[0] not in _ACTION_KEY_SET:
        raise ProtocolError("malformed", f"an action needs exactly one of {', '.join(ACTION_KEYS)}")
    kind = keys[0]
    value = data[kind]
    try:
        if kind == "bid":
            return Bid(seat, parse_bid(value))
        if kind == "play":
            return play(seat, _card(value, hand.hands[seat]))
        if kind in ("pass", "discard"):
            return _choice(kind, value, seat, hand)
        if kind == "misdeal":
            if value is not True:
                raise ProtocolError("malformed", "\"misdeal\" must be true")
            return Misdeal(seat)
        if kind == "look":
            if value is not True:
                raise ProtocolError("malformed", "\"look\" must be true")
            return Look(seat)
        if kind == "accept":
            if value is not True:
                raise ProtocolError("malformed", "\"accept\" must be true")
            return Accept(seat)
        if value not in ("keep", "discard"):
            raise ProtocolError("malformed", "\"draw\" must be \"keep\" or \"discard\"")
        return Draw(seat, value == "keep")
    except (CardError, IllegalActionError) as e:
        raise ProtocolError("illegal", str(e)) from None


def _choice(kind: str, value: Any, seat: int, hand: Hand) -> Action:
    """A pass or a discard: a list of card texts, each turned into a held card here (a text chosen twice is
    refused with a reason that says so); the engine then decides the rest (how many, held, whose turn)."""
    if not isinstance(value, list) or len(value) > 8 or not all(isinstance(v, str) for v in value):
        raise ProtocolError("malformed", f"\"{kind}\" must be a list of card texts such as [\"2C\", \"QH\"]")
    picked: list[int] = []
    for v in value:
        card = _card(v, hand.hands[seat] & ~sum(1 << c for c in picked))
        face = card % FACES_PER_PACK
        if card in picked or (any(c % FACES_PER_PACK == face for c in picked) and not hand.hands[seat] >> card & 1):
            raise ProtocolError("illegal", f"the {card_name(face)} is chosen twice: choose different cards")
        picked.append(card)
    return Pass(seat, tuple(picked)) if kind == "pass" else Discard(seat, tuple(picked))


def _card(value: Any, held: int) -> int:
    """The held card a client names: ``AS`` (either pack's, the first when both are held) or ``AS*``
    (the six-handed game's second pack)."""
    if not isinstance(value, str) or len(value) > 4:
        raise CardError(f"{str(value)[:20]!r} is not a card")
    return code_card(value, held)


# ---------------------------------------------------------------------- actions in the log


def encode_action(action: Action) -> dict[str, Any]:
    """An action as stored in the log (exact card numbers, so copies of a card stay apart)."""
    if isinstance(action, Play):
        return {"a": "play", "seat": action.seat, "card": action.card}
    if isinstance(action, Bid):
        return {"a": "bid", "seat": action.seat, "tricks": action.value.tricks, "blind": action.value.blind}
    if isinstance(action, Pass | Discard):
        return {"a": "pass" if isinstance(action, Pass) else "discard", "seat": action.seat,
                "cards": list(action.cards)}
    if isinstance(action, Look):
        return {"a": "look", "seat": action.seat}
    if isinstance(action, Accept):
        return {"a": "accept", "seat": action.seat}
    if isinstance(action, Misdeal):
        return {"a": "misdeal", "seat": action.seat}
    return {"a": "draw", "seat": action.seat, "keep": action.keep}


def decode_action(d: dict[str, Any]) -> Action:
    """The inverse of ``encode_action``."""
    a, seat = d["a"], int(d["seat"])
    if a == "play":
        return play(seat, int(d["card"]))
    if a == "bid":
        return Bid(seat, BidValue(int(d["tricks"]), bool(d["blind"])))
    if a == "pass":
        return Pass(seat, tuple(d["cards"]))
    if a == "discard":
        return Discard(seat, tuple(d["cards"]))
    if a == "look":
        return Look(seat)
    if a == "accept":
        return Accept(seat)
    if a == "misdeal":
        return Misdeal(seat)
    if a == "draw":
        return Draw(seat, bool(d["keep"]))
    raise SpadesError(f"unknown action {a!r} in the log")


# ---------------------------------------------------------------------- what a viewer may see


def project_action(action: Action, viewer: int | None, layout: Layout) -> dict[str, Any]:
    """An action as ``viewer`` may see it: the engine decides (``spades.core.view.action_seen``)."""
    return action_seen(action, viewer, layout)


def project_event(row: EventRow, viewer: int | None, layout: Layout, action: Action | None = None) -> dict[str, Any]:
    """A log row as ``viewer`` (a seat, or ``None`` for everyone else) may see it (``action``: an action
    row's action, when it is already decoded)."""
    d = row.data
    out: dict[str, Any] = {"kind": row.kind}
    if row.kind == "action":
        out["action"] = project_action(action or decode_action(d["action"]), viewer, layout)
        out["by"] = d.get("by", "player")
    elif row.kind == "commit":
        # The next hand's commitment, never its seed: client seeds are sent after this.
        out.update(hand=d["hand"], commitment=d["commitment"])
    elif row.kind == "seed":
        # Who fixed a client seed; the value only to its sender (everyone sees them all in the deal).
        out.update(hand=d["hand"], seat=d["seat"])
        if viewer == d["seat"]:
            out["seed"] = d["seed"]
    elif row.kind == "deal":
        # Never the order or the seed: only who deals and the commitment to the seed.
        out.update(hand=d["hand"], dealer=d["dealer"], commitment=d["commitment"], client_seeds=d["client_seeds"])
    elif row.kind == "reveal":
        out.update(hand=d["hand"], seed=d["seed"], commitment=d["commitment"], client_seeds=d["client_seeds"])
    elif row.kind == "seat":
        out.update(seat=d["seat"], name=d["name"], player=d["player"], bot=d["bot"])
    elif row.kind == "claim":
        out.update(seat=d["seat"], player=d["player"], name=d["name"])
    elif row.kind == "chat":
        out.update(name=d["name"], player=d["player"], text=d["text"])
    elif row.kind == "over":
        out.update(winner=d["winner"], totals=d["totals"])
    return out


EVENT_ENVELOPE = frozenset({"ev", "kind", "by", "change", "state", "table"})
"""The keys of an event message that are not the event's own fields: no event of any kind has a field of
one of these names (``project_event``), so an event's fields stand beside them at the top level."""


def event_message(seq: int, event: dict[str, Any]) -> dict[str, Any]:
    """The message of event ``seq`` (``event`` as ``project_event`` gives it) in protocol version 2: ``ev``
    (the event number), then, for an action, the action's fields (``{"seat": 2, "play": "4D"}``) and
    ``by`` only when it is not ``player``; for any other kind, ``kind`` and its fields. No ``type``: a
    message with ``ev`` is an event. The last of a batch gets ``change`` or ``state`` (and maybe
    ``table``) after this. ``event_of`` reads it back."""
    if event["kind"] == "action":
        msg = {"ev": seq, **event["action"]}
        by = event.get("by", "player")
        if by != "player":
            msg["by"] = by
        return msg
    return {"ev": seq, **event}


def event_of(msg: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """The event number and the event (in ``project_event``'s shape: ``{"kind": "action", "action":
    {...}, "by": ...}`` or ``{"kind": ..., fields}``) of an event message (``event_message``); ``None`` for
    any other message."""
    seq = msg.get("ev")
    if seq is None:
        return None
    fields = {k: v for k, v in msg.items() if k not in EVENT_ENVELOPE}
    if "kind" in msg:
        return seq, {"kind": msg["kind"], **fields}
    return seq, {"kind": "action", "action": fields, "by": msg.get("by", "player")}


# ---------------------------------------------------------------------- what each viewer is sent


@dataclass(frozen=True)
class Shown:
    """What a table's viewers were last sent, as of event ``seq``: the state every viewer shares
    (``public``, whose view holds only the shared fields) and each viewer's own view fields (``own``, by
    seat, ``None`` for the spectators).

    The parts that change at every event (the view's fields but its finished tricks and its contract
    statuses, and each viewer's own fields) are kept encoded (JSON text) and read back when the next event
    is built; the rest is kept as it was (the finished tricks, the statuses and past hands' results are
    lists the engine's views share from one event to the next while they stay the same, never changed,
    and compared by identity first). A table keeps its last-shown state from one event to the next, and
    as dicts and lists (about 50 per table) those states were most of what each young-generation
    collection of the garbage collector walked, in pauses of 50-60 ms a second at 3,000 players; strings
    are not walked at all (``benchmarks/README.md``, issue 19). Text, not the bytes ``orjson.dumps``
    returns: each of those holds a 4 KiB buffer however short it is (orjson 3.13), 12 KiB a table of two
    people."""

    seq: int
    rest: dict[str, Any]
    """The shared state without its view."""
    view_json: str
    """The shared view without ``tricks`` and ``sides``, encoded (``null`` before the first deal)."""
    tricks: list[Any] | None
    sides: list[Any] | None
    own_json: dict[int | None, str]
    marks: Marks | None = None
    """The view's ``to_act``, ``trick_winner``, ``broken`` and ``sides`` (``Marks``) when no clock ran in the
    state (no seconds left on the turn or the game), for ``play_payloads``; ``None`` otherwise."""

    @property
    def viewers(self) -> frozenset[int | None]:
        """The viewers who were sent it."""
        return frozenset(self.own_json)

    @property
    def public(self) -> dict[str, Any]:
        """The shared state as it was sent (new dicts for the view at each call)."""
        view = orjson.loads(self.view_json)
        if view is not None:
            view["tricks"] = self.tricks
            view["sides"] = self.sides
        return {**self.rest, "view": view}

    def own(self, viewer: int | None) -> dict[str, Any] | None:
        """``viewer``'s own view fields as they were sent (``None``: that viewer was not shown any)."""
        data = self.own_json.get(viewer)
        if data is None:
            return None
        value: dict[str, Any] = orjson.loads(data)
        return value


def shown_as(seq: int, public: dict[str, Any], own: dict[int | None, dict[str, Any]]) -> Shown:
    """What was sent as of event ``seq`` (``Shown``). The states hold only JSON values (string keys,
    lists, no tuples), so what is encoded reads back exactly as it was."""
    def dumps(value: Any) -> str:
        return orjson.dumps(value).decode()

    view = public.get("view")
    tricks = sides = None
    if view is not None:
        view = dict(view)
        tricks = view.pop("tricks")
        sides = view.pop("sides")
    rest = {k: v for k, v in public.items() if k != "view"}
    turn = public.get("turn")
    marks: Marks | None = None
    if (view is not None and sides is not None and public.get("game_seconds_left") is None
            and (not isinstance(turn, dict) or turn.get("seconds_left") is None)):
        marks = (view["to_act"], view["trick_winner"], view["broken"], sides)
    return Shown(seq, rest, dumps(view), tricks, sides, {v: dumps(o) for v, o in own.items()}, marks)


STATELESS_KINDS = frozenset({"chat"})
"""Rows that change nothing of any viewer's state (``play_payloads`` sends them with an empty change)."""


@dataclass(frozen=True)
class Live:
    """What a table's viewers were last sent when nothing of it is kept: the table's own state as it
    stands, as of event ``seq``, sent to ``viewers``, with ``marks`` (``Marks``) then and no clock
    running. A table keeps this instead of a ``Shown`` after a card when the next card is not the hand's
    last (``play_payloads``): that card's change is then the engine's, and nothing needs the state it
    follows. Any other event after a ``Live`` sends whole states (``event_payloads``); none comes in play
    but a chat line (kept ``Live``), a seat change (whole states anyway) or a clock started."""

    seq: int
    viewers: frozenset[int | None]
    marks: Marks


_ENGINE_CHANGES: dict[str, tuple[Callable[[Hand, Marks, int], tuple[dict[str, Any], Marks] | None],
                                  Callable[[Hand, int | None, int], dict[str, Any]]]] = {
    "play": (lambda hand, marks, _player: played_change(hand, marks), played_own_change),
    "bid": (bid_change, bid_own_change),
    "look": (looked_change, looked_own_change),
    "pass": (passed_change, passed_own_change),
}
"""The actions whose change the engine gives (``spades.core.view``): for each, the shared view fields'
change and a viewer's own fields' change."""


def play_payloads(rows: list[EventRow], layout: Layout, viewers: Iterable[int | None], hand: Hand | None,
                  own: Callable[[int | None], dict[str, Any]], shown: Shown | Live | None,
                  public: Callable[[], dict[str, Any]], table: dict[str, Any] | None = None,
                  clock_free: bool = False) -> tuple[dict[int | None, list[str]], Shown | Live] | None:
    """``event_payloads`` of a lone action whose change the engine gives (``_ENGINE_CHANGES``: a card played
    while the hand's play goes on, a bid, a look at one's cards, a pass of cards to a partner; see
    ``spades.core.view.played_change``, ``bid_change``, ``looked_change``, ``passed_change`` and their
    ``_own_change``) instead of building each viewer's state and comparing it with the one sent before:
    the same messages, encoded once per distinct payload (``tests/server/test_play_payloads.py`` holds the
    two to each other in every preset). A chat line (``STATELESS_KINDS``) changes nothing: an empty change,
    and what was shown stays. ``None`` for any other event, or when the engine has no answer for this one,
    or when the viewers were not shown the state just before it, or when a clock runs (``clock_free``
    False: a turn or game clock ticks, so the state changes with time): the caller asks ``event_payloads``.

    What they have been shown after it: ``Live`` when the engine will give the next action's change too
    (``spades.core.view.next_change_known``), else the ``Shown`` state built from ``public()`` and
    ``own``, for the comparison the next event takes."""
    if not clock_free or hand is None or shown is None or shown.marks is None or len(rows) != 1:
        return None
    row = rows[0]
    if row.seq != shown.seq + 1:
        return None
    if row.kind in STATELESS_KINDS:  # nothing of the state changed: an empty change, if all saw it
        if not shown.viewers.issuperset(viewers):
            return None
        msg = {**event_message(row.seq, project_event(row, None, layout)), "change": {}}
        if table is not None:
            msg["table"] = table
        text = [encode_message(msg)]
        return {v: text for v in viewers}, replace(shown, seq=row.seq)
    engine = _ENGINE_CHANGES.get(row.data["action"]["a"]) if row.kind == "action" else None
    if engine is None:
        return None
    action = decode_action(row.data["action"])
    player = action.seat
    changed = engine[0](hand, shown.marks, player)
    if changed is None:
        return None
    shared, marks = changed
    own_change = engine[1]
    to_act = hand.to_act
    # Who sees the action in full (a pass: the two partners) gets a head of its own; the rest share one.
    passing = isinstance(action, Pass)
    receiver = hand.passes[-1][1] if passing else player
    heads: dict[bool, dict[str, Any]] = {}
    known = shown.viewers
    texts: dict[Any, list[str]] = {}
    out: dict[int | None, list[str]] = {}
    for v in dict.fromkeys(viewers):
        fresh = v not in known  # (opened since: it was shown the state, but none of its own fields)
        key = ("fresh", v) if fresh else v if v in (player, to_act, receiver) else "other"
        got = texts.get(key)
        if got is None:
            seen = not passing or sees_action(action, v, layout)
            head = heads.get(seen)
            if head is None:
                head = heads[seen] = event_message(row.seq, project_event(row, v, layout, action))
            mine = own(v) if fresh else own_change(hand, v, player)
            view = {**shared, **mine}
            msg = {**head, "change": {"view": view} if view else {}}
            if table is not None:
                msg["table"] = table
            got = texts[key] = [encode_message(msg)]
        out[v] = got
    after: Shown | Live
    if next_change_known(hand):  # the next action takes this path too: nothing to compare it with
        after = Live(row.seq, frozenset(out), marks)
    else:
        after = shown_as(row.seq, public(), {v: own(v) for v in out})
    return out, after


def table_payloads(rows: list[EventRow], layout: Layout, viewers: Iterable[int | None], hand: Hand | None,
                   own: Callable[[int | None], dict[str, Any]], shown: Shown | Live | None,
                   public: Callable[[], dict[str, Any]], table: dict[str, Any] | None = None,
                   clock_free: bool = False) -> tuple[dict[int | None, list[str]], Shown | Live]:
    """What a table sends its viewers for new rows, and what they have been shown after them: the engine's
    change where it has one (``play_payloads``), else the shared state ``public()`` compared with what was
    shown (``event_payloads``). ``clock_free``: no turn or game clock runs at the table."""
    viewers = list(viewers)
    got = play_payloads(rows, layout, viewers, hand, own, shown, public, table, clock_free)
    return got if got is not None else event_payloads(rows, layout, viewers, public(), own, shown, table)


FULL_STATE_KINDS = frozenset({"seat"})
"""Rows after which every viewer gets its whole state instead of a change: a seat change (a socket may
now look from another seat)."""


def full_state(public: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """One viewer's whole state: the shared state with the viewer's own view fields."""
    view = public.get("view")
    return public if view is None else {**public, "view": {**view, **own}}


def event_payloads(rows: list[EventRow], layout: Layout, viewers: Iterable[int | None], public: dict[str, Any],
                   own: Callable[[int | None], dict[str, Any]], shown: Shown | Live | None,
                   table: dict[str, Any] | None = None) -> tuple[dict[int | None, list[str]], Shown]:
    """The encoded messages each viewer gets for new rows, and what they have been shown after them.

    Each row is an event message (``event_message``) projected for the viewer (``project_event``). The last one carries
    the viewer's ``change`` (``spades.core.view.change_of``: the fields of the shared state that changed
    since ``shown``, and of the viewer's own view fields; a viewer not in ``shown`` gets all its own
    fields), or its whole ``state`` when nothing was shown before (``shown`` is ``None``, a ``Live`` that
    kept nothing to compare with, or not at the event before these rows) or a row of ``FULL_STATE_KINDS``
    is among them. ``turn`` is always in a
    change (its seconds left count down). ``table`` goes on the last message when given. Each distinct
    payload is encoded once and shared by every viewer that gets it."""
    viewers = list(dict.fromkeys(viewers))
    owns = {v: own(v) for v in viewers}
    after = shown_as(rows[-1].seq, public, owns)
    full = (not isinstance(shown, Shown) or shown.seq != rows[0].seq - 1 or public.get("view") is None
            or any(r.kind in FULL_STATE_KINDS for r in rows))
    # Rows every viewer sees alike are projected and encoded once.
    private = any(r.kind == "seed" or (r.kind == "action" and r.data["action"]["a"] in ("pass", "discard", "draw"))
                  for r in rows)
    shared_change: dict[str, Any] = {}
    actions = [decode_action(r.data["action"]) if r.kind == "action" else None for r in rows]
    acts = [] if full else [action_to_dict(a, marked=True) for a in actions if isinstance(a, (Play, Bid))]
    if not full:
        assert isinstance(shown, Shown)
        base = shown.public
        for a in acts:  # what the client does with a bid or a card played (``apply_event``)
            base = {**base, "view": act_on(base["view"], a)}
        won = closed_trick(base["view"], public["view"]) if acts else None
        if won is not None:  # the trick on the table closed: its winner says it all
            base = {**base, "view": close_trick(base["view"], won)}
        shared_change = change_of(base, public)
        if won is not None:
            shared_change["view"] = {"won": won, **shared_change.get("view", {})}
        turn = public.get("turn")
        if isinstance(turn, dict) and turn.get("seconds_left") is not None:
            shared_change["turn"] = turn  # a running clock: its seconds left, whoever saw it when
        elif (shared_change.get("turn") == {"seat": public["view"]["to_act"]}
              and "to_act" in shared_change.get("view", {})):
            del shared_change["turn"]  # the client moves ``turn.seat`` with ``to_act``
    heads: dict[Any, list[str]] = {}
    projected: dict[Any, list[dict[str, Any]]] = {}
    texts: dict[tuple[Any, ...], list[str]] = {}
    out: dict[int | None, list[str]] = {}
    for v in viewers:
        key_rows: Any = v if private else "*"
        last: dict[str, Any]
        if full:
            key: tuple[Any, ...] = ("state", v)
        else:
            assert isinstance(shown, Shown)
            was = shown.own_json.get(v)
            if was is not None and was == after.own_json[v] and all(a["seat"] != v for a in acts):
                # The same fields as last sent, and no action by the viewer's own seat (another seat's
                # bid or card leaves a viewer's own fields as they were in ``act_on``): no change of its own.
                mine = {}
            else:
                before = shown.own(v)
                if before is not None:
                    for a in acts:
                        before = act_on(before, a)
                mine = owns[v] if before is None else change_of(before, owns[v])
            key = ("change", key_rows, encode_message(mine) if mine else "")
        got = texts.get(key)
        if got is None:
            head = heads.get(key_rows)
            msgs = projected.get(key_rows)
            if msgs is None:
                msgs = projected[key_rows] = [event_message(r.seq, project_event(r, v, layout, a))
                                              for r, a in zip(rows, actions, strict=True)]
            if head is None:
                head = heads[key_rows] = [encode_message(m) for m in msgs[:-1]]
            last = dict(msgs[-1])  # (shared by the viewers of the same rows: each adds its own change)
            if full:
                last["state"] = full_state(public, owns[v])
            else:
                change = shared_change
                if mine:
                    change = {**shared_change, "view": {**shared_change.get("view", {}), **mine}}
                last["change"] = change
            if table is not None:
                last["table"] = table
            got = texts[key] = [*head, encode_message(last)]
        out[v] = got
    return out, after
