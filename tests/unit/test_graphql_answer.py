"""A GraphQL answer written in pieces (`bounded_json`) is byte for byte orjson's, and is
refused exactly when it passes its limit."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from folio.http.graphql.cost import bounded_json

ITEM = {"documentId": "d", "title": 'é "q" \\', "tags": [{"name": f"t{i}"} for i in range(40)]}
BODIES: list[dict[str, Any]] = [
    {"data": None},
    {"errors": [{"message": "m", "path": ["a", 0]}] * 20, "data": None},
    {"data": {}},
    {"data": {"a": [], "b": {}, "c": None, "d": [1] * 40}},
    {"data": {"articles": [ITEM] * 33, "one": ITEM}},
    {
        "data": {"c": {"nodes": [ITEM] * 17, "pageInfo": {"total": 3, "page": 1}}},
        "extensions": {"timing": {"totalMs": 1.5}},
    },
    {"data": {"x": {"y": {"z": [[1] * 20] * 20}}}},
]


@pytest.mark.parametrize("body", BODIES)
def test_pieces_are_orjsons_bytes(body: dict[str, Any]) -> None:
    whole = orjson.dumps(body)
    assert bounded_json(body, 1 << 30) == whole
    assert bounded_json(body, len(whole)) == whole
    assert bounded_json(body, len(whole) - 1) is None
