"""GraphQL arguments and selections in the document service's terms.

A root field's selection set becomes one read: its scalar fields the `fields` of the read,
its relation, media, component, dynamic-zone and `localizations` fields (with their
`filters` and `sort` arguments) a `populate` tree. The document service then reads a page
and loads every populated field in batches: the statements run do not grow with the page
size (no N+1), and the field resolvers only pick values out of the loaded documents."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLUnionType,
)
from graphql.execution.collect_fields import collect_sub_fields
from graphql.execution.values import get_argument_values

from folio.content.params import Limits, parse_pagination
from folio.content.populate import LOCALIZATIONS
from folio.errors import PaginationError, ValidationError
from folio.schema.model import Component, ContentType, Registry, Schema

CONNECTION = "_connection"
SYSTEM = frozenset({"createdAt", "updatedAt", "publishedAt", "locale"})
LOGICAL = {"and": "$and", "or": "$or", "not": "$not"}


def unwrap(kind: Any) -> Any:
    while isinstance(kind, GraphQLNonNull | GraphQLList):
        kind = kind.of_type
    return kind


def scalar_value(value: Any) -> Any:
    """A filter value in the REST spelling (query-string values are strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return [scalar_value(v) for v in value]
    return value


def operators(raw: dict[str, Any]) -> dict[str, Any]:
    """A scalar filter input (`{eq: 1, not: {...}}`) as REST operators."""
    out: dict[str, Any] = {}
    for op, value in raw.items():
        if value is None:
            continue
        if op == "not":
            out["$not"] = operators(value)
        elif op in ("and", "or"):
            out[f"${op}"] = [{"$eq": scalar_value(v)} for v in value if v is not None]
        else:
            out[f"${op}"] = scalar_value(value)
    return out


# `limit: -1` asks for every entry (as many as the limits allow)
EVERY = str(2**31 - 1)


def pagination_params(raw: dict[str, Any] | None) -> dict[str, str] | None:
    """A `PaginationArg` value as REST `pagination`."""
    if not raw:
        return None
    return {
        k: EVERY if k == "limit" and v == -1 else str(v) for k, v in raw.items() if v is not None
    }


class Planner:
    """Selection sets -> `fields` and `populate` parameters; filter inputs -> `filters`."""

    def __init__(self, registry: Registry, owners: dict[str, Schema], limits: Limits) -> None:
        self.registry = registry
        self.owners = owners
        self.limits = limits

    def filters(self, schema: Schema, raw: dict[str, Any] | None) -> dict[str, Any]:
        """A `<Type>FiltersInput` value as REST `filters`."""
        out: dict[str, Any] = {}
        if not raw:
            return out
        for key, value in raw.items():
            if value is None:
                continue
            if key in ("and", "or"):
                out[LOGICAL[key]] = [self.filters(schema, v) for v in value if v is not None]
            elif key == "not":
                out["$not"] = self.filters(schema, value)
            else:
                target = self._filter_target(schema, key)
                out[key] = self.filters(target, value) if target is not None else operators(value)
        return out

    def _filter_target(self, schema: Schema, key: str) -> Schema | None:
        """The model a nested filter key leads to (a relation, a component,
        `localizations`), None for a field."""
        attr = schema.attributes.get(key)
        if attr is None:
            if key == LOCALIZATIONS and isinstance(schema, ContentType) and schema.localized:
                return schema
            return None
        if attr.type == "relation":
            return self.registry.content_types.get(str(attr.target))
        if attr.type == "component":
            return self.registry.components.get(str(attr.component))
        return None

    def selection(
        self,
        info: GraphQLResolveInfo,
        obj: GraphQLObjectType,
        nodes: list[FieldNode],
        path: tuple[str, ...] = (),
        variants: dict[tuple[str, ...], Variant] | None = None,
    ) -> dict[str, Any]:
        """`{"fields": [...], "populate": {...}}` for the fields selected on `obj` (at
        `path`, the response keys from the root field). A field selected again under
        another alias with other arguments goes to `variants`, by its path."""
        schema = self.owners[obj.name]
        fields: list[str] = []
        populate: dict[str, Any] = {}
        walk = Walk(info, path, variants if variants is not None else {})
        sub = collect_sub_fields(info.schema, info.fragments, info.variable_values, obj, nodes)
        for key, key_nodes in sub.items():
            name = key_nodes[0].name.value
            if name.startswith("__") or name in ("id", "documentId", "related"):
                continue
            field = obj.fields.get(name)
            if field is None:
                continue
            self._field(walk, schema, field, name, key, key_nodes, fields, populate)
        return {"fields": fields, "populate": populate}

    def field_populate(
        self,
        info: GraphQLResolveInfo,
        path: tuple[str, ...],
        variants: dict[tuple[str, ...], Variant],
    ) -> dict[str, Any]:
        """The `populate` parameter reading the field `info` resolves, as its parent's read
        would have read it (for documents an app's resolver returned)."""
        parent = info.parent_type
        schema = self.owners[parent.name]
        field = parent.fields[info.field_name]
        fields: list[str] = []
        populate: dict[str, Any] = {}
        walk = Walk(info, path[:-1], variants)
        self._field(
            walk, schema, field, info.field_name, path[-1], info.field_nodes, fields, populate
        )
        return populate

    def nodes_of(
        self,
        info: GraphQLResolveInfo,
        collection: GraphQLObjectType,
        nodes: list[FieldNode],
        member: str = "nodes",
    ) -> tuple[list[FieldNode], bool]:
        """The field nodes selecting `nodes` (or another `member`) of a collection, and
        whether `pageInfo` is selected too."""
        sub = collect_sub_fields(
            info.schema, info.fragments, info.variable_values, collection, nodes
        )
        found: list[FieldNode] = []
        page_info = False
        for key_nodes in sub.values():
            name = key_nodes[0].name.value
            if name == member:
                found.extend(key_nodes)
            elif name == "pageInfo":
                page_info = True
        return found, page_info

    def _field(
        self,
        walk: Walk,
        schema: Schema,
        field: GraphQLField,
        name: str,
        key: str,
        nodes: list[FieldNode],
        fields: list[str],
        populate: dict[str, Any],
    ) -> None:
        info = walk.info
        here = (*walk.path, key)
        base = name[: -len(CONNECTION)] if name.endswith(CONNECTION) else name
        attr = schema.attributes.get(base)
        if attr is None:
            if base == LOCALIZATIONS and isinstance(schema, ContentType):
                self._relation(walk, schema, field, base, name, key, nodes, populate)
            elif name in SYSTEM and name not in fields:
                fields.append(name)
            return
        if attr.kind.scalar:
            if name not in fields:
                fields.append(name)
        elif attr.type in ("relation", "media"):
            self._relation(walk, schema, field, base, name, key, nodes, populate)
        elif attr.type == "component":
            target = unwrap(field.type)
            entry = self.selection(info, target, nodes, here, walk.variants)
            args = get_argument_values(field, nodes[0], info.variable_values)
            comp = self.registry.components[str(attr.component)]
            filters = self.filters(comp, args.get("filters"))
            if filters:
                entry["filters"] = filters
            if args.get("sort"):
                entry.pop("fields", None)  # sorted by the resolver: every field is read
            _add(walk, schema, populate, base, entry, here)
        elif attr.type == "dynamiczone":
            union = unwrap(field.type)
            assert isinstance(union, GraphQLUnionType)
            on: dict[str, Any] = {}
            members = {t.name: t for t in union.types}
            for uid in attr.components:
                comp_type = members.get(_component_type_name(self.owners, uid))
                if comp_type is None:
                    continue
                on[uid] = self.selection(info, comp_type, nodes, here, walk.variants)
            _merge(populate, base, {"on": on}, name)

    def _relation(
        self,
        walk: Walk,
        schema: Schema,
        field: GraphQLField,
        base: str,
        name: str,
        key: str,
        nodes: list[FieldNode],
        populate: dict[str, Any],
    ) -> None:
        info = walk.info
        here = (*walk.path, key)
        inner = here
        target = unwrap(field.type)
        args = get_argument_values(field, nodes[0], info.variable_values) if field.args else {}
        if name.endswith(CONNECTION):
            nodes, _ = self.nodes_of(info, target, nodes)
            target = unwrap(target.fields["nodes"].type)
            inner = (*here, "nodes")
        entry = (
            self.selection(info, target, nodes, inner, walk.variants)
            if nodes
            else {"fields": [], "populate": {}}
        )
        if field.args:
            target_schema = self.owners[target.name]
            filters = self.filters(target_schema, args.get("filters"))
            if filters:
                entry["filters"] = filters
            if args.get("sort"):
                entry["sort"] = list(args["sort"])
            attr = schema.attributes.get(base)
            if attr is not None and attr.type == "relation":
                # each document's page is read in the database (a pagination error is the
                # field's, raised by its resolver)
                try:
                    page = parse_pagination(pagination_params(args.get("pagination")), self.limits)
                except PaginationError:
                    pass
                else:
                    entry["pagination"] = {"start": str(page.offset), "limit": str(page.size)}
        _add(walk, schema, populate, base, entry, here)


@dataclass
class Variant:
    """A populated field read apart from its parent's read: selected again under another
    alias with other arguments (`populate`: the field's populate parameter)."""

    schema: Schema
    populate: dict[str, Any]


@dataclass
class Walk:
    info: GraphQLResolveInfo
    path: tuple[str, ...]
    variants: dict[tuple[str, ...], Variant]


def _add(
    walk: Walk,
    schema: Schema,
    populate: dict[str, Any],
    key: str,
    entry: dict[str, Any],
    here: tuple[str, ...],
) -> None:
    """Adds a populated field to its parent's read, or, when the read has it already with
    other arguments, as a variant read on its own."""
    found = populate.get(key)
    if found is not None and any(
        found.get(arg) != entry.get(arg) for arg in ("filters", "sort", "pagination")
    ):
        walk.variants[here] = Variant(schema, {key: entry})
        return
    _merge(populate, key, entry, key)


def _component_type_name(owners: dict[str, Schema], uid: str) -> str:
    for name, schema in owners.items():
        if isinstance(schema, Component) and schema.uid == uid:
            return name
    return ""


def _merge(populate: dict[str, Any], key: str, entry: dict[str, Any], name: str) -> None:
    """Adds a populated field; a field selected more than once (aliases, `x` and
    `x_connection`) is read once with the union of the selections, so its reads must
    agree on filters, sort and pagination."""
    found = populate.get(key)
    if found is None:
        populate[key] = entry
        return
    for arg in ("filters", "sort", "pagination"):
        if found.get(arg) != entry.get(arg):
            raise ValidationError(
                f"{name} is selected more than once with different {arg}",
                {"key": name, "source": "graphql"},
            )
    merge_selection(found, entry)


def merge_selection(into: dict[str, Any], other: dict[str, Any]) -> None:
    if "fields" in into or "fields" in other:
        merged = list(into.get("fields") or [])
        for item in other.get("fields") or []:
            if item not in merged:
                merged.append(item)
        into["fields"] = merged
    for key, entry in (other.get("populate") or {}).items():
        _merge(into.setdefault("populate", {}), key, entry, key)
    for uid, entry in (other.get("on") or {}).items():
        on = into.setdefault("on", {})
        if uid in on:
            merge_selection(on[uid], entry)
        else:
            on[uid] = entry
