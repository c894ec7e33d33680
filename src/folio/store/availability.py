"""Whether the database answers. A failure of the database's environment rather than of
a request (PostgreSQL unreachable or shutting down, its backends terminated, out of
connections or disk; SQLite's file unreadable, full, read-only or locked past its busy
timeout) is answered 503 `ServiceUnavailableError` with `Retry-After`, and logged once
when the outage begins and once when the database answers again, not once per request.
Each database keeps one `Availability`; the readiness check (`check_ready`, served as
`/_health/ready`) reads it."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Any

from folio.errors import ServiceUnavailableError
from folio.store.program import Program, Stmt

log = logging.getLogger("folio")

# seconds a client is asked to wait before trying again
RETRY_AFTER = 5
# an outage ends at a success this long after its last failure: a database that fails some
# requests and serves others (out of connections, its connections going one by one) is one
# outage, not two lines per failed request
SETTLE = 2.0
MESSAGE = "The database is unavailable, try again later"

# SQLite's primary result codes that say the environment failed, not the statement:
# PERM, BUSY, LOCKED, NOMEM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, PROTOCOL, NOTADB
SQLITE_OUTAGES = frozenset({3, 5, 6, 7, 8, 10, 11, 13, 14, 15, 26})


def unavailable(message: str = MESSAGE) -> ServiceUnavailableError:
    error = ServiceUnavailableError(message)
    error.retry_after = RETRY_AFTER
    return error


class Availability:
    """The database's state as the requests found it: down from the first failure of its
    environment until a statement succeeds SETTLE seconds after the last failure. An
    outage that began with a write (a full disk, a read-only file) ends only with a write
    that succeeds: reads that still work meanwhile would otherwise end it and begin it
    again at each request."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.down_since: float | None = None  # time.monotonic() of the outage's start
        self.last_failure = 0.0
        self.writes_only = False  # the outage began with a write
        self.reason = ""
        self.refused = 0  # requests answered 503 during the current outage

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def failed(self, reason: str, writing: bool = False) -> ServiceUnavailableError:
        """The error to answer for a failure of the database's environment; the first of
        an outage is logged."""
        now = self.last_failure = time.monotonic()
        if self.down_since is None:
            self.down_since = now
            self.writes_only = writing
            self.reason = reason
            self.refused = 0
            log.error("%s is unavailable (answering 503 until it is back): %s", self.name, reason)
        elif not writing:
            self.writes_only = False  # reads fail too now
        self.refused += 1
        return unavailable()

    def answered(self, writing: bool = False) -> None:
        """A statement succeeded: an outage under way is over (one of writes, once a
        write succeeds) if its last failure is SETTLE seconds old."""
        since = self.down_since
        if since is None or not (writing or not self.writes_only):
            return
        now = time.monotonic()
        if now - self.last_failure >= SETTLE:
            self.down_since = None
            log.warning(
                "%s is available again after %.1f s (%d requests answered 503)",
                self.name,
                now - since,
                self.refused,
            )


def sqlite_outage(exc: BaseException) -> str | None:
    """Why an SQLite error is one of its environment (None: the statement's own)."""
    if not isinstance(exc, sqlite3.Error):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        # errors raised without a result code: an unopenable file among them
        return str(exc) if "unable to open" in str(exc) else None
    if code & 0xFF not in SQLITE_OUTAGES:
        return None
    return f"{getattr(exc, 'sqlite_errorname', code)}: {exc}"


def guard_sqlite(db: Any) -> None:
    """Wraps an SQLite database's `read`, `write` and `write_one` so that failures of its
    environment answer 503 (logged once per outage) and a success after them ends it."""
    availability = Availability("the SQLite database")
    db.availability = availability
    for name in ("read", "write", "write_one"):
        setattr(db, name, _guarded(getattr(db, name), availability, name != "read"))


def _guarded(
    method: Callable[..., Awaitable[Any]], availability: Availability, writing: bool
) -> Callable[..., Awaitable[Any]]:
    async def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            result = await method(*args, **kwargs)
        except sqlite3.Error as exc:
            reason = sqlite_outage(exc)
            if reason is None:
                raise
            raise availability.failed(reason, writing) from None
        if availability.down_since is not None:
            availability.answered(writing)
        return result

    return guarded


# seconds the readiness check waits for the database's answer
READY_TIMEOUT = 5.0


def _ping(sql: str) -> Program:
    rows = yield Stmt(sql)
    return rows


async def check_ready(db: Any) -> None:
    """Returns when the database answers a statement and no outage is under way; raises
    the 503 otherwise."""
    try:
        await asyncio.wait_for(db.read(_ping(db.dialect.ping())), READY_TIMEOUT)
    except TimeoutError:
        raise unavailable("The database did not answer in time") from None
    availability: Availability | None = getattr(db, "availability", None)
    if availability is not None and availability.down:
        # the outage is not over yet; reads work, but writes did not (a full disk), until
        # a write succeeds
        if availability.writes_only:
            raise unavailable("The database refuses writes")
        raise unavailable()
