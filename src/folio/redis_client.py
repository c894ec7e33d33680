"""The Redis server that an app's processes and hosts share (rate-limit windows; notices of
changes between hosts): which one, and clients to it.

Which one: the `REDIS_URL` environment variable, else `config/server.json`
`rateLimit.redis`; none means every process keeps its state to itself. The URL is Redis's
own form: `redis://[[user]:password@]host[:port][/db]`, `rediss://` for TLS,
`unix:///path/to/socket?db=0`.

Clients: a `RedisHandle(url, timeout)` holds, for whichever event loop is running (a
client's connections belong to the loop that opened them, and a process may run several
loops one after the other, as the command line and the tests do):

- `await handle.run(*command)`: one command, within the handle's timeout (measured from the
  call: a wait for a free connection included). The path of requests (rate limits): its
  connections carry no timeouts of their own, which saves redis-py a timer per read, and at
  most `max_connections` commands are in flight at once, so that a burst of requests does
  not open hundreds of connections whose connects time out behind each other on a busy
  event loop;
- `handle.client()`: a redis-py asyncio client for anything else (publishing, say), whose
  connects and reads time out after the handle's timeout;
- `handle.new_client(**options)`: a client of its own (a subscriber's).

None backs off and retries as redis-py's defaults do (three tries, seconds apart): a Redis
that is down or stalled costs a request a fraction of a second; a connection found broken
(Redis restarted) is retried once at once."""

from __future__ import annotations

import asyncio
import os
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import Connection, ConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from folio.config import Settings
from folio.errors import ConfigError

ENV = "REDIS_URL"
SCHEMES = ("redis", "rediss", "unix")
# seconds to connect, and to wait for one answer
DEFAULT_TIMEOUT = 0.25
# commands of `run` in flight at once (per event loop, so per process)
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


class _LoopClients:
    """A handle's clients of one event loop: the general client, and the connections of
    `run` (made by redis-py from the URL; idle ones kept for the next command)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, slots: int) -> None:
        self.loop = loop
        self.general: Redis | None = None
        self.factory: ConnectionPool | None = None
        self.idle: list[Connection] = []
        self.slots = asyncio.Semaphore(slots)


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
        self._clients: _LoopClients | None = None

    def _of_loop(self) -> _LoopClients:
        loop = asyncio.get_running_loop()
        if self._clients is None or self._clients.loop is not loop:
            # the previous loop's clients are dropped, not closed: their loop may be gone
            self._clients = _LoopClients(loop, self.max_connections)
        return self._clients

    async def run(self, *command: Any) -> Any:
        """The answer of one command as Redis gives it (bytes, integers, lists: none of
        redis-py's conversions); TimeoutError past the handle's timeout, a RedisError (or
        OSError) when Redis refuses or fails.

        A command takes an idle connection of its own (at most `max_connections` at once),
        sends and reads on it directly: redis-py's pool and retry wrapper around each
        command cost about a third of a round trip to a local Redis (bench/limiter.py)."""
        clients = self._of_loop()
        async with asyncio.timeout(self.timeout), clients.slots:
            if clients.idle:
                conn = clients.idle.pop()
            else:
                if clients.factory is None:
                    clients.factory = ConnectionPool.from_url(self.url, **self._kwargs())
                make: Any = clients.factory.make_connection  # (untyped in redis-py)
                conn = make()
            try:
                return await _ask(conn, command)
            except ResponseError:
                raise  # an answer: the connection is in step
            except RedisConnectionError:
                # a connection found broken (Redis restarted, say): once more, afresh
                await conn.disconnect(nowait=True)
                return await _ask(conn, command)
            except BaseException:
                # cut short (a timeout) or failed: its next command reconnects
                await conn.disconnect(nowait=True)
                raise
            finally:
                clients.idle.append(conn)

    def client(self) -> Redis:
        """The general client of the running loop (made at its first use; it connects
        lazily)."""
        clients = self._of_loop()
        if clients.general is None:
            clients.general = self.new_client()
        return clients.general

    def new_client(self, **options: Any) -> Redis:
        """A client of its own, with the handle's timeouts unless `options` say otherwise."""
        kwargs = self._kwargs(**{"socket_timeout": self.timeout, **options})
        return Redis(connection_pool=ConnectionPool.from_url(self.url, **kwargs))

    def _kwargs(self, **options: Any) -> dict[str, Any]:
        return {
            # `run`'s connections: the command's timeout bounds their reads
            "socket_timeout": None,
            "socket_connect_timeout": self.timeout,
            "retry": Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            **self.options,
            **options,
        }

    async def close(self) -> None:
        """Closes the running loop's clients."""
        clients, self._clients = self._clients, None
        if clients is None or clients.loop is not asyncio.get_running_loop():
            return
        if clients.general is not None:
            await clients.general.aclose(close_connection_pool=True)
        for conn in clients.idle:
            await conn.disconnect()


async def _ask(conn: Connection, command: tuple[Any, ...]) -> Any:
    await conn.send_command(*command)
    return await conn.read_response()
