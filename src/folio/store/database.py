"""The database interface the document core uses, the factory for a configured URL, and
what to say when that URL cannot be used (one line, without the password)."""

from __future__ import annotations

import errno
import socket
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from folio.errors import ConfigError, ValidationError
from folio.startup import EnvironmentProblem
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

    # whether `listen` hears other sessions' notifications (PostgreSQL)
    notifies = False

    async def listen(self, channel: str, callback: Callable[[], None]) -> Listening | None:
        """Calls `callback()` on the loop at each notification on `channel` by any session
        (and once after each (re)connection of the listening session, for what it may have
        missed) until the returned handle is closed; None where the database has no
        notifications (SQLite)."""
        return None


class Listening(Protocol):
    async def close(self) -> None: ...


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
    scheme = url.partition(":")[0] if ":" in url else url
    raise ConfigError(
        f"database {scheme!r} is not supported (supported: sqlite:///path/to/file.db, "
        "postgresql://user@host:5432/database)"
    )


def shown_url(url: str) -> str:
    """The URL without its password."""
    if url.startswith("sqlite:"):
        return url
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


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
