"""Loading populated fields for a page of documents in batches: one statement per
populated field and level (a dynamic zone: one for its entries plus one per component kind
present), whatever the number of documents."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from folio.caches import BoundedCache, weigh
from folio.content.query import Populate, SortKey
from folio.content.sql.joins import Join, link_join
from folio.content.sql.layout import (
    FILES_LINK_TABLE,
    FILES_TABLE,
    components_table_name,
    narrow_selection,
    version_flag,
)
from folio.content.sql.select import Selection, build_selection
from folio.content.sql.sort import order_term, sort_column, sort_expr
from folio.content.sql.where import compile_where
from folio.schema.model import ContentType, Registry, Schema
from folio.store.program import Program, marks, query

LOCALIZATIONS = "localizations"


class ReadContext:
    """The versions a read returns: `status`, and `locale` (the read's, or the default
    one when it reads every locale). Populate filters read related rows in the status and
    locale the query asked for (`filter_status`, `filter_locale`: a write's answer reads
    the version written, its filters keep the query's)."""

    def __init__(
        self,
        status: str,
        locale: str | None,
        filter_locale: str | None = None,
        filter_status: str | None = None,
    ) -> None:
        self.status = status
        self.locale = locale
        self.filter_locale = filter_locale
        self.filter_status = filter_status or status


class Populator:
    """Loads populated fields for a list of documents, in batches."""

    def __init__(self, registry: Registry, dialect: str) -> None:
        self.registry = registry
        self.dialect = dialect
        self.file_type = registry.content_types["plugin::upload.file"]
        self._selections: BoundedCache[Selection] = BoundedCache(1024, 8 * 1024 * 1024)

    def selection(self, schema: Schema, fields: list[str] | None) -> Selection:
        key = (schema.uid, tuple(fields) if fields is not None else None)
        sel = self._selections.get(key)
        if sel is None:
            sel = build_selection(schema, fields, self.dialect, "t")
            self._selections.put(key, sel, weigh(key) + 8 * len(sel.sql) + 2000)
        return sel

    def load(
        self,
        schema: Schema,
        docs: list[dict[str, Any]],
        populate: dict[str, Populate],
        ctx: ReadContext,
    ) -> Program:
        if not docs or not populate:
            return
        for entry in populate.values():
            attr = entry.attr
            if attr.type == "relation":
                yield from self._relation(schema, docs, entry, ctx)
            elif attr.type == "component":
                yield from self._component(schema, docs, entry, ctx)
            elif attr.type == "dynamiczone":
                yield from self._zone(schema, docs, entry, ctx)
            elif attr.type == "media":
                yield from self._media(schema, docs, entry)
            elif attr.type == LOCALIZATIONS and isinstance(schema, ContentType):
                yield from self._localizations(schema, docs, entry, ctx)

    def _narrow(
        self,
        target: Schema,
        entry: Populate,
        ctx: ReadContext,
        conds: list[str],
        params: list[Any],
    ) -> None:
        """The read's status (where the target has drafts: the list index's expression) and
        the populate's own filters, as conditions on the target alias `t`."""
        if isinstance(target, ContentType) and target.draft_and_publish:
            conds.append(version_flag("t", ctx.status != "published", self.dialect))
        if entry.filters is not None:
            text, more = compile_where(
                entry.filters, self.dialect, "t", ctx.filter_status, ctx.filter_locale
            )
            conds.append(text)
            params.extend(more)

    def _localizations(
        self, ct: ContentType, docs: list[dict[str, Any]], entry: Populate, ctx: ReadContext
    ) -> Program:
        """Each document's versions in the other locales, in the read's status."""
        sel = self.selection(ct, entry.fields)
        keys = sorted({str(d["documentId"]) for d in docs})
        conds = [f"t.document_id IN ({marks(len(keys))})"]
        params: list[Any] = list(keys)
        owns = {doc.get("locale", ctx.locale) for doc in docs}
        if len(owns) == 1 and None not in owns:
            # one locale read (the usual case): its own versions need not be fetched
            conds.append("t.locale <> ?")
            params.append(owns.pop())
        self._narrow(ct, entry, ctx, conds, params)
        order = "".join(self._order(key, ctx) + ", " for key in entry.sort)
        rows = yield query(
            f'SELECT {sel.sql}, t.locale, t.document_id FROM "{ct.table}" t WHERE '
            f"{' AND '.join(conds)} ORDER BY t.document_id, {order}t.id",
            params,
        )
        found: dict[str, list[tuple[Any, dict[str, Any]]]] = defaultdict(list)
        for row, item in zip(rows, sel.documents(rows), strict=True):
            found[row[-1]].append((row[-2], item))
        children: list[dict[str, Any]] = []
        for doc in docs:
            own = doc.get("locale", ctx.locale)
            items = [item for locale, item in found.get(doc["documentId"], []) if locale != own]
            doc[LOCALIZATIONS] = items
            children.extend(items)
        if entry.children:
            yield from self.load(ct, children, entry.children, ctx)

    def _relation(
        self, schema: Schema, docs: list[dict[str, Any]], entry: Populate, ctx: ReadContext
    ) -> Program:
        attr = entry.attr
        target = self.registry.content_types[str(attr.target)]
        sel = self.selection(target, entry.fields)
        join = link_join(schema, attr, target, "l", "t")
        parent = join.keys[0]
        key = "id" if not join.inverse else "documentId"
        keys = sorted({d[key] for d in docs})
        conds = [f"{parent} IN ({marks(len(keys))})", *join.conds, *join.versions(ctx.status)]
        params: list[Any] = [*keys, *join.params]
        if join.inverse:
            if len(join.keys) > 1:
                conds.append(f"{join.keys[1]} = ?")
                params.append(ctx.locale)
            if target.localized and isinstance(schema, ContentType) and schema.localized:
                # from a type without locales, every locale version of a related document
                # is listed (as the reference lists them)
                conds.append("t.locale = ?")
                params.append(ctx.locale)
        self._narrow(target, entry, ctx, conds, params)
        joined = f"FROM {join.frm} WHERE {' AND '.join(conds)}"
        if entry.count:
            counted = yield query(f"SELECT {parent}, COUNT(*) {joined} GROUP BY {parent}", params)
            _set_counts(docs, key, attr.name, counted)
            return
        order = join.order
        if entry.sort:
            order = ", ".join(self._order(key_, ctx) for key_ in entry.sort) + ", " + order
        if entry.limit is not None:
            # each document's page, ranked in the database
            rows = yield query(
                f"SELECT * FROM (SELECT {sel.sql}, ROW_NUMBER() OVER (PARTITION BY {parent} "
                f"ORDER BY {order}, l.id) AS rank__, {parent} AS parent__ {joined}) q "
                "WHERE q.rank__ > ? AND q.rank__ <= ? ORDER BY q.parent__, q.rank__",
                [*params, entry.start, entry.start + entry.limit],
            )
        elif self.dialect == "sqlite" and not entry.sort and not (join.inverse and join.status):
            # SQLite reads the links through the index that starts with the parent key
            # (source_id, position, target; or target, locale, inv_position, source_id),
            # one parent after the other in key order: ordered by that index, the rows need
            # no sort (a category's thousand articles: 13.5 -> 7.0 ms, 2.1 -> 1.7 ms for
            # two fields). Positions do not repeat within a parent; where copies share one
            # (a document's locale versions), the source row decides
            rows = yield query(
                f"SELECT {sel.sql}, {parent} {joined} ORDER BY {_index_order(join)}", params
            )
        elif entry.sort or self.dialect != "sqlite" or narrow_selection(target, entry.fields):
            # rows are grouped by parent in the order they come, so an inverse relation's
            # rows need no order by their parent's (text) documentId: sorting a thousand
            # of them by it cost PostgreSQL 2.8 ms of a 7.3 ms statement
            by_parent = "" if join.inverse else f"{parent}, "
            rows = yield query(
                f"SELECT {sel.sql}, {parent} {joined} ORDER BY {by_parent}{order}, l.id", params
            )
        else:
            # SQLite, rows with long values: in the links' own order, sorted here on the
            # two link columns; its sorter would carry the whole rows (a thousand articles
            # of a category's inverse relation: 2.5 MB, about a third of the statement).
            # Short rows it sorts for less than the sort here costs; PostgreSQL sorts them
            # for less than it costs the server to take the rows unsorted (they then come
            # in many small reads)
            rows = list(
                (yield query(f"SELECT {sel.sql}, {order}, l.id, {parent} {joined}", params))
            )
            rows.sort(key=_link_order)
        found = sel.grouped(rows)
        owner = target.attributes[attr.mapped_by] if attr.mapped_by is not None else None
        many = attr.to_many(owner)
        children: list[dict[str, Any]] = []
        for doc in docs:
            items = found.get(doc[key], [])
            doc[attr.name] = items if many else (items[0] if items else None)
            children.extend(items)
        if entry.children:
            yield from self.load(target, _unique(children), entry.children, ctx)

    def _component(
        self, schema: Schema, docs: list[dict[str, Any]], entry: Populate, ctx: ReadContext
    ) -> Program:
        attr = entry.attr
        comp = self.registry.components[str(attr.component)]
        sel = self.selection(comp, entry.fields)
        join = link_join(schema, attr, comp, "c", "t")
        parent = join.keys[0]
        keys = sorted({int(d["id"]) for d in docs})
        conds = [f"{parent} IN ({marks(len(keys))})", *join.conds, *join.versions(ctx.status)]
        params: list[Any] = [*keys, *join.params]
        if entry.count:
            counted = yield query(
                f"SELECT {parent}, COUNT(*) FROM {join.frm} WHERE {' AND '.join(conds)} "
                f"GROUP BY {parent}",
                params,
            )
            _set_counts(docs, "id", attr.name, counted)
            return
        self._narrow(comp, entry, ctx, conds, params)
        rows = yield query(
            f"SELECT {sel.sql}, {parent} FROM {join.frm} WHERE {' AND '.join(conds)} "
            f"ORDER BY {parent}, {join.order}",
            params,
        )
        found = sel.grouped(rows)
        children: list[dict[str, Any]] = []
        for doc in docs:
            items = found.get(doc["id"], [])
            doc[attr.name] = items if attr.repeatable else (items[0] if items else None)
            children.extend(items)
        if entry.children:
            yield from self.load(comp, children, entry.children, ctx)

    def _order(self, key: SortKey, ctx: ReadContext) -> str:
        """An ORDER BY term of a populate's sort over the target alias `t`."""
        column = sort_column(key, ctx.status)
        return order_term(sort_expr(column), key.desc, self.dialect, column)

    def _zone(
        self, schema: Schema, docs: list[dict[str, Any]], entry: Populate, ctx: ReadContext
    ) -> Program:
        attr = entry.attr
        keys = sorted({int(d["id"]) for d in docs})
        rows = yield query(
            f'SELECT entity_id, cmp_id, component_type FROM "{components_table_name(schema)}" '
            f"WHERE entity_id IN ({marks(len(keys))}) AND field = ? "
            "ORDER BY entity_id, position",
            [*keys, attr.name],
        )
        by_type: dict[str, list[int]] = defaultdict(list)
        for _, cmp_id, uid in rows:
            by_type[uid].append(int(cmp_id))
        loaded: dict[tuple[str, int], dict[str, Any]] = {}
        for uid, ids in by_type.items():
            comp = self.registry.components.get(uid)
            if comp is None or (entry.only_on and uid not in entry.on):
                continue
            sel = self.selection(comp, entry.on_fields.get(uid))
            got = yield query(
                f'SELECT {sel.sql} FROM "{comp.table}" t WHERE t.id IN ({marks(len(ids))})', ids
            )
            items = sel.documents(got)
            for item in items:
                loaded[(uid, int(item["id"]))] = {"__component": uid, **item}
            nested = entry.on.get(uid)
            if nested:
                yield from self.load(comp, items, nested, ctx)
                for item in items:
                    loaded[(uid, int(item["id"]))] = {"__component": uid, **item}
        out: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for entity_id, cmp_id, uid in rows:
            got_item = loaded.get((uid, int(cmp_id)))
            if got_item is not None:
                out[int(entity_id)].append(got_item)
        for doc in docs:
            doc[attr.name] = out.get(int(doc["id"]), [])

    def _media(self, schema: Schema, docs: list[dict[str, Any]], entry: Populate) -> Program:
        attr = entry.attr
        sel = self.selection(self.file_type, entry.fields)
        keys = sorted({int(d["id"]) for d in docs})
        params: list[Any] = [schema.uid, attr.name, *keys]
        narrow = ""
        if entry.filters is not None:
            text, more = compile_where(entry.filters, self.dialect, "t")
            narrow = f" AND {text}"
            params.extend(more)
        order = "".join(self._order(k, ReadContext("published", None)) + ", " for k in entry.sort)
        rows = yield query(
            f'SELECT {sel.sql}, m.related_id FROM "{FILES_LINK_TABLE}" m JOIN "{FILES_TABLE}" t '
            f"ON t.id = m.file_id WHERE m.related_type = ? AND m.field = ? AND m.related_id IN "
            f"({marks(len(keys))}){narrow} ORDER BY m.related_id, {order}m.position",
            params,
        )
        found = sel.grouped(rows)
        for doc in docs:
            items = found.get(doc["id"], [])
            doc[attr.name] = items if attr.multiple else (items[0] if items else None)


def _set_counts(docs: list[dict[str, Any]], key: str, name: str, rows: list[Any]) -> None:
    """`{"count": n}` on each document, from (parent key, count) rows."""
    counts = {parent: int(n) for parent, n in rows}
    for doc in docs:
        doc[name] = {"count": counts.get(doc[key], 0)}


def _index_order(join: Join) -> str:
    """The ORDER BY of a populated relation's rows that a link table's index yields as it is
    walked for a list of parents (the parent key, then the link's position and the next
    index column)."""
    if join.inverse:
        return f"{', '.join(join.keys)}, {join.order}, l.source_id"
    return f"{join.keys[0]}, {join.order}, l.target_document_id"


def _link_order(row: Any) -> tuple[bool, float, int]:
    """A populated row's place among its parent's: the link's position (an absent one
    last, as PostgreSQL sorts it), then the link's id; the two come before the parent key."""
    position = row[-3]
    return (position is None, position or 0.0, row[-2])


def _unique(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[int] = set()
    out = []
    for doc in docs:
        if id(doc) not in seen:
            seen.add(id(doc))
            out.append(doc)
    return out
