"""The Redis server that an app's processes and hosts share (rate-limit windows; notices of
changes between hosts): which one, and clients to it.

Which one: the `REDIS_URL` environment variable, else `config/server.json`
`rateLimit.redis`; none means every process keeps its state to itself. The URL is Redis's
own form: `redis://[[user]:password@]host[:port][/db]`, `rediss://` for TLS,
`unix:///path/to/socket?db=0`.

Clients: `RedisHandle(url, timeout).client()` gives a redis-py asyncio client of the running
event loop (one per loop: a client's connections belong to the loop that opened them, and a
process may run several loops one after the other, as the command line and the tests do).
Its connect and command timeouts are short and it does not back off and retry, so that a
Redis that is down or stalled costs a request a fraction of a second, not the seconds of
redis-py's defaults; a connection found broken (Redis restarted) is retried once at once.
Its connections are pooled and bounded: a burst of requests waits for one of them (as long
as the timeout) rather than opening hundreds at once, whose connects would then time out
behind each other on a busy event loop."""

from __future__ import annotations

import asyncio
import os
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from folio.config import Settings
from folio.errors import ConfigError

ENV = "REDIS_URL"
SCHEMES = ("redis", "rediss", "unix")
# seconds to connect, and to wait for one answer (or for a free connection)
DEFAULT_TIMEOUT = 0.25
# connections a client keeps at most (per event loop, so per process)
MAX_CONNECTIONS = 16


def redis_url(settings: Settings) -> tuple[str | None, str]:
    """The shared Redis server's URL (None: none is configured), and where it was read (for
    messages): `REDIS_URL`, else server.json `rateLimit.redis`."""
    value = os.environ.get(ENV, "")
    if value != "":
        return check_url(value, ENV), ENV
    section = settings.raw.get("server", {}).get("rateLimit")
    found = section.get("redis") if isinstance(section, dict) else None
    where = "config/server rateLimit.redis"
    if found is None or found == "":
        return None, where
    if not isinstance(found, str):
        raise ConfigError(f"{where} must be a Redis URL such as redis://127.0.0.1:6379/0")
    return check_url(found, where), where


def check_url(url: str, where: str) -> str:
    """`url` if it names a Redis server, else a ConfigError naming `where`."""
    parts = urlsplit(url.strip())
    if parts.scheme not in SCHEMES or (parts.scheme != "unix" and not parts.hostname):
        raise ConfigError(
            f"{where} must be a Redis URL (redis://host:port/db, rediss://..., "
            f"unix:///path), not {safe_url(url)!r}"
        )
    try:
        parts.port  # noqa: B018 - reading it checks it
    except ValueError:
        raise ConfigError(f"{where}: bad port in {safe_url(url)!r}") from None
    return url.strip()


def safe_url(url: str) -> str:
    """`url` without its password, for logs and messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


class RedisHandle:
    """Clients of one Redis server for whichever event loop is running."""

    def __init__(
        self,
        url: str,
        timeout: float = DEFAULT_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        **options: Any,
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.max_connections = max_connections
        self.options = options
        self._client: Redis | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def client(self) -> Redis:
        """The client of the running loop (made at its first use; it connects lazily)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # the previous loop's client is dropped, not closed: its loop may be gone
            self._client = self.new_client()
            self._loop = loop
        return self._client

    def new_client(self, **options: Any) -> Redis:
        """A client of its own (a subscriber's, say), with the handle's timeouts."""
        kwargs: dict[str, Any] = {
            "socket_timeout": self.timeout,
            "socket_connect_timeout": self.timeout,
            "retry": Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            "max_connections": self.max_connections,
            # how long a request waits for a free connection
            "timeout": self.timeout,
            **self.options,
            **options,
        }
        pool = BlockingConnectionPool.from_url(self.url, **kwargs)
        return Redis(connection_pool=pool)

    async def close(self) -> None:
        """Closes the running loop's client, if it has one."""
        client, self._client = self._client, None
        loop, self._loop = self._loop, None
        if client is not None and loop is asyncio.get_running_loop():
            await client.aclose(close_connection_pool=True)
