"""Every action x every kind of caller, on a sample of types: the status each cell answers
(the reference's, except where the spec or KNOWN-DIFFERENCES says otherwise)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.authapp import auth_api, bearer, make_auth_app, register, run_sql, token
from tests.conftest import Api

CALLERS = ["public", "user", "blocked", "read-only", "full-access", "custom", "expired", "bad"]
CUSTOM = ["api::tag.tag.find", "api::tag.tag.create", "plugin::upload.content-api.find"]

# action -> expected status per caller, in CALLERS order
OK_READ = {"find": 200, "findOne": 200}
MATRIX: dict[str, list[int]] = {
    #                         public user blocked ro   full custom expired bad
    "article.find": [200, 200, 401, 200, 200, 403, 401, 401],
    "article.findOne": [200, 200, 401, 200, 200, 403, 401, 401],
    "article.create": [403, 201, 401, 403, 201, 403, 401, 401],
    "article.update": [403, 200, 401, 403, 200, 403, 401, 401],
    "article.delete": [403, 204, 401, 403, 204, 403, 401, 401],
    "article.drafts": [403, 200, 401, 200, 200, 403, 401, 401],
    "tag.find": [200, 200, 401, 200, 200, 200, 401, 401],
    "tag.create": [403, 201, 401, 403, 201, 201, 401, 401],
    "tag.delete": [403, 204, 401, 403, 204, 403, 401, 401],
    "global.find": [200, 200, 401, 200, 200, 403, 401, 401],
    "global.update": [403, 200, 401, 403, 200, 403, 401, 401],
    "global.delete": [403, 204, 401, 403, 204, 403, 401, 401],
    "upload.find": [403, 200, 401, 200, 200, 200, 401, 401],
    "upload.findOne": [403, 200, 401, 200, 200, 403, 401, 401],
    "upload.upload": [403, 201, 401, 403, 201, 403, 401, 401],
    "upload.destroy": [403, 200, 401, 403, 200, 403, 401, 401],
    "users.me": [403, 200, 401, 403, 401, 403, 401, 401],
    "users.find": [403, 403, 401, 200, 200, 403, 401, 401],
    "users.count": [403, 403, 401, 403, 200, 403, 401, 401],
}

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\r\xefF\xb8\x00\x00"
    b"\x00\x00IEND\xaeB`\x82"
)


@pytest.fixture(params=["sqlite", "postgres"])
def world(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[Api, dict[str, dict[str, str]]]]:
    from tests.conftest import BACKENDS

    if request.param not in BACKENDS:
        pytest.skip("PostgreSQL not configured")
    for api in auth_api(request.param, make_auth_app(tmp_path)):
        full = token(api, "full-access", name="admin-full")
        headers: dict[str, dict[str, str]] = {"public": {}}
        headers["user"] = bearer(register(api, "alice")["jwt"])
        blocked = register(api, "mallory")
        headers["blocked"] = bearer(blocked["jwt"])
        r = api.put(f"/api/users/{blocked['user']['id']}", {"blocked": True}, headers=bearer(full))
        assert r.status_code == 200, r.text
        headers["read-only"] = bearer(token(api, "read-only"))
        headers["full-access"] = bearer(token(api, "full-access"))
        headers["custom"] = bearer(token(api, "custom", CUSTOM))
        r = api.client.post(
            "/admin/api-tokens",
            json={"name": "soon-expired", "type": "full-access", "lifespan": 604800000},
            headers=bearer("test-admin-key-0123456789"),
        )
        expired_id = r.json()["data"]["id"]
        headers["expired"] = bearer(r.json()["data"]["accessKey"])
        run_sql(
            api,
            "UPDATE api_tokens SET expires_at = ? WHERE id = ?",
            (
                "2000-01-01T00:00:00.000Z" if api.folio.db.dialect.name == "sqlite" else _past(),
                expired_id,
            ),
        )
        headers["bad"] = bearer("0" * 256)
        headers["full"] = bearer(full)
        yield api, headers


def _past() -> Any:
    from datetime import UTC, datetime

    return datetime(2000, 1, 1, tzinfo=UTC)


def _request(api: Api, cell: str, h: dict[str, str], full: dict[str, str]) -> int:
    """Runs one action; what it acts on is made with the full-access token first."""
    kind, action = cell.split(".")
    if kind == "article":
        doc = api.post("/api/articles", {"data": {"title": f"A {cell}"}}, headers=full).json()[
            "data"
        ]
        path = f"/api/articles/{doc['documentId']}"
        if action == "find":
            return int(api.get("/api/articles", headers=h).status_code)
        if action == "findOne":
            return int(api.get(path, headers=h).status_code)
        if action == "drafts":
            return int(api.get("/api/articles?status=draft", headers=h).status_code)
        if action == "create":
            return int(api.post("/api/articles", {"data": {"title": "new"}}, headers=h).status_code)
        if action == "update":
            return int(api.put(path, {"data": {"title": "changed"}}, headers=h).status_code)
        return int(api.delete(path, headers=h).status_code)
    if kind == "tag":
        doc = api.post("/api/tags", {"data": {"name": f"t-{id(h)}-{cell}"}}, headers=full).json()[
            "data"
        ]
        if action == "find":
            return int(api.get("/api/tags", headers=h).status_code)
        if action == "create":
            return int(
                api.post("/api/tags", {"data": {"name": f"n-{id(h)}"}}, headers=h).status_code
            )
        return int(api.delete(f"/api/tags/{doc['documentId']}", headers=h).status_code)
    if kind == "global":
        api.put("/api/global", {"data": {"siteName": "Site"}}, headers=full)
        if action == "find":
            return int(api.get("/api/global", headers=h).status_code)
        if action == "update":
            return int(
                api.put("/api/global", {"data": {"siteName": "Other"}}, headers=h).status_code
            )
        return int(api.delete("/api/global", headers=h).status_code)
    if kind == "upload":
        files = {"files": ("a.png", io.BytesIO(PNG), "image/png")}
        up = api.client.post("/api/upload", files=files, headers=full).json()[0]
        if action == "find":
            return int(api.get("/api/upload/files", headers=h).status_code)
        if action == "findOne":
            return int(api.get(f"/api/upload/files/{up['id']}", headers=h).status_code)
        if action == "upload":
            files = {"files": ("b.png", io.BytesIO(PNG), "image/png")}
            return int(api.client.post("/api/upload", files=files, headers=h).status_code)
        return int(api.delete(f"/api/upload/files/{up['id']}", headers=h).status_code)
    path = {"me": "/api/users/me", "find": "/api/users", "count": "/api/users/count"}[action]
    return int(api.get(path, headers=h).status_code)


def test_authorization_matrix(world: tuple[Api, dict[str, dict[str, str]]]) -> None:
    api, headers = world
    expected = {cell: dict(zip(CALLERS, row, strict=True)) for cell, row in MATRIX.items()}
    got = {
        cell: {caller: _request(api, cell, headers[caller], headers["full"]) for caller in CALLERS}
        for cell in MATRIX
    }
    assert got == expected
