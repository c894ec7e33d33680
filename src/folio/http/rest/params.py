"""REST find parameters -> QuerySpec: `filters`, `sort`, `pagination`, `fields`, `locale`,
`status`, checked against the model with the reference's error names and messages."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from folio.config import Settings
from folio.content.populate import PopulateParser, prune_populate
from folio.content.spec import (
    SYSTEM_FIELDS,
    FieldRef,
    FilterBuilder,
    Pagination,
    QuerySpec,
    field_ref,
    invalid_key,
    related_field_ref,
)
from folio.errors import PaginationError, ValidationError
from folio.schema.model import ContentType, Registry, Schema

STATUSES = ("published", "draft")
_NUMBER_RE = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
WITH_COUNT = {"t": True, "1": True, "true": True, "f": False, "0": False, "false": False}


def parse_status(ct: ContentType, raw: Any) -> str:
    if raw is None:
        return "published"
    if raw not in STATUSES:
        raise ValidationError(
            f"Invalid status {_text(raw)}: expected one of published, draft",
            {"key": "status", "source": "query", "param": "status"},
        )
    return str(raw)


def parse_locale(ct: ContentType, raw: Any, settings: Settings) -> str | None:
    if raw is None or raw == "":
        return settings.default_locale if ct.localized else None
    if not isinstance(raw, str) or raw not in settings.locale_codes:
        raise ValidationError(
            f"Unknown locale supplied: {_text(raw)} is not one of the configured locales "
            f"({', '.join(sorted(settings.locale_codes))})",
            {"key": "locale", "source": "query", "param": "locale"},
        )
    return raw if ct.localized else None


def _text(raw: Any) -> str:
    return f'"{raw}"' if isinstance(raw, str) else repr(raw)


def parse_fields(ct: ContentType, raw: Any) -> list[str] | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        if raw == "*":
            return None
        items = raw.split(",")
    elif isinstance(raw, list) and all(isinstance(i, str) for i in raw):
        items = raw
        if "*" in items:
            return None
    else:
        raise ValidationError("Invalid fields parameter. Expected a string or an array of strings")
    out: list[str] = []
    for name in items:
        name = name.strip()
        if name in ("id", "documentId"):
            continue
        attr = ct.attributes.get(name)
        if attr is not None:
            if attr.is_hidden:
                raise invalid_key(name, None, "fields")
            if not attr.kind.scalar:
                raise invalid_key(name, name, "fields")
        elif name not in SYSTEM_FIELDS or (name == "locale" and not ct.localized):
            if name in ("createdBy", "updatedBy", "localizations"):
                raise invalid_key(name, name, "fields")
            raise invalid_key(name, None, "fields")
        if name not in out:
            out.append(name)
    return out


def _sort_item(ct: ContentType, text: str, out: list[tuple[FieldRef, bool]]) -> None:
    name, sep, direction = text.partition(":")
    name = name.strip()
    if not name:
        return
    direction = direction.split(":")[0] if sep else "asc"
    if direction not in ("asc", "desc", "ASC", "DESC"):
        raise ValidationError("Invalid order. order can only be one of asc|desc|ASC|DESC")
    _sort_field(ct, name, direction.lower() == "desc", out)


def _sort_field(ct: ContentType, name: str, desc: bool, out: list[tuple[FieldRef, bool]]) -> None:
    ref = field_ref(ct, name) if "." not in name else related_field_ref(ct, name, "sort")
    if ref is None:
        attr = ct.attributes.get(name)
        if (attr is not None and not attr.is_hidden) or name in (
            "createdBy",
            "updatedBy",
            "localizations",
        ):
            raise invalid_key(name, name, "sort")
        raise invalid_key(name, None, "sort")
    out.append((ref, desc))


def parse_sort(ct: ContentType, raw: Any) -> list[tuple[FieldRef, bool]]:
    out: list[tuple[FieldRef, bool]] = []
    if raw is None:
        return out
    if isinstance(raw, str):
        for part in raw.split(","):
            _sort_item(ct, part, out)
        return out
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, str):
                for part in item.split(","):
                    _sort_item(ct, part, out)
            elif isinstance(item, dict):
                _sort_object(ct, item, out)
            else:
                raise ValidationError(
                    "Invalid sort parameter. Expected a string, an array of strings or an object"
                )
        return out
    if isinstance(raw, dict):
        if any(k.isdigit() for k in raw):
            key = next(k for k in raw if k.isdigit())
            raise invalid_key(key, None, "sort")
        _sort_object(ct, raw, out)
        return out
    raise ValidationError(
        "Invalid sort parameter. Expected a string, an array of strings or an object"
    )


def _sort_object(ct: ContentType, raw: dict[str, Any], out: list[tuple[FieldRef, bool]]) -> None:
    for name, direction in raw.items():
        if isinstance(direction, dict) and len(direction) == 1:
            sub, value = next(iter(direction.items()))
            if isinstance(value, str):
                _sort_object(ct, {f"{name}.{sub}": value}, out)
                continue
        if not isinstance(direction, str) or direction not in ("asc", "desc", "ASC", "DESC"):
            if isinstance(direction, dict):
                raise invalid_key(name, name, "sort")
            raise ValidationError("Invalid order. order can only be one of asc|desc|ASC|DESC")
        _sort_field(ct, name, direction.lower() == "desc", out)


def _integer(raw: Any, name: str) -> int | None:
    """A pagination number; empty means absent. Fractions and non-numbers are refused."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or not _NUMBER_RE.match(raw):
        raise ValidationError(
            f"Invalid pagination[{name}] parameter: expected an integer, got {_text(raw)}",
            {"key": name, "source": "query", "param": "pagination"},
        )
    value = float(raw)
    if not value.is_integer() or math.isinf(value):
        raise ValidationError(
            f"Invalid pagination[{name}] parameter: expected an integer, got {_text(raw)}",
            {"key": name, "source": "query", "param": "pagination"},
        )
    return int(value)


def parse_pagination(raw: Any, settings: Settings) -> Pagination:
    page = Pagination(
        page_size=settings.rest_default_limit,
        limit=settings.rest_default_limit,
        with_count=settings.rest_with_count,
    )
    if not isinstance(raw, dict):
        return page
    has_page = "page" in raw or "pageSize" in raw
    has_offset = "start" in raw or "limit" in raw
    if has_page and has_offset:
        raise PaginationError("Cannot use both page & offset pagination in the same query")
    count = raw.get("withCount")
    if count is not None:
        if not isinstance(count, str) or count not in WITH_COUNT:
            raise ValidationError(
                'Invalid withCount parameter. Expected "t","1","true","false","0","f"'
            )
        page.with_count = WITH_COUNT[count]
    cap = settings.rest_max_limit

    def size(value: int) -> int:
        value = max(value, 1)
        return min(value, cap) if cap > 0 else value

    if has_offset:
        page.mode = "offset"
        start = _integer(raw.get("start"), "start")
        page.start = max(start or 0, 0)
        if "limit" in raw:
            limit = _integer(raw.get("limit"), "limit")
            page.limit = 1 if limit is None else size(limit)
        return page
    p = _integer(raw.get("page"), "page")
    page.page = max(p or 1, 1)
    if "pageSize" in raw:
        ps = _integer(raw.get("pageSize"), "pageSize")
        page.page_size = 1 if ps is None else size(ps)
    return page


def page_meta(page: Pagination, total: int) -> dict[str, Any]:
    if page.mode == "offset":
        meta: dict[str, Any] = {"start": page.start, "limit": page.limit}
        if page.with_count:
            meta["total"] = total
        return {"pagination": meta}
    meta = {"page": page.page, "pageSize": page.page_size}
    if page.with_count:
        meta["pageCount"] = math.ceil(total / page.page_size) if page.page_size else 0
        meta["total"] = total
    return {"pagination": meta}


KNOWN_PARAMS = frozenset(
    {"filters", "sort", "pagination", "fields", "populate", "locale", "status"}
)


Visible = Callable[[str], bool]


def parse_populate(
    ct: ContentType,
    params: dict[str, Any],
    spec: QuerySpec,
    registry: Registry,
    dialect: str,
    visible: Visible | None = None,
) -> None:
    """`populate`; with `visible`, relations and media the reader may not `find` are
    dropped."""
    raw = params.get("populate")
    if raw is None:
        return
    parser = PopulateParser(registry, dialect, spec.status, spec.locale, parse_fields, parse_sort)
    spec.populate = parser.parse(ct, raw, [])
    if visible is not None:
        spec.populate = prune_populate(spec.populate, visible)


def check_visible(
    schema: Schema, raw: Any, visible: Visible, registry: Registry, path: list[str], param: str
) -> None:
    """Filtering or sorting through a relation to a type the reader may not `find` is an
    invalid key (the reference's answer), at any depth."""
    if isinstance(raw, list):
        for item in raw:
            check_visible(schema, item, visible, registry, path, param)
        return
    if not isinstance(raw, dict):
        return
    for key, value in raw.items():
        if key.startswith("$"):
            if key in ("$and", "$or", "$not"):
                check_visible(schema, value, visible, registry, path, param)
            continue
        attr = schema.attributes.get(key)
        if attr is None:
            continue
        if attr.type == "relation":
            if not visible(str(attr.target)):
                raise invalid_key(key, ".".join([*path, key]), param)
            target = registry.content_types.get(str(attr.target))
            if target is not None:
                check_visible(target, value, visible, registry, [*path, key], param)
        elif attr.type == "component" and attr.component in registry.components:
            comp = registry.components[str(attr.component)]
            check_visible(comp, value, visible, registry, [*path, key], param)


def _sort_paths(raw: Any) -> dict[str, Any]:
    """Sort entries as a nested dict of field paths (`a.b:desc` -> {a: {b: 1}})."""
    out: dict[str, Any] = {}
    items = raw if isinstance(raw, list) else [raw]
    for item in items:
        texts: list[str] = []
        if isinstance(item, str):
            texts = [t.split(":")[0] for t in item.split(",")]
        elif isinstance(item, dict):
            for key, value in item.items():
                node = out.setdefault(key, {})
                if isinstance(value, dict):
                    node.update(_sort_paths(value))
            continue
        for text in texts:
            node = out
            for part in text.strip().split("."):
                node = node.setdefault(part, {})
    return out


def _read_spec(
    ct: ContentType, params: dict[str, Any], settings: Settings, find: bool
) -> QuerySpec:
    """The spec's `status`, `locale` and `fields`. A find reads every locale (locale None)
    for `locale=*`, or without `locale` when `filters[locale]` chooses (as the reference)."""
    spec = QuerySpec()
    spec.status = parse_status(ct, params.get("status"))
    raw = params.get("locale")
    every = find and (raw == "*" or (raw in (None, "") and _filters_locale(params.get("filters"))))
    spec.locale = None if every else parse_locale(ct, raw, settings)
    spec.fields = parse_fields(ct, params.get("fields"))
    return spec


def _filters_locale(raw: Any) -> bool:
    """Whether document-level filters (or their logical groups) test `locale`."""
    if isinstance(raw, list):
        return any(_filters_locale(item) for item in raw)
    if not isinstance(raw, dict):
        return False
    for key, value in raw.items():
        if key == "locale":
            return True
        if key in ("$and", "$or", "$not"):
            if isinstance(value, dict) and key != "$not":
                value = list(value.values())  # a group's members, as `qs` writes long arrays
            if _filters_locale(value):
                return True
    return False


def parse_find(
    ct: ContentType,
    params: dict[str, Any],
    settings: Settings,
    dialect: str,
    registry: Registry,
    visible: Visible | None = None,
) -> QuerySpec:
    spec = _read_spec(ct, params, settings, find=True)
    spec.sort = parse_sort(ct, params.get("sort"))
    spec.pagination = parse_pagination(params.get("pagination"), settings)
    filters = params.get("filters")
    if visible is not None:
        check_visible(ct, filters, visible, registry, [], "filters")
        if params.get("sort") is not None:
            check_visible(ct, _sort_paths(params["sort"]), visible, registry, [], "sort")
    if filters is not None:
        builder = FilterBuilder(
            dialect,
            registry=registry,
            status=spec.status,
            locale=spec.locale or settings.default_locale,
        )
        spec.filters = builder.build(ct, filters)
    parse_populate(ct, params, spec, registry, dialect, visible)
    return spec


def parse_read(
    ct: ContentType,
    params: dict[str, Any],
    settings: Settings,
    dialect: str,
    registry: Registry,
    visible: Visible | None = None,
) -> QuerySpec:
    """Parameters of findOne and of write responses: fields, populate, locale, status."""
    spec = _read_spec(ct, params, settings, find=False)
    parse_populate(ct, params, spec, registry, dialect, visible)
    return spec
