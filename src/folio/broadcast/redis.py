"""Change messages through Redis pub/sub (the Redis server of `rateLimit.redis` /
`REDIS_URL`): a message is a PUBLISH on the channel `broadcast.channel` (default
`folio:changes`), and every process subscribes on a connection of its own, reconnected
after a loss with a growing wait; after each (re)subscription every handler runs (pub/sub
keeps nothing for a subscriber that was away). A subscription that hears nothing for
`PING_SECONDS` is pinged, so a connection that died quietly is found.

Pub/sub channels are shared by every database number of a Redis server: apps that share
one give each their own channel."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from folio.broadcast.base import Broadcaster
from folio.redis_client import RedisHandle, safe_url

log = logging.getLogger("folio.broadcast")

CHANNEL = "folio:changes"
# the subscriber connection's name, as CLIENT LIST shows it
CLIENT_NAME = "folio-changes"
PING_SECONDS = 30.0
# seconds to wait for Redis when publishing (the subscriber waits for messages as long
# as it takes)
TIMEOUT = 2.0
# seconds between resubscription attempts: doubled from the first up to the last
BACKOFF = (0.25, 10.0)


class RedisBroadcaster(Broadcaster):
    kind = "redis"

    def __init__(self, url: str, channel: str = CHANNEL) -> None:
        super().__init__()
        self.url = url
        self.channel = channel
        self._handle = RedisHandle(url, TIMEOUT)
        self._task: asyncio.Task[None] | None = None
        # set while subscribed (tests wait on it)
        self.listening = asyncio.Event()

    async def _send(self, messages: list[str]) -> None:
        client = self._handle.client()
        for message in messages:
            await client.publish(self.channel, message)

    async def _listen(self) -> None:
        self.listening = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._subscribe())

    async def _subscribe(self) -> None:
        delay = BACKOFF[0]
        down = False
        while True:
            # no retry: redis-py would reconnect and subscribe again on its own, and the
            # messages sent meanwhile would be missed without a word
            client: Any = self._handle.new_client(
                socket_timeout=None, client_name=CLIENT_NAME, retry=Retry(NoBackoff(), 0)
            )
            pubsub: Any = client.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                self.listening.set()
                if down:
                    log.info("listening to %s again", self.channel)
                    down = False
                delay = BACKOFF[0]
                self._connected()  # (again: what was published meanwhile is lost)
                while True:
                    message = await pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=PING_SECONDS
                    )
                    if message is None:
                        await asyncio.wait_for(pubsub.ping(), TIMEOUT)
                    elif message.get("type") == "message":
                        data = message.get("data")
                        if isinstance(data, bytes):
                            data = data.decode("utf-8", "replace")
                        self._received(str(data))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not down:
                    log.warning(
                        "lost the change messages of %s on %s (%s): reconnecting",
                        self.channel,
                        safe_url(self.url),
                        exc,
                    )
                    down = True
            finally:
                self.listening.clear()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF[1])

    async def _unlisten(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._handle.close()
