"""The feed that learns of other processes' commits by reading the outbox's last id every
`pollMilliseconds` while it runs (while there are subscribers): SQLite's (several worker
processes share one file and have no other way to tell each other), and PostgreSQL's where
a LISTEN cannot be held (a pooler in transaction mode). The read is one index probe
(`MAX(id)`); the pump reads events only when it moved."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable

from folio.content.events import background
from folio.errors import FolioError
from folio.feed.base import Feed


class PollingFeed(Feed):
    _poller: asyncio.Task[None] | None = None

    async def _watch(self) -> None:
        self._poller = asyncio.get_running_loop().create_task(self._poll())

    def _unwatch(self) -> Awaitable[None]:
        task, self._poller = self._poller, None
        if task is not None:
            task.cancel()
        return _cancelled(task)

    async def _poll(self) -> None:
        background()
        interval = self.settings.poll_ms / 1000
        while True:
            await asyncio.sleep(interval)
            try:
                latest = await self.documents.last_event_id()
            except (FolioError, OSError):
                continue  # the pump reports the outage when it reads
            if latest > self.cursor:
                self.wake()


async def _cancelled(task: asyncio.Task[None] | None) -> None:
    if task is not None:
        with contextlib.suppress(asyncio.CancelledError):
            await task
