"""An app whose admin panel has its first administrator, and a client signed in as them,
for the admin API's tests:

    from tests.api.adminapp import AdminApi, admin_api_fixture  # noqa: F401

    def test_something(admin_api: AdminApi) -> None:
        r = admin_api.get("/admin/api/session")          # the cookie goes along
        r = admin_api.post("/admin/api/...", {...})      # and the CSRF header too

`admin_api.client` carries the session cookie and the `X-Folio-CSRF` header on every
request; `admin_api.anonymous()` is a client of the same app without either.
`register_admin(client)` signs any httpx-like client up as the first administrator (a real
server's too: `httpx.Client(base_url=...)`) and returns the answer's data."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from folio.app import Folio
from tests.conftest import FIXTURES, Api, database_url, make_api

ADMIN_EMAIL = "admin@example.com"
ADMIN_PASSWORD = "Secret-Pass1"
ADMIN_FIRSTNAME = "Ada"
CSRF_HEADER = "X-Folio-CSRF"


def register_admin(
    client: Any,
    email: str = ADMIN_EMAIL,
    password: str = ADMIN_PASSWORD,
    firstname: str = ADMIN_FIRSTNAME,
) -> dict[str, Any]:
    """Registers the first administrator through the API with `client` (which keeps the
    session cookie) and sets its CSRF header; the answer's data `{user, csrfToken}`."""
    r = client.post(
        "/admin/api/register-admin",
        json={"email": email, "password": password, "firstname": firstname},
    )
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()["data"]
    client.headers[CSRF_HEADER] = data["csrfToken"]
    return data


def login(client: Any, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> str:
    """Signs `client` in; sets and returns the session's CSRF token."""
    r = client.post("/admin/api/login", json={"email": email, "password": password})
    assert r.status_code == 200, r.text
    token: str = r.json()["data"]["csrfToken"]
    client.headers[CSRF_HEADER] = token
    return token


@dataclass
class AdminApi:
    """A client signed in as the first administrator of a running app."""

    api: Api
    csrf: str
    user: dict[str, Any]

    @property
    def client(self) -> TestClient:
        return self.api.client

    @property
    def folio(self) -> Folio:
        return self.api.folio

    # the requests of the signed-in client: Api's JSON helpers
    def get(self, path: str, **kw: Any) -> Any:
        return self.api.get(path, **kw)

    def post(self, path: str, data: Any = None, **kw: Any) -> Any:
        return self.api.post(path, data, **kw)

    def put(self, path: str, data: Any = None, **kw: Any) -> Any:
        return self.api.put(path, data, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self.api.delete(path, **kw)

    @contextmanager
    def anonymous(self) -> Iterator[TestClient]:
        """Another client of the same app, with no cookie and no CSRF header (the app is
        not started a second time)."""
        other = TestClient(self.client.app, raise_server_exceptions=False)
        other.portal = self.client.portal  # the first client's loop, where the app runs
        yield other


def make_admin_app(
    tmp_path: Path, name: str = "adminapp", config: dict[str, Any] | None = None
) -> Path:
    """A copy of the blog fixture (every attribute kind), its content API open to the
    public role; `config`: files of config/ to write (name -> JSON)."""
    app = tmp_path / name
    shutil.copytree(FIXTURES / "blog", app)
    for file, value in (config or {}).items():
        (app / "config" / f"{file}.json").write_text(json.dumps(value))
    return app


def admin_client(app: Path, backend: str, open: bool = True) -> Iterator[AdminApi]:
    """The app served in-process, its first administrator registered and signed in."""
    for api in make_api(app, database_url(backend, app), open=open):
        data = register_admin(api.client)
        yield AdminApi(api, data["csrfToken"], data["user"])


@pytest.fixture(name="admin_api")
def admin_api_fixture(backend: str, tmp_path: Path) -> Iterator[AdminApi]:
    """The `admin_api` fixture: `from tests.api.adminapp import admin_api_fixture` in a
    test module makes it available there."""
    yield from admin_client(make_admin_app(tmp_path), backend)
