"""Members of `filters` given as JSON. OpenAPI clients (Swagger UI's "Try it out" among
them) write a deep-object parameter one level deep and the levels below as JSON:
`filters[title]={"$contains":"a"}` for `{"title": {"$contains": "a"}}`.

Such a value is read as the object it writes only where text has no meaning of its own
beside it: a field's (or relation's) member written as a JSON object, and the members of
`$and`, `$or` and `$not` written as a JSON object or list. An operator's value
(`filters[title][$eq]=[1]`) always stays the text it is, as the reference compares it."""

from __future__ import annotations

from typing import Any

import orjson

LOGICAL = ("$and", "$or", "$not")
# levels read at most: deeper members stay as written or parsed, for the filter parser to
# refuse past its own depth limit (api.rest.maxFilterDepth) without a recursion here
MAX_DEPTH = 64


def _parsed(value: str, lists: bool) -> Any:
    """The object (or, with `lists`, list) that `value` writes as JSON, else `value`."""
    if value[:1] not in ("{", "[") or value[-1:] not in ("}", "]"):
        return value
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return value
    if isinstance(parsed, dict) or (lists and isinstance(parsed, list)):
        return parsed
    return value


def _read(node: Any, depth: int = 0) -> Any:
    """A filters object (field and logical members) with JSON-written members read."""
    if depth > MAX_DEPTH:
        return node
    if isinstance(node, list):
        return [_read(v, depth + 1) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if isinstance(key, str) and key.startswith("$"):
            if key in LOGICAL:
                if isinstance(value, str):
                    value = _parsed(value, lists=True)
                value = _read(value, depth + 1)
            # an operator's value stays as given
        elif isinstance(value, str):
            value = _parsed(value, lists=False)
            if isinstance(value, dict):
                value = _read(value, depth + 1)
        else:
            value = _read(value, depth + 1)
        out[key] = value
    return out


def with_json_filters(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with JSON-written members of `filters` read (a new dict when one is; the
    given one, untouched, otherwise)."""
    filters = params.get("filters")
    if filters is None or not _has_json(filters):
        return params
    return {**params, "filters": _read(filters)}


def _has_json(node: Any, depth: int = 0) -> bool:
    if isinstance(node, str):
        return node[:1] in ("{", "[")
    if depth > MAX_DEPTH:
        return False
    if isinstance(node, dict):
        return any(_has_json(v, depth + 1) for v in node.values())
    if isinstance(node, list):
        return any(_has_json(v, depth + 1) for v in node)
    return False
