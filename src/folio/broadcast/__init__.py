"""Change messages between the processes and hosts that serve one database, so that a
change of configuration held in the database (API tokens, users, webhooks, the admin
panel's settings) made through one is in force on all within a second: a base class
(base.py: handlers by topic, the sending queue, resets) and one file per carrier. The app
container chooses one (`broadcaster_for`) from `config/server.json`:

    {"broadcast": {"via": "auto", "pollMilliseconds": 500, "channel": "folio:changes"}}

`via`: "redis" (pub/sub on the Redis server of `rateLimit.redis` / `REDIS_URL`), "notify"
(PostgreSQL NOTIFY/LISTEN), "poll" (a row of the database read every `pollMilliseconds`:
SQLite's worker processes, MySQL, PostgreSQL behind a pooler that cannot hold a LISTEN),
"local" (a process alone on its database), "auto" (Redis when one is configured, else
notifications where the database has them, else polling). `channel`: Redis's channel (apps
sharing one Redis server give each their own)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from folio.broadcast.base import (
    ACCESS,
    ADMIN_SETTINGS,
    TOPICS,
    WEBHOOKS,
    Broadcaster,
)
from folio.broadcast.local import LocalBroadcaster
from folio.broadcast.poll import PollingBroadcaster
from folio.broadcast.postgres import NotifyBroadcaster
from folio.config import whole_number
from folio.errors import ConfigError

__all__ = [
    "ACCESS",
    "ADMIN_SETTINGS",
    "TOPICS",
    "WEBHOOKS",
    "BroadcastSettings",
    "Broadcaster",
    "LocalBroadcaster",
    "NotifyBroadcaster",
    "PollingBroadcaster",
    "broadcaster_for",
]

WHERE = "config/server: broadcast."
VIAS = ("auto", "redis", "notify", "poll", "local")


@dataclass(frozen=True)
class BroadcastSettings:
    via: str = "auto"
    poll_ms: int = 500
    channel: str = "folio:changes"

    @classmethod
    def read(cls, server: dict[str, Any]) -> BroadcastSettings:
        section = server.get("broadcast", {})
        if not isinstance(section, dict):
            raise ConfigError(f"config/server: broadcast must be an object (got {section!r})")
        via = section.get("via", "auto")
        if via not in VIAS:
            raise ConfigError(f"{WHERE}via must be one of {', '.join(VIAS)} (got {via!r})")
        poll_ms = whole_number(section, "pollMilliseconds", cls.poll_ms, WHERE, 10)
        channel = section.get("channel", cls.channel)
        if not isinstance(channel, str) or not channel.strip():
            raise ConfigError(f"{WHERE}channel must be a non-empty text (got {channel!r})")
        return cls(via=via, poll_ms=poll_ms, channel=channel)


# the version row of the polling carrier: (read its token, write a new one)
Row = tuple[Callable[[], Awaitable[str | None]], Callable[[str], Awaitable[None]]]


def broadcaster_for(
    settings: BroadcastSettings, db: Any, row: Row, redis_url: str | None = None
) -> Broadcaster:
    """The carrier `settings.via` asks for (see the module's docstring). `db`: the store's
    database (its `notifies`, `listen` and `write_one`)."""
    via = settings.via
    if via == "auto":
        via = "redis" if redis_url else "notify" if db.notifies else "poll"
    if via == "redis":
        if not redis_url:
            raise ConfigError(
                f"{WHERE}via is redis, but no Redis server is configured "
                "(config/server: rateLimit.redis, or REDIS_URL)"
            )
        from folio.broadcast.redis import RedisBroadcaster

        return RedisBroadcaster(redis_url, settings.channel)
    if via == "notify":
        if not db.notifies:
            raise ConfigError(
                f"{WHERE}via is notify, but this database has no notifications: use poll, "
                "redis or auto"
            )
        return NotifyBroadcaster(db)
    if via == "poll":
        return PollingBroadcaster(row[0], row[1], settings.poll_ms / 1000)
    return LocalBroadcaster()
