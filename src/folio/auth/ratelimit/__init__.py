"""Rate limiters of the sign-in, sign-up and password routes, and the choice of one from
the app's settings (`config/plugins.json` -> `users-permissions.config.ratelimit`):

    {"users-permissions": {"config": {"ratelimit": {"interval": 60000, "max": 10,
                                                    "maxEntries": 100000}}}}

A new limiter (one shared through Redis, say) is a `RateLimiter` subclass (base.py) in a
file of its own, chosen in `limiter_for`."""

from __future__ import annotations

from folio.auth.ratelimit.base import RateLimiter, Verdict, key_digest
from folio.auth.ratelimit.memory import MemoryRateLimiter
from folio.auth.settings import RateLimit

__all__ = ["MemoryRateLimiter", "RateLimiter", "Verdict", "key_digest", "limiter_for"]


def limiter_for(settings: RateLimit) -> RateLimiter:
    """The limiter the settings ask for (the in-memory one: the only one so far)."""
    return MemoryRateLimiter(
        settings.interval, settings.max, settings.enabled, settings.max_entries
    )
