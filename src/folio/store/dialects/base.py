"""The dialect of a database: everything Folio writes or reads differently per database.

One object per database (`sqlite.py`, `postgres.py`, `mysql.py`), made once when the
database is opened (`Database.dialect`) and handed to whatever builds SQL text: the
planner (`content/sql`), the layout and schema sync, the kinds (column types and value
forms, through `folio.schema.kinds.ValueDialect`, which this class satisfies). Nothing
outside `store/` knows which database it talks to: it asks the dialect, by capability
(`arrays`, `one_writer`, ...) or by method (`quote`, `one_of`, `lock`, ...), never by name.

Dialect decisions are taken when SQL text is built (text is cached per query shape) or at
start-up, never per row: methods that convert values return converters (`output`) that
the readers keep.

Statements keep `?` placeholders everywhere above the driver (`store.program`); the
driver turns them into its own with `driver_sql` (PostgreSQL `$n`, MySQL `%s`) once per
distinct text.

Statements that a database writes as several (an insert that answers its id where there
is no RETURNING, a lock where there is no advisory lock) are programs: generators that
yield statements and return the answer, run inside the caller's program with `yield from`.

The base class writes the common SQL (standard where the databases agree); a database
overrides what it writes otherwise."""

from __future__ import annotations

import time as clock
from collections.abc import Callable, Sequence
from datetime import date, datetime, time
from functools import cached_property
from typing import Any, ClassVar

from folio.errors import FolioError, ValidationError
from folio.store.program import Program, marks, query

Converter = Callable[[Any], Any]

# What a database's error means to Folio (`Dialect.error_kind`); None: nothing known
UNIQUE = "unique"  # a unique constraint or index refused a row
FOREIGN_KEY = "foreign_key"  # a reference to a missing row, or a row still referenced
TOO_LONG = "too_long"  # a value longer or larger than its column holds
INVALID = "invalid"  # a value the database cannot hold or read (NUL in a text, range)
RETRY = "retry"  # a deadlock or a serialization failure: the write may run again

# Value families: what the kinds store (`column_type`, `select_expr`, `output`)
BOOLEAN = "boolean"
INTEGER = "integer"  # 32 bits
BIGINTEGER = "biginteger"  # 64 bits, written to JSON as a string
FLOAT = "float"
DECIMAL = "decimal"  # 10 digits, 2 after the point, written to JSON as a number
DATE = "date"
DATETIME = "datetime"  # with milliseconds, in UTC
TIME = "time"
JSON = "json"  # stored as the JSON text written, read back as that text
TEXT = "text"  # unbounded text (text, rich text, password)
STRING = "string"  # bounded text (`length` characters): strings, emails, uids, enumerations
FAMILIES = frozenset(
    {BOOLEAN, INTEGER, BIGINTEGER, FLOAT, DECIMAL, DATE, DATETIME, TIME, JSON, TEXT, STRING}
)


class Dialect:
    """A database's SQL. Subclasses set the capabilities and override the methods whose
    SQL differs. One instance per kind of database, shared by its database objects; what
    it says does not change once statements are built from it (a dialect that learns its
    server's version does so at the database's start, before any request)."""

    # the database's name in messages and tests ("sqlite", "postgres", "mysql"); never
    # compared outside store/
    name: ClassVar[str] = ""
    # shown to people: "SQLite", "PostgreSQL", "MySQL"
    title: ClassVar[str] = ""

    # ------------------------------------------------------------------ capabilities
    # `one_of` binds one array parameter (`= ANY(?)`): a statement's text, and so its
    # prepared plan, is the same whatever the number of values
    arrays: ClassVar[bool] = False
    # INSERT and DELETE ... RETURNING (`insert_id`, `insert_ids` use it)
    returning: ClassVar[bool] = True
    # UPDATE ... RETURNING (MariaDB has INSERT/DELETE ... RETURNING but not this one)
    update_returning: ClassVar[bool] = True
    # data-modifying statements in WITH (`WITH a AS (DELETE ... RETURNING id) INSERT ...`),
    # whose changes the foreign keys check at the statement's end, and identity sequences
    # a statement may draw from (`nextval`): a publish is then two statements
    writable_ctes: ClassVar[bool] = False
    # a row's INSERT and its event's can be one statement (`insert_with_event`)
    events_with_rows: ClassVar[bool] = False
    # writes run one at a time (SQLite's one writer): a write's check-then-insert needs no
    # lock, and `lock` yields nothing
    one_writer: ClassVar[bool] = False
    # the database runs in the process: a statement costs no round trip, so several small
    # ones cost no more than one larger one (SQLite)
    embedded: ClassVar[bool] = False
    # reads may name their index (SQLite's INDEXED BY): the layout makes a covering scan
    # index and one sort index per small column, which list reads name (`index_hint`)
    index_hints: ClassVar[bool] = False
    # the layout makes a plain index per small attribute of a type without locales or
    # drafts (`layout.lookup_indexes`), and relation filters side by side that such indexes
    # find are read as one intersection of their sets (`where._intersected`)
    lookup_indexes: ClassVar[bool] = False
    # CREATE INDEX ... WHERE (partial indexes)
    partial_indexes: ClassVar[bool] = True
    # CREATE INDEX ... INCLUDE (columns carried for index-only reads)
    covering_indexes: ClassVar[bool] = False
    # without INCLUDE (MySQL): the list index carries small columns as trailing key parts,
    # within this many bytes of key after its own columns and `carried_key_parts` parts (0:
    # it carries none); `key_part_bytes` is what a column may take there
    carried_key_bytes: ClassVar[int] = 0
    carried_key_parts: ClassVar[int] = 0
    # NULLs sort after every value ascending (PostgreSQL), as the API answers; elsewhere
    # ORDER BY says so (`order_term`)
    nulls_largest: ClassVar[bool] = False
    # `snapshot_expr`: SQL whose value is a token of the committed state, readable inside
    # a statement (PostgreSQL's snapshot): pages carry it and remember counts under it
    snapshots: ClassVar[bool] = False
    # the first pages' LIMIT and OFFSET are written into the text (PostgreSQL plans a
    # statement anew at each run while they are parameters)
    literal_first_limit: ClassVar[bool] = False
    # WITH x AS MATERIALIZED (...): a common table expression kept once for the page
    # and its count (SQLite 3.35+)
    materialized_cte: ClassVar[bool] = False
    # a page's ids are found first, in a derived table read from the list index, and its
    # rows joined to them after (elsewhere, SQLite: `IN (subquery ... LIMIT)` forms)
    deferred_pages: ClassVar[bool] = True
    # the derived table of a sorted page carries its sort keys, and the page's rows are
    # ordered by those: MySQL sorts a join ordered by the table's own columns in a
    # temporary table holding every selected column (kept on disk where they include
    # texts), and a join ordered by its first table's columns by sorting that table first
    derived_sort_keys: ClassVar[bool] = False
    # a counted page carries its total (a window count) whether it is filtered or not: one
    # statement instead of the page and a count beside it (elsewhere an unfiltered page's
    # count is a statement of its own, or a remembered one, `remembered_totals`)
    counted_pages: ClassVar[bool] = False
    # an unfiltered page carries its total, counted in its statement only when the token of
    # `snapshot_expr` has moved since the total it is handed back was counted
    # (TypeReader.remember_total)
    remembered_totals: ClassVar[bool] = False
    # `snapshot_expr` moves with Folio's own writes only (MySQL's counters): totals are
    # remembered only where the read memo, which trusts the same token, is on
    totals_need_memo: ClassVar[bool] = False
    # DELETE a, b FROM ... : rows of several tables deleted by one statement
    multi_table_delete: ClassVar[bool] = False
    # a hash join of many link rows keeps no order: an inverse relation's rows are
    # sorted by position and source (PostgreSQL)
    unordered_joins: ClassVar[bool] = False
    # SELECT ... FOR UPDATE SKIP LOCKED
    skip_locked: ClassVar[bool] = False
    # LISTEN / NOTIFY between sessions (`notify`)
    notifications: ClassVar[bool] = False
    # booleans bound and read as bool (elsewhere 1 / 0)
    native_booleans: ClassVar[bool] = True
    # dates, times and timestamps kept as the API's ISO text (SQLite): the kinds format
    # them before binding and parse them after reading
    text_temporals: ClassVar[bool] = False
    # the most parameters one statement may bind
    max_params: ClassVar[int] = 32766

    # Dialects are keys of the planner's caches (statement texts per dialect), hashed by
    # identity (at C speed: no method runs per lookup), so each database's is made once
    # (the module's instance, `SQLITE`, `POSTGRES`) and shared by every database object.
    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    @cached_property
    def quoted(self) -> Quoted:
        """`quoted[name]`: `quote(name)`, each name quoted once (a dict lookup after; for
        statements built per request)."""
        return Quoted(self.quote)

    # ------------------------------------------------------------------ text
    def quote(self, name: str) -> str:
        """An identifier (table, column, index name) as the database reads it."""
        return '"' + name.replace('"', '""') + '"'

    def literal(self, text: str) -> str:
        """A string literal (for text that must be written in: an index predicate, a
        subquery placed where its parameters cannot follow)."""
        return "'" + text.replace("'", "''") + "'"

    def driver_sql(self, sql: str) -> str:
        """A statement's text with `?` placeholders as the driver takes it (the drivers
        call this, once per distinct text). The core never writes `?` inside literals."""
        return sql

    # ------------------------------------------------------------------ conditions
    def one_of(self, col: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """The condition that `col` is one of `values`, and its parameters."""
        if self.arrays:
            return f"{col} = ANY(?)", [list(values)]
        return f"{col} IN ({marks(len(values))})", list(values)

    def none_of(self, col: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """The condition that `col` is none of `values` (a non-empty list)."""
        if self.arrays:
            return f"{col} <> ALL(?)", [list(values)]
        return f"{col} NOT IN ({marks(len(values))})", list(values)

    def key_part_bytes(self, chars: int | None) -> int:
        """The most bytes a column takes in an index key: a text of up to `chars`
        characters, or (None) a number, a date or a flag (`carried_key_bytes`)."""
        return 10 if chars is None else 4 * chars + 3

    def compare(self, col: str, symbol: str) -> str:
        """A comparison of a column with one parameter (`=`, `<>`, `<`, ...). Text
        compares case-sensitively everywhere (a database whose collation ignores case
        says otherwise here)."""
        return f"{col} {symbol} ?"

    def match(self, col: str, negated: bool, insensitive: bool, shape: int) -> str:
        """A pattern match of a column (`$contains`, `$startsWith`, `$eqi`, ...) against
        one parameter made by `match_param`. `shape`: `ESCAPE` (the pattern holds an
        escaped wildcard, so the ESCAPE clause is needed) | `ASCII_FOLD` (a case-
        insensitive pattern that folding A-Z alone serves; `match_param` lowercased it)."""
        escape = " ESCAPE '\\'" if shape & ESCAPE else ""
        word = "NOT LIKE" if negated else "LIKE"
        if insensitive:
            return f"lower({col}) {word} lower(?){escape}"
        return f"{col} {word} ?{escape}"

    def match_param(
        self, value: str, prefix: bool, suffix: bool, insensitive: bool, shape: int
    ) -> str:
        """The bound pattern of a match: the value, escaped, with wildcards before
        (`prefix`) and after (`suffix`)."""
        return (("%" if prefix else "") + escape_like(value)) + ("%" if suffix else "")

    def version_flag(self, alias: str, draft: bool) -> str:
        """The condition choosing drafts (or published versions) of a table `alias`, in
        the form its list indexes answer."""
        return f"{alias}.published_at IS {'' if draft else 'NOT '}NULL"

    def order_term(self, ref: str, desc: bool, expression: bool) -> str:
        """One ORDER BY term, NULLs largest (after every value ascending, before them
        descending) as the API sorts. `expression`: `ref` is a subquery, not a column."""
        direction = "DESC" if desc else "ASC"
        if self.nulls_largest:
            return f"{ref} {direction}"
        return f"({ref} IS NULL) {direction}, {ref} {direction}"

    def carried_hint(self, index: str) -> str:
        """What follows a table's alias to read a filtered list through the list index
        that carries the filtered columns (`carried_key_bytes`): MySQL's planner prefers
        the narrow one and looks every row up in the table."""
        return ""

    def index_hint(self, index: str) -> str:
        """What follows a table's alias to read it through `index` (only where
        `index_hints`)."""
        return ""

    def text_cast(self, expr: str) -> str:
        """An expression's value as text (a JSON value sorted by its text)."""
        return f"CAST({expr} AS TEXT)"

    def snapshot_expr(self) -> str:
        """Where `snapshots`: SQL whose value is the token of the committed state."""
        raise NotImplementedError

    def comparable(self, expr: str) -> str:
        """A column's value in a form `distinct` can compare (a JSON value where its type
        has no equality)."""
        return expr

    def distinct(self, a: str, b: str, negated: bool = False) -> str:
        """`a` differs from `b`, NULL being a value (`negated`: they are the same)."""
        return f"{a} IS {'NOT ' if negated else ''}DISTINCT FROM {b}"

    def param_cast(self, family: str) -> str:
        """A parameter where its type cannot be inferred (`?::bigint`)."""
        return "?"

    def now_ms(self) -> tuple[str, list[Any]]:
        """The current time in milliseconds since the epoch as SQL, and its parameters:
        the database's clock where it has one constant within a statement, else the
        host's as a parameter."""
        return "?", [int(clock.time() * 1000)]

    # ------------------------------------------------------------------ writes
    def insert_id(self, sql: str, params: Sequence[Any] = ()) -> Program:
        """Runs an INSERT of one row (`INSERT INTO ... VALUES` or `... SELECT`, without
        RETURNING) and returns the new row's id, or None when it inserted nothing."""
        rows = yield query(f"{sql} RETURNING id", params)
        return int(rows[0][0]) if rows else None

    def insert_ids(self, sql: str, params: Sequence[Any], count: int) -> Program:
        """Runs an INSERT of `count` rows (`VALUES (...), (...)`, without RETURNING) and
        returns their ids in the order of the rows."""
        rows = yield query(f"{sql} RETURNING id", params)
        return sorted(int(r[0]) for r in rows)

    def insert_default_id(self, table: str) -> Program:
        """Inserts a row of defaults only into `table` and returns its id."""
        rows = yield query(f"INSERT INTO {self.quote(table)} DEFAULT VALUES RETURNING id")
        return int(rows[0][0])

    def upsert(
        self,
        table: str,
        columns: Sequence[str],
        keys: Sequence[str],
        updates: Sequence[str] | dict[str, str] = (),
        where: str | None = None,
    ) -> str:
        """INSERT one row of `columns` (placeholders), or when a row with the same `keys`
        (a unique index) exists: update `updates` (column names, each set to the value
        offered; or column -> SQL over `excluded.<column>` and constants), only where
        `where` holds over the existing row (written with the quoted table's name);
        nothing when there is nothing to update."""
        t = self.quote(table)
        cols = ", ".join(self.quote(c) for c in columns)
        head = f"INSERT INTO {t} ({cols}) VALUES ({marks(len(columns))}) "
        conflict = ", ".join(self.quote(k) for k in keys)
        if not updates:
            return head + f"ON CONFLICT ({conflict}) DO NOTHING"
        if not isinstance(updates, dict):
            updates = {c: f"excluded.{self.quote(c)}" for c in updates}
        sets = ", ".join(f"{self.quote(c)} = {v}" for c, v in updates.items())
        tail = f" WHERE {where}" if where else ""
        return head + f"ON CONFLICT ({conflict}) DO UPDATE SET {sets}{tail}"

    def copy_columns(self, table: str, columns: Sequence[str], targets: int) -> str:
        """An UPDATE giving the rows of `targets` ids of `table` the values of `columns` of
        its row whose id is the first parameter (the targets' ids follow it)."""
        return self.copy_row(table, columns, (), f"IN ({marks(targets)})")[0]

    def copy_row(
        self,
        table: str,
        columns: Sequence[str],
        given: Sequence[str] = (),
        targets: str = "= ?",
    ) -> tuple[str, str]:
        """An UPDATE giving the rows of `table` whose id is as `targets` says (`= ?`,
        `IN (?, ?)`, `= (SELECT ...)`) the values of `columns` of its row whose id is a
        parameter (the source), and values given as parameters to the `given` columns:
        its text and the order of its parameters ("s" the source's id, "g" the given
        values, "t" the targets' ids, where parameters)."""
        t = self.quote(table)
        sets = self._copied_sets(columns, given)
        return (
            f"UPDATE {t} SET {sets} FROM {t} AS s WHERE s.id = ? AND {t}.id {targets}",
            ("g" if given else "") + "s" + ("t" if "?" in targets else ""),
        )

    def _copied_sets(self, columns: Sequence[str], given: Sequence[str], into: str = "") -> str:
        """`copy_row`'s SET list: `columns` from the source row (alias `s`), `given` from
        parameters; `into`: the updated table's alias and dot, where it needs one."""
        q = self.quote
        sets = [f"{into}{q(c)} = s.{q(c)}" for c in columns]
        sets += [f"{into}{q(c)} = ?" for c in given]
        return ", ".join(sets)

    def lock(self, key: int) -> Program:
        """Takes a lock on the 64-bit `key` until the transaction ends: writes that take
        it run one after the other (where `one_writer`, they do anyway: nothing)."""
        return
        yield

    def notify(self, channel: str) -> Program:
        """Tells the listeners of `channel` at commit (where `notifications`)."""
        return
        yield

    def commit_horizon(self, table: str) -> Program:
        """The greatest id of `table` that readers may go up to: None where ids are
        committed in their order anyway (`record_rows` holds its `lock` through the
        commit, or one writer)."""
        return None
        yield

    def record_rows(
        self,
        table: str,
        columns: Sequence[str],
        params: Sequence[Any],
        count: int,
        lock: int | None = None,
        channel: str | None = None,
    ) -> Program:
        """Inserts `count` rows of `columns` into `table` and returns their ids, in order,
        after taking `lock` (ids then follow the order of commits) and notifying `channel`
        (the outbox's writes). PostgreSQL does it all in one statement."""
        if lock is not None and not self.one_writer:
            yield from self.lock(lock)
        if channel is not None and self.notifications:
            yield from self.notify(channel)
        key = (table, tuple(columns), count)
        sql = self._rows_sql.get(key)
        if sql is None:
            names = ", ".join(self.quote(c) for c in columns)
            row = "(" + marks(len(columns)) + ")"
            sql = f"INSERT INTO {self.quote(table)} ({names}) VALUES {', '.join([row] * count)}"
            if len(self._rows_sql) < ROWS_SQL:
                self._rows_sql[key] = sql
        ids: list[int] = yield from self.insert_ids(sql, params, count)
        return ids

    @cached_property
    def _rows_sql(self) -> dict[tuple[str, tuple[str, ...], int], str]:
        """`record_rows`' statements by table, columns and number of rows."""
        return {}

    def begin_bulk_load(self) -> Program:
        """Before a bulk load (an import): settings that speed it up; returns what
        `end_bulk_load` needs to put them back."""
        return None
        yield

    def end_bulk_load(self, saved: Any) -> Program:
        """After a bulk load: the settings `begin_bulk_load` changed put back."""
        return
        yield

    def reset_identity(self, table: str) -> Program:
        """After rows were written with their ids (an import): the table's next id
        follows its largest."""
        return
        yield

    # ------------------------------------------------------------------ columns
    def column_type(self, family: str, length: int | None = None) -> str:
        """The column type of a value family (`FAMILIES`); `length`: a bounded string's
        most characters."""
        raise NotImplementedError

    def identity(self, big: bool = False) -> str:
        """The definition of an `id` column numbered by the database (a primary key)."""
        raise NotImplementedError

    def text_key(self) -> str:
        """The type of a text column that is a key (a primary key, in a unique index, a
        document id): short, compared exactly."""
        return "TEXT"

    def reference(self, table: str, cascade: bool = True) -> str:
        """The definition of a non-null integer column referring to `table`'s id."""
        tail = " ON DELETE CASCADE" if cascade else ""
        return f"INTEGER NOT NULL REFERENCES {self.quote(table)}(id){tail}"

    def small_int(self) -> str:
        """A small counter (positions, flags)."""
        return "SMALLINT"

    # ------------------------------------------------------------------ values
    def select_expr(self, family: str, column: str) -> str:
        """The expression that reads a stored value of `family` in the form the API writes
        (where the database formats it: PostgreSQL's timestamps as ISO text)."""
        return column

    def output(self, family: str) -> Converter | None:
        """A function from a value `select_expr` read to its JSON form, or None when the
        driver's value is that already (chosen once per reader, never per row)."""
        return None

    def json_member(self, column: str) -> str:
        """A JSON attribute's stored value as a member of a JSON object the database
        builds (`insert_with_event`)."""
        return self.select_expr(JSON, column)

    def insert_with_event(
        self,
        insert: str,
        returning: str,
        members: Sequence[tuple[str, str]],
        table: str,
        columns: Sequence[str],
        channel: str,
    ) -> str | None:
        """One statement that runs `insert` (an INSERT of one row, without RETURNING),
        answers its row as `returning` selects it, and records one event of it in `table`
        (the outbox) as `record_rows` would: its `columns` are bound in order, except
        `document_id`, taken from the row, and `entry`, the JSON object of `members` (key,
        SQL expression over the row) that the database builds. The answer's row ends with
        that entry's text and the event's id. None where the database cannot (then the
        row and its event are two statements in a transaction)."""
        return None

    # The bound forms of values whose Python form the driver does not take as it is
    # (where `text_temporals`, the kinds bind dates and times as text instead)
    def bind_datetime(self, value: datetime) -> Any:
        """An aware datetime as the driver binds it into a timestamp column."""
        return value

    def bind_date(self, value: date) -> Any:
        return value

    def bind_time(self, value: time) -> Any:
        return value

    def bind_decimal(self, value: float) -> Any:
        """A decimal attribute's value (a float rounded to 2 places) as bound."""
        return value

    def read_datetime(self, value: Any) -> Any:
        """A timestamp column's value as the driver gives it (not through `select_expr`)
        -> an aware datetime."""
        return value

    # ------------------------------------------------------------------ schema
    # the expression naming the connection's schema in the information_schema views
    current_schema = "current_schema()"

    def existing_tables(self) -> Program:
        """The names of the tables of the current schema."""
        rows = yield query(
            "SELECT table_name FROM information_schema.tables "
            f"WHERE table_schema = {self.current_schema}"
        )
        return {str(r[0]) for r in rows}

    def existing_columns(self, table: str) -> Program:
        """A table's columns: name -> the type as the database names it, lower case."""
        rows = yield query(
            "SELECT column_name, data_type FROM information_schema.columns WHERE "
            f"table_schema = {self.current_schema} AND table_name = ?",
            (table,),
        )
        return {str(r[0]): str(r[1]).lower() for r in rows}

    def existing_indexes(self, table: str) -> Program:
        """The names of a table's indexes."""
        raise NotImplementedError

    def create_table(
        self, table: str, columns: Sequence[tuple[str, str]], if_missing: bool = False
    ) -> str:
        """CREATE TABLE of (name, definition) columns (`if_missing`: IF NOT EXISTS)."""
        cols = ", ".join(f"{self.quote(n)} {d}" for n, d in columns)
        exists = "IF NOT EXISTS " if if_missing else ""
        return f"CREATE TABLE {exists}{self.quote(table)} ({cols})"

    def add_column(self, table: str, column: str, definition: str) -> str:
        return f"ALTER TABLE {self.quote(table)} ADD COLUMN {self.quote(column)} {definition}"

    def drop_column(self, table: str, column: str) -> str:
        return f"ALTER TABLE {self.quote(table)} DROP COLUMN {self.quote(column)}"

    def retype_column(self, table: str, column: str, definition: str) -> str | None:
        """The statement converting a column in place, every value kept; None where the
        database cannot (the column is then dropped and added, when empty)."""
        return None

    def retypes(self, stored: str, definition: str) -> bool:
        """Whether a column stored as `stored` (as `existing_columns` names it) is converted
        to `definition` at sync although its attribute type is unchanged (an earlier
        layout's column type)."""
        return False

    def create_index(
        self,
        name: str,
        table: str,
        expr: str,
        unique: bool = False,
        where: str | None = None,
        include: str | None = None,
    ) -> str:
        """CREATE INDEX, if it does not exist."""
        kind = "UNIQUE INDEX" if unique else "INDEX"
        tail = f" INCLUDE ({include})" if include and self.covering_indexes else ""
        tail += f" WHERE {where}" if where and self.partial_indexes else ""
        return (
            f"CREATE {kind} IF NOT EXISTS {self.quote(name)} ON {self.quote(table)} ({expr}){tail}"
        )

    def drop_index(self, name: str, table: str) -> str:
        return f"DROP INDEX IF EXISTS {self.quote(name)}"

    def sync_lock(self) -> Program:
        """Taken first by schema sync: several processes may start at once; one syncs,
        the others wait and find it done."""
        return
        yield

    def ping(self) -> str:
        """The readiness check's statement: one the database answers only when it can
        read its data."""
        return "SELECT 1"

    # ------------------------------------------------------------------ errors
    def error_kind(self, exc: BaseException) -> str | None:
        """What a driver's error means (UNIQUE, FOREIGN_KEY, TOO_LONG, INVALID, RETRY),
        or None: not a refusal of the statement's values (a bug, an outage)."""
        return None

    def folio_error(self, exc: BaseException) -> FolioError | None:
        """The Folio error to answer for a driver's error, or None to let it rise. A value
        the database refused is the client's input (400), named by kind, never with SQL
        text."""
        kind = self.error_kind(exc)
        if kind == TOO_LONG:
            message = "A value is too long for its field"
            return ValidationError(message, {"errors": [{"path": [], "message": message}]})
        if kind == INVALID:
            return invalid_value(str(exc))
        return None


class Quoted(dict[str, str]):
    """Identifiers quoted by a dialect's `quote`, each once (the names of the models'
    tables and columns: a bounded set)."""

    def __init__(self, quote: Callable[[str], str]) -> None:
        super().__init__()
        self._quote = quote

    def __missing__(self, name: str) -> str:
        text = self[name] = self._quote(name)
        return text


# `record_rows` statements kept per dialect (one per table and number of rows)
ROWS_SQL = 256

# bits of a pattern match's shape (`Dialect.match`)
ESCAPE = 1
ASCII_FOLD = 2

_LIKE_SPECIAL = frozenset("\\%_")


def escape_like(text: str) -> str:
    """A LIKE pattern that matches `text` literally (with ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def needs_escape(text: str) -> bool:
    return any(ch in _LIKE_SPECIAL for ch in text)


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


__all__ = [
    "ASCII_FOLD",
    "BIGINTEGER",
    "BOOLEAN",
    "DATE",
    "DATETIME",
    "DECIMAL",
    "ESCAPE",
    "FAMILIES",
    "FLOAT",
    "FOREIGN_KEY",
    "INTEGER",
    "INVALID",
    "JSON",
    "RETRY",
    "STRING",
    "TEXT",
    "TIME",
    "TOO_LONG",
    "UNIQUE",
    "Converter",
    "Dialect",
    "Quoted",
    "escape_like",
    "invalid_value",
    "needs_escape",
]
