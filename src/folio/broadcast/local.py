"""The broadcaster of a process alone on its database: there is no one else to tell, so
publishing runs this process's handlers and sends nothing."""

from __future__ import annotations

from folio.broadcast.base import Broadcaster


class LocalBroadcaster(Broadcaster):
    kind = "local"

    async def _send(self, messages: list[str]) -> None:
        return None

    async def _listen(self) -> None:
        self._connected()

    async def _unlisten(self) -> None:
        return None
