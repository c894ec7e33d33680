"""The rate limiters. The in-memory one on a clock of the test's own: windows, their end,
the digests it keeps and the bound on how many. The Redis one against a real server:
windows, their end and their keys, atomic counting from many clients and tasks, reset,
failing open or closed (one log line) when Redis is unreachable or stalled, and its
settings."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from folio.auth.ratelimit import (
    Limiters,
    MemoryRateLimiter,
    RedisRateLimiter,
    StoreSettings,
    Verdict,
    key_digest,
    limiter_for,
    load_store_settings,
)
from folio.auth.ratelimit import memory as memory_module
from folio.auth.ratelimit.redis import Outage
from folio.auth.settings import RateLimit
from folio.errors import ConfigError, ServiceUnavailableError
from folio.redis_client import RedisHandle
from tests.redis_support import REDIS_URL, closed_port, keys_under, ttl_ms
from tests.redis_support import prefix as redis_prefix


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(memory_module.time, "monotonic", c)
    return c


def hits(limiter: MemoryRateLimiter, *keys: str) -> list[Verdict | None]:
    async def run() -> list[Verdict | None]:
        return [await limiter.hit(k) for k in keys]

    return asyncio.run(run())


def test_a_window_counts_to_its_limit_and_ends(clock: Clock) -> None:
    limiter = MemoryRateLimiter(60, 2)
    got = hits(limiter, "a", "a", "a")
    assert [(v.allowed, v.remaining) for v in got if v] == [(True, 1), (True, 0), (False, 0)]
    clock.now += 59.9
    assert [v.allowed for v in hits(limiter, "a") if v] == [False]
    clock.now += 0.1  # the window has ended: a new one starts
    assert [(v.allowed, v.remaining) for v in hits(limiter, "a") if v] == [(True, 1)]


def test_ended_windows_are_dropped_as_requests_come(clock: Clock) -> None:
    limiter = MemoryRateLimiter(60, 10)
    hits(limiter, *(f"k{i}" for i in range(100)))
    clock.now += 30
    hits(limiter, "late")
    assert len(limiter) == 101
    clock.now += 30  # the first hundred have ended, "late" has not
    hits(limiter, "later")
    assert len(limiter) == 2


def test_keys_are_kept_as_fixed_size_digests(clock: Clock) -> None:
    limiter = MemoryRateLimiter(60, 10)
    hits(limiter, "x" * 1_000_000, "short")
    assert len(limiter) == 2
    assert all(len(k) == 16 for k in limiter._windows)
    assert key_digest("x" * 1_000_000) in limiter._windows
    assert key_digest("a") != key_digest("b")


def test_the_oldest_window_gives_way_when_the_table_is_full(clock: Clock) -> None:
    limiter = MemoryRateLimiter(60, 1, max_entries=3)
    assert [v.allowed for v in hits(limiter, "a", "a") if v] == [True, False]
    clock.now += 1
    hits(limiter, "b", "c")
    assert [v.allowed for v in hits(limiter, "a") if v] == [False]  # still kept
    hits(limiter, "d")  # "a" gives way
    assert len(limiter) == 3
    assert [v.allowed for v in hits(limiter, "a") if v] == [True]


def test_a_disabled_limiter_counts_nothing(clock: Clock) -> None:
    limiter = limiter_for(RateLimit(enabled=False))
    assert isinstance(limiter, MemoryRateLimiter)
    assert hits(limiter, "a", "a") == [None, None]
    assert len(limiter) == 0
    asyncio.run(limiter.reset())


# ---------------------------------------------------------------------- Redis
# The Redis limiter against a real server (tests/redis_support.py), each test under a key
# prefix of its own.


@pytest.fixture
def prefix() -> Iterator[str]:
    with redis_prefix() as name:
        yield name


def redis_limiter(
    prefix: str,
    interval: float,
    limit: int,
    url: str = REDIS_URL,
    timeout: float = 5.0,  # generous: these tests are not about timeouts
    **options: Any,
) -> RedisRateLimiter:
    handle = RedisHandle(url, timeout)
    return RedisRateLimiter(handle, "unit", interval, limit, prefix=prefix, **options)


async def wait_until(condition: Callable[[], Awaitable[bool]], what: str) -> None:
    """Waits (generously: the machine may be busy) for `condition`."""
    deadline = time.monotonic() + 30
    while not await condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        await asyncio.sleep(0.02)


def test_a_redis_window_counts_to_its_limit_and_ends(prefix: str) -> None:
    async def run() -> None:
        limiter = redis_limiter(prefix, 0.5, 2)
        before = int(time.time())
        got = [await limiter.hit("a") for _ in range(3)]
        assert [(v.allowed, v.remaining, v.limit) for v in got if v] == [
            (True, 1, 2),
            (True, 0, 2),
            (False, 0, 2),
        ]
        assert all(before <= v.reset_at <= int(time.time()) + 1 for v in got if v)
        other = await limiter.hit("b")  # another key, another window
        assert other is not None and (other.allowed, other.remaining) == (True, 1)
        # one key per window, under the prefix and the limiter's name, expiring with it
        keys = keys_under(prefix)
        assert sorted(keys) == sorted(
            f"{prefix}:unit:{key_digest(k).hex()}".encode() for k in ("a", "b")
        )
        assert all(0 < ttl_ms(k) <= 500 for k in keys)
        client = limiter.redis.client()

        async def ended() -> bool:
            return not await client.exists(keys[0], keys[1])

        await wait_until(ended, "the windows to end")
        again = await limiter.hit("a")
        assert again is not None and (again.allowed, again.remaining) == (True, 1)
        await limiter.redis.close()

    asyncio.run(run())


def test_redis_windows_count_atomically_across_clients_and_tasks(prefix: str) -> None:
    """Four limiters (four clients, as four processes would have) and 400 concurrent
    hits of one key: exactly `limit` pass, each count seen once."""

    async def run() -> None:
        limiters = [redis_limiter(prefix, 60, 50) for _ in range(4)]
        verdicts = await asyncio.gather(*(limiters[i % 4].hit("k") for i in range(400)))
        allowed = [v for v in verdicts if v is not None and v.allowed]
        assert len(allowed) == 50
        assert sorted(v.remaining for v in allowed) == list(range(50))
        assert all(v is not None and v.remaining == 0 for v in verdicts if v not in allowed)
        # several keys of one request: counted together, in order
        both = await limiters[0].hit_all(["k", "fresh"])
        assert both is not None
        assert [(v.allowed, v.remaining) for v in both] == [(False, 0), (True, 49)]
        for limiter in limiters:
            await limiter.redis.close()

    asyncio.run(run())


def test_resetting_a_redis_limiter_forgets_its_windows_only(prefix: str) -> None:
    async def run() -> None:
        limiter = redis_limiter(prefix, 60, 1)
        neighbour = RedisRateLimiter(limiter.redis, "other", 60, 1, prefix=prefix)
        for key in ("a", "b"):
            await limiter.hit(key)
        await neighbour.hit("a")
        await limiter.reset()
        assert keys_under(prefix) == [f"{prefix}:other:{key_digest('a').hex()}".encode()]
        fresh = await limiter.hit("a")
        assert fresh is not None and fresh.allowed
        kept = await neighbour.hit("a")
        assert kept is not None and not kept.allowed
        await limiter.redis.close()

    asyncio.run(run())


def _outage_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "folio.ratelimit" and r.levelno >= logging.WARNING
    ]


def test_an_unreachable_redis_fails_open_counting_in_memory(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "folio.ratelimit")

    async def run() -> None:
        url = f"redis://127.0.0.1:{closed_port()}/0"
        limiter = redis_limiter("folio-test:down", 60, 3, url=url, retry_interval=0.0)
        got = [await limiter.hit("a") for _ in range(50)]
        # let through, but still limited in this process meanwhile
        assert [v.allowed for v in got if v][:4] == [True, True, True, False]
        assert len(limiter.fallback) == 1

    asyncio.run(run())
    lines = _outage_lines(caplog)
    assert len(lines) == 1, lines  # fifty failures, one line
    assert "unreachable" in lines[0] and "let through" in lines[0]


def test_an_unreachable_redis_fails_closed_when_configured(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "folio.ratelimit")

    async def run() -> None:
        url = f"redis://:secret@127.0.0.1:{closed_port()}/0"
        limiter = redis_limiter(
            "folio-test:down", 60, 3, url=url, fail_open=False, retry_interval=2.5
        )
        for _ in range(20):
            with pytest.raises(ServiceUnavailableError) as caught:
                await limiter.hit("a")
            assert caught.value.retry_after == 3
        assert len(limiter.fallback) == 0

    asyncio.run(run())
    lines = _outage_lines(caplog)
    assert len(lines) == 1, lines
    assert "refused with 503" in lines[0]
    assert "secret" not in lines[0]  # the URL's password is not logged


def test_a_stalled_redis_times_out_and_a_recovered_one_is_used_again(
    caplog: pytest.LogCaptureFixture, prefix: str
) -> None:
    """A server that accepts connections and never answers costs a request the timeout
    (then the limiter fails open); once Redis answers again, counting goes back to it and
    the recovery is logged once."""
    caplog.set_level(logging.INFO, "folio.ratelimit")

    async def run() -> None:
        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read()  # reads until the client leaves, answers nothing

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        limiter = redis_limiter(prefix, 60, 5, retry_interval=0.05)
        limiter.redis = RedisHandle(f"redis://127.0.0.1:{port}/0", timeout=0.05)
        stalled = await limiter.hit("a")
        assert stalled is not None and stalled.allowed and len(limiter.fallback) == 1
        limiter.redis = RedisHandle(REDIS_URL)

        async def back() -> bool:
            await limiter.hit("b")
            return bool(keys_under(prefix))

        await wait_until(back, "the limiter to count in Redis again")
        server.close()
        await limiter.redis.close()

    asyncio.run(run())
    lines = _outage_lines(caplog)
    assert len(lines) == 2, lines
    assert "TimeoutError" in lines[0] and "answers again" in lines[1]


def test_the_store_settings_and_their_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    from folio.config import Settings

    monkeypatch.delenv("REDIS_URL", raising=False)

    def store(section: Any) -> StoreSettings:
        return load_store_settings(Settings(Path("."), raw={"server": {"rateLimit": section}}))

    assert store({}) == StoreSettings()
    assert Limiters(store({})).redis is None
    s = store({"redis": REDIS_URL, "prefix": "app1", "timeout": 100, "failMode": "closed"})
    assert (s.redis_url, s.prefix, s.timeout, s.fail_open) == (REDIS_URL, "app1", 0.1, False)
    limiters = Limiters(s)
    assert isinstance(limiters.limiter("users", RateLimit()), RedisRateLimiter)
    # limiting turned off needs no store
    assert isinstance(limiters.limiter("users", RateLimit(enabled=False)), MemoryRateLimiter)
    monkeypatch.setenv("REDIS_URL", "redis://elsewhere:6380/2")
    assert store({"redis": REDIS_URL}).redis_url == "redis://elsewhere:6380/2"
    monkeypatch.setenv("REDIS_URL", "http://elsewhere")
    with pytest.raises(ConfigError, match=r"^REDIS_URL must be a Redis URL"):
        store({})
    monkeypatch.delenv("REDIS_URL")
    for bad, message in [
        ({"redis": 6379}, r"rateLimit\.redis must be a Redis URL"),
        ({"redis": "redis://:pw@host:99999"}, r"bad port in 'redis://:\*\*\*@host:99999'"),
        ({"prefix": "a b"}, r"rateLimit\.prefix"),
        ({"prefix": "app*"}, r"rateLimit\.prefix"),
        ({"failMode": "sometimes"}, r"rateLimit\.failMode must be \"open\" or \"closed\""),
        ({"timeout": 0}, r"rateLimit\.timeout must be milliseconds"),
        ({"retryInterval": "1s"}, r"rateLimit\.retryInterval must be milliseconds"),
        ("redis://x", r"rateLimit must be an object"),
    ]:
        with pytest.raises(ConfigError, match=message):
            store(bad)


def test_a_redis_that_comes_and_goes_is_logged_at_most_once_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "folio.ratelimit")
    outage = Outage("redis://somewhere", 0.0, fail_open=True)
    for _ in range(5):
        for _ in range(3):
            outage.failed(ConnectionError("refused"))
        outage.recovered()
    lines = _outage_lines(caplog)
    assert len(lines) == 2, lines
    assert "unreachable (ConnectionError: refused)" in lines[0]
    assert "answers again" in lines[1]


def test_a_connection_that_redis_closed_is_replaced_at_once(prefix: str) -> None:
    """A Redis restarted (here: the server closing the connection) costs the next command
    nothing but a fresh connection."""
    import redis

    async def run() -> None:
        handle = RedisHandle(REDIS_URL, 5.0)
        ident = await handle.run("CLIENT", "ID")
        with redis.Redis.from_url(REDIS_URL) as admin:
            assert admin.execute_command("CLIENT", "KILL", "ID", ident) == 1
        assert await handle.run("SET", f"{prefix}:x", "1") == b"OK"
        assert await handle.run("CLIENT", "ID") != ident
        await handle.close()

    asyncio.run(run())
