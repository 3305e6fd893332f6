"""Accounts: argon2 password hashing (run off the event loop by the caller), guest names, and the
failed-login limiter (growing delays per user name and address, and per address)."""

from __future__ import annotations

import functools
import re
import secrets
import time
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


@functools.cache
def dummy_hash() -> str:
    """An argon2 hash of nothing anyone knows: a login for an unknown name is checked against it, so it
    costs the same as a login for a real one (the time does not tell which names exist)."""
    return HASHER.hash(secrets.token_urlsafe(32))


def login_delay(failures: int, free: int, cap: float) -> float:
    """Seconds to wait after the last failure before another try: none for the first ``free`` failures,
    then 1, 2, 4, 8... up to ``cap``."""
    if failures < free:
        return 0.0
    return float(min(cap, 2.0 ** min(failures - free, 30)))


class AttemptLimiter:
    """Failed logins per key (a user name from one address, an address), slowed by growing delays: after
    ``free`` failures each try waits 1, 2, 4... seconds (at most ``cap``) after the last failure. A key's
    failures are forgotten ``cap`` seconds after its last failure, or on a success."""

    def __init__(self, free: int, cap: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.free = free
        self.cap = cap
        self.clock = clock
        self.failures: dict[str, tuple[int, float]] = {}

    def wait(self, key: str) -> float:
        """Seconds before this key may try again (0: now)."""
        count, last = self.failures.get(key, (0, 0.0))
        now = self.clock()
        if count and now - last >= self.cap:
            self.failures.pop(key, None)
            return 0.0
        return max(0.0, last + login_delay(count, self.free, self.cap) - now)

    def fail(self, key: str) -> None:
        """Count a failure."""
        self.wait(key)  # forget an old run of failures first
        count, _ = self.failures.get(key, (0, 0.0))
        self.failures[key] = (count + 1, self.clock())
        if len(self.failures) > 100_000:  # a flood of keys: drop the oldest half
            for k, _v in sorted(self.failures.items(), key=lambda kv: kv[1][1])[:50_000]:
                del self.failures[k]

    def clear(self, key: str) -> None:
        """Forget a key's failures (after a success)."""
        self.failures.pop(key, None)


class LoginLimiter(Protocol):
    """Failed logins per key, asked from the event loop (one process's memory, or Redis in a cluster)."""

    async def wait(self, key: str) -> float:
        """Seconds before this key may try again (0: now)."""
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

    async def wait(self, key: str) -> float:
        """Seconds before this key may try again (0: now)."""
        return self.limiter.wait(key)

    async def fail(self, key: str) -> None:
        """Count a failure."""
        self.limiter.fail(key)

    async def clear(self, key: str) -> None:
        """Forget a key's failures."""
        self.limiter.clear(key)
