"""Administrators of the admin panel: the first one (only while there is none, racing
requests give one), sign-in and its rate limits, the session cookie and its CSRF token,
expiry, sign-out, password change and reset (by mail and from the CLI), and the wall
between admin credentials and the content API's (neither works on the other's routes)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from starlette.testclient import TestClient

from folio.app import load_app
from folio.auth.mail import LogMailer
from folio.cli.main import main
from folio.http.app import build_asgi
from tests.api.adminapp import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    CSRF_HEADER,
    AdminApi,
    admin_api_fixture,  # noqa: F401  (the admin_api fixture)
    admin_client,
    login,
    make_admin_app,
    register_admin,
)
from tests.api.authapp import ADMIN_KEY, bearer, make_auth_app
from tests.api.serving import CLEARED, serving
from tests.conftest import database_url, make_api

T = TypeVar("T")
BODY = {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "firstname": "Ada"}


def cookie_of(response: Any) -> str:
    """The Set-Cookie header of the admin session in `response`."""
    found = [c for c in response.headers.get_list("set-cookie") if c.startswith("folio_admin=")]
    assert len(found) == 1, response.headers
    return str(found[0])


def session_id(response: Any) -> str:
    return cookie_of(response).split(";", 1)[0].split("=", 1)[1]


def run(app_dir: Path, url: str, scenario: Callable[[Any], Awaitable[T]]) -> T:
    """`scenario(app)` against the app started in-process: requests sent together are
    handled together (one event loop, the database's own concurrency)."""

    async def serve() -> T:
        app = build_asgi(load_app(app_dir, url))
        async with app.router.lifespan_context(app):
            return await scenario(app)

    return asyncio.run(serve())


def client_at(app: Any, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


# ---------------------------------------------------------------------- first administrator


def test_the_first_administrator_is_made_once_and_signed_in(backend: str, tmp_path: Path) -> None:
    app = make_admin_app(tmp_path)
    for api in make_api(app, database_url(backend, app)):
        c = api.client
        r = c.get("/admin/api/init")
        assert r.json()["data"] == {"hasAdmin": False, "defaultLocale": "en", "appName": "adminapp"}
        assert c.get("/admin/api/session").status_code == 401

        weak = c.post("/admin/api/register-admin", json={**BODY, "password": "short"})
        assert weak.status_code == 400
        messages = {e["message"] for e in weak.json()["error"]["details"]["errors"]}
        assert "password must be at least 8 characters" in messages
        assert "password must contain at least one uppercase character" in messages
        assert "password must contain at least one number" in messages
        assert c.get("/admin/api/init").json()["data"]["hasAdmin"] is False

        r = c.post("/admin/api/register-admin", json={**BODY, "email": " Ada@Example.com "})
        assert r.status_code == 201, r.text
        cookie = cookie_of(r)
        attributes = {p.strip().lower() for p in cookie.split(";")[1:]}
        assert {"httponly", "samesite=strict", "path=/admin"} <= attributes
        assert "secure" not in attributes  # plain http here
        data = r.json()["data"]
        user = data["user"]
        assert user["email"] == "ada@example.com" and user["firstname"] == "Ada"
        assert set(user) == {"id", "email", "firstname", "lastname", "isActive", "createdAt"}
        assert r.headers["cache-control"] == "no-store"

        s = c.get("/admin/api/session")
        assert s.status_code == 200
        assert s.json()["data"]["user"] == user
        assert s.json()["data"]["csrfToken"] == data["csrfToken"]
        assert c.get("/admin/api/init").json()["data"]["hasAdmin"] is True

        again = c.post("/admin/api/register-admin", json={**BODY, "email": "eve@example.com"})
        assert again.status_code == 403
        assert again.json()["error"] == {
            "status": 403,
            "name": "ForbiddenError",
            "message": "An administrator already exists",
            "details": {},
        }
        # only the hash of the session id is stored
        stored = api.client.portal.call(api.folio.admins._read, _session_keys())  # type: ignore[union-attr]
        assert session_id(r) not in stored and len(stored) == 1


def _session_keys() -> Any:
    from folio.store.program import query

    rows = yield query("SELECT id FROM folio_admin_sessions")
    return [r[0] for r in rows]


def test_racing_first_administrators_make_one(backend: str, tmp_path: Path) -> None:
    app_dir = make_admin_app(tmp_path)

    async def scenario(app: Any) -> list[int]:
        async with client_at(app, "10.0.0.1") as client:

            async def register(i: int) -> int:
                body = {**BODY, "email": f"admin{i}@example.com"}
                r = await client.post("/admin/api/register-admin", json=body)
                return r.status_code

            statuses = await asyncio.gather(*(register(i) for i in range(8)))
            admins = await app.state.folio.admins.list_admins()
            assert len(admins) == 1
            return list(statuses)

    statuses = run(app_dir, database_url(backend, app_dir), scenario)
    assert sorted(statuses) == [201] + [403] * 7


def test_racing_first_administrators_against_two_server_processes(
    backend: str, tmp_path: Path
) -> None:
    app = make_admin_app(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env["DATABASE_URL"] = database_url(backend, app)

    def register(base: str, i: int) -> int:
        body = json.dumps({**BODY, "email": f"admin{i}@example.com"}).encode()
        request = urllib.request.Request(
            base + "/admin/api/register-admin",
            data=body,
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return int(r.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    log = tmp_path / "server.log"
    with serving(app, log=log, env=env, args=["--workers", "2"]) as base:
        with ThreadPoolExecutor(max_workers=8) as pool:
            statuses = list(pool.map(lambda i: register(base, i), range(8)))
        with urllib.request.urlopen(base + "/admin/api/init", timeout=30) as r:
            assert json.loads(r.read())["data"]["hasAdmin"] is True
        # a reset asked with a forged Host header mails a link to the server itself
        winner = statuses.index(201)
        forgot = urllib.request.Request(
            base + "/admin/api/forgot-password",
            data=json.dumps({"email": f"admin{winner}@example.com"}).encode(),
            headers={"Content-Type": "application/json", "Host": "evil.example"},
            method="POST",
        )
        with urllib.request.urlopen(forgot, timeout=30) as r:
            assert r.status == 204
    assert sorted(statuses) == [201] + [403] * 7
    links = re.findall(r"\S+/admin/auth/reset-password\?code=", log.read_text())
    assert links == [f"{base}/admin/auth/reset-password?code="]


# ---------------------------------------------------------------------- sign-in, CSRF


def test_sign_in_and_csrf(admin_api: AdminApi) -> None:
    with admin_api.anonymous() as c:
        bad = c.post("/admin/api/login", json={"email": ADMIN_EMAIL, "password": "Wrong-pass1"})
        unknown = c.post(
            "/admin/api/login", json={"email": "x@example.com", "password": "Aa1aaaaa"}
        )
        for r in (bad, unknown):
            assert r.status_code == 400
            assert r.json()["error"]["name"] == "ValidationError"
            assert r.json()["error"]["message"] == "Invalid credentials"
            assert "set-cookie" not in r.headers
        assert c.post("/admin/api/login", json={"email": ADMIN_EMAIL}).status_code == 400

        r = c.post(
            "/admin/api/login", json={"email": "ADMIN@example.com", "password": ADMIN_PASSWORD}
        )
        assert r.status_code == 200, r.text
        csrf = r.json()["data"]["csrfToken"]
        assert csrf != admin_api.csrf  # a session of its own
        assert c.get("/admin/api/users/me").json()["data"]["email"] == ADMIN_EMAIL

        # writes need the session's CSRF token
        for headers in ({}, {CSRF_HEADER: "nope"}, {CSRF_HEADER: admin_api.csrf}):
            r = c.put("/admin/api/users/me", json={"firstname": "Eve"}, headers=headers)
            assert r.status_code == 403, r.text
            assert r.json()["error"]["message"] == "Missing or invalid CSRF token"
            r = c.post(
                "/admin/api-tokens", json={"name": "t", "type": "read-only"}, headers=headers
            )
            assert r.status_code == 403
            r = c.delete("/admin/api/upload/files/1", headers=headers)
            assert r.status_code == 403
        r = c.put("/admin/api/users/me", json={"firstname": "Grace"}, headers={CSRF_HEADER: csrf})
        assert r.status_code == 200 and r.json()["data"]["firstname"] == "Grace"
        # the key-protected routes take the session too
        r = c.post(
            "/admin/api-tokens",
            json={"name": "t", "type": "read-only"},
            headers={CSRF_HEADER: csrf},
        )
        assert r.status_code == 201, r.text
        assert c.get("/admin/webhooks").status_code == 200
        assert c.get("/admin/api-tokens").json()["data"][0]["name"] == "t"


def test_sign_out_ends_the_session(admin_api: AdminApi) -> None:
    old = admin_api.client.cookies.get("folio_admin")
    assert old
    # sign-out is a write: the CSRF token is needed
    assert admin_api.client.post("/admin/api/logout", headers={CSRF_HEADER: ""}).status_code == 403
    r = admin_api.post("/admin/api/logout")
    assert r.status_code == 204
    cleared = cookie_of(r).lower()
    assert "max-age=0" in cleared and "path=/admin" in cleared
    assert admin_api.get("/admin/api/session").status_code == 401
    with admin_api.anonymous() as c:
        # the old cookie, sent again, is worth nothing
        r = c.get("/admin/api/session", headers={"Cookie": f"folio_admin={old}"})
        assert r.status_code == 401
        assert (
            c.get("/admin/api-tokens", headers={"Cookie": f"folio_admin={old}"}).status_code == 401
        )
        assert c.post("/admin/api/logout").status_code == 204  # without a session: nothing to end


# ---------------------------------------------------------------------- expiry


def test_sessions_expire_when_idle_and_at_their_end(backend: str, tmp_path: Path) -> None:
    config = {"admin": {"auth": {"session": {"idleSeconds": 600, "maxSeconds": 1500}}}}
    for admin in admin_client(make_admin_app(tmp_path, config=config), backend):
        _expiry(admin)


def _expiry(admin: AdminApi) -> None:
    admins = admin.folio.admins
    start = admins.clock()
    now = [start]
    admins.clock = lambda: now[0]

    def alive() -> bool:
        status = admin.get("/admin/api/session").status_code
        assert status in (200, 401)
        return status == 200

    ends = admin.get("/admin/api/session").json()["data"]["expiresAt"]
    assert abs(_seconds(ends) - (start + 600)) < 2
    # each use moves the idle end forward: 500 s, 1000 s, 1400 s after sign-in
    for at in (500, 1000, 1400):
        now[0] = start + at
        assert alive(), at
    # 1,500 s after sign-in the session ends whatever its use
    now[0] = start + 1501
    assert not alive()

    login(admin.client)
    start = now[0]
    now[0] = start + 599
    assert alive()
    now[0] = start + 599 + 601
    assert not alive()
    assert admin.get("/admin/api-tokens").status_code == 401


def _seconds(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_session_settings_are_checked(tmp_path: Path) -> None:
    from folio.errors import ConfigError

    config = {"admin": {"auth": {"session": {"idleSeconds": "soon"}}}}
    app = make_admin_app(tmp_path, config=config)
    with pytest.raises(ConfigError, match=r"auth\.session\.idleSeconds"):
        load_app(app, f"sqlite:///{app / '.tmp' / 'data.db'}")
    config = {"admin": {"auth": {"session": {"idleSecond": 5}}}}
    app = make_admin_app(tmp_path, "other", config=config)
    with pytest.raises(ConfigError, match="idleSeconds"):
        load_app(app, f"sqlite:///{app / '.tmp' / 'data.db'}")


# ---------------------------------------------------------------------- rate limits


def test_sign_in_is_limited_per_address_and_per_account(backend: str, tmp_path: Path) -> None:
    limits = {"users-permissions": {"config": {"ratelimit": {"max": 3}}}}
    app_dir = make_admin_app(tmp_path, config={"plugins": limits})

    async def scenario(app: Any) -> None:
        async with client_at(app, "10.0.0.1") as first:
            await first.post("/admin/api/register-admin", json=BODY)
        wrong = {"email": ADMIN_EMAIL, "password": "Wrong-pass1"}
        # one address: three tries (of three accounts), then 429, the right password too
        async with client_at(app, "10.0.0.2") as c:
            for i in range(3):
                r = await c.post("/admin/api/login", json={**wrong, "email": f"x{i}@example.com"})
                assert r.status_code == 400
                assert r.headers["x-ratelimit-limit"] == "3"
            r = await c.post("/admin/api/login", json={**wrong, "password": ADMIN_PASSWORD})
            assert r.status_code == 429
            assert r.json()["error"]["name"] == "RateLimitError"
        # one account (tried once above) from ever new addresses: two more tries, then 429
        for i in range(2):
            async with client_at(app, f"10.0.1.{i}") as c:
                assert (await c.post("/admin/api/login", json=wrong)).status_code == 400
        async with client_at(app, "10.0.1.9") as c:
            r = await c.post("/admin/api/login", json={**wrong, "password": ADMIN_PASSWORD})
            assert r.status_code == 429
            # another account from this address still gets its answer
            other = {"email": "y@example.com", "password": "Wrong-pass1"}
            assert (await c.post("/admin/api/login", json=other)).status_code == 400
        async with client_at(app, "10.0.2.1") as c:
            r = await c.post("/admin/api/login", json={**wrong, "email": "y@example.com"})
            assert r.status_code == 400

    run(app_dir, database_url(backend, app_dir), scenario)


# ---------------------------------------------------------------------- password change, reset


def test_a_password_change_ends_the_other_sessions(admin_api: AdminApi) -> None:
    with admin_api.anonymous() as other:
        login(other)
        assert other.get("/admin/api/session").status_code == 200
        new = "Another-pass2"
        r = admin_api.put("/admin/api/users/me", {"password": new})
        assert r.status_code == 400
        assert r.json()["error"]["details"]["errors"][0]["path"] == ["currentPassword"]
        r = admin_api.put("/admin/api/users/me", {"password": new, "currentPassword": "Nope-1234"})
        assert r.status_code == 400
        assert other.get("/admin/api/session").status_code == 200
        r = admin_api.put(
            "/admin/api/users/me", {"password": "weak", "currentPassword": ADMIN_PASSWORD}
        )
        assert r.status_code == 400
        r = admin_api.put(
            "/admin/api/users/me",
            {"password": new, "currentPassword": ADMIN_PASSWORD, "lastname": "Lovelace"},
        )
        assert r.status_code == 200, r.text
        assert r.json()["data"]["lastname"] == "Lovelace"
        assert "password" not in r.json()["data"]
        # this session goes on, the other one ended
        assert admin_api.get("/admin/api/session").status_code == 200
        assert other.get("/admin/api/session").status_code == 401
        bad = other.post(
            "/admin/api/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}
        )
        assert bad.status_code == 400
        login(other, password=new)


def test_a_forgotten_password_is_reset_through_the_mailed_link(admin_api: AdminApi) -> None:
    mailer = admin_api.folio.admins.mailer
    assert isinstance(mailer, LogMailer)
    with admin_api.anonymous() as c:
        assert (
            c.post("/admin/api/forgot-password", json={"email": "nobody@x.io"}).status_code == 204
        )
        assert mailer.sent == []
        r = c.post("/admin/api/forgot-password", json={"email": ADMIN_EMAIL.upper()})
        assert r.status_code == 204
        [(to, _, text)] = mailer.sent
        assert to == ADMIN_EMAIL
        # the link is the server's own address (no server.url here)
        match = re.search(r"(http://testserver/admin/auth/reset-password)\?code=([\w-]+)", text)
        assert match, text
        code = match.group(2)
        assert (
            c.post(
                "/admin/api/reset-password", json={"code": "nope", "password": "New-pass-123"}
            ).status_code
            == 400
        )
        weak = c.post("/admin/api/reset-password", json={"code": code, "password": "weak"})
        assert weak.status_code == 400
        r = c.post("/admin/api/reset-password", json={"code": code, "password": "New-pass-123"})
        assert r.status_code == 200, r.text
        assert r.json()["data"]["user"]["email"] == ADMIN_EMAIL
        c.headers[CSRF_HEADER] = r.json()["data"]["csrfToken"]
        assert c.get("/admin/api/session").status_code == 200
        # the code is used up; the sessions from before the reset ended
        again = c.post(
            "/admin/api/reset-password", json={"code": code, "password": "Other-pass-123"}
        )
        assert again.status_code == 400
        assert admin_api.get("/admin/api/session").status_code == 401
        login(admin_api.client, password="New-pass-123")

        # a code holds for an hour
        c.post("/admin/api/forgot-password", json={"email": ADMIN_EMAIL})
        code = re.findall(r"code=([\w-]+)", mailer.sent[-1][2])[0]
        admins = admin_api.folio.admins
        later = admins.clock() + 3601
        admins.clock = lambda: later
        late = c.post("/admin/api/reset-password", json={"code": code, "password": "Late-pass-123"})
        assert late.status_code == 400


def test_the_cli_creates_administrators_and_resets_passwords(
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = make_admin_app(tmp_path)
    url = database_url(backend, app)
    monkeypatch.setenv("DATABASE_URL", url)
    create = ["admin", "create", "--app", str(app), "--email", "ops@example.com"]
    assert main([*create, "--firstname", "Op", "--password", "weakpass"]) == 1
    assert "weak password" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert main([*create, "--firstname", "Op"]) == 1
    assert "--password" in capsys.readouterr().err
    assert main([*create, "--firstname", "Op", "--password", "Cli-pass-123"]) == 0
    assert main([*create, "--firstname", "Op", "--password", "Cli-pass-123"]) == 1
    assert "Email already taken" in capsys.readouterr().err
    second = ["admin", "create", "--app", str(app), "--email", "two@example.com"]
    assert (
        main([*second, "--firstname", "Two", "--lastname", "Nd", "--password", "Cli-pass-456"]) == 0
    )
    capsys.readouterr()
    assert main(["admin", "list", "--app", str(app)]) == 0
    listed = capsys.readouterr().out
    assert "ops@example.com" in listed and "two@example.com" in listed and "Two Nd" in listed

    for api in make_api(app, url):
        c = api.client
        # the panel asks for no first administrator any more
        assert c.get("/admin/api/init").json()["data"]["hasAdmin"] is True
        assert c.post("/admin/api/register-admin", json=BODY).status_code == 403
        login(c, "ops@example.com", "Cli-pass-123")
        assert c.get("/admin/api/session").status_code == 200

        reset = ["admin", "reset-password", "--app", str(app), "--email", "ops@example.com"]
        assert main([*reset, "--password", "Reset-pass-789"]) == 0
        assert (
            main(
                [
                    "admin",
                    "reset-password",
                    "--app",
                    str(app),
                    "--email",
                    "no@x.io",
                    "--password",
                    "Reset-pass-789",
                ]
            )
            == 1
        )
        # the sessions of before the reset ended
        assert c.get("/admin/api/session").status_code == 401
        login(c, "ops@example.com", "Reset-pass-789")


# ---------------------------------------------------------------------- credentials apart


def test_admin_and_content_credentials_never_cross(backend: str, tmp_path: Path) -> None:
    app = make_auth_app(tmp_path)
    for api in make_api(app, database_url(backend, app), open=False):
        c = api.client
        data = register_admin(c)
        cookie = {"Cookie": f"folio_admin={c.cookies.get('folio_admin')}"}
        csrf = {CSRF_HEADER: data["csrfToken"]}
        # a content-API user and an API token
        r = c.post(
            "/api/auth/local/register",
            json={"username": "reader", "email": "reader@example.com", "password": "secret123"},
        )
        jwt = bearer(r.json()["jwt"])
        r = c.post(
            "/admin/api-tokens",
            json={"name": "full", "type": "full-access"},
            headers=bearer(ADMIN_KEY),
        )
        api_token = bearer(r.json()["data"]["accessKey"])

        # the admin cookie is nothing to the content API
        c.cookies.clear()
        assert c.get("/api/users/me", headers=cookie).status_code == 403
        r = c.post("/api/articles", json={"data": {"title": "x"}}, headers={**cookie, **csrf})
        assert r.status_code == 403
        mutation = {"query": 'mutation { createTag(data: {name: "x"}) { documentId } }'}
        r = c.post("/graphql", json=mutation, headers={**cookie, **csrf})
        assert "errors" in r.json() and r.json().get("data", {}) in (None, {"createTag": None})
        assert c.get("/api/tags", headers=cookie).status_code == 200  # as the public role

        # content credentials are nothing to the admin API
        for credential in (jwt, api_token):
            assert c.get("/admin/api/session", headers=credential).status_code == 401
            assert c.get("/admin/api/users/me", headers=credential).status_code == 401
            assert c.get("/admin/api/upload/files", headers=credential).status_code == 401
            assert c.get("/admin/api-tokens", headers=credential).status_code == 401
            assert c.get("/admin/webhooks", headers=credential).status_code == 401
        # the admin key still works, and alongside a cookie the bearer is what counts
        assert c.get("/admin/api-tokens", headers=bearer(ADMIN_KEY)).status_code == 200
        assert c.get("/admin/api-tokens", headers={**cookie, **jwt}).status_code == 401
        assert c.get("/admin/api-tokens", headers=cookie).status_code == 200


def test_admin_api_paths_that_do_not_exist_are_404(admin_api: AdminApi) -> None:
    for method in ("GET", "POST", "DELETE"):
        r = admin_api.client.request(method, "/admin/api/no-such-thing")
        assert r.status_code == 404
        assert r.json()["error"]["name"] == "NotFoundError"


def test_ended_sessions_are_deleted_in_time(admin_api: AdminApi) -> None:
    portal = admin_api.client.portal
    assert portal is not None
    admins = admin_api.folio.admins
    with admin_api.anonymous() as c:
        login(c)
    assert len(portal.call(admins._read, _session_keys())) == 2
    later = admins.clock() + 31 * 86_400
    admins.clock = lambda: later
    with admin_api.anonymous() as c:
        login(c)
        assert c.get("/admin/api/session").status_code == 200
    # the two sessions of a month ago are gone, though nobody came back with them
    assert len(portal.call(admins._read, _session_keys())) == 1


def test_the_cookie_is_secure_over_https(backend: str, tmp_path: Path) -> None:
    config = {"server": {"url": "https://cms.example.com/"}}
    app = make_admin_app(tmp_path, config=config)
    for api in make_api(app, database_url(backend, app)):
        r = api.post("/admin/api/register-admin", BODY)
        assert r.status_code == 201
        assert "secure" in {p.strip().lower() for p in cookie_of(r).split(";")}
        api.post("/admin/api/forgot-password", {"email": ADMIN_EMAIL})
        mailer = api.folio.admins.mailer
        assert isinstance(mailer, LogMailer)
        assert "https://cms.example.com/admin/auth/reset-password?code=" in mailer.sent[-1][2]
    plain = make_admin_app(tmp_path, "plain")
    for api in make_api(plain, database_url(backend, plain)):
        https = TestClient(api.client.app, base_url="https://testserver")
        https.portal = api.client.portal  # the app runs on the first client's loop
        r = https.post("/admin/api/register-admin", json=BODY)
        assert r.status_code == 201
        assert "secure" in {p.strip().lower() for p in cookie_of(r).split(";")}
        assert https.get("/admin/api/session").status_code == 200


def test_the_admin_sign_in_limits_of_config_admin(backend: str, tmp_path: Path) -> None:
    config = {"admin": {"rateLimit": {"interval": {"min": 5}, "max": 2, "delayAfter": 1}}}
    app = make_admin_app(tmp_path, config=config)
    for api in make_api(app, database_url(backend, app)):
        register_admin(api.client)
        wrong = {"email": ADMIN_EMAIL, "password": "Wrong-pass1"}
        statuses = [api.post("/admin/api/login", wrong).status_code for _ in range(3)]
        assert statuses == [400, 400, 429]
        r = api.post("/admin/api/login", wrong)
        assert r.headers["x-ratelimit-limit"] == "2"
        # the content API's sign-in keeps its own limits
        r = api.post("/api/auth/local", {"identifier": "x@example.com", "password": "nope"})
        assert r.status_code == 400 and r.headers["x-ratelimit-limit"] == "10"

    off = make_admin_app(tmp_path, "off", config={"admin": {"rateLimit": {"enabled": False}}})
    for api in make_api(off, database_url(backend, off)):
        register_admin(api.client)
        for _ in range(12):
            r = api.post("/admin/api/login", {"email": ADMIN_EMAIL, "password": "Wrong-pass1"})
            assert r.status_code == 400 and "x-ratelimit-limit" not in r.headers

    from folio.errors import ConfigError

    bad = make_admin_app(tmp_path, "bad", config={"admin": {"rateLimit": {"max": 0}}})
    with pytest.raises(ConfigError, match=r"rateLimit\.max"):
        build_asgi(load_app(bad, database_url("sqlite", bad)))


def test_profile_changes_and_panel_settings(admin_api: AdminApi) -> None:
    portal = admin_api.client.portal
    assert portal is not None
    admins = admin_api.folio.admins
    other = {"email": "other@example.com", "password": "Other-pass1", "firstname": "O"}
    portal.call(admins.create, other)
    r = admin_api.put("/admin/api/users/me", {"email": "OTHER@example.com"})
    assert r.status_code == 400
    assert r.json()["error"]["details"]["errors"][0]["path"] == ["email"]
    r = admin_api.put("/admin/api/users/me", {"email": "not an address"})
    assert r.status_code == 400
    r = admin_api.put("/admin/api/users/me", {"email": "New@Example.com", "firstname": " Ann "})
    assert r.status_code == 200, r.text
    assert (r.json()["data"]["email"], r.json()["data"]["firstname"]) == ("new@example.com", "Ann")
    assert admin_api.put("/admin/api/users/me", {"firstname": ""}).status_code == 400
    with admin_api.anonymous() as c:
        login(c, "new@example.com")
        assert c.get("/admin/api/users/me").json()["data"]["lastname"] is None

    # the panel's settings per content type (kept as JSON)
    assert portal.call(admins.get_setting, "list:api::article.article") is None
    value = {"columns": ["id", "title"], "sort": "title:ASC", "pageSize": 20}
    portal.call(admins.put_setting, "list:api::article.article", value)
    portal.call(admins.put_setting, "list:api::tag.tag", [1, "two"])
    assert portal.call(admins.get_setting, "list:api::article.article") == value
    portal.call(admins.put_setting, "list:api::article.article", {**value, "pageSize": 50})
    assert portal.call(admins.get_setting, "list:api::article.article")["pageSize"] == 50
    assert portal.call(admins.get_setting, "list:api::tag.tag") == [1, "two"]


def test_the_cli_asks_for_the_password_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    app = make_admin_app(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url("sqlite", app))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    answers = iter(["Typed-pass-1", "Typed-pass-2", "Typed-pass-1", "Typed-pass-1"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    create = [
        "admin",
        "create",
        "--app",
        str(app),
        "--email",
        "tty@example.com",
        "--firstname",
        "T",
    ]
    assert main(create) == 1
    assert "the two passwords differ" in capsys.readouterr().err
    assert main(create) == 0
    for api in make_api(app, database_url("sqlite", app)):
        login(api.client, "tty@example.com", "Typed-pass-1")
