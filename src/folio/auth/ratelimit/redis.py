"""The Redis rate limiter: windows kept in a Redis server, so that every process and host of
an app counts each key together.

A window is one key, `<prefix>:<limiter>:<digest in hex>`, holding its number of requests;
the request that starts a window creates the key with the window's length as its expiry,
and Redis drops it when the window ends (fixed windows, as the in-memory limiter's). One
Lua script, run by its hash (EVALSHA), counts the request under each of its keys and reads
what is left of their windows: counting is atomic, whatever the number of processes, and
costs one round trip however many keys a request is counted under.

When Redis cannot be reached (refused, timed out, answering with an error) the limiter
fails open or closed, as configured: open lets the request through, counted meanwhile in
this process's memory (the limit then holds per process rather than not at all); closed
refuses it with 503 and `Retry-After`. A Redis found unreachable is not asked again for
`retry_interval` seconds, so a dead server costs one timeout per interval, not one per
request. The outage is logged when it starts, at most once a minute while it lasts (with the
number of requests it met), and when it ends: never a line per request."""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Sequence
from typing import Any

from redis.exceptions import NoScriptError, RedisError

from folio.auth.ratelimit.base import RateLimiter, Verdict
from folio.auth.ratelimit.memory import MemoryRateLimiter
from folio.errors import ServiceUnavailableError
from folio.redis_client import RedisHandle, safe_url

log = logging.getLogger("folio.ratelimit")

# KEYS: the windows' keys; ARGV[1]: a window's length in milliseconds.
# Answers each key's count and the milliseconds left of its window, flattened.
COUNT_SCRIPT = """
local out = {}
for _, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local left = -1
  if count > 1 then
    left = redis.call('PTTL', key)
  end
  if left < 0 then
    redis.call('PEXPIRE', key, ARGV[1])
    left = tonumber(ARGV[1])
  end
  out[#out + 1] = count
  out[#out + 1] = left
end
return out
"""
COUNT_SHA = hashlib.sha1(COUNT_SCRIPT.encode()).hexdigest()
# how often a lasting outage is logged again (seconds)
LOG_EVERY = 60.0


class Outage:
    """Whether the Redis server is taken for unreachable, and the log lines of outages: at
    most one a minute, however many requests they meet or however often Redis comes and
    goes."""

    def __init__(self, where: str, retry_interval: float, fail_open: bool) -> None:
        self.where = where
        self.retry_interval = retry_interval
        self.then = (
            "requests are let through, counted by each process alone"
            if fail_open
            else "requests are refused with 503"
        )
        self.since: float | None = None  # when the outage began (monotonic seconds)
        self.told = False  # whether this outage was logged
        self.retry_at = 0.0
        self.logged_at: float | None = None
        self.met = 0  # requests met since the last line

    def skip(self) -> bool:
        """True while Redis is not to be asked (counting the request the outage meets)."""
        if self.since is None or time.monotonic() >= self.retry_at:
            return False
        self.met += 1
        return True

    def failed(self, exc: BaseException) -> None:
        now = time.monotonic()
        self.retry_at = now + self.retry_interval
        self.met += 1
        if self.since is None:
            self.since = now
        if self.logged_at is not None and now - self.logged_at < LOG_EVERY:
            return
        if not self.told:
            log.warning(
                "rate limits: Redis at %s is unreachable (%s): %s",
                self.where,
                _why(exc),
                self.then,
            )
        else:
            log.warning(
                "rate limits: Redis at %s is still unreachable (%s) after %d s, %d requests "
                "since the last line: %s",
                self.where,
                _why(exc),
                now - self.since,
                self.met,
                self.then,
            )
        self.told = True
        self.logged_at = now
        self.met = 0

    def recovered(self) -> None:
        if self.since is None:
            return
        if self.told:
            now = time.monotonic()
            log.warning(
                "rate limits: Redis at %s answers again after %.1f s", self.where, now - self.since
            )
            self.logged_at = now
        self.since = None
        self.told = False
        self.met = 0


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class RedisRateLimiter(RateLimiter):
    def __init__(
        self,
        redis: RedisHandle,
        name: str,
        interval: float,
        limit: int,
        enabled: bool = True,
        *,
        prefix: str = "folio:rl",
        fail_open: bool = True,
        retry_interval: float = 1.0,
        max_entries: int = 100_000,
    ) -> None:
        super().__init__(interval, limit, enabled)
        self.redis = redis
        self.key_prefix = f"{prefix}:{name}:"
        self.fail_open = fail_open
        self.window_ms = str(max(1, round(interval * 1000)))
        # counts while Redis is away, when failing open
        self.fallback = MemoryRateLimiter(interval, limit, True, max_entries)
        self.outage = Outage(safe_url(redis.url), retry_interval, fail_open)

    async def count(self, digest: bytes) -> Verdict:
        return (await self.count_all([digest]))[0]

    async def count_all(self, digests: Sequence[bytes]) -> list[Verdict]:
        if self.outage.skip():
            return await self._unavailable(digests)
        keys = [self.key_prefix + digest.hex() for digest in digests]
        try:
            answer = await self._run(keys)
        except (RedisError, OSError, TimeoutError) as exc:
            self.outage.failed(exc)
            return await self._unavailable(digests)
        self.outage.recovered()
        now = time.time()
        out = []
        for i in range(0, len(answer), 2):
            count, left = int(answer[i]), int(answer[i + 1])
            reset_at = int(now + left / 1000.0)
            out.append(
                Verdict(count <= self.limit, self.limit, max(0, self.limit - count), reset_at)
            )
        return out

    async def _run(self, keys: list[str]) -> Any:
        try:
            return await self.redis.run("EVALSHA", COUNT_SHA, len(keys), *keys, self.window_ms)
        except NoScriptError:
            # the server has not seen the script yet (or was restarted, or flushed it)
            return await self.redis.run("EVAL", COUNT_SCRIPT, len(keys), *keys, self.window_ms)

    async def _unavailable(self, digests: Sequence[bytes]) -> list[Verdict]:
        if self.fail_open:
            return await self.fallback.count_all(digests)
        raise _refusal(self.outage.retry_interval)

    async def reset(self) -> None:
        """Forgets every window of this limiter (in Redis, and those counted meanwhile)."""
        await self.fallback.reset()
        client = self.redis.client()
        batch: list[Any] = []
        async for key in client.scan_iter(match=self.key_prefix + "*", count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                await client.unlink(*batch)
                batch.clear()
        if batch:
            await client.unlink(*batch)


def _refusal(retry_interval: float) -> ServiceUnavailableError:
    """The answer of failing closed: the limits cannot be checked for a moment."""
    error = ServiceUnavailableError(
        "The service is unavailable for a moment, please try again later."
    )
    error.retry_after = max(1, math.ceil(retry_interval))
    return error
