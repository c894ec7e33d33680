"""The realtime feed's endpoints, as Server-Sent Events (folio.feed does the fan-out):

    GET /api/events            every type the caller may find (files for callers that may)
    GET /api/<name>/events     one content type (`name`: its plural, a single type's singular)

Authenticated like every route (the public role, an API token, a user's JWT); the one-type
stream runs through the pipeline as the type's `find` (its policies and middlewares too).
A stream starts with `retry:`, then the events after `Last-Event-ID` (the header, else the
`lastEventId` query parameter) when one is given, then `event: ready` (its id: where the
stream is; everything before it was sent), then the events as they are committed, and a
comment line every `heartbeatSeconds` while nothing else is sent. An id that cannot be
resumed without a gap (older than the oldest event kept) is answered `event: reset` first.

A stream ends when its client leaves, when the server shuts down (the server's protocol
calls the stop function the stream leaves in its scope: uvicorn would otherwise wait for it
to end before stopping), after `maxStreamSeconds`, when its client stops reading and its
queue fills, or when its credential stops being valid (checked every few seconds)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from folio.auth.principal import OPEN, Principal
from folio.errors import FolioError, NotFoundError, UnauthorizedError, ValidationError
from folio.feed import HEARTBEAT, Feed, Subscription, Viewer, message
from folio.http.responses import error_response
from folio.transport import STOP

if TYPE_CHECKING:
    from folio.app import Folio
    from folio.http.pipeline import Pipeline

log = logging.getLogger("folio.feed")

STREAM_TYPE = b"text/event-stream"
HEADERS = [
    (b"content-type", STREAM_TYPE),
    (b"cache-control", b"no-cache"),
    # nginx would otherwise hold the stream's bytes in its buffer
    (b"x-accel-buffering", b"no"),
]
# the path's last segment that names a type's stream
SEGMENT = "events"
# an event id: a whole number the outbox's id column holds
MAX_ID_DIGITS = 18
GONE = "gone"  # the client left: nothing more to send


def wants_stream(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


def last_event_id(request: Request) -> int | None:
    """`Last-Event-ID` (what an EventSource sends when it reconnects), else the
    `lastEventId` query parameter (for clients that cannot set headers); None for none."""
    raw = request.headers.get("last-event-id", "").strip()
    where = "Last-Event-ID"
    if not raw:
        raw = request.query_params.get("lastEventId", "").strip()
        where = "lastEventId"
    if not raw:
        return None
    if not raw.isdecimal() or not raw.isascii() or len(raw) > MAX_ID_DIGITS:
        raise ValidationError(
            f"{where} must be an event id (a whole number, 0 or more)",
            {"errors": [{"path": [where], "message": "must be a whole number"}]},
        )
    return int(raw)


Recheck = Callable[[], Awaitable[Principal | None]]


class EventStreams:
    """The routes of the feed."""

    def __init__(
        self, folio: Folio, pipeline: Pipeline, content_root: Callable[[Request], Any]
    ) -> None:
        self.folio = folio
        self.feed: Feed = folio.feed
        self.pipeline = pipeline
        self.by_route = folio.registry.by_route
        # an app's type may be named `events`: `/api/events` is then its list, and the
        # stream of every type is what a request asking for `text/event-stream` gets there
        self.content_root = content_root

    def routes(self) -> list[BaseRoute]:
        if not self.feed.settings.enabled:
            return []
        return [
            Route(f"/api/{SEGMENT}", self.every_type, methods=["GET"]),
            Route(f"/api/{{name}}/{SEGMENT}", self.one_type, methods=["GET"]),
        ]

    async def every_type(self, request: Request) -> Response:
        if SEGMENT in self.by_route and not wants_stream(request):
            request.scope["path_params"] = {"name": SEGMENT}
            response: Response = await self.content_root(request)
            return response
        principal = await self.folio.access.principal(request.scope)
        return self._stream(request, principal, None, self._recheck(request, None))

    async def one_type(self, request: Request) -> Response:
        name = request.path_params["name"]
        ct = self.by_route.get(name)
        if ct is None or not ct.uid.startswith("api::"):
            raise NotFoundError()
        if name != (ct.singular if ct.is_single else ct.plural):
            raise NotFoundError()
        action = f"{ct.uid}.find"

        async def handler(req: Request, principal: Principal) -> Response:
            return self._stream(req, principal, ct.uid, self._recheck(req, action))

        return await self.pipeline.run(request, action, handler)

    def _stream(
        self, request: Request, principal: Principal, only: str | None, recheck: Recheck
    ) -> Response:
        after = last_event_id(request)
        # answered before the stream starts (subscribing checks again)
        self.feed.check_room()
        if request.method == "HEAD":
            return Response(headers={k.decode(): v.decode() for k, v in HEADERS})
        return EventStream(self.feed, Viewer(principal, only), after, recheck)

    def _recheck(self, request: Request, action: str | None) -> Recheck:
        """What the stream's caller may do now: its principal, or None when its credential
        no longer holds (a token deleted or expired, a user blocked) or no longer allows
        the stream's type."""
        access = self.folio.access
        scope = request.scope

        async def recheck() -> Principal | None:
            try:
                principal = await access.principal(scope)
            except UnauthorizedError:
                return None
            if action is not None and not principal.can(action):
                return None
            return principal

        return recheck


# seconds between checks of a stream's credential (the access cache's own time)
RECHECK_SECONDS = 5.0


class EventStream(Response):
    """The answer of one stream (an ASGI app: Starlette calls it with the connection)."""

    def __init__(self, feed: Feed, viewer: Viewer, after: int | None, recheck: Recheck) -> None:
        # no Response.__init__: it would give the answer a Content-Length
        self.feed = feed
        self.viewer = viewer
        self.after = after
        self.recheck = recheck
        self.status_code = 200
        self.background = None
        self.raw_headers = list(HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        feed = self.feed
        try:
            sub = await feed.subscribe(self.viewer, self.after)
        except FolioError as exc:
            await error_response(exc)(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        settings = feed.settings
        watcher = loop.create_task(_watch_client(receive, sub))
        ticker = Ticker(loop, settings.heartbeat, sub)
        expiry = None
        if settings.max_seconds:
            expiry = loop.call_later(settings.max_seconds, sub.end, "expired")
        scope[STOP] = lambda: sub.end("stopped")
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            await self._run(sub, send, settings.retry_ms, ticker)
        except FolioError as exc:
            # the database went away while the stream read it (a replay, a credential's
            # check): the stream ends, its client resumes later
            log.warning("an event stream ended: %s", exc.message)
        finally:
            feed.leave(sub)
            scope.pop(STOP, None)
            ticker.cancel()
            if expiry is not None:
                expiry.cancel()
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        # sent when the client left too: the server drops it, and the request log writes
        # the stream's line when it sees the answer's end
        with contextlib.suppress(OSError):
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _run(self, sub: Subscription, send: Send, retry_ms: int, ticker: Ticker) -> None:
        async def write(data: bytes) -> None:
            await send({"type": "http.response.body", "body": data, "more_body": True})

        # a line of its own, no blank line: applied by EventSource when read, and reported
        # by httpx-sse with the first event rather than as an empty one
        head = b"retry: %d\n" % retry_ms
        if sub.reset is not None:
            asked, oldest = sub.reset
            body = {"lastEventId": asked, "oldestEventId": oldest, "resumeFrom": sub.after}
            head += message("reset", body, sub.after)
        await write(head)
        async for frames in self.feed.replay(sub):
            await write(b"".join(f.data for f in frames))
        if sub.ended is not None:
            return
        await write(message("ready", {"lastEventId": sub.after}, sub.after))
        checked = time.monotonic()
        quiet = True  # nothing sent since the last heartbeat
        while True:
            await sub.wait()
            if sub.ended is not None:
                return
            now = time.monotonic()
            if now - checked >= RECHECK_SECONDS:
                checked = now
                if not await self._still_allowed(sub):
                    return
            frames = sub.take()
            if frames:
                quiet = False
                await write(b"".join(f.data for f in frames))
            if ticker.due:
                ticker.due = False
                if quiet:
                    await write(HEARTBEAT)
                quiet = True

    async def _still_allowed(self, sub: Subscription) -> bool:
        principal = await self.recheck()
        if principal is None:
            sub.end("unauthorized")
            return False
        viewer = sub.viewer
        if viewer.principal is OPEN:
            return True  # a route open to all (`auth: false`) stays open
        if principal is not viewer.principal and principal != viewer.principal:
            sub.viewer = Viewer(principal, viewer.only)
            sub.frames = [f for f in sub.frames if sub.viewer.sees(f.uid, f.status)]
        return True


class Ticker:
    """Pokes a stream's writer every `seconds` (`due` set): a heartbeat is due, and the
    caller's credential is checked again."""

    def __init__(self, loop: asyncio.AbstractEventLoop, seconds: float, sub: Subscription) -> None:
        self.due = False
        self._loop = loop
        self._seconds = seconds
        self._sub = sub
        self._handle = loop.call_later(seconds, self._tick)

    def _tick(self) -> None:
        self.due = True
        self._handle = self._loop.call_later(self._seconds, self._tick)
        self._sub.poke()

    def cancel(self) -> None:
        self._handle.cancel()


async def _watch_client(receive: Receive, sub: Subscription) -> None:
    """Ends the subscription when the client leaves (the server's `http.disconnect`)."""
    while True:
        received = await receive()
        if received["type"] == "http.disconnect":
            sub.end(GONE)
            return
