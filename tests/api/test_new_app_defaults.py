"""What a new app (`folio new`) lets people do: anyone reads the example types and may
sign up; a signed-in user reads, sees their own account and changes their password, but
changes no content and uploads nothing until the app grants it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from folio.cli.main import main
from tests.api.authapp import bearer
from tests.conftest import Api, database_url, failed, make_api

ARTICLE = {"data": {"title": "Hello"}}
CREATE_ARTICLE = 'mutation { createArticle(data: {title: "By GraphQL"}) { documentId } }'


def new_app(tmp_path: Path) -> Path:
    app = tmp_path / "blog"
    assert main(["new", str(app), "--empty"]) == 0
    # its secrets would otherwise stay in this process's environment (the app reads .env
    # into it) for the tests after this one
    (app / ".env").unlink()
    return app


def titles(api: Api, headers: dict[str, str] | None = None) -> list[str]:
    r = api.get("/api/articles?sort=id", headers=headers)
    assert r.status_code == 200, r.text
    return [doc["title"] for doc in r.json()["data"]]


def writes(api: Api, headers: dict[str, str], doc: str) -> list[int]:
    """The statuses of a create, an update and a delete of an article, and an upload."""
    upload = api.client.post(
        "/api/upload", files={"files": ("a.txt", b"hello", "text/plain")}, headers=headers
    )
    return [
        api.post("/api/articles", ARTICLE, headers=headers).status_code,
        api.put(
            f"/api/articles/{doc}", {"data": {"title": "Changed"}}, headers=headers
        ).status_code,
        api.delete(f"/api/articles/{doc}", headers=headers).status_code,
        upload.status_code,
    ]


def test_a_new_app_lets_anyone_read_and_no_stranger_write(
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = new_app(tmp_path)
    url = database_url(backend, app)
    monkeypatch.setenv("DATABASE_URL", url)  # for the commands
    command = ["token", "create", "--name", "editor", "--type", "full-access"]
    assert main([*command, "--app", str(app)]) == 0
    editor = bearer(capsys.readouterr().out.strip().splitlines()[-1])
    account = {"username": "stranger", "email": "stranger@example.com", "password": "secret123"}
    for api in make_api(app, url, open=False):
        r = api.post("/api/articles", ARTICLE, headers=editor)
        assert r.status_code == 201, r.text
        doc = r.json()["data"]["documentId"]
        # anyone reads; nobody anonymous writes
        assert titles(api) == ["Hello"]
        assert api.get(f"/api/articles/{doc}").status_code == 200
        assert writes(api, {}, doc) == [403, 403, 403, 403]
        failed(api.post("/api/articles", ARTICLE), 403, "ForbiddenError")
        # anyone signs up: the account reads and sees itself, and writes nothing
        r = api.post("/api/auth/local/register", account)
        assert r.status_code == 200, r.text
        user = bearer(r.json()["jwt"])
        assert titles(api, user) == ["Hello"]
        assert api.get("/api/users/me", headers=user).json()["username"] == "stranger"
        assert writes(api, user, doc) == [403, 403, 403, 403]
        failed(api.post("/api/articles", ARTICLE, headers=user), 403, "ForbiddenError")
        failed(api.get("/api/users", headers=user), 403, "ForbiddenError")
        body: Any = api.post("/graphql", {"query": CREATE_ARTICLE}, headers=user).json()
        assert body["errors"] and not (body.get("data") or {}).get("createArticle")
        change = {
            "currentPassword": "secret123",
            "password": "secret456",
            "passwordConfirmation": "secret456",
        }
        r = api.post("/api/auth/change-password", change, headers=user)
        assert r.status_code == 200, r.text
        user = bearer(r.json()["jwt"])
        assert titles(api) == ["Hello"]

    # the app grants signed-in users the writing of articles (and only that)
    actions = [f"api::article.article.{a}" for a in ("create", "update", "delete")]
    assert main(["permissions", "grant", "authenticated", *actions, "--app", str(app)]) == 0
    for api in make_api(app, url, open=False):
        r = api.post("/api/articles", {"data": {"title": "Mine"}}, headers=user)
        assert r.status_code == 201, r.text
        mine = r.json()["data"]["documentId"]
        r = api.put(f"/api/articles/{mine}", {"data": {"title": "Mine, changed"}}, headers=user)
        assert r.status_code == 200, r.text
        assert titles(api) == ["Hello", "Mine, changed"]
        assert api.delete(f"/api/articles/{doc}", headers=user).status_code == 204
        assert titles(api) == ["Mine, changed"]
        # other types and anonymous callers stay as they were
        failed(
            api.post("/api/categories", {"data": {"name": "N"}}, headers=user),
            403,
            "ForbiddenError",
        )
        failed(api.post("/api/articles", ARTICLE), 403, "ForbiddenError")
