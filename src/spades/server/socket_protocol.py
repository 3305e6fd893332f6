"""The WebSocket protocol ``spades serve`` gives uvicorn: uvicorn's own (``websockets``' sans-I/O
implementation, the one uvicorn picks by itself) made lighter for a server holding thousands of sockets
open for whole games.

A table socket is open for an hour and carries a few messages a minute, so what a socket *holds* while it
waits is what limits a process, not what a message costs. uvicorn's protocol object keeps, for the
socket's whole life, the parsed handshake request and the response it answered with (their headers, about
2-3 KiB) and five ``collections.deque``, each a 0.7 KiB block even when empty: its receive queue (an
``asyncio.Queue``: three deques and an ``asyncio.Event`` with one more) and its ``writable`` event. Here,
once the handshake's answer is sent, the request's headers and the response are let go, the receive queue
is a list and at most one waiting future, and ``writable`` a flag that makes a future only when a send
really has to wait (``benchmarks/README.md``, issue 19, has the measurements; ``tests/server/test_socket_protocol.py``
checks both the savings and the behaviour against the pinned uvicorn).

Its keepalive pings are sent by one timer of the process for all its sockets (``_Pings``), not one timer a
socket: uvicorn arms a ``call_later`` per socket for the next ping, which each socket held for its whole
life (the loop's timer handle and its callback: 0.4 KiB of RSS a socket at 3,000 sockets); the pings go
out within a second of when uvicorn's would, and a socket whose pong does not come within the timeout
is closed as before.

A message it receives takes a shorter path too: a whole text frame (final, masked, under 64 KiB), the kind
a table's client sends for every move, is unmasked and given to the application here, and anything else
(a control frame, a fragment, a frame split between reads, an unmasked or oversized one) goes to
``websockets``' parser as before, which then sees exactly the bytes it would have parsed itself
(``data_received``). ``websockets``' generator-based parser costs about 5.7 µs a frame.

It also offers the application a way to write a text message at once (``send_text_now``, through the
scope extension ``SEND_NOW``): a table's event then goes to each socket from the loop's step that made
it, not through a wake of each socket's writer task and an ASGI ``send`` each (``Conn.send_text``).

This depends on uvicorn's attributes (``queue``, ``writable``, ``request``, ``response``, ``frames``) and
on ``websockets``' parser (its ``reader``, its generator ``parser``, ``current_size``), which is why both
versions are pinned; the tests fail if an upgrade changes them.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State
from websockets.streams import StreamReader

try:  # (what ``websockets``' own parser unmasks with: its C extension, else its Python)
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

log = logging.getLogger(__name__)

SEND_NOW = "spades.send_text_now"
"""The ASGI scope extension (``scope["extensions"][SEND_NOW]``) by which a socket served by
``LeanWebSocketProtocol`` offers ``send_text_now``. Under any other server it is absent and the
application sends through ASGI's ``send`` alone."""


def text_frame(data: bytes) -> bytes:
    """A whole text message as one unmasked frame (RFC 6455, section 5.2: FIN and the text opcode, then the
    payload's length in 7, 16 or 64 bits, then the payload): the bytes ``websockets``' ``send_text`` writes
    for a server's socket with no extension, without the ``Frame`` it builds, checks and serializes through
    a buffer (1.6 µs a message against 0.2, issue 19). ``tests/server/test_socket_protocol.py`` holds the
    two to each other."""
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 65536:
        return b"\x81\x7e" + n.to_bytes(2, "big") + data
    return b"\x81\x7f" + n.to_bytes(8, "big") + data


_AT_EOF = StreamReader.at_eof.__code__


def _parser_waits(conn: Any) -> bool:
    """``websockets``' parser waits for a new frame with nothing read ahead: its generator (the server's
    handshake, then its frames) is suspended in ``StreamReader.at_eof`` and its buffer is empty. Bytes given
    to ``LeanWebSocketProtocol``'s own path are then bytes this parser would have read from a frame's start."""
    if conn.reader.buffer:
        return False
    gen = conn.parser
    while getattr(gen, "gi_yieldfrom", None) is not None:
        gen = gen.gi_yieldfrom
    return getattr(gen, "gi_code", None) is _AT_EOF


def _whole_texts(data: bytes, limit: int | None) -> tuple[list[bytes], bytes]:
    """The unmasked payloads of the whole text frames at the start of ``data`` (final, masked, no reserved
    bit, a 7- or 16-bit length, at most ``limit`` bytes: what ``websockets`` turns into a text message with
    no more checks), and the bytes from the first frame that is not one of those."""
    n = len(data)
    pos = 0
    texts: list[bytes] = []
    while pos + 6 <= n:  # (the shortest masked frame: two bytes of header, four of mask)
        if data[pos] != 0x81:  # FIN and the text opcode, no reserved bit
            break
        length = data[pos + 1]
        if length < 0x80:  # unmasked: ``websockets`` refuses a client's frame so
            break
        length &= 0x7F
        start = pos + 6
        if length == 126:
            start = pos + 8
            if start > n:
                break
            length = int.from_bytes(data[pos + 2:pos + 4], "big")
        elif length == 127:
            break
        end = start + length
        if end > n or (limit is not None and length > limit):
            break
        texts.append(apply_mask(data[start:end], data[start - 4:start]))
        pos = end
    return texts, (data[pos:] if pos else data)


class _Inbox:
    """What uvicorn asks of its receive queue (``put_nowait``, ``get``, ``empty``), for one reader: ASGI's
    ``receive`` is awaited by one task at a time."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    async def get(self) -> Any:
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("a WebSocket's receive is awaited by two tasks at once")
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.pop(0)


class _Flag:
    """What uvicorn asks of ``writable`` (an ``asyncio.Event``: ``set``, ``clear``, ``is_set``, ``wait``),
    with no deque: futures are made only while the transport's buffer is full."""

    __slots__ = ("_is_set", "_waiters")

    def __init__(self) -> None:
        self._is_set = True
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._is_set

    def set(self) -> None:
        self._is_set = True
        waiters, self._waiters = self._waiters, None
        for w in waiters or ():
            if not w.done():
                w.set_result(None)

    def clear(self) -> None:
        self._is_set = False

    async def wait(self) -> bool:
        if self._is_set:
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True


class _Pings:
    """The next keepalive ping of every socket of one event loop, by the whole second it is due in, sent by
    one timer that runs while any is due: what uvicorn's ``schedule_ping`` arms a timer a socket for. A
    socket's entry stands where uvicorn keeps its timer (``ping_timer``), so that uvicorn's own
    ``stop_keepalive`` (on a close or a lost connection) takes it out through ``cancel``."""

    __slots__ = ("_at", "_due", "_loop", "_timer")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._due: dict[int, dict[LeanWebSocketProtocol, None]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._at = 0

    def add(self, protocol: LeanWebSocketProtocol, delay: float) -> _Ping:
        second = math.ceil(self._loop.time() + delay)
        self._due.setdefault(second, {})[protocol] = None
        if self._timer is None or second < self._at:
            self._arm()
        return _Ping(self, second, protocol)

    def remove(self, second: int, protocol: LeanWebSocketProtocol) -> None:
        due = self._due.get(second)
        if due is not None:
            due.pop(protocol, None)
            if not due:
                del self._due[second]

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        if self._due:
            self._at = min(self._due)
            self._timer = self._loop.call_at(self._at, self._tick)

    def _tick(self) -> None:
        self._timer = None
        now = self._loop.time()
        try:
            for second in sorted(s for s in self._due if s <= now):
                for protocol in self._due.pop(second):
                    try:  # (it clears its ``ping_timer``; a socket closing sends nothing)
                        protocol.send_keepalive_ping()
                    except Exception:  # one socket's failure stops no other socket's pings
                        log.exception("could not send a keepalive ping")
        finally:
            self._arm()

    def __len__(self) -> int:
        return sum(len(due) for due in self._due.values())


class _Ping:
    """One socket's next ping in ``_Pings`` (what uvicorn asks of the ``ping_timer`` it keeps: ``cancel``)."""

    __slots__ = ("_pings", "_protocol", "_second")

    def __init__(self, pings: _Pings, second: int, protocol: LeanWebSocketProtocol) -> None:
        self._pings, self._second, self._protocol = pings, second, protocol

    def cancel(self) -> None:
        self._pings.remove(self._second, self._protocol)


_PINGS: dict[asyncio.AbstractEventLoop, _Pings] = {}
"""Each running loop's ``_Pings`` (a process runs one loop; the tests start servers on loops of their own)."""


def _pings(loop: asyncio.AbstractEventLoop) -> _Pings:
    pings = _PINGS.get(loop)
    if pings is None:
        for old in [k for k in _PINGS if k.is_closed()]:
            del _PINGS[old]
        pings = _PINGS[loop] = _Pings(loop)
    return pings


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, holding less per open socket (the module's docstring says what)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue: Any = _Inbox()
        self.writable: Any = _Flag()
        self.between_frames = False
        """``websockets``' parser waited for a new frame after the last bytes it was given (``_parser_waits``)."""

    def data_received(self, data: bytes) -> None:
        """uvicorn's ``data_received`` (``websockets`` parses the bytes, then the application is given each
        message), with the whole text frames at the start of ``data`` taken here while ``websockets``' parser
        waits between frames (``_whole_texts``): the bytes from the first frame not taken go to the parser,
        and as in uvicorn, a protocol error in them drops every message of this read."""
        conn = self.conn
        if not (self.between_frames and self.handshake_complete and not self.close_sent and not self.disconnected
                and conn.state is State.OPEN and conn.current_size is None and not conn.extensions
                and not conn.debug):
            super().data_received(data)
            self.between_frames = _parser_waits(conn)
            return
        texts, rest = _whole_texts(data, conn.max_message_size)
        if rest:
            conn.receive_data(rest)
            if conn.parser_exc is not None:
                self.between_frames = False
                self.handle_parser_exception()
                return
        for payload in texts:  # (uvicorn's ``handle_text`` of a final frame)
            self.curr_msg_data_type = "text"
            self.frames = [payload]
            self.send_receive_event_to_app()
        if rest:
            self.handle_events()
            self.between_frames = _parser_waits(conn)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # (no scope: the handshake was refused before the application ran)
            scope["extensions"][SEND_NOW] = self.send_text_now

    def schedule_ping(self) -> None:
        """uvicorn's next keepalive ping, in ``delay`` seconds as uvicorn reckons it, by the process's one
        timer (``_Pings``) instead of a timer of its own."""
        assert self.ping_interval is not None
        delay = max(0.0, self.ping_interval - self.last_ping_rtt)
        self.ping_timer = _pings(self.loop).add(self, delay)  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the scope no longer points back here: the protocol is freed by its count
            scope["extensions"].pop(SEND_NOW, None)

    def send_text_now(self, *texts: str) -> bool:
        """Write text messages now, in order and in one write to the transport, from the caller's own step
        of the loop, if they can be written at once: the handshake accepted, no close sent or received, and
        the transport not paused (its buffer under the high-water mark). ``False`` (nothing written)
        otherwise: the caller then sends through ASGI's ``send``, which waits while the transport is paused
        and says why a socket cannot be written.

        What ASGI's ``send`` does for a ``websocket.send`` of text, without the coroutine, the event's dict
        and the task a writer needs to await it: a table's event goes to each of its sockets from the
        loop's step that made it (``Conn.send_text``, issue 19)."""
        if (not self.handshake_complete or self.close_sent or self.disconnected or not self.writable.is_set()
                or self.initial_response is not None or self.transport.is_closing()):
            return False
        conn = self.conn
        if conn.state is not State.OPEN:  # the peer's close frame arrived: ASGI's send reports the disconnect
            return False
        if conn.extensions or conn.expect_continuation_frame or conn.debug:  # (none under ``spades serve``)
            for text in texts:
                conn.send_text(text.encode())
            self.transport.write(b"".join(conn.data_to_send()))
            return True
        # Whatever the protocol has queued goes first (it writes its own after each read: nothing, mostly).
        self.transport.write(b"".join([*conn.data_to_send(), *(text_frame(text.encode()) for text in texts)]))
        return True

    async def send(self, message: Any) -> None:
        accepting = not self.handshake_complete
        await super().send(message)
        if accepting and self.handshake_complete:
            # The handshake is answered (accepted, refused or closed): nothing reads it again. The
            # request's headers are emptied too, since ``websockets``' parser keeps the request itself
            # (a local of its generator) for the socket's whole life.
            request = getattr(self, "request", None)
            if request is not None:
                request.headers.clear()
            self.request = None  # type: ignore[assignment]
            self.response = None  # type: ignore[assignment]


__all__ = ["SEND_NOW", "LeanWebSocketProtocol", "text_frame"]
