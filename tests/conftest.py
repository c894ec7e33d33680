"""Fixtures: every API test runs against SQLite and, when FOLIO_TEST_DATABASE_URL is set,
against PostgreSQL too, and when FOLIO_TEST_MYSQL_URL is set (`mysql://root@127.0.0.1:3306/
folio_test_my`), against MySQL or MariaDB too (each test starts from an empty database)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from folio.app import Folio, load_app
from folio.http.app import build_asgi

FIXTURES = Path(__file__).parent / "fixtures"
# A developer's or CI's Redis would otherwise take every test app's rate limits (tests that
# need Redis name it themselves: tests/redis_support.py)
os.environ.pop("REDIS_URL", None)

PG_URL = os.environ.get("FOLIO_TEST_DATABASE_URL")
MYSQL_URL = os.environ.get("FOLIO_TEST_MYSQL_URL")
BACKENDS = ["sqlite", *(["postgres"] if PG_URL else []), *(["mysql"] if MYSQL_URL else [])]
# one part of a run split in processes (scripts/test): "postgres" keeps the tests that run
# on PostgreSQL, "mysql" those that run on MySQL (and those marked `mysql`), "sqlite" every
# other one
SHARD = os.environ.get("FOLIO_TEST_SHARD")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "mysql: a test of MySQL alone (run by the MySQL part of a split run)"
    )


def shard_of(item: pytest.Item) -> str:
    """The part of a split run that runs a test."""
    callspec = getattr(item, "callspec", None)
    backend = callspec.params.get("backend") if callspec is not None else None
    if backend in ("postgres", "mysql"):
        return str(backend)
    if item.get_closest_marker("mysql") is not None:
        return "mysql"
    return "sqlite"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if SHARD not in ("sqlite", "postgres", "mysql"):
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        (keep if shard_of(item) == SHARD else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


# Creating the blog app's 40 tables and their indexes is most of a test's time on
# PostgreSQL (about 1 s) and MySQL (3-5 s: each DDL statement is written through to disk).
# A database whose tables are exactly those a fresh start of the same app made is emptied
# instead: its rows deleted and its ids restarted, which leaves it as that start left it.
# `_made[url]` is the app (a digest of its src/ and config/) and the tables' layout (a
# digest of the catalog) as the app's first start after a full reset made them; the layout
# is read again at each reset, so a test that changed the tables (a schema sync test, a
# content type added) is followed by a full reset.
_made: dict[str, tuple[str, str]] = {}
# the URLs reset in full whose app has not started yet (the next start records `_made`)
_fresh: set[str] = set()
# tables whose rows are what the tables' creation wrote (kept when a database is emptied)
KEPT_TABLES = ("folio_schema", "folio_sharing", "folio_version", "folio_gate")

PG_LAYOUT = """
SELECT concat_ws(' ', table_name, column_name, data_type, is_nullable, column_default,
                 character_maximum_length)
  FROM information_schema.columns WHERE table_schema = 'public'
UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'
UNION ALL SELECT conrelid::regclass || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
  WHERE connamespace = 'public'::regnamespace
UNION ALL SELECT tgrelid::regclass || ' ' || tgname FROM pg_trigger WHERE NOT tgisinternal
"""
MYSQL_LAYOUT = """
SELECT CONCAT_WS(' ', table_name, column_name, column_type, is_nullable, column_default,
                 collation_name)
  FROM information_schema.columns WHERE table_schema = DATABASE()
UNION ALL SELECT CONCAT_WS(' ', table_name, index_name, non_unique, seq_in_index, column_name)
  FROM information_schema.statistics WHERE table_schema = DATABASE()
UNION ALL SELECT CONCAT_WS(' ', table_name, constraint_name, referenced_table_name, delete_rule)
  FROM information_schema.referential_constraints WHERE constraint_schema = DATABASE()
UNION ALL SELECT CONCAT_WS(' ', event_object_table, trigger_name)
  FROM information_schema.triggers WHERE trigger_schema = DATABASE()
"""


def layout_digest(rows: Sequence[Sequence[Any]]) -> str:
    """A digest of a database's tables, columns, indexes, keys and triggers (the rows of
    PG_LAYOUT or MYSQL_LAYOUT)."""
    return hashlib.sha256("\n".join(sorted(str(r[0]) for r in rows)).encode()).hexdigest()


def app_digest(app_dir: Path) -> str:
    """A digest of what an app's tables follow: its src/ and config/ files (the roles'
    permissions aside: `open_access` writes them after the database is reset)."""
    digest = hashlib.sha256()
    for top in ("src", "config"):
        root = app_dir / top
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.name != "permissions.json":
                digest.update(str(path.relative_to(app_dir)).encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def reset_postgres(url: str, app: str | None = None) -> None:
    """An empty database for the app of digest `app`: emptied when its tables are those
    that app's fresh start made, made anew otherwise."""
    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(url)
        try:
            made = _made.get(url)
            if (
                app is not None
                and made is not None
                and made[0] == app
                and layout_digest(await conn.fetch(PG_LAYOUT)) == made[1]
            ):
                # (DELETE of a few rows costs less than TRUNCATE's new files; the foreign
                # keys' triggers are not run, every row goes)
                tables = await conn.fetch(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                )
                sql = "SET session_replication_role = replica; " + "; ".join(
                    f'DELETE FROM "{r[0]}"' for r in tables if r[0] not in KEPT_TABLES
                )
                await conn.execute(
                    sql + "; SET session_replication_role = DEFAULT; "
                    "SELECT setval(c.oid, 1, false) FROM pg_class c "
                    "WHERE c.relkind = 'S' AND c.relnamespace = 'public'::regnamespace"
                )
                return
            _made.pop(url, None)
            _fresh.add(url)
            await conn.execute("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;")
        finally:
            await conn.close()

    asyncio.run(run())


def reset_mysql(url: str, app: str | None = None) -> None:
    """As reset_postgres: the tables emptied (their ids restarted) or all dropped (the
    database itself is kept: creating one costs more than dropping its tables)."""
    import asyncmy
    from asyncmy.constants import CLIENT

    from folio.store.mysql import connect_settings

    async def run() -> None:
        conn = await asyncmy.connect(
            **connect_settings(url), autocommit=True, client_flag=CLIENT.MULTI_STATEMENTS
        )
        try:
            async with conn.cursor() as cursor:
                made = _made.get(url)
                if app is not None and made is not None and made[0] == app:
                    await cursor.execute(MYSQL_LAYOUT)
                    if layout_digest(await cursor.fetchall()) == made[1]:
                        await cursor.execute(
                            "SELECT table_name, auto_increment FROM information_schema.tables "
                            "WHERE table_schema = DATABASE()"
                        )
                        rows = [r for r in await cursor.fetchall() if r[0] not in KEPT_TABLES]
                        # one round trip; only the tables whose ids moved are altered (an
                        # ALTER is a DDL statement, a DELETE of no rows costs nothing)
                        sql = "SET SESSION foreign_key_checks = 0; " + "; ".join(
                            f"DELETE FROM `{name}`" for name, _ in rows
                        )
                        sql += "".join(
                            f"; ALTER TABLE `{name}` AUTO_INCREMENT = 1"
                            for name, next_id in rows
                            if next_id is not None and int(next_id) > 1
                        )
                        await cursor.execute(sql)
                        while await cursor.nextset():
                            pass
                        return
                _made.pop(url, None)
                _fresh.add(url)
                await cursor.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = DATABASE()"
                )
                tables = [str(r[0]) for r in await cursor.fetchall()]
                if tables:
                    names = ", ".join(f"`{t}`" for t in tables)
                    await cursor.execute("SET SESSION foreign_key_checks = 0")
                    await cursor.execute(f"DROP TABLE IF EXISTS {names}")
        finally:
            await conn.ensure_closed()

    asyncio.run(run())


def record_made(url: str, app_dir: Path) -> None:
    """After an app's first start on a database reset in full: what it made, for the next
    resets to reuse."""
    if url not in _fresh:
        return
    _fresh.discard(url)
    if url.startswith("mysql"):
        rows = sql_rows(url, MYSQL_LAYOUT)
    elif url.startswith("postgres"):
        rows = sql_rows(url, PG_LAYOUT)
    else:
        return
    _made[url] = (app_digest(app_dir), layout_digest(rows))


def sql_rows(url: str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Runs one statement (`?` placeholders, identifiers in double quotes) on a connection
    of its own to the database of `url`, committed; its rows (none for a write)."""
    if url.startswith("sqlite"):
        conn = sqlite3.connect(url.split("sqlite:///", 1)[1])
        try:
            return [tuple(r) for r in conn.execute(sql, params).fetchall()]
        finally:
            conn.commit()
            conn.close()
    if url.startswith("mysql"):
        import asyncmy

        from folio.store.mysql import SQL_MODE, connect_settings

        async def on_mysql() -> list[tuple[Any, ...]]:
            conn = await asyncmy.connect(
                **connect_settings(url), autocommit=True, sql_mode=f"'{SQL_MODE}'"
            )
            try:
                async with conn.cursor() as cursor:
                    await cursor.execute(sql.replace("%", "%%").replace("?", "%s"), params)
                    return [tuple(r) for r in await cursor.fetchall() or ()]
            finally:
                await conn.ensure_closed()

        return asyncio.run(on_mysql())
    import asyncpg

    numbered = sql
    for n in range(1, sql.count("?") + 1):
        numbered = numbered.replace("?", f"${n}", 1)

    async def on_postgres() -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(url)
        try:
            return [tuple(r) for r in await conn.fetch(numbered, *params)]
        finally:
            await conn.close()

    return asyncio.run(on_postgres())


def write_outside(url: str, sql: str, params: Sequence[Any] = ()) -> None:
    """A write committed by another connection than the app's: another client of the
    database on SQLite and PostgreSQL. On MySQL, through a database object of its own, as
    another process or host of the app writes: MySQL's token of the committed state (the
    read memo's) counts the commits of Folio's processes, not those of other clients."""
    if not url.startswith("mysql"):
        sql_rows(url, sql, params)
        return
    from folio.store.mysql import MySQLDatabase
    from folio.store.program import execute

    async def run() -> None:
        db = MySQLDatabase(url)
        await db.start()
        try:
            await db.write_one(execute(sql, params))
        finally:
            await db.close()

    asyncio.run(run())


# how long a test repeats a read until one is answered from the read memo: on PostgreSQL
# the memo's token is the server's snapshot, which a commit anywhere on the server moves (in
# other databases too), and CI's hostile requests write to the server for about three
# minutes beside the tests, leaving no two reads under one token until they stop
QUIET_WAIT = 240.0


def quiet_tries(wait: float = QUIET_WAIT) -> Iterator[int]:
    """Try numbers, at least one, until `wait` seconds have gone by: the caller stops at
    the first try that shows what a quiet server shows."""
    end = time.monotonic() + wait
    n = 0
    while n == 0 or time.monotonic() < end:
        yield n
        n += 1


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    target = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", target)
    open_access(target)
    return target


def database_url(backend: str, app_dir: Path) -> str:
    if backend == "postgres":
        assert PG_URL
        reset_postgres(PG_URL, app_digest(app_dir))
        return PG_URL
    if backend == "mysql":
        assert MYSQL_URL
        reset_mysql(MYSQL_URL, app_digest(app_dir))
        return MYSQL_URL
    return f"sqlite:///{app_dir / '.tmp' / 'data.db'}"


class Api:
    """A test client for one running app, with JSON helpers."""

    def __init__(self, client: TestClient, folio: Folio) -> None:
        self.client = client
        self.folio = folio

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, **kw)

    def post(self, path: str, data: Any = None, **kw: Any) -> Any:
        if data is not None:
            kw["json"] = data
        return self.client.post(path, **kw)

    def put(self, path: str, data: Any = None, **kw: Any) -> Any:
        if data is not None:
            kw["json"] = data
        return self.client.put(path, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self.client.delete(path, **kw)

    def create(self, plural: str, data: dict[str, Any], query: str = "") -> dict[str, Any]:
        r = self.post(f"/api/{plural}{query}", {"data": data})
        assert r.status_code == 201, r.text
        return dict(r.json()["data"])

    def statements(self) -> int:
        return self.folio.db.statements_run()


OPEN_PERMISSIONS = {
    "roles": {
        "public": {
            "permissions": [
                "api::*",
                "plugin::upload.content-api.*",
                "plugin::users-permissions.auth.*",
            ]
        }
    }
}


def open_access(app_dir: Path) -> None:
    """Lets the public role do everything in an app that declares no permissions, so that
    content tests need no credentials (access control has its own tests)."""
    permissions = app_dir / "config" / "permissions.json"
    if not permissions.exists():
        permissions.parent.mkdir(parents=True, exist_ok=True)
        permissions.write_text(json.dumps(OPEN_PERMISSIONS))


def make_api(app_dir: Path, url: str, open: bool = True) -> Iterator[Api]:
    if open:
        open_access(app_dir)
    folio = load_app(app_dir, url)
    with TestClient(build_asgi(folio), raise_server_exceptions=False) as client:
        record_made(url, app_dir)
        yield Api(client, folio)


@contextmanager
def running(app_dir: Path, url: str) -> Iterator[Api]:
    """The app served in-process for the duration of a `with` block."""
    yield from make_api(app_dir, url, open=False)


def failed(r: Any, status: int = 400, name: str = "ValidationError") -> dict[str, Any]:
    """The error object of a failed response, after checking the envelope."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json; charset=utf-8"
    body = r.json()
    assert body["data"] is None
    error = body["error"]
    assert error["status"] == status
    assert error["name"] == name
    return dict(error)


@pytest.fixture
def api(backend: str, app_dir: Path) -> Iterator[Api]:
    yield from make_api(app_dir, database_url(backend, app_dir))
