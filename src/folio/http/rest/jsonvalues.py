"""Members of `filters` given as JSON. OpenAPI clients (Swagger UI's "Try it out" among
them) write a deep-object parameter one level deep and the levels below as JSON:
`filters[title]={"$contains":"a"}` for `{"title": {"$contains": "a"}}`. Such a value is read
as the object or list it writes, so that the filter means what the client meant; any other
value (not JSON, or JSON that is not an object or a list) stays the text it is."""

from __future__ import annotations

from typing import Any

import orjson


def _read(value: Any) -> Any:
    if isinstance(value, str):
        if value[:1] in ("{", "[") and value[-1:] in ("}", "]"):
            try:
                parsed = orjson.loads(value)
            except orjson.JSONDecodeError:
                return value
            if isinstance(parsed, dict | list):
                return parsed
        return value
    if isinstance(value, dict):
        return {k: _read(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_read(v) for v in value]
    return value


def with_json_filters(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with JSON-written members of `filters` read (a new dict when one is; the
    given one, untouched, otherwise)."""
    filters = params.get("filters")
    if filters is None or not _has_json(filters):
        return params
    return {**params, "filters": _read(filters)}


def _has_json(node: Any) -> bool:
    if isinstance(node, str):
        return node[:1] in ("{", "[")
    if isinstance(node, dict):
        return any(_has_json(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_json(v) for v in node)
    return False
