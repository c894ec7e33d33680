"""The in-memory rate limiter: windows kept in this process (each worker counts apart;
put a shared limiter in front for several machines).

Its memory is bounded: at most `max_entries` windows, about 250 bytes each (a 16-byte
digest, the window's start and count; 25-32 MB for the default 100,000). Windows are kept
in the order they started, so ended ones are dropped from the front as requests come, and
when a new key arrives with the table full the oldest window gives way (its key starts
afresh at its next request: a flood of new keys weakens the limit of old ones rather than
growing the process)."""

from __future__ import annotations

import time
from collections import OrderedDict

from folio.auth.ratelimit.base import RateLimiter, Verdict


class MemoryRateLimiter(RateLimiter):
    def __init__(
        self, interval: float, limit: int, enabled: bool = True, max_entries: int = 100_000
    ) -> None:
        super().__init__(interval, limit, enabled)
        self.max_entries = max(1, max_entries)
        # digest -> [window start (monotonic seconds), requests], oldest window first
        self._windows: OrderedDict[bytes, list[float]] = OrderedDict()

    def __len__(self) -> int:
        """How many windows are kept."""
        return len(self._windows)

    async def count(self, digest: bytes) -> Verdict:
        now = time.monotonic()
        windows = self._windows
        # windows started in order, so the ended ones are at the front
        while windows:
            first = next(iter(windows.values()))
            if now - first[0] < self.interval:
                break
            windows.popitem(last=False)
        window = windows.get(digest)
        if window is None:
            if len(windows) >= self.max_entries:
                windows.popitem(last=False)
            window = windows[digest] = [now, 0]
        window[1] += 1
        count = int(window[1])
        reset_at = int(time.time() + (window[0] + self.interval - now))
        return Verdict(count <= self.limit, self.limit, max(0, self.limit - count), reset_at)

    async def reset(self) -> None:
        self._windows.clear()
