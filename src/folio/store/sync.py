"""Schema sync at start-up: creates missing tables, columns and indexes, and refuses a change
that would lose data (a column whose attribute type changed incompatibly while it holds
values). What was created is recorded in `folio_schema`."""

from __future__ import annotations

import orjson

from folio.errors import SchemaSyncError
from folio.store.program import Program, Stmt, execute, query
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


def _existing_tables(dialect: str) -> Program:
    if dialect == "sqlite":
        rows = yield query("SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = yield query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
    return {r[0] for r in rows}


def _existing_columns(dialect: str, table: str) -> Program:
    """Column name -> its type as the database names it (lower case)."""
    if dialect == "sqlite":
        rows = yield query(f'PRAGMA table_info("{table}")')
        return {r[1]: str(r[2]).lower() for r in rows}
    rows = yield query(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND table_name = ?",
        (table,),
    )
    return {r[0]: str(r[1]).lower() for r in rows}


# PostgreSQL: (stored type, wanted definition) pairs an earlier layout made that this one
# converts in place, every value kept: JSON attributes were `jsonb` columns
PG_RETYPES = {("jsonb", "JSON")}


def _create_table(dialect: str, table: Table) -> str:
    cols = ", ".join(f'"{c.name}" {c.sql[dialect]}' for c in table.columns)
    return f'CREATE TABLE "{table.name}" ({cols})'


def sync_schema(dialect: str, tables: list[Table]) -> Program:
    """Brings the database to the layout; returns a list of what it changed."""
    changes: list[str] = []
    if dialect == "postgres":
        # several workers may start at once: one syncs, the others wait and find it done
        yield query("SELECT pg_advisory_xact_lock(7305411)")
    existing = yield from _existing_tables(dialect)
    if STATE_TABLE not in existing:
        yield execute(
            f'CREATE TABLE "{STATE_TABLE}" (name TEXT PRIMARY KEY, columns TEXT NOT NULL)'
        )
    state_rows = yield query(f'SELECT name, columns FROM "{STATE_TABLE}"')
    recorded: dict[str, dict[str, str]] = {r[0]: orjson.loads(r[1]) for r in state_rows}
    for table in tables:
        if table.name not in existing:
            yield execute(_create_table(dialect, table))
            changes.append(f"created table {table.name}")
        else:
            present = yield from _existing_columns(dialect, table.name)
            before = recorded.get(table.name, {})
            for col in table.columns:
                if col.name not in present:
                    yield execute(
                        f'ALTER TABLE "{table.name}" ADD COLUMN "{col.name}" {col.sql[dialect]}'
                    )
                    changes.append(f"added column {table.name}.{col.name}")
                    if col.fill is not None:
                        yield execute(col.fill)
                    continue
                if (present[col.name], col.sql[dialect]) in PG_RETYPES and dialect == "postgres":
                    yield _retype(table, col, dialect)
                    changes.append(
                        f"changed column {table.name}.{col.name} from {present[col.name]} "
                        f"to {col.sql[dialect].lower()}"
                    )
                old = before.get(col.name)
                if old is None or old == col.type_name:
                    continue
                yield from _change_type(dialect, table, col, old, changes)
        yield from _sync_indexes(dialect, table, changes)
        columns = {c.name: c.type_name for c in table.columns}
        if recorded.get(table.name) != columns:
            text = orjson.dumps(columns).decode()
            yield execute(f'DELETE FROM "{STATE_TABLE}" WHERE name = ?', (table.name,))
            yield execute(
                f'INSERT INTO "{STATE_TABLE}" (name, columns) VALUES (?, ?)', (table.name, text)
            )
    return changes


def _existing_indexes(dialect: str, table: str) -> Program:
    if dialect == "sqlite":
        rows = yield query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", (table,)
        )
    else:
        rows = yield query(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename = ?",
            (table,),
        )
    return {r[0] for r in rows}


def _sync_indexes(dialect: str, table: Table, changes: list[str]) -> Program:
    """Creates the table's missing indexes and drops the ones an earlier layout made that
    this one replaces (retired names, outdated members of the table's index family)."""
    wanted = [i for i in table.indexes if i.dialect in (None, dialect)]
    names = {i.name for i in wanted}
    present = yield from _existing_indexes(dialect, table.name)
    for name in sorted(present - names):
        if name in table.retired or table.in_family(name):
            yield execute(f'DROP INDEX IF EXISTS "{name}"')
            changes.append(f"dropped index {name}")
    for index in wanted:
        if index.name in present:
            continue
        kind = "UNIQUE INDEX" if index.unique else "INDEX"
        where = f" WHERE {index.where}" if index.where else ""
        include = f" INCLUDE ({index.include})" if index.include else ""
        yield execute(
            f'CREATE {kind} IF NOT EXISTS "{index.name}" ON "{table.name}" '
            f"({index.expr}){include}{where}"
        )


def _retype(table: Table, col: Column, dialect: str) -> Stmt:
    """PostgreSQL: the column converted in place to its definition, every value cast."""
    definition = col.sql[dialect]
    return execute(
        f'ALTER TABLE "{table.name}" ALTER COLUMN "{col.name}" TYPE {definition} '
        f'USING "{col.name}"::{definition}'
    )


def _change_type(dialect: str, table: Table, col: Column, old: str, changes: list[str]) -> Program:
    rows = yield query(f'SELECT COUNT(*) FROM "{table.name}" WHERE "{col.name}" IS NOT NULL')
    in_use = rows[0][0] > 0
    if (old, col.type_name) in SAFE_CHANGES or not in_use:
        if dialect == "sqlite" and not in_use:
            # SQLite refuses to drop a column an index covers: drop the family's indexes
            # first (the index sync that follows makes them again)
            present = yield from _existing_indexes(dialect, table.name)
            for name in sorted(present):
                if table.in_family(name):
                    yield execute(f'DROP INDEX IF EXISTS "{name}"')
            yield execute(f'ALTER TABLE "{table.name}" DROP COLUMN "{col.name}"')
            yield execute(f'ALTER TABLE "{table.name}" ADD COLUMN "{col.name}" {col.sql[dialect]}')
        elif dialect == "postgres":
            if in_use:
                yield _retype(table, col, dialect)
            else:
                yield execute(f'ALTER TABLE "{table.name}" DROP COLUMN "{col.name}"')
                yield execute(
                    f'ALTER TABLE "{table.name}" ADD COLUMN "{col.name}" {col.sql[dialect]}'
                )
        changes.append(f"changed column {table.name}.{col.name} from {old} to {col.type_name}")
        return
    raise SchemaSyncError(
        f"Refusing to change column {table.name}.{col.name} from {old} to {col.type_name}: "
        f"it holds data that the new type could lose. Migrate or clear the data first, or "
        f"give the attribute a new name."
    )
