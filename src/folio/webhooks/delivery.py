"""The delivery worker of a serving process: it posts each committed event to each enabled
webhook subscribed to it, in the outbox's order, at least once, and records every attempt.

Each webhook has a cursor in the database (content/sql/webhooks.py): the last event it is
done with. A process delivers a webhook's events only while it holds the cursor's lease,
so with several processes or hosts each event goes to each webhook once, by whichever
process claimed it; a process that dies leaves a lease that runs out, and another one (or
the same one, restarted) carries on from the cursor: what was sent but not yet recorded is
sent again (receivers can tell by `X-Folio-Event-Id`).

One task per claimed webhook (`Route`) sends its events one after the other: an event is
not sent before the previous one was delivered or given up after its last attempt. A
failed attempt is tried again after a backoff that doubles each time (with jitter); the
attempt count and the time of the next attempt are in the cursor, so they survive a
restart. The attempts are recorded, and the cursor moved, in one write every
`SETTLE_SECONDS` or so rather than one per event: under a write load that keeps the
worker's own writes few.

The worker costs nothing while nothing happens: it wakes on this process's commits
(`events.listen`, whose events it delivers without reading them back), and looks at the
outbox every `pollInterval` for other processes' commits only when the app has webhooks.
Old outbox rows and records are pruned an hour apart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import socket
import time
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Any

from folio.content.events import Event
from folio.content.sql.webhooks import Claim, Cursor, Record
from folio.store.database import background
from folio.webhooks.model import Webhook
from folio.webhooks.sender import body as delivery_body
from folio.webhooks.service import POPULATED, attempt_record

if TYPE_CHECKING:
    from folio.webhooks.service import WebhookService

log = logging.getLogger("folio.webhooks")

# events read from the outbox at once, and kept in memory per webhook at most (past
# that, they are read back from the outbox when their turn comes)
BATCH = 200
MAX_QUEUE = 500
# entries read for bodies, kept for the other webhooks that send the same event
ENTRIES = 256
# the longest a delivery goes unrecorded (attempts are recorded in batches)
SETTLE_SECONDS = 0.25
# how long a route with nothing to send keeps its lease before it gives it up
LINGER_SECONDS = 5.0
# the first prune after start, then the time between two
PRUNE_AFTER = 60.0
PRUNE_EVERY = 3600.0
# a worker whose database fails waits this long, doubling, before trying again
RETRY_FIRST = 0.5
RETRY_MOST = 30.0
# one log line per problem per this many seconds
LOG_EVERY = 30.0


class Pacer:
    """Deliveries share the event loop with the requests this process serves. While
    writes come in (commits in the window) and the server is busy with them, deliveries
    are held to what the server has left up to `TARGET` of its time; when less than
    `SHARE` is left, to one attempt a window: a saturated server keeps serving at nearly
    full speed, its deliveries fall behind and catch up once the load drops (they are
    read back from the outbox); a server with time to spare delivers at once. (A share
    was not enough: what deliveries cost beyond their attempts, the entries' reads and
    the collector's work on what they keep, cannot be told apart from the requests'.)

    The server's time is its process's CPU time (the loop's thread and the database's,
    which share the interpreter) over windows of `WINDOW` seconds. An attempt is charged
    `cost` seconds: everything deliveries use per attempt (the entry's read, the request,
    its record), learnt from the windows in which the process only delivered (no
    commits): 140 µs at first, what it measured under a write load on the machine of the
    benchmarks."""

    WINDOW = 0.1
    TARGET = 0.85
    SHARE = 0.05
    FIRST_COST = 140e-6
    # the learnt cost stays within these bounds, and moves by this part of a new reading
    COSTS = (20e-6, 5e-3)
    LEARN = 0.2

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.cpu = time.process_time()
        self.commits = 0
        self.attempts = 0
        self.cost = self.FIRST_COST
        self.budget: float | None = None

    def _roll(self, now: float) -> None:
        elapsed = now - self.start
        if elapsed < self.WINDOW:
            return
        cpu = time.process_time()
        spent = cpu - self.cpu
        self.budget = None
        if self.commits:
            others = (spent - self.attempts * self.cost) / elapsed
            if others >= self.TARGET - self.SHARE:
                # saturated: a trickle, one attempt a window (the rest once it is not)
                self.budget = self.cost / 2
            else:
                self.budget = (self.TARGET - others) * self.WINDOW
        elif self.attempts >= 20 and elapsed < 10 * self.WINDOW:
            low, high = self.COSTS
            reading = min(high, max(low, spent / self.attempts))
            self.cost += (reading - self.cost) * self.LEARN
        self.start, self.cpu, self.commits, self.attempts = now, cpu, 0, 0

    async def turn(self) -> None:
        """Waits until an attempt may be made, and charges it."""
        while True:
            now = time.perf_counter()
            self._roll(now)
            if self.budget is None or self.attempts * self.cost < self.budget:
                self.attempts += 1
                return
            await asyncio.sleep(max(0.001, self.start + self.WINDOW - now))


class DeliveryWorker:
    def __init__(self, service: WebhookService) -> None:
        self.service = service
        self.settings = service.settings
        self.sql = service.sql
        self.documents = service.documents
        self.owner = f"{HOST}:{os.getpid()}:{secrets.token_hex(4)}"
        # a lease outlives a few attempts' time, so a living holder renews it in time
        self.lease_ms = int(max(30.0, 3 * self.settings.timeout) * 1000)
        self.routes: dict[str, Route] = {}
        self.hooks: dict[str, Webhook] = {}  # every webhook known, by key
        self.latest = 0
        self.polling = False
        self.stopping = False
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._next_prune = 0.0
        self._logged: dict[str, float] = {}
        # one turn at a time (a turn claims, and must see the routes the last one made)
        self._turn = asyncio.Lock()
        self.pacer = Pacer()
        # bodies' entries read for the events being delivered (one read for all the
        # webhooks that send an event)
        self._entries: OrderedDict[int, dict[str, Any]] = OrderedDict()

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        self._wake = asyncio.Event()
        await self.tick()
        # an app with no webhook at start does not poll until one is made here
        self.polling = bool(self.hooks)
        self._next_prune = time.monotonic() + PRUNE_AFTER
        self.documents.events.listen(self.committed)
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self, grace: float = 2.0) -> None:
        """Stops the routes (each records what it sent and gives up its lease), waiting up
        to `grace` seconds for attempts under way; what a cancelled one sent unrecorded is
        sent again by the next holder of its lease."""
        self.stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        routes = list(self.routes.values())
        for route in routes:
            route.stop()
        tasks = [r.task for r in routes if r.task is not None]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
        if self.polling:
            # leases of routes cut short, or claimed as the worker stopped
            with contextlib.suppress(Exception):
                await self.documents.write_program(
                    None, "webhooks.release", self.sql.release(self.owner)
                )

    async def changed(self) -> None:
        """A webhook was made, changed or deleted in this process: its routes here learn
        it before the admin API answers (other processes within `pollInterval`)."""
        self.polling = True
        if not self.stopping:
            await self.tick()

    def committed(self, events: list[Event]) -> None:
        """This process's committed events (on the loop, in order)."""
        if self.stopping or not self.hooks:
            return
        self.pacer.commits += len(events)
        routes = self.routes
        for route in routes.values():
            route.offer(events)
        if len(routes) == len(self.hooks):
            return  # every webhook has its route here
        names = {e.event for e in events}
        for key, hook in self.hooks.items():
            if hook.enabled and key not in routes and names.intersection(hook.events):
                assert self._wake is not None
                self._wake.set()
                return

    # ------------------------------------------------------------------ the loop
    async def _run(self) -> None:
        background()
        assert self._wake is not None
        delay = RETRY_FIRST
        while not self.stopping:
            timeout = max(0.0, self._next_prune - time.monotonic())
            if self.polling:
                timeout = min(timeout, self.settings.poll_interval)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
            self._wake.clear()
            if self.stopping:
                return
            try:
                if self.polling:
                    await self.tick()
                if time.monotonic() >= self._next_prune:
                    self._next_prune = time.monotonic() + PRUNE_EVERY
                    await self.prune()
                delay = RETRY_FIRST
            except Exception as exc:
                self.problem("the webhook worker could not read its state", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MOST)

    async def tick(self) -> None:
        """Reads the webhooks and their cursors, starts cursors for new webhooks, tells
        this process's routes of events committed elsewhere, and claims the webhooks that
        have events to deliver and no process delivering them."""
        async with self._turn:
            await self._tick()

    async def _tick(self) -> None:
        latest, cursors, rows = await self.documents.read_program(self.sql.state())
        self.latest = latest
        hooks = {h.key: h for h in self.service.merge(rows)}
        self.hooks = hooks
        if hooks:
            self.polling = True
        enable = [k for k, h in hooks.items() if h.enabled and not _active(cursors.get(k))]
        disable = [k for k, h in hooks.items() if not h.enabled and _active(cursors.get(k))]
        if enable or disable:
            await self.documents.write_program(
                None, "webhooks.adopt", self.sql.adopt(enable, disable)
            )
        for key, route in list(self.routes.items()):
            hook = hooks.get(key)
            if hook is None or not hook.enabled:
                route.stop()
            else:
                route.update(hook, latest)
        if self.stopping:
            return
        gone = {c.owner for c in cursors.values() if c.owner and _ended(c.owner, self.owner)}
        now_free = [
            key
            for key, hook in hooks.items()
            if hook.enabled
            and key not in self.routes
            and (cursor := cursors.get(key)) is not None
            and cursor.active
            and cursor.last_event < latest
            and (
                cursor.owner in (None, self.owner)
                or cursor.owner in gone
                or cursor.lease_left_ms < 0
            )
        ]
        if not now_free:
            return
        program = self.sql.claim(now_free, self.owner, self.lease_ms, latest, sorted(gone))
        claims: list[Claim] = await self.documents.write_program(None, "webhooks.claim", program)
        for claim in claims:
            route = Route(self, hooks[claim.webhook], claim)
            self.routes[claim.webhook] = route
            route.task = asyncio.get_running_loop().create_task(route.run())

    async def prune(self) -> None:
        keep = [k for k, h in self.hooks.items() if h.enabled]
        events, records = await self.service.prune(keep)
        if events or records:
            log.info("webhooks: pruned %d old events and %d delivery records", events, records)

    async def payload(self, event: Event) -> dict[str, Any]:
        """An event's body (service.payload), its entry read once for every webhook."""
        if event.event not in POPULATED:
            return event.payload()
        entry = self._entries.get(event.id)
        if entry is None:
            entry = (await self.service.payload(event))["entry"]
            self._entries[event.id] = entry
            if len(self._entries) > ENTRIES:
                self._entries.popitem(last=False)
        return {**event.payload(), "entry": entry}

    def problem(self, what: str, exc: BaseException) -> None:
        """Logs a problem, once per LOG_EVERY seconds for the same one."""
        now = time.monotonic()
        if now - self._logged.get(what, -LOG_EVERY) >= LOG_EVERY:
            self._logged[what] = now
            log.warning("%s: %s: %s", what, type(exc).__name__, exc)

    def backoff(self, attempt: int) -> float:
        """Seconds before attempt `attempt + 1`, after `attempt` failed ones."""
        base = min(self.settings.max_backoff, self.settings.backoff * 2.0 ** (attempt - 1))
        return float(base * random.uniform(0.8, 1.2))


def _active(cursor: Cursor | None) -> bool:
    return cursor is not None and cursor.active


HOST = socket.gethostname()


def _ended(owner: str, me: str) -> bool:
    """Whether the process holding a lease is known to have ended: one of this host
    whose process id is gone (a server killed and started again takes its deliveries
    back at once rather than when the lease runs out). Another host's is not known."""
    parts = owner.rsplit(":", 2)
    if owner == me or len(parts) != 3 or parts[0] != HOST or not parts[1].isdecimal():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # it exists (another user's)
    return False


class Route:
    """The deliveries of one webhook while this process holds its lease.

    `done`: the last event the webhook is done with; `known`: every event up to it is in
    `queue` (those it is subscribed to) or done; `need_read`: the outbox may hold events
    past `known` (committed by another process, or more than the queue keeps)."""

    def __init__(self, worker: DeliveryWorker, hook: Webhook, claim: Claim) -> None:
        self.worker = worker
        self.hook = hook
        self.key = hook.key
        self.done = claim.last_event
        self.known = claim.last_event
        self.queue: deque[Event] = deque()
        self.need_read = True
        self.reset = False
        self.attempt = claim.attempt
        self.retry_at = time.monotonic() + max(0, claim.wait_ms) / 1000 if claim.attempt else 0.0
        self.records: list[Record] = []
        self.unsettled_since: float | None = None  # moved past the last recorded place
        self.renewed = time.monotonic()
        self.active = time.monotonic()
        self.stopped = False
        self.wake = asyncio.Event()  # events came, or the webhook changed, or a stop
        self.halt = asyncio.Event()  # the webhook changed, or a stop
        self.task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ from the worker
    def offer(self, events: list[Event]) -> None:
        """This process's committed events: taken as they are when they follow `known`
        (no read of the outbox), else a read is due."""
        if (self.attempt or len(self.queue) >= MAX_QUEUE) and not self.reset:
            # the head waits for its next attempt, or the queue is full: what follows is
            # read from the outbox when its turn comes
            if events[-1].id > self.known:
                self.need_read = True
            return
        first = events[0].id
        contiguous = first == self.known + 1 and events[-1].id - first == len(events) - 1
        if contiguous and not self.reset:
            wanted = self.hook.events
            self.queue.extend(e for e in events if e.event in wanted)
            self.known = events[-1].id
            while len(self.queue) > MAX_QUEUE:
                self.queue.pop()
                self.known = self.queue[-1].id
                self.need_read = True
        elif events[-1].id > self.known:
            self.need_read = True
        self.wake.set()

    def update(self, hook: Webhook, latest: int) -> None:
        """The webhook as read now, and the last event committed anywhere."""
        if hook != self.hook:
            self.hook = hook
            self.reset = True  # its queue was chosen by its former events
            self.halt.set()
        if latest > self.known:
            self.need_read = True
        self.wake.set()

    def stop(self) -> None:
        self.stopped = True
        self.wake.set()
        self.halt.set()

    # ------------------------------------------------------------------ the loop
    async def run(self) -> None:
        background()
        worker = self.worker
        delay = RETRY_FIRST
        try:
            while not self.stopped:
                try:
                    if await self._step() is False:
                        break
                    delay = RETRY_FIRST
                except Exception as exc:
                    worker.problem(f"webhook {self.hook.name}: delivery stopped", exc)
                    await self._pause(delay, events=False)
                    delay = min(delay * 2, RETRY_MOST)
            await self._settle(release=True)
        except Exception as exc:
            worker.problem(f"webhook {self.hook.name}: could not record its deliveries", exc)
        finally:
            if worker.routes.get(self.key) is self:
                del worker.routes[self.key]

    async def _step(self) -> bool:
        """One turn: read, send or wait; False when the route ends (its lease lost, or
        nothing to do for a while)."""
        if self.reset:
            self.reset = False
            self.queue.clear()
            self.known = self.done
            self.need_read = True
        if not self.queue and self.need_read:
            await self._read()
        now = time.monotonic()
        if self.queue:
            if self.attempt and self.retry_at > now:
                if not await self._settle():
                    return False
                # new events do not shorten the wait: only a change or a stop
                wait = min(self.retry_at - now, self.worker.lease_ms / 3000)
                await self._pause(wait, events=False)
                return await self._renew()
            await self._send(self.queue[0])
            self.active = time.monotonic()
            if self.unsettled_since is not None and (
                self.attempt
                or len(self.records) >= BATCH
                or time.monotonic() - self.unsettled_since >= SETTLE_SECONDS
            ):
                return await self._settle()
            return True
        if self.need_read:
            return True
        # nothing to send: record what is pending, then wait for events
        if self.unsettled_since is not None:
            wait = SETTLE_SECONDS - (now - self.unsettled_since)
            if wait <= 0:
                return await self._settle()
        else:
            wait = LINGER_SECONDS - (now - self.active)
            if wait <= 0:
                return False
        await self._pause(wait)
        return await self._renew()

    async def _read(self) -> None:
        """Reads the events past `known` (the queue is empty; events this process commits
        meanwhile may join it, and are not taken twice)."""
        self.need_read = False
        try:
            latest, events = await self.worker.documents.read_program(
                self.worker.sql.pending(self.known, BATCH, list(self.hook.events))
            )
        except BaseException:
            self.need_read = True
            raise
        if self.reset:
            return
        self.queue.extend(e for e in events if e.id > self.known)
        if len(events) == BATCH:
            self.need_read = True
            self.known = max(self.known, events[-1].id)
        else:
            self.known = max(self.known, latest)
        if not self.queue and self.attempt == 0 and self.done < self.known:
            self._moved(self.known)

    async def _send(self, event: Event) -> None:
        worker = self.worker
        await worker.pacer.turn()
        if self.reset or self.stopped:
            return  # the webhook changed meanwhile: its queue is read again first
        payload = await worker.payload(event)
        if self.reset or self.stopped:
            return
        hook = self.hook
        body = delivery_body(payload)
        outcome = await worker.service.sender.send(hook, event.event, event.id, body)
        attempt = self.attempt + 1
        retry = not outcome.ok and attempt < worker.settings.max_attempts
        self.records.append(
            attempt_record(hook, event.id, event.event, attempt, outcome, body, retry)
        )
        if self.unsettled_since is None:
            self.unsettled_since = time.monotonic()
        if retry:
            self.attempt = attempt
            self.retry_at = time.monotonic() + worker.backoff(attempt)
            return
        if not outcome.ok:
            log.warning(
                "webhook %s: gave up %s (event %d) after %d attempts: %s",
                hook.name,
                event.event,
                event.id,
                attempt,
                outcome.error,
            )
        self.attempt = 0
        if self.queue and self.queue[0] is event:
            self.queue.popleft()
            self._moved(event.id if self.queue else self.known)
        else:
            # the queue is being replaced (the webhook changed): read again after this
            self._moved(event.id)

    def _moved(self, done: int) -> None:
        self.done = done
        if self.unsettled_since is None:
            self.unsettled_since = time.monotonic()

    async def _settle(self, release: bool = False) -> bool:
        """Records the attempts made and moves the cursor (renewing the lease, or giving
        it up); whether this process still holds it."""
        worker = self.worker
        if self.unsettled_since is None and not release:
            return True
        records, self.records = self.records, []
        wait_ms = int(max(0.0, self.retry_at - time.monotonic()) * 1000) if self.attempt else 0
        lease = 0 if release else worker.lease_ms
        try:
            held = await worker.documents.write_program(
                None,
                "webhooks.settle",
                worker.sql.settle(
                    self.key, worker.owner, self.done, self.attempt, wait_ms, lease, records
                ),
            )
        except BaseException:
            self.records = records + self.records
            raise
        self.unsettled_since = None
        self.renewed = time.monotonic()
        if not held and not release:
            log.warning("webhook %s: another process took over its deliveries", self.hook.name)
            self.stopped = True
        return bool(held)

    async def _renew(self) -> bool:
        worker = self.worker
        if time.monotonic() - self.renewed < worker.lease_ms / 3000:
            return True
        if self.unsettled_since is not None:
            return await self._settle()
        held = await worker.documents.write_program(
            None, "webhooks.renew", worker.sql.renew(self.key, worker.owner, worker.lease_ms)
        )
        self.renewed = time.monotonic()
        if not held:
            self.stopped = True
        return bool(held)

    async def _pause(self, seconds: float, events: bool = True) -> None:
        """Waits up to `seconds`, or until events (when `events`), a change or a stop
        come."""
        signal = self.wake if events else self.halt
        if seconds > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(signal.wait(), seconds)
        signal.clear()
