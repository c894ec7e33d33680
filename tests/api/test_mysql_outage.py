"""MySQL or MariaDB goes away under a served app and comes back, as PostgreSQL does in
test_db_outage: requests are answered 503 with Retry-After (GraphQL in its own shape), the
readiness probe says so, the log says it once each way, and requests succeed again
afterwards. The server is made unreachable through a TCP relay of the test's own, and the
app's connections are killed by the server, each on a database of the test's own."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.api.serving import piped_server
from tests.api.test_db_outage import (
    GRAPHQL,
    _app,
    _assert_one_line_each_way,
    _assert_unavailable,
    _call,
    _env,
    _until_over,
)
from tests.conftest import MYSQL_URL, sql_rows
from tests.hostile.relay import TcpProxy as Relay

pytestmark = [
    pytest.mark.mysql,
    pytest.mark.skipif(MYSQL_URL is None, reason="needs MySQL or MariaDB (FOLIO_TEST_MYSQL_URL)"),
]


@pytest.fixture
def database() -> Iterator[str]:
    """A database of the test's own on the server of FOLIO_TEST_MYSQL_URL: its name."""
    assert MYSQL_URL is not None
    name = f"folio_outage_{os.getpid()}"
    sql_rows(MYSQL_URL, f'DROP DATABASE IF EXISTS "{name}"')
    sql_rows(MYSQL_URL, f'CREATE DATABASE "{name}" CHARACTER SET utf8mb4')
    try:
        yield name
    finally:
        sql_rows(MYSQL_URL, f'DROP DATABASE IF EXISTS "{name}"')


def _user() -> str:
    assert MYSQL_URL is not None
    parts = urlsplit(MYSQL_URL)
    password = f":{parts.password}" if parts.password else ""
    return f"{parts.username or 'root'}{password}@"


def test_mysql_unreachable_answers_503_and_recovers(tmp_path: Path, database: str) -> None:
    assert MYSQL_URL is not None
    parts = urlsplit(MYSQL_URL)
    relay = Relay((parts.hostname or "127.0.0.1", parts.port or 3306))
    relay.start()
    url = f"mysql://{_user()}127.0.0.1:{relay.port}/{database}"
    try:
        app = _app(tmp_path)
        with piped_server(app, _env(DATABASE_URL=url), ["--no-request-log"]) as (base, _, out):
            status, _, body = _call("POST", base + "/api/tags", {"data": {"name": "before"}})
            assert status == 201, body
            assert _call("GET", base + "/_health/ready")[0] == 204

            relay.stop()
            for _ in range(20):
                _assert_unavailable(base)
            status, _, body = _call("POST", base + "/api/tags", {"data": {"name": "x"}})
            assert status == 503 and body["error"]["name"] == "ServiceUnavailableError"
            status, headers, body = _call("POST", base + "/graphql", GRAPHQL)
            assert status == 503 and headers.get("Retry-After") == "5"
            (error,) = body["errors"]
            assert error["extensions"]["error"]["name"] == "ServiceUnavailableError"
            assert _call("GET", base + "/_health")[0] == 204
            status, headers, body = _call("GET", base + "/_health/ready")
            assert status == 503 and headers.get("Retry-After") == "5"

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


def test_mysql_connections_killed_answer_503_then_recover(tmp_path: Path, database: str) -> None:
    """The server kills every connection of the app: the requests that meet a dead one are
    answered 503 (never 500), and the pool opens new ones."""
    assert MYSQL_URL is not None
    parts = urlsplit(MYSQL_URL)
    url = f"mysql://{_user()}{parts.hostname}:{parts.port or 3306}/{database}"
    app = _app(tmp_path)
    with piped_server(app, _env(DATABASE_URL=url), ["--no-request-log"]) as (base, _, out):
        for _ in range(5):  # a few pooled connections
            assert _call("GET", base + "/api/tags")[0] == 200
        ids = sql_rows(
            MYSQL_URL,
            "SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()",
            (database,),
        )
        assert ids
        for (pid,) in ids:
            sql_rows(MYSQL_URL, f"KILL CONNECTION {int(pid)}")
        statuses = [_call("GET", base + "/api/tags")[0] for _ in range(10)]
        assert set(statuses) <= {200, 503}, statuses
        assert statuses[-1] == 200
        if 503 in statuses:
            _until_over(out, lambda: _call("GET", base + "/api/tags")[0])
            _assert_one_line_each_way(out)
        assert _call("POST", base + "/api/tags", {"data": {"name": "after"}})[0] == 201
        assert _call("GET", base + "/_health/ready")[0] == 204
