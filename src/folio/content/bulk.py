"""The bulk-load API: rows written as they are given (documents with their ids,
documentIds, locales, versions and times; components and dynamic zones with their ids;
relation links by target document; media links), written in batches, all in ONE
transaction (`DocumentService.bulk_load`): the load happens whole or not at all.

A caller (the archive import) describes rows with `entry`, `relation` and `media`, from a
generator function `work(load)` that yields now and then; at each yield, once a batch is
full, the buffered rows are written (COPY on PostgreSQL), so memory holds about one batch
per table. Values are checked and
converted by their attribute kinds, as a write through the document API would store them;
nothing else of a write happens (no validation of required values or relation targets, no
events, no webhooks): the data is a copy of content that was valid where it came from."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from folio.content.sql.bulk import (
    TEXT_TYPES,
    BulkStatements,
    insert_rows,
    timestamp_converter,
    value_converter,
)
from folio.content.sql.layout import (
    FILES_LINK_TABLE,
    SOURCE_DRAFT,
    components_table_name,
    link_table_name,
    source_drafts,
    status_scoped,
)
from folio.errors import ValidationError
from folio.schema.kinds.base import InvalidValue
from folio.schema.model import Attribute, Component, ContentType, Registry, Schema
from folio.store.dialects.base import Dialect
from folio.store.program import Program

Converter = Callable[[Any], Any]
RelationWriter = Callable[[int, bool, str, str | None, str | None, float, float], None]
# rows per bulk write of a table
BATCH_ROWS = 2000


class NotEmpty(Exception):
    """The database holds content and the load was not asked to replace it."""

    def __init__(self, counts: dict[str, int]) -> None:
        super().__init__(", ".join(f"{uid}: {n}" for uid, n in counts.items()))
        self.counts = counts


class LoadError(ValidationError):
    """A value that does not fit its attribute (the whole load is rolled back)."""


class _Buffer:
    __slots__ = ("columns", "limit", "rows", "table")

    def __init__(self, table: str, columns: tuple[str, ...]) -> None:
        self.table = table
        self.columns = columns
        self.rows: list[list[Any]] = []
        self.limit = BATCH_ROWS


_TEXTUAL = frozenset({str, type(None)})


class _Shape:
    """How one schema's rows are written: its scalar columns and their converters, its
    component fields."""

    def __init__(self, schema: Schema, dialect: Dialect) -> None:
        self.schema = schema
        # text attributes first: their archived strings are their stored values, taken
        # as they are once their types are checked together (`_scalars`)
        attrs = [a for a in schema.scalar_attributes if a.column is not None]
        self.texts = [a.name for a in attrs if a.type in TEXT_TYPES]
        self.scalars: list[tuple[str, str, Converter]] = [
            (a.name, str(a.column), value_converter(a, dialect)) for a in attrs
        ]
        self.scalars.sort(key=lambda item: item[0] not in self.texts)
        self.converted = self.scalars[len(self.texts) :]
        self.columns = [column for _, column, _ in self.scalars]
        self.components = [
            a for a in schema.attributes.values() if a.type in ("component", "dynamiczone")
        ]
        self.cmps = components_table_name(schema) if self.components else ""


class BulkLoad:
    """One load's rows, batched per table."""

    def __init__(
        self,
        registry: Registry,
        dialect: Dialect,
        default_locale: str,
        types: Collection[str] | None = None,
    ) -> None:
        self.registry = registry
        self.dialect = dialect
        self.default_locale = default_locale
        self.sql = BulkStatements(registry, dialect, types)
        self._shapes: dict[str, _Shape] = {}
        self._buffers: dict[tuple[str, tuple[str, ...]], _Buffer] = {}
        # tables whose rows carry their own ids (and so their identity to move past them)
        self._with_ids: set[str] = set()
        self._full = False
        self._prepared = False  # whether `before_load` ran
        self._time = timestamp_converter(dialect)
        self.counts: dict[str, int] = {}

    def _shape(self, schema: Schema) -> _Shape:
        shape = self._shapes.get(schema.uid)
        if shape is None:
            shape = self._shapes[schema.uid] = _Shape(schema, self.dialect)
        return shape

    def _add(self, table: str, columns: tuple[str, ...], row: list[Any]) -> None:
        key = (table, columns)
        buf = self._buffers.get(key)
        if buf is None:
            buf = self._buffers[key] = _Buffer(table, columns)
        buf.rows.append(row)
        if len(buf.rows) >= buf.limit:
            self._full = True

    # ------------------------------------------------------------------ rows
    def entry(
        self,
        ct: ContentType,
        row_id: int,
        document_id: str,
        locale: str | None,
        published_at: Any,
        created_at: Any,
        updated_at: Any,
        data: Mapping[str, Any],
    ) -> None:
        """One version of a document (row `row_id`), its scalar values, components and
        dynamic zones from `data` (attribute name -> value in the API's JSON form; a
        component item keeps its `id`, a zone item names its `__component`). Relations and
        media are given apart (`relation`, `media`)."""
        shape = self._shape(ct)
        columns = ["id", "document_id", "locale", "published_at", "created_at", "updated_at"]
        try:
            row = [
                row_id,
                document_id,
                (locale or self.default_locale) if ct.localized else None,
                self._time(published_at if ct.draft_and_publish else published_at or created_at),
                self._time(created_at),
                self._time(updated_at),
            ]
        except ValueError as exc:
            raise self._error(ct, row_id, "timestamps", str(exc)) from None
        self._row(shape, ct.table, row_id, data, columns, row)

    def _scalars(
        self, shape: _Shape, row_id: int, data: Mapping[str, Any], cols: list[str], row: list[Any]
    ) -> None:
        """Every scalar column's value (NULL for an attribute the data lacks)."""
        get = data.get
        try:
            values = [get(name) for name in shape.texts]
            if not _TEXTUAL.issuperset(map(type, values)):
                raise TypeError("not a string")
            values += [convert(get(name)) for name, _, convert in shape.converted]
        except (InvalidValue, ValueError, TypeError, OverflowError):
            # one attribute at a time: a value to convert, or the one that does not fit
            values = []
            for name, _, convert in shape.scalars:
                try:
                    values.append(convert(get(name)))
                except (InvalidValue, ValueError, TypeError, OverflowError) as exc:
                    raise self._error(shape.schema, row_id, name, str(exc)) from None
        row += values
        cols += shape.columns

    def _components(self, shape: _Shape, owner_id: int, data: Mapping[str, Any]) -> None:
        for attr in shape.components:
            value = data.get(attr.name)
            if value is None:
                continue
            items = value if isinstance(value, list) else [value]
            for position, item in enumerate(items, start=1):
                if not isinstance(item, dict):
                    raise self._error(shape.schema, owner_id, attr.name, "not a component")
                uid = item.get("__component") if attr.type == "dynamiczone" else attr.component
                comp = self.registry.components.get(str(uid))
                if comp is None:
                    raise self._error(shape.schema, owner_id, attr.name, f"no component {uid}")
                cmp_id = item.get("id")
                if not isinstance(cmp_id, int) or isinstance(cmp_id, bool):
                    raise self._error(shape.schema, owner_id, attr.name, "a component without id")
                self.component(comp, cmp_id, item)
                self._add(
                    shape.cmps,
                    ("entity_id", "cmp_id", "component_type", "field", "position"),
                    [owner_id, cmp_id, comp.uid, attr.name, float(position)],
                )

    def component(self, comp: Component, cmp_id: int, data: Mapping[str, Any]) -> None:
        """One component row (with its own components)."""
        shape = self._shape(comp)
        columns = ["id"]
        row: list[Any] = [cmp_id]
        self._row(shape, comp.table, cmp_id, data, columns, row)

    def _row(
        self,
        shape: _Shape,
        table: str,
        row_id: int,
        data: Mapping[str, Any],
        columns: list[str],
        row: list[Any],
    ) -> None:
        """A row of an entry or a component: its scalar values after `row`'s, counted,
        then its components."""
        self._scalars(shape, row_id, data, columns, row)
        self._add(table, tuple(columns), row)
        self._with_ids.add(table)
        uid = shape.schema.uid
        self.counts[uid] = self.counts.get(uid, 0) + 1
        if shape.components:
            self._components(shape, row_id, data)

    def relation(
        self,
        owner: Schema,
        attr: Attribute,
        source_id: int,
        source_draft: bool,
        target_document_id: str,
        target_locale: str | None,
        target_status: str | None,
        position: float,
        inv_position: float,
    ) -> None:
        """One link of an owning relation attribute: from row `source_id` (a draft or not)
        to a document (in a locale, where its type has locales; in one status, where the
        link is status-scoped: from a source without drafts to a type with them)."""
        self.relation_writer(owner, attr)(
            source_id,
            source_draft,
            target_document_id,
            target_locale,
            target_status,
            position,
            inv_position,
        )

    def relation_writer(self, owner: Schema, attr: Attribute) -> RelationWriter:
        """`relation` for one attribute, its link table's shape worked out once: the form a
        load of a million links calls."""
        scoped = status_scoped(owner, attr, self.registry)
        drafts = source_drafts(owner)
        columns = ["source_id", "target_document_id", "target_locale", "position"]
        columns += ["inv_position", *(["target_status"] if scoped else [])]
        columns += [SOURCE_DRAFT] if drafts else []
        key = (link_table_name(owner, attr), tuple(columns))
        buf = self._buffers.get(key)
        if buf is None:
            buf = self._buffers[key] = _Buffer(*key)
        rows = buf.rows
        limit = buf.limit

        def write(
            source_id: int,
            source_draft: bool,
            target_document_id: str,
            target_locale: str | None,
            target_status: str | None,
            position: float,
            inv_position: float,
        ) -> None:
            row: list[Any] = [source_id, target_document_id, target_locale, position, inv_position]
            if scoped:
                row.append(target_status)
            if drafts:
                row.append(1 if source_draft else 0)
            rows.append(row)
            if len(rows) >= limit:
                self._full = True

        return write

    def media(
        self, file_id: int, owner: Schema, related_id: int, field: str, position: float
    ) -> None:
        """One file in a media field of an entry's or a component's row."""
        self._add(
            FILES_LINK_TABLE,
            ("file_id", "related_id", "related_type", "field", "position"),
            [file_id, related_id, owner.uid, field, position],
        )

    def _error(self, schema: Schema, row_id: int, name: str, message: str) -> LoadError:
        text = f"{schema.uid} id {row_id}, {name}: {message}"
        return LoadError(text, {"errors": [{"path": [name], "message": message}]})

    # ------------------------------------------------------------------ the program
    def _flush(self, everything: bool) -> Program:
        """Once a batch is full (and at the end), writes every buffered row: documents' and
        components' rows first, then the links' rows, which reference them."""
        if not everything and not self._full:
            return
        self._full = False
        if not self._prepared and any(buf.rows for buf in self._buffers.values()):
            # the first rows: the indexes are set aside now (a load that writes nothing,
            # such as a check that the tables are empty, leaves them alone)
            self._prepared = True
            yield from self.sql.before_load()
        rows_first = sorted(self._buffers.values(), key=lambda b: b.table not in self._with_ids)
        for buf in rows_first:
            # every buffer, full or not: a link's row may reference one still buffered
            while buf.rows:
                # in place: a relation writer holds on to the list
                batch = buf.rows[: buf.limit]
                del buf.rows[: buf.limit]
                yield insert_rows(buf.table, buf.columns, batch)

    def program(self, work: Callable[[BulkLoad], Iterator[Any]], replace: bool) -> Program:
        counts = yield from self.sql.content_counts()
        if counts:
            if not replace:
                raise NotEmpty(counts)
            yield from self.sql.clear()
        steps = work(self)
        while True:
            try:
                next(steps)
            except StopIteration as stop:
                result = stop.value
                break
            yield from self._flush(False)
        yield from self._flush(True)
        if self._prepared:
            yield from self.sql.after_load(sorted(self._with_ids))
        return result
