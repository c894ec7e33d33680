"""The database goes away under a served app and comes back: requests are answered 503
`ServiceUnavailableError` with `Retry-After` (GraphQL: with the error in its own shape), the
readiness probe says so, the log says it once when it starts and once when it ends, and
requests succeed again afterwards. PostgreSQL is made unreachable through a TCP relay of
the test's own that is stopped and started again (its own database, never the server
itself); SQLite's writes fail as on a full disk (the server's file size limit lowered)."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.api.serving import CLEARED, Output, piped_server
from tests.conftest import FIXTURES, PG_URL, open_access
from tests.hostile.relay import TcpProxy as Relay


def _call(method: str, url: str, body: Any = None) -> tuple[int, Any, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            raw = r.read()
            return r.status, r.headers, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        return e.code, e.headers, json.loads(raw) if raw else None


def _admin(sql: str) -> None:
    import asyncpg

    async def run() -> None:
        assert PG_URL
        conn = await asyncpg.connect(PG_URL)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


def _app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    return app


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(extra)
    return env


GRAPHQL = {"query": "{ tags { name } }"}


def _assert_unavailable(base: str) -> None:
    status, headers, body = _call("GET", base + "/api/tags")
    assert status == 503, body
    assert headers.get("Retry-After") == "5"
    assert body["data"] is None
    assert body["error"]["name"] == "ServiceUnavailableError"
    assert body["error"]["status"] == 503
    assert "Traceback" not in json.dumps(body) and "SELECT" not in json.dumps(body)


def _until_over(output: Output, request: Callable[[], int]) -> None:
    """Requests that succeed, until the log says the outage is over (it ends with a success
    some time after its last failure, store.availability.SETTLE)."""
    deadline = time.monotonic() + 60
    while not output.wait_for("is available again", timeout=0.2):
        assert request() in (200, 201)
        assert time.monotonic() < deadline, output.stderr


def _assert_one_line_each_way(output: Output) -> None:
    down = [line for line in output.stderr if "is unavailable" in line]
    back = [line for line in output.stderr if "is available again" in line]
    assert len(down) == 1, output.stderr
    assert len(back) == 1, output.stderr
    assert output.stderr.index(down[0]) < output.stderr.index(back[0])
    assert not [line for line in output.stderr if "Traceback" in line], output.stderr


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (FOLIO_TEST_DATABASE_URL)")
def test_postgres_unreachable_answers_503_and_recovers(tmp_path: Path) -> None:
    assert PG_URL
    parts = urlsplit(PG_URL)
    name = f"folio_outage_{os.getpid()}"
    _admin(f"DROP DATABASE IF EXISTS {name}")
    _admin(f"CREATE DATABASE {name}")
    relay = Relay((parts.hostname or "127.0.0.1", parts.port or 5432))
    relay.start()
    user = f"{parts.username}@" if parts.username else ""
    url = f"postgresql://{user}127.0.0.1:{relay.port}/{name}"
    try:
        app = _app(tmp_path)
        with piped_server(app, _env(DATABASE_URL=url), ["--no-request-log"]) as (base, _, out):
            status, _, body = _call("POST", base + "/api/tags", {"data": {"name": "before"}})
            assert status == 201, body
            assert _call("GET", base + "/_health/ready")[0] == 204

            relay.stop()
            for _ in range(20):
                _assert_unavailable(base)
            status, headers, body = _call("POST", base + "/api/tags", {"data": {"name": "x"}})
            assert status == 503 and body["error"]["name"] == "ServiceUnavailableError"
            status, headers, body = _call("POST", base + "/graphql", GRAPHQL)
            assert status == 503 and headers.get("Retry-After") == "5"
            (error,) = body["errors"]
            assert error["extensions"]["error"]["name"] == "ServiceUnavailableError"
            assert body["data"] is None
            # alive, not ready
            assert _call("GET", base + "/_health")[0] == 204
            status, headers, body = _call("GET", base + "/_health/ready")
            assert status == 503 and headers.get("Retry-After") == "5"
            assert body["error"]["name"] == "ServiceUnavailableError"

            relay.start()
            status, _, body = _call("GET", base + "/api/tags")
            assert status == 200, body
            assert [t["name"] for t in body["data"]] == ["before"]
            _until_over(out, lambda: _call("GET", base + "/api/tags")[0])
            assert _call("POST", base + "/api/tags", {"data": {"name": "after"}})[0] == 201
            assert _call("GET", base + "/_health/ready")[0] == 204
            status, _, body = _call("POST", base + "/graphql", GRAPHQL)
            assert sorted(t["name"] for t in body["data"]["tags"]) == ["after", "before"]
        _assert_one_line_each_way(out)
    finally:
        relay.stop()
        _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_sqlite_disk_full_answers_503_and_recovers(tmp_path: Path) -> None:
    app = _app(tmp_path)
    with piped_server(app, _env(), ["--no-request-log"]) as (base, proc, out):
        status, _, body = _call("POST", base + "/api/tags", {"data": {"name": "before"}})
        assert status == 201
        before = base + "/api/tags/" + body["data"]["documentId"]
        # the server process may no longer grow a file past 4 KB: its writes to the
        # database's log fail as on a full disk (I/O error)
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
        try:
            for i in range(10):
                status, headers, body = _call(
                    "POST", base + "/api/tags", {"data": {"name": f"lost {i}"}}
                )
                assert status == 503, body
                assert headers.get("Retry-After") == "5"
                assert body["error"]["name"] == "ServiceUnavailableError"
                # reads still work, and do not end the outage
                status, _, body = _call("GET", base + "/api/tags")
                assert status == 200 and [t["name"] for t in body["data"]] == ["before"]
            status, _, body = _call("GET", base + "/_health/ready")
            assert status == 503 and body["error"]["message"] == "The database refuses writes"
        finally:
            limit = resource.RLIM_INFINITY
            resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (limit, limit))
        assert _call("POST", base + "/api/tags", {"data": {"name": "after"}})[0] == 201
        # an outage of writes ends with a write
        _until_over(out, lambda: _call("PUT", before, {"data": {"name": "before"}})[0])
        assert _call("GET", base + "/_health/ready")[0] == 204
        status, _, body = _call("GET", base + "/api/tags?sort=name")
        assert [t["name"] for t in body["data"]] == ["after", "before"]
    _assert_one_line_each_way(out)


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (FOLIO_TEST_DATABASE_URL)")
def test_postgres_backends_terminated_and_connections_refused(tmp_path: Path) -> None:
    """The app's backends terminated and new connections refused by the server
    (`ALLOW_CONNECTIONS false`), on a database of the test's own."""
    assert PG_URL
    parts = urlsplit(PG_URL)
    name = f"folio_refused_{os.getpid()}"
    _admin(f"DROP DATABASE IF EXISTS {name}")
    _admin(f"CREATE DATABASE {name}")
    user = f"{parts.username}@" if parts.username else ""
    url = f"postgresql://{user}{parts.hostname}:{parts.port or 5432}/{name}"
    try:
        app = _app(tmp_path)
        with piped_server(app, _env(DATABASE_URL=url), ["--no-request-log"]) as (base, _, out):
            for _ in range(5):  # a few pooled connections
                assert _call("GET", base + "/api/tags")[0] == 200
            _admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            _admin(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
            )
            for _ in range(10):
                _assert_unavailable(base)
            assert _call("GET", base + "/_health/ready")[0] == 503
            _admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
            assert _call("GET", base + "/api/tags")[0] == 200
            _until_over(out, lambda: _call("GET", base + "/api/tags")[0])
            assert _call("GET", base + "/_health/ready")[0] == 204
        _assert_one_line_each_way(out)
    finally:
        _admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
