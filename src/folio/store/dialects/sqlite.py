"""SQLite's dialect: one writer, no round trips, indexes that reads name (INDEXED BY),
GLOB for case-sensitive matches (its LIKE ignores ASCII case), dates and times kept as the
API's ISO text, booleans as 0 / 1, and the catalog in `sqlite_master`."""

from __future__ import annotations

import sqlite3
from typing import Any, ClassVar

from folio.store.dialects.base import (
    BIGINTEGER,
    BOOLEAN,
    DATE,
    DATETIME,
    DECIMAL,
    ESCAPE,
    FLOAT,
    FOREIGN_KEY,
    INTEGER,
    INVALID,
    JSON,
    STRING,
    TEXT,
    TIME,
    UNIQUE,
    Converter,
    Dialect,
    escape_like,
)
from folio.store.program import Program, execute, query

# the page cache during a bulk load (KiB)
LOAD_CACHE_KIB = 65_536

_TYPES = {
    BOOLEAN: "BOOLEAN",
    INTEGER: "INTEGER",
    BIGINTEGER: "INTEGER",
    FLOAT: "REAL",
    DECIMAL: "REAL",
    DATE: "TEXT",
    DATETIME: "TEXT",
    TIME: "TEXT",
    JSON: "TEXT",
    TEXT: "TEXT",
    STRING: "TEXT",
}


def _to_bool(value: Any) -> Any:
    return None if value is None else bool(value)


def _str_or_none(value: Any) -> Any:
    return None if value is None else str(value)


def _escape_glob(text: str) -> str:
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in text)


class SqliteDialect(Dialect):
    name = "sqlite"
    title = "SQLite"

    arrays = False
    returning = True
    update_returning = True
    one_writer = True
    embedded = True
    index_hints = True
    partial_indexes = True
    covering_indexes = False
    nulls_largest = False
    snapshots = False
    literal_first_limit = False
    # SQLite 3.35 reads `AS MATERIALIZED`; older libraries count with a window function
    materialized_cte: ClassVar[bool] = sqlite3.sqlite_version_info >= (3, 35, 0)
    unordered_joins = False
    deferred_pages = False
    skip_locked = False
    notifications = False
    native_booleans = False
    text_temporals = True
    max_params = 32766

    def match(self, col: str, negated: bool, insensitive: bool, shape: int) -> str:
        """Case-sensitive matches are GLOB (SQLite's LIKE ignores ASCII case), case-
        insensitive ones LIKE."""
        word = "LIKE" if insensitive else "GLOB"
        escape = " ESCAPE '\\'" if insensitive and shape & ESCAPE else ""
        return f"{col} {'NOT ' if negated else ''}{word} ?{escape}"

    def match_param(
        self, value: str, prefix: bool, suffix: bool, insensitive: bool, shape: int
    ) -> str:
        if insensitive:
            body, wild = escape_like(value), "%"
        else:
            body, wild = _escape_glob(value), "*"
        return (wild if prefix else "") + body + (wild if suffix else "")

    def version_flag(self, alias: str, draft: bool) -> str:
        # the list indexes carry the expression `(published_at IS NULL)`
        return f"({alias}.published_at IS NULL) = {1 if draft else 0}"

    def order_term(self, ref: str, desc: bool, expression: bool) -> str:
        """A column as `(c IS NULL), c`, the key of its sort index (ORDER BY must write the
        index's terms for SQLite to walk it); a subquery with NULLS FIRST / LAST."""
        direction = "DESC" if desc else "ASC"
        if expression:
            return f"{ref} {direction} " + ("NULLS FIRST" if desc else "NULLS LAST")
        return f"({ref} IS NULL) {direction}, {ref} {direction}"

    def index_hint(self, index: str) -> str:
        return f" INDEXED BY {self.quote(index)}"

    def begin_bulk_load(self) -> Program:
        """A larger page cache: index pages stay in memory between batches."""
        rows = yield query("PRAGMA cache_size")
        yield execute(f"PRAGMA cache_size = -{LOAD_CACHE_KIB}")
        return int(rows[0][0])

    def end_bulk_load(self, saved: Any) -> Program:
        if saved is not None:
            yield execute(f"PRAGMA cache_size = {int(saved)}")

    # ------------------------------------------------------------------ columns
    def column_type(self, family: str, length: int | None = None) -> str:
        return _TYPES[family]

    def identity(self, big: bool = False) -> str:
        return "INTEGER PRIMARY KEY AUTOINCREMENT"

    def small_int(self) -> str:
        return "INTEGER"

    # ------------------------------------------------------------------ values
    def output(self, family: str) -> Converter | None:
        if family == BOOLEAN:
            return _to_bool
        if family == BIGINTEGER:
            return _str_or_none
        return None

    # ------------------------------------------------------------------ schema
    def existing_tables(self) -> Program:
        rows = yield query("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {str(r[0]) for r in rows}

    def existing_columns(self, table: str) -> Program:
        rows = yield query(f"PRAGMA table_info({self.quote(table)})")
        return {str(r[1]): str(r[2]).lower() for r in rows}

    def existing_indexes(self, table: str) -> Program:
        rows = yield query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", (table,)
        )
        return {str(r[0]) for r in rows}

    def ping(self) -> str:
        # SQLite answers `SELECT 1` without reading its file
        return "SELECT count(*) FROM sqlite_master"

    # ------------------------------------------------------------------ errors
    def error_kind(self, exc: BaseException) -> str | None:
        if isinstance(exc, OverflowError):  # an integer past 64 bits
            return INVALID
        if isinstance(exc, sqlite3.IntegrityError):
            text = str(exc)
            if text.startswith("UNIQUE"):
                return UNIQUE
            if text.startswith("FOREIGN KEY"):
                return FOREIGN_KEY
        return None


SQLITE = SqliteDialect()
