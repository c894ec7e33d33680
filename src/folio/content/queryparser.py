"""Read parameters in the REST spelling -> a `Query` as a principal may run it: the status
and locale defaults, the list parameters (sort, pagination, filters, the publication
filters), the field selection and populate, and the visibility rules a principal's
filters, sorts and populates must keep (`visibility`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from folio.auth.principal import Principal
from folio.content.filters import FilterParser
from folio.content.params import (
    Limits,
    Locales,
    parse_fields,
    parse_locale,
    parse_pagination,
    parse_sort,
    parse_status,
)
from folio.content.populate import PopulateParser
from folio.content.query import (
    PUBLICATION_FILTERS,
    RELATION_LEVELS,
    Group,
    Node,
    Query,
    ReadLimits,
    Versions,
    too_much,
)
from folio.content.visibility import check_visible, prune_populate, sort_paths
from folio.errors import ValidationError
from folio.schema.kinds.json import nesting
from folio.schema.model import ContentType, Registry


class QueryParser:
    """Read parameters -> `Query`, as a principal may run it."""

    def __init__(
        self,
        registry: Registry,
        locales: Locales,
        limits: Limits,
        read_limits: ReadLimits | None = None,
    ) -> None:
        self.registry = registry
        self.locales = locales
        self.limits = limits
        self.read_limits = read_limits or ReadLimits()
        self._filters = FilterParser(registry, limits=self.read_limits)
        self._populate = PopulateParser(registry, self.read_limits)

    def parse(
        self,
        ct: ContentType,
        params: Mapping[str, Any],
        principal: Principal,
        find: bool = True,
        limits: Limits | None = None,
    ) -> Query:
        """`status`, `locale`, `fields` and `populate` for every read; `sort`,
        `pagination` and `filters` for lists. A list reads every locale (locale None) for
        `locale=*`, or without `locale` when `filters[locale]` chooses (as the reference)."""
        query = Query()
        if find:
            self._check_nesting(params.get("filters"))
        query.status = parse_status(ct, params.get("status"))
        raw = params.get("locale")
        every = find and (
            raw == "*" or (raw in (None, "") and _tests_locale(params.get("filters")))
        )
        query.locale = None if every else parse_locale(ct, raw, self.locales)
        query.fields = parse_fields(ct, params.get("fields"))
        visible = principal.can_find
        if find:
            query.sort = parse_sort(ct, params.get("sort"), self.read_limits)
            query.pagination = parse_pagination(params.get("pagination"), limits or self.limits)
            filters = params.get("filters")
            check_visible(ct, filters, visible, self.registry, [], "filters")
            if params.get("sort") is not None:
                check_visible(ct, sort_paths(params["sort"]), visible, self.registry, [], "sort")
            if filters is not None:
                query.filters = self._filters.parse(ct, filters)
            versions = parse_versions(ct, params)
            if versions:
                parts = [query.filters, *versions] if query.filters is not None else versions
                query.filters = parts[0] if len(parts) == 1 else Group("AND", parts)
        populate = params.get("populate")
        if populate is not None:
            query.populate = prune_populate(self._populate.parse(ct, populate, []), visible)
        return query

    def _check_nesting(self, filters: Any) -> None:
        """Filters nested past what the filter parser could accept are refused before
        anything walks them (each level of the tree it reads is at most two levels of the
        written form: a group's key and its list), so that no walk meets the interpreter's
        recursion limit."""
        depth = self.read_limits.filter_depth
        levels = 2 * depth + 8
        if nesting(filters, levels) > levels:
            raise too_much(
                "filter_depth",
                depth,
                f"The filters are nested too deeply ($and, $or and $not count one level "
                f"each, a relation {RELATION_LEVELS})",
                "filters",
            )


BOOLEAN = {"true": True, "1": True, "t": True, "false": False, "0": False, "f": False}


def parse_versions(ct: ContentType, params: Mapping[str, Any]) -> list[Node]:
    """`hasPublishedVersion` (a boolean) and `publicationFilter` (a publication filter's
    name) as filter nodes; both mean nothing on a type without Draft & Publish."""
    out: list[Node] = []
    has = params.get("hasPublishedVersion")
    if has is not None:
        value = has if isinstance(has, bool) else BOOLEAN.get(str(has).lower())
        if value is None:
            raise ValidationError(
                "Invalid hasPublishedVersion parameter. Expected a boolean",
                {"source": "query", "param": "hasPublishedVersion"},
            )
        if ct.draft_and_publish:
            out.append(Versions(ct, "has_published_version" if value else "never_published"))
    kind = params.get("publicationFilter")
    if kind is not None:
        name = str(kind).lower()
        if name not in PUBLICATION_FILTERS:
            raise ValidationError(
                f"Invalid publicationFilter parameter. Expected one of: "
                f"{', '.join(sorted(PUBLICATION_FILTERS))}",
                {"source": "query", "param": "publicationFilter"},
            )
        if ct.draft_and_publish:
            out.append(Versions(ct, name))
    return out


def _tests_locale(raw: Any) -> bool:
    """Whether document-level filters (or their logical groups) test `locale` (filters
    nested too deeply to walk were refused before: `_check_nesting`)."""
    if isinstance(raw, list):
        return any(_tests_locale(item) for item in raw)
    if not isinstance(raw, dict):
        return False
    for key, value in raw.items():
        if key == "locale":
            return True
        if key in ("$and", "$or", "$not"):
            if isinstance(value, dict) and key != "$not":
                value = list(value.values())  # a group's members, as `qs` writes long arrays
            if _tests_locale(value):
                return True
    return False
