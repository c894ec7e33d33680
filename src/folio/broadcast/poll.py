"""Change messages through a row of the database, for a database without notifications
(SQLite, whose worker processes share one file; MySQL) where no Redis is configured:
publishing writes a fresh random token into the row, and every process reads the row
every `interval` seconds; a token other than the one it saw last means that something
changed since, and every handler runs (the row says that, not what: one row, one indexed
read per interval, whatever the number of topics).

A fresh token per change, rather than a counter: two processes publishing at once cannot
write the same value, so a reader never mistakes a second change for the first."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable

from folio.broadcast.base import Broadcaster
from folio.store.database import background

log = logging.getLogger("folio.broadcast")

# seconds between two reads of the row: a change is in force everywhere within about this
INTERVAL = 0.5


class PollingBroadcaster(Broadcaster):
    kind = "poll"

    def __init__(
        self,
        read: Callable[[], Awaitable[str | None]],
        write: Callable[[str], Awaitable[None]],
        interval: float = INTERVAL,
    ) -> None:
        super().__init__()
        self._read = read
        self._write = write
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    async def _send(self, messages: list[str]) -> None:
        await self._write(secrets.token_hex(8))

    async def _listen(self) -> None:
        seen = await self._read()
        self._connected()
        self._task = asyncio.get_running_loop().create_task(self._poll(seen))

    async def _poll(self, seen: str | None) -> None:
        background()
        failing = False
        while True:
            await asyncio.sleep(self.interval)
            try:
                token = await self._read()
            except Exception as exc:
                if not failing:
                    log.warning("cannot read the change row (%s): retrying", exc)
                    failing = True
                continue
            if failing:
                log.info("the change row is read again")
                failing = False
            if token != seen:
                seen = token
                self._reset()

    async def _unlisten(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
