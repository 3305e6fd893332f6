"""Quotas (``spades.server.quotas``): counted per name and key, in memory or shared through Redis."""

from __future__ import annotations

import asyncio
import secrets

import pytest
import redis

from spades.server.config import ServerConfig
from spades.server.quotas import DEFAULT_QUOTAS, QuotaExceeded, Quotas, parse_quotas


def test_a_quota_allows_its_rate_then_says_how_long_to_wait() -> None:
    async def go() -> None:
        q = Quotas({"guests": "3/day"})
        assert [await q.hit("guests", "1.2.3.4") for _ in range(3)] == [None, None, None]
        wait = await q.hit("guests", "1.2.3.4")
        assert wait is not None and 1 <= wait <= 86400
        assert await q.hit("guests", "5.6.7.8") is None  # another address counts apart
        assert await q.hit("tables", "1.2.3.4") is None  # and another quota
        with pytest.raises(QuotaExceeded) as e:
            await q.check("guests", "1.2.3.4")
        body = e.value.json()["error"]
        assert body["code"] == "rate_limited" and body["quota"] == "guests" and e.value.retry_after >= 1

    asyncio.run(go())


def test_a_quota_turned_off_never_refuses() -> None:
    async def go() -> None:
        q = Quotas.from_config(ServerConfig(quotas={"guests": "none"}))
        assert all([await q.hit("guests", "a") is None for _ in range(500)])

    asyncio.run(go())


def test_bad_quota_settings_are_named() -> None:
    with pytest.raises(ValueError, match="unknown quota 'nope'"):
        parse_quotas({"nope": "1/second"})
    with pytest.raises(ValueError, match="quota guests"):
        parse_quotas({"guests": "many"})
    assert set(parse_quotas({})) == set(DEFAULT_QUOTAS)


def redis_up() -> bool:
    try:
        return bool(redis.Redis(socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


@pytest.mark.skipif(not redis_up(), reason="no Redis on 127.0.0.1:6379")
def test_processes_share_counts_through_redis() -> None:
    prefix = f"test-{secrets.token_hex(4)}:"

    async def go() -> None:
        a = Quotas({"tables": "2/day"}, "redis://127.0.0.1:6379/0", prefix)
        b = Quotas({"tables": "2/day"}, "redis://127.0.0.1:6379/0", prefix)
        assert await a.hit("tables", "p1") is None
        assert await b.hit("tables", "p1") is None
        assert await a.hit("tables", "p1") is not None
        assert await b.hit("tables", "p1") is not None
        await a.reset()

    asyncio.run(go())


def test_a_lost_counting_store_lets_play_go_on() -> None:
    async def go() -> None:
        q = Quotas({"guests": "1/day"}, "redis://127.0.0.1:1/0", "x:")
        assert await q.hit("guests", "a") is None
        assert await q.hit("guests", "a") is None

    asyncio.run(go())
