"""Events of committed writes, and the app's hooks around the document service.

Every write of the document service (and of the file and user services built on it)
describes what it changed as events, one per document version it created, changed,
published, unpublished or deleted (`entry.create`, `entry.update`, `entry.publish`,
`entry.unpublish`, `entry.delete`; `media.create`, `media.update`, `media.delete` for the
media library). The events are written to the outbox table in the write's own transaction
(`content/sql/outbox.py`): what reads the outbox (webhooks, the realtime feed) sees exactly
the committed writes, in commit order, whichever process or host made them.

The process that made a write also hands its events, once committed, to `EventBus`
subscribers (`app.events.on("entry.publish", fn)`), in commit order, on a task of their own:
a slow or failing subscriber never delays or fails a write.

`DocumentMiddleware`s (`app.documents.use(fn)`) wrap the service's calls: they see the
action, the content type and the parameters, may change the parameters or refuse (raise),
and see the result of `next()`. For a write, the code after `next()` runs while the write's
transaction is still open: raising there rolls the write back."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import heapq
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from folio.errors import FolioError
from folio.schema.model import Schema

# (the feed marks its tasks as background work through this module: it may not use the store)
from folio.store.database import background as background
from folio.store.program import Pause

log = logging.getLogger("folio.events")

ENTRY_EVENTS = ("entry.create", "entry.update", "entry.delete", "entry.publish", "entry.unpublish")
MEDIA_EVENTS = ("media.create", "media.update", "media.delete")
EVENT_NAMES = (*ENTRY_EVENTS, *MEDIA_EVENTS)


@dataclass
class Event:
    """One change of one document version. `id`: its place in the outbox (commit order;
    0 until recorded); `status`: "draft" or "published" for a type with Draft & Publish,
    None otherwise; `entry`: the version as the content API shows it without populate
    (private attributes never), for a deletion as it was before."""

    event: str
    uid: str
    model: str
    document_id: str | None
    locale: str | None
    status: str | None
    entry: dict[str, Any]
    created_at: str = ""
    id: int = 0

    def payload(self) -> dict[str, Any]:
        """The body a webhook receives, as the reference sends it: media events carry
        the file as `media`, entry events the model's name, uid and the entry."""
        if self.event.startswith("media."):
            return {"event": self.event, "createdAt": self.created_at, "media": self.entry}
        return {
            "event": self.event,
            "createdAt": self.created_at,
            "model": self.model,
            "uid": self.uid,
            "entry": self.entry,
        }


Subscriber = Callable[[Event], Any]


class EventBus:
    """After-commit subscribers of this process's writes (`on`), and the listeners of the
    services that react to them at once (`listen`: the webhook worker's and the realtime
    feed's wake-ups, called on the loop, synchronously, with the events in order)."""

    def __init__(self) -> None:
        self._subscribers: dict[str, list[Subscriber]] = {}
        self._listeners: list[Callable[[list[Event]], None]] = []
        # ids recorded by writes not yet committed or dropped (any thread)
        self._held: set[int] = set()
        # writes under way whose ids are not known yet (`reserve`): by the least id each
        # may take, how many
        self._reserved: dict[int, int] = {}
        self._top = 0  # the greatest id this process has seen a write record
        self._held_lock = threading.Lock()
        self._ready: list[tuple[int, int, Event]] = []  # heap by id
        self._serial = 0
        self._queue: asyncio.Queue[Event] | None = None
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ the app's API
    def on(self, name: str, fn: Subscriber) -> Callable[[], None]:
        """Calls `fn(event)` (a function or a coroutine function) after each committed
        event named `name` (one of EVENT_NAMES, or "*" for all); returns a function that
        ends the subscription."""
        if name != "*" and name not in EVENT_NAMES:
            raise ValueError(
                f"unknown event {name!r}: the events are {', '.join(EVENT_NAMES)} (or '*')"
            )
        self._subscribers.setdefault(name, []).append(fn)

        def off() -> None:
            found = self._subscribers.get(name, [])
            if fn in found:
                found.remove(fn)

        return off

    def listen(self, fn: Callable[[list[Event]], None]) -> None:
        self._listeners.append(fn)

    # ------------------------------------------------------------------ the service's side
    def hold(self, ids: list[int]) -> None:
        """Ids a write recorded inside its transaction (any thread): events with greater
        ids wait for its outcome, so subscribers see commit order."""
        with self._held_lock:
            self._held.update(ids)
            self._top = max(self._top, *ids) if ids else self._top

    def reserve(self) -> int:
        """For a write that records its events and commits in one statement, before it is
        sent (any thread): its ids are not known until it answers, but they will be above
        every id recorded so far, so events above those wait, as `hold` makes them wait,
        until `release`. Returns the reservation (the least id it may take)."""
        with self._held_lock:
            floor = self._top + 1
            self._reserved[floor] = self._reserved.get(floor, 0) + 1
        return floor

    def release(self, floor: int) -> None:
        """Ends a reservation, after the write's ids are held (`hold`) or it failed."""
        with self._held_lock:
            left = self._reserved[floor] - 1
            if left:
                self._reserved[floor] = left
            else:
                del self._reserved[floor]
        self._flush()

    def unhold(self, ids: list[int]) -> None:
        """Ids of an attempt of a write that is run again (any thread)."""
        with self._held_lock:
            self._held.difference_update(ids)

    def drop(self, ids: list[int]) -> None:
        """Ids of a write that did not commit (or of a retried attempt)."""
        if not ids:
            return
        with self._held_lock:
            self._held.difference_update(ids)
        self._flush()

    def committed(self, events: list[Event]) -> None:
        """A write's events, once committed (on the loop)."""
        with self._held_lock:
            self._held.difference_update(e.id for e in events)
            self._top = max(self._top, *(e.id for e in events)) if events else self._top
        for event in events:
            self._serial += 1
            heapq.heappush(self._ready, (event.id, self._serial, event))
        self._flush()

    def _flush(self) -> None:
        with self._held_lock:
            floor = min(self._held) if self._held else None
            if self._reserved:
                least = min(self._reserved)
                floor = least if floor is None else min(floor, least)
        out: list[Event] = []
        while self._ready and (floor is None or self._ready[0][0] < floor):
            out.append(heapq.heappop(self._ready)[2])
        if not out:
            return
        for listener in self._listeners:
            try:
                listener(out)
            except Exception:
                log.exception("an event listener failed")
        if not self._subscribers:
            return
        if self._queue is None:
            self._queue = asyncio.Queue()
        for event in out:
            self._queue.put_nowait(event)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._deliver())

    async def _deliver(self) -> None:
        queue = self._queue
        assert queue is not None
        while not queue.empty():
            event = queue.get_nowait()
            for fn in [*self._subscribers.get(event.event, ()), *self._subscribers.get("*", ())]:
                try:
                    result = fn(event)
                    if inspect.isawaitable(result):
                        await result
                except Exception:
                    log.exception("events.on(%r) subscriber %s failed", event.event, _name(fn))

    async def drain(self) -> None:
        """Waits until the subscribers have seen every committed event (tests, shut-down)."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)


def _name(fn: Any) -> str:
    return str(getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or fn)


# --------------------------------------------------------------------------- middlewares


@dataclass
class DocumentContext:
    """What a document-service middleware sees: `action` (findMany, findOne, count,
    create, update, delete, publish, unpublish, and populate: fields loaded into documents
    read before, whose `content_type` may then be a component's schema), the type (`uid`,
    `content_type`) and the
    call's `params` (a dict it may change: `documentId`, `data`, `locale`, `status`, and the
    read parameters). `principal`: who calls (None for trusted service calls)."""

    action: str
    uid: str
    content_type: Schema
    params: dict[str, Any]
    principal: Any = None
    state: dict[str, Any] = field(default_factory=dict)


DocumentMiddleware = Callable[[DocumentContext, Callable[[], Awaitable[Any]]], Awaitable[Any]]

# set while a middleware's code after `next()` runs inside a write's transaction: a write
# started there would wait for that very transaction
_in_transaction: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "folio_in_write_transaction", default=False
)


def check_not_in_transaction() -> None:
    if _in_transaction.get():
        # the app's code is at fault, not the request: a 500 that says why
        raise FolioError(
            "A document-service middleware cannot write after next(): the write's "
            "transaction is still open. Write before next(), or in an events.on subscriber."
        )


class Gate:
    """Holds a write's transaction open at its end (a `Pause` step of its program) while
    the middlewares' code after `next()` runs, then lets it commit or roll back."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.reached: asyncio.Future[Any] = self.loop.create_future()
        self._verdict: BaseException | None = None
        self._decided = threading.Event()
        self._decided_async = asyncio.Event()

    def pause(self, result: Any) -> Pause:
        return Pause(lambda: self._arrive(result), self._wait_sync, self._wait_async)

    def _arrive(self, result: Any) -> None:
        def settle() -> None:
            if not self.reached.done():
                self.reached.set_result(result)

        if _on_loop(self.loop):
            settle()
        else:
            self.loop.call_soon_threadsafe(settle)

    def _wait_sync(self) -> None:
        # the writer thread waits; a middleware that never finishes does not hold it forever
        if not self._decided.wait(GATE_SECONDS):
            raise FolioError("A document-service middleware did not finish in time")
        if self._verdict is not None:
            raise self._verdict

    async def _wait_async(self) -> None:
        try:
            await asyncio.wait_for(self._decided_async.wait(), GATE_SECONDS)
        except TimeoutError:
            raise FolioError("A document-service middleware did not finish in time") from None
        if self._verdict is not None:
            raise self._verdict

    def decide(self, error: BaseException | None) -> None:
        self._verdict = error
        self._decided.set()
        self._decided_async.set()


# how long a write's transaction waits for its middlewares
GATE_SECONDS = 60.0


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class Refused(Exception):
    """Raised into a write's program to roll it back when a middleware failed after
    `next()` (its own exception is what the caller gets)."""


async def run_chain(
    middlewares: list[DocumentMiddleware],
    ctx: DocumentContext,
    inner: Callable[[DocumentContext], Awaitable[Any]],
) -> Any:
    """`inner(ctx)` wrapped by the middlewares, the first registered outermost."""

    async def call(i: int) -> Any:
        if i == len(middlewares):
            return await inner(ctx)
        return await middlewares[i](ctx, lambda: call(i + 1))

    return await call(0)


async def gated_write(
    middlewares: list[DocumentMiddleware],
    ctx: DocumentContext,
    write: Callable[[DocumentContext, Gate | None], Coroutine[Any, Any, Any]],
) -> Any:
    """A write wrapped by middlewares whose code after `next()` runs inside its
    transaction: `write(ctx, gate)` starts the write, whose program pauses at its end on
    `gate`; `next()` answers the write's result from there; the write commits once the
    outermost middleware returns, and rolls back if it raises."""
    gate: Gate | None = None
    task: asyncio.Task[Any] | None = None

    async def inner(c: DocumentContext) -> Any:
        nonlocal gate, task
        if task is not None:
            raise FolioError("A document-service middleware called next() twice")
        gate = Gate()
        task = asyncio.get_running_loop().create_task(write(c, gate))
        done, _ = await asyncio.wait({gate.reached, task}, return_when=asyncio.FIRST_COMPLETED)
        if gate.reached in done:
            _in_transaction.set(True)
            return gate.reached.result()
        return task.result()  # the write failed before its end: its error

    try:
        answer = await run_chain(middlewares, ctx, inner)
    except BaseException as exc:
        if task is not None and gate is not None:
            gate.decide(Refused(str(exc)))
            with contextlib.suppress(BaseException):
                await task
        raise
    finally:
        _in_transaction.set(False)
    if task is None:
        return answer  # a middleware answered without writing
    assert gate is not None
    gate.decide(None)
    await task
    return answer
