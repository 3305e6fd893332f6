"""``LeanWebSocketProtocol``: uvicorn's WebSocket protocol holding less per open socket, checked against the
pinned uvicorn: it serves a socket as uvicorn's own does (the handshake, messages both ways, a refusal,
closes from either side; its receive queue and its ``writable`` flag are also checked alone), and an open
socket holds kilobytes less."""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.sync.client import connect
from websockets.uri import parse_uri

from spades.server.socket_protocol import SEND_NOW, LeanWebSocketProtocol, _Flag, _Inbox, _Ping, _pings, text_frame

OPEN: list[Any] = []  # the protocols of the sockets the test server has open
WROTE: list[Any] = []  # what ``now_app``'s writes at once returned
SCOPES: list[dict[str, Any]] = []  # the scopes ``now_app`` was called with


async def echo_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Refuses ``/no``, closes after ``bye``, and otherwise sends back each text in capitals."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    assert (await receive())["type"] == "websocket.connect"
    if scope["path"] == "/no":
        await send({"type": "websocket.close", "code": 1008})
        return
    await send({"type": "websocket.accept"})
    while True:
        msg = await receive()
        if msg["type"] == "websocket.disconnect":
            return
        if msg["text"] == "bye":
            await send({"type": "websocket.close", "code": 4000, "reason": "asked"})
            return
        await send({"type": "websocket.send", "text": msg["text"].upper()})


async def now_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers ``n`` with ``n`` messages written at once (``SEND_NOW``); ``bye`` closes, then tries once more."""
    if scope["type"] == "lifespan":
        return await echo_app(scope, receive, send)
    SCOPES.append(scope)
    write_now = scope["extensions"].get(SEND_NOW)
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    while True:
        msg = await receive()
        if msg["type"] == "websocket.disconnect":
            WROTE.append(("after the disconnect", write_now("late")))
            return
        if msg["text"] == "bye":
            await send({"type": "websocket.close", "code": 4000, "reason": "asked"})
            WROTE.append(("after the close", write_now("late")))
            return
        if msg["text"].startswith("*"):  # several messages in one write
            count = int(msg["text"][1:])
            WROTE.append([write_now(*(f"{msg['text']}.{i}" for i in range(count)))])
            continue
        WROTE.append([write_now(f"{msg['text']}.{i}") for i in range(int(msg["text"]))])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(protocol: type[WebSocketsSansIOProtocol], app: Any = echo_app,
            ping: tuple[float, float] | None = None, deflate: bool = True) -> Iterator[str]:
    """A uvicorn server of ``app`` on ``protocol`` in a thread; ``ping``: its keepalive (interval, timeout);
    ``deflate``: uvicorn's ``ws_per_message_deflate`` (on by default; ``spades serve`` turns it off)."""
    port = _free_port()

    class Recorded(protocol):  # type: ignore[valid-type, misc]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            OPEN.append(self)

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           ws=Recorded, ws_ping_interval=ping and ping[0],
                                           ws_ping_timeout=ping and ping[1], lifespan="off",
                                           ws_per_message_deflate=deflate))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield f"ws://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        OPEN.clear()
        WROTE.clear()
        SCOPES.clear()


@pytest.mark.parametrize("protocol", [WebSocketsSansIOProtocol, LeanWebSocketProtocol])
def test_it_serves_a_socket_as_uvicorn_does(protocol: type[WebSocketsSansIOProtocol]) -> None:
    with serving(protocol) as url:
        with connect(f"{url}/x") as ws:
            for word in ("one", "two", "three"):
                ws.send(word)
                assert ws.recv(5) == word.upper()
            ws.send("bye")
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(5)
            assert closed.value.rcvd is not None and (closed.value.rcvd.code, closed.value.rcvd.reason) == (4000,
                                                                                                            "asked")
        with pytest.raises(InvalidStatus) as refused:
            connect(f"{url}/no")
        assert refused.value.response.status_code == 403
        with connect(f"{url}/x") as ws:  # the client closes: the app's receive sees the disconnect
            ws.send("a")
            assert ws.recv(5) == "A"
        # many messages at once arrive in order
        with connect(f"{url}/x") as ws:
            for i in range(200):
                ws.send(f"m{i}")
            assert [ws.recv(5) for _ in range(200)] == [f"M{i}" for i in range(200)]


def test_the_handshake_is_let_go_once_answered() -> None:
    with serving(LeanWebSocketProtocol) as url, connect(f"{url}/x") as ws:
        ws.send("a")
        assert ws.recv(5) == "A"
        (p,) = OPEN
        assert p.request is None and p.response is None
        assert not [v for v in vars(p).values() if type(v).__name__ in ("deque", "Queue", "Event", "Headers")]
        assert isinstance(p.queue, _Inbox) and isinstance(p.writable, _Flag)


@pytest.mark.parametrize("deflate", [False, True])
def test_a_message_can_be_written_at_once_in_order_until_the_socket_closes(deflate: bool) -> None:
    """Without an extension (as ``spades serve`` runs) the frames are ``text_frame``'s; with
    permessage-deflate, ``websockets``' own (compressed): the same messages either way."""
    with serving(LeanWebSocketProtocol, now_app, deflate=deflate) as url:
        with connect(f"{url}/x") as ws:
            assert bool(OPEN[-1].conn.extensions) == deflate
            ws.send("3")
            assert [ws.recv(5) for _ in range(3)] == ["3.0", "3.1", "3.2"]
            ws.send("200")  # more than one read of the client's: in order, each once
            assert [ws.recv(5) for _ in range(200)] == [f"200.{i}" for i in range(200)]
            ws.send("*4")  # four in one write: in order, each a message of its own
            assert [ws.recv(5) for _ in range(4)] == [f"*4.{i}" for i in range(4)]
            ws.send("bye")
            with pytest.raises(ConnectionClosed):
                ws.recv(5)
        with connect(f"{url}/x") as ws:  # the client closes first
            ws.send("1")
            assert ws.recv(5) == "1.0"
        for _ in range(250):  # the server's side of the last close may come a little after the client's
            if len(WROTE) == 6 and all(SEND_NOW not in scope["extensions"] for scope in SCOPES):
                break
            time.sleep(0.02)
        assert WROTE[:3] == [[True] * 3, [True] * 200, [True]]
        assert WROTE[3:] == [("after the close", False), [True], ("after the disconnect", False)]
        # the scope no longer points back at the protocol once the connection is lost
        assert all(SEND_NOW not in scope["extensions"] for scope in SCOPES)


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70001])
def test_a_text_frame_is_the_one_websockets_writes_and_a_client_reads(length: int) -> None:
    """``text_frame`` (what ``send_text_now`` writes) is byte for byte the frame ``websockets`` makes for a
    server's text message, at each length encoding's edges, and a client reads it back as the text."""
    text = ("é" + "x" * length)[:length] if length else ""
    data = text.encode()
    assert text_frame(data) == Frame(Opcode.TEXT, data).serialize(mask=False, extensions=[])
    client = ClientProtocol(parse_uri("ws://localhost/x"), state=State.OPEN)
    client.receive_data(text_frame(data) + text_frame(b"next"))
    got = client.events_received()
    assert [(f.opcode, f.data.decode(), f.fin) for f in got] == [(Opcode.TEXT, text, True), (Opcode.TEXT, "next", True)]


def test_uvicorn_s_own_protocol_offers_no_write_at_once() -> None:
    with serving(WebSocketsSansIOProtocol, echo_app) as url, connect(f"{url}/x") as ws:
        ws.send("a")
        assert ws.recv(5) == "A"
        (p,) = OPEN
        assert SEND_NOW not in p.scope["extensions"]


def _traced_kib_per_socket(protocol: type[WebSocketsSansIOProtocol], sockets: int) -> float:
    with serving(protocol) as url:
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            opened = []
            for _ in range(sockets):
                ws = connect(f"{url}/x")
                ws.send("a")
                assert ws.recv(5) == "A"
                opened.append(ws)
            gc.collect()
            after = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        for ws in opened:
            ws.close()
    return (after - before) / sockets / 1024


def test_an_open_socket_holds_less() -> None:
    """Measured with the test's own clients in the same process (each costs both runs the same): the server
    side of a socket holds the handshake's headers and five deques less, 8.7-9.3 KiB in three runs with
    this client's short handshake (a browser's is longer, and so is the saving); without emptying the
    headers the parser keeps, 6.2-6.8 KiB."""
    stock = _traced_kib_per_socket(WebSocketsSansIOProtocol, 100)
    lean = _traced_kib_per_socket(LeanWebSocketProtocol, 100)
    assert stock - lean > 7.5, (stock, lean)


def test_keepalive_pings_come_from_one_timer_for_all_sockets() -> None:
    """Each socket is pinged and its pong heard (its round trip measured), its next ping waits in the one
    ``_Pings`` of the loop instead of a timer of its own (uvicorn's held about half a kilobyte a socket),
    and a closed socket's entry is gone."""
    with serving(LeanWebSocketProtocol, ping=(0.2, 5.0)) as url:
        clients = [connect(f"{url}/x") for _ in range(3)]
        for ws in clients:
            ws.send("a")
            assert ws.recv(5) == "A"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(p.last_ping_rtt > 0 for p in OPEN):
            time.sleep(0.05)
        assert len(OPEN) == 3 and all(p.last_ping_rtt > 0 for p in OPEN)  # pinged, and the pong heard
        pings = _pings(OPEN[0].loop)
        for ws in clients:  # (the clients answer pings in their own threads: the sockets stay open)
            ws.send("b")
            assert ws.recv(5) == "B"
        assert all(isinstance(p.ping_timer, _Ping | None) for p in OPEN) and 0 < len(pings) <= 3
        for ws in clients:
            ws.close()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(pings):
            time.sleep(0.05)
        assert len(pings) == 0


def test_a_socket_that_never_answers_a_ping_is_closed() -> None:
    """A peer that completes the handshake and then never answers a ping is closed once the pong's timeout
    has passed, as uvicorn's own timers close it."""
    with serving(LeanWebSocketProtocol, ping=(0.2, 0.3)) as url:
        host, port = url.removeprefix("ws://").split(":")
        client = ClientProtocol(parse_uri(f"{url}/x"))
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            client.send_request(client.connect())
            raw.sendall(b"".join(client.data_to_send()))
            got = b""
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                chunk = raw.recv(65536)  # the handshake's answer, the pings, the close frame, then the end
                if not chunk:
                    break
                got += chunk
            else:
                pytest.fail("the server kept a socket open that never answered its pings")
        assert got.startswith(b"HTTP/1.1 101")
        assert b"keepalive ping timeout" in got  # the close frame's reason


def test_the_inbox_gives_items_in_order_to_its_one_reader() -> None:
    async def go() -> None:
        inbox = _Inbox()
        inbox.put_nowait(1)
        inbox.put_nowait(2)
        assert not inbox.empty() and inbox.qsize() == 2
        assert [await inbox.get(), await inbox.get()] == [1, 2] and inbox.empty()
        reader = asyncio.ensure_future(inbox.get())
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="two tasks"):
            await inbox.get()
        inbox.put_nowait(3)
        assert await reader == 3
        cancelled = asyncio.ensure_future(inbox.get())  # a cancelled wait leaves the inbox usable
        await asyncio.sleep(0)
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        inbox.put_nowait(4)
        assert await inbox.get() == 4

    asyncio.run(go())


def test_the_flag_holds_writers_while_cleared() -> None:
    async def go() -> None:
        flag = _Flag()
        assert flag.is_set() and await flag.wait()
        flag.clear()
        writers = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
        await asyncio.sleep(0.01)
        assert not any(w.done() for w in writers)
        writers[0].cancel()
        await asyncio.sleep(0)
        flag.set()
        assert await asyncio.gather(*writers[1:]) == [True, True] and writers[0].cancelled()
        assert flag.is_set() and await flag.wait()

    asyncio.run(go())
