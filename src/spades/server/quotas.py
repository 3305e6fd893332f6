"""Quotas: how often one address or one player may do something that costs the site (make a guest, open a
table, send a chat line...), counted with the ``limits`` library.

Each quota has a name and one or more rates in ``limits`` notation (``"30/minute;300/hour"``): every rate
must allow the hit. One server process counts in its memory; a cluster (``--redis``) counts in Redis so the
processes share the counts. ``ServerConfig.quotas`` overrides the defaults by name (``"none"`` turns one off).

Besides these rates, ``ServerConfig`` caps how many tables one player holds open at once
(``open_tables_per_player``, ``computer_games_per_player``; ``spades.server.routes.tables``): those are
counted in the database, so every process of a cluster sees the same count, and answer with the codes
``too_many_tables`` and ``too_many_games``.

A quota that is over answers HTTP 429 with ``Retry-After`` and
``{"error": {"code": "rate_limited", "quota": NAME, "reason": ...}}`` (``QuotaExceeded``); on a WebSocket the
caller sends an ``error`` with the same code. A counting store that fails (Redis down) lets the hit through:
quotas slow abuse, they never stop the site.
"""

from __future__ import annotations

import logging
import math
import time
from typing import TYPE_CHECKING

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.storage import storage_from_string

if TYPE_CHECKING:
    from spades.server.config import ServerConfig

log = logging.getLogger("spades.server.quotas")

DEFAULT_QUOTAS: dict[str, str] = {
    "requests": "50/second;1500/minute",
    "guests": "30/minute;300/hour",
    "tables": "20/minute;200/day",
    "play": "20/minute;300/day",
    "accounts": "10/minute;60/hour",
    "chat": "5/second;60/minute",
    "sockets": "60/minute",
}
"""The quotas by name, sized for real play (a family or a class behind one address must not be blocked):

- ``requests``: HTTP API requests per address (the pages make a few a minute; the score keeper one a change);
- ``guests``: new guests (players without an account) per address;
- ``tables``: tables one player makes with ``POST /api/tables``;
- ``play``: computer-only games one player starts with ``POST /api/play``;
- ``accounts``: sign-ups tried per address (each costs a password hash, and says whether a name is taken);
- ``chat``: chat lines per player across all their sockets;
- ``sockets``: table sockets one player opens (reconnects included).
"""

OFF = ("", "none", "off")


class QuotaExceeded(Exception):
    """A quota is over: ``retry_after`` seconds (at least 1) until it allows one more."""

    def __init__(self, quota: str, retry_after: float, reason: str | None = None,
                 code: str = "rate_limited") -> None:
        self.quota = quota
        self.code = code
        self.retry_after = max(1, math.ceil(retry_after))
        self.reason = reason or f"too many requests ({quota}): try again in {self.retry_after} s"
        super().__init__(self.reason)

    def json(self) -> dict[str, dict[str, str | int]]:
        """The HTTP answer's body."""
        return {"error": {"code": self.code, "quota": self.quota, "reason": self.reason,
                          "retry_after": self.retry_after}}


def parse_quotas(overrides: dict[str, str]) -> dict[str, list[RateLimitItem]]:
    """The defaults with ``overrides`` applied, parsed; ``ValueError`` names a bad one."""
    specs = {**DEFAULT_QUOTAS, **overrides}
    out: dict[str, list[RateLimitItem]] = {}
    for name, spec in specs.items():
        if name not in DEFAULT_QUOTAS:
            raise ValueError(f"unknown quota {name!r}; the quotas are: {', '.join(DEFAULT_QUOTAS)}")
        if spec.strip().lower() in OFF:
            out[name] = []
            continue
        try:
            out[name] = parse_many(spec)
        except ValueError:
            raise ValueError(f"quota {name}: {spec!r} is not a rate like 30/minute or 5/second;100/hour") from None
    return out


class Quotas:
    """The server's quotas (``hit`` and ``check``), counted in memory or, with ``redis_url``, in Redis."""

    def __init__(self, overrides: dict[str, str] | None = None, redis_url: str | None = None,
                 prefix: str = "spades:") -> None:
        self.items = parse_quotas(overrides or {})
        storage: Storage
        if redis_url:
            scheme = "async+" + redis_url
            storage = storage_from_string(scheme, implementation="redispy", key_prefix=prefix + "quota",
                                          wrap_exceptions=True)  # type: ignore[assignment]
        else:
            storage = MemoryStorage()
        self.storage = storage
        self.limiter = SlidingWindowCounterRateLimiter(storage)

    @classmethod
    def from_config(cls, cfg: ServerConfig) -> Quotas:
        """The quotas a server's configuration asks for (shared through Redis in a cluster)."""
        return cls(dict(cfg.quotas), cfg.redis_url, cfg.redis_prefix)

    async def hit(self, name: str, key: str) -> float | None:
        """Count one use of quota ``name`` by ``key`` (an address, a player id): ``None`` when allowed,
        else the seconds to wait (the use is not counted then)."""
        items = self.items[name]
        try:
            for item in items:
                if not await self.limiter.test(item, name, key):
                    stats = await self.limiter.get_window_stats(item, name, key)
                    return max(1.0, stats.reset_time - time.time())
            for item in items:
                await self.limiter.hit(item, name, key)
        except Exception as e:  # the counting store is down: let the use through, say so in the log
            log.warning("quota %s could not be counted: %s", name, e)
        return None

    async def check(self, name: str, key: str, reason: str | None = None) -> None:
        """``hit``, raising ``QuotaExceeded`` when over."""
        wait = await self.hit(name, key)
        if wait is not None:
            raise QuotaExceeded(name, wait, reason)

    async def reset(self) -> None:
        """Forget every count (tests; a fresh cluster)."""
        try:
            await self.storage.reset()
        except Exception:
            log.warning("quotas could not be reset", exc_info=True)


__all__ = ["DEFAULT_QUOTAS", "QuotaExceeded", "Quotas", "parse_quotas"]
