"""The GraphQL sandbox: served to browsers at the endpoint with its own assets under a strict
Content-Security-Policy, on by default outside production; and, in a real headless Chromium
against a server process, it loads with no request leaving the machine, runs a query typed
into it and shows the result (a screenshot is kept in the test's temporary directory)."""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.authapp import auth_api, make_auth_app
from tests.api.serving import serving
from tests.conftest import Api

HTML = {"Accept": "text/html,application/xhtml+xml"}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def api(backend: str, tmp_path: Path) -> Iterator[Api]:
    yield from auth_api(backend, make_auth_app(tmp_path))


def test_the_page_and_its_assets(api: Api) -> None:
    r = api.get("/graphql", headers=HTML)
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "connect-src 'self'" in csp
    page = r.text
    assert 'data-endpoint="/graphql"' in page
    for name in ("graphiql.min.js", "graphiql.min.css", "react.production.min.js", "sandbox.js"):
        assert f"/graphql/sandbox/{name}" in page
    # nothing but this server is named in the page
    assert "http://" not in page and "https://" not in page
    js = api.get("/graphql/sandbox/graphiql.min.js", headers={"Accept-Encoding": "gzip"})
    assert js.status_code == 200
    assert js.headers["content-type"] == "text/javascript; charset=utf-8"
    assert js.headers["content-security-policy"] == csp
    assert b"GraphiQL" in js.content  # (the client undid the gzip encoding)
    plain = api.get("/graphql/sandbox/react.production.min.js", headers={"Accept-Encoding": ""})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert plain.content.startswith(b"/**")
    assert api.get("/graphql/sandbox/nope.js").status_code == 404
    # an operation by GET is still an operation, HTML accepted or not
    r = api.get("/graphql?query={__typename}", headers=HTML)
    assert r.json() == {"data": {"__typename": "Query"}}
    # a client that asks for JSON gets no page
    r = api.get("/graphql", headers={"Accept": "application/json"})
    assert r.status_code == 400


def test_stored_assets_are_the_pinned_packages() -> None:
    folder = Path(__file__).parents[2] / "src" / "folio" / "http" / "graphql" / "sandbox"
    readme = (folder / "README.md").read_text()
    assert "graphiql 3.8.3" in readme and "react 18.3.1" in readme
    for name in ("graphiql.min.js", "graphiql.min.css", "react.production.min.js"):
        assert gzip.decompress((folder / f"{name}.gz").read_bytes())
    for licence in ("LICENSE.graphiql", "LICENSE.react", "LICENSE.react-dom"):
        assert "MIT License" in (folder / licence).read_text()


@pytest.mark.parametrize(
    ("config", "env", "served"),
    [
        ({}, "development", True),
        ({}, "production", False),
        ({"landingPage": True}, "production", True),
        ({"playgroundAlways": True}, "production", True),
        ({"landingPage": False}, "development", False),
        ({"landingPage": False, "playgroundAlways": True}, "development", False),
    ],
)
def test_on_outside_production_and_as_configured(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    config: dict[str, bool],
    env: str,
    served: bool,
) -> None:
    monkeypatch.setenv("FOLIO_ENV", env)
    app = make_auth_app(tmp_path, {"graphql": {"config": config}})
    for api in auth_api("sqlite", app):
        r = api.get("/graphql", headers=HTML)
        assert (r.status_code == 200 and "text/html" in r.headers["content-type"]) is served
        assert (api.get("/graphql/sandbox/sandbox.js").status_code == 200) is served
        # in production introspection is off unless configured on
        r = api.post("/graphql", {"query": "{ __schema { queryType { name } } }"})
        if env == "production":
            assert r.status_code == 400
            ext = r.json()["errors"][0]["extensions"]
            assert ext == {
                "code": "GRAPHQL_VALIDATION_FAILED",
                "validationErrorCode": "INTROSPECTION_DISABLED",
            }
            assert api.post("/graphql", {"query": "{ __typename }"}).status_code == 200
        else:
            assert r.status_code == 200


def test_engine_server_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOLIO_ENV", "production")
    engine = {"introspection": True, "tracing": True, "cacheSize": 0}
    app = make_auth_app(tmp_path, {"graphql": {"config": {"engineServer": engine}}})
    for api in auth_api("sqlite", app):
        r = api.post("/graphql", {"query": "{ __schema { queryType { name } } }"})
        assert r.status_code == 200
        body = r.json()
        assert body["data"] == {"__schema": {"queryType": {"name": "Query"}}}
        timing = body["extensions"]["timing"]
        assert set(timing) == {"parseValidateMs", "executeMs", "totalMs"}
        assert timing["totalMs"] >= timing["executeMs"] >= 0


# ---------------------------------------------------------------------- in a browser


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with serving(make_auth_app(tmp_path)) as base:
        yield base


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")
def test_a_query_typed_into_the_sandbox_runs_in_a_real_browser(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    requests: list[str] = []
    problems: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("request", lambda req: requests.append(req.url))
            page.on(
                "console",
                lambda msg: problems.append(msg.text) if msg.type == "error" else None,
            )
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.goto(server + "/graphql", wait_until="networkidle")
            editor = page.locator(".graphiql-query-editor .CodeMirror").first
            editor.wait_for(timeout=15000)
            # replace the editor's text with a query, as a user types it
            editor.click()
            page.keyboard.press("Control+A")
            page.keyboard.press("Delete")
            page.keyboard.type("{ __typename tags { name }")
            page.keyboard.press("Control+Enter")
            result = page.locator(".graphiql-response .CodeMirror")
            page.wait_for_function(
                "() => document.querySelector('.graphiql-response')"
                " && document.querySelector('.graphiql-response').innerText.includes('Query')",
                timeout=15000,
            )
            text = result.inner_text()
            page.screenshot(path=str(tmp_path / "sandbox.png"), full_page=True)
        finally:
            browser.close()
    assert '"__typename": "Query"' in text
    assert '"tags": []' in text
    assert (tmp_path / "sandbox.png").stat().st_size > 10_000
    # every request stayed on this server, and nothing broke the policy
    assert requests and all(url.startswith(server) for url in requests), requests
    assert problems == []
