"""What a rate limiter is: a counter of requests per key in fixed windows. A window starts
at a key's first request and lasts `interval` seconds; past `limit` requests in it the key
is refused until it ends.

Keys are texts built from what clients send (a path, an address, an email); a limiter
keeps only a fixed-size digest of each, so a long key costs no more memory than a short
one. Its methods are coroutines, so that a limiter shared by several processes (one kept
in Redis, say) can talk to its store without holding up the event loop."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

DIGEST_BYTES = 16


def key_digest(key: str) -> bytes:
    """The fixed-size digest a limiter keeps for `key` (128 bits: collisions between the
    keys of one window do not happen in practice)."""
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=DIGEST_BYTES).digest()


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


class RateLimiter(ABC):
    """Counts requests per key; `enabled` False counts nothing (every `hit` is None)."""

    def __init__(self, interval: float, limit: int, enabled: bool = True) -> None:
        self.interval = interval
        self.limit = limit
        self.enabled = enabled

    async def hit(self, key: str) -> Verdict | None:
        """Counts one request for `key` (None when limiting is off)."""
        if not self.enabled:
            return None
        return await self.count(key_digest(key))

    async def hit_all(self, keys: Sequence[str]) -> list[Verdict] | None:
        """Counts one request under each of `keys`, in one exchange with a shared store
        (None when limiting is off)."""
        if not self.enabled:
            return None
        return await self.count_all([key_digest(key) for key in keys])

    @abstractmethod
    async def count(self, digest: bytes) -> Verdict:
        """Counts one request for the key of this digest, and says whether it may pass."""

    async def count_all(self, digests: Sequence[bytes]) -> list[Verdict]:
        """`count` of each digest, in order."""
        return [await self.count(digest) for digest in digests]

    @abstractmethod
    async def reset(self) -> None:
        """Forgets every window."""
