"""The database interface the document core uses, and the factory for a configured URL."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from folio.errors import ValidationError
from folio.store.program import Program, Stmt


class Database(ABC):
    """Runs programs: reads on a reader connection, writes in one transaction."""

    dialect: str
    url: str

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def read(self, program: Program) -> Any:
        """Runs a read-only program and returns its result."""

    @abstractmethod
    async def write(self, program: Program | Callable[[], Program], light: bool = False) -> Any:
        """Runs a program in one transaction: committed if it returns, rolled back if it
        raises. Given as a function that makes the program, a write that loses a deadlock
        or a serialization conflict to another one is run again (PostgreSQL). `light`: a
        write known to be small (a few statements), which SQLite may run on the calling
        thread."""

    @abstractmethod
    async def write_one(self, stmt: Stmt) -> Any:
        """Runs one statement that is a whole write by itself (a single-row INSERT with
        nothing else to keep consistent with it): the statement is its own transaction, so
        none is opened around it (on PostgreSQL one round trip instead of three)."""

    def statements_run(self) -> int:
        """How many statements this database has run (tests assert statement budgets)."""
        return self._count

    _count = 0


def invalid_value(reason: str) -> ValidationError:
    """The answer to a value a database refused: named by kind, never with SQL text."""
    lowered = reason.lower()
    if "0x00" in lowered or "\\u0000" in lowered or "nul character" in lowered:
        message = "Text values cannot contain the NUL character"
    elif "range" in lowered or "too large" in lowered or "overflow" in lowered:
        message = "A number is out of the supported range"
    else:
        message = "Invalid value"
    return ValidationError(message, {"errors": [{"path": [], "message": message}]})


def open_database(
    url: str, app_dir: str | None = None, pool: tuple[int, int | None] | None = None
) -> Database:
    """The database of `url`; `pool`: PostgreSQL's (min, max) connections (SQLite has one
    writer and a reader per thread, whatever it says)."""
    if url.startswith(("postgres://", "postgresql://")):
        from folio.store.postgres import PostgresDatabase

        if pool is None:
            return PostgresDatabase(url)
        return PostgresDatabase(url, pool[0], pool[1])
    if url.startswith("sqlite:"):
        from folio.store.sqlite import SqliteDatabase

        return SqliteDatabase(url, app_dir)
    raise ValueError(f"unsupported database URL {url!r} (use sqlite:///path or postgresql://...)")
