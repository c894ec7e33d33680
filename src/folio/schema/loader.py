"""Loads an app's models from `src/api/*/content-types/*/schema.json` and
`src/components/*/*.json`, checks them, and builds the registry.

A bad model stops start-up with a message naming the file, the attribute and the problem."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from folio.errors import ConfigError
from folio.schema.builtins import BUILTIN_MODELS, USER_EXTENSION, USER_UID
from folio.schema.kinds import KINDS, InvalidValue
from folio.schema.model import (
    RELATION_KINDS,
    Attribute,
    Component,
    ContentType,
    Registry,
    Schema,
    snake_case,
)
from folio.startup import unknown_keys

API_ID_RE = re.compile(r"^[a-z][a-z0-9-]*$")
ATTRIBUTE_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED = frozenset(
    {
        "id",
        "documentId",
        "document_id",
        "createdAt",
        "updatedAt",
        "publishedAt",
        "created_at",
        "updated_at",
        "published_at",
        "locale",
        "localizations",
        "createdBy",
        "updatedBy",
        "created_by",
        "updated_by",
        "status",
        "__component",
        "__typename",
    }
)
SYSTEM_COLUMNS = frozenset(
    {
        "id",
        "document_id",
        "created_at",
        "updated_at",
        "published_at",
        "locale",
        "created_by_id",
        "updated_by_id",
    }
)


# the keys a model file may use (Strapi's, including those Folio reads but does not act on):
# any other is a misspelling until proven otherwise, and stops start-up
SCHEMA_KEYS = frozenset(
    {"kind", "collectionName", "info", "options", "pluginOptions", "attributes", "config"}
)
COMPONENT_KEYS = frozenset(
    {"collectionName", "info", "options", "pluginOptions", "attributes", "config", "uid"}
)
OPTION_KEYS = frozenset(
    {
        "draftAndPublish",
        "populateCreatorFields",
        "comment",
        "reviewWorkflows",
        "privateAttributes",
        "timestamps",
        "increments",
        "indexes",
    }
)
ATTRIBUTE_KEYS = frozenset(
    {
        "type",
        "required",
        "unique",
        "private",
        "configurable",
        "writable",
        "visible",
        "searchable",
        "default",
        "pluginOptions",
        "min",
        "max",
        "minLength",
        "maxLength",
        "regex",
        "enum",
        "enumName",
        "targetField",
        "relation",
        "target",
        "inversedBy",
        "mappedBy",
        "morphBy",
        "targetAttribute",
        "useJoinTable",
        "component",
        "repeatable",
        "components",
        "multiple",
        "allowedTypes",
        "customField",
        "options",
        "conditions",
        "column",
        "description",
    }
)


class _Problems:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, file: str, message: str, attribute: str | None = None) -> None:
        where = f"{file}: attribute `{attribute}`" if attribute else file
        self.lines.append(f"{where}: {message}")

    def raise_if_any(self) -> None:
        if self.lines:
            raise ConfigError("Invalid model:\n  " + "\n  ".join(self.lines))


def _read_json(path: Path, base: Path, problems: _Problems) -> dict[str, Any] | None:
    rel = str(path.relative_to(base))
    try:
        data = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        problems.add(rel, f"is not valid JSON ({exc})")
        return None
    if not isinstance(data, dict):
        problems.add(rel, "must hold a JSON object")
        return None
    return data


def load_registry(app_dir: Path) -> Registry:
    problems = _Problems()
    registry = Registry()
    comp_dir = app_dir / "src" / "components"
    if comp_dir.is_dir():
        for path in sorted(comp_dir.glob("*/*.json")):
            raw = _read_json(path, app_dir, problems)
            if raw is not None:
                comp = _component(path, app_dir, raw, problems)
                if comp is not None:
                    registry.components[comp.uid] = comp
    api_dir = app_dir / "src" / "api"
    if api_dir.is_dir():
        for path in sorted(api_dir.glob("*/content-types/*/schema.json")):
            raw = _read_json(path, app_dir, problems)
            if raw is not None:
                ct = _content_type(path, app_dir, raw, problems)
                if ct is not None:
                    registry.content_types[ct.uid] = ct
    problems.raise_if_any()
    for uid in BUILTIN_MODELS:
        registry.content_types[uid] = _builtin_type(uid, app_dir, problems)
    _link(registry, problems)
    problems.raise_if_any()
    for ct in registry.content_types.values():
        ct.registry = registry
    return registry


def _builtin_type(uid: str, app_dir: Path, problems: _Problems) -> ContentType:
    """A built-in model (served by its own routes, not by /api/:type); the user model takes
    the attributes of the app's extension file on top of its own."""
    api, model = BUILTIN_MODELS[uid]
    info = model["info"]
    ct = ContentType(
        uid=uid,
        table=model["collectionName"],
        file=f"<built-in {info['displayName'].lower()} model>",
        display_name=info["displayName"],
        kind="collectionType",
        singular=info["singularName"],
        plural=info["pluralName"],
        api=api,
    )
    attributes = dict(model["attributes"])
    if uid == USER_UID:
        extension = app_dir / USER_EXTENSION
        if extension.is_file():
            raw = _read_json(extension, app_dir, problems)
            extra = raw.get("attributes") if raw else None
            if isinstance(extra, dict):
                attributes.update(extra)
                ct.file = USER_EXTENSION
    _attributes(ct, {"attributes": attributes}, problems, localized_type=False)
    return ct


def _component(path: Path, base: Path, raw: dict[str, Any], problems: _Problems) -> Component:
    rel = str(path.relative_to(base))
    for message in [
        *unknown_keys(raw, COMPONENT_KEYS),
        *unknown_keys(raw.get("options"), OPTION_KEYS),
    ]:
        problems.add(rel, message)
    category, name = path.parent.name, path.stem
    info = raw.get("info") if isinstance(raw.get("info"), dict) else {}
    table = raw.get("collectionName") or f"components_{snake_case(category)}_{snake_case(name)}"
    if not isinstance(table, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", table):
        problems.add(rel, "`collectionName` must be a valid table name")
        table = f"components_{snake_case(category)}_{snake_case(name)}"
    comp = Component(
        uid=f"{category}.{name}",
        table=table,
        file=rel,
        display_name=str((info or {}).get("displayName") or name),
        category=category,
    )
    _attributes(comp, raw, problems, localized_type=False)
    return comp


def _content_type(
    path: Path, base: Path, raw: dict[str, Any], problems: _Problems
) -> ContentType | None:
    rel = str(path.relative_to(base))
    for message in [
        *unknown_keys(raw, SCHEMA_KEYS),
        *unknown_keys(raw.get("options"), OPTION_KEYS),
    ]:
        problems.add(rel, message)
    api = path.parent.parent.parent.name
    name = path.parent.name
    kind = raw.get("kind", "collectionType")
    if kind not in ("collectionType", "singleType"):
        problems.add(rel, f"`kind` must be collectionType or singleType, not {kind!r}")
        return None
    info = raw.get("info")
    if not isinstance(info, dict):
        problems.add(rel, "`info` must be an object with singularName and pluralName")
        return None
    singular, plural = info.get("singularName"), info.get("pluralName")
    for key, value in (("singularName", singular), ("pluralName", plural)):
        if not isinstance(value, str) or not API_ID_RE.match(value):
            problems.add(rel, f"`info.{key}` must be a kebab-case name, not {value!r}")
            return None
    if singular == plural:
        problems.add(rel, "`info.singularName` and `info.pluralName` must differ")
    table = raw.get("collectionName") or snake_case(str(plural))
    if not isinstance(table, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", table):
        problems.add(rel, "`collectionName` must be a valid table name")
        return None
    options = raw.get("options") if isinstance(raw.get("options"), dict) else {}
    plugin_options = raw.get("pluginOptions") if isinstance(raw.get("pluginOptions"), dict) else {}
    i18n = (plugin_options or {}).get("i18n")
    localized = bool(isinstance(i18n, dict) and i18n.get("localized"))
    dnp = (options or {}).get("draftAndPublish", False)
    if not isinstance(dnp, bool):
        problems.add(rel, "`options.draftAndPublish` must be a boolean")
        dnp = False
    ct = ContentType(
        uid=f"api::{api}.{name}",
        table=table,
        file=rel,
        display_name=str(info.get("displayName") or singular),
        kind=kind,
        singular=str(singular),
        plural=str(plural),
        draft_and_publish=dnp,
        localized=localized,
        api=api,
    )
    _attributes(ct, raw, problems, localized_type=localized)
    return ct


def _attributes(
    schema: Schema, raw: dict[str, Any], problems: _Problems, localized_type: bool
) -> None:
    attributes = raw.get("attributes")
    if not isinstance(attributes, dict):
        problems.add(schema.file, "`attributes` must be an object")
        return
    columns: dict[str, str] = {}
    for name, spec in attributes.items():
        if not isinstance(spec, dict):
            problems.add(schema.file, "must be an object with a `type`", name)
            continue
        if not ATTRIBUTE_NAME_RE.match(name):
            problems.add(schema.file, "is not a valid attribute name", name)
            continue
        if name in RESERVED:
            problems.add(schema.file, "is a reserved name", name)
            continue
        misspelt = unknown_keys(spec, ATTRIBUTE_KEYS)
        for message in misspelt:
            problems.add(schema.file, message, name)
        if misspelt:
            continue
        type_name = spec.get("type")
        kind = KINDS.get(type_name) if isinstance(type_name, str) else None
        if kind is None:
            problems.add(schema.file, f"unknown type {type_name!r}", name)
            continue
        attr = _attribute(name, str(type_name), spec, localized_type, schema.file, problems)
        if attr is None:
            continue
        if attr.kind.scalar:
            column = snake_case(name)
            if column in SYSTEM_COLUMNS:
                problems.add(schema.file, f"its column `{column}` is reserved", name)
                continue
            if column in columns:
                problems.add(
                    schema.file, f"its column `{column}` clashes with `{columns[column]}`", name
                )
                continue
            columns[column] = name
            attr.column = column
        schema.attributes[name] = attr


def _number(spec: dict[str, Any], key: str) -> float | None:
    value = spec.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def _attribute(
    name: str,
    type_name: str,
    spec: dict[str, Any],
    localized_type: bool,
    file: str,
    problems: _Problems,
) -> Attribute | None:
    kind = KINDS[type_name]
    plugin_options = spec.get("pluginOptions")
    i18n = plugin_options.get("i18n") if isinstance(plugin_options, dict) else None
    # in a localized type, an attribute is per locale when marked so; relations and uids
    # always are; every other attribute holds one value shared by every locale
    localized = localized_type and (
        type_name in ("relation", "uid")
        or (isinstance(i18n, dict) and i18n.get("localized") is True)
    )
    regex = None
    if isinstance(spec.get("regex"), str):
        try:
            regex = re.compile(spec["regex"])
        except re.error:
            regex = None
    attr = Attribute(
        name=name,
        type=type_name,
        kind=kind,
        raw=spec,
        required=bool(spec.get("required", False)),
        unique=bool(spec.get("unique", False)),
        private=bool(spec.get("private", False)),
        default=spec.get("default"),
        has_default="default" in spec,
        minimum=_number(spec, "min"),
        maximum=_number(spec, "max"),
        min_length=spec.get("minLength") if isinstance(spec.get("minLength"), int) else None,
        max_length=spec.get("maxLength") if isinstance(spec.get("maxLength"), int) else None,
        regex=regex,
        enum=tuple(spec["enum"]) if isinstance(spec.get("enum"), list) else (),
        target_field=spec.get("targetField"),
        localized=localized,
        relation=spec.get("relation"),
        target=spec.get("target"),
        inversed_by=spec.get("inversedBy"),
        mapped_by=spec.get("mappedBy"),
        component=spec.get("component"),
        components=tuple(spec["components"]) if isinstance(spec.get("components"), list) else (),
        repeatable=bool(spec.get("repeatable", False)),
        multiple=bool(spec.get("multiple", False)),
        allowed_types=tuple(spec["allowedTypes"])
        if isinstance(spec.get("allowedTypes"), list)
        else (),
    )
    found = kind.check_options(attr)
    for flag in ("required", "unique", "private", "repeatable", "multiple"):
        if flag in spec and not isinstance(spec[flag], bool):
            found.append(f"`{flag}` must be a boolean")
    if type_name == "relation":
        if attr.relation not in RELATION_KINDS:
            found.append(f"`relation` must be one of {', '.join(sorted(RELATION_KINDS))}")
        elif not attr.relation.startswith("morph") and not isinstance(attr.target, str):
            found.append("`target` must name a content type")
        if attr.inversed_by is not None and attr.mapped_by is not None:
            found.append("cannot have both `inversedBy` and `mappedBy`")
    elif type_name == "component":
        if not isinstance(attr.component, str):
            found.append("`component` must name a component")
    elif type_name == "dynamiczone":
        if not attr.components or not all(isinstance(c, str) for c in attr.components):
            found.append("`components` must be a non-empty list of component names")
    elif type_name == "media":
        allowed = {"images", "videos", "files", "audios"}
        if not set(attr.allowed_types) <= allowed:
            found.append(f"`allowedTypes` may hold only {', '.join(sorted(allowed))}")
    if attr.has_default and kind.scalar and attr.default is not None:
        try:
            kind.coerce(attr, attr.default)
        except InvalidValue as exc:
            found.append(f"`default` is not valid: {exc}")
    for message in found:
        problems.add(file, message, name)
    return None if found else attr


def _link(registry: Registry, problems: _Problems) -> None:
    """Checks references between models: relation targets, inverse sides, components."""
    for ct in registry.content_types.values():
        if not ct.uid.startswith("api::"):
            continue
        for route in (ct.singular, ct.plural) if not ct.is_single else (ct.singular,):
            other = registry.by_route.get(route)
            if other is not None:
                problems.add(ct.file, f"API name `{route}` is also used by {other.file}")
            registry.by_route[route] = ct
    schemas: list[Schema] = [*registry.content_types.values(), *registry.components.values()]
    tables: dict[str, str] = {}
    for schema in schemas:
        if schema.table in tables:
            problems.add(
                schema.file, f"table `{schema.table}` is also used by {tables[schema.table]}"
            )
        tables[schema.table] = schema.file
        for attr in schema.attributes.values():
            if attr.type == "relation" and attr.target and not attr.relation.startswith("morph"):  # type: ignore[union-attr]
                target = registry.content_types.get(attr.target)
                if target is None and not attr.target.startswith("plugin::"):
                    problems.add(
                        schema.file, f"relation target `{attr.target}` does not exist", attr.name
                    )
                    continue
                if target is None:
                    continue
                for key, other_name in (
                    ("inversedBy", attr.inversed_by),
                    ("mappedBy", attr.mapped_by),
                ):
                    if other_name is None:
                        continue
                    other_attr = target.attributes.get(other_name)
                    if other_attr is None or other_attr.type != "relation":
                        problems.add(
                            schema.file,
                            f"`{key}` names `{other_name}`, which is not a "
                            f"relation of {attr.target}",
                            attr.name,
                        )
            elif attr.type == "component" and attr.component not in registry.components:
                problems.add(schema.file, f"component `{attr.component}` does not exist", attr.name)
            elif attr.type == "dynamiczone":
                for comp in attr.components:
                    if comp not in registry.components:
                        problems.add(schema.file, f"component `{comp}` does not exist", attr.name)
            elif attr.type == "uid" and attr.target_field is not None:
                target_attr = schema.attributes.get(str(attr.target_field))
                if target_attr is None or target_attr.type not in ("string", "text", "uid"):
                    problems.add(
                        schema.file,
                        f"`targetField` `{attr.target_field}` is not a string attribute",
                        attr.name,
                    )
