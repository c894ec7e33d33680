"""HTTP edges clients of the reference rely on: CORS (default: every origin reflected, with
credentials; preflight answered 204), `GET /_health`, `GET /api/i18n/locales`, and a request
id on every answer."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.authapp import auth_api, bearer, make_auth_app, token
from tests.conftest import Api, failed

ORIGIN = "http://app.example.com"
PREFLIGHT = {
    "Origin": ORIGIN,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type,authorization",
}


def app_with(tmp_path: Path, middlewares: Any = None) -> Path:
    app = make_auth_app(tmp_path)
    if middlewares is not None:
        (app / "config" / "middlewares.json").write_text(json.dumps(middlewares))
    return app


@pytest.fixture
def api(backend: str, tmp_path: Path) -> Iterator[Api]:
    yield from auth_api(backend, app_with(tmp_path))


def test_preflight_is_answered_for_every_origin_by_default(api: Api) -> None:
    for path in ("/api/articles", "/api/tags/x", "/graphql", "/api/upload"):
        r = api.client.options(path, headers=PREFLIGHT)
        assert r.status_code == 204, path
        assert r.content == b""
        h = r.headers
        assert h["access-control-allow-origin"] == ORIGIN
        assert h["access-control-allow-credentials"] == "true"
        assert h["access-control-max-age"] == "31536000"
        assert h["access-control-allow-methods"] == "GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS"
        assert h["access-control-allow-headers"] == "Content-Type,Authorization,Origin,Accept"


def test_answers_carry_the_origin_they_were_asked_from(api: Api) -> None:
    r = api.get("/api/tags", headers={"Origin": ORIGIN})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == ORIGIN
    assert r.headers["access-control-allow-credentials"] == "true"
    assert "Origin" in r.headers["vary"]
    # errors too
    r = api.get("/api/nope", headers={"Origin": ORIGIN})
    assert r.status_code == 404
    assert r.headers["access-control-allow-origin"] == ORIGIN
    # without an Origin, no CORS headers
    r = api.get("/api/tags")
    assert "access-control-allow-origin" not in r.headers


def test_configured_origins_methods_and_headers(backend: str, tmp_path: Path) -> None:
    config = [
        "strapi::logger",
        {
            "name": "strapi::cors",
            "config": {
                "origin": [ORIGIN],
                "methods": ["GET", "POST"],
                "headers": ["Content-Type", "X-Custom"],
                "expose": ["X-Request-Id"],
                "credentials": False,
                "maxAge": 600,
            },
        },
    ]
    for api in auth_api(backend, app_with(tmp_path, config)):
        r = api.client.options("/api/tags", headers=PREFLIGHT)
        assert r.status_code == 204
        assert r.headers["access-control-allow-origin"] == ORIGIN
        assert "access-control-allow-credentials" not in r.headers
        assert r.headers["access-control-allow-methods"] == "GET,POST"
        assert r.headers["access-control-allow-headers"] == "Content-Type,X-Custom"
        assert r.headers["access-control-max-age"] == "600"
        r = api.get("/api/tags", headers={"Origin": ORIGIN})
        assert r.headers["access-control-expose-headers"] == "X-Request-Id"
        # another origin gets no CORS headers, and its preflight is no preflight
        other = {**PREFLIGHT, "Origin": "http://evil.example"}
        r = api.client.options("/api/tags", headers=other)
        assert "access-control-allow-origin" not in r.headers
        assert r.status_code != 204
        r = api.get("/api/tags", headers={"Origin": "http://evil.example"})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_cors_off(backend: str, tmp_path: Path) -> None:
    for api in auth_api(backend, app_with(tmp_path, {"cors": False})):
        r = api.get("/api/tags", headers={"Origin": ORIGIN})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_a_bad_cors_config_stops_start_up(tmp_path: Path) -> None:
    from folio.app import load_app
    from folio.errors import ConfigError
    from folio.http.app import build_asgi

    app = app_with(tmp_path, {"cors": {"origin": 3}})
    with pytest.raises(ConfigError, match=r"cors\.origin"):
        build_asgi(load_app(app, f"sqlite:///{app / 'data.db'}"))


def test_health(api: Api) -> None:
    r = api.get("/_health")
    assert r.status_code == 204 and r.content == b""
    assert api.client.head("/_health").status_code == 204


def test_locales(api: Api) -> None:
    failed(api.get("/api/i18n/locales"), 403, "ForbiddenError")
    r = api.get("/api/i18n/locales", headers=bearer(token(api, "read-only")))
    assert r.status_code == 200
    assert r.json() == [
        {
            "id": i,
            "documentId": code,
            "name": name,
            "code": code,
            "createdAt": None,
            "updatedAt": None,
            "publishedAt": None,
            "isDefault": code == "en",
        }
        for i, (code, name) in enumerate(
            [("en", "English (en)"), ("fr", "French (fr)"), ("de", "German (de)")], start=1
        )
    ]


def test_request_ids(api: Api) -> None:
    first = api.get("/api/tags").headers["x-request-id"]
    second = api.get("/api/tags").headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", first) and first != second
    assert (
        api.get("/api/tags", headers={"X-Request-Id": "abc-123"}).headers["x-request-id"]
        == "abc-123"
    )
    weird = api.get("/api/tags", headers={"X-Request-Id": "a b<c>"}).headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", weird)
    assert "x-request-id" in api.get("/api/nope").headers
    assert "x-request-id" in api.post("/graphql", {"query": "{ __typename }"}).headers


REFERENCE_SECURITY = {
    "content-security-policy": "connect-src 'self' https:;img-src 'self' data: blob:;"
    "media-src 'self' data: blob:;default-src 'self';base-uri 'self';"
    "font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';"
    "object-src 'none';script-src 'self';script-src-attr 'none';"
    "style-src 'self' https: 'unsafe-inline'",
    "referrer-policy": "no-referrer",
    "strict-transport-security": "max-age=31536000; includeSubDomains",
    "x-content-type-options": "nosniff",
    "x-dns-prefetch-control": "off",
    "x-download-options": "noopen",
    "x-frame-options": "SAMEORIGIN",
    "x-permitted-cross-domain-policies": "none",
}


def test_every_answer_carries_the_reference_security_headers(api: Api) -> None:
    answers = [
        api.get("/api/tags"),
        api.get("/api/nothing-here"),
        api.post("/api/tags", {"data": {"name": "x"}}),  # refused: no credentials
        api.client.options("/api/tags", headers=PREFLIGHT),
        api.get("/_health"),
    ]
    for r in answers:
        for name, value in REFERENCE_SECURITY.items():
            assert r.headers.get(name) == value, (r.request.url, name, r.headers.get(name))


def test_security_headers_are_configured_as_the_reference_configures_them(
    backend: str, tmp_path: Path
) -> None:
    middlewares = [
        "strapi::logger",
        {
            "name": "strapi::security",
            "config": {
                "contentSecurityPolicy": {
                    "directives": {"img-src": ["'self'", "cdn.example.com"], "script-src": None}
                },
                "frameguard": {"action": "deny"},
                "hsts": False,
            },
        },
    ]
    for api in auth_api(backend, app_with(tmp_path, middlewares)):
        r = api.get("/api/tags")
        csp = r.headers["content-security-policy"]
        assert "img-src 'self' cdn.example.com" in csp and "script-src 'self'" not in csp
        assert r.headers["x-frame-options"] == "DENY"
        assert "strict-transport-security" not in r.headers
        assert r.headers["x-content-type-options"] == "nosniff"


def test_security_headers_off(backend: str, tmp_path: Path) -> None:
    for api in auth_api(backend, app_with(tmp_path, {"security": False})):
        r = api.get("/api/tags")
        assert "content-security-policy" not in r.headers and "x-frame-options" not in r.headers


def test_a_page_with_its_own_policy_keeps_it(api: Api) -> None:
    r = api.get("/graphql", headers={"Accept": "text/html"})
    assert r.status_code == 200, r.text
    policies = [v for k, v in r.headers.multi_items() if k == "content-security-policy"]
    assert len(policies) == 1 and policies[0] != REFERENCE_SECURITY["content-security-policy"]
    assert r.headers["x-frame-options"] == "SAMEORIGIN"


def test_request_ids_of_a_forked_process_differ() -> None:
    """Each process draws its own half of the ids: a forked server process (a worker)
    never repeats its parent's."""
    import os

    from folio.http.edges import REQUEST_IDS

    parent = [REQUEST_IDS.next() for _ in range(3)]
    assert len(set(parent)) == 3 and all(re.fullmatch(r"[0-9a-f]{32}", i) for i in parent)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, then out without running anything else
        os.write(write, REQUEST_IDS.next().encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    os.close(write)
    assert re.fullmatch(r"[0-9a-f]{32}", child)
    assert child[:16] != parent[0][:16]
