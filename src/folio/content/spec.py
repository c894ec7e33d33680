"""QuerySpec: what a find asks for, independent of REST or GraphQL syntax.

Filter trees are built from nested operator dictionaries (`{"title": {"$eq": "x"}}`) and
checked against the model: unknown fields, unknown operators and values that do not fit the
field's type are `ValidationError`s naming the offending key."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from folio.errors import ValidationError
from folio.schema.kinds import (
    DOCUMENT_ID_KIND,
    ID_KIND,
    NULL_OPS,
    TEXT_OPS,
    TIMESTAMP_KIND,
    Kind,
    StringKind,
)
from folio.schema.model import Attribute, ContentType, Registry, Schema
from folio.schema.values import parse_bool
from folio.store.layout import components_table_name, link_table_name, target_join

LOGICAL = frozenset({"$and", "$or", "$not"})
LOCALE_KIND = StringKind()


@dataclass(frozen=True)
class FieldRef:
    """A filterable, sortable field: an attribute column or a system column."""

    name: str
    column: str
    kind: Kind


SYSTEM_FIELDS = {
    "id": FieldRef("id", "id", ID_KIND),
    "documentId": FieldRef("documentId", "document_id", DOCUMENT_ID_KIND),
    "createdAt": FieldRef("createdAt", "created_at", TIMESTAMP_KIND),
    "updatedAt": FieldRef("updatedAt", "updated_at", TIMESTAMP_KIND),
    "publishedAt": FieldRef("publishedAt", "published_at", TIMESTAMP_KIND),
    "locale": FieldRef("locale", "locale", LOCALE_KIND),
}


def field_ref(schema: Schema, name: str) -> FieldRef | None:
    attr = schema.attributes.get(name)
    if attr is not None:
        if not attr.kind.scalar or attr.is_hidden or attr.column is None:
            return None
        return FieldRef(name, attr.column, attr.kind)
    if isinstance(schema, ContentType):
        if name == "locale" and not schema.localized:
            return None
        return SYSTEM_FIELDS.get(name)
    return SYSTEM_FIELDS.get(name) if name == "id" else None


def related_field_ref(ct: ContentType, name: str, param: str) -> FieldRef | None:
    """`category.name`, `category.parent.name`, `seo.metaTitle`: a field of the first related
    document (or component) at the end of a path, as a scalar subquery (to sort on it)."""
    head = name.partition(".")[0]
    attr = ct.attributes.get(head)
    if attr is None or attr.type not in ("relation", "component") or ct.registry is None:
        return None
    found = _path_expr(ct.registry, ct, "t", name.split("."), [], param, 0)
    if found is None:
        return None
    expr, kind = found
    return FieldRef(name, expr, kind)


def _path_expr(
    registry: Registry,
    schema: Schema,
    alias: str,
    parts: list[str],
    seen: list[str],
    param: str,
    depth: int,
) -> tuple[str, Kind] | None:
    """The SQL value of `parts` from the row `alias` of `schema`, and its kind."""
    name, rest = parts[0], parts[1:]
    if not rest:
        ref = field_ref(schema, name)
        if ref is None:
            raise invalid_key(name, ".".join(seen) or None, param)
        return f'{alias}."{ref.column}"', ref.kind
    attr = schema.attributes.get(name)
    if attr is None or attr.is_hidden:
        raise invalid_key(".".join(parts), ".".join(seen) or None, param)
    x, link = f"x{depth}", f"l{depth}"
    if attr.type == "component":
        comp = registry.components[str(attr.component)]
        inner = _path_expr(registry, comp, x, rest, [*seen, name], param, depth + 1)
        if inner is None:
            return None
        field_name = attr.name.replace("'", "''")
        return (
            f'(SELECT {inner[0]} FROM "{components_table_name(schema)}" {link} JOIN '
            f'"{comp.table}" {x} ON {x}.id = {link}.cmp_id WHERE {link}.entity_id = {alias}.id '
            f"AND {link}.field = '{field_name}' ORDER BY {link}.position LIMIT 1)",
            inner[1],
        )
    if attr.type != "relation":
        raise invalid_key(".".join(parts), ".".join(seen) or None, param)
    target = registry.content_types.get(str(attr.target))
    if target is None:
        return None
    inner = _path_expr(registry, target, x, rest, [*seen, name], param, depth + 1)
    if inner is None:
        return None
    cond = f" AND {x}.published_at IS NOT NULL" if target.draft_and_publish else ""
    if attr.mapped_by is None:
        on = target_join(link, x, target.localized)
        return (
            f'(SELECT {inner[0]} FROM "{link_table_name(schema, attr)}" {link} JOIN '
            f'"{target.table}" {x} ON {on} WHERE {link}.source_id = {alias}.id{cond} '
            f"ORDER BY {link}.position LIMIT 1)",
            inner[1],
        )
    owner_attr = target.attributes.get(attr.mapped_by)
    if owner_attr is None:
        return None
    localized = isinstance(schema, ContentType) and schema.localized
    loc = f"{link}.target_locale = {alias}.locale" if localized else f"{link}.target_locale IS NULL"
    return (
        f'(SELECT {inner[0]} FROM "{link_table_name(target, owner_attr)}" {link} JOIN '
        f'"{target.table}" {x} ON {x}.id = {link}.source_id WHERE {link}.target_document_id = '
        f"{alias}.document_id AND {loc}{cond} ORDER BY {link}.inv_position LIMIT 1)",
        inner[1],
    )


class Cond:
    """`field op value`; `value` is already converted to the bound parameter(s)."""

    __slots__ = ("field", "op", "value")

    def __init__(self, field: FieldRef, op: str, value: Any) -> None:
        self.field = field
        self.op = op
        self.value = value


class Group:
    __slots__ = ("children", "op")

    def __init__(self, op: str, children: list[Node]) -> None:
        self.op = op  # "AND" | "OR"
        self.children = children


class Not:
    __slots__ = ("child",)

    def __init__(self, child: Node) -> None:
        self.child = child


class Rel:
    """A condition on related rows: a relation (either side) or a component field."""

    __slots__ = (
        "child",
        "field",
        "kind",
        "link",
        "locale",
        "outer_localized",
        "status",
        "target",
        "target_dnp",
        "target_localized",
    )

    def __init__(
        self,
        kind: str,
        link: str,
        target: str,
        child: Node,
        *,
        field: str = "",
        target_dnp: bool = False,
        target_localized: bool = False,
        outer_localized: bool = False,
        locale: str | None = None,
        status: str = "published",
    ) -> None:
        self.kind = kind  # "owner" | "inverse" | "component"
        self.link = link
        self.target = target
        self.child = child
        self.field = field
        self.target_dnp = target_dnp
        self.target_localized = target_localized
        self.outer_localized = outer_localized
        self.locale = locale
        self.status = status


Node = Cond | Group | Not | Rel


@dataclass
class Pagination:
    mode: str = "page"  # "page" | "offset"
    page: int = 1
    page_size: int = 25
    start: int = 0
    limit: int = 25
    with_count: bool = True

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.page_size if self.mode == "page" else self.start

    @property
    def size(self) -> int:
        return self.page_size if self.mode == "page" else self.limit


@dataclass
class QuerySpec:
    filters: Node | None = None
    sort: list[tuple[FieldRef, bool]] = field(default_factory=list)  # (field, descending)
    pagination: Pagination = field(default_factory=Pagination)
    fields: list[str] | None = None  # attribute names; None means all
    locale: str | None = None
    status: str = "published"
    populate: dict[str, Any] = field(default_factory=dict)  # name -> populate.Populate


class FilterBuilder:
    """Turns operator dictionaries into a filter tree, checked against a schema."""

    def __init__(
        self,
        dialect: str,
        param: str = "filters",
        source: str = "query",
        *,
        registry: Registry | None = None,
        status: str = "published",
        locale: str | None = None,
    ) -> None:
        self.dialect = dialect
        self.param = param
        self.source = source
        self.registry = registry
        self.status = status
        self.locale = locale

    def invalid_key(self, key: str, path: list[str]) -> ValidationError:
        return invalid_key(key, _field_path(path), self.param, self.source)

    def invalid_value(self, path: list[str], value: Any, reason: str) -> ValidationError:
        name = self.param + "".join(f"[{p}]" for p in path)
        return ValidationError(
            f"Invalid value {_show(value)} for {name}: {reason}",
            {
                "key": path[-1] if path else "",
                "path": ".".join(path),
                "source": self.source,
                "param": self.param,
                "value": value,
            },
        )

    def build(self, schema: Schema, raw: Any, path: list[str] | None = None) -> Node | None:
        path = path or []
        if raw is None or raw == "":
            return None
        if isinstance(raw, list):
            kept = [c for item in raw if (c := self.build(schema, item, path)) is not None]
            return Group("AND", kept) if kept else None
        if not isinstance(raw, dict):
            if not path:
                raise ValidationError("The filters parameter must be an object or an array")
            raise self.invalid_value(path, raw, "expected an object of filters")
        nodes: list[Node] = []
        for key, value in raw.items():
            if key in ("$and", "$or"):
                group = self.group(schema, key, value, path)
                if group is not None:
                    nodes.append(group)
            elif key == "$not":
                child = self.build(schema, value, [*path, key])
                if child is not None:
                    nodes.append(Not(child))
            else:
                attr = schema.attributes.get(key)
                if attr is not None and not attr.kind.scalar and self.registry is not None:
                    rel = self.related(schema, attr, value, [*path, key])
                    if rel is not None:
                        nodes.append(rel)
                    continue
                ref = field_ref(schema, key)
                if ref is None:
                    if (attr is not None and not attr.is_hidden) or key in (
                        "createdBy",
                        "updatedBy",
                        "localizations",
                    ):
                        raise invalid_key(
                            key, ".".join([*_names(path), key]), self.param, self.source
                        )
                    raise self.invalid_key(key, path)
                nodes.append(self.field_filter(ref, value, [*path, key]))
        if not nodes:
            return None
        return nodes[0] if len(nodes) == 1 else Group("AND", nodes)

    def group(self, schema: Schema, op: str, raw: Any, path: list[str]) -> Node | None:
        """`$and` / `$or`: a list of filter objects (or one object, or an object with index
        keys as `qs` writes long arrays); empty members are dropped. Only documents and
        related entries have groups: an operator in a field's place is an invalid key."""
        if isinstance(raw, list):
            items = raw
        elif isinstance(raw, dict) and raw and all(k.isdigit() for k in raw):
            items = list(raw.values())
        else:
            items = [raw]
        children = []
        for i, item in enumerate(items):
            at = [*path, op, str(i)]
            if not isinstance(item, dict):
                raise self.invalid_value(at, item, "expected an object of filters")
            child = self.build(schema, item, at)
            if child is not None:
                children.append(child)
        return Group("AND" if op == "$and" else "OR", children) if children else None

    def related(self, schema: Schema, attr: Attribute, raw: Any, path: list[str]) -> Node | None:
        assert self.registry is not None
        if attr.type in ("media", "dynamiczone"):
            raise ValidationError(
                f"Filtering on {attr.type} attributes is not supported ({attr.name})",
                {
                    "key": attr.name,
                    "path": ".".join(_names(path)),
                    "source": self.source,
                    "param": self.param,
                },
            )
        if not isinstance(raw, dict):
            raise self.invalid_value(
                path, raw, "expected an object of filters on the related fields"
            )
        target: Schema | None
        if attr.type == "component":
            target = self.registry.components[str(attr.component)]
        else:
            target = self.registry.content_types.get(str(attr.target))
        if target is None:
            raise self.invalid_key(attr.name, path[:-1])
        presence = {k: v for k, v in raw.items() if k in NULL_OPS}
        rest = {k: v for k, v in raw.items() if k not in NULL_OPS}
        nodes: list[Node] = []
        for op, value in presence.items():
            # `filters[category][$null]=true`: documents without (or with) a related entry
            try:
                wanted = parse_bool(value)
            except ValueError:
                raise self.invalid_value([*path, op], value, "expected true or false") from None
            any_entry = Cond(SYSTEM_FIELDS["id"], "$notNull", True)
            exists = self._rel(schema, attr, target, any_entry, path)
            nodes.append(Not(exists) if wanted == (op == "$null") else exists)
        if rest or not presence:
            child = self.build(target, rest, path)
            if child is not None:
                nodes.append(self._rel(schema, attr, target, child, path))
        if not nodes:
            return None
        return nodes[0] if len(nodes) == 1 else Group("AND", nodes)

    def _rel(
        self, schema: Schema, attr: Attribute, target: Schema, child: Node, path: list[str]
    ) -> Node:
        """The semi-join of documents whose related entries (or components, `target`)
        match `child`."""
        if not isinstance(target, ContentType):
            return Rel(
                "component", components_table_name(schema), target.table, child, field=attr.name
            )
        if attr.mapped_by is None:
            return Rel(
                "owner",
                link_table_name(schema, attr),
                target.table,
                child,
                target_dnp=target.draft_and_publish,
                target_localized=target.localized,
                status=self.status,
            )
        owner_attr = target.attributes.get(attr.mapped_by)
        if owner_attr is None:
            raise self.invalid_key(attr.name, path[:-1])
        return Rel(
            "inverse",
            link_table_name(target, owner_attr),
            target.table,
            child,
            target_dnp=target.draft_and_publish,
            target_localized=target.localized,
            outer_localized=isinstance(schema, ContentType) and schema.localized,
            locale=self.locale,
            status=self.status,
        )

    def field_filter(self, ref: FieldRef, raw: Any, path: list[str]) -> Node:
        if not isinstance(raw, dict):
            # `filters[title]=x` means $eq, `filters[title][0]=x` means $in
            op = "$in" if isinstance(raw, list) else "$eq"
            return self.condition(ref, op, raw, [*path, op])
        nodes: list[Node] = []
        for op, value in raw.items():
            if op == "$not":
                nodes.append(Not(self.field_filter(ref, value, [*path, op])))
            elif op in ref.kind.operators:
                nodes.append(self.condition(ref, op, value, [*path, op]))
            else:
                raise self.invalid_key(op, path)
        if not nodes:
            raise self.invalid_value(path, raw, "expected an operator")
        return nodes[0] if len(nodes) == 1 else Group("AND", nodes)

    def condition(self, ref: FieldRef, op: str, raw: Any, path: list[str]) -> Cond:
        kind = ref.kind
        if op in NULL_OPS:
            try:
                return Cond(ref, op, parse_bool(raw))
            except ValueError:
                raise self.invalid_value(path, raw, "expected true or false") from None
        if op in ("$in", "$notIn", "$between"):
            items = raw if isinstance(raw, list) else [raw]
            if op == "$between" and len(items) != 2:
                raise self.invalid_value(path, raw, "expected two values")
            values = []
            for i, item in enumerate(items):
                values.append(
                    self.operand(
                        kind,
                        item,
                        [*path, str(i)] if len(items) > 1 or isinstance(raw, list) else path,
                    )
                )
            return Cond(ref, op, values)
        if isinstance(raw, list) and op in ("$eq", "$ne"):
            return self.condition(ref, "$in" if op == "$eq" else "$notIn", raw, path)
        if raw is None and op in ("$eq", "$ne"):
            return Cond(ref, "$null" if op == "$eq" else "$notNull", True)
        if isinstance(raw, list | dict):
            raise self.invalid_value(path, raw, "expected a single value")
        if op in TEXT_OPS and not kind.text_native:
            return Cond(ref, op, str(raw).lower() if isinstance(raw, bool) else str(raw))
        return Cond(ref, op, self.operand(kind, raw, path))

    def operand(self, kind: Kind, raw: Any, path: list[str]) -> Any:
        if isinstance(raw, list | dict):
            raise self.invalid_value(path, raw, "expected a single value")
        try:
            return kind.filter_value(raw, self.dialect)
        except (ValueError, OverflowError) as exc:
            reason = str(exc) or f"not a valid {kind.label}"
            raise self.invalid_value(path, raw, reason) from None


def _names(path: list[str]) -> list[str]:
    return [p for p in path if not p.startswith("$") and not p.isdigit()]


def _field_path(path: list[str]) -> str | None:
    """The path of the enclosing field (logical groups and indexes left out)."""
    return ".".join(_names(path)) or None


def invalid_key(key: str, path: str | None, param: str, source: str = "query") -> ValidationError:
    message = f"Invalid key {key}" + (f" at {path}" if path and path != key else "")
    return ValidationError(message, {"key": key, "path": path, "source": source, "param": param})


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)
