"""An app with the reference's access setup, for the access-control tests: the public role
may find/findOne every type, the authenticated role may do everything (and upload), plus
helpers to make users and API tokens through the real routes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from folio.store.program import Program, execute
from tests.conftest import FIXTURES, Api, database_url, make_api

ADMIN_KEY = "test-admin-key-0123456789"
TYPES = ["article", "category", "tag", "author", "profile", "event", "global", "about"]
SINGLE = {"global", "about"}


def reference_permissions() -> dict[str, Any]:
    public: list[str] = [
        "plugin::users-permissions.auth.callback",
        "plugin::users-permissions.auth.register",
        "plugin::users-permissions.auth.forgotPassword",
        "plugin::users-permissions.auth.resetPassword",
        "plugin::users-permissions.auth.emailConfirmation",
        "plugin::users-permissions.auth.sendEmailConfirmation",
    ]
    authenticated: list[str] = [
        "plugin::users-permissions.user.me",
        "plugin::users-permissions.auth.changePassword",
        "plugin::upload.content-api.*",
    ]
    for t in TYPES:
        single = t in SINGLE
        public += [f"api::{t}.{t}.{a}" for a in (["find"] if single else ["find", "findOne"])]
        every = (
            ["find", "update", "delete"]
            if single
            else ["find", "findOne", "create", "update", "delete"]
        )
        authenticated += [f"api::{t}.{t}.{a}" for a in every]
    return {
        "roles": {
            "public": {"permissions": public},
            "authenticated": {"permissions": authenticated},
        }
    }


def make_auth_app(tmp_path: Path, plugins: dict[str, Any] | None = None) -> Path:
    app = tmp_path / "authapp"
    shutil.copytree(FIXTURES / "blog", app)
    (app / "config" / "permissions.json").write_text(json.dumps(reference_permissions()))
    (app / "config" / "admin.json").write_text(json.dumps({"auth": {"keys": [ADMIN_KEY]}}))
    if plugins is not None:
        (app / "config" / "plugins.json").write_text(json.dumps(plugins))
    return app


def auth_api(backend: str, app: Path) -> Iterator[Api]:
    yield from make_api(app, database_url(backend, app), open=False)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def admin(api: Api, method: str, path: str, body: Any = None) -> Any:
    kw: dict[str, Any] = {"headers": bearer(ADMIN_KEY)}
    if body is not None:
        kw["json"] = body
    return api.client.request(method, path, **kw)


def token(
    api: Api, type_: str, permissions: list[str] | None = None, name: str | None = None
) -> str:
    body: dict[str, Any] = {"name": name or f"{type_}-{len(permissions or [])}", "type": type_}
    if permissions is not None:
        body["permissions"] = permissions
    r = admin(api, "POST", "/admin/api-tokens", body)
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["accessKey"])


def register(api: Api, username: str, password: str = "secret123") -> dict[str, Any]:
    r = api.post(
        "/api/auth/local/register",
        {"username": username, "email": f"{username}@example.com", "password": password},
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def run_sql(api: Api, sql: str, params: tuple[Any, ...] = ()) -> None:
    def program() -> Program:
        yield execute(sql, params)

    assert api.client.portal is not None
    api.client.portal.call(api.folio.db.write, program())
