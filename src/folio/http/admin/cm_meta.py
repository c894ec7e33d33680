"""What the Content Manager shows of the app's model: the types editors edit (the app's
`api::` collection and single types), the components, each attribute as JSON with the
name of the widget that edits it (its kind's, `Kind.widget`), whether it differs per
locale, and the per-type list configuration (columns, default sort, page size, main field)
kept in the admin settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from folio.errors import FieldError, ValidationError, validation_failed
from folio.schema.model import Attribute, Component, ContentType, Registry, Schema

# the attribute types the list may show as columns (a short value per row)
UNLISTED_TYPES = frozenset({"password", "json", "blocks", "richtext"})
# the system fields the list may show besides the attributes
LIST_SYSTEM_FIELDS = ("id", "documentId", "createdAt", "updatedAt", "publishedAt", "locale")
# text-like attributes `_q` searches
SEARCHED_TYPES = frozenset({"string", "text", "email", "uid", "richtext"})
DEFAULT_PAGE_SIZE = 10
PAGE_SIZES = (10, 20, 50, 100)
# the reference's list shows the id and the first three listable attributes
DEFAULT_COLUMNS = 4


def edited_types(registry: Registry) -> list[ContentType]:
    """The types the Content Manager edits: the app's own (`api::`)."""
    return [ct for uid, ct in registry.content_types.items() if uid.startswith("api::")]


def edited_type(registry: Registry, uid: str) -> ContentType | None:
    ct = registry.content_types.get(uid)
    return ct if ct is not None and uid.startswith("api::") else None


def default_main_field(schema: Schema) -> str:
    """As the reference: the first string attribute, else `id`."""
    for name, attr in schema.attributes.items():
        if attr.type == "string" and not attr.is_hidden:
            return name
    return "id"


def listable(ct: ContentType) -> list[str]:
    """The fields the list may show: the system fields and the short scalar attributes."""
    names = [n for n in LIST_SYSTEM_FIELDS if n != "locale" or ct.localized]
    if not ct.draft_and_publish:
        names.remove("publishedAt")
    for name, attr in ct.attributes.items():
        if attr.kind.scalar and not attr.is_hidden and attr.type not in UNLISTED_TYPES:
            names.append(name)
    return names


def searched(ct: ContentType) -> list[str]:
    return [n for n, a in ct.attributes.items() if a.type in SEARCHED_TYPES and not a.is_hidden]


@dataclass(frozen=True)
class ListConfig:
    columns: tuple[str, ...]
    sort: str
    page_size: int
    main_field: str

    def shown(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "sort": self.sort,
            "pageSize": self.page_size,
            "mainField": self.main_field,
        }


def default_config(ct: ContentType) -> ListConfig:
    main = default_main_field(ct)
    attrs = [n for n in listable(ct) if n in ct.attributes]
    columns = ("id", *attrs[: DEFAULT_COLUMNS - 1])
    return ListConfig(columns, f"{main}:ASC", DEFAULT_PAGE_SIZE, main)


def stored_config(ct: ContentType, stored: Any) -> ListConfig:
    """The stored configuration of `ct` where it still fits the model (an attribute
    removed since falls back to the default), else the default."""
    default = default_config(ct)
    if not isinstance(stored, dict):
        return default
    try:
        return parse_config(ct, stored)
    except ValidationError:
        return default


def _error(path: str, message: str, value: Any) -> ValidationError:
    return validation_failed([FieldError([path], message, value)])


def parse_config(ct: ContentType, body: Any) -> ListConfig:
    """A configuration sent by the admin, checked against the model."""
    if not isinstance(body, dict):
        raise ValidationError("The configuration must be a JSON object")
    default = default_config(ct)
    allowed = listable(ct)
    columns = body.get("columns", list(default.columns))
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) for c in columns):
        raise _error("columns", "columns must be a non-empty list of field names", columns)
    for name in columns:
        if name not in allowed:
            raise _error("columns", f"{name} cannot be shown in the list", name)
    if len(set(columns)) != len(columns):
        raise _error("columns", "columns must not repeat a field", columns)
    sort = body.get("sort", default.sort)
    field, _, direction = sort.partition(":") if isinstance(sort, str) else ("", "", "")
    sortable = [n for n in allowed if n not in ct.attributes or ct.attributes[n].kind.sortable]
    if field not in sortable or direction.upper() not in ("ASC", "DESC"):
        raise _error("sort", "sort must be a listable field and ASC or DESC (field:ASC)", sort)
    page_size = body.get("pageSize", default.page_size)
    if isinstance(page_size, bool) or page_size not in PAGE_SIZES:
        sizes = ", ".join(str(s) for s in PAGE_SIZES)
        raise _error("pageSize", f"pageSize must be one of {sizes}", page_size)
    main = body.get("mainField", default.main_field)
    mains = [
        "id",
        *(
            n
            for n, a in ct.attributes.items()
            if a.type in SEARCHED_TYPES - {"richtext"}
            or a.type in ("integer", "biginteger", "enumeration")
        ),
    ]
    if main not in mains:
        raise _error("mainField", "mainField must be a short text or number attribute", main)
    return ListConfig(tuple(columns), f"{field}:{direction.upper()}", page_size, main)


class Metadata:
    """The model as the admin panel reads it (made once per app)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def attribute(
        self, owner: Schema, attr: Attribute, main_fields: dict[str, str]
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"type": attr.type, "widget": attr.kind.widget(attr)}
        out["required"] = attr.required
        out["unique"] = attr.unique
        out["private"] = attr.private
        localized_owner = isinstance(owner, ContentType) and owner.localized
        out["localized"] = bool(localized_owner and attr.localized)
        raw = attr.raw
        for key in ("min", "max", "minLength", "maxLength"):
            if raw.get(key) is not None:
                out[key] = raw[key]
        if attr.regex is not None:
            out["regex"] = attr.regex.pattern
        if attr.enum:
            out["enum"] = list(attr.enum)
        if attr.has_default:
            out["default"] = attr.default
        if attr.target_field:
            out["targetField"] = attr.target_field
        if attr.type == "relation" and attr.target:
            target = self.registry.content_types.get(attr.target)
            owner_attr = None
            if target is not None and attr.mapped_by:
                owner_attr = target.attributes.get(attr.mapped_by)
            out["relation"] = attr.relation
            out["target"] = attr.target
            out["multiple"] = attr.to_many(owner_attr)
            if target is not None:
                out["targetMainField"] = main_fields.get(target.uid) or default_main_field(target)
                out["targetDraftAndPublish"] = target.draft_and_publish
                out["targetLocalized"] = target.localized
        elif attr.type == "media":
            out["multiple"] = attr.multiple
            out["allowedTypes"] = list(attr.allowed_types) if attr.allowed_types else None
        elif attr.type == "component":
            out["component"] = attr.component
            out["repeatable"] = attr.repeatable
        elif attr.type == "dynamiczone":
            out["components"] = list(attr.components)
        return out

    def attributes(self, schema: Schema, main_fields: dict[str, str]) -> dict[str, Any]:
        return {
            name: self.attribute(schema, attr, main_fields)
            for name, attr in schema.attributes.items()
        }

    def content_type(self, ct: ContentType, main_fields: dict[str, str]) -> dict[str, Any]:
        return {
            "uid": ct.uid,
            "kind": ct.kind,
            "displayName": ct.display_name,
            "singularName": ct.singular,
            "pluralName": ct.plural,
            "draftAndPublish": ct.draft_and_publish,
            "localized": ct.localized,
            "mainField": main_fields.get(ct.uid) or default_main_field(ct),
            "attributes": self.attributes(ct, main_fields),
        }

    def component(self, comp: Component, main_fields: dict[str, str]) -> dict[str, Any]:
        return {
            "uid": comp.uid,
            "category": comp.category,
            "displayName": comp.display_name,
            "mainField": default_main_field(comp),
            "attributes": self.attributes(comp, main_fields),
        }

    def init(self, main_fields: dict[str, str]) -> dict[str, Any]:
        """`main_fields`: the main field of each type, as configured."""
        return {
            "contentTypes": [
                self.content_type(ct, main_fields) for ct in edited_types(self.registry)
            ],
            "components": [
                self.component(c, main_fields) for c in self.registry.components.values()
            ],
        }
