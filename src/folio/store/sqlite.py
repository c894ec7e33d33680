"""SQLite driver: WAL, memory-mapped reads. Reads run on the event loop's thread by
default: measured on the list benchmarks, the hop to a worker thread and the contention for
the GIL cost far more than the statements themselves (a 25-row page: 1,630 req/s inline vs
600 on a reader pool). `FOLIO_SQLITE_READERS=N` moves them to a pool of N threads for apps
whose queries are long enough to stall the loop. Writes always run on one writer thread,
so that a long one never stalls the other requests, on a connection the loop's thread reads
on whenever the writer thread is not using it (`_main`); small ones run on the loop's thread
when that one is idle, and the one-statement writes of one loop iteration
(creates of one row, under load) share one commit: 2,800 -> 3,900 creates/s under wrk.
Writes queued for the writer thread together run in one transaction, each in a savepoint
of its own: updates of published articles under wrk, 570-600 -> 1,150/s. The log is copied
back into the database on a third thread (`_checkpoint`): creates 6,500-6,900 -> 7,200-7,700/s
with the same p99, updates 1,150 -> 1,400-1,500/s."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from folio.caches import BoundedCache, weigh
from folio.store.availability import guard_sqlite
from folio.store.database import BACKGROUND, Database
from folio.store.dialects.sqlite import SQLITE
from folio.store.program import Batch, Pause, Program, Rows, Stmt, Version

log = logging.getLogger("folio")

T = TypeVar("T")

READERS = int(os.environ.get("FOLIO_SQLITE_READERS", "0") or 0)
# Reads run inline, each request's whole on one turn of the event loop; the loop looks at its
# sockets (sends what waits in their buffers, takes new requests) only between turns. Once
# the reads of a turn have run this long (from its first read statement), a read waits for
# the next turn before its next statement, so a turn lasts about this long plus one
# statement. Under wrk, a 6 MB answer (1,300 whole articles) otherwise waited through many
# turns of others' reads to leave its buffer: p99 0.8-1.2 s for a median of 190 ms, against
# 286-310 ms, with the same throughput; a 440 KB one's p99 117-142 -> 63-87 ms. (An earlier
# form of this rule cost the deep populate a tenth of its throughput at 5 ms.)
SLICE = 0.010
# The log is copied back into the database on a thread of its own (`_checkpoint`) once this
# many rows have been written since the last copy began: the commits that did it inline (every
# 250 pages) cost the serving thread a quarter of a create's time under wrk. Once the log has
# grown to RESTART_FRAMES pages (16 MB) without starting over, writes wait while it does.
CHECKPOINT_ROWS = 256
RESTART_FRAMES = 4096


def sqlite_path(url: str, app_dir: str | None) -> str:
    """`sqlite:///relative/to/app.db` (three slashes) or `sqlite:////absolute.db` (four)."""
    rest = url.split(":", 1)[1]
    if rest.startswith("//"):
        rest = rest[2:]
    if rest.startswith("/"):
        rest = rest[1:]
    if rest in ("", ":memory:"):
        raise ValueError("SQLite needs a file: an in-memory database cannot be shared")
    path = Path(rest)
    if not path.is_absolute():
        path = Path(app_dir or ".") / path
    return str(path)


class SqliteDatabase(Database):
    def __init__(self, url: str, app_dir: str | None = None) -> None:
        self.dialect = SQLITE
        self.url = url
        self.path = sqlite_path(url, app_dir)
        self._local = threading.local()
        # the programs of the app's background work sent to a thread (by id): what they
        # run there is not counted (`statements_run`)
        self._quiet: set[int] = set()
        self._threaded = READERS > 0
        self._readers = ThreadPoolExecutor(max(READERS, 1), thread_name_prefix="folio-sqlite-r")
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="folio-sqlite-w")
        self._checkpointer = ThreadPoolExecutor(1, thread_name_prefix="folio-sqlite-c")
        self._changed = 0  # rows written since the last checkpoint began
        self._checkpointing = False  # one is under way or due
        self._restart_due = False  # the log is long: the next write starts it over
        self._count = 0
        self._pending = 0  # writes sent to the writer thread and not finished
        self._queue: deque[tuple[Program, asyncio.Future[Any]]] = deque()  # for the writer
        self._queue_lock = threading.Lock()
        self._draining = False  # the writer thread is taking the queued writes
        self._group: list[tuple[Stmt, asyncio.Future[Any]]] = []  # write_one's, to commit
        self._written = 0  # moves before and after each write of this process
        self._serials = 0  # connections opened, each numbered for its version tokens
        self._serials_lock = threading.Lock()
        # by connection: its number, and its count of changed rows at its last commit
        self._serial_of: dict[int, int] = {}
        self._changes_of: dict[int, int] = {}
        # the connection the writer thread writes on and the loop's thread reads and
        # writes on whenever the writer thread is not using it (`_main`)
        self._main_conn: sqlite3.Connection | None = None
        self._main_lock = threading.Lock()
        # the writer thread waits for it: the loop's thread leaves it alone meanwhile
        self._main_wanted = False
        self._polled = 0.0  # when the current turn ran its first read statement
        self._ticking = False  # a tick is scheduled: a read has run in this turn
        # failures of the file or the disk answer 503, logged once per outage
        guard_sqlite(self)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA cache_size = -8000")
        # no commit copies the log back: the checkpoint thread does (_checkpoint)
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        # reads go through the OS page cache, shared by every connection, without copies
        conn.execute("PRAGMA mmap_size = 1073741824")
        with self._serials_lock:
            self._serials += 1
            self._serial_of[id(conn)] = self._serials
        return conn

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    def _take_main(self, wait: bool) -> bool:
        """Whether this thread now holds the shared connection (`_main_lock`): the writer
        thread (`wait`) waits for it, and from then on the loop's thread does not take it
        (a lock is not fair: between two of the loop's statements, the loop's thread could
        take it again before the waiting thread wakes); the loop's thread takes it only if
        it is free and not awaited."""
        if not wait:
            return not self._main_wanted and self._main_lock.acquire(blocking=False)
        self._main_wanted = True
        try:
            self._main_lock.acquire()
        finally:
            self._main_wanted = False
        return True

    def _on_shared(self, wait: bool, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` on the shared connection if this thread takes it (`_take_main`), else
        on this thread's own."""
        if self._take_main(wait):
            try:
                return work(self._main())
            finally:
                self._main_lock.release()
        return work(self._conn())

    def _main(self) -> sqlite3.Connection:
        """The shared connection (`_main_lock` held). A commit on one connection makes
        SQLite drop the page cache of every other one: a count of 1,600 published articles
        then cost a reader 250 us instead of 45 (its pages fetched anew). Writes on the
        writer thread's own connection did that to the loop's after each of them; on this
        one, the loop's reads keep their pages: `mixed` in process, 0.59-0.80 -> 0.44-0.56
        ms of CPU a request. Under wrk less (1,278-1,648 -> 1,395-2,234 req/s, within this
        machine's noise at times): the loop's thread keeps the GIL busy, so the writer
        thread holds the connection longer, and meanwhile the loop reads on its own. The
        loop's thread never waits for it: while the writer thread holds it, the loop's
        reads and writes use a connection of the loop's own."""
        conn = self._main_conn
        if conn is None:
            conn = self._main_conn = self._connect()
        return conn

    async def start(self) -> None:
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.close()

    async def close(self) -> None:
        def close_one() -> None:
            conn = getattr(self._local, "conn", None)
            if conn is not None:
                conn.close()
                self._local.conn = None

        close_one()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._writer, close_one)
        await loop.run_in_executor(self._checkpointer, close_one)
        self._readers.shutdown(wait=True)
        self._writer.shutdown(wait=True)
        self._checkpointer.shutdown(wait=True)
        with self._main_lock:
            if self._main_conn is not None:
                self._main_conn.close()
                self._main_conn = None

    def _run(self, conn: sqlite3.Connection, program: Program) -> Any:
        quiet = bool(self._quiet) and id(program) in self._quiet
        if quiet:
            self._local.quiet = True
        try:
            step = next(program)
            while True:
                step = program.send(self._step(conn, step))
        except StopIteration as stop:
            return stop.value
        finally:
            if quiet:
                self._local.quiet = False
                self._quiet.discard(id(program))

    def _counted(self) -> bool:
        """Whether the statement about to run counts (`statements_run`)."""
        return not (BACKGROUND.get() or getattr(self._local, "quiet", False))

    def _step(self, conn: sqlite3.Connection, step: Stmt | Batch | Version | Pause | Rows) -> Any:
        """One statement's rows, a batch's list of them, or the version token."""
        if isinstance(step, Rows):
            if self._counted():
                self._count += 1
            conn.executemany(step.insert_sql(self.dialect.quote), step.rows)
            return len(step.rows)
        if isinstance(step, Pause):
            step.arrive()
            step.wait_sync()
            return None
        if isinstance(step, Batch):
            return [self._one(conn, s) for s in step.stmts]
        if isinstance(step, Version):
            return self._version(conn)
        return self._one(conn, step)

    def _version(self, conn: sqlite3.Connection) -> tuple[int, int, int] | None:
        """This connection's token of the committed state: its serial (data versions of
        two connections are not comparable), this process's writes (`_written`, counted
        around each, so a write on this very connection shows) and `PRAGMA data_version`,
        which moves for this connection when any other one commits, in this process or
        another. None inside a transaction."""
        if conn.in_transaction:
            return None
        serial = self._serial_of[id(conn)]
        return (serial, self._written, conn.execute("PRAGMA data_version").fetchone()[0])

    def _one(self, conn: sqlite3.Connection, stmt: Stmt) -> Any:
        if self._counted():
            self._count += 1
        if stmt.memo and not conn.in_transaction:
            return self._remembered(conn, stmt)
        return self._execute(conn, stmt)

    def _execute(self, conn: sqlite3.Connection, stmt: Stmt) -> Any:
        try:
            cursor = conn.execute(stmt.sql, stmt.params)
        except OverflowError as exc:  # an integer past 64 bits: the client's input
            error = self.dialect.folio_error(exc)
            if error is None:
                raise
            raise error from None
        if stmt.rows:
            return cursor.fetchall()
        return cursor.rowcount

    def _remembered(self, conn: sqlite3.Connection, stmt: Stmt) -> Any:
        """A memo statement's rows (outside a transaction), run again only after a write:
        under another version token (`_version`). A count of a filtered list of 1,600
        articles costs 0.07-0.2 ms; the check costs a few microseconds."""
        memos: BoundedCache[tuple[tuple[int, int, int] | None, Any]] | None = getattr(
            self._local, "memos", None
        )
        if memos is None:
            memos = self._local.memos = BoundedCache(512, 1024 * 1024)
        token = self._version(conn)
        key = (stmt.sql, tuple(stmt.params))
        found = memos.get(key)
        if found is not None and found[0] == token:
            return found[1]
        rows = self._execute(conn, stmt)
        memos.put(key, (token, rows), weigh(key) + 64 * len(rows))
        return rows

    def _read_sync(self, program: Program) -> Any:
        return self._run(self._conn(), program)

    def _write_sync(self, program: Program, wait: bool = False) -> Any:
        """`program` in a transaction: on the shared connection (waiting for it where
        `wait`: the writer thread), else on this thread's own."""
        return self._on_shared(wait, lambda conn: self._write_on(conn, program))

    def _write_on(self, conn: sqlite3.Connection, program: Program) -> Any:
        self._written += 1
        self._catch_up(conn)
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = self._run(conn, program)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        finally:
            self._written += 1
        conn.execute("COMMIT")
        self._committed(conn)
        return result

    def _committed(self, conn: sqlite3.Connection) -> None:
        """After a write on `conn`: once this process has written CHECKPOINT_ROWS rows
        since the last checkpoint began, the next one begins on the checkpoint thread."""
        total = conn.total_changes
        self._changed += total - self._changes_of.get(id(conn), 0)
        self._changes_of[id(conn)] = total
        if self._changed >= CHECKPOINT_ROWS and not self._checkpointing:
            self._checkpointing = True
            self._changed = 0
            self._checkpointer.submit(self._checkpoint)

    def _checkpoint(self) -> None:
        """On the checkpoint thread, with a connection of its own: the log copied back into
        the database while writes go on (PASSIVE), the GIL released meanwhile. The log
        starts over only at a write that finds it all copied back, which a steady stream of
        writes never leaves time for: once it holds RESTART_FRAMES, the next write first
        copies back what was written during the copy (`_catch_up`), and starts it over. (A
        RESTART checkpoint here instead held every write on its busy timeout, whose sleeps
        took the p99 of creates under wrk from 5 to 22-30 ms.)"""
        try:
            conn = self._conn()
            _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            # SQLite syncs the pages copied only at a copy that reaches the log's end (the
            # catch-up): here, so that the catch-up finds them written (18 ms otherwise)
            fd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            if frames >= RESTART_FRAMES:
                self._restart_due = True
        except (sqlite3.Error, OSError) as exc:
            log.warning("SQLite checkpoint failed: %s", exc)
        finally:
            self._checkpointing = False

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        """Before a write, when the log is due to start over: the rest of it copied back
        on this thread, so that the write starts it over."""
        if self._restart_due:
            self._restart_due = False
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

    def _tick(self) -> None:
        """Runs in the loop's next turn after the one whose first read scheduled it."""
        self._ticking = False

    async def read(self, program: Program) -> Any:
        if not self._threaded:
            try:
                step = next(program)
                while True:
                    if not self._ticking:
                        # the turn's first statement of a read: the turn's reads are timed
                        # from here, and the tick marks the turn's end
                        self._polled = time.perf_counter()
                        self._ticking = True
                        asyncio.get_running_loop().call_soon(self._tick)
                    elif time.perf_counter() - self._polled > SLICE:
                        # scheduled after the tick, so the next turn runs the tick first
                        await asyncio.sleep(0)
                        continue
                    # each statement on the shared connection unless the writer thread
                    # is using it or waits for it (`_main`); inline: the reads' hot path
                    if self._take_main(False):
                        try:
                            result = self._step(self._main(), step)
                        finally:
                            self._main_lock.release()
                    else:
                        result = self._step(self._conn(), step)
                    step = program.send(result)
            except StopIteration as stop:
                return stop.value
        if BACKGROUND.get():
            self._quiet.add(id(program))
        return await asyncio.get_running_loop().run_in_executor(
            self._readers, self._read_sync, program
        )

    def _write_one_sync(self, stmt: Stmt) -> Any:
        return self._on_shared(False, lambda conn: self._write_one_on(conn, stmt))

    def _write_one_on(self, conn: sqlite3.Connection, stmt: Stmt) -> Any:
        self._written += 1
        self._catch_up(conn)
        try:
            return self._one(conn, stmt)
        finally:
            self._written += 1
            self._committed(conn)

    def _commit_group(self) -> None:
        group, self._group = self._group, []
        group = [(stmt, done) for stmt, done in group if not done.cancelled()]
        if not group:
            return
        if len(group) == 1:
            stmt, done = group[0]
            try:
                done.set_result(self._write_one_sync(stmt))
            except Exception as exc:
                done.set_exception(exc)
            return
        try:
            # each statement undoes its own changes when it fails, not the others'
            answers = self._write_group([_single(stmt) for stmt, _ in group], savepoints=False)
        except Exception as exc:
            answers = [(False, exc)] * len(group)
        _answer([done for _, done in group], answers)

    async def write_one(self, stmt: Stmt) -> Any:
        if not self._pending:
            # one commit for the one-statement writes of a loop iteration (under load,
            # requests come in bunches): each keeps its own statement's atomicity
            loop = asyncio.get_running_loop()
            done: asyncio.Future[Any] = loop.create_future()
            self._group.append((stmt, done))
            if len(self._group) == 1:
                loop.call_soon(self._commit_group)
            return await done
        return await self._queued(_single(stmt))

    async def write(self, program: Program | Callable[[], Program], light: bool = False) -> Any:
        if callable(program):
            program = program()
        if light and not self._pending:
            # a small write with none on the writer thread: here, at once. Under load the
            # hop to the thread costs more than the write (each statement gives up the GIL
            # and waits for it back): 1,570 creates/s through the thread, over 3,000 here
            return self._write_sync(program)
        # on the writer thread, with a connection of its own: a long write (a thousand
        # components) no longer holds every other request; sqlite3 releases the GIL while
        # SQLite works, so reads go on meanwhile
        return await self._queued(program)

    async def _queued(self, program: Program) -> Any:
        """`program`'s answer, run on the writer thread with the others queued beside it
        (`_drain`), counted as pending meanwhile."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        self._pending += 1
        if BACKGROUND.get():
            self._quiet.add(id(program))
        try:
            with self._queue_lock:
                self._queue.append((program, done))
                start = not self._draining
                self._draining = True
            if start:
                self._writer.submit(self._drain, loop)
            return await done
        finally:
            self._pending -= 1

    def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the writer thread: the queued writes, those queued together in one
        transaction (`_write_group`), until none is left. Under a stream of updates of
        published articles (each rewrites some 75 pages of tables and indexes), eight
        together write a third of the pages to the log that eight transactions do, and
        commit once."""
        while True:
            with self._queue_lock:
                if not self._queue:
                    self._draining = False
                    return
                group = [self._queue.popleft() for _ in range(min(len(self._queue), GROUP))]
            try:
                answers = self._write_group([program for program, _ in group], wait=True)
            except BaseException as exc:
                answers = [(False, exc)] * len(group)
            # a closed loop: nobody waits for the answers
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_answer, [done for _, done in group], answers)

    def _write_group(
        self, programs: list[Program], savepoints: bool = True, wait: bool = False
    ) -> list[tuple[bool, Any]]:
        """(succeeded, answer or exception) of each program, all in one transaction; each
        in a savepoint of its own, so that one that fails undoes its own changes only
        (`savepoints` False: programs of one statement each, which SQLite undoes whole when
        it fails). A failure that ends the transaction itself (a full disk, an I/O error)
        fails them all: none of their changes stays. On the shared connection (waiting for
        it where `wait`: the writer thread), else on this thread's own."""
        if len(programs) == 1:
            try:
                return [(True, self._write_sync(programs[0], wait))]
            except Exception as exc:
                return [(False, exc)]
        return self._on_shared(wait, lambda conn: self._group_on(conn, programs, savepoints))

    def _group_on(
        self, conn: sqlite3.Connection, programs: list[Program], savepoints: bool
    ) -> list[tuple[bool, Any]]:
        answers: list[tuple[bool, Any]] = []
        self._written += 1
        try:
            self._catch_up(conn)
            conn.execute("BEGIN IMMEDIATE")
            for program in programs:
                if savepoints:
                    conn.execute("SAVEPOINT w")
                try:
                    answer = self._run(conn, program)
                except Exception as exc:
                    if not conn.in_transaction:
                        raise  # SQLite rolled the whole transaction back: all fail
                    if savepoints:
                        conn.execute("ROLLBACK TO w")
                        conn.execute("RELEASE w")
                    answers.append((False, exc))
                else:
                    if savepoints:
                        conn.execute("RELEASE w")
                    answers.append((True, answer))
            conn.execute("COMMIT")
            self._committed(conn)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            self._written += 1
        return answers


# at most this many queued writes share a transaction: a write waits for the others of
# its group to run before its commit
GROUP = 32


def _single(stmt: Stmt) -> Program:
    rows = yield stmt
    return rows


def _answer(waiting: list[asyncio.Future[Any]], answers: list[tuple[bool, Any]]) -> None:
    """On the loop's thread: each waiting write's answer (a cancelled one is dropped)."""
    for done, (ok, value) in zip(waiting, answers, strict=True):
        if done.cancelled():
            continue
        if ok:
            done.set_result(value)
        else:
            done.set_exception(value)
