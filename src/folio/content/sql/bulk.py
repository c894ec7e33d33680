"""The statements of a bulk load (an archive's import): rows whose values are ready (ids
kept) written in bulk (`Rows`: COPY on PostgreSQL, a prepared INSERT run over them on
SQLite), the check that the content tables are empty, their clearing (`--force`), the
indexes set aside during the load and made again after it, and what follows a load:
identity sequences moved past the ids written, and status-scoped links that named both
versions of a target made one link to every version; the conversion of archived values
to stored ones."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from datetime import date, datetime, time
from typing import Any

from folio.content.sql.layout import (
    FILES_LINK_TABLE,
    build_layout,
    components_table_name,
    link_table_name,
    relation_owner,
    status_scoped,
)
from folio.schema.builtins import FILE_UID, USER_UID
from folio.schema.kinds import TIMESTAMP_KIND
from folio.schema.model import Attribute, ContentType, Registry, Schema
from folio.schema.values import parse_datetime
from folio.store.program import Program, Rows, execute, marks, query
from folio.store.sync import sync_schema

Converter = Callable[[Any], Any]

# a timestamp as the API writes it, and SQLite stores it: kept as it is there
CANONICAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
TEXT_TYPES = frozenset({"string", "text", "richtext", "email", "uid", "enumeration", "password"})
# SQLite's page cache during a load (KiB): index pages stay in memory between batches
LOAD_CACHE_KIB = 65_536


DATE_FORM = re.compile(r"\d{4}-\d\d-\d\d")
TIME_FORM = re.compile(r"\d\d:\d\d:\d\d")


def _fixed_form(
    general: Converter, form: re.Pattern[str], parse: Converter, dialect: str
) -> Converter:
    """A date or time in the one form SQLite stores (kept) and PostgreSQL binds parsed."""

    def convert(value: Any) -> Any:
        if isinstance(value, str) and form.fullmatch(value):
            return value if dialect == "sqlite" else parse(value)
        return general(value)

    return convert


def timestamp_converter(dialect: str) -> Converter:
    """A timestamp in the canonical form is SQLite's stored text as it is, and PostgreSQL's
    bound value by the standard library's parser (a tenth of the general one's cost)."""

    def convert(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, str) and CANONICAL_TIME.fullmatch(value):
            return value if dialect == "sqlite" else datetime.fromisoformat(value)
        return TIMESTAMP_KIND.to_db(parse_datetime(value), dialect)

    return convert


def value_converter(attr: Attribute, dialect: str) -> Converter:
    """A stored value from an archived one (the API's JSON form): checked and converted by
    the attribute's kind, except where the value is already in the stored form (a string
    of a text attribute, a number of a numeric one, JSON, a canonical timestamp), which a
    load of a hundred thousand entries passes through as it is."""
    kind = attr.kind

    def general(value: Any) -> Any:
        if value is None:
            return None
        return kind.to_db(kind.coerce(attr, value), dialect)

    kinds: dict[str, tuple[type, ...]] = {
        "integer": (int,),
        "float": (float, int),
        "decimal": (float, int),
        "boolean": (bool,),
    }
    if attr.type in TEXT_TYPES:
        return lambda v: v if type(v) is str else general(v)
    if attr.type in kinds:
        accepted = kinds[attr.type]
        return lambda v: kind.to_db(v, dialect) if type(v) in accepted else general(v)
    if attr.type in ("json", "blocks"):
        return lambda v: None if v is None else kind.to_db(v, dialect)
    if attr.type == "date":
        return _fixed_form(general, DATE_FORM, date.fromisoformat, dialect)
    if attr.type == "time":
        return _fixed_form(general, TIME_FORM, time.fromisoformat, dialect)
    if attr.type in ("datetime", "timestamp"):
        stamp = timestamp_converter(dialect)
        return lambda v: stamp(v) if v is None or isinstance(v, str) else general(v)
    return general


def insert_rows(table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Rows:
    """`rows` (each a value per column) written in bulk (COPY on PostgreSQL)."""
    return Rows(table, columns, rows)


class BulkStatements:
    def __init__(
        self, registry: Registry, dialect: str, types: Collection[str] | None = None
    ) -> None:
        self.registry = registry
        self.dialect = dialect
        # the types whose rows are content: the app's, file records and users (roles come
        # from the app's configuration; tokens, administrators and webhooks stay), or those
        # of them a load names
        self.content_types: list[ContentType] = [
            ct
            for uid, ct in registry.content_types.items()
            if (uid.startswith("api::") or uid in (FILE_UID, USER_UID))
            and (types is None or uid in types)
        ]
        self._cache_size: int | None = None

    def _owned_tables(self, schemas: Sequence[Schema]) -> list[str]:
        tables: list[str] = []
        for schema in schemas:
            if any(a.type in ("component", "dynamiczone") for a in schema.attributes.values()):
                tables.append(components_table_name(schema))
            tables += [
                link_table_name(schema, a) for a in schema.attributes.values() if relation_owner(a)
            ]
        return tables

    def before_load(self) -> Program:
        """The tables about to be filled lose their indexes other than unique ones, made
        again whole by `after_load` (one sorted build instead of a B-tree insert per row
        and index: an article row has some twenty of them on SQLite); SQLite gets a larger
        page cache meanwhile."""
        if self.dialect == "sqlite":
            rows = yield query("PRAGMA cache_size")
            self._cache_size = int(rows[0][0])
            yield execute(f"PRAGMA cache_size = -{LOAD_CACHE_KIB}")
        filled = {ct.table for ct in self.content_types}
        filled |= {c.table for c in self.registry.components.values()}
        filled |= set(self._owned_tables([*self.content_types, *self.registry.components.values()]))
        filled.add(FILES_LINK_TABLE)
        for table in build_layout(self.registry):
            if table.name not in filled:
                continue
            for index in table.indexes:
                if not index.unique and index.dialect in (None, self.dialect):
                    yield execute(f'DROP INDEX IF EXISTS "{index.name}"')

    def content_counts(self) -> Program:
        """uid -> rows, of the content types that have some."""
        counts: dict[str, int] = {}
        for ct in self.content_types:
            rows = yield query(f'SELECT COUNT(*) FROM "{ct.table}"')
            if rows and int(rows[0][0]):
                counts[ct.uid] = int(rows[0][0])
        return counts

    def clear(self) -> Program:
        """Deletes the rows of the content types, with their components and links (link
        tables first: their rows would otherwise go one cascade at a time). Components go
        with the app's types; media links with the files, or with the entries and
        components they belong to."""
        uids = {ct.uid for ct in self.content_types}
        components = (
            list(self.registry.components.values())
            if any(uid.startswith("api::") for uid in uids)
            else []
        )
        if FILE_UID in uids:
            yield execute(f'DELETE FROM "{FILES_LINK_TABLE}"')
        else:
            owners = sorted(uids | {c.uid for c in components})
            if owners:
                of = f"related_type IN ({marks(len(owners))})"
                yield execute(f'DELETE FROM "{FILES_LINK_TABLE}" WHERE {of}', owners)
        for table in [
            *self._owned_tables([*self.content_types, *components]),
            *(c.table for c in components),
            *(ct.table for ct in self.content_types),
        ]:
            yield execute(f'DELETE FROM "{table}"')

    def after_load(self, tables: Sequence[str]) -> Program:
        """The indexes `before_load` dropped made again (the schema sync's own statements).
        PostgreSQL: each table's identity moved past the largest id (rows were written
        with their ids); SQLite's AUTOINCREMENT follows explicit ids by itself. Then the
        status-scoped links that name both versions of one target become one link to
        every version (NULL status), as Folio stores them."""
        yield from sync_schema(self.dialect, build_layout(self.registry))
        if self._cache_size is not None:
            yield execute(f"PRAGMA cache_size = {self._cache_size}")
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
