"""Where the rate limiters count (`config/server.json` -> `rateLimit`, and `REDIS_URL`):

    {"rateLimit": {"redis": "redis://127.0.0.1:6379/0", "prefix": "folio:rl",
                   "timeout": 250, "failMode": "open", "retryInterval": 1000}}

- `redis` (or `REDIS_URL`, which wins): the Redis server every process and host counts in;
  without one, each process counts in its own memory;
- `prefix`: the start of every key the limiters write (`<prefix>:<limiter>:<digest>`), so
  that several apps can share one Redis server;
- `timeout`: milliseconds to connect and to wait for an answer;
- `failMode`: what a request meets while Redis cannot be reached: `open` (the default: it is
  let through, counted in the process's memory meanwhile) or `closed` (refused with 503 and
  `Retry-After`);
- `retryInterval`: milliseconds during which a Redis found unreachable is not asked again.

How many requests a window allows is the limiter's own setting (users-permissions
`ratelimit`, admin `rateLimit`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from folio.config import Settings
from folio.errors import ConfigError
from folio.redis_client import DEFAULT_TIMEOUT, redis_url

FAIL_MODES = ("open", "closed")
PREFIX_RE = re.compile(r"^[^\s*?\[\]]{1,64}$")
WHERE = "config/server rateLimit"


@dataclass(frozen=True)
class StoreSettings:
    redis_url: str | None = None
    prefix: str = "folio:rl"
    timeout: float = DEFAULT_TIMEOUT  # seconds
    fail_open: bool = True
    retry_interval: float = 1.0  # seconds


def _milliseconds(section: dict[str, Any], key: str, default: float) -> float:
    if key not in section:
        return default
    value = section[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 60_000:
        raise ConfigError(f"{WHERE}.{key} must be milliseconds, above 0 and at most 60000")
    return float(value) / 1000.0


def load_store_settings(settings: Settings) -> StoreSettings:
    """The rate limiters' store, as the configuration and the environment set it."""
    section = settings.raw.get("server", {}).get("rateLimit", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{WHERE} must be an object")
    url, _ = redis_url(settings)
    prefix = section.get("prefix", StoreSettings.prefix)
    if not isinstance(prefix, str) or not PREFIX_RE.match(prefix):
        raise ConfigError(
            f"{WHERE}.prefix must be 1 to 64 characters without spaces or * ? [ ] (got {prefix!r})"
        )
    mode = section.get("failMode", "open")
    if mode not in FAIL_MODES:
        raise ConfigError(f'{WHERE}.failMode must be "open" or "closed" (got {mode!r})')
    return StoreSettings(
        redis_url=url,
        prefix=prefix,
        timeout=_milliseconds(section, "timeout", DEFAULT_TIMEOUT),
        fail_open=mode == "open",
        retry_interval=_milliseconds(section, "retryInterval", StoreSettings.retry_interval),
    )
