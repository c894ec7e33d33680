"""What is MySQL's or MariaDB's alone, on the server FOLIO_TEST_MYSQL_URL names: every
character round-trips (utf8mb4), text compares exactly (case, accents, trailing spaces),
strict mode refuses a value a column cannot hold instead of cutting it, config/database's
`"client": "mysql"` selects it, and a server that cannot be reached stops start-up with one
line. (The rest of the suite runs on MySQL too, through the `backend` fixture.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from folio.errors import ValidationError
from folio.store.program import Program, execute, query
from tests.api.serving import free_port
from tests.conftest import MYSQL_URL, Api, make_api, reset_mysql, sql_rows

pytestmark = [
    pytest.mark.mysql,
    pytest.mark.skipif(MYSQL_URL is None, reason="needs MySQL or MariaDB (FOLIO_TEST_MYSQL_URL)"),
]

FOLIO = str(Path(sys.executable).parent / "folio")


@pytest.fixture
def my(app_dir: Path) -> Iterator[Api]:
    assert MYSQL_URL is not None
    reset_mysql(MYSQL_URL)
    yield from make_api(app_dir, MYSQL_URL)


def titles(api: Api, query_string: str) -> list[str]:
    r = api.get(f"/api/articles?{query_string}")
    assert r.status_code == 200, r.text
    return sorted(a["title"] for a in r.json()["data"])


def test_every_character_round_trips(my: Api) -> None:
    title = "Café 😀 𝄞 naïve 中文 \u200d"
    doc = my.create("articles", {"title": title, "description": "🎉" * 100})
    got = my.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert (got["title"], got["description"]) == (title, "🎉" * 100)
    assert titles(my, "filters[title][$eq]=" + title.replace(" ", "%20")) == [title]
    assert titles(my, "filters[title][$contains]=😀") == [title]


def test_equality_is_exact_and_eqi_ignores_case(my: Api) -> None:
    for title in ("Hello", "hello", "Héllo", "Hello "):
        my.create("articles", {"title": title})
    assert titles(my, "filters[title][$eq]=Hello") == ["Hello"]
    assert titles(my, "filters[title][$eq]=Hello%20") == ["Hello "]
    assert titles(my, "filters[title][$eqi]=hello") == ["Hello", "hello"]
    assert titles(my, "filters[title][$ne]=Hello") == ["Hello ", "Héllo", "hello"]
    assert titles(my, "filters[title][$containsi]=ÉLL") == ["Héllo"]
    assert titles(my, "filters[title][$startsWith]=h") == ["hello"]
    # sorted by code point, as on PostgreSQL's and SQLite's binary comparison
    r = my.get("/api/articles?sort=title:asc&fields[0]=title")
    assert [a["title"] for a in r.json()["data"]] == ["Hello", "Hello ", "Héllo", "hello"]


def test_unique_values_differ_by_case(my: Api) -> None:
    my.create("categories", {"name": "News"})
    my.create("categories", {"name": "news"})
    r = my.post("/api/categories", {"data": {"name": "News"}})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["name"] == "ValidationError"


def test_strict_mode_refuses_a_value_too_long_for_its_column(my: Api) -> None:
    """A value longer than its column is refused (400, nothing written), never cut: the
    locale column of a content table holds 191 characters."""
    long_id = "x" * 300

    def write() -> Program:
        yield execute(
            'INSERT INTO "categories" (document_id, locale, name) VALUES (?, ?, ?)',
            ("d1", long_id, "Cut?"),
        )

    assert my.client.portal is not None
    with pytest.raises(ValidationError) as refused:
        my.client.portal.call(my.folio.db.write, write())
    assert refused.value.status == 400

    def count() -> Program:
        rows = yield query('SELECT COUNT(*) FROM "categories" WHERE name = ?', ("Cut?",))
        return rows[0][0]

    assert my.client.portal.call(my.folio.db.read, count()) == 0
    # and through the API: a filter by a value longer than the column is no error
    assert titles(my, "filters[title][$eq]=" + "y" * 300) == []


def test_no_connection_answers_a_subquery_by_materializing_it(my: Api) -> None:
    """Reads and writes alike run with subquery materialization off (store.mysql: with it
    on, the plan of a relation filter followed the tables' statistics, and turned into a
    scan of every article probing both link tables once the tags had grown)."""

    def switches() -> Program:
        rows = yield query("SELECT @@optimizer_switch")
        return str(rows[0][0]).split(",")

    assert my.client.portal is not None
    for run in (my.folio.db.read, my.folio.db.write):
        assert "materialization=off" in my.client.portal.call(run, switches())
    # and a relation filter still selects what it names
    music = my.create("categories", {"name": "Music"})
    other = my.create("categories", {"name": "Other"})
    my.create("articles", {"title": "In", "category": music["documentId"]})
    my.create("articles", {"title": "Out", "category": other["documentId"]})
    assert titles(my, "filters[category][name][$eq]=Music") == ["In"]


def test_config_client_mysql_selects_it(app_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert MYSQL_URL is not None
    reset_mysql(MYSQL_URL)
    server = urlsplit(MYSQL_URL)
    connection = {
        "host": server.hostname,
        "port": server.port or 3306,
        "user": server.username or "root",
        "password": server.password or "",
        "database": server.path.lstrip("/"),
    }
    (app_dir / "config" / "database.json").write_text(
        json.dumps({"connection": {"client": "mysql", "connection": connection}})
    )
    monkeypatch.delenv("DATABASE_URL", raising=False)
    for api in make_api(app_dir, ""):
        assert api.folio.db.dialect.name == "mysql"
        assert type(api.folio.db).__name__ == "MySQLDatabase"
        doc = api.create("categories", {"name": "From the file"})
        got = api.get(f"/api/categories/{doc['documentId']}").json()["data"]
        assert got["name"] == "From the file"
    assert not (app_dir / ".tmp" / "data.db").exists()


def _serve(app_dir: Path, url: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PORT", "HOST")}
    env.update(JWT_SECRET="a-test-secret", API_TOKEN_SALT="a-test-salt", DATABASE_URL=url)
    return subprocess.run(
        [FOLIO, "serve", str(app_dir), "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("url", "code", "reason"),
    [
        (
            "mysql://folio:secret@127.0.0.1:{port}/folio",
            3,
            "connection refused (is the database server running?)",
        ),
        ("mysql://folio@no-such-host.invalid:3306/folio", 3, "unknown host no-such-host.invalid"),
        ("{server}/no_such_database", 2, "Unknown database 'no_such_database'"),
    ],
    ids=["refused", "unknown host", "unknown database"],
)
def test_a_server_that_cannot_be_used_is_one_line(
    app_dir: Path, url: str, code: int, reason: str
) -> None:
    assert MYSQL_URL is not None
    server = MYSQL_URL.rsplit("/", 1)[0]
    url = url.format(port=free_port(), server=server)
    done = _serve(app_dir, url)
    shown = url.replace(":secret@", ":***@")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines() == [f"folio: database {shown} (DATABASE_URL): {reason}"]
    assert done.returncode == code


def test_a_write_that_loses_a_real_deadlock_runs_again() -> None:
    """Two writes lock two rows in opposite orders, each waiting at a Pause until the other
    holds its first row: InnoDB picks one as the deadlock's victim, which is rolled back and
    run again; both land, neither answers an error."""
    import asyncio

    from folio.store.mysql import MySQLDatabase
    from folio.store.program import Pause

    assert MYSQL_URL is not None
    reset_mysql(MYSQL_URL)
    sql_rows(MYSQL_URL, 'CREATE TABLE "pair" (id INT PRIMARY KEY, n INT NOT NULL)')
    sql_rows(MYSQL_URL, 'INSERT INTO "pair" VALUES (1, 0), (2, 0)')
    runs = {"a": 0, "b": 0}

    async def main() -> None:
        ready = {"a": asyncio.Event(), "b": asyncio.Event()}
        db = MySQLDatabase(MYSQL_URL or "", 2, 2)
        await db.start()

        def writer(me: str, other: str, first: int, second: int) -> Program:
            runs[me] += 1
            yield execute('UPDATE "pair" SET n = n + 1 WHERE id = ?', (first,))
            yield Pause(ready[me].set, lambda: None, ready[other].wait)
            yield execute('UPDATE "pair" SET n = n + 1 WHERE id = ?', (second,))

        try:
            await asyncio.gather(
                db.write(lambda: writer("a", "b", 1, 2)), db.write(lambda: writer("b", "a", 2, 1))
            )
        finally:
            await db.close()

    asyncio.run(main())
    assert sorted(runs.values()) == [1, 2]
    assert sql_rows(MYSQL_URL, 'SELECT id, n FROM "pair" ORDER BY id') == [(1, 2), (2, 2)]


def test_apps_on_two_databases_of_one_server_never_wait_for_each_others_locks(
    app_dir: Path,
) -> None:
    """A named lock belongs to the whole server (PostgreSQL's advisory locks to one
    database): Folio's carry their database's name, so an app whose schema sync (or write)
    holds its lock on one database never holds up an app on another database of the server.
    Here a session on another database holds that database's schema-sync lock while an app
    starts on the tests' database: it starts, syncs and writes as usual."""
    import asyncio

    import asyncmy

    from folio.store.dialects.mysql import LOCK_SQL, SYNC_LOCK_NAME
    from folio.store.mysql import connect_settings

    assert MYSQL_URL is not None
    settings = connect_settings(MYSQL_URL)
    other = f"{settings['database']}_locks"

    async def hold(ready: asyncio.Event, done: asyncio.Event) -> None:
        admin = await asyncmy.connect(**{**settings, "database": None}, autocommit=True)
        async with admin.cursor() as cursor:
            await cursor.execute(f"CREATE DATABASE IF NOT EXISTS `{other}`")
        admin.close()
        conn = await asyncmy.connect(**{**settings, "database": other}, autocommit=True)
        try:
            async with conn.cursor() as cursor:
                await cursor.execute(LOCK_SQL.replace("?", "%s"), (SYNC_LOCK_NAME,))
                assert (await cursor.fetchone())[0] == 1
                ready.set()
                await done.wait()
                await cursor.execute(f"DROP DATABASE `{other}`")
        finally:
            conn.close()

    async def scenario() -> None:
        ready, done = asyncio.Event(), asyncio.Event()
        holder = asyncio.create_task(hold(ready, done))
        await ready.wait()
        try:
            # the app starts on a thread of its own (the in-process client runs its loop)
            def start_and_write() -> str:
                reset_mysql(MYSQL_URL or "")
                serving = make_api(app_dir, MYSQL_URL or "")
                api = next(serving)
                try:
                    return str(api.create("tags", {"name": "while locked"})["name"])
                finally:
                    serving.close()

            assert await asyncio.to_thread(start_and_write) == "while locked"
        finally:
            done.set()
            await holder

    asyncio.run(scenario())


def test_a_connection_back_in_the_pool_keeps_nothing_it_read() -> None:
    """The driver keeps a connection's last result until its next statement: a pooled
    connection left idle after a large read would hold those rows for as long as it idles
    (with several connections, a page each). Folio lets them go once it has them."""
    import asyncio
    import gc
    import tracemalloc

    from folio.store.mysql import MySQLDatabase

    assert MYSQL_URL is not None
    big = 4_000_000

    def read_big() -> Program:
        rows = yield query("SELECT REPEAT('x', ?) AS body", (big,))
        return len(rows[0][0])

    async def main() -> int:
        db = MySQLDatabase(MYSQL_URL or "", 1, 1)
        await db.start()
        try:
            assert await db.read(read_big()) == big  # the statement prepared, buffers grown
            gc.collect()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                assert await db.read(read_big()) == big
                gc.collect()
                return int(tracemalloc.get_traced_memory()[0] - before)
            finally:
                tracemalloc.stop()
        finally:
            await db.close()

    held = asyncio.run(main())
    assert held < big // 4, held


def test_writes_leave_no_transaction_open_on_their_connection() -> None:
    """Writes run on connections of their own with autocommit off, so the first statement
    of a write opens its transaction without a BEGIN of its own. Whatever the write did
    (committed, took a named lock, failed on a duplicate key and was rolled back), its
    connection goes back to the pool with no transaction open: the next write uses it
    again, and it holds no table's metadata lock or named lock, so a schema change or a
    lock from another session does not wait for it. A failed write changes nothing; reads
    run on other connections."""
    import asyncio

    import asyncmy
    from asyncmy.errors import IntegrityError

    from folio.store.dialects.mysql import LOCK_NAME, LOCK_SQL
    from folio.store.mysql import MySQLDatabase, connect_settings

    assert MYSQL_URL is not None
    reset_mysql(MYSQL_URL)
    sql_rows(MYSQL_URL, 'CREATE TABLE "pair" (id INT PRIMARY KEY, n INT NOT NULL)')

    def insert(key: int, then_fail: bool = False, locked: bool = False) -> Program:
        if locked:
            yield query(LOCK_SQL, ("pair-lock",))
        yield execute('INSERT INTO "pair" (id, n) VALUES (?, 0)', (key,))
        if then_fail:
            yield execute('INSERT INTO "pair" (id, n) VALUES (?, 0)', (1,))
        rows = yield query("SELECT CONNECTION_ID()")
        return int(rows[0][0])

    def reader() -> Program:
        rows = yield query("SELECT CONNECTION_ID()")
        return int(rows[0][0])

    async def main() -> None:
        other = await asyncmy.connect(**connect_settings(MYSQL_URL or ""), autocommit=True)
        db = MySQLDatabase(MYSQL_URL or "", 1, 1)
        await db.start()

        async def alter(column: str) -> None:
            # gives up after 2 s if a lock holds it
            async with other.cursor() as cursor:
                await cursor.execute(f"ALTER TABLE pair ADD COLUMN {column} INT NULL")

        async def lock_is_free() -> bool:
            async with other.cursor() as cursor:
                name = LOCK_NAME.replace("?", "%s")
                await cursor.execute(f"SELECT GET_LOCK({name}, 0)", ("pair-lock",))
                free = (await cursor.fetchone())[0] == 1
                await cursor.execute("DO RELEASE_ALL_LOCKS()")
                return free

        try:
            async with other.cursor() as cursor:
                await cursor.execute("SET SESSION lock_wait_timeout = 2")
            first = await db.write(insert(1))
            await alter("a")
            assert await db.write(insert(2, locked=True)) == first
            assert await lock_is_free()
            await alter("b")
            with pytest.raises(IntegrityError):  # (a table of no model: the driver's error)
                await db.write(insert(3, then_fail=True))
            await alter("c")
            assert await db.write(insert(4)) == first
            assert await db.read(reader()) != first
        finally:
            await db.close()
            other.close()

    asyncio.run(main())
    assert sql_rows(MYSQL_URL, 'SELECT id FROM "pair" ORDER BY id') == [(1,), (2,), (4,)]
