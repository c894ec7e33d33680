"""Change messages through PostgreSQL's notifications: a message is a NOTIFY on the channel
`folio_changes` (the dialect's, in a transaction of its own once the change committed), and
every process of every host listens on a connection of its own (the store's `listen`,
reconnected after a loss, which calls back once after each (re)connection: then every
handler runs, for what was committed while it was away).

The dialect's NOTIFY carries no text, so each notification runs every handler (this
process's own too): configuration changes are rare, and a reload too many costs a read."""

from __future__ import annotations

from typing import Any

from folio.broadcast.base import Broadcaster

CHANNEL = "folio_changes"


class NotifyBroadcaster(Broadcaster):
    kind = "notify"

    def __init__(self, db: Any) -> None:
        super().__init__()
        self._db = db
        self._listening: Any = None

    async def _send(self, messages: list[str]) -> None:
        # the listeners hear that something changed, not what: one notification for all
        await self._db.write(self._db.dialect.notify(CHANNEL))

    async def _listen(self) -> None:
        self._listening = await self._db.listen(CHANNEL, self._connected, on_payload=self._received)

    async def _unlisten(self) -> None:
        listening, self._listening = self._listening, None
        if listening is not None:
            await listening.close()
