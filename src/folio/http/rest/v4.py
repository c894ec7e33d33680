"""The v4 response shape, for clients still migrating: a request carrying the header
`Strapi-Response-Format: v4` gets its documents as `{id, documentId, attributes: {...}}`,
with relations, media and `localizations` wrapped as `{data: entry | [entries] | null}` (a
counted relation as `{data: {attributes: {count}}}`); components and dynamic zones stay
inline, their own relations and media wrapped the same way. Errors and meta are unchanged,
as in the reference."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from folio.schema.model import Registry, Schema

HEADER = b"strapi-response-format"
LINKED = ("relation", "media")


def wants_v4(request: Request) -> bool:
    """Whether the request asks for the v4 shape (the value is exactly `v4`)."""
    for key, value in request.scope["headers"]:
        if key == HEADER:
            return bool(value == b"v4")
    return False


class V4:
    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.file = registry.content_types.get("plugin::upload.file")

    def document(self, schema: Schema, doc: dict[str, Any] | None) -> dict[str, Any] | None:
        """A document (of a content type) in the v4 shape."""
        if doc is None:
            return None
        attributes = {
            key: self._member(schema, key, value)
            for key, value in doc.items()
            if key not in ("id", "documentId")
        }
        out: dict[str, Any] = {}
        if "id" in doc:
            out["id"] = doc["id"]
        if "documentId" in doc:
            out["documentId"] = doc["documentId"]
        out["attributes"] = attributes
        return out

    def documents(self, schema: Schema, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [d for doc in docs if (d := self.document(schema, doc)) is not None]

    def _member(self, schema: Schema, key: str, value: Any) -> Any:
        if key == "localizations" and key not in schema.attributes:
            return {"data": self.documents(schema, value or [])}
        attr = schema.attributes.get(key)
        if attr is None:
            return value
        if attr.type in LINKED:
            target = (
                self.file
                if attr.type == "media"
                else self.registry.content_types.get(str(attr.target))
            )
            return self._linked(target, value)
        if attr.type == "component":
            comp = self.registry.components.get(str(attr.component))
            if comp is None or value is None:
                return value
            if isinstance(value, list):
                return [self._component(comp, item) for item in value]
            return self._component(comp, value)
        if attr.type == "dynamiczone" and isinstance(value, list):
            return [
                self._component(self.registry.components[str(item["__component"])], item)
                if isinstance(item, dict) and item.get("__component") in self.registry.components
                else item
                for item in value
            ]
        return value

    def _linked(self, target: Schema | None, value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"count"}:
            return {"data": {"attributes": {"count": value["count"]}}}
        if target is None:
            return {"data": value}
        if isinstance(value, list):
            return {"data": self.documents(target, value)}
        return {"data": self.document(target, value)}

    def _component(self, comp: Schema, item: dict[str, Any]) -> dict[str, Any]:
        """A component stays inline; its relations and media are wrapped."""
        return {key: self._member(comp, key, value) for key, value in item.items()}
