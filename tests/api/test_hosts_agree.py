"""Hosts that agree: two apps (two app directories, as two hosts have) on one database, each
served in-process with its own event loop, each with its own caches. A change of
configuration held in the database made through one (an API token revoked, a user blocked,
a webhook made, a panel setting saved) is in force through the other without waiting for
its caches to expire: the credentials' cache is set to an hour here, so only the change
message can make the second app see the change in the tests' time. Every carrier is tried:
PostgreSQL's notifications, the polled row (SQLite's worker processes, MySQL), Redis
pub/sub.

The read memo keeps rows while the database's committed state is the same; a write made
through another app must be seen by the first app's next read at once."""

from __future__ import annotations

import json
import secrets
import shutil
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.api.adminapp import CSRF_HEADER, register_admin
from tests.api.authapp import ADMIN_KEY, bearer, reference_permissions
from tests.conftest import FIXTURES, MYSQL_URL, PG_URL, Api, database_url, make_api

JWT_SECRET = "hosts-jwt-secret-" + "a" * 32
TOKEN_SALT = "hosts-token-salt-" + "b" * 32
# long enough that only a change message makes a host drop a credential in time
CACHE_SECONDS = 3600
# the tests' patience (a change is in force within a second; a busy machine is slower)
DEADLINE = 20.0
REDIS = ("127.0.0.1", 6379)


def redis_up() -> bool:
    try:
        with socket.create_connection(REDIS, timeout=1):
            return True
    except OSError:
        return False


# (database, carrier): PostgreSQL with each carrier; SQLite and MySQL (no notifications)
# through the row, and MySQL through Redis
CASES = [
    ("sqlite", "poll"),
    *([("postgres", "notify"), ("postgres", "poll"), ("postgres", "redis")] if PG_URL else []),
    *([("mysql", "poll"), ("mysql", "redis")] if MYSQL_URL else []),
]


def host_app(tmp_path: Path, name: str, via: str, channel: str) -> Path:
    """An app directory of one host: the blog's models, the reference's permissions, the
    secrets every host shares, and the change carrier."""
    app = tmp_path / name
    shutil.copytree(FIXTURES / "blog", app)
    config = app / "config"
    (config / "permissions.json").write_text(json.dumps(reference_permissions()))
    admin = {"auth": {"keys": [ADMIN_KEY]}, "apiToken": {"salt": TOKEN_SALT}}
    (config / "admin.json").write_text(json.dumps(admin))
    up = {"jwtSecret": JWT_SECRET, "cacheSeconds": CACHE_SECONDS}
    (config / "plugins.json").write_text(json.dumps({"users-permissions": {"config": up}}))
    server: dict[str, Any] = {"broadcast": {"via": via, "pollMilliseconds": 100}}
    if via == "redis":
        server["broadcast"]["channel"] = channel
    (config / "server.json").write_text(json.dumps(server))
    return app


@contextmanager
def two_hosts(tmp_path: Path, backend: str, via: str) -> Iterator[tuple[Api, Api]]:
    if via == "redis":
        if not redis_up():
            pytest.skip("no Redis server on 127.0.0.1:6379")
        # the Redis server every host shares (its rate limits count there too)
        patch = pytest.MonkeyPatch()
        patch.setenv("REDIS_URL", f"redis://{REDIS[0]}:{REDIS[1]}/0")
    else:
        patch = pytest.MonkeyPatch()
        patch.delenv("REDIS_URL", raising=False)
    channel = f"folio:test:{secrets.token_hex(4)}"
    first = host_app(tmp_path, "host-a", via, channel)
    second = host_app(tmp_path, "host-b", via, channel)
    url = database_url(backend, first)  # the second host uses the first one's database
    with ExitStack() as stack:
        stack.callback(patch.undo)
        a = stack.enter_context(contextmanager(make_api)(first, url, open=False))
        b = stack.enter_context(contextmanager(make_api)(second, url, open=False))
        assert a.folio.broadcast.kind == via and b.folio.broadcast.kind == via
        yield a, b


def eventually(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"not in time: {what}"
        time.sleep(0.02)


def admin(api: Api, method: str, path: str, body: Any = None) -> Any:
    kw: dict[str, Any] = {"headers": bearer(ADMIN_KEY)}
    if body is not None:
        kw["json"] = body
    return api.client.request(method, path, **kw)


def make_token(api: Api, name: str, type_: str = "read-only") -> tuple[int, str]:
    r = admin(api, "POST", "/admin/api-tokens", {"name": name, "type": type_})
    assert r.status_code == 201, r.text
    return int(r.json()["data"]["id"]), str(r.json()["data"]["accessKey"])


@pytest.mark.parametrize(("backend", "via"), CASES)
def test_a_token_revoked_through_one_host_stops_working_on_the_other(
    tmp_path: Path, backend: str, via: str
) -> None:
    with two_hosts(tmp_path, backend, via) as (a, b):
        token_id, key = make_token(a, "shared")
        # both hosts take it, and keep what it is for the hour of their caches
        assert a.get("/api/articles", headers=bearer(key)).status_code == 200
        assert b.get("/api/articles", headers=bearer(key)).status_code == 200
        r = admin(a, "DELETE", f"/admin/api-tokens/{token_id}")
        assert r.status_code == 200, r.text
        assert a.get("/api/articles", headers=bearer(key)).status_code == 401
        eventually(
            lambda: b.get("/api/articles", headers=bearer(key)).status_code == 401,
            "the other host refuses the revoked token",
        )
        # and the other way round: a token regenerated through the second host
        token_id, key = make_token(b, "second")
        assert a.get("/api/articles", headers=bearer(key)).status_code == 200
        r = admin(b, "POST", f"/admin/api-tokens/{token_id}/regenerate")
        assert r.status_code in (200, 201), r.text
        eventually(
            lambda: a.get("/api/articles", headers=bearer(key)).status_code == 401,
            "the first host refuses the replaced key",
        )


@pytest.mark.parametrize(("backend", "via"), CASES)
def test_a_user_blocked_through_one_host_is_refused_by_the_other(
    tmp_path: Path, backend: str, via: str
) -> None:
    with two_hosts(tmp_path, backend, via) as (a, b):
        _, full = make_token(a, "full", "full-access")
        r = a.post(
            "/api/auth/local/register",
            {"username": "ada", "email": "ada@example.com", "password": "secret123"},
        )
        assert r.status_code == 200, r.text
        jwt, user_id = r.json()["jwt"], r.json()["user"]["id"]
        assert b.get("/api/users/me", headers=bearer(jwt)).status_code == 200
        r = a.put(f"/api/users/{user_id}", {"blocked": True}, headers=bearer(full))
        assert r.status_code == 200, r.text
        eventually(
            lambda: b.get("/api/users/me", headers=bearer(jwt)).status_code == 401,
            "the other host refuses the blocked user",
        )


@pytest.mark.parametrize(("backend", "via"), CASES)
def test_a_webhook_made_through_one_host_is_known_to_the_others_worker(
    tmp_path: Path, backend: str, via: str
) -> None:
    with two_hosts(tmp_path, backend, via) as (a, b):
        worker = b.folio.webhooks.worker
        assert worker is not None and worker.hooks == {}
        body = {
            "name": "notify-me",
            "url": "http://127.0.0.1:9/hook",
            "headers": {},
            "events": ["entry.create"],
        }
        r = admin(a, "POST", "/admin/webhooks", body)
        assert r.status_code in (200, 201), r.text
        eventually(
            lambda: any(h.name == "notify-me" for h in worker.hooks.values()),
            "the other host's delivery worker knows the webhook",
        )


@pytest.mark.parametrize(("backend", "via"), CASES)
def test_a_panel_setting_saved_through_one_host_is_used_by_the_other(
    tmp_path: Path, backend: str, via: str
) -> None:
    with two_hosts(tmp_path, backend, via) as (a, b):
        register_admin(a.client)
        # the session lives in the database: the second host takes the same cookie
        b.client.cookies.update(a.client.cookies)
        b.client.headers[CSRF_HEADER] = a.client.headers[CSRF_HEADER]
        _, full = make_token(a, "writer", "full-access")
        for name, slug in (("Alpha", "zz-alpha"), ("Beta", "aa-beta")):
            r = a.post(
                "/api/categories", {"data": {"name": name, "slug": slug}}, headers=bearer(full)
            )
            assert r.status_code == 201, r.text
        base = "/admin/api/content-manager"
        relations = f"{base}/relations/api::article.article/category"

        def labels() -> list[Any]:
            r = b.client.get(relations)
            assert r.status_code == 200, r.text
            return [item["label"] for item in r.json()["data"]]

        # the second host reads the panel's settings once and keeps them: by name
        assert labels() == ["Alpha", "Beta"]
        uid = "api::category.category"
        config = a.client.get(f"{base}/configuration/{uid}")
        assert config.status_code == 200, config.text
        shown = config.json()["data"]
        shown["mainField"] = "slug"
        r = a.client.put(f"{base}/configuration/{uid}", json={"data": shown})
        assert r.status_code == 200, r.text
        eventually(
            lambda: labels() == ["aa-beta", "zz-alpha"],
            "the other host labels and sorts relations by the new main field",
        )


@pytest.mark.parametrize(
    ("backend", "via"), [c for c in CASES if c in (("postgres", "notify"), ("mysql", "poll"))]
)
def test_the_read_memo_of_one_host_sees_a_write_made_through_another(
    tmp_path: Path, backend: str, via: str
) -> None:
    with two_hosts(tmp_path, backend, via) as (a, b):
        _, full = make_token(a, "writer", "full-access")
        category = a.post(
            "/api/categories", {"data": {"name": "Before", "slug": "c"}}, headers=bearer(full)
        ).json()["data"]
        article = a.post(
            "/api/articles",
            {"data": {"title": "First", "slug": "first", "category": category["documentId"]}},
            headers=bearer(full),
        ).json()["data"]
        list_path = "/api/articles?populate=category"
        one_path = f"/api/articles/{article['documentId']}?populate=category"

        def names(path: str) -> list[Any]:
            r = a.get(path)
            assert r.status_code == 200, r.text
            data = r.json()["data"]
            rows = data if isinstance(data, list) else [data]
            return [(d["title"], d["category"]["name"]) for d in rows]

        # read again through the first host: answered from its memo, with fewer statements
        # (the fewest of a few reads: the app's background work runs statements too)
        before = a.statements()
        assert names(list_path) == [("First", "Before")]
        first = a.statements() - before
        again = []
        for _ in range(3):
            before = a.statements()
            assert names(list_path) == [("First", "Before")]
            again.append(a.statements() - before)
        assert min(again) < first
        assert names(one_path) == names(one_path) == [("First", "Before")]
        # written through the other host: the populated category and the page itself
        r = b.put(
            f"/api/categories/{category['documentId']}",
            {"data": {"name": "After"}},
            headers=bearer(full),
        )
        assert r.status_code == 200, r.text
        assert names(list_path) == [("First", "After")]
        assert names(one_path) == [("First", "After")]
        r = b.put(
            f"/api/articles/{article['documentId']}",
            {"data": {"title": "Second"}},
            headers=bearer(full),
        )
        assert r.status_code == 200, r.text
        assert names(list_path) == [("Second", "After")]
        assert names(one_path) == [("Second", "After")]
        # a new entry: the page and its remembered total
        r = b.post(
            "/api/articles",
            {"data": {"title": "Third", "slug": "third", "category": category["documentId"]}},
            headers=bearer(full),
        )
        assert r.status_code == 201, r.text
        r = a.get(list_path)
        assert r.json()["meta"]["pagination"]["total"] == 2
        assert sorted(names(list_path)) == [("Second", "After"), ("Third", "After")]


def _cut_listeners(via: str) -> int:
    """Ends the change listeners' connections from the server's side; how many."""
    if via == "redis":
        import redis

        client = redis.Redis(host=REDIS[0], port=REDIS[1])
        try:
            ours = [c["id"] for c in client.client_list() if c.get("name") == "folio-changes"]
            for found in ours:
                client.client_kill_filter(_id=found)
            return len(ours)
        finally:
            client.close()
    import asyncio

    import asyncpg

    async def cut() -> int:
        assert PG_URL
        conn = await asyncpg.connect(PG_URL)
        try:
            rows = await conn.fetch(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'folio-listen' AND datname = current_database()"
            )
            return len(rows)
        finally:
            await conn.close()

    return asyncio.run(cut())


@pytest.mark.parametrize(("backend", "via"), [c for c in CASES if c[1] in ("notify", "redis")])
def test_a_listener_that_lost_its_connection_reloads_everything_once_back(
    tmp_path: Path, backend: str, via: str
) -> None:
    with two_hosts(tmp_path, backend, via) as (a, b):
        token_id, key = make_token(a, "shared")
        assert b.get("/api/articles", headers=bearer(key)).status_code == 200
        broadcast = b.folio.broadcast
        resets = broadcast.resets
        assert _cut_listeners(via) >= 1
        # back: every cache dropped, whatever was missed meanwhile
        eventually(lambda: broadcast.resets > resets, "the listener is back and reloads")
        r = admin(a, "DELETE", f"/admin/api-tokens/{token_id}")
        assert r.status_code == 200, r.text
        eventually(
            lambda: b.get("/api/articles", headers=bearer(key)).status_code == 401,
            "changes are heard again",
        )
