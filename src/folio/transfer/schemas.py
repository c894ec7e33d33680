"""An archive's schemas against the app's models: the differences that would make its
content land wrong (a type or attribute on one side only, another type, relation, target,
component or option), as a readable list. An import refuses any difference before it
writes anything, as the reference's strict check does.

Only the app's own models are compared: its content types (`api::`) and components. The
reference's built-in types (files, users, roles, locales, administrators...) are Folio's
own or have no counterpart; their data is mapped (or skipped) by the import. The reference
adds system attributes to each type (timestamps, `publishedAt`, `locale`,
`localizations`, `createdBy`, `updatedBy`): Folio has them as columns, not attributes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from folio.schema.model import Registry, Schema

SYSTEM_ATTRIBUTES = frozenset(
    {"createdAt", "updatedAt", "publishedAt", "createdBy", "updatedBy", "locale", "localizations"}
)
# what decides how an attribute is stored and linked (validation options such as
# `required`, `private`, lengths or defaults may differ, as the reference lets them)
COMPARED_KEYS = (
    "type",
    "relation",
    "target",
    "mappedBy",
    "inversedBy",
    "component",
    "components",
    "repeatable",
    "multiple",
    "enum",
)


@dataclass(frozen=True)
class Difference:
    uid: str
    attribute: str | None
    what: str

    def __str__(self) -> str:
        where = f"{self.uid}.{self.attribute}" if self.attribute else self.uid
        return f"{where}: {self.what}"


def compared(uid: str) -> bool:
    """Whether a schema of the archive is one of the app's own models."""
    return uid.startswith("api::") or "::" not in uid


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def _attr_value(raw: dict[str, Any], key: str) -> Any:
    value = raw.get(key)
    if key in ("repeatable", "multiple"):
        return bool(value)
    if key == "components" and value is not None:
        return sorted(value)
    if key == "enum" and value is not None:
        return list(value)
    return value


def _type_options(raw: dict[str, Any]) -> dict[str, Any]:
    options = raw.get("options") or {}
    plugin = raw.get("pluginOptions") or {}
    return {
        "kind": raw.get("kind"),
        "draftAndPublish": bool(options.get("draftAndPublish", False)),
        "localized": bool((plugin.get("i18n") or {}).get("localized", False)),
    }


def _app_options(schema: Schema) -> dict[str, Any]:
    kind = getattr(schema, "kind", None)
    return {
        "kind": kind,
        "draftAndPublish": bool(getattr(schema, "draft_and_publish", False)),
        "localized": bool(getattr(schema, "localized", False)),
    }


def compare(archive_schemas: Iterable[dict[str, Any]], registry: Registry) -> list[Difference]:
    """The differences between the archive's schemas (the `schemas` stage's records) and
    the app's models, type by type in the archive's order, then the app's types the
    archive lacks."""
    out: list[Difference] = []
    app: dict[str, Schema] = {**registry.content_types, **registry.components}
    seen: set[str] = set()
    for raw in archive_schemas:
        uid = str(raw.get("uid", ""))
        if not compared(uid):
            continue
        seen.add(uid)
        schema = app.get(uid)
        if schema is None:
            out.append(Difference(uid, None, "in the archive, not in the app's models"))
            continue
        if raw.get("modelType") != "component":
            theirs, ours = _type_options(raw), _app_options(schema)
            for key, value in theirs.items():
                if value != ours[key]:
                    out.append(
                        Difference(
                            uid,
                            None,
                            f"{key} is {_shown(value)} in the archive, {_shown(ours[key])} "
                            "in the app",
                        )
                    )
        out += _attributes(uid, raw.get("attributes") or {}, schema)
    for uid in app:
        if compared(uid) and uid not in seen:
            out.append(Difference(uid, None, "in the app's models, not in the archive"))
    return out


def _attributes(uid: str, theirs: dict[str, Any], schema: Schema) -> list[Difference]:
    out: list[Difference] = []
    ours = {name: attr.raw for name, attr in schema.attributes.items()}
    for name, raw in theirs.items():
        if name in SYSTEM_ATTRIBUTES:
            continue
        mine = ours.get(name)
        if mine is None:
            out.append(Difference(uid, name, "in the archive, not in the app"))
            continue
        for key in COMPARED_KEYS:
            a, b = _attr_value(raw, key), _attr_value(mine, key)
            if a != b:
                out.append(
                    Difference(
                        uid, name, f"{key} is {_shown(a)} in the archive, {_shown(b)} in the app"
                    )
                )
    for name in ours:
        if name not in theirs and name not in SYSTEM_ATTRIBUTES:
            out.append(Difference(uid, name, "in the app, not in the archive"))
    return out


def report(differences: list[Difference]) -> str:
    """The differences as lines, grouped by type."""
    lines: list[str] = []
    current = None
    for d in differences:
        if d.uid != current:
            current = d.uid
            lines.append(d.uid)
        lines.append(f"  {d.attribute + ': ' if d.attribute else ''}{d.what}")
    return "\n".join(lines)
