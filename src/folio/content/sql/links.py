"""Storage of relations, components, dynamic zones and media links, as programs that run in
the write transaction: apply a write, copy a row's links (publishing), delete what a row owns,
and detach a deleted document from the relations that point at it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from folio.content.links import (
    ComponentWrite,
    Entry,
    LinkWrite,
    MediaWrite,
    RelationWrite,
    is_to_one,
    missing_ids_error,
    relation_error,
)
from folio.content.sql.layout import (
    FILES_LINK_TABLE,
    FILES_TABLE,
    SOURCE_DRAFT,
    components_table_name,
    link_table_name,
    relation_owner,
    source_draft_expr,
    source_drafts,
    status_scoped,
)
from folio.errors import ApplicationError, FieldError, ValidationError, validation_failed
from folio.files.mime import in_media_groups
from folio.schema.model import Attribute, Component, ContentType, Registry, Schema
from folio.store.dialects.base import Dialect
from folio.store.program import Program, execute, marks, query


def _has_links(schema: Schema) -> bool:
    """Whether rows of `schema` may own links (relations, media, components) to copy."""
    return any(
        relation_owner(a) or a.type in ("media", "component", "dynamiczone")
        for a in schema.attributes.values()
    )


def _flat(comp: Schema) -> bool:
    """Whether rows of a component type own nothing but media links (no components, no
    relations)."""
    return not any(
        relation_owner(a) or a.type in ("component", "dynamiczone")
        for a in comp.attributes.values()
    )


def _fields_clause(fields: list[str] | None) -> tuple[str, list[str]]:
    """` AND field IN (...)` for a selection of fields, nothing for every field."""
    if fields is None:
        return "", []
    return f" AND field IN ({marks(len(fields))})", list(fields)


# a link as its owning row lists it: target document, locale and status (None: every
# version of the target, or a target without drafts)
LinkKey = tuple[str, str | None, str | None]

OTHER_STATUS = {"draft": "published", "published": "draft"}

# rows of values in one statement, where the database has no arrays (`_param_rows`): at
# most CHUNK a statement, padded to the next of ROW_SIZES
ROW_SIZES = (1, 4, 16, 64)
CHUNK = ROW_SIZES[-1]


def _drop(items: list[LinkKey], key: LinkKey) -> None:
    """Removes the links `key` covers: every version of the document in that locale when it
    names no status; else that version's, a link to every version becoming one to the other
    version."""
    doc, loc, status = key
    for i, (d, lo, st) in reversed(list(enumerate(items))):
        if d != doc or lo != loc:
            continue
        if status is None or st == status:
            del items[i]
        elif st is None:
            items[i] = (d, lo, OTHER_STATUS[status])


def _place(items: list[LinkKey], key: LinkKey, index: Any) -> None:
    """Connects `key` (moving it if listed): at `index(items)`, else at the end."""
    _drop(items, key)
    items.insert(len(items) if index is None else index(items), key)


class WriteContext:
    """Where a link write happens: the source document, its locale and the defaults."""

    def __init__(
        self,
        document_id: str | None,
        locale: str | None,
        default_locale: str,
        dialect: Dialect,
    ) -> None:
        self.document_id = document_id
        self.locale = locale
        self.default_locale = default_locale
        self.dialect = dialect
        # whether the written document has Draft & Publish: its links then follow its own
        # status, and the entries' `status` is not read (as the reference does)
        self.versioned = False
        # the rows this write inserted, as (schema uid, id): they own no links yet, which are
        # then neither read nor deleted first
        self.fresh: set[tuple[str, int]] = set()


class LinkStore:
    def __init__(self, registry: Registry, dialect: Dialect) -> None:
        self.registry = registry
        self.dialect = dialect
        self.quote = dialect.quote
        # content type uid -> owner-side relation attributes that target it
        self.incoming: dict[str, list[tuple[Schema, Attribute]]] = defaultdict(list)
        for schema in [*registry.content_types.values(), *registry.components.values()]:
            for attr in schema.attributes.values():
                if relation_owner(attr) and attr.target:
                    self.incoming[attr.target].append((schema, attr))

    # ------------------------------------------------------------------ apply
    def apply(
        self, schema: Schema, row_id: int, links: list[LinkWrite], ctx: WriteContext
    ) -> Program:
        if isinstance(schema, ContentType):
            ctx.versioned = schema.draft_and_publish
        for write in links:
            if isinstance(write, RelationWrite):
                if write.attr.mapped_by is None:
                    yield from self._owner_relation(schema, row_id, write, ctx)
                else:
                    yield from self._inverse_relation(schema, write, ctx)
            elif isinstance(write, ComponentWrite):
                yield from self._components(schema, row_id, write, ctx)
            elif isinstance(write, MediaWrite):
                yield from self._media(schema, row_id, write, (schema.uid, row_id) in ctx.fresh)

    def _target(self, attr: Attribute) -> ContentType:
        target = self.registry.content_types.get(str(attr.target))
        if target is None:
            raise ValidationError(f"{attr.name}: relations to {attr.target} cannot be written")
        return target

    def _target_locale(self, target: ContentType, entry: Entry, ctx: WriteContext) -> str | None:
        if not target.localized:
            return None
        return entry.locale or ctx.locale or ctx.default_locale

    def _target_status(self, target: ContentType, entry: Entry, ctx: WriteContext) -> str | None:
        """The version an entry names: from a document without drafts to a type with them,
        the entry's `status` (None: every version)."""
        if ctx.versioned or not target.draft_and_publish:
            return None
        return entry.status

    def _resolve(
        self, target: ContentType, entries: list[Entry], ctx: WriteContext, check: list[Entry]
    ) -> Program:
        """Numeric ids -> documentIds; checks that `check` entries exist in their locale
        (and status, where they name one)."""
        numeric = sorted({e.numeric_id for e in entries if e.numeric_id is not None})
        if numeric:
            among, among_params = self._among("id", numeric)
            rows = yield query(
                f"SELECT id, document_id FROM {self.quote(target.table)} WHERE {among}",
                among_params,
            )
            by_id = {int(r[0]): r[1] for r in rows}
            missing = [n for n in numeric if n not in by_id]
            if missing:
                raise missing_ids_error(target.uid, len(missing))
            for e in entries:
                if e.numeric_id is not None:
                    e.document_id = by_id[e.numeric_id]
        ids = sorted({str(e.document_id) for e in check})
        if not ids:
            return
        among, among_params = self._among("document_id", ids)
        rows = yield query(
            f"SELECT DISTINCT document_id, locale, published_at IS NULL "
            f"FROM {self.quote(target.table)} WHERE {among}",
            among_params,
        )
        present = {
            (r[0], r[1] if target.localized else None, "draft" if r[2] else "published")
            for r in rows
        }
        for e in check:
            locale = self._target_locale(target, e, ctx)
            status = self._target_status(target, e, ctx)
            statuses = ("draft", "published") if status is None else (status,)
            if not any((e.document_id, locale, st) in present for st in statuses):
                raise relation_error(e.document_id, locale)

    def _owner_relation(
        self, schema: Schema, row_id: int, write: RelationWrite, ctx: WriteContext
    ) -> Program:
        attr = write.attr
        target = self._target(attr)
        table = link_table_name(schema, attr)
        scoped = status_scoped(schema, attr, self.registry)
        drafts = source_drafts(schema)
        all_entries = [*(write.set or []), *write.connect, *write.disconnect]
        yield from self._resolve(target, all_entries, ctx, all_entries)
        status_col = "target_status" if scoped else "NULL"
        new_row = (schema.uid, row_id) in ctx.fresh
        rows = []
        if not new_row:
            rows = yield query(
                f"SELECT target_document_id, target_locale, {status_col}, inv_position FROM "
                f"{self.quote(table)} WHERE source_id = ? ORDER BY position, id",
                (row_id,),
            )
        current: list[LinkKey] = [(r[0], r[1], r[2]) for r in rows]
        inv = {(r[0], r[1]): r[3] for r in rows}

        def key(e: Entry) -> LinkKey:
            return (
                str(e.document_id),
                self._target_locale(target, e, ctx),
                self._target_status(target, e, ctx),
            )

        if write.set is not None:
            new: list[LinkKey] = []
            for e in write.set:
                _place(new, key(e), None)
        else:
            new = list(current)
            for e in write.disconnect:
                _drop(new, key(e))
            for e in write.connect:
                _place(new, key(e), lambda items, e=e: self._position_index(items, e, attr))
        if is_to_one(attr) and len(new) > 1:
            new = (
                new[-1:] if write.set is not None or not write.connect else [key(write.connect[-1])]
            )
        if new == current:
            return
        if not new_row:
            yield execute(f"DELETE FROM {self.quote(table)} WHERE source_id = ?", (row_id,))
        if not new:
            return
        fresh = sorted({doc for doc, loc, _ in new if (doc, loc) not in inv})
        top: dict[str, float] = {}
        if fresh:
            among, among_params = self._among("target_document_id", fresh)
            got = yield query(
                f"SELECT target_document_id, MAX(inv_position) FROM {self.quote(table)} "
                f"WHERE {among} GROUP BY target_document_id",
                among_params,
            )
            top = {r[0]: float(r[1] or 0) for r in got}
        links: list[tuple[Any, ...]] = []
        for i, (doc, loc, status) in enumerate(new, start=1):
            position = inv.get((doc, loc))
            if position is None:
                position = top.get(doc, 0.0) + 1
                top[doc] = position
                inv[(doc, loc)] = position
            links.append((doc, loc, *([status] if scoped else []), float(i), position))
        cols = "target_document_id, target_locale, "
        cols += "target_status, " if scoped else ""
        cols += "position, inv_position"
        types = ("text", "text", *(["text"] if scoped else []), "float8", "float8")
        picked = ", ".join(f"m.c{n}" for n in range(len(types)))
        draft = ""
        if drafts:
            cols += f", {SOURCE_DRAFT}"
            draft = ", " + source_draft_expr(self.dialect, schema.table, "?")
        for rows_sql, params, keep in self._param_rows(types, links):
            # (the rows in their order: the table's, else the parameters')
            yield execute(
                f"INSERT INTO {self.quote(table)} (source_id, {cols}) "
                f"SELECT ?, {picked}{draft} FROM {rows_sql}"
                f"{keep.replace(' AND', ' WHERE', 1)}",
                [row_id, *([row_id] if drafts else []), *params],
            )
        if attr.relation == "oneToOne" and isinstance(schema, ContentType):
            # the other side holds at most one document too
            docs = sorted({doc for doc, _, _ in new})
            among, among_params = self._among("target_document_id", docs)
            yield execute(
                f"DELETE FROM {self.quote(table)} "
                f"WHERE {among} AND source_id IN "
                f"(SELECT id FROM {self.quote(schema.table)} WHERE document_id <> ?)",
                [*among_params, ctx.document_id],
            )

    def _position_index(self, items: list[LinkKey], entry: Entry, attr: Attribute) -> int:
        if entry.position is None or entry.position[0] == "end":
            return len(items)
        kind, ref = entry.position
        if kind == "start":
            return 0
        for i, (doc, _, _) in enumerate(items):
            if doc == ref:
                return i if kind == "before" else i + 1
        raise validation_failed(
            [
                FieldError(
                    [attr.name, "connect"],
                    f"The relation with id {ref} used in a {kind} position is not connected",
                    ref,
                )
            ]
        )

    def _inverse_relation(self, schema: Schema, write: RelationWrite, ctx: WriteContext) -> Program:
        attr = write.attr
        owner = self._target(attr)
        owner_attr = owner.attributes.get(str(attr.mapped_by))
        if owner_attr is None or not isinstance(schema, ContentType):
            return
        table = link_table_name(owner, owner_attr)
        our_locale = ctx.locale if schema.localized else None
        all_entries = [*(write.set or []), *write.connect, *write.disconnect]
        yield from self._resolve(owner, all_entries, ctx, all_entries)
        loc_sql = "target_locale = ?" if our_locale is not None else "target_locale IS NULL"
        loc_params = [our_locale] if our_locale is not None else []
        drafts = source_drafts(owner)
        # each owner row's `source_draft` (NULL where its links have none)
        draft_flag = "CASE WHEN published_at IS NULL THEN 1 ELSE 0 END" if drafts else "NULL"

        def owner_rows(entries: list[Entry]) -> Program:
            """The rows of the named documents, in the locale each entry names (else the
            write's, else the default one)."""
            if not entries:
                return []
            wanted = {
                (
                    str(e.document_id),
                    self._target_locale(owner, e, ctx),
                    self._target_status(owner, e, ctx),
                )
                for e in entries
            }
            terms: list[str] = []
            params: list[Any] = []
            table_ref = self.quote(owner.table)
            for doc, locale, status in sorted(wanted, key=str):
                term = "document_id = ?"
                params.append(doc)
                if owner.localized:
                    # the version index's terms, which answer it
                    term += " AND COALESCE(locale, '') = ?"
                    params.append(locale)
                if status is not None:
                    flag = self.dialect.version_flag(table_ref, status == "draft")
                    term += f" AND {flag}"
                terms.append(f"({term})")
            rows = yield query(
                f"SELECT id, document_id, {draft_flag} FROM {self.quote(owner.table)} WHERE "
                + " OR ".join(terms),
                params,
            )
            return rows

        if write.set is not None:
            yield execute(
                f"DELETE FROM {self.quote(table)} WHERE target_document_id = ? AND {loc_sql}",
                [ctx.document_id, *loc_params],
            )
        if write.disconnect:
            rows = yield from owner_rows(write.disconnect)
            ids = [int(r[0]) for r in rows]
            if ids:
                yield execute(
                    f"DELETE FROM {self.quote(table)} WHERE target_document_id = ? AND "
                    f"{loc_sql} AND source_id IN ({marks(len(ids))})",
                    [ctx.document_id, *loc_params, *ids],
                )
        adds = write.set if write.set is not None else write.connect
        if not adds:
            return
        rows = yield from owner_rows(adds)
        order = {str(e.document_id): i for i, e in enumerate(adds, start=1)}
        ids = [int(r[0]) for r in rows]
        if not ids:
            return
        if is_to_one(owner_attr):
            yield execute(
                f"DELETE FROM {self.quote(table)} WHERE source_id IN ({marks(len(ids))})", ids
            )
        else:
            yield execute(
                f"DELETE FROM {self.quote(table)} WHERE target_document_id = ? AND {loc_sql} "
                f"AND source_id IN ({marks(len(ids))})",
                [ctx.document_id, *loc_params, *ids],
            )
        if attr.relation == "oneToOne":
            yield execute(
                f"DELETE FROM {self.quote(table)} WHERE target_document_id = ? AND {loc_sql}",
                [ctx.document_id, *loc_params],
            )
        tops = yield query(
            f"SELECT source_id, MAX(position) FROM {self.quote(table)} WHERE source_id IN "
            f"({marks(len(ids))}) GROUP BY source_id",
            ids,
        )
        top = {int(r[0]): float(r[1] or 0) for r in tops}
        # connected documents go after the ones this document already lists (a set removed
        # them all first)
        last = yield query(
            f"SELECT MAX(inv_position) FROM {self.quote(table)} "
            f"WHERE target_document_id = ? AND {loc_sql}",
            [ctx.document_id, *loc_params],
        )
        base = float(last[0][0] or 0) if last else 0.0
        values: list[Any] = []
        for row in rows:
            rid = int(row[0])
            values.extend(
                [
                    rid,
                    ctx.document_id,
                    our_locale,
                    top.get(rid, 0.0) + 1,
                    base + float(order[row[1]]),
                    *([int(row[2])] if drafts else []),
                ]
            )
        cols = "source_id, target_document_id, target_locale, position, inv_position"
        if drafts:
            cols += f", {SOURCE_DRAFT}"
        row_marks = f"({marks(6 if drafts else 5)})"
        yield execute(
            f"INSERT INTO {self.quote(table)} ({cols}) VALUES "
            + ", ".join([row_marks] * len(rows)),
            values,
        )

    def _components(
        self, schema: Schema, row_id: int, write: ComponentWrite, ctx: WriteContext
    ) -> Program:
        """Writes a component field: the components named by their id (they must be this
        row's, in this field) are updated in place, the others are created, and the row's
        components no longer listed are deleted. Every link of the field is rewritten, so the
        positions follow the given order."""
        attr = write.attr
        cmps = components_table_name(schema)
        new_row = (schema.uid, row_id) in ctx.fresh
        rows = []
        if not new_row:
            rows = yield query(
                f"SELECT cmp_id, component_type FROM {self.quote(cmps)} "
                "WHERE entity_id = ? AND field = ?",
                (row_id, attr.name),
            )
        owned = {(int(r[0]), str(r[1])) for r in rows}
        kept: set[tuple[int, str]] = set()
        for item in write.items:
            key = (item.id, item.component.uid)
            if item.id is None:
                continue
            if (
                not isinstance(item.id, int)
                or isinstance(item.id, bool)
                or key not in owned
                or (key in kept)
            ):
                # checked before anything of the field is written; the transaction also
                # rolls back what earlier fields wrote
                raise ApplicationError(
                    f"Some of the provided components in {attr.name} are not related to the entity"
                )
            kept.add(key)
        if not new_row:
            yield from self._delete_components(sorted(owned - kept))
            yield execute(
                f"DELETE FROM {self.quote(cmps)} WHERE entity_id = ? AND field = ?",
                (row_id, attr.name),
            )
        # the new components' rows: one multi-row INSERT per component table (per chunk of
        # a power of two rows), every scalar column named (those not given NULL, as an
        # INSERT that leaves them out makes them)
        comp_ids: list[int] = [0] * len(write.items)
        fresh: dict[str, list[int]] = defaultdict(list)
        # PostgreSQL: the kept components' new values, by table and columns set
        changed: dict[tuple[str, tuple[str, ...]], list[tuple[int, dict[str, Any]]]]
        changed = defaultdict(list)
        for n, item in enumerate(write.items):
            comp, written = item.component, item.written
            values = {
                a.column: a.kind.to_db(v, self.dialect)
                for a, v in written.values.items()
                if a.column is not None
            }
            if item.id is not None:
                comp_ids[n] = int(item.id)
                if values and self.dialect.arrays:
                    changed[(comp.uid, tuple(values))].append((comp_ids[n], values))
                elif values:
                    sets = ", ".join(f"{self.quote(c)} = ?" for c in values)
                    yield execute(
                        f"UPDATE {self.quote(comp.table)} SET {sets} WHERE id = ?",
                        [*values.values(), comp_ids[n]],
                    )
            elif any(a.column is not None for a in comp.scalar_attributes):
                fresh[comp.uid].append(n)
            else:
                comp_ids[n] = yield from self.dialect.insert_default_id(comp.table)
        for (uid, columns), updates in changed.items():
            yield from self._update_components(self.registry.components[uid], columns, updates)
        for uid, numbers in fresh.items():
            comp = self.registry.components[uid]
            made = yield from self._insert_components(comp, [write.items[n] for n in numbers])
            for n, new_id in zip(numbers, made, strict=True):
                comp_ids[n] = new_id
        links = [
            (row_id, comp_ids[n], item.component.uid, attr.name, float(n + 1))
            for n, item in enumerate(write.items)
        ]
        types = ("bigint", "bigint", "text", "text", "float8")
        for rows_sql, params, keep in self._param_rows(types, links) if links else []:
            yield execute(
                f"INSERT INTO {self.quote(cmps)} (entity_id, cmp_id, component_type, field, "
                f"position) SELECT m.c0, m.c1, m.c2, m.c3, m.c4 FROM {rows_sql}"
                f"{keep.replace(' AND', ' WHERE', 1)}",
                params,
            )
        for n, item in enumerate(write.items):
            if item.written.links:
                if item.id is None:
                    ctx.fresh.add((item.component.uid, comp_ids[n]))
                yield from self.apply(item.component, comp_ids[n], item.written.links, ctx)

    def _update_components(
        self,
        comp: Component,
        columns: tuple[str, ...],
        updates: list[tuple[int, dict[str, Any]]],
    ) -> Program:
        """Sets `columns` of the component rows of `updates` ((id, values) pairs) in one
        UPDATE ... FROM unnest of one array per column, in the columns' own types
        (PostgreSQL)."""
        types = {str(a.column): a.kind.column_type(a, self.dialect) for a in comp.scalar_attributes}
        table = self.quote(comp.table)
        casts = ", ".join(["?::bigint[]", *(f"?::{types[c]}[]" for c in columns)])
        names = ", ".join(["id", *(f"c{i}" for i in range(len(columns)))])
        sets = ", ".join(f"{self.quote(c)} = m.c{i}" for i, c in enumerate(columns))
        arrays = [[i for i, _ in updates], *([v[c] for _, v in updates] for c in columns)]
        yield execute(
            f"UPDATE {table} SET {sets} FROM unnest({casts}) AS m({names}) WHERE {table}.id = m.id",
            arrays,
        )

    def _insert_components(self, comp: Component, items: list[Any]) -> Program:
        """Inserts a component row for each of `items` (component entries), in order: their
        ids. PostgreSQL: one INSERT of one array per column (`unnest`, in the columns' own
        types); elsewhere one multi-row INSERT per chunk of a power of two rows (at most 64),
        so that few texts are prepared."""
        attrs = [a for a in comp.scalar_attributes if a.column is not None]
        names = ", ".join(self.quote(str(a.column)) for a in attrs)
        table = self.quote(comp.table)
        rows = []
        for item in items:
            given = {
                a.column: a.kind.to_db(v, self.dialect)
                for a, v in item.written.values.items()
                if a.column is not None
            }
            rows.append([given.get(a.column) for a in attrs])
        if self.dialect.arrays:
            arrays = [[r[i] for r in rows] for i in range(len(attrs))]
            casts = ", ".join(f"?::{a.kind.column_type(a, self.dialect)}[]" for a in attrs)
            picked = ", ".join(f"m.c{i}" for i in range(len(attrs)))
            made: list[int] = yield from self.dialect.insert_ids(
                f"INSERT INTO {table} ({names}) SELECT {picked} FROM unnest({casts}) "
                f"WITH ORDINALITY AS m({picked.replace('m.', '')}, n) ORDER BY m.n",
                arrays,
                len(rows),
            )
            return made
        ids: list[int] = []
        row = f"({marks(len(attrs))})"
        while len(ids) < len(rows):
            size = 1 << min((len(rows) - len(ids)).bit_length() - 1, 6)
            chunk = rows[len(ids) : len(ids) + size]
            new: list[int] = yield from self.dialect.insert_ids(
                f"INSERT INTO {table} ({names}) VALUES " + ", ".join([row] * size),
                [v for r in chunk for v in r],
                size,
            )
            ids.extend(new)
        return ids

    def _media(
        self, schema: Schema, row_id: int, write: MediaWrite, fresh: bool = False
    ) -> Program:
        """Links the files of a media field (named by id or documentId), after checking
        that each exists and is of an allowed type."""
        attr = write.attr
        given = list(dict.fromkeys(write.file_ids))
        ids: list[int] = []
        if given:
            numbers = [f for f in given if isinstance(f, int)]
            documents = [f for f in given if isinstance(f, str)]
            where = []
            params: list[Any] = []
            for column, values in (("id", numbers), ("document_id", documents)):
                if values:
                    term, term_params = self._among(column, values)
                    where.append(term)
                    params.extend(term_params)
            rows = yield query(
                f"SELECT id, document_id, mime FROM {self.quote(FILES_TABLE)} WHERE "
                + " OR ".join(where),
                params,
            )
            found = {int(r[0]): r[2] or "" for r in rows}
            by_document = {str(r[1]): int(r[0]) for r in rows}
            errors = []
            for i, name in enumerate(given):
                path: list[str | int] = [attr.name, i] if attr.multiple else [attr.name]
                fid = name if isinstance(name, int) else by_document.get(name)
                if fid is None or fid not in found:
                    errors.append(FieldError(path, f"File with id {name} not found", name))
                elif attr.allowed_types and not in_media_groups(found[fid], attr.allowed_types):
                    errors.append(
                        FieldError(
                            path,
                            f"File with id {name} ({found[fid]}) is not one of the allowed "
                            f"types: {', '.join(attr.allowed_types)}",
                            name,
                        )
                    )
                elif fid not in ids:
                    ids.append(fid)
            if errors:
                raise validation_failed(errors)
        if not fresh:
            yield execute(
                f"DELETE FROM {self.quote(FILES_LINK_TABLE)} WHERE related_type = ? AND "
                "related_id = ? AND field = ?",
                (schema.uid, row_id, attr.name),
            )
        if ids:
            rows = [(fid, float(i)) for i, fid in enumerate(ids, start=1)]
            for rows_sql, params, keep in self._param_rows(("bigint", "float8"), rows):
                yield execute(
                    f"INSERT INTO {self.quote(FILES_LINK_TABLE)} (file_id, related_id, "
                    f"related_type, field, position) SELECT m.c0, ?, ?, ?, m.c1 FROM {rows_sql}"
                    f"{keep.replace(' AND', ' WHERE', 1)}",
                    [row_id, schema.uid, attr.name, *params],
                )

    # ------------------------------------------------------------------ copy and delete
    def _link_columns(self, schema: Schema, attr: Attribute) -> list[str]:
        """The columns of an owning relation's links that a copy takes as they are."""
        cols = ["target_document_id", "target_locale", "position", "inv_position"]
        if status_scoped(schema, attr, self.registry):
            cols.append("target_status")
        return cols

    def copy(
        self, schema: Schema, from_id: int, to_id: int, fields: list[str] | None = None
    ) -> Program:
        """Copies the relations, components and media of one row to another (publishing), or
        only those of `fields` (sharing values between locales). Copying them all, the
        media links of the row and of its components are copied in one statement, last."""
        media: list[tuple[int, int, str]] | None = [] if fields is None else None
        yield from self._copy_rows(schema, [(from_id, to_id)], fields, media)
        if media:
            yield from self._copy_media(media)

    def _copy_rows(
        self,
        schema: Schema,
        pairs: list[tuple[int, int]],
        fields: list[str] | None = None,
        media: list[tuple[int, int, str]] | None = None,
    ) -> Program:
        """Copies the links of each row `a` of `(a, b)` pairs to row `b`: a number of
        statements that depends on the schema, not on how many rows or links there are (the
        rows of many pairs are named by one parameter table, `_param_rows`). Where `media`
        is given, the media links to copy are left in it as (a, b, type) instead."""
        attrs = [a for a in schema.attributes.values() if fields is None or a.name in fields]
        only, only_params = _fields_clause(fields)
        q = self.quote
        one = len(pairs) == 1
        for attr in attrs:
            if not relation_owner(attr):
                continue
            table = q(link_table_name(schema, attr))
            cols = self._link_columns(schema, attr)
            names = ", ".join(cols)
            picked = ", ".join(f"l.{c}" for c in cols)
            # the copy's own status (publishing copies a draft's links)
            drafts = source_drafts(schema)
            if one:
                from_id, to_id = pairs[0]
                draft = f", {source_draft_expr(self.dialect, schema.table, '?')}" if drafts else ""
                yield execute(
                    f"INSERT INTO {table} (source_id, {names}"
                    f"{f', {SOURCE_DRAFT}' if drafts else ''}) "
                    f"SELECT ?, {picked}{draft} FROM {table} l WHERE l.source_id = ? ORDER BY l.id",
                    (to_id, *([to_id] if drafts else []), from_id),
                )
                continue
            for rows_sql, params, keep in self._param_rows(("bigint", "bigint"), pairs):
                draft = (
                    f", {source_draft_expr(self.dialect, schema.table, 'm.c1')}" if drafts else ""
                )
                yield execute(
                    f"INSERT INTO {table} (source_id, {names}"
                    f"{f', {SOURCE_DRAFT}' if drafts else ''}) "
                    f"SELECT m.c1, {picked}{draft} FROM {rows_sql} "
                    f"JOIN {table} l ON l.source_id = m.c0{keep} ORDER BY l.id",
                    params,
                )
        if any(a.type == "media" for a in attrs):
            triples = [(a, b, schema.uid) for a, b in pairs]
            if media is not None:
                media.extend(triples)
            else:
                yield from self._copy_media(triples, only, only_params)
        if any(a.type in ("component", "dynamiczone") for a in attrs):
            yield from self._copy_components(schema, pairs, only, only_params, media)

    def _copy_media(
        self, media: list[tuple[int, int, str]], only: str = "", only_params: Sequence[str] = ()
    ) -> Program:
        """The media links of rows `a` copied to rows `b`, for (a, b, the rows' type)
        triples of rows of any types, or only those of the fields `only` names
        (`_fields_clause`): one statement (per `CHUNK` rows where the database has no
        arrays)."""
        files = self.quote(FILES_LINK_TABLE)
        fields = only.replace("field", "f.field")
        for rows_sql, params, keep in self._param_rows(("bigint", "bigint", "text"), media):
            yield execute(
                f"INSERT INTO {files} (file_id, related_id, related_type, field, position) "
                f"SELECT f.file_id, m.c1, f.related_type, f.field, f.position FROM {rows_sql} "
                f"JOIN {files} f ON f.related_type = m.c2 AND f.related_id = m.c0{keep}{fields} "
                "ORDER BY f.id",
                [*params, *only_params],
            )

    def _copy_components(
        self,
        schema: Schema,
        pairs: list[tuple[int, int]],
        only: str,
        only_params: list[str],
        media: list[tuple[int, int, str]] | None = None,
    ) -> Program:
        """The components of rows `a` copied (their rows, then their own links) for rows
        `b`: one INSERT per component type present, one for the links; the media links of
        the copies left in `media` where it is given."""
        q = self.quote
        cmps = q(components_table_name(schema))
        if len(pairs) == 1:
            rows = yield query(
                f"SELECT entity_id, cmp_id, component_type, field, position FROM {cmps} "
                f"WHERE entity_id = ?{only} ORDER BY id",
                (pairs[0][0], *only_params),
            )
        else:
            rows = []
            for rows_sql, params, keep in self._param_rows(("bigint",), [(a,) for a, _ in pairs]):
                got = yield query(
                    "SELECT l.entity_id, l.cmp_id, l.component_type, l.field, l.position "
                    f"FROM {rows_sql} JOIN {cmps} l ON l.entity_id = m.c0{keep}"
                    f"{only.replace('field', 'l.field')} ORDER BY l.id",
                    [*params, *only_params],
                )
                rows.extend(got)
        if not rows:
            return
        target = dict(pairs)
        by_type: dict[str, list[int]] = defaultdict(list)
        for _, cmp_id, uid, _, _ in rows:
            by_type[str(uid)].append(int(cmp_id))
        new_of: dict[tuple[str, int], int] = {}
        for uid, old_ids in by_type.items():
            comp = self.registry.components[uid]
            mapped = yield from self._copy_component_rows(comp, sorted(old_ids))
            new_of.update(((uid, old), new) for old, new in mapped.items())
            if _has_links(comp):
                yield from self._copy_rows(comp, sorted(mapped.items()), None, media)
        links = [
            (target[int(entity)], new_of[(str(uid), int(cmp_id))], uid, fld, float(position))
            for entity, cmp_id, uid, fld, position in rows
        ]
        for rows_sql, params, keep in self._param_rows(
            ("bigint", "bigint", "text", "text", "float8"), links
        ):
            yield execute(
                f"INSERT INTO {cmps} (entity_id, cmp_id, component_type, field, position) "
                f"SELECT m.c0, m.c1, m.c2, m.c3, m.c4 FROM {rows_sql}"
                f"{keep.replace(' AND', ' WHERE', 1)}",
                params,
            )

    # ------------------------------------------------------------------ versions compared
    def _same_rows(
        self,
        table: str,
        key: str,
        a: str,
        b: str,
        same: str,
        scope: str = "",
        x: str = "x",
        y: str = "y",
    ) -> str:
        """SQL: the rows of `table` whose `key` is `a` are those whose `key` is `b` (SQL
        terms): as many, and each of the first with one of the second for which `same`
        holds (a condition on the aliases `x`, the first's row, and `y`, the second's);
        `scope` (a condition on the columns of alias `{x}`) narrows both sides."""
        sx, sy = scope.format(x=x), scope.format(x=y)
        return (
            f"(SELECT COUNT(*) FROM {table} {x} WHERE {x}.{key} = {a}{sx}) = "
            f"(SELECT COUNT(*) FROM {table} {y} WHERE {y}.{key} = {b}{sy}) AND NOT EXISTS "
            f"(SELECT 1 FROM {table} {x} WHERE {x}.{key} = {a}{sx} AND NOT EXISTS (SELECT 1 "
            f"FROM {table} {y} WHERE {y}.{key} = {b}{sy} AND {same}))"
        )

    def _alike(self, cols: list[str]) -> str:
        """SQL: rows `x` and `y` hold the same `cols` (NULL alike NULL)."""
        return " AND ".join(self.dialect.distinct(f"y.{c}", f"x.{c}", negated=True) for c in cols)

    def _same_links(self, schema: Schema, a: str, b: str) -> list[str]:
        """SQL conditions: the rows `a` and `b` of `schema` (SQL terms) own the same
        relation links and media links."""
        q = self.quote
        lit = self.dialect.literal
        parts = [
            self._same_rows(
                q(link_table_name(schema, attr)),
                "source_id",
                a,
                b,
                self._alike(self._link_columns(schema, attr)),
            )
            for attr in schema.attributes.values()
            if relation_owner(attr)
        ]
        if any(attr.type == "media" for attr in schema.attributes.values()):
            parts.append(
                self._same_rows(
                    q(FILES_LINK_TABLE),
                    "related_id",
                    a,
                    b,
                    self._alike(["field", "position", "file_id"]),
                    f" AND {{x}}.related_type = {lit(schema.uid)}",
                )
            )
        return parts

    def same_owned(self, schema: Schema, row: str) -> tuple[str, int] | None:
        """SQL whose value is true where the row whose id is the parameter `?` (the draft;
        bound the returned number of times, each `?` of the text) owns the same relations,
        media links and components as the row `row` (an SQL term: its published version),
        so that publishing need copy neither; None where components hold components, which
        are not compared (publishing then copies them all)."""
        comps = self._components_of(schema)
        if any(
            a.type in ("component", "dynamiczone")
            for comp in comps
            for a in comp.attributes.values()
        ):
            return None
        d = self.dialect
        parts = self._same_links(schema, "?", row)
        bound = 2 * len(parts)  # (each compares the draft's rows twice)
        if comps:
            bound += 2
            cmps = self.quote(components_table_name(schema))
            kinds = []
            for comp in comps:
                table = self.quote(comp.table)
                cols = [self.quote(a.column) for a in comp.scalar_attributes if a.column]
                alike = "".join(
                    f" AND {d.distinct(d.comparable(f'cb.{c}'), d.comparable(f'ca.{c}'), True)}"
                    for c in cols
                )
                kind = [
                    f"b.component_type = {d.literal(comp.uid)}",
                    f"EXISTS (SELECT 1 FROM {table} ca, {table} cb WHERE ca.id = a.cmp_id "
                    f"AND cb.id = b.cmp_id{alike})",
                    *self._same_links(comp, "a.cmp_id", "b.cmp_id"),
                ]
                kinds.append("(" + " AND ".join(kind) + ")")
            # (aliases a and b: each kind's link comparisons use x and y inside)
            same = (
                "b.component_type = a.component_type AND b.field = a.field AND "
                f"b.position = a.position AND ({' OR '.join(kinds)})"
            )
            parts.append(self._same_rows(cmps, "entity_id", "?", row, same, x="a", y="b"))
        return (" AND ".join(f"({p})" for p in parts) if parts else "1 = 1"), bound

    # ------------------------------------------------------------------ versions in one statement
    def whole_copy(self, schema: Schema) -> bool:
        """Whether a version of `schema` is deleted and copied in one statement each
        (`delete_version_sql`, `copy_version_ctes`): where the database runs writes in WITH,
        and its components hold no components of their own."""
        return self.dialect.writable_ctes and not any(
            a.type in ("component", "dynamiczone")
            for comp in self._components_of(schema)
            for a in comp.attributes.values()
        )

    def _components_of(self, schema: Schema) -> list[Component]:
        """The component types a row of `schema` may hold, in a stable order."""
        uids: dict[str, None] = {}
        for attr in schema.attributes.values():
            if attr.type == "component" and attr.component:
                uids[attr.component] = None
            elif attr.type == "dynamiczone":
                uids.update(dict.fromkeys(attr.components))
        return [self.registry.components[u] for u in uids if u in self.registry.components]

    def delete_version_ctes(self, schema: Schema, old: str) -> list[str]:
        """WITH parts deleting what the rows of CTE `old` (its `id`s; the rows themselves
        deleted by it) own: their components (and what those own) and media links."""
        q = self.quote
        lit = self.dialect.literal
        parts: list[str] = []
        comps = self._components_of(schema)
        if comps:
            parts.append(
                f"oc AS (SELECT cmp_id, component_type FROM {q(components_table_name(schema))} "
                f"WHERE entity_id IN (SELECT id FROM {old}))"
            )
            for n, comp in enumerate(comps):
                picked = f"(SELECT cmp_id FROM oc WHERE component_type = {lit(comp.uid)})"
                parts.append(f"oc{n} AS (DELETE FROM {q(comp.table)} WHERE id IN {picked})")
                if any(a.type == "media" for a in comp.attributes.values()):
                    parts.append(
                        f"of{n} AS (DELETE FROM {q(FILES_LINK_TABLE)} WHERE related_type = "
                        f"{lit(comp.uid)} AND related_id IN {picked})"
                    )
        if any(a.type == "media" for a in schema.attributes.values()):
            parts.append(
                f"om AS (DELETE FROM {q(FILES_LINK_TABLE)} WHERE related_type = "
                f"{lit(schema.uid)} AND related_id IN (SELECT id FROM {old}))"
            )
        return parts

    def copy_version_ctes(self, schema: Schema, new: str, draft: str) -> list[str]:
        """WITH parts copying the relations, media links and components of the row whose id
        is the parameter `?` (each part binds it once, in order) to the row of CTE `new` (its
        `id`), whose `source_draft` is `draft` (an SQL term). Component rows take their new
        ids from their tables' sequences, in the statement."""
        q = self.quote
        lit = self.dialect.literal
        files = q(FILES_LINK_TABLE)
        to = f"(SELECT id FROM {new})"
        parts: list[str] = []
        for n, attr in enumerate(a for a in schema.attributes.values() if relation_owner(a)):
            table = q(link_table_name(schema, attr))
            cols = self._link_columns(schema, attr)
            extra = f", {SOURCE_DRAFT}" if source_drafts(schema) else ""
            value = f", {draft}" if extra else ""
            parts.append(
                f"cr{n} AS (INSERT INTO {table} (source_id, {', '.join(cols)}{extra}) "
                f"SELECT {to}, {', '.join(f'l.{c}' for c in cols)}{value} FROM {table} l "
                "WHERE l.source_id = ? ORDER BY l.id)"
            )
        head = f"INSERT INTO {files} (file_id, related_id, related_type, field, position)"
        if any(a.type == "media" for a in schema.attributes.values()):
            parts.append(
                f"cm AS ({head} SELECT f.file_id, {to}, f.related_type, f.field, f.position "
                f"FROM {files} f WHERE f.related_type = {lit(schema.uid)} AND f.related_id = ? "
                "ORDER BY f.id)"
            )
        comps = self._components_of(schema)
        if not comps:
            return parts
        cmps = q(components_table_name(schema))
        draws = " ".join(
            f"WHEN {lit(c.uid)} THEN nextval(pg_get_serial_sequence({lit(q(c.table))}, 'id'))"
            for c in comps
        )
        parts.append(
            "cc AS (SELECT l.id AS lid, l.cmp_id, l.component_type, l.field, l.position, "
            f"CASE l.component_type {draws} END AS new_id FROM {cmps} l WHERE l.entity_id = ?)"
        )
        for n, comp in enumerate(comps):
            mine = f"cc.component_type = {lit(comp.uid)}"
            cols = [q(a.column) for a in comp.scalar_attributes if a.column is not None]
            parts.append(
                f"cc{n} AS (INSERT INTO {q(comp.table)} (id{''.join(', ' + c for c in cols)}) "
                f"SELECT cc.new_id{''.join(', c.' + c for c in cols)} FROM cc "
                f"JOIN {q(comp.table)} c ON c.id = cc.cmp_id WHERE {mine})"
            )
            if any(a.type == "media" for a in comp.attributes.values()):
                parts.append(
                    f"cf{n} AS ({head} SELECT f.file_id, cc.new_id, f.related_type, f.field, "
                    f"f.position FROM cc JOIN {files} f ON f.related_type = {lit(comp.uid)} "
                    f"AND f.related_id = cc.cmp_id WHERE {mine} ORDER BY f.id)"
                )
            for k, attr in enumerate(a for a in comp.attributes.values() if relation_owner(a)):
                table = q(link_table_name(comp, attr))
                cols = self._link_columns(comp, attr)
                parts.append(
                    f"cr{n}x{k} AS (INSERT INTO {table} (source_id, {', '.join(cols)}) "
                    f"SELECT cc.new_id, {', '.join(f'l.{c}' for c in cols)} FROM cc "
                    f"JOIN {table} l ON l.source_id = cc.cmp_id WHERE {mine} ORDER BY l.id)"
                )
        parts.append(
            f"ck AS (INSERT INTO {cmps} (entity_id, cmp_id, component_type, field, position) "
            f"SELECT {to}, cc.new_id, cc.component_type, cc.field, cc.position FROM cc "
            # (a link to a component type the model no longer has is not copied)
            "WHERE cc.new_id IS NOT NULL ORDER BY cc.lid)"
        )
        return parts

    def _copy_component_rows(self, comp: Component, old_ids: list[int]) -> Program:
        """Copies the rows `old_ids` (ascending) of a component table: {old id: new id}.
        One INSERT ... SELECT in id order where the database answers the ids it made
        (RETURNING): they rise in the order the rows were inserted."""
        cols = ", ".join(
            self.quote(a.column) for a in comp.scalar_attributes if a.column is not None
        )
        table = self.quote(comp.table)
        new_of: dict[int, int] = {}
        if cols and self.dialect.returning:
            picked = ", ".join(f"c.{c}" for c in cols.split(", "))
            for rows_sql, params, keep in self._param_rows(("bigint",), [(i,) for i in old_ids]):
                rows = yield query(
                    f"INSERT INTO {table} ({cols}) SELECT {picked} FROM {rows_sql} "
                    f"JOIN {table} c ON c.id = m.c0{keep} ORDER BY c.id RETURNING id",
                    params,
                )
                made = sorted(int(r[0]) for r in rows)
                done = len(new_of)
                new_of.update(zip(old_ids[done : done + len(made)], made, strict=True))
            return new_of
        for old in old_ids:
            if cols:
                new_id = yield from self.dialect.insert_id(
                    f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {table} WHERE id = ?",
                    (old,),
                )
            else:
                new_id = yield from self.dialect.insert_default_id(comp.table)
            new_of[old] = int(new_id)
        return new_of

    def _among(self, col: str, values: list[Any]) -> tuple[str, list[Any]]:
        """`dialect.one_of`, its IN list (where the database has no arrays) padded with its
        last value to 1, 4, 16, 64 or a multiple of 64 values: few texts to prepare."""
        if self.dialect.arrays or not values:
            return self.dialect.one_of(col, values)
        size = next((s for s in ROW_SIZES if s >= len(values)), 0)
        size = size or -(-len(values) // CHUNK) * CHUNK
        return self.dialect.one_of(col, [*values, *[values[-1]] * (size - len(values))])

    def _param_rows(
        self, types: tuple[str, ...], rows: list[tuple[Any, ...]]
    ) -> list[tuple[str, list[Any], str]]:
        """Rows of values as a table `m` (columns c0, c1, ...) in a statement: each item is
        (the table's SQL, its parameters, the condition that keeps its real rows, as
        ` AND ...`). PostgreSQL: one item, `unnest` of one array per column (a text
        independent of the number of rows). Elsewhere: a UNION ALL of rows padded with
        NULLs to one of a few sizes (so that few texts are ever prepared), one item per
        `CHUNK` rows."""
        if self.dialect.arrays:
            arrays = [list(col) for col in zip(*rows, strict=True)] or [[] for _ in types]
            args = ", ".join(f"?::{t}[]" for t in types)
            names = ", ".join(f"c{i}" for i in range(len(types)))
            return [(f"unnest({args}) AS m({names})", arrays, "")]
        out = []
        width = len(types)
        for start in range(0, len(rows), CHUNK):
            chunk = rows[start : start + CHUNK]
            size = next(s for s in ROW_SIZES if s >= len(chunk))
            first = "SELECT " + ", ".join(f"? AS c{i}" for i in range(width))
            rest = " UNION ALL SELECT " + marks(width)
            params = [v for r in chunk for v in r] + [None] * (width * (size - len(chunk)))
            keep = " AND m.c0 IS NOT NULL" if size > len(chunk) else ""
            out.append((f"({first}{rest * (size - 1)}) m", params, keep))
        return out

    def rows_and_components(self, schema: Schema, where: str, params: list[Any]) -> Program:
        """The ids of the rows of `schema` that `where` chooses (a condition on the table's
        own columns, those it shares with the components' link table named by the table),
        with the (id, type) of the components they own where it may own some (else None):
        one statement."""
        table = self.quote(schema.table)
        if not any(a.type in ("component", "dynamiczone") for a in schema.attributes.values()):
            rows = yield query(f"SELECT id FROM {table} WHERE {where}", params)
            return [int(r[0]) for r in rows], None
        cmps = self.quote(components_table_name(schema))
        rows = yield query(
            f"SELECT {table}.id, l.cmp_id, l.component_type FROM {table} "
            f"LEFT JOIN {cmps} l ON l.entity_id = {table}.id WHERE {where}",
            params,
        )
        ids = sorted({int(r[0]) for r in rows})
        return ids, [(r[1], r[2]) for r in rows if r[1] is not None]

    def delete_owned(
        self,
        schema: Schema,
        row_ids: list[int],
        fields: list[str] | None = None,
        components: list[Any] | None = None,
    ) -> Program:
        """Deletes the components and media links owned by rows about to be deleted
        (relation link rows go with their source rows), or only those of `fields`, the
        rows staying (sharing values between locales). The media links of the rows and of
        their components go in one statement, after the components. `components`: the
        (id, type) of the components the rows own, where they were read already
        (`rows_and_components`)."""
        if not row_ids:
            return
        media: list[tuple[str, list[int], str, list[str]]] = []
        yield from self._delete_owned(schema, row_ids, fields, media, components)
        yield from self._delete_media(media)

    def _delete_owned(
        self,
        schema: Schema,
        row_ids: list[int],
        fields: list[str] | None,
        media: list[tuple[str, list[int], str, list[str]]],
        components: list[Any] | None = None,
    ) -> Program:
        """`delete_owned`, the media links to delete left in `media`: (type, row ids,
        condition on their field and its parameters)."""
        attrs = [a for a in schema.attributes.values() if fields is None or a.name in fields]
        only, only_params = _fields_clause(fields)
        if any(a.type in ("component", "dynamiczone") for a in attrs):
            cmps = components_table_name(schema)
            rows_in, rows_params = self._among("entity_id", row_ids)
            if components is None or fields is not None:
                components = yield query(
                    f"SELECT cmp_id, component_type FROM {self.quote(cmps)} WHERE {rows_in}{only}",
                    [*rows_params, *only_params],
                )
            yield from self._delete_components(components, media)
            if fields is not None:
                yield execute(
                    f"DELETE FROM {self.quote(cmps)} WHERE {rows_in}{only}",
                    [*rows_params, *only_params],
                )
        if any(a.type == "media" for a in attrs):
            media.append((schema.uid, row_ids, only, only_params))

    def _delete_media(self, media: list[tuple[str, list[int], str, list[str]]]) -> Program:
        """Deletes the media links of rows of several types in one statement: `media` as
        `_delete_owned` leaves it."""
        if not media:
            return
        terms: list[str] = []
        params: list[Any] = []
        for uid, ids, only, only_params in media:
            related, related_params = self._among("related_id", ids)
            terms.append(f"(related_type = ? AND {related}{only})")
            params += [uid, *related_params, *only_params]
        yield execute(
            f"DELETE FROM {self.quote(FILES_LINK_TABLE)} WHERE {' OR '.join(terms)}", params
        )

    def _delete_components(
        self,
        rows: list[Any],
        media: list[tuple[str, list[int], str, list[str]]] | None = None,
    ) -> Program:
        """Deletes components, given as (id, type) rows, with what they own; their media
        links are left in `media` where it is given."""
        by_type: dict[str, list[int]] = defaultdict(list)
        for cmp_id, uid in rows:
            by_type[uid].append(int(cmp_id))
        owned: list[tuple[str, list[int], str, list[str]]] = [] if media is None else media
        # where one statement may delete from several tables: the types whose rows own
        # nothing but media links, together
        flat = sorted(u for u in by_type if _flat(self.registry.components[u]))
        if self.dialect.multi_table_delete and len(flat) > 1:
            for uid in flat:
                kind = self.registry.components[uid]
                yield from self._delete_owned(kind, by_type[uid], None, owned)
            yield from self._delete_flat([(i, u) for u in flat for i in by_type.pop(u)], flat)
        for uid, ids in by_type.items():
            comp: Component = self.registry.components[uid]
            yield from self._delete_owned(comp, ids, None, owned)
            where, params = self._among("id", ids)
            yield execute(f"DELETE FROM {self.quote(comp.table)} WHERE {where}", params)
        if media is None:
            yield from self._delete_media(owned)

    def _delete_flat(self, rows: list[tuple[int, str]], uids: list[str]) -> Program:
        """Deletes component rows of the types `uids`, given as (id, type), in one statement
        (`Dialect.multi_table_delete`): each row of a parameter table joins the one row it
        names."""
        tables = [self.registry.components[u].table for u in uids]
        targets = ", ".join(f"x{n}" for n in range(len(uids)))
        joins = "".join(
            f" LEFT JOIN {self.quote(table)} x{n} ON m.c1 = ? AND x{n}.id = m.c0"
            for n, table in enumerate(tables)
        )
        for rows_sql, params, keep in self._param_rows(("bigint", "text"), rows):
            where = keep.replace(" AND", " WHERE", 1)
            yield execute(f"DELETE {targets} FROM {rows_sql}{joins}{where}", [*params, *uids])

    def detach(self, ct: ContentType, document_id: str, locale: str | None) -> Program:
        """Removes links that point at a deleted document (or one deleted locale of it)."""
        for schema, attr in self.incoming.get(ct.uid, []):
            table = link_table_name(schema, attr)
            if locale is not None and ct.localized:
                yield execute(
                    f"DELETE FROM {self.quote(table)} "
                    "WHERE target_document_id = ? AND target_locale = ?",
                    (document_id, locale),
                )
            else:
                yield execute(
                    f"DELETE FROM {self.quote(table)} WHERE target_document_id = ?", (document_id,)
                )
