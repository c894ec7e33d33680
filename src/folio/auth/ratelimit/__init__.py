"""Rate limiters of the sign-in, sign-up and password routes, and the store they count in.

How many requests a window allows is each limiter's setting (`config/plugins.json` ->
`users-permissions.config.ratelimit`; the admin panel's in `config/admin.json`):

    {"users-permissions": {"config": {"ratelimit": {"interval": 60000, "max": 10,
                                                    "maxEntries": 100000}}}}

Where they count is the app's (`config/server.json` -> `rateLimit`, or `REDIS_URL`: see
settings.py): this process's memory (memory.py, the default), or a Redis server shared by
every process and host (redis.py). `Limiters` holds that choice and makes the app's
limiters; a new store is a `RateLimiter` subclass (base.py) in a file of its own, chosen
there."""

from __future__ import annotations

from folio.auth.ratelimit.base import RateLimiter, Verdict, key_digest
from folio.auth.ratelimit.memory import MemoryRateLimiter
from folio.auth.ratelimit.redis import RedisRateLimiter
from folio.auth.ratelimit.settings import StoreSettings, load_store_settings
from folio.auth.settings import RateLimit
from folio.redis_client import RedisHandle

__all__ = [
    "Limiters",
    "MemoryRateLimiter",
    "RateLimiter",
    "RedisRateLimiter",
    "StoreSettings",
    "Verdict",
    "key_digest",
    "limiter_for",
    "load_store_settings",
]


class Limiters:
    """The app's rate limiters and their store (one Redis client shared by them all)."""

    def __init__(self, store: StoreSettings | None = None) -> None:
        self.store = store or StoreSettings()
        url = self.store.redis_url
        self.redis: RedisHandle | None = (
            RedisHandle(url, self.store.timeout) if url is not None else None
        )

    def limiter(self, name: str, settings: RateLimit) -> RateLimiter:
        """A limiter of the settings' windows; `name` keeps its keys apart from the other
        limiters' in a shared store."""
        if self.redis is None or not settings.enabled:
            return limiter_for(settings)
        s = self.store
        return RedisRateLimiter(
            self.redis,
            name,
            settings.interval,
            settings.max,
            settings.enabled,
            prefix=s.prefix,
            fail_open=s.fail_open,
            retry_interval=s.retry_interval,
            max_entries=settings.max_entries,
        )

    async def close(self) -> None:
        if self.redis is not None:
            await self.redis.close()


def limiter_for(settings: RateLimit) -> RateLimiter:
    """An in-memory limiter of the settings' windows."""
    return MemoryRateLimiter(
        settings.interval, settings.max, settings.enabled, settings.max_entries
    )
