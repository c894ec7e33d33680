"""The change broadcaster's interface: a process says that configuration held in the
database changed (`publish(topic)`, after the write committed), and every process of every
host that serves the same database runs what it registered for that topic (`on`), so that
what each keeps in memory (who a credential is, the webhooks, the admin panel's settings)
is dropped or read again.

The publishing process runs its own handlers at once, before its answer goes out; the
message to the others is sent by a task of its own (publishing never waits on the network,
and a message that cannot be sent is tried again a few times). A process starts listening
before it reads what it caches (`start` waits for the carrier's first connection), and a
process that may have missed messages since (its listening connection was lost) runs every
handler once it listens again (`_reset`): a reload too many costs a read, a missed one
would leave a stale cache.

Each implementation (one file each) carries the messages its own way: `local.py` (none: a
process alone on its database), `postgres.py` (NOTIFY/LISTEN), `redis.py` (pub/sub),
`poll.py` (a version row read every few hundred milliseconds, where the database has no
notifications). A process that only writes (a command of the CLI) publishes without
listening."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import secrets
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("folio.broadcast")

# what changed: each a name a cache registers for
ACCESS = "access"  # API tokens, users (blocked, role, password): the credentials' cache
WEBHOOKS = "webhooks"  # the admin API's webhooks
ADMIN_SETTINGS = "admin-settings"  # the admin panel's settings (list and edit views)
TOPICS = (ACCESS, WEBHOOKS, ADMIN_SETTINGS)

# a message: "<origin>:<topic>"; `origin` tells a process its own messages
SEPARATOR = ":"
# sending a message: attempts, and the wait before the second (doubled each time)
SEND_ATTEMPTS = 5
SEND_RETRY = 0.2
# seconds `start` waits for the carrier's first connection (past it the app starts anyway,
# and reloads everything once the connection comes)
CONNECT_WAIT = 5.0

Handler = Callable[[], Awaitable[None] | None]


class Broadcaster(ABC):
    """Handlers by topic, the queue of messages to send, and what runs them."""

    # the implementation's name (logs, tests)
    kind = "base"

    def __init__(self) -> None:
        self.origin = secrets.token_hex(6)
        self._handlers: dict[str, list[Handler]] = {}
        self._outbox: list[str] = []
        self._sending: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._started = False
        # set at the carrier's first connection
        self._connected_once: asyncio.Event | None = None
        self._waited = False  # `start` gave up waiting for it
        # messages from other processes run here, and resets (tests and logs read them)
        self.received = 0
        self.resets = 0

    # ------------------------------------------------------------------ handlers
    def on(self, topic: str, handler: Handler) -> None:
        """Runs `handler` (a function, or one returning an awaitable) whenever `topic`
        changes, in this process or in another, and after a reset."""
        self._handlers.setdefault(topic, []).append(handler)

    def _run(self, topic: str) -> None:
        for handler in self._handlers.get(topic, ()):
            try:
                result = handler()
            except Exception:
                log.exception("a handler of %s changes failed", topic)
                continue
            if inspect.isawaitable(result):
                task = asyncio.get_running_loop().create_task(_awaited(result, topic))
                self._running.add(task)
                task.add_done_callback(self._running.discard)

    def _received(self, message: str) -> None:
        """A message from the channel: another process's change is applied here."""
        origin, _, topic = message.partition(SEPARATOR)
        if origin == self.origin:
            return  # this process ran its handlers when it published
        self.received += 1
        if topic in self._handlers:
            self._run(topic)
        else:
            # a topic this process does not know (a newer version wrote it): everything
            self._reset()

    def _connected(self) -> None:
        """The carrier listens (called at each (re)connection): after the first one, and
        after a first one that came too late for `start`, messages may have been missed."""
        first = self._connected_once
        if first is not None and not first.is_set():
            first.set()
            if not self._waited:
                return
        self._reset()

    def _reset(self) -> None:
        """Every handler once: messages may have been missed."""
        self.resets += 1
        for topic in list(self._handlers):
            self._run(topic)

    # ------------------------------------------------------------------ publishing
    def publish(self, topic: str) -> None:
        """`topic` changed (call after the write committed): this process's handlers run
        now; the message to the other processes goes out from a task."""
        self._run(topic)
        self._outbox.append(f"{self.origin}{SEPARATOR}{topic}")
        if self._sending is None or self._sending.done():
            self._sending = asyncio.get_running_loop().create_task(self._send_all())

    async def _send_all(self) -> None:
        while self._outbox:
            batch = list(dict.fromkeys(self._outbox))  # one message per topic
            self._outbox.clear()
            delay = SEND_RETRY
            for attempt in range(SEND_ATTEMPTS):
                try:
                    await self._send(batch)
                    break
                except Exception as exc:
                    if attempt == SEND_ATTEMPTS - 1:
                        log.warning(
                            "could not tell other processes of a change (%s): %s; they see "
                            "it when their caches expire",
                            ", ".join(m.partition(SEPARATOR)[2] for m in batch),
                            exc,
                        )
                    else:
                        await asyncio.sleep(delay)
                        delay *= 2

    async def flush(self) -> None:
        """Returns once every message published so far was sent (or given up)."""
        while self._sending is not None and not self._sending.done():
            await asyncio.shield(self._sending)

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        """Starts listening to the other processes (a serving process), and returns once it
        does (or after CONNECT_WAIT seconds): call it before anything is read and cached."""
        self._started = True
        self._connected_once = first = asyncio.Event()
        self._waited = False
        await self._listen()
        try:
            await asyncio.wait_for(first.wait(), CONNECT_WAIT)
        except TimeoutError:
            self._waited = True
            log.warning("change messages: not listening yet; caches are reloaded once it does")

    async def close(self) -> None:
        """Sends what is queued (a command of the CLI publishes too), stops listening."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.flush(), 5.0)
        if self._started:
            self._started = False
            await self._unlisten()
        for task in list(self._running):
            task.cancel()

    # ------------------------------------------------------------------ the carrier
    @abstractmethod
    async def _send(self, messages: list[str]) -> None:
        """Delivers `messages` to every other listening process (raises when it cannot)."""

    @abstractmethod
    async def _listen(self) -> None:
        """Starts calling `_received` with each message, and `_connected` after each
        (re)connection of what listens."""

    @abstractmethod
    async def _unlisten(self) -> None: ...


async def _awaited(result: Any, topic: str) -> None:
    try:
        await result
    except Exception:
        log.exception("a handler of %s changes failed", topic)
