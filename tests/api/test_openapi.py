"""`GET /openapi.json`: an OpenAPI 3.1 document of every route the models make (and the
upload, users and i18n routes), whose schemas the real answers match: documents, pages,
writes and the error envelope, checked with a JSON Schema validator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.conftest import Api, database_url, make_api


def _document(api: Api) -> dict[str, Any]:
    r = api.get("/openapi.json")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    return dict(r.json())


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def _resolve(doc: dict[str, Any], ref: str) -> Any:
    node: Any = doc
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def _validator(doc: dict[str, Any], ref: str) -> Draft202012Validator:
    registry: Registry = Registry().with_resource(
        "urn:folio", Resource.from_contents(doc, default_specification=DRAFT202012)
    )
    return Draft202012Validator({"$ref": "urn:folio" + ref}, registry=registry)


def _answer_schema(doc: dict[str, Any], path: str, method: str, status: str) -> str:
    """The JSON pointer of a documented answer's schema."""
    response = doc["paths"][path][method]["responses"][status]
    if "$ref" in response:
        response = _resolve(doc, response["$ref"])
    schema = response["content"]["application/json"]["schema"]
    pointer = f"/paths/{path.replace('~', '~0').replace('/', '~1')}/{method}/responses/{status}"
    if "$ref" in schema:
        return str(schema["$ref"]).removeprefix("#")
    return pointer + "/content/application~1json/schema"


def _check(doc: dict[str, Any], r: Any, path: str, method: str) -> None:
    status = str(r.status_code)
    assert status in doc["paths"][path][method]["responses"], (path, method, status, r.text)
    if r.status_code == 204:
        return
    errors = list(
        _validator(doc, "#" + _answer_schema(doc, path, method, status)).iter_errors(r.json())
    )
    assert not errors, (path, method, status, [e.message for e in errors[:3]])


def test_every_route_is_described_and_every_reference_resolves(api: Api) -> None:
    doc = _document(api)
    assert doc["openapi"] == "3.1.0"
    assert doc["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    paths = doc["paths"]
    for ct in api.folio.registry.content_types.values():
        if not ct.uid.startswith("api::"):
            continue
        if ct.is_single:
            assert set(paths[f"/api/{ct.singular}"]) >= {"get", "put", "delete"}
        else:
            assert set(paths[f"/api/{ct.plural}"]) >= {"get", "post"}
            assert set(paths[f"/api/{ct.plural}/{{documentId}}"]) >= {"get", "put", "delete"}
    for route in (
        "/api/upload",
        "/api/upload/files",
        "/api/auth/local",
        "/api/users/me",
        "/api/i18n/locales",
    ):
        assert route in paths
    for ref in _refs(doc):
        _resolve(doc, ref)  # raises if it does not resolve
    operations = [
        op["operationId"] for p in paths.values() for k, op in p.items() if k != "parameters"
    ]
    assert len(operations) == len(set(operations))


def test_real_answers_match_the_document(api: Api) -> None:
    doc = _document(api)
    cat = api.post("/api/categories", {"data": {"name": "News"}})
    _check(doc, cat, "/api/categories", "post")
    tag = api.post("/api/tags", {"data": {"name": "t"}})
    article = api.post(
        "/api/articles?populate=*",
        {
            "data": {
                "title": "Hello",
                "views": 3,
                "rating": 4.5,
                "featured": True,
                "publishDate": "2026-01-02",
                "category": cat.json()["data"]["documentId"],
                "tags": [tag.json()["data"]["documentId"]],
                "seo": {"metaTitle": "m"},
                "links": [{"label": "a", "url": "/a"}],
                "blocks": [{"__component": "shared.quote", "title": "q", "body": "b"}],
            }
        },
    )
    _check(doc, article, "/api/articles", "post")
    did = article.json()["data"]["documentId"]
    one = "/api/articles/{documentId}"
    _check(doc, api.get(f"/api/articles/{did}?populate=*"), one, "get")
    _check(
        doc,
        api.get("/api/articles?populate[category][fields][0]=name&populate[tags]=*"),
        "/api/articles",
        "get",
    )
    _check(
        doc,
        api.get("/api/articles?pagination[start]=0&pagination[limit]=1"),
        "/api/articles",
        "get",
    )
    _check(doc, api.get("/api/categories?populate[articles][count]=true"), "/api/categories", "get")
    _check(doc, api.put(f"/api/articles/{did}", {"data": {"views": 4}}), one, "put")
    _check(doc, api.put("/api/global", {"data": {"siteName": "S"}}), "/api/global", "put")
    _check(doc, api.get("/api/global"), "/api/global", "get")
    # errors: the envelope
    _check(doc, api.get("/api/articles/nope"), one, "get")
    _check(doc, api.post("/api/articles", {"data": {"views": "x"}}), "/api/articles", "post")
    _check(doc, api.get("/api/articles?pagination[page]=0"), "/api/articles", "get")
    _check(doc, api.delete(f"/api/articles/{did}"), one, "delete")


@pytest.mark.parametrize(
    ("env", "config", "served"),
    [
        ("production", None, False),
        ("production", {"documentation": {"enabled": True}}, True),
        ("development", {"documentation": {"enabled": False}}, False),
    ],
)
def test_served_outside_production_unless_configured(
    backend: str,
    app_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: str,
    config: dict[str, Any] | None,
    served: bool,
) -> None:
    monkeypatch.setenv("FOLIO_ENV", env)
    if config is not None:
        (app_dir / "config" / "plugins.json").write_text(json.dumps(config))
    for api in make_api(app_dir, database_url(backend, app_dir)):
        assert api.get("/openapi.json").status_code == (200 if served else 404)
