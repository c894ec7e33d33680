"""The admin API in `GET /openapi.json`: every route under /admin/api/ that a module
describes is there (the Content Manager's always), under the admin session's security
scheme, and the Content Manager's real answers match their documented schemas."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import Route

from folio.http.admin.openapi import DESCRIBED
from tests.api.adminapp import AdminApi, admin_client, make_admin_app
from tests.api.test_openapi import _check, _document, _refs, _resolve

B = "/admin/api/content-manager"
ART = f"{B}/collection-types/api::article.article"


@pytest.fixture
def admin_api(backend: str, tmp_path: Path) -> Iterator[AdminApi]:
    yield from admin_client(make_admin_app(tmp_path), backend)


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def _routes(admin: AdminApi) -> dict[str, set[str]]:
    """The admin API's routes (path shape -> methods) the app serves."""
    app: Any = admin.client.app
    found: dict[str, set[str]] = {}
    for route in app.router.routes:
        if isinstance(route, Route) and route.path.startswith("/admin/api/"):
            if "{path:path}" in route.path:
                continue  # the unknown-path answer
            methods = {m.lower() for m in route.methods or ()} - {"head"}
            found.setdefault(_shape(route.path), set()).update(methods)
    return found


def test_admin_routes_are_in_the_document(admin_api: AdminApi) -> None:
    doc = _document(admin_api.api)
    documented = {_shape(p): set(ops) for p, ops in doc["paths"].items()}
    served = _routes(admin_api)
    content = {p: m for p, m in served.items() if p.startswith(B)}
    assert len(content) == 11
    for path, methods in content.items():
        assert path in documented, path
        assert methods <= documented[path], (path, methods, documented[path])
    # the routes of the modules that describe theirs
    for name in DESCRIBED:
        module = importlib.import_module(name)
        for path, ops in getattr(module, "PATHS", {}).items():
            assert set(ops) <= documented[_shape(path)]
    scheme = doc["components"]["securitySchemes"]["adminSession"]
    assert scheme == {**scheme, "type": "apiKey", "in": "cookie", "name": "folio_admin"}
    for path, ops in doc["paths"].items():
        if path.startswith(B):
            for method, op in ops.items():
                assert op["security"] == [{"adminSession": []}]
                csrf = [p for p in op["parameters"] if p.get("name") == "X-Folio-CSRF"]
                assert bool(csrf) == (method != "get"), (path, method)
    for ref in _refs(doc):
        _resolve(doc, ref)
    operations = [
        op["operationId"] for p in doc["paths"].values() for k, op in p.items() if k != "parameters"
    ]
    assert len(operations) == len(set(operations))


def test_content_manager_answers_match_the_document(admin_api: AdminApi) -> None:
    doc = _document(admin_api.api)
    one = f"{B}/collection-types/{{uid}}/{{documentId}}"
    _check(doc, admin_api.get(f"{B}/init"), f"{B}/init", "get")
    tag = admin_api.post(f"{B}/collection-types/api::tag.tag", {"data": {"name": "t"}})
    made = admin_api.post(
        ART,
        {
            "data": {
                "title": "Doc",
                "tags": {"set": [{"documentId": tag.json()["data"]["documentId"]}]},
                "links": [{"label": "a", "url": "/a"}],
            }
        },
    )
    _check(doc, made, f"{B}/collection-types/{{uid}}", "post")
    did = made.json()["data"]["documentId"]
    _check(doc, admin_api.get(ART), f"{B}/collection-types/{{uid}}", "get")
    _check(doc, admin_api.get(f"{ART}/{did}"), one, "get")
    _check(doc, admin_api.put(f"{ART}/{did}", {"data": {"views": 2}}), one, "put")
    _check(
        doc, admin_api.post(f"{ART}/{did}/actions/publish", {}), f"{one}/actions/{{action}}", "post"
    )
    _check(
        doc,
        admin_api.get(f"{B}/relations/api::tag.tag/articles"),
        f"{B}/relations/{{uid}}/{{field}}",
        "get",
    )
    _check(
        doc,
        admin_api.post(
            f"{B}/uid/check-availability",
            {"contentTypeUID": "api::article.article", "field": "slug", "value": "a"},
        ),
        f"{B}/uid/check-availability",
        "post",
    )
    _check(
        doc,
        admin_api.get(f"{B}/configuration/api::article.article"),
        f"{B}/configuration/{{uid}}",
        "get",
    )
    _check(
        doc,
        admin_api.post(f"{ART}/actions/bulkDelete", {"documentIds": [did]}),
        f"{B}/collection-types/{{uid}}/actions/{{action}}",
        "post",
    )
    # errors: the envelope
    _check(doc, admin_api.get(f"{ART}/nope"), one, "get")
    _check(
        doc, admin_api.post(ART, {"data": {"views": "x"}}), f"{B}/collection-types/{{uid}}", "post"
    )
    with admin_api.anonymous() as anonymous:
        _check(doc, anonymous.get(ART), f"{B}/collection-types/{{uid}}", "get")
