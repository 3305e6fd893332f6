"""CPU per message received on a table socket, in one process: the server's WebSocket protocol
(``spades.server.socket_protocol.LeanWebSocketProtocol``) given a move as a client sends it, one frame a
read, the way a table's socket receives nearly all it gets, against the same protocol with every byte
going through ``websockets``' parser (uvicorn's own path, ``Parsed`` in ``tests/server/test_socket_receive.py``).
The application's side is what the table socket does with the message: taken from the queue, and
reading resumed. Rounds alternate the two and the best of each is printed (the machine being shared)::

    .venv/bin/python benchmarks/socket_receive.py --messages 20000 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # (the tests' socket harness)

from server.test_socket_receive import Parsed, accepted, frame
from spades.server.socket_protocol import LeanWebSocketProtocol

MOVE = b'{"type":"action","id":"c41","seq":1187,"action":{"a":"play","card":"QH"}}'


def measure(protocol: type[LeanWebSocketProtocol], messages: int) -> float:
    """Microseconds of CPU per message received by a socket of ``protocol``."""
    data = frame(MOVE)
    with accepted(protocol) as (proto, transport, _loop):
        items = proto.queue._items
        t0 = time.process_time()
        for _ in range(messages):
            proto.data_received(data)
            items.pop()  # what the socket's reader takes (``_Inbox.get``), and uvicorn's ``receive`` then:
            proto.read_paused = False
            transport.resume_reading()
        return 1e6 * (time.process_time() - t0) / messages


def main() -> None:
    """Parse the arguments, run the rounds and print the best of each path."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    best = {"taken": float("inf"), "parsed": float("inf")}
    for _ in range(args.rounds):
        best["parsed"] = min(best["parsed"], measure(Parsed, args.messages))
        best["taken"] = min(best["taken"], measure(LeanWebSocketProtocol, args.messages))
    out = {"us_per_message": {k: round(v, 3) for k, v in best.items()},
           "parsed_over_taken": round(best["parsed"] / best["taken"], 2)}
    if args.json:
        print(json.dumps(out))
        return
    print(f"µs of CPU per move received, best of {args.rounds} rounds of {args.messages}:")
    print(f"  whole text frames taken by the protocol  {best['taken']:.2f}")
    print(f"  every frame through websockets' parser    {best['parsed']:.2f}")
    print(f"  ratio {out['parsed_over_taken']}")


if __name__ == "__main__":
    main()
