"""Populate: which relations, components, dynamic zones and media a read returns, and the
batched loading of them — one query per populated field and level (a dynamic zone: one for
its entries plus one per component kind present), whatever the number of documents."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from folio.content.reader import Selection, build_selection, order_term, sort_expr
from folio.content.spec import FieldRef, FilterBuilder, Node, invalid_key
from folio.content.where import compile_where
from folio.errors import ValidationError
from folio.schema.kinds import KINDS
from folio.schema.model import Attribute, Component, ContentType, Registry, Schema
from folio.store.layout import (
    FILES_LINK_TABLE,
    FILES_TABLE,
    components_table_name,
    link_table_name,
    target_join,
    version_flag,
)
from folio.store.program import Program, query

LINK_TYPES = frozenset({"relation", "media", "component", "dynamiczone"})
LOCALIZATIONS = "localizations"


def localizations_attr(ct: ContentType) -> Attribute:
    """The `localizations` of a localized type: the document's versions in the other
    locales (same status), populated like a relation to the type itself."""
    return Attribute(
        LOCALIZATIONS,
        LOCALIZATIONS,
        KINDS["relation"],
        {},
        relation="oneToMany",
        target=ct.uid,
    )


def _has_localizations(schema: ContentType) -> bool:
    return schema.localized and LOCALIZATIONS not in schema.attributes


TRUE = frozenset({"true", "*", "1", "t"})
FALSE = frozenset({"false", "0", "f"})
POPULATE_KEYS = frozenset({"fields", "filters", "sort", "populate", "on", "count"})
# `count` takes the boolean spellings of populate values (not `*`)
COUNT_VALUES = {**dict.fromkeys(TRUE - {"*"}, True), **dict.fromkeys(FALSE, False)}


@dataclass
class Populate:
    attr: Attribute
    fields: list[str] | None = None
    filters: Node | None = None
    sort: list[tuple[FieldRef, bool]] = field(default_factory=list)
    children: dict[str, Populate] = field(default_factory=dict)
    on: dict[str, dict[str, Populate]] = field(default_factory=dict)
    on_fields: dict[str, list[str] | None] = field(default_factory=dict)
    # a dynamic zone populated with `on`: only the components named there
    only_on: bool = False
    # `count=true`: a relation or component answers {"count": n} instead of its entries
    count: bool = False


class PopulateParser:
    """Reads the `populate` parameter in every form the REST API accepts: `*`, a comma list,
    an array, dotted paths, and objects with fields / filters / sort / populate / on."""

    def __init__(
        self,
        registry: Registry,
        dialect: str,
        status: str,
        locale: str | None,
        parse_fields: Any,
        parse_sort: Any,
    ) -> None:
        self.registry = registry
        self.dialect = dialect
        self.status = status
        self.locale = locale
        self.parse_fields = parse_fields
        self.parse_sort = parse_sort

    def target(self, attr: Attribute) -> Schema | None:
        if attr.type in ("relation", LOCALIZATIONS):
            return self.registry.content_types.get(str(attr.target))
        if attr.type == "component":
            return self.registry.components[str(attr.component)]
        return None

    def parse(self, schema: Schema, raw: Any, path: list[str]) -> dict[str, Populate]:
        out: dict[str, Populate] = {}
        if raw is None:
            return out
        if isinstance(raw, str):
            if raw in TRUE and raw == "*":
                return self.star(schema)
            for item in raw.split(","):
                self._dotted(schema, item.strip(), out, path)
            return out
        if isinstance(raw, list):
            for item in raw:
                if not isinstance(item, str):
                    raise ValidationError(
                        "Invalid populate parameter: expected field names",
                        {"source": "query", "param": "populate"},
                    )
                if item == "*":
                    out.update(self.star(schema))
                    continue
                for part in item.split(","):
                    self._dotted(schema, part.strip(), out, path)
            return out
        if isinstance(raw, dict):
            for name, value in raw.items():
                if name.isdigit() and isinstance(value, str):
                    # `populate[0]=seo` beside `populate[tags][fields]...`: a listed name
                    for part in value.split(","):
                        self._dotted(schema, part.strip(), out, path)
                    continue
                attr = self._attr(schema, name, path)
                if isinstance(value, str) and value in FALSE:
                    continue
                if isinstance(value, str) and value in TRUE:
                    entry = Populate(attr)
                    if value == "*":
                        self._star_children(entry)
                    out[name] = entry
                    continue
                if isinstance(value, dict):
                    out[name] = self._object(attr, value, [*path, name])
                    continue
                raise ValidationError(
                    f"Invalid populate value for {name}",
                    {
                        "key": name,
                        "path": ".".join([*path, name]),
                        "source": "query",
                        "param": "populate",
                    },
                )
            return out
        raise ValidationError(
            "Invalid populate parameter", {"source": "query", "param": "populate"}
        )

    def star(self, schema: Schema) -> dict[str, Populate]:
        out = {
            a.name: Populate(a)
            for a in schema.attributes.values()
            if a.type in LINK_TYPES and not a.is_hidden and self._reachable(a)
        }
        if isinstance(schema, ContentType) and _has_localizations(schema):
            out[LOCALIZATIONS] = Populate(localizations_attr(schema))
        return out

    def _reachable(self, attr: Attribute) -> bool:
        return attr.type != "relation" or str(attr.target) in self.registry.content_types

    def _star_children(self, entry: Populate) -> None:
        target = self.target(entry.attr)
        if target is not None:
            entry.children = self.star(target)
        elif entry.attr.type == "dynamiczone":
            for uid in entry.attr.components:
                entry.on[uid] = self.star(self.registry.components[uid])

    def _attr(self, schema: Schema, name: str, path: list[str]) -> Attribute:
        if name == LOCALIZATIONS and isinstance(schema, ContentType) and _has_localizations(schema):
            return localizations_attr(schema)
        attr = schema.attributes.get(name)
        if (
            attr is None
            or attr.is_hidden
            or attr.type not in LINK_TYPES
            or not (self._reachable(attr))
        ):
            raise invalid_key(name, ".".join([*path, name]), "populate")
        return attr

    def _dotted(self, schema: Schema, text: str, out: dict[str, Populate], path: list[str]) -> None:
        if not text:
            return
        head, _, rest = text.partition(".")
        attr = self._attr(schema, head, path)
        entry = out.setdefault(head, Populate(attr))
        if rest:
            target = self.target(attr)
            if target is None:
                raise invalid_key(rest.split(".")[0], ".".join([*path, head]), "populate")
            self._dotted(target, rest, entry.children, [*path, head])

    def _object(self, attr: Attribute, raw: dict[str, Any], path: list[str]) -> Populate:
        entry = Populate(attr)
        for key in raw:
            if key not in POPULATE_KEYS:
                raise invalid_key(key, ".".join(path), "populate")
        if "count" in raw:
            value = raw["count"]
            if not isinstance(value, str) or value not in COUNT_VALUES:
                raise invalid_key("count", ".".join(path), "populate")
            # media and dynamic zones populate whole, as the reference does
            entry.count = COUNT_VALUES[value] and attr.type in ("relation", "component")
        target = self.target(attr)
        if attr.type == "dynamiczone":
            on = raw.get("on")
            if isinstance(on, dict):
                entry.only_on = True
                for uid, sub in on.items():
                    if uid not in attr.components:
                        raise invalid_key(uid, ".".join([*path, "on"]), "populate")
                    comp = self.registry.components[uid]
                    entry.on[uid] = self._component_on(comp, sub, [*path, "on", uid])
                    if isinstance(sub, dict) and "fields" in sub:
                        entry.on_fields[uid] = self.parse_fields(comp, sub["fields"])
            nested = raw.get("populate")
            if nested is not None and not entry.on:
                for uid in attr.components:
                    comp = self.registry.components[uid]
                    entry.on[uid] = self.star(comp) if nested in ("*", "true") else {}
            return entry
        if target is None:  # media
            return entry
        if "fields" in raw:
            entry.fields = self.parse_fields(target, raw["fields"])
        if "sort" in raw and isinstance(target, ContentType):
            entry.sort = self.parse_sort(target, raw["sort"])
        if raw.get("filters") is not None:
            builder = FilterBuilder(
                self.dialect, registry=self.registry, status=self.status, locale=self.locale
            )
            entry.filters = builder.build(target, raw["filters"])
        nested = raw.get("populate")
        if nested is not None:
            entry.children = self.parse(target, nested, path)
        return entry

    def _component_on(self, comp: Component, raw: Any, path: list[str]) -> dict[str, Populate]:
        if isinstance(raw, str) and raw in TRUE:
            return self.star(comp) if raw == "*" else {}
        if isinstance(raw, dict):
            for key in raw:
                if key not in ("fields", "populate", "filters", "sort"):
                    raise invalid_key(key, ".".join(path), "populate")
            if "populate" in raw:
                return self.parse(comp, raw["populate"], path)
            return {}
        raise ValidationError(
            f"Invalid populate value for {path[-1]}",
            {"key": path[-1], "path": ".".join(path), "source": "query", "param": "populate"},
        )


class ReadContext:
    def __init__(self, status: str, locale: str | None) -> None:
        self.status = status
        self.locale = locale


def _marks(n: int) -> str:
    return ", ".join("?" * n)


class Populator:
    """Loads populated fields for a list of documents, in batches."""

    def __init__(self, registry: Registry, dialect: str) -> None:
        self.registry = registry
        self.dialect = dialect
        self.file_type = registry.content_types["plugin::upload.file"]
        self._selections: dict[tuple[str, tuple[str, ...] | None], Selection] = {}

    def selection(self, schema: Schema, fields: list[str] | None) -> Selection:
        key = (schema.uid, tuple(fields) if fields is not None else None)
        sel = self._selections.get(key)
        if sel is None:
            sel = build_selection(schema, fields, self.dialect, "t")
            if len(self._selections) < 1000:
                self._selections[key] = sel
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
            text, more = compile_where(entry.filters, self.dialect, "t")
            conds.append(text)
            params.extend(more)

    def _localizations(
        self, ct: ContentType, docs: list[dict[str, Any]], entry: Populate, ctx: ReadContext
    ) -> Program:
        """Each document's versions in the other locales, in the read's status."""
        sel = self.selection(ct, entry.fields)
        keys = sorted({str(d["documentId"]) for d in docs})
        conds = [f"t.document_id IN ({_marks(len(keys))})"]
        params: list[Any] = list(keys)
        owns = {doc.get("locale", ctx.locale) for doc in docs}
        if len(owns) == 1 and None not in owns:
            # one locale read (the usual case): its own versions need not be fetched
            conds.append("t.locale <> ?")
            params.append(owns.pop())
        self._narrow(ct, entry, ctx, conds, params)
        order = "".join(_order(ref, desc, self.dialect) + ", " for ref, desc in entry.sort)
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
        conds: list[str] = []
        params: list[Any] = []
        if attr.mapped_by is None:
            link = link_table_name(schema, attr)
            keys = sorted({int(d["id"]) for d in docs})
            on = target_join("l", "t", target.localized)
            parent = "l.source_id"
            conds.append(f"l.source_id IN ({_marks(len(keys))})")
            params.extend(keys)
            order = "l.position"
        else:
            owner_attr = target.attributes[attr.mapped_by]
            link = link_table_name(target, owner_attr)
            keys_s = sorted({str(d["documentId"]) for d in docs})
            on = "t.id = l.source_id"
            parent = "l.target_document_id"
            conds.append(f"l.target_document_id IN ({_marks(len(keys_s))})")
            params.extend(keys_s)
            if isinstance(schema, ContentType) and schema.localized:
                conds.append("l.target_locale = ?")
                params.append(ctx.locale)
            else:
                conds.append("l.target_locale IS NULL")
            if target.localized:
                conds.append("t.locale = ?")
                params.append(ctx.locale)
            order = "l.inv_position"
        self._narrow(target, entry, ctx, conds, params)
        key = "id" if attr.mapped_by is None else "documentId"
        joined = f'FROM "{link}" l JOIN "{target.table}" t ON {on} WHERE {" AND ".join(conds)}'
        if entry.count:
            counted = yield query(f"SELECT {parent}, COUNT(*) {joined} GROUP BY {parent}", params)
            _set_counts(docs, key, attr.name, counted)
            return
        if entry.sort:
            order = (
                ", ".join(_order(ref, desc, self.dialect) for ref, desc in entry.sort)
                + ", "
                + order
            )
        rows = yield query(
            f"SELECT {sel.sql}, {parent} {joined} ORDER BY {parent}, {order}, l.id", params
        )
        found = sel.grouped(rows)
        many = attr.relation in ("oneToMany", "manyToMany", "manyWay", "morphMany", "morphToMany")
        if attr.mapped_by is not None:
            owner_attr = target.attributes[attr.mapped_by]
            many = owner_attr.relation in ("manyToOne", "manyToMany") or (
                attr.relation in ("oneToMany", "manyToMany")
            )
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
        keys = sorted({int(d["id"]) for d in docs})
        if entry.count:
            counted = yield query(
                f'SELECT entity_id, COUNT(*) FROM "{components_table_name(schema)}" WHERE '
                f"entity_id IN ({_marks(len(keys))}) AND field = ? GROUP BY entity_id",
                [*keys, attr.name],
            )
            _set_counts(docs, "id", attr.name, counted)
            return
        conds = [f"c.entity_id IN ({_marks(len(keys))})", "c.field = ?"]
        params: list[Any] = [*keys, attr.name]
        self._narrow(comp, entry, ctx, conds, params)
        rows = yield query(
            f'SELECT {sel.sql}, c.entity_id FROM "{components_table_name(schema)}" c JOIN '
            f'"{comp.table}" t ON t.id = c.cmp_id WHERE {" AND ".join(conds)} '
            "ORDER BY c.entity_id, c.position",
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

    def _zone(
        self, schema: Schema, docs: list[dict[str, Any]], entry: Populate, ctx: ReadContext
    ) -> Program:
        attr = entry.attr
        keys = sorted({int(d["id"]) for d in docs})
        rows = yield query(
            f'SELECT entity_id, cmp_id, component_type FROM "{components_table_name(schema)}" '
            f"WHERE entity_id IN ({_marks(len(keys))}) AND field = ? "
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
                f'SELECT {sel.sql} FROM "{comp.table}" t WHERE t.id IN ({_marks(len(ids))})', ids
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
        sel = self.selection(self.file_type, None)
        keys = sorted({int(d["id"]) for d in docs})
        rows = yield query(
            f'SELECT {sel.sql}, m.related_id FROM "{FILES_LINK_TABLE}" m JOIN "{FILES_TABLE}" t '
            f"ON t.id = m.file_id WHERE m.related_type = ? AND m.field = ? AND m.related_id IN "
            f"({_marks(len(keys))}) ORDER BY m.related_id, m.position",
            [schema.uid, attr.name, *keys],
        )
        found = sel.grouped(rows)
        for doc in docs:
            items = found.get(doc["id"], [])
            doc[attr.name] = items if attr.multiple else (items[0] if items else None)


def _order(ref: FieldRef, desc: bool, dialect: str) -> str:
    """An ORDER BY term of a populate's sort over the target alias `t`."""
    return order_term(sort_expr(ref.column), desc, dialect, ref.column)


def _set_counts(docs: list[dict[str, Any]], key: str, name: str, rows: list[Any]) -> None:
    """`{"count": n}` on each document, from (parent key, count) rows."""
    counts = {parent: int(n) for parent, n in rows}
    for doc in docs:
        doc[name] = {"count": counts.get(doc[key], 0)}


def _unique(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[int] = set()
    out = []
    for doc in docs:
        if id(doc) not in seen:
            seen.add(id(doc))
            out.append(doc)
    return out


def prune_populate(
    entries: dict[str, Populate], visible: Callable[[str], bool]
) -> dict[str, Populate]:
    """The populate tree without the relations whose target type the reader may not `find`
    (left out of the response, as the reference does; media, components and dynamic zones
    are not permission-checked there either)."""
    out: dict[str, Populate] = {}
    for name, entry in entries.items():
        attr = entry.attr
        if attr.type == "relation" and not visible(str(attr.target)):
            continue
        if entry.children:
            entry.children = prune_populate(entry.children, visible)
        if entry.on:
            entry.on = {uid: prune_populate(sub, visible) for uid, sub in entry.on.items()}
        out[name] = entry
    return out
