"""Schema sync at start-up: creates missing tables, columns and indexes, and refuses a change
that would lose data (a column whose attribute type changed incompatibly while it holds
values). What was created is recorded in `folio_schema`."""

from __future__ import annotations

import orjson

from folio.errors import SchemaSyncError
from folio.store.dialects.base import Dialect
from folio.store.program import Program, execute, query
from folio.store.tables import Column, Table

STATE_TABLE = "folio_schema"

STRING_TYPES = frozenset({"string", "text", "richtext", "email", "uid", "enumeration", "password"})
# (old, new) attribute type changes that keep every stored value
SAFE_CHANGES = frozenset(
    {(a, b) for a in STRING_TYPES for b in STRING_TYPES}
    | {
        ("integer", "biginteger"),
        ("integer", "float"),
        ("json", "blocks"),
        ("blocks", "json"),
        ("datetime", "timestamp"),
        ("timestamp", "datetime"),
        ("text", "text"),
    }
)


def sync_schema(dialect: Dialect, tables: list[Table]) -> Program:
    """Brings the database to the layout (made for this dialect); returns a list of what
    it changed."""
    changes: list[str] = []
    q = dialect.quote
    yield from dialect.sync_lock()
    existing = yield from dialect.existing_tables()
    if STATE_TABLE not in existing:
        yield execute(
            dialect.create_table(
                STATE_TABLE,
                [("name", f"{dialect.text_key()} PRIMARY KEY"), ("columns", "TEXT NOT NULL")],
            )
        )
    state_rows = yield query(f"SELECT name, columns FROM {q(STATE_TABLE)}")
    recorded: dict[str, dict[str, str]] = {r[0]: orjson.loads(r[1]) for r in state_rows}
    for table in tables:
        # the table's indexes as they stand, once read (None: to be read)
        indexes: set[str] | None = None
        if table.name not in existing:
            yield execute(
                dialect.create_table(table.name, [(c.name, c.sql) for c in table.columns])
            )
            changes.append(f"created table {table.name}")
        else:
            # the indexes this layout replaces go first: a column they hold may change type
            # below (a string becoming a text, which MySQL's keys cannot hold whole)
            indexes = yield from _drop_replaced_indexes(dialect, table, changes)
            present = yield from dialect.existing_columns(table.name)
            before = recorded.get(table.name, {})
            for col in table.columns:
                if col.name not in present:
                    yield execute(dialect.add_column(table.name, col.name, col.sql))
                    changes.append(f"added column {table.name}.{col.name}")
                    if col.fill is not None:
                        yield execute(col.fill)
                    continue
                if dialect.retypes(present[col.name], col.sql):
                    retype = dialect.retype_column(table.name, col.name, col.sql)
                    if retype is not None:
                        yield execute(retype)
                        changes.append(
                            f"changed column {table.name}.{col.name} from {present[col.name]} "
                            f"to {col.sql.lower()}"
                        )
                old = before.get(col.name)
                if old is None or old == col.type_name:
                    continue
                yield from _change_type(dialect, table, col, old, changes)
                indexes = None  # it may have dropped some
        yield from _sync_indexes(dialect, table, indexes)
        columns = {c.name: c.type_name for c in table.columns}
        if recorded.get(table.name) != columns:
            text = orjson.dumps(columns).decode()
            yield execute(f"DELETE FROM {q(STATE_TABLE)} WHERE name = ?", (table.name,))
            yield execute(
                f"INSERT INTO {q(STATE_TABLE)} (name, columns) VALUES (?, ?)", (table.name, text)
            )
    return changes


def _drop_replaced_indexes(dialect: Dialect, table: Table, changes: list[str]) -> Program:
    """Drops the indexes an earlier layout made that this one replaces (retired names,
    outdated members of the table's index family); returns those that remain."""
    names = {i.name for i in table.indexes}
    present: set[str] = yield from dialect.existing_indexes(table.name)
    for name in sorted(present - names):
        if name in table.retired or table.in_family(name):
            yield execute(dialect.drop_index(name, table.name))
            changes.append(f"dropped index {name}")
            present.discard(name)
    return present


def _sync_indexes(dialect: Dialect, table: Table, present: set[str] | None) -> Program:
    """Creates the table's missing indexes (`present`: those it has, if already read)."""
    if present is None:
        present = yield from dialect.existing_indexes(table.name)
    for index in table.indexes:
        if index.name in present:
            continue
        yield execute(
            dialect.create_index(
                index.name, table.name, index.expr, index.unique, index.where, index.include
            )
        )


def _change_type(
    dialect: Dialect, table: Table, col: Column, old: str, changes: list[str]
) -> Program:
    q = dialect.quote
    rows = yield query(f"SELECT COUNT(*) FROM {q(table.name)} WHERE {q(col.name)} IS NOT NULL")
    in_use = rows[0][0] > 0
    if (old, col.type_name) in SAFE_CHANGES or not in_use:
        retype = dialect.retype_column(table.name, col.name, col.sql) if in_use else None
        if retype is not None:
            yield execute(retype)
        elif not in_use:
            # a database may refuse to drop a column an index covers (SQLite): drop the
            # family's indexes first (the index sync that follows makes them again)
            present = yield from dialect.existing_indexes(table.name)
            for name in sorted(present):
                if table.in_family(name):
                    yield execute(dialect.drop_index(name, table.name))
            yield execute(dialect.drop_column(table.name, col.name))
            yield execute(dialect.add_column(table.name, col.name, col.sql))
        changes.append(f"changed column {table.name}.{col.name} from {old} to {col.type_name}")
        return
    raise SchemaSyncError(
        f"Refusing to change column {table.name}.{col.name} from {old} to {col.type_name}: "
        f"it holds data that the new type could lose. Migrate or clear the data first, or "
        f"give the attribute a new name."
    )
