"""PostgreSQL's dialect: array parameters (`= ANY(?)`), `$n` placeholders, writers side by
side (transaction-scoped advisory locks order them), partial and covering indexes, NULLs
largest, the snapshot as the token of the committed state, LISTEN / NOTIFY, and values
formatted by the database where that is cheaper than in Python (timestamps)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import asyncpg

from folio.caches import BoundedCache
from folio.store.dialects.base import (
    ASCII_FOLD,
    BIGINTEGER,
    BOOLEAN,
    DATE,
    DATETIME,
    DECIMAL,
    FLOAT,
    FOREIGN_KEY,
    INTEGER,
    INVALID,
    JSON,
    RETRY,
    ROWS_SQL,
    STRING,
    TEXT,
    TIME,
    UNIQUE,
    Dialect,
)
from folio.store.program import Program, marks, query

_TYPES = {
    BOOLEAN: "BOOLEAN",
    INTEGER: "INTEGER",
    BIGINTEGER: "BIGINT",
    FLOAT: "DOUBLE PRECISION",
    DECIMAL: "NUMERIC(10, 2)",
    DATE: "DATE",
    DATETIME: "TIMESTAMPTZ(3)",
    TIME: "TIME",
    JSON: "JSON",
    TEXT: "TEXT",
    STRING: "TEXT",
}

_CASTS = {BIGINTEGER: "bigint", INTEGER: "int", TEXT: "text", STRING: "text"}

# (stored type, wanted definition) pairs an earlier layout made that sync converts in
# place, every value kept: JSON attributes were `jsonb` columns
RETYPES = frozenset({("jsonb", "JSON")})

# the advisory lock key schema sync takes
SYNC_LOCK = 7305411
# the advisory keys of `record_rows`' marks: this base and a table's last id (up to 2**48)
MARKS = 0x4D4B << 48

_numbered: BoundedCache[str] = BoundedCache(4096, 32 * 1024 * 1024)


def to_numbered(sql: str) -> str:
    """`?` -> `$1, $2, ...` (the core never writes `?` inside literals)."""
    cached = _numbered.get(sql)
    if cached is not None:
        return cached
    parts = sql.split("?")
    out = [parts[0]]
    for i, part in enumerate(parts[1:], start=1):
        out.append(f"${i}")
        out.append(part)
    text = "".join(out)
    _numbered.put(sql, text, 200 + len(sql) + len(text))
    return text


def timestamp_expr(column: str) -> str:
    """A timestamp as the API writes it (`2024-01-02T03:04:05.678Z`). Formatted by the
    database: its plain text completed in Python cost the server more than to_char costs
    the database (a nested populate of 1,400 articles: 25.4 ms of both in all, either way)."""
    return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"


class PostgresDialect(Dialect):
    name = "postgres"
    title = "PostgreSQL"

    arrays = True
    returning = True
    update_returning = True
    writable_ctes = True
    events_with_rows = True
    one_writer = False
    embedded = False
    index_hints = False
    lookup_indexes = True
    partial_indexes = True
    covering_indexes = True
    nulls_largest = True
    snapshots = True
    remembered_totals = True
    literal_first_limit = True
    materialized_cte = False
    unordered_joins = True
    deferred_pages = True
    skip_locked = True
    notifications = True
    native_booleans = True
    text_temporals = False
    max_params = 32767

    # `?` -> `$n` (the function itself: no frame of its own per statement)
    driver_sql = staticmethod(to_numbered)

    def comparable(self, expr: str) -> str:
        # json has no equality operator: its text (as written) is compared
        return f"({expr})::text"

    def match(self, col: str, negated: bool, insensitive: bool, shape: int) -> str:
        """Case-insensitive matches are LIKE between the lowercased text and pattern: what
        ILIKE does under a UTF-8 locale, for about 20% less (ILIKE lowercases through a
        slower, general path: 0.56 against 0.45 us a title); an ASCII pattern (`ASCII_FOLD`)
        against the text lowercased under the "C" collation, several times faster."""
        if insensitive and shape & ASCII_FOLD:
            escape = " ESCAPE '\\'" if shape & 1 else ""
            return f'lower(({col}) COLLATE "C") {"NOT " if negated else ""}LIKE ?{escape}'
        return super().match(col, negated, insensitive, shape)

    def match_param(
        self, value: str, prefix: bool, suffix: bool, insensitive: bool, shape: int
    ) -> str:
        pattern = super().match_param(value, prefix, suffix, insensitive, shape)
        # an ASCII pattern is lowercased here, the text by lower(... COLLATE "C")
        return pattern.lower() if insensitive and shape & ASCII_FOLD else pattern

    def text_cast(self, expr: str) -> str:
        return f"CAST({expr} AS TEXT)"

    def snapshot_expr(self) -> str:
        return "(SELECT pg_current_snapshot()::text)"

    def param_cast(self, family: str) -> str:
        cast = _CASTS.get(family)
        return f"?::{cast}" if cast else "?"

    def now_ms(self) -> tuple[str, list[Any]]:
        # the database's clock, constant within a statement
        return "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint", []

    # ------------------------------------------------------------------ writes
    def lock(self, key: int) -> Program:
        yield query("SELECT pg_advisory_xact_lock(?)", (key,))

    def notify(self, channel: str) -> Program:
        yield query("SELECT pg_notify(?, '')", (channel,))

    def record_rows(
        self,
        table: str,
        columns: Sequence[str],
        params: Sequence[Any],
        count: int,
        lock: int | None = None,
        channel: str | None = None,
    ) -> Program:
        """One statement. Where ids must follow the order of commits (`lock`), the write
        first takes a shared mark (a transaction-scoped advisory lock, `MARKS` + the last
        id the table's sequence gave out): its ids will be above that, and
        `commit_horizon` keeps readers below it until the write ends. Shared marks never
        wait for each other, so writes commit side by side (the server flushes their
        commits together) where an exclusive lock held them in line through each commit's
        flush to disk. `channel` is notified in the same statement (delivered at commit).
        (Sent after the commit instead, in a transaction of its own, each notification
        took a transaction id, which moved the read memo's token a second time per write.)"""
        if lock is None:
            ids: list[int] = yield from super().record_rows(
                table, columns, params, count, lock, channel
            )
            return ids
        key = (f"\0mark {table} {channel}", tuple(columns), count)
        sql = self._rows_sql.get(key)
        if sql is None:
            names = ", ".join(self.quote(c) for c in columns)
            row = "(" + marks(len(columns)) + ")"
            values = ", ".join([row] * count)
            notify = f", pg_notify({self.literal(channel)}, '')" if channel is not None else ""
            sql = (
                f"WITH mark AS (SELECT pg_advisory_xact_lock_shared({MARKS} + "
                f"COALESCE(pg_sequence_last_value({self._sequence(table)}), 0)){notify}) "
                f"INSERT INTO {self.quote(table)} ({names}) SELECT v.* FROM (VALUES {values}) "
                f"AS v({names}) CROSS JOIN mark RETURNING id"
            )
            if len(self._rows_sql) < ROWS_SQL:
                self._rows_sql[key] = sql
        rows = yield query(sql, params)
        return sorted(int(r[0]) for r in rows)

    def json_member(self, column: str) -> str:
        # a json column is its own JSON value (the text as written)
        return column

    def insert_with_event(
        self,
        insert: str,
        returning: str,
        members: Sequence[tuple[str, str]],
        table: str,
        columns: Sequence[str],
        channel: str,
    ) -> str | None:
        """The row's INSERT, the mark and notification of `record_rows`, and the event's
        INSERT, as data-modifying CTEs of one statement: a create of one row and its event
        is one round trip where a transaction of its own took four (BEGIN, the row, the
        event, COMMIT). Measured directly on the driver, a tag's create: 612 -> 166 us of
        the client's CPU, 670 -> 360 us of the server's. The entry is built by
        json_build_object (keys in order, members as the row's select list reads them),
        which takes at most 100 arguments: a row of more members is left to two
        statements."""
        if 2 * len(members) > 100:
            return None
        entry = ", ".join(f"{self.literal(key)}, {expr}" for key, expr in members)
        values = ", ".join(
            "r.document_id" if c == "document_id" else "r.entry__" if c == "entry" else "?"
            for c in columns
        )
        names = ", ".join(self.quote(c) for c in columns)
        return (
            f"WITH r AS ({insert} RETURNING {returning}, json_build_object({entry})::text "
            f"AS entry__), mark AS (SELECT pg_advisory_xact_lock_shared({MARKS} + "
            f"COALESCE(pg_sequence_last_value({self._sequence(table)}), 0)), "
            f"pg_notify({self.literal(channel)}, '')), e AS (INSERT INTO {self.quote(table)} "
            f"({names}) SELECT {values} FROM r CROSS JOIN mark RETURNING id) "
            "SELECT r.*, e.id FROM r CROSS JOIN e"
        )

    def _sequence(self, table: str) -> str:
        """The regclass of `table`'s id sequence, as SQL."""
        name = self.literal(self.quote(table))
        return f"pg_get_serial_sequence({name}, 'id')::regclass"

    def commit_horizon(self, table: str) -> Program:
        """The greatest id of `table` below which no write that records with a `lock`
        (`record_rows`) is still running: first the last id its sequence gave out (a write
        that takes its mark after this reads a greater one), then the least mark held
        (that write's ids are above it); the rows up to it are read in a later statement,
        which sees every write whose mark was gone."""
        rows = yield query(f"SELECT COALESCE(pg_sequence_last_value({self._sequence(table)}), 0)")
        given = int(rows[0][0])
        rows = yield query(
            "SELECT MIN(((classid::bigint << 32) | objid::bigint) - ?) FROM pg_locks "
            "WHERE locktype = 'advisory' AND objsubid = 1 AND database = "
            "(SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND classid::bigint >= ? AND classid::bigint < ?",
            (MARKS, MARKS >> 32, (MARKS >> 32) + (1 << 16)),
        )
        held = rows[0][0]
        return given if held is None else min(given, int(held))

    def reset_identity(self, table: str) -> Program:
        quoted = self.quote(table)
        yield query(
            f"SELECT setval(pg_get_serial_sequence({self.literal(quoted)}, 'id'), "
            f"COALESCE((SELECT MAX(id) FROM {quoted}), 0) + 1, false)"
        )

    # ------------------------------------------------------------------ columns
    def column_type(self, family: str, length: int | None = None) -> str:
        return _TYPES[family]

    def identity(self, big: bool = False) -> str:
        return f"{'BIGINT' if big else 'INTEGER'} GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"

    # ------------------------------------------------------------------ values
    def select_expr(self, family: str, column: str) -> str:
        if family == DATETIME:
            return timestamp_expr(column)
        if family == DECIMAL:
            return f"{column}::float8"
        if family in (BIGINTEGER, DATE, TIME, JSON):
            # ISO text (dates, times: under the session's DateStyle, which store.postgres
            # sets; to_char's general formatter cost about four times as much); a json
            # column's text as written; a big integer as the string the API writes
            return f"{column}::text"
        return column

    def bind_decimal(self, value: float) -> Any:
        return Decimal(repr(value))

    # ------------------------------------------------------------------ schema
    def existing_indexes(self, table: str) -> Program:
        rows = yield query(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename = ?",
            (table,),
        )
        return {str(r[0]) for r in rows}

    def retype_column(self, table: str, column: str, definition: str) -> str | None:
        c = self.quote(column)
        return (
            f"ALTER TABLE {self.quote(table)} ALTER COLUMN {c} TYPE {definition} "
            f"USING {c}::{definition}"
        )

    def retypes(self, stored: str, definition: str) -> bool:
        return (stored, definition) in RETYPES

    def sync_lock(self) -> Program:
        yield query("SELECT pg_advisory_xact_lock(?)", (SYNC_LOCK,))

    # ------------------------------------------------------------------ errors
    def error_kind(self, exc: BaseException) -> str | None:
        if isinstance(exc, asyncpg.UniqueViolationError):
            return UNIQUE
        if isinstance(exc, asyncpg.ForeignKeyViolationError):
            return FOREIGN_KEY
        if isinstance(exc, asyncpg.DeadlockDetectedError | asyncpg.SerializationError):
            return RETRY
        if isinstance(exc, asyncpg.DataError):
            # a value the database cannot hold or read (a NUL character in a text, a
            # number past the column's range): the client's input, answered as such
            return INVALID
        return None


POSTGRES = PostgresDialect()
