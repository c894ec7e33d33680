"""The in-memory rate limiter on a clock of the test's own: windows, their end, the
digests it keeps and the bound on how many."""

from __future__ import annotations

import asyncio

import pytest

from folio.auth.ratelimit import MemoryRateLimiter, Verdict, key_digest, limiter_for
from folio.auth.ratelimit import memory as memory_module
from folio.auth.settings import RateLimit


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
