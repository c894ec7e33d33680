"""The statements of a bulk load (an archive's import): multi-row INSERTs of rows whose
values are ready (ids kept), the check that the content tables are empty, their clearing
(`--force`), and what follows a load: identity sequences moved past the ids written, and
status-scoped links that named both versions of a target made one link to every version.

Rows are sent in fixed-size batches, so that each table's statement text (and, on
PostgreSQL, its prepared statement) repeats; a batch stays under both drivers' limit on
bound parameters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from folio.content.sql.layout import (
    FILES_LINK_TABLE,
    components_table_name,
    link_table_name,
    relation_owner,
    status_scoped,
)
from folio.schema.builtins import FILE_UID, USER_UID
from folio.schema.model import ContentType, Registry, Schema
from folio.store.program import Program, Stmt, execute, query

# bound parameters per statement: under SQLite's 32,766 and asyncpg's 32,767
MAX_PARAMS = 30_000


def rows_per_batch(columns: int, wanted: int) -> int:
    return max(1, min(wanted, MAX_PARAMS // max(1, columns)))


def insert_rows(table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Stmt:
    """One INSERT of `rows` (each a value per column)."""
    names = ", ".join(f'"{c}"' for c in columns)
    one = "(" + ", ".join("?" * len(columns)) + ")"
    params: list[Any] = []
    for row in rows:
        params.extend(row)
    return execute(
        f'INSERT INTO "{table}" ({names}) VALUES ' + ", ".join([one] * len(rows)), params
    )


class BulkStatements:
    def __init__(self, registry: Registry, dialect: str) -> None:
        self.registry = registry
        self.dialect = dialect
        # the types whose rows are content: the app's, file records and users (roles come
        # from the app's configuration; tokens, administrators and webhooks stay)
        self.content_types: list[ContentType] = [
            ct
            for uid, ct in registry.content_types.items()
            if uid.startswith("api::") or uid in (FILE_UID, USER_UID)
        ]

    def _owned_tables(self, schemas: Sequence[Schema]) -> list[str]:
        tables: list[str] = []
        for schema in schemas:
            if any(a.type in ("component", "dynamiczone") for a in schema.attributes.values()):
                tables.append(components_table_name(schema))
            tables += [
                link_table_name(schema, a) for a in schema.attributes.values() if relation_owner(a)
            ]
        return tables

    def content_counts(self) -> Program:
        """uid -> rows, of the content types that have some."""
        counts: dict[str, int] = {}
        for ct in self.content_types:
            rows = yield query(f'SELECT COUNT(*) FROM "{ct.table}"')
            if rows and int(rows[0][0]):
                counts[ct.uid] = int(rows[0][0])
        return counts

    def clear(self) -> Program:
        """Deletes every content row, with its components and links (link tables first:
        their rows would otherwise go one cascade at a time)."""
        components = list(self.registry.components.values())
        for table in [
            FILES_LINK_TABLE,
            *self._owned_tables([*self.content_types, *components]),
            *(c.table for c in components),
            *(ct.table for ct in self.content_types),
        ]:
            yield execute(f'DELETE FROM "{table}"')

    def after_load(self, tables: Sequence[str]) -> Program:
        """PostgreSQL: each table's identity moved past the largest id (rows were written
        with their ids); SQLite's AUTOINCREMENT follows explicit ids by itself. Then the
        status-scoped links that name both versions of one target become one link to
        every version (NULL status), as Folio stores them."""
        if self.dialect == "postgres":
            for table in tables:
                yield query(
                    f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                    f'COALESCE((SELECT MAX(id) FROM "{table}"), 0) + 1, false)'
                )
        for schema in [*self.registry.content_types.values(), *self.registry.components.values()]:
            for attr in schema.attributes.values():
                if not status_scoped(schema, attr, self.registry):
                    continue
                table = link_table_name(schema, attr)
                t = f'"{table}"'
                sibling = (
                    f"SELECT 1 FROM {t} o WHERE o.source_id = {t}.source_id AND "
                    f"o.target_document_id = {t}.target_document_id AND "
                    f"COALESCE(o.target_locale, '') = COALESCE({t}.target_locale, '') AND "
                )
                yield execute(
                    f"UPDATE {t} SET target_status = NULL WHERE target_status = 'published' "
                    f"AND EXISTS ({sibling}o.target_status = 'draft')"
                )
                yield execute(
                    f"DELETE FROM {t} WHERE target_status = 'draft' "
                    f"AND EXISTS ({sibling}o.target_status IS NULL)"
                )
