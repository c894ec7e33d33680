"""Read parameters -> the parts of a `Query`: `status`, `locale`, `fields`, `sort`,
`pagination`, checked against the model with the reference's error names and messages.
Front-ends hand these over in the REST spelling. A sort is bounded (`ReadLimits`: its keys,
the relations of a key's path) as it is read: SQLite refuses an ORDER BY of a thousand
terms or a path of 15 relations."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from folio.content.filters import related_schema
from folio.content.query import (
    RELATION_LEVELS,
    SYSTEM_FIELDS,
    Pagination,
    ReadLimits,
    SortKey,
    Step,
    field_ref,
    too_much,
)
from folio.errors import PaginationError, ValidationError, invalid_key
from folio.schema.model import ContentType, Schema

STATUSES = ("published", "draft")
_NUMBER_RE = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
WITH_COUNT = {"t": True, "1": True, "true": True, "f": False, "0": False, "false": False}


def parse_status(ct: ContentType, raw: Any) -> str:
    if raw is None:
        return "published"
    if not isinstance(raw, str) or raw not in STATUSES:
        raise ValidationError(
            f"Invalid status {_text(raw)}: expected one of published, draft",
            {"key": "status", "source": "query", "param": "status"},
        )
    return str(raw)


@dataclass(frozen=True)
class Locales:
    """The configured locales and the default one."""

    default: str
    codes: frozenset[str]


@dataclass(frozen=True)
class Limits:
    """A front-end's page sizes: the default, the largest (0 or less: none) and whether
    lists count their total by default."""

    default: int = 25
    maximum: int = 100
    with_count: bool = True


def parse_locale(ct: ContentType, raw: Any, locales: Locales) -> str | None:
    """The locale of a read or write of `ct`: the default when none is given, None for a
    type without locales; an unknown code is refused."""
    if raw is None or raw == "":
        return locales.default if ct.localized else None
    if not isinstance(raw, str) or raw not in locales.codes:
        raise ValidationError(
            f"Unknown locale supplied: {_text(raw)} is not one of the configured locales "
            f"({', '.join(sorted(locales.codes))})",
            {"key": "locale", "source": "query", "param": "locale"},
        )
    return raw if ct.localized else None


def _text(raw: Any) -> str:
    return f'"{raw}"' if isinstance(raw, str) else repr(raw)


def parse_fields(ct: Schema, raw: Any) -> list[str] | None:
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
        elif name not in SYSTEM_FIELDS or (
            name == "locale" and not (isinstance(ct, ContentType) and ct.localized)
        ):
            if name in ("createdBy", "updatedBy", "localizations"):
                raise invalid_key(name, name, "fields")
            raise invalid_key(name, None, "fields")
        if name not in out:
            out.append(name)
    return out


class _Keys(list[SortKey]):
    """The sort keys read so far, refused past the limit as they come."""

    def __init__(self, limits: ReadLimits) -> None:
        super().__init__()
        self.limits = limits

    def add(self, key: SortKey) -> None:
        if len(self) >= self.limits.sort_fields:
            raise too_much("sort_fields", self.limits.sort_fields, "Too many sort fields", "sort")
        self.append(key)

    def check_path(self, name: str) -> None:
        """A dotted path through more relations and components than filters may nest
        (each counts `RELATION_LEVELS`)."""
        depth = self.limits.filter_depth
        if name.count(".") * RELATION_LEVELS > depth:
            raise too_much(
                "filter_depth",
                depth,
                f"The sort path goes through too many relations (each counts {RELATION_LEVELS} "
                "levels of filter nesting)",
                "sort",
            )


def _sort_item(ct: ContentType, text: str, out: _Keys) -> None:
    name, sep, direction = text.partition(":")
    name = name.strip()
    if not name:
        return
    direction = direction.split(":")[0] if sep else "asc"
    if direction not in ("asc", "desc", "ASC", "DESC"):
        raise ValidationError("Invalid order. order can only be one of asc|desc|ASC|DESC")
    _sort_field(ct, name, direction.lower() == "desc", out)


def _sort_field(ct: ContentType, name: str, desc: bool, out: _Keys) -> None:
    out.check_path(name)
    key = _sort_key(ct, name, desc)
    if key is None:
        attr = ct.attributes.get(name)
        if (attr is not None and not attr.is_hidden) or name in (
            "createdBy",
            "updatedBy",
            "localizations",
        ):
            raise invalid_key(name, name, "sort")
        raise invalid_key(name, None, "sort")
    out.add(key)


def _sort_key(ct: ContentType, name: str, desc: bool) -> SortKey | None:
    """A field of the type, or the field at the end of a path of relations and components
    (`category.name`, `category.parent.name`, `seo.metaTitle`)."""
    if "." not in name:
        ref = field_ref(ct, name)
        return SortKey(ref, desc) if ref is not None else None
    head = ct.attributes.get(name.partition(".")[0])
    if head is None or head.type not in ("relation", "component") or ct.registry is None:
        return None
    registry = ct.registry
    parts = name.split(".")
    steps: list[Step] = []
    schema: Schema = ct
    for i, part in enumerate(parts[:-1]):
        attr = schema.attributes.get(part)
        if attr is None or attr.is_hidden or attr.type not in ("relation", "component"):
            raise invalid_key(".".join(parts[i:]), ".".join(parts[:i]) or None, "sort")
        target = related_schema(registry, attr)
        if target is None or (
            attr.mapped_by is not None and attr.mapped_by not in target.attributes
        ):
            return None
        steps.append((schema, attr, target))
        schema = target
    ref = field_ref(schema, parts[-1])
    if ref is None:
        raise invalid_key(parts[-1], ".".join(parts[:-1]), "sort")
    return SortKey(ref, desc, tuple(steps))


def parse_sort(ct: ContentType, raw: Any, limits: ReadLimits | None = None) -> list[SortKey]:
    out = _Keys(limits or ReadLimits())
    if raw is not None:
        _sort_value(ct, raw, out)
    return list(out)


def _sort_value(ct: ContentType, raw: Any, out: _Keys) -> None:
    if isinstance(raw, str):
        for part in raw.split(","):
            _sort_item(ct, part, out)
        return
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
        return
    if isinstance(raw, dict):
        if any(k.isdecimal() for k in raw):
            key = next(k for k in raw if k.isdecimal())
            raise invalid_key(key, None, "sort")
        _sort_object(ct, raw, out)
        return
    raise ValidationError(
        "Invalid sort parameter. Expected a string, an array of strings or an object"
    )


def _sort_object(ct: ContentType, raw: dict[str, Any], out: _Keys) -> None:
    for name, direction in raw.items():
        out.check_path(name)
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


def parse_pagination(raw: Any, limits: Limits) -> Pagination:
    page = Pagination(
        page_size=limits.default,
        limit=limits.default,
        with_count=limits.with_count,
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
    cap = limits.maximum

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
