"""The realtime feed: the events of committed writes, fanned out to the streams of this
process (the SSE endpoints of folio.http.events), with the permissions of each stream's
caller. One feed per process, with a base class (base.py: the outbox's reader, the
subscriptions, resuming) and one file per way of hearing of other processes' commits:
PostgreSQL's notifications (postgres.py), polling the outbox (poll.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from folio.errors import ConfigError
from folio.feed.base import Feed, Subscription
from folio.feed.frames import HEARTBEAT, Frame, Viewer, message
from folio.feed.poll import PollingFeed
from folio.feed.postgres import Listen, NotifyFeed
from folio.feed.settings import FeedSettings

if TYPE_CHECKING:
    from folio.content.documents import DocumentService

__all__ = [
    "HEARTBEAT",
    "Feed",
    "FeedSettings",
    "Frame",
    "NotifyFeed",
    "PollingFeed",
    "Subscription",
    "Viewer",
    "feed_for",
    "message",
]


def feed_for(documents: DocumentService, settings: FeedSettings, listen: Listen | None) -> Feed:
    """The feed `settings.watch` asks for: notifications where the database has them
    (`listen`, None where it has none) unless polling is asked for."""
    if listen is not None and settings.watch in ("auto", "notify"):
        return NotifyFeed(documents, settings, listen)
    if settings.watch == "notify":
        raise ConfigError(
            "config/api: realtime.watch is notify, but this database has no notifications: "
            "use poll or auto"
        )
    return PollingFeed(documents, settings)
