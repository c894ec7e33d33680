"""An in-memory fixed-window rate limiter for the sign-in and sign-up routes (per worker
process; put a shared limiter in front for several machines). A window starts at a key's
first request and lasts `interval` seconds; past `limit` requests the key is refused."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset_at: int  # epoch seconds when the window ends

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_at),
        }


class RateLimiter:
    def __init__(self, interval: float, limit: int, enabled: bool = True) -> None:
        self.interval = interval
        self.limit = limit
        self.enabled = enabled
        self._windows: dict[str, tuple[float, int]] = {}
        self._sweep_at = 0.0

    def hit(self, key: str) -> Verdict | None:
        """Counts one request for `key` (None when limiting is off)."""
        if not self.enabled:
            return None
        now = time.monotonic()
        if now >= self._sweep_at:
            self._windows = {k: v for k, v in self._windows.items() if now - v[0] < self.interval}
            self._sweep_at = now + self.interval
        start, count = self._windows.get(key, (now, 0))
        if now - start >= self.interval:
            start, count = now, 0
        count += 1
        self._windows[key] = (start, count)
        reset_at = int(time.time() + (start + self.interval - now))
        return Verdict(count <= self.limit, self.limit, max(0, self.limit - count), reset_at)

    def reset(self) -> None:
        self._windows.clear()
