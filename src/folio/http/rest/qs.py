"""Parses query strings with the bracket syntax of the `qs` library, which clients of the
content API use to write them: `a[b][0]=x` nests objects, index segments make arrays,
`a[]=x` appends, repeated keys collect into an array. Brackets may be percent-encoded.

As `qs` does, a key nests at most `DEPTH` levels (the rest is one literal key) and an index
past `ARRAY_LIMIT` makes an object; a query string holds at most `PARAMETER_LIMIT`
parameters, where `qs` drops the others: more are refused (a 400), as a filter without
its last conditions would answer more than was asked for. Parsing a parameter of 20 levels
costs about 40 us: a query string of a million would take most of a minute."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_plus

from folio.errors import ValidationError

DEPTH = 20
ARRAY_LIMIT = 100
PARAMETER_LIMIT = 1000


class _Node(dict[Any, Any]):
    """An intermediate object that remembers how many `[]` pushes it received."""

    pushes = 0


def _segments(key: str) -> list[str]:
    start = key.find("[")
    if start <= 0:
        return [key] if start != 0 else _bracketed(key, [])
    return _bracketed(key[start:], [key[:start]])


def _bracketed(rest: str, out: list[str]) -> list[str]:
    depth = 0
    while rest.startswith("[") and depth < DEPTH:
        end = rest.find("]")
        if end < 0:
            break
        out.append(rest[1:end])
        rest = rest[end + 1 :]
        depth += 1
    if rest:
        out.append(rest if depth < DEPTH else f"[{rest}]" if not rest.startswith("[") else rest)
    return out


def _assign(node: _Node, segments: list[str], value: Any) -> None:
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == "" and i > 0:
            node.pushes += 1
            seg = f"\x00{node.pushes:06d}"
        if last:
            if seg in node:
                existing = node[seg]
                if isinstance(existing, list):
                    existing.append(value)
                elif isinstance(existing, _Node):
                    existing[f"\x00{len(existing):06d}"] = value
                else:
                    node[seg] = [existing, value]
            else:
                node[seg] = value
            return
        child = node.get(seg)
        if not isinstance(child, _Node):
            fresh = _Node()
            if isinstance(child, list):
                for j, item in enumerate(child):
                    fresh[str(j)] = item
            elif child is not None:
                fresh["0"] = child
            node[seg] = fresh
            child = fresh
        node = child


def _index(key: str) -> int | None:
    if key.startswith("\x00"):
        return None
    if key.isdecimal() and (key == "0" or not key.startswith("0")):
        n = int(key)
        return n if n <= ARRAY_LIMIT else None
    return None


def _finish(value: Any) -> Any:
    if isinstance(value, list):
        return [_finish(v) for v in value]
    if not isinstance(value, _Node):
        return value
    keys = list(value.keys())
    if keys and all(_index(k) is not None or k.startswith("\x00") for k in keys):
        numbered = sorted(
            (_index(k) if _index(k) is not None else 10**9 + i, i, k) for i, k in enumerate(keys)
        )
        return [_finish(value[k]) for _, _, k in numbered]
    return {
        k if not k.startswith("\x00") else str(int(k[1:]) - 1): _finish(v) for k, v in value.items()
    }


def parse_qs(query: str) -> dict[str, Any]:
    root = _Node()
    if not query:
        return {}
    parts = [part for part in query.split("&") if part]
    if len(parts) > PARAMETER_LIMIT:
        raise ValidationError(
            f"Too many query parameters: at most {PARAMETER_LIMIT}",
            {"limit": PARAMETER_LIMIT, "source": "query"},
        )
    for part in parts:
        key, sep, raw = part.partition("=")
        # a NUL in a name is the parser's own marker for `[]`: a client's becomes U+FFFD
        name = unquote_plus(key).replace("\x00", "\ufffd")
        if not name:
            continue
        # a key without `=` means null, as `qs` parses it with strictNullHandling
        value: Any = unquote_plus(raw) if sep else None
        _assign(root, _segments(name), value)
    result = _finish(root)
    return result if isinstance(result, dict) else {}
