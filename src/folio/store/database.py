"""The database interface the document core uses, the factory for a configured URL, and
what to say when that URL cannot be used (one line, without the password)."""

from __future__ import annotations

import errno
import importlib
import socket
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, Protocol
from urllib.parse import urlsplit

from folio.errors import ConfigError
from folio.startup import EnvironmentProblem
from folio.store.dialects.base import Dialect, invalid_value
from folio.store.program import Program, Stmt
from folio.store.urls import EXAMPLES, engine_of, shown_url

# True in the app's own background work (its webhook worker, its change and feed polls):
# what it runs is not counted by `statements_run`, which counts what requests cost
BACKGROUND: ContextVar[bool] = ContextVar("folio_background", default=False)


def background() -> None:
    """Marks the calling task (and the tasks it starts) as the app's background work."""
    BACKGROUND.set(True)


class Database(ABC):
    """Runs programs: reads on a reader connection, writes in one transaction. `dialect`:
    the database's SQL (store.dialects), which whatever builds statements asks."""

    dialect: Dialect
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
        """How many statements this database has run for requests, the app's background
        work aside (tests assert statement budgets)."""
        return self._count

    _count = 0

    # whether `listen` hears other sessions' notifications (PostgreSQL)
    notifies = False

    async def listen(
        self,
        channel: str,
        callback: Callable[[], None],
        on_payload: Callable[[str], None] | None = None,
    ) -> Listening | None:
        """Calls `callback()` on the loop at each notification on `channel` by any session
        (and once after each (re)connection of the listening session, for what it may have
        missed) until the returned handle is closed; `on_payload(payload)` instead at a
        notification when given. None where the database has no notifications (SQLite)."""
        return None


class Listening(Protocol):
    async def close(self) -> None: ...


def open_database(
    url: str, app_dir: str | None = None, pool: tuple[int, int | None] | None = None
) -> Database:
    """The database of `url`; `pool`: the (min, max) connections of a server database
    (SQLite has one writer and a reader per thread, whatever it says)."""
    engine = engine_of(url)
    if engine == "postgres":
        from folio.store.postgres import PostgresDatabase

        if pool is None:
            return PostgresDatabase(url)
        return PostgresDatabase(url, pool[0], pool[1])
    if engine == "sqlite":
        from folio.store.sqlite import SqliteDatabase

        return SqliteDatabase(url, app_dir)
    if engine == "mysql":
        try:
            # written by its own module, imported only for a MySQL URL
            module = importlib.import_module("folio.store.mysql")
        except ModuleNotFoundError as exc:
            if exc.name != "folio.store.mysql":
                raise ConfigError(
                    f"database {shown_url(url)}: the MySQL driver is not installed ({exc.name})"
                ) from None
            raise ConfigError(
                f"database {shown_url(url)}: MySQL and MariaDB are not available in this "
                "build of Folio (folio.store.mysql is missing)"
            ) from None
        mysql: Any = module.MySQLDatabase
        db: Database = mysql(url) if pool is None else mysql(url, pool[0], pool[1])
        return db
    scheme = url.partition(":")[0] if ":" in url else url
    raise ConfigError(f"database {scheme!r} is not supported (supported: {EXAMPLES})")


# PostgreSQL's answers that say the URL names something wrong (rather than that the
# server is away): an unknown role, a wrong password, a missing database
WRONG_URL_STATES = ("28000", "28P01", "3D000")


def connection_problem(exc: BaseException, url: str, where: str) -> ConfigError | None:
    """The start-up problem of a database that refused to open, on one line: the server
    cannot be reached (EnvironmentProblem) or the URL names what does not exist
    (ConfigError); None for anything else. `where`: where the URL comes from."""
    prefix = f"database {shown_url(url)} ({where})"
    state = getattr(exc, "sqlstate", None)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(state, str):
        if state in WRONG_URL_STATES:
            return ConfigError(f"{prefix}: {first}")
        return EnvironmentProblem(f"{prefix}: {first}")
    if isinstance(exc, socket.gaierror):
        host = urlsplit(url).hostname or url
        return EnvironmentProblem(f"{prefix}: unknown host {host}")
    if isinstance(exc, ConnectionRefusedError) or (
        isinstance(exc, OSError) and "Connect call failed" in str(exc)
    ):
        return EnvironmentProblem(f"{prefix}: connection refused (is the database server running?)")
    if isinstance(exc, PermissionError) or (
        isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EROFS)
    ):
        return EnvironmentProblem(f"{prefix}: permission denied ({exc.filename or first})")
    if isinstance(exc, TimeoutError):
        return EnvironmentProblem(f"{prefix}: no answer (timed out)")
    if isinstance(exc, OSError):
        reason = (exc.strerror or first).lower()
        return EnvironmentProblem(
            f"{prefix}: {exc.filename}: {reason}" if exc.filename else f"{prefix}: {reason}"
        )
    if isinstance(exc, sqlite3.Error):
        return EnvironmentProblem(f"{prefix}: {first}")
    if isinstance(exc, ValueError):  # the driver could not make sense of the URL
        return ConfigError(f"{prefix}: {first}")
    return None


__all__ = [
    "Database",
    "Listening",
    "connection_problem",
    "invalid_value",
    "open_database",
    "shown_url",
]
