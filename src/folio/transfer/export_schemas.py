"""The schemas an export carries, in the form the reference writes them.

The reference's `strapi import` compares each schema of an archive with its own (only the
`private`, `required`, `configurable` and `default` of attributes may differ) and reports
every type that one side lacks. So an archive holds the app's types as the reference
normalizes them (with the system attributes it adds: timestamps, authors, locale and
localizations) and the reference's own types (`reference_builtins.json`, as its 5.54
exports carry them; written by tests/reference_transfer/builtin_schemas.py)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from folio.schema.builtins import BUILTIN_MODELS
from folio.schema.model import Component, ContentType, Registry

BUILTINS = Path(__file__).with_name("reference_builtins.json")


@cache
def builtin_schemas() -> tuple[dict[str, Any], ...]:
    loaded = json.loads(BUILTINS.read_text())
    return tuple(loaded)


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("_", "-").split("-"))


def _raw(app_dir: Path, path: str) -> dict[str, Any]:
    try:
        loaded = json.loads((app_dir / path).read_text())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _system_attributes(ct: ContentType) -> dict[str, Any]:
    # the locale and the localizations are private where a type has no locales
    private = not ct.localized
    author = {
        "type": "relation",
        "relation": "oneToOne",
        "target": "admin::user",
        "configurable": False,
        "writable": False,
        "visible": False,
        "useJoinTable": False,
        "private": True,
    }
    return {
        "createdAt": {"type": "datetime"},
        "updatedAt": {"type": "datetime"},
        "publishedAt": {
            "type": "datetime",
            "configurable": False,
            "writable": True,
            "visible": True,
        },
        "createdBy": dict(author),
        "updatedBy": dict(author),
        "locale": {
            "writable": True,
            "private": private,
            "configurable": False,
            "visible": False,
            "type": "string",
        },
        "localizations": {
            "type": "relation",
            "relation": "oneToMany",
            "target": ct.uid,
            "writable": False,
            "private": private,
            "configurable": False,
            "visible": False,
            "unstable_virtual": True,
            "joinColumn": {
                "name": "document_id",
                "referencedColumn": "document_id",
                "referencedTable": ct.table,
            },
        },
    }


def content_type_schema(ct: ContentType, app_dir: Path) -> dict[str, Any]:
    raw = _raw(app_dir, ct.file)
    info = raw.get("info") or {
        "singularName": ct.singular,
        "pluralName": ct.plural,
        "displayName": ct.display_name,
    }
    attributes = dict(raw.get("attributes") or {})
    attributes.update(_system_attributes(ct))
    return {
        "collectionName": raw.get("collectionName", ct.table),
        "info": info,
        "options": raw.get("options", {"draftAndPublish": ct.draft_and_publish}),
        "pluginOptions": raw.get("pluginOptions", {}),
        "attributes": attributes,
        "kind": ct.kind,
        "modelType": "contentType",
        "modelName": ct.singular,
        "uid": ct.uid,
        "globalId": _pascal(ct.singular),
    }


def component_schema(comp: Component, app_dir: Path) -> dict[str, Any]:
    raw = _raw(app_dir, comp.file)
    category, _, name = comp.uid.partition(".")
    out: dict[str, Any] = {
        "collectionName": raw.get("collectionName", comp.table),
        "info": raw.get("info", {"displayName": comp.display_name}),
    }
    if raw.get("options"):
        out["options"] = raw["options"]
    out |= {
        "attributes": raw.get("attributes", {}),
        "modelType": "component",
        "modelName": name,
        "uid": comp.uid,
        "globalId": f"Component{_pascal(category)}{_pascal(name)}",
    }
    return out


def _extended(schema: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """A built-in type with the attributes the app adds to it (the user model's extension,
    src/extensions/users-permissions/content-types/user/schema.json)."""
    ct = registry.content_types.get(schema["uid"])
    if ct is None or schema["uid"] not in BUILTIN_MODELS:
        return schema
    own = BUILTIN_MODELS[schema["uid"]][1]["attributes"]
    added = {n: a.raw for n, a in ct.attributes.items() if n not in own}
    added = {n: raw for n, raw in added.items() if n not in schema["attributes"]}
    if not added:
        return schema
    return {**schema, "attributes": {**schema["attributes"], **added}}


def reference_schemas(registry: Registry, app_dir: Path) -> list[dict[str, Any]]:
    """The reference's own types, then the app's content types and components (their
    schema files are read again: the reference's form keeps what Folio's models drop)."""
    out = [_extended(s, registry) for s in builtin_schemas()]
    builtin = {s["uid"] for s in out}
    for ct in registry.content_types.values():
        if ct.uid not in builtin and ct.uid.startswith("api::"):
            out.append(content_type_schema(ct, app_dir))
    out += [component_schema(c, app_dir) for c in registry.components.values()]
    return out
