"""The bounded cache behind every cache of client-chosen keys: it never holds more than its
entries or its bytes, and drops the least recently used first."""

from __future__ import annotations

from folio.caches import BoundedCache, weigh


def test_entries_are_bounded_least_recently_used_first() -> None:
    cache: BoundedCache[int] = BoundedCache(3, 10_000)
    for i in range(3):
        cache.put(i, i, 10)
    assert cache.get(0) == 0  # 0 is now the most recently used
    cache.put(3, 3, 10)
    assert len(cache) == 3
    assert cache.get(1) is None and cache.get(0) == 0 and cache.get(3) == 3


def test_bytes_are_bounded() -> None:
    cache: BoundedCache[str] = BoundedCache(1000, 1000)
    for i in range(50):
        cache.put(i, "x", 300)
        assert cache.bytes <= 1000
    assert len(cache) == 3
    assert [k for k in range(50) if cache.get(k) is not None] == [47, 48, 49]
    # an entry larger than the whole budget is not kept, and evicts nothing
    cache.put("huge", "x", 5000)
    assert cache.get("huge") is None and len(cache) == 3


def test_replacing_a_key_reweighs_it() -> None:
    cache: BoundedCache[str] = BoundedCache(10, 1000)
    cache.put("k", "a", 600)
    cache.put("k", "b", 100)
    assert cache.bytes == 100 and cache.get("k") == "b"


def test_weigh_grows_with_the_text() -> None:
    assert weigh("a" * 10_000) > 10_000 > weigh("a")
    assert weigh(("a" * 500, (b"b" * 500,))) > 1000
