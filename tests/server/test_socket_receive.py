"""The received side of ``LeanWebSocketProtocol``: whole text frames are taken without ``websockets``' parser
(``data_received``), and whatever bytes come, split however they are, the application gets the same
messages, the client the same answers and the socket the same fate as through the parser alone."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from bench_tools import load_benchmark
from spades.server.socket_protocol import LeanWebSocketProtocol

MAX_SIZE = 1000  # the socket's ``max_size`` in these tests (``spades serve`` has 64 KiB)

HANDSHAKE = (b"GET /ws HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


class Parsed(LeanWebSocketProtocol):
    """The same protocol with every received byte given to ``websockets``' parser (uvicorn's own path)."""

    def data_received(self, data: bytes) -> None:
        WebSocketsSansIOProtocol.data_received(self, data)


class Transport(asyncio.Transport):
    """Keeps what is written; says whether it was closed."""

    def __init__(self) -> None:
        super().__init__()
        self.out = bytearray()
        self.closed = False
        self.paused = False

    def write(self, data: Any) -> None:
        self.out += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)


async def accepting_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Accepts the socket, then reads nothing: what it is given stays in the protocol's queue."""
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    await asyncio.get_running_loop().create_future()


@contextmanager
def accepted(protocol: type[LeanWebSocketProtocol]) -> Iterator[tuple[LeanWebSocketProtocol, Transport, Any]]:
    """A socket of ``protocol`` on a transport that keeps its bytes, its handshake answered and accepted."""
    loop = asyncio.new_event_loop()
    config = Config(accepting_app, ws=protocol, ws_max_size=MAX_SIZE, ws_per_message_deflate=False, lifespan="off",
                    ws_ping_interval=None, log_level="warning")
    config.load()
    state = ServerState()
    proto = protocol(config, state, {}, _loop=loop)
    transport = Transport()
    proto.connection_made(transport)
    proto.data_received(HANDSHAKE)
    for _ in range(20):
        loop.run_until_complete(asyncio.sleep(0))
    assert proto.handshake_complete and transport.out.startswith(b"HTTP/1.1 101")
    del transport.out[:]
    try:
        yield proto, transport, loop
    finally:
        errors = logging.getLogger("uvicorn.error")
        errors.disabled = True  # (the application's task is cancelled: uvicorn logs that as its failure)
        try:
            for task in list(state.tasks):
                task.cancel()
            loop.run_until_complete(asyncio.sleep(0))
        finally:
            errors.disabled = False
            loop.close()


def frame(payload: bytes, *, opcode: int = 1, fin: bool = True, rsv: int = 0, masked: bool = True,
          form: int | None = None, mask: bytes = b"\x37\xfa\x21\x3d") -> bytes:
    """A frame as a client may send it: ``form`` forces the length's encoding (7, 16 or 64 bits)."""
    n = len(payload)
    form = form if form is not None else 7 if n < 126 else 16 if n < 65536 else 64
    head = bytes(((0x80 if fin else 0) | (rsv << 4) | opcode,))
    bit = 0x80 if masked else 0
    if form == 7:
        head += bytes((bit | n,))
    elif form == 16:
        head += bytes((bit | 126,)) + n.to_bytes(2, "big")
    else:
        head += bytes((bit | 127,)) + n.to_bytes(8, "big")
    if not masked:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def state_of(proto: LeanWebSocketProtocol, transport: Transport) -> tuple[Any, ...]:
    """What the application, the client and the socket see."""
    return (list(proto.queue._items), bytes(transport.out), transport.closed, proto.close_sent, proto.conn.state,
            proto.read_paused)


def feed(protocol: type[LeanWebSocketProtocol], chunks: list[bytes]) -> tuple[Any, ...]:
    """What ``state_of`` says after the chunks, and the exception a read raised, if one did (uvicorn's own
    path raises one for a text that is not UTF-8 after a close frame in the same read)."""
    with accepted(protocol) as (proto, transport, loop):
        raised = None
        for chunk in chunks:
            if transport.closed:
                break
            try:
                proto.data_received(chunk)
            except Exception as e:
                raised = type(e).__name__
                break
            loop.run_until_complete(asyncio.sleep(0))
        return (*state_of(proto, transport), raised)


texts = st.text(max_size=40).map(str.encode)
frames = st.one_of(
    texts.map(frame),  # the usual kind
    texts.map(lambda p: frame(p, form=16)),  # a short text with a 16-bit length
    texts.map(lambda p: frame(p, form=64)),
    st.binary(min_size=126, max_size=400).map(lambda p: frame(p.decode("latin-1").encode()[:400])),
    st.binary(max_size=8).map(lambda p: frame(b"\xff" + p)),  # not UTF-8
    st.binary(max_size=20).map(lambda p: frame(p, opcode=2)),  # binary
    st.binary(max_size=20).map(lambda p: frame(p, opcode=9)),  # ping
    st.binary(max_size=20).map(lambda p: frame(p, opcode=10)),  # pong
    st.just(frame(b"\x03\xe8bye", opcode=8)),  # close
    texts.map(lambda p: frame(p, fin=False) + frame(b"more", opcode=0)),  # a fragmented message
    texts.map(lambda p: frame(p, fin=False)),  # a fragment left open
    texts.map(lambda p: frame(p, opcode=0)),  # a continuation of nothing
    texts.map(lambda p: frame(p, rsv=4)),  # a reserved bit
    texts.map(lambda p: frame(p, masked=False)),
    st.integers(MAX_SIZE + 1, MAX_SIZE + 50).map(lambda n: frame(b"a" * n)),  # over max_size
    st.just(bytes((0x83, 0x80)) + b"\0\0\0\0"),  # an unknown opcode
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames, max_size=8), st.lists(st.integers(0, 2000), max_size=6))
def test_any_bytes_split_anyhow_are_received_as_websockets_parser_receives_them(parts: list[bytes],
                                                                                cuts: list[int]) -> None:
    data = b"".join(parts)
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    chunks = [data[a:b] for a, b in itertools.pairwise(points) if b > a]
    assert feed(LeanWebSocketProtocol, chunks) == feed(Parsed, chunks)


def test_whole_text_frames_do_not_go_through_websockets_parser() -> None:
    with accepted(LeanWebSocketProtocol) as (proto, transport, _loop):
        parsed: list[bytes] = []
        real = proto.conn.receive_data

        def counted(data: bytes) -> None:
            parsed.append(bytes(data))
            real(data)

        proto.conn.receive_data = counted  # type: ignore[method-assign]
        proto.data_received(frame(b'{"type":"state"}'))
        proto.data_received(frame(b"one") + frame("d\u00e9j\u00e0".encode()) + frame(b"x" * 300))
        assert parsed == []
        assert [m["text"] for m in proto.queue._items] == ['{"type":"state"}', "one", "d\u00e9j\u00e0", "x" * 300]
        # A ping goes to the parser (which answers it), and the text after it is taken again.
        proto.data_received(frame(b"hi", opcode=9) + frame(b"two"))
        assert len(parsed) == 1 and transport.out == b"\x8a\x02hi"
        proto.data_received(frame(b"three"))
        assert len(parsed) == 1
        # A frame split between two reads: its parts go to the parser, then whole frames are taken again.
        split = frame(b"four")
        proto.data_received(split[:3])
        proto.data_received(split[3:])
        proto.data_received(frame(b"five"))
        assert len(parsed) == 3
        assert [m["text"] for m in proto.queue._items][-4:] == ["two", "three", "four", "five"]
        assert not transport.closed


def test_the_receive_bench_measures_both_paths() -> None:
    bench = load_benchmark("socket_receive.py")
    for protocol in (LeanWebSocketProtocol, Parsed):
        assert 0 < bench.measure(protocol, 200) < 10_000
