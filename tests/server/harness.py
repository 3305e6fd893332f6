"""Test harness: a real server on a free port (in a thread, or as a ``spades serve`` subprocess),
HTTP players with session cookies, and WebSocket clients from the ``websockets`` library."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import ClientConnection, connect

from spades.core.view import apply_event
from spades.server.app import create_app
from spades.server.config import ServerConfig
from spades.server.hub import BotLevels
from spades.server.protocol import PROTOCOL_VERSION, event_of
from spades.server.socket_protocol import LeanWebSocketProtocol
from spades.storage import Storage

Msg = dict[str, Any]

# The sync client's plain ``connect(...)`` call (no ``with``) is what these tests want.
warnings.filterwarnings("ignore", message=r"connect\(\) must be used", category=DeprecationWarning)


def answers_healthz(url: str, proc: subprocess.Popen[bytes], seconds: float) -> bool:
    """Wait until the server process at ``url`` answers ``/healthz``; ``False`` when it exits first or
    ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(url + "/healthz", timeout=1).json() == {"ok": True}:
                return True
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            return False
        time.sleep(0.1)


def event(m: Msg) -> Msg:
    """The event of an event message in the structured shape (``protocol.event_of``: ``{"kind": "action",
    "action": {"seat": 1, "play": "QD"}, "by": "player"}``, or ``{"kind": "chat", ...fields}``); ``{}`` for
    any other message, so ``event(m).get("kind") == "deal"`` asks both whether it is an event and which."""
    got = event_of(m)
    return {} if got is None else got[1]


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LiveServer:
    """The app on uvicorn in a background thread (real sockets, real database)."""

    def __init__(self, cfg: ServerConfig, storage: Storage | None = None, bots: BotLevels | None = None,
                 ws: type[Any] = LeanWebSocketProtocol, ping_seconds: float | None = 20.0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.app = create_app(cfg, storage, bots)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    ws_max_size=65536, lifespan="on",
                                                    ws=ws, ws_ping_interval=ping_seconds))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LiveServer:
        """Start and wait until it answers."""
        self.thread.start()
        deadline = time.monotonic() + 60  # generous: a loaded machine starts slowly
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop it."""
        self.server.should_exit = True
        self.thread.join(10)

    def wait_sockets(self, table: str, count: int, timeout: float = 10) -> None:
        """Wait until ``count`` sockets are left at ``table``: a client's close returns once the closing
        handshake is done, which may be before the server's handler has let the socket go."""
        conns = self.app.state.hub.conns
        end = time.monotonic() + timeout
        while len(conns.get(table, ())) != count:
            assert time.monotonic() < end, f"{len(conns.get(table, ()))} sockets at {table}, not {count}"
            time.sleep(0.01)


class ServeProcess:
    """``spades serve`` as a real subprocess (for kill -9 tests)."""

    def __init__(self, db_path: Path, port: int | None = None, extra: list[str] | None = None) -> None:
        self.db_path = db_path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.extra = extra or []
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> ServeProcess:
        """Start and wait for /healthz."""
        env = dict(os.environ)
        env.pop("SPADES_DATABASE_URL", None)
        self.log = open(self.db_path.with_suffix(f".{self.port}.log"), "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "spades.cli", "serve", "--port", str(self.port), "--database",
             f"sqlite:///{self.db_path}", *self.extra], stdout=self.log, stderr=self.log, env=env)
        if not answers_healthz(self.url, self.proc, 120):  # it fails at once if the process exits
            raise RuntimeError("spades serve did not start")
        return self

    def kill9(self) -> None:
        """SIGKILL: no shutdown code runs."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.log.close()

    def stop(self) -> None:
        """Terminate politely."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.log.close()


class Sock:
    """A WebSocket client at one table that remembers what it received."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self.received: list[Msg] = []
        self.raw: list[str] = []
        self.seq = 0
        self.state: Msg | None = None
        self.table: Msg | None = None
        self.counter = 0
        self.attached = False

    def send(self, msg: Msg) -> None:
        """Send a JSON message."""
        if msg.get("type") == "hello":
            self.attached = True
        self.conn.send(json.dumps(msg))

    def recv(self, timeout: float = 30) -> Msg:
        """The next message (and track the last event number and state)."""
        raw = self.conn.recv(timeout=timeout)
        assert isinstance(raw, str)
        self.raw.append(raw)
        m: Msg = json.loads(raw)
        self.received.append(m)
        if "ev" in m:  # an event (the one message without a type)
            assert m["ev"] == self.seq + 1 or self.seq == 0, (m["ev"], self.seq)
            self.seq = m["ev"]
        elif "seq" in m and m["type"] in ("snapshot", "state"):
            self.seq = m["seq"]
        if "ev" in m and "state" not in m:
            # An event applies to the state after the previous one (``protocol.md``, Changes); one with a
            # change then carries, for the tests, the state it leads to, as the whole state did before.
            assert self.state is not None or "change" not in m, ("a change without a state before it", m)
            self.state = apply_event(self.state, m)
            if "change" in m:
                m["state"] = self.state
        elif "state" in m:
            self.state = m["state"]
        if "table" in m:
            self.table = m["table"]
        return m

    def until(self, pred: Callable[[Msg], bool], timeout: float = 30) -> Msg:
        """Receive until a message matches."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message")
            m = self.recv(timeout=left)
            if pred(m):
                return m

    def sync(self, timeout: float = 30) -> list[Msg]:
        """Receive everything the server sent this socket before it read a ``ping`` sent now (the server
        answers a connection's messages in order and queues its pushes in order, so once the ``pong`` is
        here, so is all that was sent before it, however slow the machine). The ``pong`` itself is not kept
        in ``received``. Returns the other messages that arrived meanwhile."""
        if not self.attached:
            return []
        self.send({"type": "ping"})
        out: list[Msg] = []
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no pong")
            m = self.recv(timeout=left)
            if m.get("type") == "pong":
                self.received.pop()
                self.raw.pop()
                return out
            out.append(m)

    def drain(self, quiet: float = 0.2) -> list[Msg]:
        """Receive whatever the server has sent so far (:meth:`sync`), then whatever more arrives until
        ``quiet`` seconds pass with nothing. The quiet window only bounds how long to listen for
        messages nobody waits for; everything already sent is read whatever the machine's speed."""
        out = self.sync()
        while True:
            try:
                out.append(self.recv(timeout=quiet))
            except TimeoutError:
                return out

    def act(self, action: Msg, cid: str | None = None) -> Msg:
        """Send an action and return its ack or error."""
        self.counter += 1
        cid = cid or f"a{self.counter}-{time.monotonic_ns()}"
        self.send({"type": "action", "id": cid, "action": action})
        return self.until(lambda m: m.get("type") in ("ack", "error") and m.get("id") == cid)

    @property
    def view(self) -> Msg | None:
        """The latest view of the hand."""
        return None if self.state is None else self.state["view"]

    def close(self) -> None:
        """Close the socket."""
        self.conn.close()


class Player:
    """A person with a browser: an HTTP client with a session cookie, opening table sockets."""

    def __init__(self, base: str, ws_base: str) -> None:
        self.base, self.ws_base = base, ws_base
        self.http = httpx.Client(base_url=base, timeout=30)
        self.me = self.http.get("/api/me").json()
        self.token = self.http.cookies["spades_session"]

    def sock(self, table: str, last_seq: int | None = None, invite: str | None = None, origin: str | None = None,
             hello: bool = True, seeds: bool = False) -> Sock:
        """Open the table's socket and say hello (then read the welcome)."""
        conn = connect(f"{self.ws_base}/ws/tables/{table}",
                       additional_headers={"Cookie": f"spades_session={self.token}"},
                       origin=origin, open_timeout=10, max_size=2**22,
                       ping_interval=None)  # type: ignore[arg-type]
        s = Sock(conn)
        if hello:
            msg: Msg = {"type": "hello", "v": PROTOCOL_VERSION, "last_seq": last_seq}
            if invite:
                msg["invite"] = invite
            if seeds:
                msg["seeds"] = True
            s.send(msg)
            w = s.recv()
            assert w["type"] == "welcome", w
            s.seq = last_seq or 0
        return s


def anonymous_sock(ws_base: str, table: str, invite: str | None = None) -> Sock:
    """A socket with no session at all (an anonymous spectator)."""
    s = Sock(connect(f"{ws_base}/ws/tables/{table}", open_timeout=10, max_size=2**22, ping_interval=None))
    msg: Msg = {"type": "hello", "v": PROTOCOL_VERSION, "last_seq": None}
    if invite:
        msg["invite"] = invite
    s.send(msg)
    assert s.recv()["type"] == "welcome"
    return s


def settle(socks: list[Sock], quiet: float = 0.3) -> None:
    """Drain every socket until all are quiet."""
    for s in socks:
        s.drain(quiet)


def seat_four(make: Callable[[], Player], rules: Any, public: bool = True,
              turn_seconds: float | None = None, **extra: Any) -> tuple[str, list[Player], list[Sock]]:
    """A table with four players seated in seats 0-3, each with an open socket, the first hand dealt."""
    ps = [make() for _ in range(4)]
    body = {"rules": rules, "public": public, "turn_seconds": turn_seconds, **extra}
    r = ps[0].http.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    tid, invite = r.json()["id"], r.json()["invite"]
    socks = [ps[0].sock(tid)]
    for i in range(1, 4):
        s = ps[i].sock(tid, invite=invite)
        s.send({"type": "sit", "seat": i, "id": f"sit{i}"})
        ack = s.until(lambda m, i=i: m.get("type") in ("ack", "error") and m.get("id") == f"sit{i}")
        assert ack["type"] == "ack", ack
        socks.append(s)
    for s in socks:
        if not (s.state and s.state["hand"] >= 1):
            s.until(lambda m: "state" in m and m["state"]["hand"] >= 1)
    settle(socks, 0.1)
    return tid, ps, socks


def seat_to_act(socks: list[Sock]) -> int:
    """The seat whose turn it is, by the latest views."""
    v = socks[0].view
    assert v is not None
    return int(v["to_act"])


def wait_turn(socks: list[Sock], humans: dict[int, Sock], timeout: float = 20) -> int | None:
    """Wait until every socket has caught up to the same event and a human seat is to act; that seat
    (``None`` once the game is over)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = False
        for s in socks:
            while True:
                try:
                    s.recv(timeout=0)
                    got = True
                except TimeoutError:
                    break
        if not got:
            time.sleep(0.002)
        top = max(s.seq for s in socks)
        if all(s.seq == top for s in socks) and socks[0].state is not None:
            if socks[0].state["over"]:
                return None
            v = socks[0].view
            seat = None if v is None else v["to_act"]
            if seat in humans:
                own = humans[seat].view
                if own is not None and own["to_act"] == seat:
                    return int(seat)
    raise TimeoutError("no human turn came")
