"""PostgreSQL driver on asyncpg connections (a pool of its own: store.pgpool). Statements
are written with `?` placeholders and rewritten once per distinct text to `$n` (the
dialect's `driver_sql`). A server
that cannot be reached, is shutting down, terminated the connection or is out of
connections or disk is answered 503, logged once per outage (store.availability)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from folio.errors import FolioError
from folio.store.availability import Availability
from folio.store.database import BACKGROUND, Database
from folio.store.dialects.base import RETRY
from folio.store.dialects.postgres import POSTGRES
from folio.store.pglisten import Listener
from folio.store.pgpool import ConnectionPool
from folio.store.program import Batch, Pause, Program, Rows, Stmt, Version
from folio.store.upkeep import Upkeep
from folio.store.upkeep import enabled as upkeep_enabled

STATEMENT_CACHE = 1024
# the application name of a listening session (`listen`)
LISTENER_NAME = "folio-listen"
# runs of a write that keeps losing deadlocks before its error is answered
RETRIES = 4

# Each connection's settings. random_page_cost: the planner's default (4) prices a random
# page read as a disk seek, and then prefers a whole scan of a link table to 25 index
# probes; a served database is in memory (the shared buffers or the OS cache), where 1.1
# is the usual setting. `FOLIO_PG_RANDOM_PAGE_COST` changes it ("" keeps the server's).
# DateStyle: dates and timestamps are read as their text (schema.kinds.temporal), whose
# form a server configured otherwise would change.
SESSION = {"timezone": "UTC", "DateStyle": "ISO, MDY"}
_cost = os.environ.get("FOLIO_PG_RANDOM_PAGE_COST", "1.1")
if _cost:
    SESSION["random_page_cost"] = _cost


# Long values (texts, rich texts, JSON) are compressed with LZ4 where the server has it
# (PostgreSQL 14+ built with it), instead of the default pglz: reading back a compressed
# 1 KB text cost pglz about 5 us per row, a third of a populate of a thousand articles,
# and LZ4 decompresses several times faster. Values written before keep their compression.
LZ4 = "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"


SNAPSHOT = "SELECT pg_current_snapshot()::text"

# seconds to open a connection before the database counts as unreachable (asyncpg's own
# default, 60, held every request that long when the server's host did not answer)
CONNECT_TIMEOUT = 5.0

# errors of the server's state or of the connection, not of the statement: the database
# is unavailable (a terminated backend, a server shutting down or starting, one out of
# connections, memory or disk, a broken socket)
OUTAGES: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.InsufficientResourcesError,
    asyncpg.InterfaceError,
    # a connection whose backend was terminated while it was idle, used before the
    # client saw it close ("cannot switch to state ...")
    asyncpg.InternalClientError,
    OSError,
    TimeoutError,
)


def default_pool_max() -> int:
    """Connections a process keeps at most, unless configured: three per core, at least 4
    and at most 10. More backends than that compete with the server's own process for the
    cores: on 2 cores, 10 connections made a 25-row page's p99 98-126 ms against 16-19 ms
    with 4 or 6, for the same throughput or less."""
    return min(10, max(4, 3 * (os.cpu_count() or 1)))


class PostgresDatabase(Database):
    def __init__(self, url: str, min_size: int = 1, max_size: int | None = None) -> None:
        self.dialect = POSTGRES
        # `?` -> `$n`, once per distinct text
        self._driver_sql = self.dialect.driver_sql
        self.url = url
        self.min_size = min_size
        self.max_size = max_size if max_size is not None else default_pool_max()
        self._pool: Any = None
        self._count = 0
        self.upkeep: Upkeep | None = None
        self.availability = Availability("the PostgreSQL database")

    async def start(self) -> None:
        settings = dict(SESSION)

        def connect() -> Any:
            # statements are prepared once per connection and shape (the text cache makes
            # the shapes few); room for an app's every shape
            return asyncpg.connect(
                self.url,
                server_settings=settings,
                statement_cache_size=STATEMENT_CACHE,
                timeout=CONNECT_TIMEOUT,
            )

        probe = await connect()
        try:
            if await probe.fetchval(LZ4):
                settings["default_toast_compression"] = "lz4"
        finally:
            await probe.close()
        pool = ConnectionPool(connect, self.max_size)
        await pool.start(self.min_size)
        self._pool = pool
        if upkeep_enabled():
            self.upkeep = Upkeep(self.url)
            self.upkeep.start()

    notifies = True

    async def listen(
        self,
        channel: str,
        callback: Callable[[], None],
        on_payload: Callable[[str], None] | None = None,
    ) -> Listener:
        """A LISTEN on a connection of its own (store.pglisten), reconnected after a loss;
        `on_payload`: called with each notification's payload instead of `callback`."""

        def connect() -> Any:
            # named, so that an operator sees what the session is (pg_stat_activity)
            settings = {"application_name": LISTENER_NAME}
            return asyncpg.connect(self.url, timeout=CONNECT_TIMEOUT, server_settings=settings)

        listener = Listener(connect, channel, callback, on_payload)
        listener.start()
        return listener

    async def close(self) -> None:
        if self.upkeep is not None:
            await self.upkeep.close()
            self.upkeep = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _one(self, conn: Any, stmt: Stmt) -> Any:
        if not BACKGROUND.get():
            self._count += 1
        sql = self._driver_sql(stmt.sql)
        try:
            if stmt.rows:
                return await conn.fetch(sql, *stmt.params)
            status: str = await conn.execute(sql, *stmt.params)
        except asyncpg.DataError as exc:
            # a value the database cannot hold or read (a NUL character in a text, a number
            # past the column's range): the client's input, answered as such
            error = self.dialect.folio_error(exc)
            if error is None:
                raise
            raise error from None
        tail = status.rsplit(" ", 1)[-1]
        return int(tail) if tail.isdecimal() else 0

    async def _run(self, conn: Any, program: Program, writing: bool = False) -> Any:
        try:
            step = next(program)
            while True:
                if isinstance(step, Batch):
                    result: Any = [await self._one(conn, s) for s in step.stmts]
                elif isinstance(step, Pause):
                    step.arrive()
                    await step.wait_async()
                    result = None
                elif isinstance(step, Version):
                    result = None if writing else await self._version(conn)
                elif isinstance(step, Rows):
                    if not BACKGROUND.get():
                        self._count += 1
                    await conn.copy_records_to_table(
                        step.table, records=step.rows, columns=list(step.columns)
                    )
                    result = len(step.rows)
                else:
                    result = await self._one(conn, step)
                step = program.send(result)
        except StopIteration as stop:
            return stop.value

    async def _version(self, conn: Any) -> str:
        """The token of the committed state: the current snapshot (`xmin:xmax:running
        ids`). Every commit or rollback of a transaction that wrote, in any process or
        session of the cluster, moves xmax or leaves the running list, so an equal snapshot
        means nothing was written in between; reads assign no transaction id and leave it
        as it is."""
        if not BACKGROUND.get():
            self._count += 1
        token: str = await conn.fetchval(SNAPSHOT)
        return token

    @asynccontextmanager
    async def _connection(self, writing: bool = False) -> AsyncIterator[Any]:
        """A connection of the pool for one program, given back whole; after an error
        other than an answer of the server or the program's own (a cancelled request, a
        broken socket: the connection may be mid-statement) it is closed instead."""
        pool = self._pool
        try:
            conn = await pool.acquire()
        except Exception as exc:
            # no connection could be opened: refused, timed out, turned away
            raise self._unavailable(exc, writing) from None
        healthy = False
        try:
            yield conn
            healthy = True
        except OUTAGES as exc:
            pool.release(conn, False)
            conn = None
            raise self._unavailable(exc, writing) from None
        except (asyncpg.PostgresError, FolioError):
            # the statement ended with an answer from the server, or the program stopped
            # between statements: the connection is idle and good
            healthy = True
            raise
        finally:
            if conn is not None:
                pool.release(conn, healthy)
        if self.availability.down_since is not None:
            self.availability.answered(writing)

    def _unavailable(self, exc: BaseException, writing: bool) -> FolioError:
        """The 503 for an outage; its first failure drops the idle connections."""
        if not self.availability.down:
            self._pool.discard_idle()
        return self.availability.failed(f"{type(exc).__name__}: {exc}".rstrip(": "), writing)

    async def read(self, program: Program) -> Any:
        async with self._connection() as conn:
            return await self._run(conn, program)

    async def write_one(self, stmt: Stmt) -> Any:
        async with self._connection(True) as conn:
            result = await self._one(conn, stmt)
        if self.upkeep is not None:
            self.upkeep.touched()
        return result

    async def write(self, program: Program | Callable[[], Program], light: bool = False) -> Any:
        attempts = RETRIES if callable(program) else 1
        for attempt in range(attempts):
            current = program() if callable(program) else program
            try:
                async with self._connection(True) as conn, conn.transaction():
                    result = await self._run(conn, current, writing=True)
                break
            except asyncpg.PostgresError as exc:
                # a deadlock or a serialization failure: the other transaction went
                # through; this one, rolled back, runs again
                if self.dialect.error_kind(exc) != RETRY or attempt + 1 == attempts:
                    raise
            await asyncio.sleep(0.005 * (attempt + 1))
        if self.upkeep is not None:
            self.upkeep.touched()
        return result
