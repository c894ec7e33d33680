"""The Redis server of the tests: `FOLIO_TEST_REDIS_URL`, by default the one on
127.0.0.1:6379 (database 0). Each test writes under a key prefix of its own (`prefix()`),
whose keys are dropped afterwards, so tests (and other apps) sharing the server never see
each other's counts.

Without a Redis server the tests that need one are skipped, unless `FOLIO_REDIS_REQUIRED=1`
(as CI sets it): then they fail, saying why."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis

REDIS_URL = os.environ.get("FOLIO_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
REQUIRED = os.environ.get("FOLIO_REDIS_REQUIRED") == "1"


def _client() -> redis.Redis:
    return redis.Redis.from_url(REDIS_URL, socket_timeout=5, socket_connect_timeout=5)


def need_redis() -> None:
    """Skips the test (fails it under FOLIO_REDIS_REQUIRED=1) when Redis does not answer."""
    try:
        with _client() as client:
            client.ping()
    except redis.RedisError as exc:
        problem = f"Redis at {REDIS_URL} does not answer ({type(exc).__name__}: {exc})"
        if REQUIRED:
            pytest.fail(f"{problem}; FOLIO_REDIS_REQUIRED=1 needs it", pytrace=False)
        pytest.skip(problem)


@contextmanager
def prefix() -> Iterator[str]:
    """A key prefix of the test's own on a Redis that answers; its keys dropped at the end."""
    need_redis()
    name = f"folio-test:{uuid.uuid4().hex[:12]}"
    try:
        yield name
    finally:
        with _client() as client:
            keys = list(client.scan_iter(match=f"{name}:*", count=1000))
            if keys:
                client.delete(*keys)


def keys_under(name: str) -> list[bytes]:
    """The keys written under a prefix."""
    with _client() as client:
        return sorted(client.scan_iter(match=f"{name}:*", count=1000))


def ttl_ms(key: bytes) -> int:
    with _client() as client:
        return int(client.pttl(key))


def closed_port() -> int:
    """A local port where nothing listens (connections to it are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
