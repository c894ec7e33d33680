"""Publishing costs work proportional to the document's own data: the statements a publish
runs do not grow with the number of component kinds a dynamic zone allows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Api, database_url, make_api


def write_app(root: Path, kinds: int) -> Path:
    """An app with one draft & publish type whose dynamic zone allows `kinds` components."""
    comps = root / "src" / "components" / "gen"
    comps.mkdir(parents=True)
    for n in range(kinds):
        (comps / f"c{n}.json").write_text(
            json.dumps(
                {
                    "collectionName": f"components_gen_c{n}",
                    "info": {"displayName": f"C{n}"},
                    "attributes": {"label": {"type": "string"}, "size": {"type": "integer"}},
                }
            )
        )
    schema = root / "src" / "api" / "page" / "content-types" / "page"
    schema.mkdir(parents=True)
    (schema / "schema.json").write_text(
        json.dumps(
            {
                "kind": "collectionType",
                "collectionName": "pages",
                "info": {"singularName": "page", "pluralName": "pages", "displayName": "Page"},
                "options": {"draftAndPublish": True},
                "attributes": {
                    "title": {"type": "string"},
                    "body": {
                        "type": "dynamiczone",
                        "components": [f"gen.c{n}" for n in range(kinds)],
                    },
                },
            }
        )
    )
    return root


def publish_statements(api: Api, blocks: list[dict[str, Any]]) -> int:
    """Statements run by an update that re-publishes a page holding `blocks`."""
    doc = api.create("pages", {"title": "t", "body": blocks})
    before = api.statements()
    r = api.put(f"/api/pages/{doc['documentId']}", {"data": {"title": "u"}})
    assert r.status_code == 200, r.text
    return api.statements() - before


@pytest.mark.parametrize("count", [0, 3])
def test_publish_statements_do_not_grow_with_component_kinds(
    backend: str, tmp_path: Path, count: int
) -> None:
    blocks = [{"__component": "gen.c0", "label": f"b{n}", "size": n} for n in range(count)]
    measured = []
    for kinds in (1, 30):
        app = write_app(tmp_path / f"app{kinds}", kinds)
        for api in make_api(app, database_url(backend, app)):
            measured.append(publish_statements(api, blocks))
            r = api.get("/api/pages?populate=body")
            assert [b["label"] for b in r.json()["data"][0]["body"]] == [b["label"] for b in blocks]
    assert measured[0] == measured[1]


def test_publish_statements_grow_with_the_documents_components(
    backend: str, tmp_path: Path
) -> None:
    app = write_app(tmp_path / "app", 30)
    for api in make_api(app, database_url(backend, app)):
        few = publish_statements(api, [{"__component": "gen.c1", "label": "x"}])
        many = publish_statements(
            api, [{"__component": f"gen.c{n}", "label": "x"} for n in range(10)]
        )
        # at most a copy and a delete for each further component kind (where the database
        # runs writes in WITH, none: the publish is the same two statements)
        assert few <= many <= few + 9 * 4
