"""The realtime feed of one process: the events of committed writes, read from the outbox in
id order (commit order) and fanned out to the streams subscribed to it.

One reader per process, whatever the number of subscribers: a cursor (the last id read),
moved forward by a pump task that reads `documents.events_since(cursor)` whenever it is
woken. It is woken at once by this process's commits (`app.events.listen`), and, for
other processes' commits, by what each implementation watches (`_watch`): PostgreSQL's
notifications (postgres.py) or a poll of the outbox's last id (poll.py).

Nothing runs until the first subscriber comes (the pump, the watch); a little after the
last one leaves (LINGER), both stop again. An app without subscribers pays a test of a
flag per commit.

A subscriber says where it starts: from now, or after an event id it has seen (a resumed
stream, `Last-Event-ID`). Behind the cursor, it first reads the outbox itself (`replay`),
and joins the live fan-out where its reading meets the cursor, so that it sees every
event once, in order: the switch is made in one step of the loop, with no await between
the test and the change, and the fan-out skips ids a subscriber is already past. An id
older than the oldest event kept (the outbox is pruned) cannot be resumed without a gap:
the subscription says so (`reset`) and starts from now.

Each subscriber's queue is bounded (`queue_size` events): one that does not keep up is
ended rather than left to hold ever more memory; its client resumes from the outbox."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING

from folio.content.events import Event, background
from folio.errors import FolioError, ServiceUnavailableError
from folio.feed.frames import Frame, Viewer
from folio.feed.settings import FeedSettings

if TYPE_CHECKING:
    from folio.content.documents import DocumentService

log = logging.getLogger("folio.feed")

# events read from the outbox at once (the pump, a replay)
PAGE = 500
# seconds the pump and the watch go on after the last subscriber left (a reconnecting
# client finds them running)
LINGER = 5.0
# seconds before the pump reads again after the database failed it
RETRY_SECONDS = 1.0
# why a subscription ended
CLOSED, OVERFLOW, STOPPED = "closed", "overflow", "stopped"


class Subscription:
    """One stream's place in the feed: the id it is past (`after`), whether it is live or
    still replaying, and the frames waiting to be written."""

    __slots__ = (
        "_wake",
        "after",
        "ended",
        "frames",
        "live",
        "queue_size",
        "reset",
        "viewer",
    )

    def __init__(self, viewer: Viewer, queue_size: int) -> None:
        self.viewer = viewer
        self.queue_size = queue_size
        self.after = 0
        self.live = True
        self.frames: list[Frame] = []
        self.ended: str | None = None
        # (the id asked for, the oldest id kept or None): an id that cannot be resumed
        self.reset: tuple[int, int | None] | None = None
        self._wake = asyncio.Event()

    def offer(self, frames: list[Frame]) -> None:
        """Live frames, in id order (the pump's fan-out)."""
        if self.ended is not None:
            return
        viewer = self.viewer
        added = False
        for frame in frames:
            if frame.id <= self.after:
                continue
            self.after = frame.id
            if viewer.sees(frame.uid, frame.status):
                self.frames.append(frame)
                added = True
        if added:
            if len(self.frames) > self.queue_size:
                self.end(OVERFLOW)
            else:
                self._wake.set()

    def take(self) -> list[Frame]:
        frames = self.frames
        self.frames = []
        return frames

    def end(self, reason: str) -> None:
        if self.ended is None:
            self.ended = reason
            self.frames = []
        self._wake.set()

    def poke(self) -> None:
        """Wakes the stream's writer (a heartbeat is due, a check to make)."""
        self._wake.set()

    async def wait(self) -> None:
        await self._wake.wait()
        self._wake.clear()


class Feed(ABC):
    """The fan-out; subclasses watch for other processes' commits."""

    def __init__(self, documents: DocumentService, settings: FeedSettings) -> None:
        self.documents = documents
        self.settings = settings
        self.cursor = 0
        self._subs: set[Subscription] = set()
        self._running = False
        self._starting: asyncio.Future[None] | None = None
        self._joining = 0  # subscriptions being made (the feed must not stop under them)
        # made at each start: an app may be started on one loop and again on another
        self._woken: asyncio.Event | None = None
        self._pump_task: asyncio.Task[None] | None = None
        self._linger: asyncio.TimerHandle | None = None
        self._closed = False
        self.outbox_reads = 0  # reads of the outbox by the pump (tests, benchmarks)
        documents.events.listen(self._on_commit)

    # ------------------------------------------------------------------ wake-ups
    def _on_commit(self, events: list[Event]) -> None:
        """This process committed events (called on the loop right after the commit)."""
        if self._running:
            self.wake()

    def wake(self) -> None:
        """Something may have been committed: the pump reads the outbox."""
        if self._woken is not None:
            self._woken.set()

    @abstractmethod
    async def _watch(self) -> None:
        """Starts watching other processes' commits (calls `wake`)."""

    @abstractmethod
    def _unwatch(self) -> Awaitable[None]:
        """Stops watching: lets go of what it watched with at once (a new watch may start
        before it is closed), and returns what finishes closing it."""

    # ------------------------------------------------------------------ subscribers
    @property
    def subscribers(self) -> int:
        return len(self._subs)

    def full(self) -> bool:
        limit = self.settings.max_streams
        return bool(limit) and len(self._subs) >= limit

    def check_room(self) -> None:
        """ServiceUnavailableError (503, Retry-After) when no stream can be added: the
        process serves its maximum, or is shutting down."""
        if self._closed:
            raise _busy("The server is shutting down")
        if self.full():
            raise _busy("Too many event streams: try again later")

    async def subscribe(self, viewer: Viewer, last_id: int | None) -> Subscription:
        """A subscription from now (`last_id` None) or after `last_id`; raises
        ServiceUnavailableError when the process serves its maximum of streams, or when the
        database cannot be read."""
        self.check_room()
        self._joining += 1
        try:
            await self._start()
            sub = Subscription(viewer, self.settings.queue_size)
            if last_id is not None and last_id != self.cursor:
                sub.reset = await self._unresumable(last_id)
        finally:
            self._joining -= 1
        # from here on no await: the place is taken against the cursor as it is now
        if last_id is None or sub.reset is not None:
            sub.after = self.cursor
        else:
            sub.after = last_id
            sub.live = last_id >= self.cursor
        if self._closed:
            raise _busy("The server is shutting down")
        self._subs.add(sub)
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None
        return sub

    async def _unresumable(self, last_id: int) -> tuple[int, int | None] | None:
        """Why the events after `last_id` cannot all be sent (as Subscription.reset), or
        None: an id past the last event recorded (another database, or one emptied), or
        one below the oldest event kept less one (events after it were pruned)."""
        if last_id > self.cursor:
            if last_id > await self.documents.last_event_id():
                return last_id, None
            return None
        oldest = await self.documents.events_since(0, 1)
        if not oldest:
            return last_id, None
        if last_id + 1 < oldest[0].id:
            return last_id, oldest[0].id
        return None

    async def replay(self, sub: Subscription) -> AsyncIterator[list[Frame]]:
        """The frames a subscription behind the cursor has not seen, page by page, read
        from the outbox; it goes live where its reading meets the cursor."""
        while not sub.live and sub.ended is None:
            page = await self.documents.events_since(sub.after, PAGE)
            frames = [Frame(e) for e in page if sub.viewer.sees(e.uid, e.status)]
            if page:
                sub.after = max(sub.after, page[-1].id)
            if frames:
                yield frames
            # no await from the test to the switch: every later id comes from the fan-out
            if not page:
                # what the cursor passed is gone (pruned meanwhile): nothing left to read
                sub.after = max(sub.after, self.cursor)
                sub.live = True
            elif len(page) < PAGE and sub.after >= self.cursor:
                sub.live = True

    def leave(self, sub: Subscription) -> None:
        self._subs.discard(sub)
        if self._unused() and self._running and self._linger is None and not self._closed:
            self._linger = asyncio.get_running_loop().call_later(LINGER, self._idle)

    # ------------------------------------------------------------------ the pump
    async def _start(self) -> None:
        # a start under way first: it is running already, but its cursor is not read yet
        if self._starting is not None:
            await asyncio.shield(self._starting)
            return
        if self._running:
            return
        loop = asyncio.get_running_loop()
        self._starting = loop.create_future()
        try:
            self._woken = asyncio.Event()
            # running first: a commit made while the cursor is read wakes the pump
            self._running = True
            self.cursor = await self.documents.last_event_id()
            await self._watch()
            self._pump_task = loop.create_task(self._pump())
            self._starting.set_result(None)
        except BaseException as exc:
            self._running = False
            self._starting.set_exception(exc)
            self._starting.exception()  # retrieved: the waiters raise it
            raise
        finally:
            self._starting = None

    def _unused(self) -> bool:
        return not self._subs and not self._joining

    def _idle(self) -> None:
        self._linger = None
        if self._unused() and self._running:
            asyncio.get_running_loop().create_task(self._stop())

    async def _stop(self) -> None:
        # tested in the task's first step: a subscriber that came since keeps it running
        if not self._unused() and not self._closed:
            return
        self._running = False
        self._woken = None
        # both let go before any await: a start may come meanwhile with its own
        task, self._pump_task = self._pump_task, None
        unwatched = self._unwatch()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await unwatched

    async def _pump(self) -> None:
        background()
        woken = self._woken
        assert woken is not None
        failed_since: float | None = None
        while True:
            await woken.wait()
            woken.clear()
            try:
                while True:
                    self.outbox_reads += 1
                    events = await self.documents.events_since(self.cursor, PAGE)
                    if events:
                        self._fan_out(events)
                    if len(events) < PAGE:
                        break
            except Exception as exc:
                # the database is away (or worse): the subscribers wait, the pump tries again
                if failed_since is None:
                    failed_since = time.monotonic()
                    if isinstance(exc, FolioError | OSError):
                        log.warning("the realtime feed cannot read the outbox: %s", exc)
                    else:
                        log.exception("the realtime feed failed to read the outbox")
                await asyncio.sleep(RETRY_SECONDS)
                woken.set()
                continue
            if failed_since is not None:
                log.info("the realtime feed reads the outbox again")
                failed_since = None

    def _fan_out(self, events: list[Event]) -> None:
        frames = [Frame(e) for e in events]
        for sub in self._subs:
            if sub.live:
                sub.offer(frames)
        self.cursor = events[-1].id
        for sub in [s for s in self._subs if s.ended == OVERFLOW]:
            self._subs.discard(sub)

    async def close(self) -> None:
        """Ends every subscription and stops (the app's shut-down)."""
        self._closed = True
        for sub in list(self._subs):
            sub.end(CLOSED)
        self._subs.clear()
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None
        if self._running:
            await self._stop()


def _busy(message: str) -> ServiceUnavailableError:
    error = ServiceUnavailableError(message)
    error.retry_after = 5
    return error
