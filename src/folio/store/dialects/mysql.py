"""MySQL's and MariaDB's dialect (MySQL 8, MariaDB 10.6+).

What the connection's settings give (store.mysql sets them on every connection):
`ANSI_QUOTES` and `PIPES_AS_CONCAT`, so identifiers are double-quoted and `||` concatenates
as on the other databases; `NO_BACKSLASH_ESCAPES`, so `ESCAPE '\\'` reads as written; strict
mode (`TRADITIONAL`), so a value a column cannot hold is refused, never cut; READ COMMITTED;
UTC; utf8mb4 in a binary collation without padding, so that `=`, unique indexes and
`LIKE` compare exactly (case, accents and trailing spaces count) and case-insensitive
matches lowercase both sides, as on PostgreSQL.

What differs from PostgreSQL here: no arrays (IN lists), no RETURNING on MySQL 8 (the id
of an insert is LAST_INSERT_ID(); MariaDB has INSERT ... RETURNING), ON DUPLICATE KEY
UPDATE for upserts, session-scoped named locks (GET_LOCK, released by the driver after
each write transaction), no partial or covering indexes, no functional index parts on
MariaDB (expression terms of an index become virtual generated columns), foreign keys
declared at table level (a column's REFERENCES is ignored by MySQL), indexed text as
VARCHAR (TEXT needs a prefix length, which cannot enforce uniqueness), JSON kept as the
text written (MySQL's JSON type would reorder its keys), NULLs smallest in ORDER BY.

The token of the committed state is the sum of the `folio_version` counters, which every
write transaction of Folio bumps as it commits (store.mysql)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from folio.store.dialects.base import (
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
    TOO_LONG,
    UNIQUE,
    Converter,
    Dialect,
)
from folio.store.program import Program, execute, marks, query

# the table of counters whose sum is the token of the committed state (store.mysql keeps it)
VERSION_TABLE = "folio_version"
VERSION_SLOTS = 16
SNAPSHOT = f'(SELECT CAST(SUM(n) AS SIGNED) FROM "{VERSION_TABLE}")'

# A named lock (GET_LOCK): the driver recognizes the statements that take one (LOCKING)
# and releases the session's locks after the transaction ends. Its wait is bounded: a lock
# held past it is answered as a lost deadlock (the write is run again, then refused).
LOCK_WAIT = 60
# A named lock belongs to the whole server, where PostgreSQL's advisory locks belong to one
# database: its name carries the database's (or, past 36 characters, the name's MD5), so two
# apps on two databases of one server never wait for each other. At most 64 characters:
# "folio:", 36, ":" and a signed 64-bit key.
LOCK_NAME = (
    "CONCAT('folio:', IF(CHAR_LENGTH(DATABASE()) <= 36, DATABASE(), MD5(DATABASE())), ':', ?)"
)
LOCK_SQL = f"SELECT GET_LOCK({LOCK_NAME}, {LOCK_WAIT})"
# the texts of the statements that take a named lock (LOCK_SQL)
LOCKING: set[str] = {LOCK_SQL}

# The outbox's gate: one row (id 1) of a table of its own. A write that records events
# takes a shared lock on it in the recording statement and holds it through its commit; a
# reader of the outbox reads its last id, then takes the row's exclusive lock (granted
# once every write that held the shared lock then has ended) and lets it go at once
# (`commit_horizon`). Shared locks never wait for each other, so writes record and commit
# side by side, as on PostgreSQL; a named lock (exclusive only) made them commit one after
# the other, each holding it through its commit's flush to disk.
GATE_TABLE = "folio_gate"
GATE_SHARED = f'SELECT id FROM "{GATE_TABLE}" WHERE id = 1 LOCK IN SHARE MODE'

SYNC_LOCK_NAME = "schema-sync"

# the longest text key (VARCHAR): three of them fit in one index entry (3,072 bytes, 4 a
# character), with the numbers beside them
KEY_CHARS = 191
# bounded strings up to this length are VARCHAR (kept in the row, sorted in memory);
# longer ones LONGTEXT
VARCHAR_LIMIT = 255

_TYPES = {
    BOOLEAN: "TINYINT(1)",
    INTEGER: "INT",
    BIGINTEGER: "BIGINT",
    FLOAT: "DOUBLE",
    DECIMAL: "DECIMAL(10, 2)",
    DATE: "DATE",
    DATETIME: "DATETIME(3)",
    TIME: "TIME(6)",
    # JSON as the text written: MySQL's JSON type normalizes it (key order, spacing)
    JSON: "LONGTEXT",
    TEXT: "LONGTEXT",
}

# server error numbers -> what they mean to Folio
ERRORS = {
    1062: UNIQUE,  # duplicate entry for a unique key
    1451: FOREIGN_KEY,  # a row still referenced
    1452: FOREIGN_KEY,  # a reference to a missing row
    1216: FOREIGN_KEY,
    1217: FOREIGN_KEY,
    1406: TOO_LONG,  # data too long for a column
    1264: INVALID,  # out of range
    1690: INVALID,  # a computed value out of range
    1366: INVALID,  # incorrect value for a column (a text's bytes, a number's text)
    1292: INVALID,  # incorrect date or time value
    1367: INVALID,  # illegal value during parsing
    3140: INVALID,  # invalid JSON text (MySQL)
    4025: INVALID,  # a CHECK constraint failed (MariaDB)
    3819: INVALID,  # a CHECK constraint failed (MySQL)
    1213: RETRY,  # deadlock found
    1205: RETRY,  # lock wait timeout
    3058: RETRY,  # deadlock between named locks (MySQL)
}

# a column definition's REFERENCES clause (moved to the table as a FOREIGN KEY)
_REFERENCES = re.compile(r'\s+REFERENCES\s+("(?:[^"]|"")+"|\w+)\s*\(\s*("?\w+"?)\s*\)(.*)$', re.S)
_IDENT = re.compile(r'^("(?:[^"]|"")+"|\w+)$')
_EXCLUDED = re.compile(r'\bexcluded\.("(?:[^"]|"")+"|\w+)')
_QUOTED = re.compile(r'"((?:[^"]|"")+)"|\b(\w+)\b')


def _short(name: str) -> str:
    """A name within MySQL's 64 characters (a long one ends with a digest of itself)."""
    if len(name) <= 64:
        return name
    return name[:51] + "_" + hashlib.sha1(name.encode()).hexdigest()[:12]


def _to_bool(value: Any) -> Any:
    return None if value is None else bool(value)


def _str_or_none(value: Any) -> Any:
    return None if value is None else str(value)


def _float_or_none(value: Any) -> Any:
    return None if value is None else float(value)


def _iso_date(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _iso_datetime(value: Any) -> Any:
    """A DATETIME(3) read (naive, UTC) -> `2024-01-02T03:04:05.678Z`."""
    if not isinstance(value, datetime):
        return value
    return value.isoformat(timespec="milliseconds") + "Z"


def _iso_time(value: Any) -> Any:
    """A TIME read (the driver gives a timedelta) -> `HH:MM:SS[.ffffff]`, fractional
    seconds only when present (as PostgreSQL prints a time)."""
    if isinstance(value, time):
        moment = value
    elif isinstance(value, timedelta):
        seconds = int(value.total_seconds())
        moment = time(seconds // 3600 % 24, seconds // 60 % 60, seconds % 60, value.microseconds)
    else:
        return value
    text = moment.strftime("%H:%M:%S")
    if moment.microsecond:
        text += "." + f"{moment.microsecond:06d}".rstrip("0")
    return text


def split_terms(expr: str) -> list[str]:
    """The comma-separated terms of an index's column list (commas inside parentheses or
    quotes belong to their term)."""
    terms: list[str] = []
    depth = 0
    quoted: str | None = None
    start = 0
    for i, ch in enumerate(expr):
        if quoted is not None:
            if ch == quoted:
                quoted = None
        elif ch in "\"'":
            quoted = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            terms.append(expr[start:i].strip())
            start = i + 1
    terms.append(expr[start:].strip())
    return [t for t in terms if t]


def _unwrap(term: str) -> str:
    """An expression term without the parentheses that enclose it whole."""
    while term.startswith("(") and term.endswith(")"):
        depth = 0
        for i, ch in enumerate(term):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(term) - 1:
                return term
        term = term[1:-1].strip()
    return term


class MySQLDialect(Dialect):
    name = "mysql"
    title = "MySQL"

    arrays = False
    update_returning = False
    one_writer = False
    embedded = False
    index_hints = False
    partial_indexes = False
    covering_indexes = False
    # InnoDB's keys take up to 3,072 bytes (each text counted at 4 bytes a character, plus
    # its length and NULL flag) and 16 parts; the list key (locale, published_at, id) takes
    # 781 and 3
    carried_key_bytes = 3072 - 781
    carried_key_parts = 16 - 3
    nulls_largest = False
    # The token of the committed state is read by a statement of its own (the read memo's
    # `Version` step), not carried by the page's rows: the gated page's form, `(page ORDER
    # BY ...) UNION ALL SELECT <the gate's row>`, loses its order on MySQL, which drops an
    # ORDER BY inside a union's member
    snapshots = False
    literal_first_limit = False
    materialized_cte = False
    # a page's ids in a derived table (MySQL refuses LIMIT in an IN subquery)
    deferred_pages = True
    # a `$containsi` page sorted by date: 1.33 -> 1.0 ms of MariaDB's CPU
    derived_sort_keys = True
    # a page carries its total (a window count): page 4 of 1,600 articles and its total,
    # 0.575 -> 0.525 ms of MariaDB's CPU and one round trip less than a count beside it.
    # Where the memo is on, an unfiltered page's total is remembered under the counters'
    # sum instead: a first page of 1,600 articles cost MariaDB 0.77 ms with its window
    # count, 0.27 ms with the total handed back, 0.53 ms when it counts anew
    counted_pages = True
    remembered_totals = True
    totals_need_memo = True
    # the components of a replaced version, of four types: one DELETE instead of four
    multi_table_delete = True
    unordered_joins = True
    skip_locked = True
    notifications = False
    native_booleans = False
    text_temporals = False
    # the server's limit is 65,535 placeholders a statement
    max_params = 65535

    def __init__(self) -> None:
        # the flavour, known once connected (`configure`); MySQL 8 until told otherwise
        self.mariadb = False
        self.version = ""
        # MariaDB 10.5+ has INSERT/DELETE ... RETURNING; MySQL has none
        self.returning = False  # type: ignore[misc]
        self.collation = "utf8mb4_0900_bin"

    def configure(self, version: str) -> None:
        """Set by the driver at start-up, before any statement runs, from the server's
        `VERSION()` (`10.11.6-MariaDB-...`, `8.0.36`). What depends on the flavour is read
        when a statement is made (an insert's id, DDL), never kept in a statement cache
        built before."""
        self.version = version
        self.mariadb = "mariadb" in version.lower()
        self.returning = self.mariadb  # type: ignore[misc]
        self.title = "MariaDB" if self.mariadb else "MySQL"  # type: ignore[misc]
        # binary, NO PAD: exact comparisons ('a' <> 'a ', 'a' <> 'A')
        self.collation = "utf8mb4_nopad_bin" if self.mariadb else "utf8mb4_0900_bin"

    # ------------------------------------------------------------------ text
    def text_cast(self, expr: str) -> str:
        return f"CAST({expr} AS CHAR)"

    def snapshot_expr(self) -> str:
        return SNAPSHOT

    def distinct(self, a: str, b: str, negated: bool = False) -> str:
        # `<=>`: equality that holds between two NULLs (MySQL has no IS DISTINCT FROM)
        return f"({a} <=> {b})" if negated else f"NOT ({a} <=> {b})"

    def param_cast(self, family: str) -> str:
        if family in (INTEGER, BIGINTEGER):
            return "CAST(? AS SIGNED)"
        if family in (TEXT, STRING):
            return "CAST(? AS CHAR)"
        return "?"

    def now_ms(self) -> tuple[str, list[Any]]:
        # the statement's clock (constant within it), in milliseconds
        return "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)", []

    # ------------------------------------------------------------------ writes
    def insert_id(self, sql: str, params: Sequence[Any] = ()) -> Program:
        if self.returning:
            rows = yield query(f"{sql} RETURNING id", params)
            return int(rows[0][0]) if rows else None
        count = yield execute(sql, params)
        if not count:
            return None
        rows = yield query("SELECT LAST_INSERT_ID()")
        return int(rows[0][0])

    def insert_ids(self, sql: str, params: Sequence[Any], count: int) -> Program:
        if self.returning:
            rows = yield query(f"{sql} RETURNING id", params)
            return sorted(int(r[0]) for r in rows)
        inserted = yield execute(sql, params)
        if not inserted:
            return []
        # the ids of one multi-row INSERT ... VALUES are consecutive (a "simple insert"
        # in every auto-increment lock mode), LAST_INSERT_ID() the first
        rows = yield query("SELECT LAST_INSERT_ID(), @@auto_increment_increment")
        first, step = int(rows[0][0]), int(rows[0][1])
        return [first + i * step for i in range(inserted)]

    def insert_default_id(self, table: str) -> Program:
        sql = f"INSERT INTO {self.quote(table)} () VALUES ()"
        new_id: int | None = yield from self.insert_id(sql)
        assert new_id is not None
        return new_id

    def upsert(
        self,
        table: str,
        columns: Sequence[str],
        keys: Sequence[str],
        updates: Sequence[str] | dict[str, str] = (),
        where: str | None = None,
    ) -> str:
        """ON DUPLICATE KEY UPDATE (any unique key of the table: `keys` should be its only
        one besides the primary key). A conditional update sets each column to itself where
        `where` fails; MySQL evaluates the assignments in order, each seeing the ones before,
        so the columns `where` reads are assigned last (one of them at most)."""
        t = self.quote(table)
        cols = ", ".join(self.quote(c) for c in columns)
        head = f"INSERT INTO {t} ({cols}) VALUES ({marks(len(columns))}) ON DUPLICATE KEY UPDATE "
        if not updates:
            key = self.quote(keys[0])
            return head + f"{key} = {key}"
        if not isinstance(updates, dict):
            updates = {c: f"excluded.{self.quote(c)}" for c in updates}
        sets: list[tuple[str, str]] = []
        for column, value in updates.items():
            sets.append((column, _EXCLUDED.sub(lambda m: f"VALUES({m.group(1)})", value)))
        if where:
            read = {a or b for a, b in _QUOTED.findall(where)}
            late = [s for s in sets if s[0] in read]
            if len(late) > 1:
                raise ValueError(f"an upsert's condition reads several columns it sets: {where}")
            sets = [s for s in sets if s[0] not in read] + late
            parts = [f"{self.quote(c)} = IF({where}, {v}, {self.quote(c)})" for c, v in sets]
        else:
            parts = [f"{self.quote(c)} = {v}" for c, v in sets]
        return head + ", ".join(parts)

    def copy_row(
        self,
        table: str,
        columns: Sequence[str],
        given: Sequence[str] = (),
        targets: str = "= ?",
    ) -> tuple[str, str]:
        # MySQL's UPDATE has no FROM: the source row joined (its id, the first parameter,
        # comes before the others in the text too)
        t = self.quote(table)
        sets = self._copied_sets(columns, given, "d.")
        return (
            f"UPDATE {t} AS d JOIN {t} AS s ON s.id = ? SET {sets} WHERE d.id {targets}",
            "s" + ("g" if given else "") + ("t" if "?" in targets else ""),
        )

    def lock(self, key: int) -> Program:
        rows = yield query(LOCK_SQL, (str(key),))
        _locked(rows)

    def record_rows(
        self,
        table: str,
        columns: Sequence[str],
        params: Sequence[Any],
        count: int,
        lock: int | None = None,
        channel: str | None = None,
    ) -> Program:
        """Where ids must follow the order of commits (`lock`), the write first takes the
        gate's shared lock (GATE_TABLE): MariaDB in the INSERT itself, a derived table read
        before the rows are inserted, their ids returned; MySQL 8 (no RETURNING) by a
        statement of its own, then the rows."""
        if lock is None:
            ids: list[int] = yield from super().record_rows(table, columns, params, count)
            return ids
        if not self.returning:
            yield query(GATE_SHARED)
            ids = yield from super().record_rows(table, columns, params, count)
            return ids
        key = (f"\0gate {table}", tuple(columns), count)
        sql = self._rows_sql.get(key)
        if sql is None:
            names = ", ".join(self.quote(c) for c in columns)
            first = "SELECT " + ", ".join(f"? AS {self.quote(c)}" for c in columns)
            other = " UNION ALL SELECT " + marks(len(columns))
            sql = (
                f"INSERT INTO {self.quote(table)} ({names}) SELECT v.* FROM ({first}"
                f"{other * (count - 1)}) v CROSS JOIN ({GATE_SHARED}) g RETURNING id"
            )
            if len(self._rows_sql) < ROWS_SQL:
                self._rows_sql[key] = sql
        rows = yield query(sql, params)
        return sorted(int(r[0]) for r in rows)

    def commit_horizon(self, table: str) -> Program:
        """The last id of `table` committed when the statement reads it (before or after
        the gate's exclusive lock is granted): a write that took an id below it held the
        gate's shared lock from before it took that id, and has ended once the exclusive
        lock is granted. Read outside a transaction, the lock goes with the statement; new
        writes wait for it only while it waits (for writes in their last statements)."""
        rows = yield query(
            f"SELECT (SELECT COALESCE(MAX(id), 0) FROM {self.quote(table)}) "
            f'FROM "{GATE_TABLE}" WHERE id = 1 FOR UPDATE'
        )
        return int(rows[0][0])

    def reset_identity(self, table: str) -> Program:
        # InnoDB moves the table's next id past every id written: nothing to do (and an
        # ALTER TABLE would commit the transaction)
        return
        yield

    # ------------------------------------------------------------------ columns
    def column_type(self, family: str, length: int | None = None) -> str:
        if family == STRING:
            limit = VARCHAR_LIMIT if length is None else length
            return f"VARCHAR({limit})" if limit <= VARCHAR_LIMIT else "LONGTEXT"
        return _TYPES[family]

    def identity(self, big: bool = False) -> str:
        return f"{'BIGINT' if big else 'INT'} AUTO_INCREMENT PRIMARY KEY"

    def carried_hint(self, index: str) -> str:
        return f" USE INDEX ({self.quote(index)})"

    def text_key(self) -> str:
        return f"VARCHAR({KEY_CHARS})"

    def reference(self, table: str, cascade: bool = True) -> str:
        tail = " ON DELETE CASCADE" if cascade else ""
        return f"INT NOT NULL REFERENCES {self.quote(table)}(id){tail}"

    # ------------------------------------------------------------------ values
    def select_expr(self, family: str, column: str) -> str:
        if family == DATETIME:
            # the API's text (`2024-01-02T03:04:05.678Z`), as PostgreSQL's reads give it:
            # whatever reads a timestamp reads the same on both
            return f"CONCAT(LEFT(DATE_FORMAT({column}, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z')"
        return column

    def output(self, family: str) -> Converter | None:
        if family == BOOLEAN:
            return _to_bool
        if family == BIGINTEGER:
            return _str_or_none
        if family == DECIMAL:
            return _float_or_none
        if family == DATETIME:
            return _iso_datetime
        if family == DATE:
            return _iso_date
        if family == TIME:
            return _iso_time
        return None

    def bind_datetime(self, value: datetime) -> Any:
        # DATETIME holds no zone: UTC, as the session's time zone
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value

    def bind_decimal(self, value: float) -> Any:
        return Decimal(repr(value))

    def read_datetime(self, value: Any) -> Any:
        if isinstance(value, datetime) and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value

    # ------------------------------------------------------------------ schema
    current_schema = "DATABASE()"

    def existing_indexes(self, table: str) -> Program:
        rows = yield query(
            "SELECT DISTINCT index_name FROM information_schema.statistics WHERE "
            "table_schema = DATABASE() AND table_name = ? AND index_name <> 'PRIMARY'",
            (table,),
        )
        return {str(r[0]) for r in rows}

    def create_table(
        self, table: str, columns: Sequence[tuple[str, str]], if_missing: bool = False
    ) -> str:
        parts: list[str] = []
        keys: list[str] = []
        for name, definition in columns:
            column, foreign = self._split_reference(table, name, definition)
            parts.append(f"{self.quote(name)} {column}")
            if foreign:
                keys.append(foreign)
        body = ", ".join(parts + keys)
        exists = "IF NOT EXISTS " if if_missing else ""
        return (
            f"CREATE TABLE {exists}{self.quote(table)} ({body}) ENGINE=InnoDB "
            f"DEFAULT CHARSET=utf8mb4 COLLATE={self.collation}"
        )

    def add_column(self, table: str, column: str, definition: str) -> str:
        plain, foreign = self._split_reference(table, column, definition)
        sql = f"ALTER TABLE {self.quote(table)} ADD COLUMN {self.quote(column)} {plain}"
        if not foreign:
            return sql
        index, key = foreign.split(", ", 1)
        return f"{sql}, ADD {index}, ADD {key}"

    def _split_reference(self, table: str, column: str, definition: str) -> tuple[str, str]:
        """A column definition without its REFERENCES clause, and that clause as a
        table-level FOREIGN KEY with an index of its own ("" without one). InnoDB needs an
        index that leads with the column; the one it would make itself is dropped as soon
        as another index leads with it, and that one then cannot be dropped (an index
        retired by a later layout): the foreign key's own index stays."""
        found = _REFERENCES.search(definition)
        if found is None:
            return definition, ""
        target, key, tail = found.group(1), found.group(2), found.group(3).strip()
        name = self.quote(_short(f"{table}_{column}_fk"))
        foreign = f"FOREIGN KEY {name} ({self.quote(column)}) REFERENCES {target} ({key})"
        index = f"INDEX {name} ({self.quote(column)})"
        return definition[: found.start()], f"{index}, {foreign} {tail}".rstrip()

    def retype_column(self, table: str, column: str, definition: str) -> str | None:
        # strict mode refuses a value the new type cannot hold: the change is whole or none
        plain, _ = self._split_reference(table, column, definition)
        return f"ALTER TABLE {self.quote(table)} MODIFY COLUMN {self.quote(column)} {plain}"

    def create_index(
        self,
        name: str,
        table: str,
        expr: str,
        unique: bool = False,
        where: str | None = None,
        include: str | None = None,
    ) -> str:
        """An index; MySQL 8 indexes an expression term itself (a functional key part),
        MariaDB through a virtual generated column made with it (hidden from SELECT *)."""
        kind = "UNIQUE INDEX" if unique else "INDEX"
        terms = split_terms(expr)
        if not self.mariadb or all(_IDENT.match(t) for t in terms):
            return f"CREATE {kind} {self.quote(name)} ON {self.quote(table)} ({expr})"
        columns: list[str] = []
        adds: list[str] = []
        for term in terms:
            if _IDENT.match(term):
                columns.append(term)
                continue
            inner = _unwrap(term)
            generated = "fx_" + hashlib.sha1(inner.encode()).hexdigest()[:12]
            adds.append(
                f"ADD COLUMN IF NOT EXISTS {self.quote(generated)} {self._generated_type(inner)} "
                f"AS ({inner}) VIRTUAL INVISIBLE"
            )
            columns.append(self.quote(generated))
        adds.append(f"ADD {kind} {self.quote(name)} ({', '.join(columns)})")
        return f"ALTER TABLE {self.quote(table)} " + ", ".join(adds)

    def _generated_type(self, expr: str) -> str:
        """The type of a generated column holding an index's expression term."""
        upper = expr.upper()
        if " IS NULL" in upper or " IS NOT NULL" in upper:
            return "TINYINT"
        if upper.startswith("COALESCE("):
            return self.text_key()
        raise ValueError(f"no column type known for the index expression {expr!r}")

    def drop_index(self, name: str, table: str) -> str:
        return f"DROP INDEX {self.quote(name)} ON {self.quote(table)}"

    def sync_lock(self) -> Program:
        rows = yield query(LOCK_SQL, (SYNC_LOCK_NAME,))
        _locked(rows)

    # ------------------------------------------------------------------ errors
    def error_kind(self, exc: BaseException) -> str | None:
        if isinstance(exc, ValueError) and "out of 64-bit range" in str(exc):
            return INVALID  # the driver cannot bind an integer past 64 bits
        if isinstance(exc, LockTimeout):
            return RETRY
        code = error_code(exc)
        return ERRORS.get(code) if code is not None else None


# the one MySQL dialect of the process (statement caches key on the dialect's identity)
MYSQL = MySQLDialect()


class LockTimeout(Exception):
    """A named lock was not granted in time (held by a write that did not end)."""


def _locked(rows: Any) -> None:
    if not rows or rows[0][0] != 1:
        raise LockTimeout("a named lock was not granted in time")


def error_code(exc: BaseException) -> int | None:
    """The server's error number of a driver error (asyncmy errors carry it first)."""
    args = getattr(exc, "args", ())
    if args and isinstance(args[0], int):
        return args[0]
    return None


__all__ = [
    "GATE_TABLE",
    "LOCKING",
    "LOCK_SQL",
    "MYSQL",
    "SNAPSHOT",
    "SYNC_LOCK_NAME",
    "VERSION_SLOTS",
    "VERSION_TABLE",
    "LockTimeout",
    "MySQLDialect",
    "error_code",
    "split_terms",
]
