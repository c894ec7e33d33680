"""The database interface the document core uses, and the factory for a configured URL."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from folio.store.program import Program


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
    async def write(self, program: Program) -> Any:
        """Runs a program in one transaction: committed if it returns, rolled back if it
        raises."""

    def statements_run(self) -> int:
        """How many statements this database has run (tests assert statement budgets)."""
        return self._count

    _count = 0


def open_database(url: str, app_dir: str | None = None) -> Database:
    if url.startswith(("postgres://", "postgresql://")):
        from folio.store.postgres import PostgresDatabase

        return PostgresDatabase(url)
    if url.startswith("sqlite:"):
        from folio.store.sqlite import SqliteDatabase

        return SqliteDatabase(url, app_dir)
    raise ValueError(f"unsupported database URL {url!r} (use sqlite:///path or postgresql://...)")
