"""Users, sign-in, JWTs, API tokens and their admin API, drafts, populate and filters under
permissions, rate limits, policies and middlewares: what clients observe."""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt as pyjwt
import pytest

from folio.cli.main import main as cli
from tests.api.authapp import (
    admin,
    auth_api,
    bearer,
    make_auth_app,
    register,
    token,
)
from tests.conftest import Api

USER_FIELDS = [
    "id",
    "documentId",
    "username",
    "email",
    "provider",
    "confirmed",
    "blocked",
    "createdAt",
    "updatedAt",
    "publishedAt",
]


@pytest.fixture
def api(backend: str, tmp_path: Path) -> Iterator[Api]:
    yield from auth_api(backend, make_auth_app(tmp_path))


def error(r: Any) -> tuple[int, str, str]:
    body = r.json()
    assert body["data"] is None
    return r.status_code, body["error"]["name"], body["error"]["message"]


# ---------------------------------------------------------------- register and sign in


def test_register_answers_a_jwt_and_the_user(api: Api) -> None:
    r = api.post(
        "/api/auth/local/register",
        {"username": "Alice", "email": "Alice@Example.com", "password": "secret123"},
    )
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"jwt", "user"}
    assert list(body["user"]) == USER_FIELDS
    assert body["user"]["email"] == "alice@example.com"
    assert body["user"]["username"] == "Alice"
    assert body["user"]["confirmed"] is True and body["user"]["blocked"] is False
    payload = pyjwt.decode(body["jwt"], options={"verify_signature": False})
    assert payload["id"] == body["user"]["id"]
    assert payload["exp"] - payload["iat"] == 30 * 86400
    me = api.get("/api/users/me", headers=bearer(body["jwt"]))
    assert me.status_code == 200
    assert me.json() == body["user"]


def test_register_refuses_bad_input_with_the_reference_messages(api: Api) -> None:
    r = api.post("/api/auth/local/register", {})
    assert error(r) == (400, "ValidationError", "3 errors occurred")
    assert [e["path"] for e in r.json()["error"]["details"]["errors"]] == [
        ["email"],
        ["username"],
        ["password"],
    ]
    base = {"username": "bob", "email": "bob@example.com", "password": "secret123"}
    r = api.post("/api/auth/local/register", {**base, "password": "abc"})
    assert error(r) == (400, "ValidationError", "password must be at least 6 characters")
    r = api.post("/api/auth/local/register", {**base, "email": "not-an-email"})
    assert error(r) == (400, "ValidationError", "email must be a valid email")
    r = api.post("/api/auth/local/register", {**base, "role": 1, "foo": 2})
    assert error(r) == (400, "ValidationError", "Invalid parameters: role, foo")
    r = api.post("/api/auth/local/register", {**base, "username": 123})
    assert error(r)[2] == "username must be a `string` type, but the final value was: `123`."
    assert api.post("/api/auth/local/register", base).status_code == 200
    for clash in ({"email": "BOB@example.com", "username": "bob2"}, {"username": "bob"}):
        r = api.post("/api/auth/local/register", {**base, "email": "x@example.com", **clash})
        assert error(r) == (400, "ApplicationError", "Email or Username are already taken")
    r = api.client.post(
        "/api/auth/local/register",
        content=b"not json",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 400


def test_auth_routes_read_json_bodies_only(api: Api) -> None:
    """A body of another content type is no body, as the content API treats it."""
    user = {"username": "dave", "email": "dave@example.com", "password": "secret123"}
    r = api.client.post(
        "/api/auth/local/register",
        content=json.dumps(user).encode(),
        headers={"content-type": "text/plain"},
    )
    assert error(r) == (400, "ValidationError", "3 errors occurred")
    r = api.client.post(
        "/api/auth/local/register",
        content=json.dumps(user).encode(),
        headers={"content-type": "application/json; charset=utf-8"},
    )
    assert r.status_code == 200, r.text
    sign_in = {"identifier": "dave", "password": "secret123"}
    r = api.client.post("/api/auth/local", content=json.dumps(sign_in).encode())
    assert error(r)[:2] == (400, "ValidationError")
    r = api.client.post(
        "/api/auth/local",
        content=json.dumps(sign_in).encode(),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 200, r.text


def test_sign_in_by_username_or_email_without_telling_which_part_was_wrong(api: Api) -> None:
    user = register(api, "carol")["user"]
    for identifier in ("carol", "CAROL@example.com"):
        r = api.post("/api/auth/local", {"identifier": identifier, "password": "secret123"})
        assert r.status_code == 200, r.text
        assert r.json()["user"] == user
    wrong = api.post("/api/auth/local", {"identifier": "carol", "password": "nope-nope"})
    unknown = api.post("/api/auth/local", {"identifier": "nobody", "password": "secret123"})
    assert (
        error(wrong) == error(unknown) == (400, "ValidationError", "Invalid identifier or password")
    )
    assert (
        api.post("/api/auth/local", {"identifier": "Carol", "password": "secret123"}).status_code
        == 400
    )
    r = api.post("/api/auth/local", {})
    assert error(r) == (400, "ValidationError", "2 errors occurred")
    stored = api.folio.db.dialect  # the password is stored hashed, never in clear
    assert stored
    full = token(api, "full-access")
    api.put(f"/api/users/{user['id']}", {"blocked": True}, headers=bearer(full))
    r = api.post("/api/auth/local", {"identifier": "carol", "password": "secret123"})
    assert error(r) == (
        400,
        "ApplicationError",
        "Your account has been blocked by an administrator",
    )


def test_bad_credentials_are_401_and_a_malformed_header_too(api: Api) -> None:
    session = register(api, "dave")["jwt"]
    head, payload, sig = session.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["id"] = 999
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    secret = api.folio.jwt.secret
    expired = pyjwt.encode({"id": 1, "iat": 1, "exp": 2}, secret, algorithm="HS256")
    missing_user = pyjwt.encode(
        {"id": 999, "iat": int(time.time()), "exp": int(time.time()) + 60},
        secret,
        algorithm="HS256",
    )
    for header in (f"Bearer {head}.{forged}.{sig}", f"Bearer {expired}", "Bearer garbage"):
        r = api.get("/api/articles", headers={"Authorization": header})
        assert error(r) == (401, "UnauthorizedError", "Missing or invalid credentials"), header
    r = api.get("/api/articles", headers=bearer(missing_user))
    assert error(r) == (401, "UnauthorizedError", "Invalid credentials")
    for header in ("Token x", "Bearer", "Bearer a b", "Basic YTpi"):
        r = api.get("/api/articles", headers={"Authorization": header})
        assert r.status_code == 401, header
    assert (
        api.get("/api/articles", headers={"Authorization": f"bearer {session}"}).status_code == 200
    )
    assert api.get("/api/articles").status_code == 200


def test_users_me_needs_a_user(api: Api) -> None:
    assert error(api.get("/api/users/me")) == (403, "ForbiddenError", "Forbidden")
    full = token(api, "full-access")
    assert error(api.get("/api/users/me", headers=bearer(full))) == (
        401,
        "UnauthorizedError",
        "Unauthorized",
    )
    assert api.get("/api/users/me", headers=bearer(token(api, "read-only"))).status_code == 403


# ---------------------------------------------------------------- account routes


def test_change_password(api: Api) -> None:
    session = register(api, "erin")["jwt"]
    h = bearer(session)
    body = {"currentPassword": "secret123", "password": "newpass99", "passwordConfirmation": "x"}
    r = api.post("/api/auth/change-password", body, headers=h)
    assert error(r) == (400, "ValidationError", "Passwords do not match")
    r = api.post(
        "/api/auth/change-password",
        {**body, "currentPassword": "wrong-one", "passwordConfirmation": "newpass99"},
        headers=h,
    )
    assert error(r) == (400, "ValidationError", "The provided current password is invalid")
    same = {
        "currentPassword": "secret123",
        "password": "secret123",
        "passwordConfirmation": "secret123",
    }
    r = api.post("/api/auth/change-password", same, headers=h)
    assert error(r)[2] == "Your new password must be different than your current password"
    r = api.post(
        "/api/auth/change-password", {**body, "passwordConfirmation": "newpass99"}, headers=h
    )
    assert r.status_code == 200, r.text
    assert set(r.json()) == {"jwt", "user"}
    assert (
        api.post("/api/auth/local", {"identifier": "erin", "password": "newpass99"}).status_code
        == 200
    )
    assert (
        api.post("/api/auth/local", {"identifier": "erin", "password": "secret123"}).status_code
        == 400
    )
    assert api.post("/api/auth/change-password", body).status_code == 403


def test_forgot_and_reset_password_by_mailed_code(api: Api) -> None:
    register(api, "frank")
    sent = api.folio.mailer.sent  # type: ignore[attr-defined]
    assert api.post("/api/auth/forgot-password", {"email": "nobody@example.com"}).json() == {
        "ok": True
    }
    assert sent == []
    assert api.post("/api/auth/forgot-password", {"email": "FRANK@example.com"}).json() == {
        "ok": True
    }
    to, _, text = sent[-1]
    assert to == "frank@example.com"
    code = re.findall(r"[0-9a-f]{128}", text)[0]
    bad = {"code": "nope", "password": "another1", "passwordConfirmation": "another1"}
    assert error(api.post("/api/auth/reset-password", bad)) == (
        400,
        "ValidationError",
        "Incorrect code provided",
    )
    r = api.post("/api/auth/reset-password", {**bad, "code": code})
    assert r.status_code == 200, r.text
    assert r.json()["user"]["username"] == "frank"
    assert (
        api.post("/api/auth/local", {"identifier": "frank", "password": "another1"}).status_code
        == 200
    )
    assert api.post("/api/auth/reset-password", {**bad, "code": code}).status_code == 400  # used


def test_email_confirmation_when_enabled(backend: str, tmp_path: Path) -> None:
    plugins = {"users-permissions": {"config": {"emailConfirmation": True}}}
    for api in auth_api(backend, make_auth_app(tmp_path, plugins)):
        r = api.post(
            "/api/auth/local/register",
            {"username": "gina", "email": "g@example.com", "password": "secret123"},
        )
        assert r.status_code == 200
        assert set(r.json()) == {"user"} and r.json()["user"]["confirmed"] is False
        login = {"identifier": "gina", "password": "secret123"}
        assert error(api.post("/api/auth/local", login))[2] == "Your account email is not confirmed"
        code = api.folio.mailer.sent[-1][2].rsplit(" ", 1)[-1]  # type: ignore[attr-defined]
        assert api.get("/api/auth/email-confirmation?confirmation=bad").status_code == 400
        r = api.get(f"/api/auth/email-confirmation?confirmation={code}", follow_redirects=False)
        assert r.status_code == 302
        assert api.post("/api/auth/local", login).status_code == 200


def test_sign_in_routes_are_rate_limited(backend: str, tmp_path: Path) -> None:
    plugins = {"users-permissions": {"config": {"ratelimit": {"interval": 60000, "max": 3}}}}
    for api in auth_api(backend, make_auth_app(tmp_path, plugins)):
        login = {"identifier": "x", "password": "whatever1"}
        seen = [api.post("/api/auth/local", login) for _ in range(4)]
        assert [r.status_code for r in seen] == [400, 400, 400, 429]
        assert error(seen[-1]) == (
            429,
            "RateLimitError",
            "Too many requests, please try again later.",
        )
        assert seen[0].headers["X-RateLimit-Limit"] == "3"
        assert [r.headers["X-RateLimit-Remaining"] for r in seen] == ["2", "1", "0", "0"]
        # another route has its own window; register counts per email
        assert api.post("/api/auth/forgot-password", {"email": "a@example.com"}).status_code == 200


# ---------------------------------------------------------------- the users API


def test_users_api_with_a_full_access_token(api: Api) -> None:
    full = bearer(token(api, "full-access"))
    for name in ("henry", "ivan", "judy"):
        register(api, name)
    r = api.get("/api/users?sort=username:desc", headers=full)
    assert r.status_code == 200
    assert [u["username"] for u in r.json()] == ["judy", "ivan", "henry"]
    assert all("password" not in u for u in r.json())
    r = api.get("/api/users?sort=username&start=1&limit=1", headers=full)
    assert [u["username"] for u in r.json()] == ["ivan"]
    assert api.get("/api/users/count", headers=full).json() == 3
    r = api.get("/api/users?filters[password][$eq]=x", headers=full)
    assert error(r) == (400, "ValidationError", "Invalid key password")
    assert api.get("/api/users?sort=password", headers=full).status_code == 400
    r = api.post(
        "/api/users",
        {"username": "kate", "email": "Kate@Example.com", "password": "secret123"},
        headers=full,
    )
    assert r.status_code == 201, r.text
    kate = r.json()
    assert kate["email"] == "kate@example.com" and kate["confirmed"] is False
    r = api.get(f"/api/users/{kate['id']}?populate=role", headers=full)
    assert r.json()["role"]["type"] == "authenticated"
    r = api.put(f"/api/users/{kate['id']}", {"username": "henry"}, headers=full)
    assert error(r) == (400, "ApplicationError", "Username already taken")
    r = api.put(f"/api/users/{kate['id']}", {"username": "katherine"}, headers=full)
    assert r.json()["username"] == "katherine"
    assert api.delete(f"/api/users/{kate['id']}", headers=full).json()["username"] == "katherine"
    assert api.get(f"/api/users/{kate['id']}", headers=full).status_code == 404


def test_role_is_populated_only_with_the_role_find_permission(api: Api, tmp_path: Path) -> None:
    h = bearer(register(api, "lena")["jwt"])
    assert "role" not in api.get("/api/users/me?populate=role", headers=h).json()
    app = Path(api.folio.settings.app_dir)
    assert (
        cli(
            [
                "permissions",
                "grant",
                "authenticated",
                "plugin::users-permissions.role.find",
                "--app",
                str(app),
            ]
        )
        == 0
    )
    time.sleep(1.1)  # the running app re-reads the file within a second
    assert (
        api.get("/api/users/me?populate=role", headers=h).json()["role"]["type"] == "authenticated"
    )
    assert (
        cli(
            [
                "permissions",
                "revoke",
                "authenticated",
                "plugin::users-permissions.role.find",
                "--app",
                str(app),
            ]
        )
        == 0
    )
    time.sleep(1.1)
    assert "role" not in api.get("/api/users/me?populate=role", headers=h).json()


# ---------------------------------------------------------------- API tokens


def test_token_admin_api(api: Api) -> None:
    assert admin(api, "GET", "/admin/api-tokens").status_code == 200
    assert api.get("/admin/api-tokens").status_code == 401
    assert api.get("/admin/api-tokens", headers=bearer("wrong")).status_code == 401
    r = admin(
        api,
        "POST",
        "/admin/api-tokens",
        {"name": "site", "type": "read-only", "lifespan": 604800000},
    )
    assert r.status_code == 201
    created = r.json()["data"]
    assert re.fullmatch(r"[0-9a-f]{256}", created["accessKey"])
    assert created["lifespan"] == "604800000" and created["expiresAt"] is not None
    assert created["kind"] == "content-api" and created["permissions"] == []
    listed = admin(api, "GET", "/admin/api-tokens").json()["data"]
    assert [t["name"] for t in listed] == ["site"] and "accessKey" not in listed[0]
    checks = [
        ({"name": "site"}, "ApplicationError", "Name already taken"),
        (
            {"name": "x", "type": "bogus"},
            "ValidationError",
            "type must be one of the following values: read-only, full-access, custom",
        ),
        (
            {"name": "x", "lifespan": 12345},
            "ValidationError",
            "lifespan must be one of the following values: , 604800000, 2592000000, 7776000000",
        ),
        (
            {"name": "x", "type": "custom"},
            "ValidationError",
            "Missing permissions attribute for custom token",
        ),
        (
            {"name": "x", "type": "custom", "permissions": ["api::article.article.nope"]},
            "ValidationError",
            "Unknown permissions provided: api::article.article.nope",
        ),
        (
            {"name": "x", "type": "read-only", "permissions": ["api::article.article.find"]},
            "ValidationError",
            "Non-custom tokens should not reference permissions",
        ),
    ]
    for body, name, message in checks:
        assert error(admin(api, "POST", "/admin/api-tokens", body)) == (400, name, message), body
    key = created["accessKey"]
    assert api.get("/api/articles", headers=bearer(key)).status_code == 200
    r = admin(api, "POST", f"/admin/api-tokens/{created['id']}/regenerate")
    assert r.status_code == 201
    fresh = r.json()["data"]["accessKey"]
    assert api.get("/api/articles", headers=bearer(key)).status_code == 401
    assert api.get("/api/articles", headers=bearer(fresh)).status_code == 200
    r = admin(
        api,
        "PUT",
        f"/admin/api-tokens/{created['id']}",
        {"type": "custom", "permissions": ["api::tag.tag.find"]},
    )
    assert r.json()["data"]["permissions"] == ["api::tag.tag.find"]
    assert api.get("/api/articles", headers=bearer(fresh)).status_code == 403
    assert (
        admin(api, "DELETE", f"/admin/api-tokens/{created['id']}").json()["data"]["name"] == "site"
    )
    assert api.get("/api/articles", headers=bearer(fresh)).status_code == 401
    assert admin(api, "DELETE", f"/admin/api-tokens/{created['id']}").json() == {"data": None}
    assert admin(api, "GET", "/admin/api-tokens/999").status_code == 404


def test_tokens_are_stored_hashed(api: Api) -> None:
    key = token(api, "full-access")
    rows = api.client.portal.call(api.folio.tokens.lookup, key)  # type: ignore[union-attr]
    assert rows is not None and rows.type == "full-access"
    from folio.store.program import Program, query

    def program() -> Program:
        got = yield query("SELECT access_key FROM api_tokens")
        return got

    stored = api.client.portal.call(api.folio.db.read, program())  # type: ignore[union-attr]
    assert [r[0] for r in stored] == [api.folio.tokens.digest(key)]
    assert key not in str(stored)


# ---------------------------------------------------------------- what a reader may see


def test_drafts_need_more_than_find(api: Api) -> None:
    full = bearer(token(api, "full-access"))
    api.post("/api/articles?status=draft", {"data": {"title": "Secret plan"}}, headers=full)
    assert error(api.get("/api/articles?status=draft")) == (403, "ForbiddenError", "Forbidden")
    r = api.get("/api/articles?status=draft", headers=bearer(token(api, "read-only")))
    assert [d["title"] for d in r.json()["data"]] == ["Secret plan"]
    user = bearer(register(api, "mike")["jwt"])  # the authenticated role may update articles
    assert api.get("/api/articles?status=draft", headers=user).status_code == 200
    assert api.get("/api/articles?status=foo").status_code == 400
    assert api.get("/api/articles").json()["data"] == []


def test_relations_without_find_are_left_out_of_populate_and_refused_in_filters(api: Api) -> None:
    full = bearer(token(api, "full-access"))
    cat = api.post("/api/categories", {"data": {"name": "News"}}, headers=full).json()["data"]
    api.post(
        "/api/articles",
        {"data": {"title": "Rel", "category": cat["documentId"], "seo": {"metaTitle": "m"}}},
        headers=full,
    )
    custom = bearer(token(api, "custom", ["api::article.article.find"]))
    doc = api.get("/api/articles?populate=category", headers=custom).json()["data"][0]
    assert "category" not in doc
    doc = api.get("/api/articles?populate=*", headers=custom).json()["data"][0]
    assert "category" not in doc and "tags" not in doc and "seo" in doc and "cover" in doc
    r = api.get("/api/articles?filters[category][name][$eq]=News", headers=custom)
    assert error(r) == (400, "ValidationError", "Invalid key category")
    assert r.json()["error"]["details"]["param"] == "filters"
    r = api.get("/api/articles?sort=category.name", headers=custom)
    assert error(r) == (400, "ValidationError", "Invalid key category")
    public = api.get("/api/articles?populate=category&filters[category][name][$eq]=News").json()
    assert public["data"][0]["category"]["name"] == "News"
    # the same URL, asked by callers who see different relations, in turn
    for headers, shown in ((custom, False), ({}, True), (full, True), (custom, False)):
        doc = api.get("/api/articles?populate=category", headers=headers).json()["data"][0]
        assert ("category" in doc) is shown


# ---------------------------------------------------------------- policies and middlewares

INDEX = """
calls = []


def register(app):
    def only_alice(ctx, config, app):
        calls.append((ctx.action, ctx.principal.kind))
        return ctx.principal.user_id is not None

    app.hooks.policies["global::only-users"] = only_alice

    async def stamp(request, call_next):
        response = await call_next(request)
        response.headers["X-Stamped"] = request.url.path
        return response

    app.hooks.route("api::article.article.find", policies=["only-users"], middlewares=[stamp])
"""

WEEKDAY = """
def policy(ctx, config, app):
    return config.get("open", False)
"""


def test_policies_and_middlewares_on_generated_routes(backend: str, tmp_path: Path) -> None:
    app = make_auth_app(tmp_path)
    (app / "src" / "index.py").write_text(INDEX)
    (app / "src" / "api" / "tag" / "policies").mkdir()
    (app / "src" / "api" / "tag" / "policies" / "is-open.py").write_text(WEEKDAY)
    routes = {
        "config": {
            "find": {"policies": [{"name": "is-open", "config": {"open": True}}]},
            "create": {"auth": False, "policies": ["api::tag.is-open"]},
        }
    }
    (app / "src" / "api" / "tag" / "routes").mkdir()
    (app / "src" / "api" / "tag" / "routes" / "tag.json").write_text(json.dumps(routes))
    for api in auth_api(backend, app):
        r = api.get("/api/articles")
        assert error(r) == (403, "PolicyError", "Policy Failed")
        assert "X-Stamped" not in r.headers
        r = api.get("/api/articles", headers=bearer(register(api, "nina")["jwt"]))
        assert r.status_code == 200 and r.headers["X-Stamped"] == "/api/articles"
        assert api.get("/api/tags").status_code == 200
        # auth: false opens create to everyone, but its policy (no config: closed) refuses
        assert error(api.post("/api/tags", {"data": {"name": "t"}}))[1] == "PolicyError"
        import sys

        assert sys.modules["folio_app_index"].calls == [
            ("api::article.article.find", "public"),
            ("api::article.article.find", "user"),
        ]


BROKEN = """
def register(app):
    async def broken(request, call_next):
        raise RuntimeError("secret internals")

    app.hooks.route("api::tag.tag.find", middlewares=[broken])
"""


def test_a_failing_hook_answers_500_without_internals(backend: str, tmp_path: Path) -> None:
    app = make_auth_app(tmp_path)
    (app / "src" / "index.py").write_text(BROKEN)
    for api in auth_api(backend, app):
        r = api.get("/api/tags")
        assert r.status_code == 500
        assert r.json() == {
            "data": None,
            "error": {
                "status": 500,
                "name": "InternalServerError",
                "message": "Internal Server Error",
                "details": {},
            },
        }
        assert "secret" not in r.text
        assert api.get("/api/articles").status_code == 200


def test_an_unknown_policy_stops_start_up(tmp_path: Path) -> None:
    from folio.app import load_app
    from folio.errors import ConfigError

    app = make_auth_app(tmp_path)
    (app / "src" / "api" / "tag" / "routes").mkdir()
    (app / "src" / "api" / "tag" / "routes" / "tag.json").write_text(
        json.dumps({"config": {"find": {"policies": ["nope"]}}})
    )
    with pytest.raises(ConfigError, match="unknown policy 'nope'"):
        load_app(app, f"sqlite:///{tmp_path / 'x.db'}")
