"""Bulk reads of stored rows, for an export: every version of every entry, its components
and its links, in id order, a bounded page at a time.

Unlike the document reads, these see every row whatever its status and locale, private
attributes included (a password's hash moves with its user), and name a relation's target
by its row id (the form the reference's archives use): a link names a target document and
locale, and is resolved here to the target's row of the same status as its source (a
draft's links to drafts, a published version's to published versions; a link that names a
status keeps to it). A link whose target version does not exist is not a link of that
row (a published version's link to a document never published)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from folio.content.sql.layout import (
    FILES_LINK_TABLE,
    SOURCE_DRAFT,
    components_table_name,
    link_table_name,
    relation_owner,
    source_drafts,
    status_scoped,
)
from folio.schema.model import Attribute, ContentType, Registry, Schema
from folio.store.database import Database
from folio.store.dialects.base import DATETIME, Dialect
from folio.store.program import Program, query

Converter = Callable[[Any], Any]


class Columns:
    """The select list of a table's rows: keys (JSON names) and their converters."""

    __slots__ = ("_converted", "convert", "keys", "sql")

    def __init__(self, sql: str, keys: tuple[str, ...], convert: tuple[Converter | None, ...]):
        self.sql = sql
        self.keys = keys
        self.convert = convert
        self._converted = [(keys[i], fn) for i, fn in enumerate(convert) if fn is not None]

    def record(self, row: Any) -> dict[str, Any]:
        out = dict(zip(self.keys, row, strict=True))
        for key, fn in self._converted:
            value = out[key]
            if value is not None:
                out[key] = fn(value)
        return out


def _columns(schema: Schema, dialect: Dialect) -> Columns:
    """Every scalar attribute (private ones too) and, for a content type, the system
    columns, in the reference's order: id, documentId, attributes, timestamps, locale."""
    stamp = dialect.output(DATETIME)
    cols = ["t.id"]
    keys = ["id"]
    convert: list[Converter | None] = [None]
    is_type = isinstance(schema, ContentType)
    if is_type:
        cols.append("t.document_id")
        keys.append("documentId")
        convert.append(None)
    for attr in schema.scalar_attributes:
        if attr.column is None:
            continue
        cols.append(attr.kind.select_expr(f"t.{dialect.quote(attr.column)}", dialect))
        keys.append(attr.name)
        convert.append(attr.kind.output(dialect))
    if is_type:
        for key, col in (
            ("createdAt", "created_at"),
            ("updatedAt", "updated_at"),
            ("publishedAt", "published_at"),
        ):
            cols.append(dialect.select_expr(DATETIME, f"t.{col}"))
            keys.append(key)
            convert.append(stamp)
        cols.append("t.locale")
        keys.append("locale")
        convert.append(None)
    return Columns(", ".join(cols), tuple(keys), tuple(convert))


@dataclass(frozen=True)
class Link:
    """One relation link resolved to rows: source row, target row, and the orders on
    both sides (None where a side has no order)."""

    id: int
    source: int
    target: int
    position: float | None
    inv_position: float | None


@dataclass(frozen=True)
class MediaLink:
    id: int
    file: int
    related: int
    related_type: str
    field: str
    position: float | None


class Dump:
    """Pages of rows, components and links, read on the app's reader connections."""

    def __init__(self, registry: Registry, db: Database) -> None:
        self.registry = registry
        self.db = db
        self.dialect = db.dialect
        self.quote = db.dialect.quote
        self._columns: dict[str, Columns] = {}

    def columns(self, schema: Schema) -> Columns:
        found = self._columns.get(schema.uid)
        if found is None:
            found = self._columns[schema.uid] = _columns(schema, self.dialect)
        return found

    # ------------------------------------------------------------------ rows
    async def rows(self, ct: ContentType, after: int, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` rows of `ct` with ids above `after`, in id order, each with its
        components (and theirs) under their attribute names."""
        cols = self.columns(ct)

        def program() -> Program:
            rows = yield query(
                f"SELECT {cols.sql} FROM {self.quote(ct.table)} t WHERE t.id > ? ORDER BY t.id "
                "LIMIT ?",
                (after, limit),
            )
            records = [cols.record(r) for r in rows]
            yield from self._attach_components(ct, records)
            return records

        found: list[dict[str, Any]] = await self.db.read(program())
        return found

    async def keys(self, ct: ContentType, after: int, limit: int) -> list[tuple[int, str]]:
        """Up to `limit` (id, documentId) of `ct`'s rows with ids above `after`."""

        def program() -> Program:
            rows = yield query(
                f"SELECT id, document_id FROM {self.quote(ct.table)} WHERE id > ? ORDER BY id "
                "LIMIT ?",
                (after, limit),
            )
            return [(int(r[0]), str(r[1])) for r in rows]

        found: list[tuple[int, str]] = await self.db.read(program())
        return found

    def _attach_components(self, schema: Schema, records: list[dict[str, Any]]) -> Program:
        """Sets each record's component and zone attributes (in schema order, after its
        other members): an object or None, a list, or a zone's list of entries with
        `__component`."""
        fields = [a for a in schema.attributes.values() if a.type in ("component", "dynamiczone")]
        if not fields or not records:
            return
        ids = [r["id"] for r in records]
        cond, params = self.dialect.one_of("entity_id", ids)
        links = yield query(
            f"SELECT entity_id, field, cmp_id, component_type FROM "
            f"{self.quote(components_table_name(schema))} WHERE {cond} ORDER BY entity_id, field, "
            "position",
            params,
        )
        wanted: dict[str, set[int]] = {}
        for _, _, cmp_id, ctype in links:
            wanted.setdefault(str(ctype), set()).add(int(cmp_id))
        loaded: dict[tuple[str, int], dict[str, Any]] = {}
        for ctype, cmp_ids in wanted.items():
            comp = self.registry.components.get(ctype)
            if comp is None:
                continue
            cols = self.columns(comp)
            cond, params = self.dialect.one_of("t.id", sorted(cmp_ids))
            rows = yield query(
                f"SELECT {cols.sql} FROM {self.quote(comp.table)} t WHERE {cond}", params
            )
            comps = [cols.record(r) for r in rows]
            yield from self._attach_components(comp, comps)
            for c in comps:
                loaded[(ctype, int(c["id"]))] = c
        by_entity: dict[int, dict[str, list[tuple[str, dict[str, Any]]]]] = {}
        for entity_id, field, cmp_id, ctype in links:
            found = loaded.get((str(ctype), int(cmp_id)))
            if found is not None:
                by_entity.setdefault(int(entity_id), {}).setdefault(str(field), []).append(
                    (str(ctype), found)
                )
        for record in records:
            mine = by_entity.get(int(record["id"]), {})
            for attr in fields:
                entries = mine.get(attr.name, [])
                if attr.type == "dynamiczone":
                    record[attr.name] = [{**c, "__component": t} for t, c in entries]
                elif attr.repeatable:
                    record[attr.name] = [c for _, c in entries]
                else:
                    record[attr.name] = entries[0][1] if entries else None

    # ------------------------------------------------------------------ links
    def owned_relations(self, schema: Schema) -> list[Attribute]:
        """The relation attributes whose links `schema`'s rows hold."""
        return [
            a
            for a in schema.attributes.values()
            if relation_owner(a) and a.target in self.registry.content_types
        ]

    async def links(self, schema: Schema, attr: Attribute, after: int, limit: int) -> list[Link]:
        """Up to `limit` links of an owning relation with link ids above `after`, each
        resolved to the target's row of the version it names."""
        assert attr.target is not None
        target = self.registry.content_types[attr.target]
        table = link_table_name(schema, attr)
        on = ["t.document_id = l.target_document_id"]
        if target.localized:
            on.append("t.locale = l.target_locale")
        if target.draft_and_publish:
            if source_drafts(schema):
                on.append(f"(t.published_at IS NULL) = (l.{SOURCE_DRAFT} = 1)")
            elif status_scoped(schema, attr, self.registry):
                # a link without a status follows its component's entry: a draft's
                # component links drafts, a published version's published versions (an
                # entry without drafts, or a component in a component: both)
                owner = self._owner_draft(schema)
                unnamed = (
                    "l.target_status IS NULL"
                    if owner is None
                    else f"l.target_status IS NULL AND ({owner} IS NULL OR "
                    f"(t.published_at IS NULL) = {owner})"
                )
                on.append(
                    f"(({unnamed}) OR (l.target_status IS NOT NULL AND "
                    "(t.published_at IS NULL) = (l.target_status = 'draft')))"
                )
        sql = (
            f"SELECT l.id, l.source_id, t.id, l.position, l.inv_position "
            f"FROM {self.quote(table)} l JOIN {self.quote(target.table)} t "
            f"ON {' AND '.join(on)} "
            f"WHERE l.id > ? ORDER BY l.id, t.id LIMIT ?"
        )

        def program() -> Program:
            rows = yield query(sql, (after, limit))
            return [Link(int(r[0]), int(r[1]), int(r[2]), r[3], r[4]) for r in rows]

        found: list[Link] = await self.db.read(program())
        return found

    def _owner_draft(self, schema: Schema) -> str | None:
        """For a component: an SQL term telling whether the entry holding the component
        row `l.source_id` directly is a draft (NULL where no entry with drafts holds it);
        None where no type with drafts holds this component directly."""
        if isinstance(schema, ContentType):
            return None
        terms = []
        for ct in self.registry.content_types.values():
            if not ct.draft_and_publish:
                continue
            holds = any(
                (a.type == "component" and a.component == schema.uid)
                or (a.type == "dynamiczone" and schema.uid in a.components)
                for a in ct.attributes.values()
            )
            if holds:
                terms.append(
                    "(SELECT (e.published_at IS NULL) FROM "
                    f"{self.quote(components_table_name(ct))} c "
                    f"JOIN {self.quote(ct.table)} e ON e.id = c.entity_id "
                    f"WHERE c.cmp_id = l.source_id AND c.component_type = '{schema.uid}' LIMIT 1)"
                )
        if not terms:
            return None
        return terms[0] if len(terms) == 1 else f"COALESCE({', '.join(terms)})"

    async def media_links(self, after: int, limit: int) -> list[MediaLink]:
        """Up to `limit` links of files to entries and components, above link id `after`."""

        def program() -> Program:
            rows = yield query(
                f"SELECT id, file_id, related_id, related_type, field, position "
                f"FROM {self.quote(FILES_LINK_TABLE)} WHERE id > ? ORDER BY id LIMIT ?",
                (after, limit),
            )
            return [
                MediaLink(int(r[0]), int(r[1]), int(r[2]), str(r[3]), str(r[4]), r[5]) for r in rows
            ]

        found: list[MediaLink] = await self.db.read(program())
        return found
