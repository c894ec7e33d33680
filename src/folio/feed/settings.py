"""The realtime feed's settings: `config/api.json` `realtime` (every key optional).

    {"realtime": {"enabled": true, "heartbeatSeconds": 20, "retryMilliseconds": 3000,
                  "maxStreams": 5000, "maxStreamSeconds": 0, "queueSize": 1000,
                  "pollMilliseconds": 100, "watch": "auto"}}

`watch` says how a process learns of other processes' commits: "notify" (PostgreSQL's
LISTEN on a connection of its own), "poll" (the outbox's last id read every
`pollMilliseconds` while there are subscribers: SQLite, or PostgreSQL behind a pooler that
cannot hold a LISTEN), "auto" (notify where the database has it, else poll)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from folio.config import Settings, true_or_false, whole_number
from folio.errors import ConfigError

WHERE = "config/api: realtime."
WATCHES = ("auto", "notify", "poll")


@dataclass(frozen=True)
class FeedSettings:
    enabled: bool = True
    # a comment line this often on an idle stream, so that proxies keep it open
    heartbeat: float = 20.0
    # the `retry:` a stream starts with: how long an EventSource waits to reconnect (ms)
    retry_ms: int = 3000
    # streams one process serves at once (0: no limit); past it, 503
    max_streams: int = 5000
    # a stream ends after this long (0: never); the client reconnects and resumes
    max_seconds: float = 0.0
    # events waiting to be written to one stream; past it the stream is ended (the client
    # resumes from the outbox) rather than left to hold ever more memory
    queue_size: int = 1000
    poll_ms: int = 100
    watch: str = "auto"

    @classmethod
    def read(cls, settings: Settings) -> FeedSettings:
        api = settings.raw.get("api", {})
        section = api.get("realtime", {}) if isinstance(api, dict) else {}
        if section is False:
            return cls(enabled=False)
        if not isinstance(section, dict):
            raise ConfigError("config/api: realtime must be an object (or false)")
        watch = section.get("watch", "auto")
        if watch not in WATCHES:
            raise ConfigError(f"{WHERE}watch must be one of {', '.join(WATCHES)} (got {watch!r})")
        return cls(
            enabled=true_or_false(section, "enabled", True, WHERE),
            heartbeat=_seconds(section, "heartbeatSeconds", cls.heartbeat, zero=False),
            retry_ms=whole_number(section, "retryMilliseconds", cls.retry_ms, WHERE, 0),
            max_streams=whole_number(section, "maxStreams", cls.max_streams, WHERE, 0),
            max_seconds=_seconds(section, "maxStreamSeconds", cls.max_seconds, zero=True),
            queue_size=whole_number(section, "queueSize", cls.queue_size, WHERE, 1),
            poll_ms=whole_number(section, "pollMilliseconds", cls.poll_ms, WHERE, 10),
            watch=watch,
        )


def _seconds(section: dict[str, Any], key: str, default: float, zero: bool) -> float:
    value = section.get(key, default)
    if isinstance(value, str):
        # from the environment, in a Python config file
        with contextlib.suppress(ValueError):
            value = float(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or value < 0
        or (value == 0 and not zero)
        or value != value  # NaN
        or value == float("inf")
    ):
        kind = "a number of seconds, 0 or more" if zero else "a number of seconds above 0"
        raise ConfigError(f"{WHERE}{key} must be {kind} (got {value!r})")
    return float(value)
