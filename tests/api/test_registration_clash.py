"""One name or address is one user's: it may not be one user's username and another's
email, even when the two writes race (sign-ups, the users API, updates, the CLI); checked
in-process and against a real server process."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from folio.app import load_app
from folio.cli.main import main
from folio.http.app import build_asgi
from tests.api.authapp import ADMIN_KEY, bearer, make_auth_app
from tests.api.serving import CLEARED, serving
from tests.conftest import database_url

T = TypeVar("T")
PAIRS = 20
TAKEN = "Email or Username are already taken"
# the users API says which one is taken
EITHER = {"Email already taken", "Username already taken"}
LIMITS = {"users-permissions": {"config": {"ratelimit": {"max": 1000}}}}


def pair(i: int) -> list[dict[str, str]]:
    """Two accounts that claim one address: as one's username, as the other's email."""
    return [
        {"username": f"v{i}@x.io", "email": f"att{i}@x.io", "password": "secret123"},
        {"username": f"victim{i}", "email": f"v{i}@x.io", "password": "secret456"},
    ]


def run(app_dir: Path, url: str, scenario: Callable[[httpx.AsyncClient], Awaitable[T]]) -> T:
    """`scenario` against the app served in-process (requests sent together really are
    handled together: one event loop, the database's own concurrency)."""

    async def serve() -> T:
        app = build_asgi(load_app(app_dir, url))
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                return await scenario(client)

    return asyncio.run(serve())


async def full_access(client: httpx.AsyncClient) -> dict[str, str]:
    body = {"name": "full", "type": "full-access"}
    r = await client.post("/admin/api-tokens", json=body, headers=bearer(ADMIN_KEY))
    assert r.status_code == 201, r.text
    return bearer(r.json()["data"]["accessKey"])


async def holders(client: httpx.AsyncClient, auth: dict[str, str], value: str) -> int:
    """How many users answer to `value`, by username or email."""
    r = await client.get("/api/users", headers=auth)
    return sum(1 for u in r.json() if value in (u["username"], u["email"]))


def one_wins(results: list[tuple[int, Any]], won: int, messages: set[str]) -> list[int]:
    """Of each pair of answers, exactly one succeeded and the other was refused with one
    of `messages`; the index (0 or 1) of each pair's winner."""
    winners = []
    for i in range(0, len(results), 2):
        got = results[i : i + 2]
        assert sorted(status for status, _ in got) == [won, 400], got
        body = (got[1] if got[0][0] == won else got[0])[1]
        assert body["error"]["name"] == "ApplicationError", body
        assert body["error"]["message"] in messages, body
        winners.append(0 if got[0][0] == won else 1)
    return winners


def test_racing_sign_ups_for_one_address_make_one_account(backend: str, tmp_path: Path) -> None:
    app = make_auth_app(tmp_path, LIMITS)
    url = database_url(backend, app)

    async def scenario(client: httpx.AsyncClient) -> None:
        async def sign_up(body: dict[str, str]) -> tuple[int, Any]:
            r = await client.post("/api/auth/local/register", json=body)
            return r.status_code, r.json()

        bodies = [body for i in range(PAIRS) for body in pair(i)]
        results = await asyncio.gather(*(sign_up(b) for b in bodies))
        winners = one_wins(list(results), 200, {TAKEN})
        auth = await full_access(client)
        for i, winner in enumerate(winners):
            assert await holders(client, auth, f"v{i}@x.io") == 1
            # the address signs in its one account, with that account's password
            account = pair(i)[winner]
            r = await client.post(
                "/api/auth/local",
                json={"identifier": f"v{i}@x.io", "password": account["password"]},
            )
            assert r.status_code == 200, r.text
            assert r.json()["user"]["username"] == account["username"]

    run(app, url, scenario)


def test_racing_creates_and_updates_of_the_users_api(backend: str, tmp_path: Path) -> None:
    app = make_auth_app(tmp_path, LIMITS)
    url = database_url(backend, app)

    async def scenario(client: httpx.AsyncClient) -> None:
        auth = await full_access(client)

        async def call(method: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
            r = await client.request(method, path, json=body, headers=auth)
            return r.status_code, r.json()

        creates = [call("POST", "/api/users", b) for i in range(PAIRS) for b in pair(i)]
        one_wins(list(await asyncio.gather(*creates)), 201, EITHER)
        for i in range(PAIRS):
            assert await holders(client, auth, f"v{i}@x.io") == 1
        # an update that takes another user's address as its name races a sign-up of it
        ids = []
        for i in range(PAIRS):
            status, body = await call(
                "POST",
                "/api/users",
                {"username": f"plain{i}", "email": f"plain{i}@x.io", "password": "secret123"},
            )
            assert status == 201, body
            ids.append(body["id"])
        racing = []
        for i, user_id in enumerate(ids):
            racing.append(call("PUT", f"/api/users/{user_id}", {"username": f"w{i}@x.io"}))
            new = {"username": f"other{i}", "email": f"W{i}@x.io", "password": "secret123"}
            racing.append(call("POST", "/api/users", new))
        results = list(await asyncio.gather(*racing))
        for i in range(PAIRS):
            update, create = results[2 * i : 2 * i + 2]
            assert sorted([update[0], create[0]]) in ([200, 400], [201, 400]), (update, create)
            loser = update if update[0] == 400 else create
            assert loser[1]["error"]["message"] in EITHER
            assert await holders(client, auth, f"w{i}@x.io") == 1
        # one's own name and address stay one's own: an update that keeps them passes
        status, body = await call(
            "PUT", f"/api/users/{ids[0]}", {"username": "plain0", "email": "PLAIN0@x.io"}
        )
        assert status == 200, body

    run(app, url, scenario)


def test_a_name_taken_as_an_address_is_refused_whatever_its_case(
    backend: str, tmp_path: Path
) -> None:
    """Sign-in looks addresses up without case: `V@x.io` as a name would answer for the
    account whose address is `v@x.io`, so it is taken too."""
    app = make_auth_app(tmp_path, LIMITS)
    url = database_url(backend, app)

    async def scenario(client: httpx.AsyncClient) -> list[tuple[int, Any]]:
        out = []
        for body in (
            {"username": "first", "email": "v@x.io", "password": "secret123"},
            {"username": "V@x.io", "email": "second@x.io", "password": "secret123"},
            {"username": "third", "email": "FIRST@x.io", "password": "secret123"},
            {"username": "Third@x.io", "email": "third@x.io", "password": "secret123"},
        ):
            r = await client.post("/api/auth/local/register", json=body)
            out.append((r.status_code, r.json()))
        return out

    results = run(app, url, scenario)
    assert [status for status, _ in results] == [200, 400, 200, 200]
    assert results[1][1]["error"]["message"] == TAKEN


def test_the_cli_respects_the_rule(
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = make_auth_app(tmp_path, LIMITS)
    monkeypatch.setenv("DATABASE_URL", database_url(backend, app))

    def create(username: str, email: str) -> int:
        args = ["user", "create", "--username", username, "--email", email]
        return main([*args, "--password", "secret123", "--app", str(app)])

    assert create("victim", "v@x.io") == 0
    assert create("v@x.io", "att@x.io") == 1
    assert "folio: Username already taken" in capsys.readouterr().err
    assert create("someone", "victim@x.io") == 0  # a name that merely looks alike


def test_racing_sign_ups_against_a_server_process(backend: str, tmp_path: Path) -> None:
    app = make_auth_app(tmp_path, LIMITS)
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env["DATABASE_URL"] = database_url(backend, app)

    def sign_up(base: str, body: dict[str, str]) -> tuple[int, Any]:
        request = urllib.request.Request(
            base + "/api/auth/local/register",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return int(r.status), json.loads(r.read())
        except urllib.error.HTTPError as e:
            return int(e.code), json.loads(e.read())

    bodies = [body for i in range(PAIRS) for body in pair(i)]
    with serving(app, env=env) as base, ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(lambda body: sign_up(base, body), bodies))
    one_wins(results, 200, {TAKEN})
