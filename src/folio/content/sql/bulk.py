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
from folio.store.dialects.base import Dialect
from folio.store.program import Program, Rows, execute, marks, query
from folio.store.sync import sync_schema

Converter = Callable[[Any], Any]

# a timestamp as the API writes it, and SQLite stores it: kept as it is there
CANONICAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
TEXT_TYPES = frozenset({"string", "text", "richtext", "email", "uid", "enumeration", "password"})
DATE_FORM = re.compile(r"\d{4}-\d\d-\d\d")
TIME_FORM = re.compile(r"\d\d:\d\d:\d\d")


def _fixed_form(
    general: Converter, form: re.Pattern[str], parse: Converter, dialect: Dialect
) -> Converter:
    """A date or time in the one form text temporals store (kept: SQLite), or bound
    parsed."""
    text = dialect.text_temporals

    def convert(value: Any) -> Any:
        if isinstance(value, str) and form.fullmatch(value):
            return value if text else parse(value)
        return general(value)

    return convert


def timestamp_converter(dialect: Dialect) -> Converter:
    """A timestamp in the canonical form is the stored text as it is where temporals are
    text (SQLite), else the bound value by the standard library's parser (a tenth of the
    general one's cost)."""
    text = dialect.text_temporals
    bind = dialect.bind_datetime

    def convert(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, str) and CANONICAL_TIME.fullmatch(value):
            return value if text else bind(datetime.fromisoformat(value))
        return TIMESTAMP_KIND.to_db(parse_datetime(value), dialect)

    return convert


def value_converter(attr: Attribute, dialect: Dialect) -> Converter:
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
        bind_date = dialect.bind_date
        return _fixed_form(general, DATE_FORM, lambda v: bind_date(date.fromisoformat(v)), dialect)
    if attr.type == "time":
        bind_time = dialect.bind_time
        return _fixed_form(general, TIME_FORM, lambda v: bind_time(time.fromisoformat(v)), dialect)
    if attr.type in ("datetime", "timestamp"):
        stamp = timestamp_converter(dialect)
        return lambda v: stamp(v) if v is None or isinstance(v, str) else general(v)
    return general


def insert_rows(table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Rows:
    """`rows` (each a value per column) written in bulk (COPY on PostgreSQL)."""
    return Rows(table, columns, rows)


class BulkStatements:
    def __init__(
        self, registry: Registry, dialect: Dialect, types: Collection[str] | None = None
    ) -> None:
        self.registry = registry
        self.dialect = dialect
        self.quote = dialect.quote
        # the types whose rows are content: the app's, file records and users (roles come
        # from the app's configuration; tokens, administrators and webhooks stay), or those
        # of them a load names
        self.content_types: list[ContentType] = [
            ct
            for uid, ct in registry.content_types.items()
            if (uid.startswith("api::") or uid in (FILE_UID, USER_UID))
            and (types is None or uid in types)
        ]
        self._saved: Any = None  # the settings begin_bulk_load changed

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
        page cache meanwhile (`Dialect.begin_bulk_load`)."""
        self._saved = yield from self.dialect.begin_bulk_load()
        filled = {ct.table for ct in self.content_types}
        filled |= {c.table for c in self.registry.components.values()}
        filled |= set(self._owned_tables([*self.content_types, *self.registry.components.values()]))
        filled.add(FILES_LINK_TABLE)
        for table in build_layout(self.registry, self.dialect):
            if table.name not in filled:
                continue
            for index in table.indexes:
                if not index.unique:
                    yield execute(self.dialect.drop_index(index.name, table.name))

    def content_counts(self) -> Program:
        """uid -> rows, of the content types that have some."""
        counts: dict[str, int] = {}
        for ct in self.content_types:
            rows = yield query(f"SELECT COUNT(*) FROM {self.quote(ct.table)}")
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
            yield execute(f"DELETE FROM {self.quote(FILES_LINK_TABLE)}")
        else:
            owners = sorted(uids | {c.uid for c in components})
            if owners:
                of = f"related_type IN ({marks(len(owners))})"
                yield execute(f"DELETE FROM {self.quote(FILES_LINK_TABLE)} WHERE {of}", owners)
        for table in [
            *self._owned_tables([*self.content_types, *components]),
            *(c.table for c in components),
            *(ct.table for ct in self.content_types),
        ]:
            yield execute(f"DELETE FROM {self.quote(table)}")

    def after_load(self, tables: Sequence[str]) -> Program:
        """The indexes `before_load` dropped made again (the schema sync's own statements).
        Each table's identity moved past the largest id (rows were written with their ids;
        `Dialect.reset_identity`: SQLite's AUTOINCREMENT follows them by itself). Then the
        status-scoped links that name both versions of one target become one link to
        every version (NULL status), as Folio stores them."""
        yield from sync_schema(self.dialect, build_layout(self.registry, self.dialect))
        yield from self.dialect.end_bulk_load(self._saved)
        self._saved = None
        for table in tables:
            yield from self.dialect.reset_identity(table)
        for schema in [*self.registry.content_types.values(), *self.registry.components.values()]:
            for attr in schema.attributes.values():
                if not status_scoped(schema, attr, self.registry):
                    continue
                table = link_table_name(schema, attr)
                t = self.quote(table)
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
