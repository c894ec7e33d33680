"""`GET /openapi.json`: an OpenAPI 3.1 document of every route the models make (and the
upload, users and i18n routes), whose schemas the real answers match: documents, pages,
writes and the error envelope, checked with a JSON Schema validator."""

from __future__ import annotations

import json
import shutil
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


# ---------------------------------------------------------------------- the page


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_the_page_and_its_assets(api: Api) -> None:
    r = api.get("/documentation")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert 'data-spec="/openapi.json"' in r.text
    for name in ("swagger-ui-bundle.js", "swagger-ui.css", "documentation.js"):
        asset = api.get(f"/documentation/assets/{name}")
        assert asset.status_code == 200 and len(asset.content) > 100, name
    assert api.get("/documentation/assets/nope.js").status_code == 404


def test_stored_assets_are_the_pinned_package() -> None:
    import gzip

    docs = Path(__file__).resolve().parents[2] / "src" / "folio" / "http" / "docs"
    bundle = gzip.decompress((docs / "swagger-ui-bundle.js.gz").read_bytes())
    assert len(bundle) > 1_000_000
    assert "Apache License" in (docs / "LICENSE.swagger-ui").read_text()


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")
def test_the_page_lists_the_routes_in_a_real_browser(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tests.api.serving import serving
    from tests.conftest import FIXTURES, open_access

    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    requests: list[str] = []
    problems: list[str] = []
    with serving(app) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("request", lambda req: requests.append(req.url))
            page.on(
                "console",
                lambda msg: problems.append(msg.text) if msg.type == "error" else None,
            )
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.goto(base + "/documentation", wait_until="networkidle")
            page.locator(".opblock-summary-path").first.wait_for(timeout=15000)
            routes = page.locator(".opblock-summary-path").all_inner_texts()
            page.screenshot(path=str(tmp_path / "documentation.png"), full_page=True)
        finally:
            browser.close()
    shown = {r.replace("\u200b", "").strip() for r in routes}
    for route in (
        "/api/articles",
        "/api/articles/{documentId}",
        "/api/categories",
        "/api/global",
        "/api/upload",
        "/api/auth/local",
    ):
        assert route in shown, sorted(shown)
    assert (tmp_path / "documentation.png").stat().st_size > 10_000
    # every request stayed on this server, and nothing broke the policy
    assert requests and all(url.startswith(base) for url in requests), requests
    assert problems == [], problems
