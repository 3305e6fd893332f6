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

It also offers the application a way to write a text message at once (``send_text_now``, through the
scope extension ``SEND_NOW``): a table's event then goes to each socket from the loop's step that made
it, not through a wake of each socket's writer task and an ASGI ``send`` each (``Conn.send_text``).

This depends on uvicorn's attributes (``queue``, ``writable``, ``request``, ``response``), which is why
uvicorn's version is pinned; the tests fail if an upgrade changes them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

SEND_NOW = "spades.send_text_now"
"""The ASGI scope extension (``scope["extensions"][SEND_NOW]``) by which a socket served by
``LeanWebSocketProtocol`` offers ``send_text_now``. Under any other server it is absent and the
application sends through ASGI's ``send`` alone."""


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


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, holding less per open socket (the module's docstring says what)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue: Any = _Inbox()
        self.writable: Any = _Flag()

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # (no scope: the handshake was refused before the application ran)
            scope["extensions"][SEND_NOW] = self.send_text_now

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
        try:
            for text in texts:
                self.conn.send_text(text.encode())
        except InvalidState:  # the peer's close frame arrived: ASGI's send reports the disconnect
            return False  # (before the first: the state does not change between two frames)
        self.transport.write(b"".join(self.conn.data_to_send()))
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


__all__ = ["SEND_NOW", "LeanWebSocketProtocol"]
