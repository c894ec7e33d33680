"""Rate limits shared by every front-end, process and host: sign-in, registration and the
password routes counted once whether they come through REST or GraphQL; two app instances
on one Redis sharing their counts (the content API's and the admin panel's); a Redis that
cannot be reached failing open or closed as configured, never with a 500, logged once."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from folio.auth.ratelimit import MemoryRateLimiter, RedisRateLimiter
from folio.errors import ConfigError
from tests.api.adminapp import ADMIN_EMAIL, register_admin
from tests.api.authapp import make_auth_app, register
from tests.conftest import Api, database_url, failed, running
from tests.redis_support import REDIS_URL, closed_port, keys_under
from tests.redis_support import prefix as redis_prefix

LOGIN = (
    "mutation($i: String!, $p: String!) { login(input: {identifier: $i, password: $p}) { jwt } }"
)
REGISTER = (
    "mutation($u: String!, $e: String!, $p: String!) "
    "{ register(input: {username: $u, email: $e, password: $p}) { jwt } }"
)
FORGOT = "mutation($e: String!) { forgotPassword(email: $e) { ok } }"


@pytest.fixture
def prefix() -> Iterator[str]:
    with redis_prefix() as name:
        yield name


@pytest.fixture(autouse=True)
def no_redis_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)


def limited_app(
    tmp_path: Path, store: dict[str, Any] | None, max: int = 3, admin: dict[str, Any] | None = None
) -> Path:
    """The access-control app with `max` attempts a minute, counting in `store`
    (server.json `rateLimit`; None: in memory)."""
    app = make_auth_app(
        tmp_path, {"users-permissions": {"config": {"ratelimit": {"interval": 60000, "max": max}}}}
    )
    if store is not None:
        (app / "config" / "server.json").write_text(json.dumps({"rateLimit": store}))
    if admin is not None:
        (app / "config" / "admin.json").write_text(json.dumps(admin))
    return app


def graphql(api: Api, query: str, **variables: Any) -> Any:
    return api.post("/graphql", {"query": query, "variables": variables})


def graphql_error(r: Any) -> str:
    """The error name of a mutation's answer (GraphQL answers 200 with `errors`)."""
    assert r.status_code == 200, r.text
    errors = r.json().get("errors")
    assert errors, r.text
    return str(errors[0]["extensions"]["error"]["name"])


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_rest_and_graphql_attempts_count_toward_one_limit(
    store: str, backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    settings = None
    if store == "redis":
        settings = {"redis": REDIS_URL, "prefix": request.getfixturevalue("prefix")}
    app = limited_app(tmp_path, settings, max=3)
    with running(app, database_url(backend, app)) as api:
        kind = RedisRateLimiter if store == "redis" else MemoryRateLimiter
        assert isinstance(api.folio.rate_limiter, kind)
        wrong = {"identifier": "nobody", "password": "wrong-pass"}
        r = api.post("/api/auth/local", wrong)
        assert failed(r)["message"] == "Invalid identifier or password"
        assert r.headers["X-RateLimit-Remaining"] == "2"
        assert graphql_error(graphql(api, LOGIN, i="nobody", p="wrong-pass")) == "ValidationError"
        r = api.post("/api/auth/local", wrong)
        assert r.status_code == 400 and r.headers["X-RateLimit-Remaining"] == "0"
        # the fourth attempt, whichever way it comes, is one too many
        r = graphql(api, LOGIN, i="nobody", p="wrong-pass")
        assert graphql_error(r) == "RateLimitError"
        assert r.json()["errors"][0]["message"] == "Too many requests, please try again later."
        r = api.post("/api/auth/local", {"identifier": "other", "password": "wrong-pass"})
        error = failed(r, 429, "RateLimitError")
        assert error["message"] == "Too many requests, please try again later."

        # sign-up and the forgotten password: counted per address given, both ways
        body = {"username": "carol", "email": "carol@example.com", "password": "secret123"}
        assert api.post("/api/auth/local/register", body).status_code == 200
        r = graphql(api, REGISTER, u="carol", e="carol@example.com", p="secret123")
        assert graphql_error(r) == "ApplicationError"  # taken
        assert api.post("/api/auth/local/register", body).status_code == 400
        r = graphql(api, REGISTER, u="carol", e="CAROL@example.com", p="secret123")
        assert graphql_error(r) == "RateLimitError"
        for _ in range(3):
            assert graphql(api, FORGOT, e="dave@example.com").json()["data"] is not None
        r = api.post("/api/auth/forgot-password", {"email": "dave@example.com"})
        failed(r, 429, "RateLimitError")


def test_two_app_instances_on_one_redis_share_their_counts(
    backend: str, tmp_path: Path, prefix: str
) -> None:
    admin = {"auth": {"keys": ["k" * 32]}, "rateLimit": {"max": 2}}
    app = limited_app(tmp_path, {"redis": REDIS_URL, "prefix": prefix}, max=3, admin=admin)
    url = database_url(backend, app)
    with ExitStack() as stack:
        one, two = (stack.enter_context(running(app, url)) for _ in range(2))
        assert one.folio is not two.folio
        register(one, "erin")
        wrong = {"identifier": "erin", "password": "wrong-pass"}
        seen = [api.post("/api/auth/local", wrong).status_code for api in (one, two, one, two)]
        assert seen == [400, 400, 400, 429]
        # and through GraphQL, on either instance
        r = graphql(two, LOGIN, i="ERIN", p="secret123")
        assert graphql_error(r) == "RateLimitError"

        # the admin panel's sign-in limiter counts in the same store, apart from the above
        register_admin(one.client)
        bad = {"email": ADMIN_EMAIL, "password": "Wrong-pass1"}
        seen = [api.post("/admin/api/login", bad).status_code for api in (two, one, two)]
        assert seen == [400, 400, 429]
    names = {key.decode().split(":")[2] for key in keys_under(prefix)}
    assert names == {"users", "admin"}


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "folio.ratelimit" and r.levelno >= logging.WARNING
    ]


def test_an_unreachable_redis_fails_open(
    backend: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Requests go through (each process counting alone meanwhile), logged once."""
    caplog.set_level(logging.INFO, "folio.ratelimit")
    down = f"redis://127.0.0.1:{closed_port()}/0"
    app = limited_app(tmp_path, {"redis": down, "retryInterval": 1}, max=5)
    with running(app, database_url(backend, app)) as api:
        jwt = register(api, "frank")["jwt"]
        assert jwt
        seen = []
        for i in range(5):
            body = {"identifier": f"frank{i}", "password": "wrong-pass"}
            seen.append(api.post("/api/auth/local", body).status_code)
            seen.append(graphql(api, LOGIN, i=f"frank{i}", p="wrong-pass").status_code)
        # GraphQL answers 200 with its errors: the fifth attempt is the last let through
        assert seen == [400, 200] * 3 + [429, 200] * 2
        r = graphql(api, LOGIN, i="frank", p="secret123")
        assert graphql_error(r) == "RateLimitError"
        assert api.get("/api/articles").status_code == 200  # the rest is untouched
    lines = _lines(caplog)
    assert len(lines) == 1, lines
    assert "unreachable" in lines[0] and "let through" in lines[0]


def test_an_unreachable_redis_fails_closed_when_configured(
    backend: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Account actions are refused with 503 and Retry-After (REST and GraphQL alike), the
    rest of the API answers as ever, and the outage is logged once."""
    caplog.set_level(logging.INFO, "folio.ratelimit")
    down = f"redis://127.0.0.1:{closed_port()}/0"
    app = limited_app(tmp_path, {"redis": down, "failMode": "closed", "retryInterval": 2000})
    with running(app, database_url(backend, app)) as api:
        for _ in range(10):
            r = api.post("/api/auth/local", {"identifier": "gina", "password": "wrong-pass"})
            error = failed(r, 503, "ServiceUnavailableError")
            assert "try again later" in error["message"]
            assert r.headers["Retry-After"] == "2"
        body = {"username": "gina", "email": "gina@example.com", "password": "secret123"}
        failed(api.post("/api/auth/local/register", body), 503, "ServiceUnavailableError")
        r = graphql(api, LOGIN, i="gina", p="wrong-pass")
        assert r.status_code == 503 and r.headers["Retry-After"] == "2"
        assert r.json()["errors"][0]["extensions"]["error"]["name"] == "ServiceUnavailableError"
        r = api.get("/api/auth/email-confirmation", params={"confirmation": "x"})
        failed(r, 503, "ServiceUnavailableError")
        assert api.get("/api/articles").status_code == 200
    lines = _lines(caplog)
    assert len(lines) == 1, lines
    assert "refused with 503" in lines[0]


def test_the_redis_settings_are_read_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: str
) -> None:
    from folio.app import load_app

    app = limited_app(tmp_path, None)
    url = database_url("sqlite", app)
    # REDIS_URL alone puts the limiters in Redis
    monkeypatch.setenv("REDIS_URL", REDIS_URL)
    folio = load_app(app, url)
    assert isinstance(folio.rate_limiter, RedisRateLimiter)
    monkeypatch.setenv("REDIS_URL", "localhost:6379")
    with pytest.raises(ConfigError, match="REDIS_URL must be a Redis URL"):
        load_app(app, url)
    monkeypatch.delenv("REDIS_URL")
    server = app / "config" / "server.json"
    server.write_text(json.dumps({"rateLimit": {"redis": REDIS_URL, "failmode": "closed"}}))
    with pytest.raises(ConfigError, match="did you mean `failMode`"):
        load_app(app, url)
    server.write_text(json.dumps({"rateLimit": {"redis": REDIS_URL, "prefix": prefix}}))
    with running(app, url) as api:
        assert api.post("/api/auth/local", {"identifier": "h", "password": "x"}).status_code == 400
    assert len(keys_under(prefix)) == 2  # the address's window and the account's
