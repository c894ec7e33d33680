"""MySQL 8 and MariaDB 10.6+ driver on asyncmy connections (a pool: store.pgpool's, the
connections adapted to it).

The driver, by measurement (bench/mysql_drivers.py, MariaDB 10.11 on this machine's two
cores, 8 tasks on a connection each): asyncmy with its server-side prepared statements
answers a point select at 18,500/s for 44 us of client CPU each, and a 25-row page at
5,000/s for 105 us, against aiomysql's 5,500/s for 182 us and 1,430/s for 672 us (asyncmy on
the text protocol: 9,700/s and 4,100/s). asyncmy is compiled (Cython) where aiomysql is pure
Python, and its binary protocol neither escapes values into the text nor parses numbers and
dates from it. Writes (BEGIN, INSERT, COMMIT) cost the same with either: the server's commit
bounds them.

Statements keep their `?` placeholders: each distinct text is prepared once per connection
(an LRU of STATEMENT_CACHE per connection) and run on the binary protocol, so no value is
ever written into SQL text and a `%` in the text means nothing to the driver.

Each connection is set up with: utf8mb4 in the dialect's binary collation (emoji and every
other character round-trip; comparisons are exact); strict SQL mode (`TRADITIONAL`: a value
a column cannot hold is refused, never truncated, answered 400) with `ANSI_QUOTES`,
`PIPES_AS_CONCAT` and `NO_BACKSLASH_ESCAPES` (the SQL Folio writes for the other databases
reads the same); the time zone UTC; READ COMMITTED. READ COMMITTED rather than InnoDB's
default REPEATABLE READ: each statement of a write sees what is committed when it runs, as
on PostgreSQL, whose default it is and for which the document service's check-then-write
steps (under their named locks) were written; and REPEATABLE READ's gap locks on the
checks and inserts of concurrent writes made InnoDB deadlocks much more likely.

Writes run in one transaction and are run again (up to RETRIES times) when InnoDB picks
them as a deadlock's victim or a lock wait times out. They take their connections from a pool
of their own, whose connections run with autocommit off: a write's first statement opens its
transaction, where a BEGIN took a round trip of its own (creates under wrk on MariaDB,
alternating runs: 2,202, 2,054, 2,121 and 2,114/s before, 2,441, 2,255, 2,275 and 2,221/s
after; the server's CPU 0.39 -> 0.36 ms each). Reads keep to autocommit connections: a read
on a connection with autocommit off would hold its tables' metadata locks (and so any schema
change) until that connection's next commit. Named locks (GET_LOCK, the dialect's
`lock`) are session-scoped in MySQL: a write that took one releases them all after its
COMMIT or ROLLBACK, so they behave as PostgreSQL's transaction-scoped advisory locks.

The token of the committed state (the read memo's `Version` step) is the sum of the 16
counters of `folio_version`: every write transaction adds one to its connection's counter
as it commits (the UPDATE and the COMMIT in one round trip, in the same transaction), so the
token moves exactly when a write of any connection of any host of the app commits, and two
equal tokens mean nothing was committed in between. (A single counter row made writes wait
for each other: 2,600 against 3,600 writes/s, bench/mysql_version.py.) Writes by other
programs do not move it: the memo sees them after Folio's next write (or an UPDATE of
`folio_version` by that program); MySQL has no cheap server-wide token of commits (no
PostgreSQL snapshot; GTIDs only with a binary log).

Every connection runs with subquery materialization off (`OPTIMIZER_SWITCH`). A relation
filter is `t.id IN (SELECT tl.source_id FROM <links> tl JOIN <targets> tx ON ... WHERE <the
condition on tx>)`, and which semi-join strategy the optimizer takes for it follows the
tables' statistics. On the bench's data (MariaDB 10.11) the deep filter, a category by name
and two tags by name, ran in 1.3-2.5 ms while the data was as seeded; after 10,000 tags
had been created its plan became a scan of the 1,600 articles probing both link tables and
both target tables for each: 9-13.7 ms a run, and the database's CPU for the bench's
`mixed` went from 2.2 to 4.7 ms a request. Without materialization the statement starts from
the selective side on both (the 20 categories, 198 links, 77 articles by primary key, their
tags, duplicates removed): 1.1-2.0 ms; the `mixed` database CPU 4,702 -> 2,216 us a request
after the creates, 2,250 -> 1,997 before them. (The other strategies, first match, loose
scan and duplicate weed-out, stay; a subquery that is not a semi-join is run per row through
its indexes.)

A server that cannot be reached, went away, is shutting down or is out of connections is
answered 503, logged once per outage (store.availability)."""

from __future__ import annotations

import asyncio
import os
import ssl
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import asyncmy
from asyncmy.constants import CLIENT
from asyncmy.errors import MySQLError

from folio.errors import FolioError
from folio.store.availability import Availability
from folio.store.database import BACKGROUND, Database
from folio.store.dialects.base import RETRY
from folio.store.dialects.mysql import (
    GATE_TABLE,
    LOCKING,
    MYSQL,
    VERSION_SLOTS,
    VERSION_TABLE,
    MySQLDialect,
    error_code,
)
from folio.store.pgpool import ConnectionPool
from folio.store.program import Batch, Pause, Program, Rows, Stmt, Version

# prepared statements kept per connection (the server's limit, max_prepared_stmt_count, is
# 16,382 by default for all its sessions)
STATEMENT_CACHE = 512
# runs of a write that keeps losing deadlocks before its error is answered
RETRIES = 5
# seconds to open a connection before the database counts as unreachable
CONNECT_TIMEOUT = 5.0

SQL_MODE = "TRADITIONAL,ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES"

# relation filters (`t.id IN (SELECT source_id FROM <links> JOIN <targets> ...)`) are never
# answered by materializing the subquery: see the module's docstring
OPTIMIZER_SWITCH = "materialization=off"

VERSION_READ = f'SELECT CAST(SUM(n) AS SIGNED) FROM "{VERSION_TABLE}"'
# the bump and the COMMIT in one round trip (a slot number is all it writes in)
VERSION_COMMIT = 'UPDATE "' + VERSION_TABLE + '" SET n = n + 1 WHERE slot = {slot}; COMMIT'
# after a write that took named locks: released in the COMMIT's (or ROLLBACK's) round trip,
# so no other write waits on them for a round trip more
RELEASE_AFTER = "; DO RELEASE_ALL_LOCKS()"

# the receive buffer a connection keeps while idle (the driver's own read size): a large
# result grows it, and the driver shrinks it only at the connection's next read
IDLE_BUFFER = 1 << 18

# the server's "this command is not supported in the prepared statement protocol"
UNSUPPORTED_PS = 1295

# the most rows one INSERT of a bulk write (`Rows`) carries
BULK_ROWS = 1000

# Client-side error numbers (2000-2999) and server answers that say the connection or the
# server failed, not the statement: can't connect, unknown host, server gone away, lost
# connection, too many connections, shutdown in progress, connection killed, out of
# memory, disk full, client disconnected for inactivity
OUTAGE_CODES = frozenset(
    {2002, 2003, 2005, 2006, 2013, 2055, 1040, 1053, 1077, 1927, 1037, 1041, 1021, 4031}
)


def default_pool_max() -> int:
    """Connections a process keeps at most, unless configured: as PostgreSQL's (three a
    core, 4 to 10)."""
    return min(10, max(4, 3 * (os.cpu_count() or 1)))


def connect_settings(url: str) -> dict[str, Any]:
    """asyncmy's connection arguments of a `mysql://user:password@host:port/database` URL
    (`?socket=/path` connects through a Unix socket, `?ssl=true` over TLS, the server's
    certificate checked); ValueError for a URL without a database."""
    parts = urlsplit(url)
    database = unquote(parts.path.lstrip("/"))
    if not database or "/" in database:
        raise ValueError("the URL names no database (mysql://user@host:3306/database)")
    settings: dict[str, Any] = {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 3306,
        "user": unquote(parts.username) if parts.username else "root",
        "password": unquote(parts.password) if parts.password else "",
        "database": database,
    }
    options = parse_qs(parts.query)
    if "socket" in options:
        settings["unix_socket"] = options["socket"][0]
    if options.get("ssl", ["false"])[0].lower() in ("true", "1", "required", "require"):
        settings["ssl"] = ssl.create_default_context()
    return settings


def outage(exc: BaseException) -> bool:
    """Whether an error is one of the connection or the server rather than the
    statement's."""
    if isinstance(exc, MySQLError):
        code = error_code(exc)
        return (
            code is None or code in OUTAGE_CODES or isinstance(exc, asyncmy.errors.InterfaceError)
        )
    return isinstance(exc, OSError | TimeoutError | asyncio.IncompleteReadError | EOFError)


class Connection:
    """One asyncmy connection with its prepared statements (most recently used last) and
    its counter slot in `folio_version`; shaped for store.pgpool's pool."""

    __slots__ = ("locked", "raw", "slot", "statements")

    def __init__(self, raw: Any, slot: int) -> None:
        self.raw = raw
        self.slot = slot
        self.statements: OrderedDict[str, Any] = OrderedDict()
        self.locked = False  # a named lock was taken in the current write

    def is_closed(self) -> bool:
        return not self.raw.connected

    def is_in_transaction(self) -> bool:
        return bool(self.raw.get_transaction_status())

    def terminate(self) -> None:
        self.raw.close()

    def trim(self) -> None:
        """Lets go of what the driver keeps of the last statement: its result (rows) and a
        receive buffer a large result grew; an idle connection of the pool holds neither."""
        raw = self.raw
        raw._result = None
        proto = raw._proto
        if proto is not None and len(proto.buffer) > IDLE_BUFFER and proto.pos >= proto.length:
            proto.buffer = bytearray(IDLE_BUFFER)
            proto.pos = proto.length = 0

    async def close(self) -> None:
        try:
            await self.raw.ensure_closed()
        except (MySQLError, OSError, RuntimeError):
            self.raw.close()

    async def prepared(self, sql: str) -> Any:
        """The statement of `sql`, prepared on this connection once."""
        statements = self.statements
        found = statements.get(sql)
        if found is not None:
            statements.move_to_end(sql)
            return found
        found = await self.raw.prepare(sql)
        statements[sql] = found
        if len(statements) > STATEMENT_CACHE:
            _, oldest = statements.popitem(last=False)
            await oldest.close()
        return found


class MySQLDatabase(Database):
    dialect: MySQLDialect

    def __init__(self, url: str, min_size: int = 1, max_size: int | None = None) -> None:
        self.url = url
        self.dialect = MYSQL
        self.settings: dict[str, Any] = {}
        self.min_size = min_size
        self.max_size = max_size if max_size is not None else default_pool_max()
        self._pool: Any = None  # reads (autocommit)
        self._write_pool: Any = None  # writes (autocommit off)
        self._count = 0
        self._serials = 0
        self._init = ""
        self.availability = Availability("the MySQL database")

    # ------------------------------------------------------------------ connections
    async def _connect(self, autocommit: bool = True) -> Connection:
        raw = await asyncmy.connect(
            **self.settings,
            charset="utf8mb4",
            autocommit=autocommit,
            sql_mode=f"'{SQL_MODE}'",  # written into SET as it is
            init_command=self._init or None,
            connect_timeout=CONNECT_TIMEOUT,
            # an UPDATE counts the rows it matched, as on the other databases (not only the
            # rows whose values changed); several statements in one text (VERSION_COMMIT:
            # values are only ever bound to prepared statements, never written into text)
            client_flag=CLIENT.FOUND_ROWS | CLIENT.MULTI_STATEMENTS,
        )
        self._serials += 1
        return Connection(raw, self._serials % VERSION_SLOTS)

    async def _connect_writer(self) -> Connection:
        return await self._connect(False)

    async def start(self) -> None:
        self.settings = connect_settings(self.url)
        try:
            probe = await self._connect()
        except MySQLError as exc:
            raise _start_problem(exc) from None
        try:
            rows = await self._query(probe, "SELECT VERSION()")
            self.dialect.configure(str(rows[0][0]))
            # the session's isolation, time zone and collation, set on every connection
            isolation = "tx_isolation" if self.dialect.mariadb else "transaction_isolation"
            self._init = (
                f"SET NAMES utf8mb4 COLLATE {self.dialect.collation}, time_zone = '+00:00', "
                f"SESSION {isolation} = 'READ-COMMITTED', "
                f"SESSION optimizer_switch = '{OPTIMIZER_SWITCH}'"
            )
            await self._query(probe, self._init)
            await self._own_table(probe, VERSION_TABLE, "slot INT PRIMARY KEY, n BIGINT NOT NULL")
            slots = ", ".join(f"({i}, 0)" for i in range(VERSION_SLOTS))
            await self._query(
                probe,
                f'INSERT INTO "{VERSION_TABLE}" VALUES {slots} ON DUPLICATE KEY UPDATE n = n',
            )
            await self._own_table(probe, GATE_TABLE, "id INT PRIMARY KEY")
            await self._query(
                probe, f'INSERT INTO "{GATE_TABLE}" VALUES (1) ON DUPLICATE KEY UPDATE id = 1'
            )
        finally:
            await probe.close()
        pool = ConnectionPool(self._connect, self.max_size)
        await pool.start(self.min_size)
        self._pool = pool
        self._write_pool = ConnectionPool(self._connect_writer, self.max_size)
        await self._write_pool.start(min(self.min_size, 1))

    async def _own_table(self, probe: Connection, name: str, columns: str) -> None:
        """One of the driver's own tables, made where it is missing. (Asked first: IF NOT
        EXISTS on a table that exists logs a note.)"""
        found = await self._query(
            probe,
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
            f"DATABASE() AND table_name = '{name}'",
        )
        if not found[0][0]:
            await self._query(
                probe, f'CREATE TABLE IF NOT EXISTS "{name}" ({columns}) ENGINE=InnoDB'
            )

    async def close(self) -> None:
        for pool in (self._pool, self._write_pool):
            if pool is not None:
                await pool.close()
        self._pool = self._write_pool = None

    @asynccontextmanager
    async def _connection(self, writing: bool = False) -> AsyncIterator[Connection]:
        """A connection of the pool for one program, given back whole; after an error of
        the connection or a cancelled request (the connection may be mid-statement) it is
        closed instead."""
        pool = self._write_pool if writing else self._pool
        try:
            conn: Connection | None = await pool.acquire()
        except Exception as exc:
            raise self._unavailable(exc, writing) from None
        assert conn is not None
        healthy = False
        try:
            yield conn
            healthy = True
        except FolioError:
            healthy = True  # the program stopped between statements
            raise
        except Exception as exc:
            if outage(exc):
                pool.release(conn, False)
                conn = None
                raise self._unavailable(exc, writing) from None
            healthy = isinstance(exc, MySQLError)  # the server's answer: the link is fine
            raise
        finally:
            if conn is not None:
                if healthy:
                    conn.trim()
                pool.release(conn, healthy)
        if self.availability.down_since is not None:
            self.availability.answered(writing)

    def _unavailable(self, exc: BaseException, writing: bool) -> FolioError:
        """The 503 for an outage; its first failure drops the idle connections."""
        if not self.availability.down:
            for pool in (self._pool, self._write_pool):
                if pool is not None:
                    pool.discard_idle()
        return self.availability.failed(f"{type(exc).__name__}: {exc}".rstrip(": "), writing)

    # ------------------------------------------------------------------ statements
    async def _query(self, conn: Connection, sql: str) -> Any:
        """A statement on the text protocol (set-up, transaction control)."""
        async with conn.raw.cursor() as cursor:
            await cursor.execute(sql)
            return await cursor.fetchall()

    async def _one(self, conn: Connection, stmt: Stmt) -> Any:
        if not BACKGROUND.get():
            self._count += 1
        sql = stmt.sql
        if sql in LOCKING:
            conn.locked = True
        params = stmt.params
        try:
            try:
                prepared = await conn.prepared(sql)
            except MySQLError as exc:
                if error_code(exc) != UNSUPPORTED_PS or params:
                    raise
                # a statement the server does not prepare (and has no values): as text
                return await self._text(conn, sql, stmt.rows)
            result = await prepared.execute(
                params if isinstance(params, tuple | list) else tuple(params)
            )
        except (MySQLError, ValueError) as exc:
            mapped = self.dialect.folio_error(exc)
            if mapped is not None:
                raise mapped from None
            raise
        if stmt.rows:
            rows = result.rows
            return list(rows) if rows else []
        return result.affected_rows

    async def _text(self, conn: Connection, sql: str, rows: bool) -> Any:
        async with conn.raw.cursor() as cursor:
            count = await cursor.execute(sql)
            return list(await cursor.fetchall()) if rows else count

    async def _insert_rows(self, conn: Connection, step: Rows) -> int:
        """A bulk write: multi-row INSERTs of at most BULK_ROWS rows (and 65,535 values)."""
        width = len(step.columns)
        per = max(1, min(BULK_ROWS, 65535 // max(width, 1)))
        names = ", ".join(self.dialect.quote(c) for c in step.columns)
        row = "(" + ", ".join("?" * width) + ")"
        done = 0
        rows = step.rows
        for start in range(0, len(rows), per):
            chunk = rows[start : start + per]
            sql = f"INSERT INTO {self.dialect.quote(step.table)} ({names}) VALUES " + ", ".join(
                [row] * len(chunk)
            )
            params = [value for r in chunk for value in r]
            await self._one(conn, Stmt(sql, params, False))
            done += len(chunk)
        return done

    async def _run(self, conn: Connection, program: Program, writing: bool = False) -> Any:
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
                    result = await self._insert_rows(conn, step)
                else:
                    result = await self._one(conn, step)
                step = program.send(result)
        except StopIteration as stop:
            return stop.value

    async def _version(self, conn: Connection) -> int:
        """The token of the committed state: the sum of the write counters."""
        rows = await self._one(conn, Stmt(VERSION_READ))
        return int(rows[0][0])

    async def _transaction(self, conn: Connection, program: Program) -> Any:
        """Runs `program` in one transaction on `conn` (of the writes' pool: autocommit off,
        so its first statement opens the transaction), its counter bumped with the COMMIT;
        named locks it took are released after the transaction ends. A connection that
        failed, or whose request was cancelled mid-statement, is not touched again: the
        pool closes it, and the server rolls back and releases with it."""
        conn.locked = False
        try:
            result = await self._run(conn, program, writing=True)
            # (with the COMMIT, in its round trip: not counted as a statement)
            await self._multi(conn, VERSION_COMMIT.format(slot=conn.slot))
        except Exception as exc:
            if not outage(exc):
                await self._multi(conn, "ROLLBACK")
            raise
        return result

    async def _multi(self, conn: Connection, sql: str) -> None:
        """Statements in one text and one round trip, the release of the transaction's
        named locks after them when it took any (their results read and dropped)."""
        if conn.locked:
            conn.locked = False
            sql += RELEASE_AFTER
        raw = conn.raw
        await raw.query(sql)
        while raw._result is not None and raw._result.has_next:
            await raw.next_result()

    # ------------------------------------------------------------------ programs
    async def read(self, program: Program) -> Any:
        async with self._connection() as conn:
            return await self._run(conn, program)

    async def write_one(self, stmt: Stmt) -> Any:
        def single() -> Program:
            result = yield stmt
            return result

        # a transaction of its own all the same: the version counter moves with it
        return await self.write(single)

    async def write(self, program: Program | Callable[[], Program], light: bool = False) -> Any:
        attempts = RETRIES if callable(program) else 1
        for attempt in range(attempts):
            current = program() if callable(program) else program
            try:
                async with self._connection(True) as conn:
                    return await self._transaction(conn, current)
            except Exception as exc:
                # the other transaction went through; this one, rolled back, runs again
                if self.dialect.error_kind(exc) != RETRY or attempt + 1 == attempts:
                    raise
            await asyncio.sleep(0.005 * (attempt + 1))
        raise AssertionError("unreachable")


class Refused(Exception):
    """The server's refusal to open a session, as its message alone, with its SQLSTATE
    (28000: the user or password is wrong)."""

    def __init__(self, message: str, sqlstate: str | None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def _start_problem(exc: MySQLError) -> BaseException:
    """A failure to connect at start-up, in the form store.database's `connection_problem`
    reads: the socket's own error for a server that cannot be reached (refused, unknown
    host, timed out); ValueError for a database that does not exist (the URL is wrong);
    the server's refusal otherwise, with its SQLSTATE."""
    cause = exc.__cause__
    if isinstance(cause, OSError):
        return cause
    message = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
    if error_code(exc) == 1049:
        return ValueError(message)
    state = getattr(exc, "sqlstate", None)
    return Refused(message, state if isinstance(state, str) else None)
