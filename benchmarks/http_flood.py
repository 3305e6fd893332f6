"""How fast one address can make guests, tables and games against the computer on a running server
(issue 15's flood figures, before and after the quotas).

    python benchmarks/http_flood.py --url http://127.0.0.1:8000 --seconds 5

Sends requests one after another from this machine (a loopback server only), each kind for at most
``--seconds``, and prints per kind the accepted answers per second and how many were refused with 429.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from urllib.parse import urlparse

import httpx


def flood(seconds: float, send: Callable[[], httpx.Response]) -> dict[str, float]:
    """Send until ``seconds`` pass (at most 5,000 requests): accepted per second, refused, other."""
    ok = refused = other = 0
    start = time.monotonic()
    while time.monotonic() - start < seconds and ok + refused + other < 5000:
        code = send().status_code
        if code == 200:
            ok += 1
        elif code == 429:
            refused += 1
        else:
            other += 1
    took = time.monotonic() - start
    return {"accepted_per_s": round(ok / took, 1), "accepted": ok, "refused_429": refused, "other": other}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8000")
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    host = urlparse(args.url).hostname or ""
    if not (host == "localhost" or host.startswith("127.") or host == "::1"):
        raise SystemExit("flood only a server on this machine (127.0.0.1, localhost)")
    seconds = min(args.seconds, 30.0)
    out: dict[str, dict[str, float]] = {}
    player = httpx.Client(base_url=args.url, timeout=30)
    player.get("/api/me").raise_for_status()  # the table maker, made before the guests' flood

    def new_guest() -> httpx.Response:
        with httpx.Client(base_url=args.url) as c:
            return c.get("/api/me")

    out["guests"] = flood(seconds, new_guest)
    out["tables"] = flood(seconds, lambda: player.post("/api/tables", json={"public": False}))
    out["play"] = flood(seconds, lambda: player.post("/api/play", json={"bot_level": "random"}))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
