"""The `populate` parameter: which relations, components, dynamic zones, media fields and
`localizations` a read returns, in every form the REST API accepts (`*`, a comma list, an
array, dotted paths, objects with fields / filters / sort / populate / on / count); and the
pruning of relations the caller may not read. The loading is `content.sql.load`.

A populate nests at most `ReadLimits.populate_depth` fields deep: a dotted path is not
bounded by the query string's own nesting limit, and an answer hundreds of levels deep is
deeper than its JSON encoder goes."""

from __future__ import annotations

from typing import Any

from folio.content.filters import FilterParser
from folio.content.params import Limits, parse_fields, parse_pagination, parse_sort
from folio.content.query import Populate, ReadLimits, too_much
from folio.errors import ValidationError, invalid_key
from folio.schema.builtins import FILE_UID
from folio.schema.kinds import KINDS
from folio.schema.model import Attribute, Component, ContentType, Registry, Schema

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
POPULATE_KEYS = frozenset({"fields", "filters", "sort", "populate", "on", "count", "pagination"})
# a populated relation's page: every entry unless `pagination` says otherwise
EVERY = Limits(default=2**31 - 1, maximum=0, with_count=False)
# `count` takes the boolean spellings of populate values (not `*`)
COUNT_VALUES = {**dict.fromkeys(TRUE - {"*"}, True), **dict.fromkeys(FALSE, False)}


class PopulateParser:
    """Reads the `populate` parameter in every form the REST API accepts: `*`, a comma list,
    an array, dotted paths, and objects with fields / filters / sort / populate / on."""

    def __init__(self, registry: Registry, limits: ReadLimits | None = None) -> None:
        self.registry = registry
        self.limits = limits or ReadLimits()
        self.filters = FilterParser(registry, limits=self.limits)

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
                if name.isdecimal() and isinstance(value, str):
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
        if _levels(path) >= self.limits.populate_depth:
            raise too_much(
                "populate_depth",
                self.limits.populate_depth,
                "The populate parameter is nested too deeply",
                "populate",
            )
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
                        entry.on_fields[uid] = parse_fields(comp, sub["fields"])
            nested = raw.get("populate")
            if nested is not None and not entry.on:
                for uid in attr.components:
                    comp = self.registry.components[uid]
                    entry.on[uid] = self.star(comp) if nested in ("*", "true") else {}
            return entry
        if target is None:  # media: fields, filters and sort over the file records
            files = self.registry.content_types[FILE_UID]
            if "fields" in raw:
                entry.fields = parse_fields(files, raw["fields"])
            if "sort" in raw:
                entry.sort = parse_sort(files, raw["sort"], self.limits)
            if raw.get("filters") is not None:
                entry.filters = self.filters.parse(files, raw["filters"])
            return entry
        if "fields" in raw:
            entry.fields = parse_fields(target, raw["fields"])
        if "sort" in raw and isinstance(target, ContentType):
            entry.sort = parse_sort(target, raw["sort"], self.limits)
        if raw.get("pagination") is not None and attr.type == "relation":
            page = parse_pagination(raw["pagination"], EVERY)
            entry.start, entry.limit = page.offset, page.size
        if raw.get("filters") is not None:
            entry.filters = self.filters.parse(target, raw["filters"])
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


def _levels(path: list[str]) -> int:
    """The populated fields a populate path goes through (a dynamic zone's `on` and
    component name are not fields)."""
    zones = sum(1 for i, p in enumerate(path[:-1]) if p == "on" and "." in path[i + 1])
    return len(path) - 2 * zones
