"""Database programs: generators that yield statements and receive their results.

The document core writes each read or write as one generator, so the same logic runs on
SQLite (driven synchronously inside a worker thread: one thread hop per request) and on
PostgreSQL (driven with awaits on an asyncpg connection)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import Any

Row = Sequence[Any]


def marks(n: int) -> str:
    """`?, ?, ...`: the placeholders of an IN list of `n` values."""
    return ", ".join("?" * n)


class Stmt:
    """One statement with `?` placeholders; `rows` says whether its rows are wanted;
    `memo`: a read whose answer a database may keep and give again while nothing has been
    written (see `count_query`)."""

    __slots__ = ("memo", "params", "rows", "sql")

    def __init__(
        self, sql: str, params: Sequence[Any] = (), rows: bool = True, memo: bool = False
    ) -> None:
        self.sql = sql
        self.params = params
        self.rows = rows
        self.memo = memo


class Batch:
    """Several statements run in order; the program receives a list of row lists."""

    __slots__ = ("stmts",)

    def __init__(self, stmts: list[Stmt]) -> None:
        self.stmts = stmts


class Version:
    """Asks the database for a token of its committed state: two equal tokens mean that
    nothing was committed in between, so rows read under the first still hold under the
    second. The answer is None where a read may not be remembered (inside a transaction,
    whose uncommitted changes are its own)."""

    __slots__ = ()


VERSION = Version()


class Pause:
    """Holds a write's transaction open at this step while code outside the program runs
    (a document-service middleware after `next()`): `arrive()` says the step is reached;
    the driver then waits, on its writer thread (`wait_sync`) or its connection's task
    (`wait_async`), for the verdict; either raises to roll the write back. A program that
    yields one is never run on the event loop's own thread."""

    __slots__ = ("arrive", "wait_async", "wait_sync")

    def __init__(
        self,
        arrive: Callable[[], None],
        wait_sync: Callable[[], None],
        wait_async: Callable[[], Awaitable[None]],
    ) -> None:
        self.arrive = arrive
        self.wait_sync = wait_sync
        self.wait_async = wait_async


class Rows:
    """Many rows for one table, written in bulk (an import): PostgreSQL copies them (COPY,
    binary), SQLite runs one prepared INSERT over them. Values are ready bound parameters,
    one per column; the program receives the number of rows."""

    __slots__ = ("columns", "rows", "table")

    def __init__(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.table = table
        self.columns = tuple(columns)
        self.rows = rows

    def insert_sql(self, quote: Callable[[str], str]) -> str:
        """The INSERT of one row, names quoted by `quote` (the dialect's)."""
        names = ", ".join(quote(c) for c in self.columns)
        return f"INSERT INTO {quote(self.table)} ({names}) VALUES ({marks(len(self.columns))})"


Program = Generator[Stmt | Batch | Version | Pause | Rows, Any, Any]


def query(sql: str, params: Sequence[Any] = ()) -> Stmt:
    return Stmt(sql, params, True)


def count_query(sql: str, params: Sequence[Any] = ()) -> Stmt:
    """A count of a list: the one part of a page's read whose cost grows with the table
    rather than with the page, and one row to keep."""
    return Stmt(sql, params, True, True)


def execute(sql: str, params: Sequence[Any] = ()) -> Stmt:
    return Stmt(sql, params, False)
