"""Accounts: argon2 password hashing (run off the event loop by the caller), guest names, and the
login attempt limiter."""

from __future__ import annotations

import re
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

HASHER = PasswordHasher()
USERNAME_RE = re.compile(r"[A-Za-z0-9_.-]{3,32}")
NAME_MAX = 32


def hash_password(password: str) -> str:
    """An argon2id hash (slow on purpose: call it in a worker thread)."""
    return HASHER.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """Whether ``password`` matches (slow on purpose: call it in a worker thread)."""
    try:
        return HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def guest_name() -> str:
    """A name for a new guest: ``Guest-`` and four random digits."""
    return f"Guest-{secrets.randbelow(10000):04d}"


def clean_name(name: object) -> str | None:
    """A display name with control characters removed, 1 to 32 characters, or ``None``."""
    if not isinstance(name, str):
        return None
    text = "".join(ch for ch in name if ch >= " ").strip()
    return text if 1 <= len(text) <= NAME_MAX else None


class AttemptLimiter:
    """At most ``limit`` failures per key in ``window`` seconds (keys: a user name, an address)."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.failures: dict[str, deque[float]] = defaultdict(deque)

    def blocked(self, key: str) -> bool:
        """Too many recent failures for this key."""
        q = self.failures[key]
        now = self.clock()
        while q and q[0] <= now - self.window:
            q.popleft()
        return len(q) >= self.limit

    def fail(self, key: str) -> None:
        """Count a failure."""
        self.failures[key].append(self.clock())

    def clear(self, key: str) -> None:
        """Forget a key's failures (after a success)."""
        self.failures.pop(key, None)


class LoginLimiter(Protocol):
    """Failed logins per key, asked from the event loop (one process's memory, or Redis in a cluster)."""

    async def blocked(self, key: str) -> bool:
        """Too many recent failures for this key."""
        ...

    async def fail(self, key: str) -> None:
        """Count a failure."""
        ...

    async def clear(self, key: str) -> None:
        """Forget a key's failures."""
        ...


class LocalLimiter:
    """``AttemptLimiter`` behind the ``LoginLimiter`` protocol (one process)."""

    def __init__(self, limiter: AttemptLimiter) -> None:
        self.limiter = limiter

    async def blocked(self, key: str) -> bool:
        """Too many recent failures for this key."""
        return self.limiter.blocked(key)

    async def fail(self, key: str) -> None:
        """Count a failure."""
        self.limiter.fail(key)

    async def clear(self, key: str) -> None:
        """Forget a key's failures."""
        self.limiter.clear(key)
