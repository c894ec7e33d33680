"""A PostgreSQL LISTEN on a connection of its own, kept open: reconnected after a loss.

A listening session must stay open for as long as it listens and is never handed to a
statement of the pool (which would drop its notifications, or keep a pooled connection
from serving reads), hence its own connection. Notifications are not queued for a session
that is away: after every (re)connection the callback is called once, as if notified, so
that its owner reads whatever was committed meanwhile. A connection that dies quietly (a
host gone, a firewall's dropped state) is found by a ping every PING_SECONDS."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("folio.store")

PING_SECONDS = 30.0
# seconds between reconnection attempts: doubled from the first up to the last
BACKOFF = (0.25, 10.0)


class Listener:
    def __init__(
        self,
        connect: Callable[[], Awaitable[Any]],
        channel: str,
        callback: Callable[[], None],
        on_payload: Callable[[str], None] | None = None,
    ) -> None:
        self._connect = connect
        self.channel = channel
        self._callback = callback
        # called with a notification's payload instead of `callback` (which still follows
        # each (re)connection)
        self._on_payload = on_payload
        self._task: asyncio.Task[None] | None = None
        # set while a connection listens (tests wait on it)
        self.listening = asyncio.Event()
        self.connections = 0  # connections made (a reconnection counts)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _notified(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        if self._on_payload is not None:
            self._on_payload(payload)
        else:
            self._callback()

    async def _run(self) -> None:
        delay = BACKOFF[0]
        down = False
        while True:
            conn: Any = None
            try:
                conn = await self._connect()
                lost = asyncio.Event()
                conn.add_termination_listener(_setter(lost))
                await conn.add_listener(self.channel, self._notified)
                self.connections += 1
                self.listening.set()
                if down:
                    log.info("listening to %s again", self.channel)
                    down = False
                delay = BACKOFF[0]
                self._callback()  # what was committed before it listened
                while not lost.is_set():
                    try:
                        await asyncio.wait_for(lost.wait(), PING_SECONDS)
                    except TimeoutError:
                        await asyncio.wait_for(conn.execute("SELECT 1"), PING_SECONDS)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not down:
                    log.warning(
                        "lost the notifications of %s (%s): reconnecting", self.channel, exc
                    )
                    down = True
            finally:
                self.listening.clear()
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.terminate()
            if not down:
                # the connection ended without an error (the server closed it)
                log.warning("lost the notifications of %s: reconnecting", self.channel)
                down = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF[1])


def _setter(event: asyncio.Event) -> Callable[[Any], None]:
    return lambda _: event.set()
