"""Loading populated fields for a page of documents in batches, whatever the number of
documents: per level, one statement per populated relation, one for all the component fields
and dynamic zones, one for the media fields that ask the same of their files.

Each statement's rows are remembered by parent (`RowMemo`) while the database's committed
state stays the same, and the next read that populates the same field of the same parents
in the same way takes them from there: a category's thousand articles are read once for
every page that shows an article of that category, not once per page.

An answer holds at most `max_entries` populated entries, counted at every level as each
statement's rows (read or remembered) are placed, before the next level is loaded. Entries
are counted as many times as the answer shows them: the documents of a level that share a
key (25 articles' categories, 5 of them distinct) share their populated lists, so that a
category's articles, each populating its category's articles again, answer 400 x 400 x ...
copies of the same 400 rows; each level's documents carry how many times the answer
holds them (`weights`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from operator import itemgetter
from typing import Any

from folio.caches import BoundedCache, weigh
from folio.content.query import Populate, ReadLimits, SortKey, too_much
from folio.content.sql.joins import Join, link_join
from folio.content.sql.layout import (
    FILES_LINK_TABLE,
    FILES_TABLE,
    SOURCE_DRAFT,
    components_table_name,
    narrow_selection,
    source_drafts,
)
from folio.content.sql.memo import ROWS, RowMemo, memo_mb
from folio.content.sql.select import Selection, build_selection
from folio.content.sql.sort import order_term, sort_column, sort_expr
from folio.content.sql.where import compile_where
from folio.schema.model import ContentType, Registry, Schema
from folio.store.dialects.base import Dialect
from folio.store.program import VERSION, Program, Stmt, marks, query

LOCALIZATIONS = "localizations"


# where a populate statement's condition on its parent keys goes, and its parameters
KEYS = "\x00keys\x00"


class _Keys:
    """The place of the parent keys' parameters in a statement's parameters."""

    __slots__ = ()


KEY_PARAMS = _Keys()
_UNSET: Any = object()
# the most component tables one statement joins for a level's component fields and zones
JOINED_KINDS = 32


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
        # the database's version token, asked for once per read (None: not remembered)
        self.token: Any = _UNSET
        # the populated entries placed in the answer so far
        self.populated = 0


def frozen(value: Any) -> Hashable:
    """A statement parameter as a dict key (lists, as PostgreSQL's arrays, as tuples)."""
    if isinstance(value, list | tuple):
        return tuple(frozen(v) for v in value)
    return value  # type: ignore[no-any-return]


class Populator:
    """Loads populated fields for a list of documents, in batches."""

    def __init__(self, registry: Registry, dialect: Dialect) -> None:
        self.registry = registry
        self.dialect = dialect
        self.quoted = dialect.quoted
        self.file_type = registry.content_types["plugin::upload.file"]
        self._selections: BoundedCache[Selection] = BoundedCache(1024, 8 * 1024 * 1024)
        budget = memo_mb()
        self.memo = RowMemo(int(budget * 1024 * 1024)) if budget > 0 else None
        # the populated entries one answer may hold (api.json `rest.maxPopulatedEntries`)
        self.max_entries = ReadLimits().populated_entries
        # the rows of an inverse relation are sorted here rather than by a database that
        # joins them by hash (False: by the database, as before; the tests compare the two)
        self.sort_here = True

    def _spend(self, ctx: ReadContext, entries: int) -> None:
        """Counts entries placed in the answer; past the budget the read is refused."""
        ctx.populated += entries
        if ctx.populated > self.max_entries:
            raise too_much(
                "populated_entries",
                self.max_entries,
                "The populated fields hold too many entries",
                "populate",
            )

    def _rows(
        self,
        sql: str,
        params: Sequence[Any],
        column: str,
        keys: Sequence[Any],
        parent: int,
        ctx: ReadContext,
    ) -> Program:
        """The rows of a populate statement for the parents `keys`: `sql` holds `KEYS`
        where the condition that `column` is one of them goes, and `params` holds
        `KEY_PARAMS` where their parameters go; `parent` is the rows' column of the parent
        key. Parents whose rows are remembered under the database's current version are
        not read again; the others are read in one statement, and their rows (none for
        some) remembered."""
        memo = self.memo
        token = None
        if memo is not None:
            if ctx.token is _UNSET:
                ctx.token = None if memo.aside() else (yield VERSION)
            token = ctx.token
        if memo is None or token is None:
            return list((yield self._keyed(sql, params, column, keys)))
        # the parent keys' place as text: a key holding only plain values stays out of
        # the collector's sight (memo.Entry)
        shape = (sql, tuple(KEYS if p is KEY_PARAMS else frozen(p) for p in params))
        out: list[Any] = []
        missing = []
        for key in keys:
            found = memo.get(shape, key, token)
            if found is None:
                missing.append(key)
            else:
                out.extend(found)
        if not missing:
            return out
        rows = list((yield self._keyed(sql, params, column, missing)))
        kept = memo.admit(ROWS, shape, missing, token)
        if kept:
            by_key: dict[Any, list[Any]] = {key: [] for key in missing}
            for row in rows:
                got = by_key.get(row[parent])
                if got is None:
                    # a parent key that does not compare equal to the one asked for (another
                    # type): nothing is remembered rather than an empty list for that parent
                    kept = ()
                    break
                got.append(row)
            # each entry keeps its own copy of the statement's text and parameters
            weight = weigh(sql, shape[1], token) if kept else 0
            for key in kept:
                memo.put(shape, key, token, by_key[key], weight)
        if not out:
            return rows
        out.extend(rows)
        return out

    def _keyed(self, sql: str, params: Sequence[Any], column: str, keys: Sequence[Any]) -> Stmt:
        cond, key_params = self.dialect.one_of(column, keys)
        full: list[Any] = []
        for param in params:
            if param is KEY_PARAMS:
                full.extend(key_params)
            else:
                full.append(param)
        return query(sql.replace(KEYS, cond), full)

    def selection(self, schema: Schema, fields: list[str] | None, alias: str = "t") -> Selection:
        key = (schema.uid, tuple(fields) if fields is not None else None, alias)
        sel = self._selections.get(key)
        if sel is None:
            sel = build_selection(schema, fields, self.dialect, alias)
            self._selections.put(key, sel, weigh(key) + 8 * len(sel.sql) + 2000)
        return sel

    def load(
        self,
        schema: Schema,
        docs: list[dict[str, Any]],
        populate: dict[str, Populate],
        ctx: ReadContext,
        weights: Weights = None,
    ) -> Program:
        """Loads `populate` into `docs`; `weights`: how many times the answer shows each
        document (by `id()`), where not once."""
        if not docs or not populate:
            return
        # fields are read grouped by kind, and answered in the populate's order
        names = [
            name
            for name, entry in populate.items()
            if entry.attr.type != LOCALIZATIONS or isinstance(schema, ContentType)
        ]
        for doc in docs:
            for name in names:
                doc[name] = None
        parts = [
            entry
            for entry in populate.values()
            if entry.attr.type == "dynamiczone"
            or (entry.attr.type == "component" and not entry.count)
        ]
        if self.dialect.embedded:
            # no round trip to save: each component field alone (its rows converted in one
            # batch), a zone in one statement with its kinds
            for entry in parts:
                if entry.attr.type == "component":
                    yield from self._component(schema, docs, entry, ctx, weights)
                else:
                    yield from self._parts(schema, docs, [entry], ctx, weights)
        elif parts:
            yield from self._parts(schema, docs, parts, ctx, weights)
        # media fields asking the same of their files, without filters or sort: together
        media: dict[Any, list[Populate]] = defaultdict(list)
        for entry in populate.values():
            if entry.attr.type == "media":
                alone = entry.filters is not None or bool(entry.sort)
                fields = tuple(entry.fields) if entry.fields is not None else None
                media[id(entry) if alone else ("same", fields)].append(entry)
        for group in media.values():
            yield from self._media(schema, docs, group, ctx, weights)
        for entry in populate.values():
            attr = entry.attr
            if attr.type == "relation":
                yield from self._relation(schema, docs, entry, ctx, weights)
            elif attr.type == "component" and entry.count:
                yield from self._component(schema, docs, entry, ctx, weights)
            elif attr.type == LOCALIZATIONS and isinstance(schema, ContentType):
                yield from self._localizations(schema, docs, entry, ctx, weights)

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
            conds.append(self.dialect.version_flag("t", ctx.status != "published"))
        if entry.filters is not None:
            text, more = compile_where(
                entry.filters, self.dialect, "t", ctx.filter_status, ctx.filter_locale
            )
            conds.append(text)
            params.extend(more)

    def _localizations(
        self,
        ct: ContentType,
        docs: list[dict[str, Any]],
        entry: Populate,
        ctx: ReadContext,
        weights: Weights,
    ) -> Program:
        """Each document's versions in the other locales, in the read's status."""
        sel = self.selection(ct, entry.fields)
        keys = sorted({str(d["documentId"]) for d in docs})
        params: list[Any] = [KEY_PARAMS]
        conds = [KEYS]
        owns = {doc.get("locale", ctx.locale) for doc in docs}
        if len(owns) == 1 and None not in owns:
            # one locale read (the usual case): its own versions need not be fetched
            conds.append("t.locale <> ?")
            params.append(owns.pop())
        self._narrow(ct, entry, ctx, conds, params)
        order = "".join(self._order(key, ctx) + ", " for key in entry.sort)
        rows = yield from self._rows(
            f"SELECT {sel.sql}, t.locale, t.document_id FROM {self.quoted[ct.table]} t "
            f"WHERE {' AND '.join(conds)} ORDER BY t.document_id, {order}t.id",
            params,
            "t.document_id",
            keys,
            -1,
            ctx,
        )
        found: dict[str, list[tuple[Any, dict[str, Any]]]] = defaultdict(list)
        for row, item in zip(rows, sel.documents(rows), strict=True):
            found[row[-1]].append((row[-2], item))
        children: list[dict[str, Any]] = []
        spent = 0
        # documents sharing a documentId share its versions' rows
        shared = weights is not None or len(keys) < len(docs)
        child_weights: dict[int, int] = {}
        for doc in docs:
            own = doc.get("locale", ctx.locale)
            items = [item for locale, item in found.get(doc["documentId"], []) if locale != own]
            doc[LOCALIZATIONS] = items
            if shared:
                times = weights.get(id(doc), 1) if weights else 1
                spent += times * len(items)
                for item in items:
                    child_weights[id(item)] = child_weights.get(id(item), 0) + times
            else:
                spent += len(items)
                children.extend(items)
        self._spend(ctx, spent)
        if shared:
            children = [item for items in found.values() for _, item in items]
            children = [item for item in children if id(item) in child_weights]
        if entry.children:
            yield from self.load(ct, children, entry.children, ctx, child_weights or None)

    def _relation(
        self,
        schema: Schema,
        docs: list[dict[str, Any]],
        entry: Populate,
        ctx: ReadContext,
        weights: Weights,
    ) -> Program:
        attr = entry.attr
        target = self.registry.content_types[str(attr.target)]
        sel = self.selection(target, entry.fields)
        join = link_join(self.dialect, schema, attr, target, "l", "t")
        parent = join.keys[0]
        key = "id" if not join.inverse else "documentId"
        keys = sorted({d[key] for d in docs})
        params: list[Any] = [KEY_PARAMS]
        conds = [KEYS, *join.conds, *join.versions(ctx.status)]
        params.extend(join.params)
        if join.inverse:
            if len(join.keys) > 1:
                conds.append(f"{join.keys[1]} = ?")
                params.append(ctx.locale)
            if source_drafts(target) and ctx.status == "published":
                # the published versions' links only (a draft's links are its own)
                conds.append(f"l.{SOURCE_DRAFT} = 0")
            if target.localized and isinstance(schema, ContentType) and schema.localized:
                # from a type without locales, every locale version of a related document
                # is listed (as the reference lists them)
                conds.append("t.locale = ?")
                params.append(ctx.locale)
        self._narrow(target, entry, ctx, conds, params)
        joined = f"FROM {join.frm} WHERE {' AND '.join(conds)}"
        if entry.count:
            counted = yield from self._rows(
                f"SELECT {parent}, COUNT(*) {joined} GROUP BY {parent}",
                params,
                parent,
                keys,
                0,
                ctx,
            )
            _set_counts(docs, key, attr.name, counted)
            return
        order = join.order
        if entry.sort:
            order = ", ".join(self._order(key_, ctx) for key_ in entry.sort) + ", " + order
        if entry.limit is not None:
            # each document's page, ranked in the database
            rows = yield from self._rows(
                f"SELECT * FROM (SELECT {sel.sql}, ROW_NUMBER() OVER (PARTITION BY {parent} "
                f"ORDER BY {order}, l.id) AS rank__, {parent} AS parent__ {joined}) q "
                "WHERE q.rank__ > ? AND q.rank__ <= ? ORDER BY q.parent__, q.rank__",
                [*params, entry.start, entry.start + entry.limit],
                parent,
                keys,
                -1,
                ctx,
            )
        elif (
            not entry.sort
            and join.inverse
            and not join.status
            and self.dialect.unordered_joins
            and self.sort_here
        ):
            # the rows of an inverse relation, joined by hash (PostgreSQL, MySQL): unsorted,
            # then sorted here on the two link columns as the ORDER BY below would. The
            # database's sort carries the whole rows: 1,356 full articles of 15 categories
            # cost PostgreSQL 14.0 ms sorted, 10.4 ms not; their titles and slugs alone,
            # 2.1 ms and 1.3 ms. Sorting them here costs 0.2 ms, and the two more columns
            # nothing that shows
            rows = yield from self._rows(
                f"SELECT {sel.sql}, {join.order}, l.source_id, {parent} {joined}",
                params,
                parent,
                keys,
                -1,
                ctx,
            )
            _sort_by_link(rows, self.dialect.nulls_largest)
        elif not entry.sort and not (join.inverse and join.status):
            # the links are read through the index that starts with the parent key
            # (source_id, position, target; or target, locale, inv_position, source_id),
            # one parent after the other in key order: ordered by that index, the rows need
            # no sort (SQLite, a category's thousand articles: 13.5 -> 7.0 ms, 2.1 -> 1.7 ms
            # for two fields), and PostgreSQL reads the index alone instead of also each
            # link's row for its id (25 articles' categories: 0.28 -> 0.11 ms; 1,351
            # articles of 15 categories: 3.4 -> 2.0 ms). Positions do not repeat within a
            # parent; where copies share one (a document's locale versions), the source
            # row decides. PostgreSQL joins an inverse relation's many rows by hash, which
            # loses that order: they are sorted by position alone, as they are grouped by
            # parent in the order they come (sorting by the parent's text documentId too
            # cost 1,356 full articles 4 -> 6.8 ms)
            order = (
                f"{join.order}, l.source_id"
                if self.dialect.unordered_joins and join.inverse
                else _index_order(join)
            )
            rows = yield from self._rows(
                f"SELECT {sel.sql}, {parent} {joined} ORDER BY {order}",
                params,
                parent,
                keys,
                -1,
                ctx,
            )
        elif entry.sort or not self.dialect.embedded or narrow_selection(target, entry.fields):
            # rows are grouped by parent in the order they come, so an inverse relation's
            # rows need no order by their parent's (text) documentId: sorting a thousand
            # of them by it cost PostgreSQL 2.8 ms of a 7.3 ms statement
            by_parent = "" if join.inverse else f"{parent}, "
            rows = yield from self._rows(
                f"SELECT {sel.sql}, {parent} {joined} ORDER BY {by_parent}{order}, l.id",
                params,
                parent,
                keys,
                -1,
                ctx,
            )
        else:
            # in the process (SQLite), rows with long values: in the links' own order, sorted
            # here on the two link columns; its sorter would carry the whole rows (a thousand
            # articles of a category's inverse relation: 2.5 MB, about a third of the
            # statement). Short rows it sorts for less than the sort here costs; PostgreSQL
            # sorts them for less than it costs the server to take the rows unsorted (they then
            # come in many small reads)
            rows = yield from self._rows(
                f"SELECT {sel.sql}, {order}, l.id, {parent} {joined}", params, parent, keys, -1, ctx
            )
            rows.sort(key=_link_order)
        found = sel.grouped(rows)
        child_weights = self._placed(ctx, docs, key, len(keys), weights, found, entry)
        owner = target.attributes[attr.mapped_by] if attr.mapped_by is not None else None
        many = attr.to_many(owner)
        children: list[dict[str, Any]] = []
        for doc in docs:
            items = found.get(doc[key], [])
            doc[attr.name] = items if many else (items[0] if items else None)
            children.extend(items)
        if entry.children:
            yield from self.load(target, _unique(children), entry.children, ctx, child_weights)

    def _component(
        self,
        schema: Schema,
        docs: list[dict[str, Any]],
        entry: Populate,
        ctx: ReadContext,
        weights: Weights,
    ) -> Program:
        attr = entry.attr
        comp = self.registry.components[str(attr.component)]
        sel = self.selection(comp, entry.fields)
        join = link_join(self.dialect, schema, attr, comp, "c", "t")
        parent = join.keys[0]
        keys = sorted({int(d["id"]) for d in docs})
        params: list[Any] = [KEY_PARAMS]
        conds = [KEYS, *join.conds, *join.versions(ctx.status)]
        params.extend(join.params)
        if entry.count:
            counted = yield from self._rows(
                f"SELECT {parent}, COUNT(*) FROM {join.frm} WHERE {' AND '.join(conds)} "
                f"GROUP BY {parent}",
                params,
                parent,
                keys,
                0,
                ctx,
            )
            _set_counts(docs, "id", attr.name, counted)
            return
        self._narrow(comp, entry, ctx, conds, params)
        rows = yield from self._rows(
            f"SELECT {sel.sql}, {parent} FROM {join.frm} WHERE {' AND '.join(conds)} "
            f"ORDER BY {parent}, {join.order}",
            params,
            parent,
            keys,
            -1,
            ctx,
        )
        found = sel.grouped(rows)
        child_weights = self._placed(ctx, docs, "id", len(keys), weights, found, entry)
        children: list[dict[str, Any]] = []
        for doc in docs:
            items = found.get(doc["id"], [])
            doc[attr.name] = items if attr.repeatable else (items[0] if items else None)
            children.extend(items)
        if entry.children:
            if child_weights is not None:
                children = _unique(children)
            yield from self.load(comp, children, entry.children, ctx, child_weights)

    def _placed(
        self,
        ctx: ReadContext,
        docs: list[dict[str, Any]],
        key: str,
        distinct: int,
        weights: Weights,
        found: dict[Any, list[dict[str, Any]]],
        entry: Populate,
    ) -> Weights:
        """Counts the entries `found` by parent key as the answer shows them; returns how
        many times it shows each of them where not once (for the next level, if any)."""
        times = _multiplicity(docs, key, distinct, weights)
        if times is None:
            self._spend(ctx, sum(map(len, found.values())))
            return None
        self._spend(ctx, sum(times.get(k, 0) * len(items) for k, items in found.items()))
        if not entry.children:
            return None
        return {id(item): times.get(k, 0) for k, items in found.items() for item in items}

    def _order(self, key: SortKey, ctx: ReadContext) -> str:
        """An ORDER BY term of a populate's sort over the target alias `t`."""
        column = sort_column(key, ctx.status, self.dialect)
        return order_term(sort_expr(column, self.dialect), key.desc, self.dialect, column)

    def _parts(
        self,
        schema: Schema,
        docs: list[dict[str, Any]],
        entries: list[Populate],
        ctx: ReadContext,
        weights: Weights,
    ) -> Program:
        """The populated component fields and dynamic zones of one level in one statement:
        their entries in the schema's components table, each joined (LEFT JOIN) to the
        table of the component it holds, a zone's to each kind it allows. A round trip costs
        PostgreSQL and the server about 0.1 ms: `populate=*` on an article (a component, a
        repeatable one and a zone of two kinds) made five of them. An entry whose component
        is filtered out or missing joins nothing and is left out; a zone's entry of a kind
        the zone no longer allows is read after, as before."""
        # (field, zone kind or None) -> the selection of its table and its first column
        slots: dict[tuple[str, str | None], tuple[Selection, int]] = {}
        cols = ["c.entity_id", "c.field", "c.component_type", "c.cmp_id"]
        joins: list[str] = []
        params: list[Any] = []
        width = len(cols)
        # component fields first: each is joined; a zone's kinds past JOINED_KINDS are read
        # after, kind by kind (SQLite joins at most 64 tables)
        ordered = sorted(entries, key=lambda e: e.attr.type != "component")
        for entry in ordered:
            attr = entry.attr
            if attr.type == "component":
                kinds = [(str(attr.component), entry.fields, entry.filters)]
            else:
                kinds = [
                    (uid, entry.on_fields.get(uid), None)
                    for uid in attr.components
                    if uid in self.registry.components and (not entry.only_on or uid in entry.on)
                ]
            for uid, fields, filters in kinds:
                comp = self.registry.components.get(uid)
                if comp is None or (attr.type == "dynamiczone" and len(joins) >= JOINED_KINDS):
                    continue
                alias = f"k{len(joins)}"
                sel = self.selection(comp, fields, alias)
                # the entry's own component row, found by a key that is NULL on the rows of
                # other fields and kinds: those skip the probe instead of filtering its row
                # out after it (the planners apply the field test after the join)
                if attr.type == "dynamiczone":
                    on = [
                        f"{alias}.id = CASE WHEN c.field = ? AND c.component_type = ? "
                        "THEN c.cmp_id END"
                    ]
                    params.extend([attr.name, uid])
                else:
                    on = [f"{alias}.id = CASE WHEN c.field = ? THEN c.cmp_id END"]
                    params.append(attr.name)
                if filters is not None:
                    text, more = compile_where(
                        filters, self.dialect, alias, ctx.filter_status, ctx.filter_locale
                    )
                    on.append(text)
                    params.extend(more)
                joins.append(f"LEFT JOIN {self.quoted[comp.table]} {alias} ON {' AND '.join(on)}")
                cols.append(sel.sql)
                slots[(attr.name, uid if attr.type == "dynamiczone" else None)] = (sel, width)
                width += len(sel.keys)
        keys = sorted({int(d["id"]) for d in docs})
        names = [entry.attr.name for entry in entries]
        rows = yield from self._rows(
            f"SELECT {', '.join(cols)} FROM {self.quoted[components_table_name(schema)]} c "
            f"{' '.join(joins)} "
            f"WHERE {KEYS} AND c.field IN ({marks(len(names))}) "
            "ORDER BY c.entity_id, c.field, c.position",
            [*params, KEY_PARAMS, *names],
            "c.entity_id",
            keys,
            0,
            ctx,
        )
        times = _multiplicity(docs, "id", len(keys), weights)
        if times is None:
            self._spend(ctx, len(rows))
        else:
            self._spend(ctx, sum(times.get(row[0], 0) for row in rows))
        # how many times the answer shows each component entry, where not once
        child_weights: dict[int, int] | None = {} if times is not None else None
        by_name = {entry.attr.name: entry for entry in entries}
        zones = {name for name, entry in by_name.items() if entry.attr.type == "dynamiczone"}
        # (entity, field) -> its entries in order: (component uid, item or None, cmp_id)
        found: dict[tuple[int, str], list[tuple[str, dict[str, Any] | None, int]]] = defaultdict(
            list
        )
        by_kind: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        stray: dict[tuple[str, str], list[int]] = defaultdict(list)
        for row in rows:
            entity, name, uid = row[0], row[1], row[2]
            slot = slots.get((name, uid if name in zones else None))
            if slot is None:
                # a zone's entry of a kind it no longer allows (or not asked for)
                zone = by_name[name]
                if uid in self.registry.components and (not zone.only_on or uid in zone.on):
                    found[(entity, name)].append((uid, None, int(row[3])))
                    stray[(name, uid)].append(int(row[3]))
                continue
            sel, start = slot
            if row[start] is None:
                continue  # filtered out, or a missing row
            item = sel.at(row, start)
            found[(entity, name)].append((uid, item, row[3]))
            by_kind[(name, uid)].append(item)
            if child_weights is not None and times is not None:
                child_weights[id(item)] = times.get(entity, 0)
        strays: dict[tuple[str, int], dict[str, Any]] = {}
        for (name, uid), ids in stray.items():
            comp = self.registry.components[uid]
            zone = by_name[name]
            sel = self.selection(comp, zone.on_fields.get(uid))
            among, id_params = self.dialect.one_of("t.id", ids)
            got = yield query(
                f"SELECT {sel.sql} FROM {self.quoted[comp.table]} t WHERE {among}",
                id_params,
            )
            items = sel.documents(got)
            for item in items:
                strays[(uid, int(item["id"]))] = item
            nested = zone.on.get(uid)
            if nested:
                yield from self.load(comp, items, nested, ctx)
        for entry in entries:
            attr = entry.attr
            if attr.type == "component":
                if entry.children:
                    comp = self.registry.components[str(attr.component)]
                    items = by_kind.get((attr.name, str(attr.component)), [])
                    yield from self.load(comp, items, entry.children, ctx, child_weights)
                for doc in docs:
                    got = [
                        part
                        for _, part, _ in found.get((int(doc["id"]), attr.name), [])
                        if part is not None
                    ]
                    doc[attr.name] = got if attr.repeatable else (got[0] if got else None)
                continue
            for uid, nested in entry.on.items():
                kind = self.registry.components.get(uid)
                if nested and kind is not None:
                    items = by_kind.get((attr.name, uid), [])
                    yield from self.load(kind, items, nested, ctx, child_weights)
            for doc in docs:
                out = []
                for uid, part, cmp_id in found.get((int(doc["id"]), attr.name), []):
                    got_item = part if part is not None else strays.get((uid, cmp_id))
                    if got_item is not None:
                        out.append({"__component": uid, **got_item})
                doc[attr.name] = out

    def _media(
        self,
        schema: Schema,
        docs: list[dict[str, Any]],
        entries: list[Populate],
        ctx: ReadContext,
        weights: Weights,
    ) -> Program:
        """Media fields of one level: together in one statement when they select the same
        file fields and have no filters or sort of their own (a cover and a gallery), each
        alone otherwise."""
        first = entries[0]
        sel = self.selection(self.file_type, first.fields)
        keys = sorted({int(d["id"]) for d in docs})
        names = [entry.attr.name for entry in entries]
        params: list[Any] = [schema.uid, *names, KEY_PARAMS]
        narrow = ""
        if first.filters is not None:
            text, more = compile_where(first.filters, self.dialect, "t")
            narrow = f" AND {text}"
            params.extend(more)
        order = "".join(self._order(k, ReadContext("published", None)) + ", " for k in first.sort)
        rows = yield from self._rows(
            f"SELECT {sel.sql}, m.field, m.related_id FROM {self.quoted[FILES_LINK_TABLE]} "
            f"m JOIN {self.quoted[FILES_TABLE]} t ON t.id = m.file_id "
            "WHERE m.related_type = ? AND m.field IN "
            f"({marks(len(names))}) AND {KEYS}{narrow} "
            f"ORDER BY m.related_id, m.field, {order}m.position",
            params,
            "m.related_id",
            keys,
            -1,
            ctx,
        )
        times = _multiplicity(docs, "id", len(keys), weights)
        if times is None:
            self._spend(ctx, len(rows))
        else:
            self._spend(ctx, sum(times.get(row[-1], 0) for row in rows))
        found: dict[tuple[Any, str], list[dict[str, Any]]] = defaultdict(list)
        for row, item in zip(rows, sel.documents(rows), strict=True):
            found[(row[-1], row[-2])].append(item)
        for entry in entries:
            attr = entry.attr
            for doc in docs:
                items = found.get((doc["id"], attr.name), [])
                doc[attr.name] = items if attr.multiple else (items[0] if items else None)


# how many times an answer shows each document of a level (by `id()`), where not once
Weights = dict[int, int] | None


def _multiplicity(
    docs: list[dict[str, Any]], key: str, distinct: int, weights: Weights
) -> dict[Any, int] | None:
    """How many times the answer shows the entries populated for each parent key: None
    when once each (no two documents share a key, each shown once: the usual case, known
    from the number of distinct keys at no cost)."""
    if weights is None and distinct == len(docs):
        return None
    times: dict[Any, int] = {}
    for doc in docs:
        value = doc[key]
        times[value] = times.get(value, 0) + (weights.get(id(doc), 1) if weights else 1)
    return times


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


def _sort_by_link(rows: list[Any], nulls_last: bool) -> None:
    """Rows that end with (link position, source row id, parent key) in the order an ORDER BY of
    the two link columns gives them: an absent position after the others where the
    database sorts NULL last (PostgreSQL), before them where first (MySQL)."""
    try:
        # two stable sorts on one column each: Python compares numbers alone faster than
        # pairs of them (1,356 rows: 0.18 ms, 0.38 ms by pairs)
        rows.sort(key=itemgetter(-2))
        rows.sort(key=itemgetter(-3))
    except TypeError:  # an absent position: None does not compare with a number

        def place(row: Any) -> tuple[bool, float, int]:
            position = row[-3]
            return ((position is None) == nulls_last, position or 0.0, row[-2])

        rows.sort(key=place)


def _unique(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[int] = set()
    out = []
    for doc in docs:
        if id(doc) not in seen:
            seen.add(id(doc))
            out.append(doc)
    return out
