"""`unique` holds under concurrency: many simultaneous creates of one value, and
simultaneous sign-ups of one account, leave exactly one (on PostgreSQL, whose connections
write in parallel; SQLite serializes writers anyway), the others answered as today."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from folio.app import load_app
from folio.http.app import build_asgi
from tests.api.authapp import make_auth_app
from tests.conftest import database_url, open_access


async def _together(
    app_dir: Path, url: str, send: Callable[[httpx.AsyncClient, int], Awaitable[Any]], n: int
) -> list[Any]:
    app = build_asgi(load_app(app_dir, url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return list(await asyncio.gather(*(send(client, i) for i in range(n))))


def test_concurrent_creates_of_one_unique_value_make_one(backend: str, app_dir: Path) -> None:
    url = database_url(backend, app_dir)

    async def create(client: httpx.AsyncClient, i: int) -> int:
        r = await client.post("/api/categories", json={"data": {"name": "Same name"}})
        return r.status_code

    for _ in range(3):
        statuses = asyncio.run(_together(app_dir, url, create, 30))
        assert sorted(statuses).count(201) <= 1
        assert all(s in (201, 400) for s in statuses)

    async def count(client: httpx.AsyncClient, i: int) -> Any:
        r = await client.get("/api/categories?filters[name][$eq]=Same name")
        return r.json()["meta"]["pagination"]["total"]

    assert asyncio.run(_together(app_dir, url, count, 1)) == [1]


def test_concurrent_sign_ups_make_one_account(backend: str, tmp_path: Path) -> None:
    app = make_auth_app(tmp_path)
    url = database_url(backend, app)
    body = {"username": "twin", "email": "twin@example.com", "password": "secret123"}

    async def register(client: httpx.AsyncClient, i: int) -> int:
        r = await client.post("/api/auth/local/register", json=body)
        return r.status_code

    statuses = asyncio.run(_together(app, url, register, 20))
    # one account; the others refused (400), or rate-limited (429) past ten attempts
    assert statuses.count(200) == 1
    assert all(s in (200, 400, 429) for s in statuses)

    async def sign_in(client: httpx.AsyncClient, i: int) -> int:
        r = await client.post(
            "/api/auth/local", json={"identifier": "twin@example.com", "password": "secret123"}
        )
        return r.status_code

    assert asyncio.run(_together(app, url, sign_in, 1)) == [200]
    assert open_access  # the content app fixture opens access; the auth app keeps its roles


def test_concurrent_updates_and_deletes_never_fail_or_leave_orphans(
    backend: str, app_dir: Path
) -> None:
    from tests.api.test_storage_layout import run_sql

    url = database_url(backend, app_dir)
    open_access(app_dir)

    async def setup(client: httpx.AsyncClient, i: int) -> tuple[str, str]:
        tag = (await client.post("/api/tags", json={"data": {"name": f"t{i}"}})).json()
        doc = await client.post(
            "/api/articles",
            json={"data": {"title": f"A{i}", "tags": [tag["data"]["documentId"]]}},
        )
        return doc.json()["data"]["documentId"], tag["data"]["documentId"]

    made = asyncio.run(_together(app_dir, url, setup, 6))
    docs = [d for d, _ in made]
    tags = [t for _, t in made]

    async def churn(client: httpx.AsyncClient, i: int) -> int:
        doc = docs[i % len(docs)]
        if i % 7 == 6:
            r = await client.delete(f"/api/articles/{doc}")
        else:
            data = {
                "title": f"edit {i}",
                "seo": {"metaTitle": f"m{i}", "metaDescription": "d"},
                "links": [{"label": f"l{i}", "url": "/x"}],
                "tags": [tags[i % len(tags)], tags[(i + 1) % len(tags)]],
            }
            r = await client.put(f"/api/articles/{doc}", json={"data": data})
        return r.status_code

    statuses = asyncio.run(_together(app_dir, url, churn, 42))
    # each answer is the write's or a 404 for a document deleted meanwhile, never a 500
    assert set(statuses) <= {200, 204, 404}, statuses
    sql_url = url if backend != "sqlite" else f"sqlite:///{app_dir / '.tmp' / 'data.db'}"
    for table, component in (
        ("components_shared_seos", "shared.seo"),
        ("components_shared_links", "shared.link"),
    ):
        orphans = run_sql(
            sql_url,
            f"SELECT COUNT(*) FROM {table} WHERE id NOT IN (SELECT cmp_id FROM articles_cmps "
            f"WHERE component_type = '{component}')",
        )
        assert orphans[0][0] == 0, table
    dangling = run_sql(
        sql_url,
        "SELECT COUNT(*) FROM articles_cmps WHERE entity_id NOT IN (SELECT id FROM articles)",
    )
    assert dangling[0][0] == 0


async def _large_write(client: httpx.AsyncClient) -> int:
    """Creates an article with 1,000 components (the largest write allowed)."""
    links = [{"label": f"l{n}", "url": f"/{n}"} for n in range(1000)]
    r = await client.post("/api/articles", json={"data": {"title": "big", "links": links}})
    return r.status_code


def test_reads_go_on_while_a_large_write_runs(backend: str, app_dir: Path) -> None:
    url = database_url(backend, app_dir)
    open_access(app_dir)
    finished: list[str] = []

    async def work(client: httpx.AsyncClient, i: int) -> int:
        if i == 0:
            status = await _large_write(client)
            finished.append("write")
            return status
        await asyncio.sleep(0.002 * i)  # after the write began
        # reads until the write is done, a few milliseconds apart (the write takes about
        # 12 ms on a fast machine: reads begun at fixed times could all come after it)
        status = 200
        while "write" not in finished and len(finished) < 1000:
            r = await client.get("/api/tags")
            finished.append("read")
            status = r.status_code if status == 200 else status
            await asyncio.sleep(0.003)
        return status

    statuses = asyncio.run(_together(app_dir, url, work, 6))
    assert statuses[0] == 201 and statuses[1:] == [200] * 5
    # reads were answered while the write was still running
    assert finished.index("write") > 0, finished


def test_small_writes_during_a_large_one_wait_their_turn_and_land(
    backend: str, app_dir: Path
) -> None:
    """A small write runs at once when no other write is under way (SQLite: on the
    serving thread); arriving while a large one runs, it waits its turn instead of
    stalling the server on the database lock, and every write lands."""
    url = database_url(backend, app_dir)
    open_access(app_dir)
    finished: list[str] = []

    async def work(client: httpx.AsyncClient, i: int) -> int:
        if i == 0:
            status = await _large_write(client)
            finished.append("big")
            return status
        # while the large write runs (about 10 ms on the writer thread on SQLite, once its
        # 1,000 components are read and checked)
        await asyncio.sleep(0.002 * i)
        if i % 2:
            r = await client.post("/api/tags", json={"data": {"name": f"small {i}"}})
            finished.append("small")
        else:
            r = await client.get("/api/tags")
            finished.append("read")
        return r.status_code

    statuses = asyncio.run(_together(app_dir, url, work, 7))
    assert statuses[0] == 201
    assert statuses[1:] == [201, 200, 201, 200, 201, 200]
    assert finished.index("big") > 0, finished  # reads were answered meanwhile

    async def check(client: httpx.AsyncClient, i: int) -> int:
        r = await client.get("/api/tags?sort=name&fields[0]=name")
        assert [t["name"] for t in r.json()["data"]] == ["small 1", "small 3", "small 5"]
        r = await client.get("/api/articles?filters[title][$eq]=big&populate[0]=links")
        assert len(r.json()["data"][0]["links"]) == 1000
        return r.status_code

    assert asyncio.run(_together(app_dir, url, check, 1)) == [200]


def test_a_write_that_loses_a_deadlock_runs_again(backend: str, app_dir: Path) -> None:
    """PostgreSQL picks a victim among deadlocked transactions; a write given as a function
    is rolled back and run again (here the first run reports a deadlock as PostgreSQL
    does, with SQLSTATE 40P01)."""
    import pytest

    if backend != "postgres":
        pytest.skip("PostgreSQL only")
    from folio.store.postgres import PostgresDatabase
    from folio.store.program import Program, execute, query

    url = database_url(backend, app_dir)
    runs: list[int] = []

    def program() -> Program:
        runs.append(1)
        yield execute("CREATE TABLE IF NOT EXISTS retried (n INTEGER)")
        yield execute("INSERT INTO retried VALUES (1)")
        if len(runs) == 1:
            yield execute("DO $$ BEGIN RAISE EXCEPTION 'lost' USING ERRCODE = '40P01'; END $$")
        rows = yield query("SELECT COUNT(*) FROM retried")
        return int(rows[0][0])

    async def run() -> int:
        db = PostgresDatabase(url)
        await db.start()
        try:
            return int(await db.write(program))
        finally:
            await db.close()

    # the first run's insert was rolled back with it
    assert asyncio.run(run()) == 1
    assert len(runs) == 2


def test_simultaneous_one_row_creates_are_all_kept(backend: str, app_dir: Path) -> None:
    """Creates of one row that arrive together (on SQLite, committed together) each get
    their own document, all readable afterwards."""
    url = database_url(backend, app_dir)

    async def create(client: httpx.AsyncClient, i: int) -> Any:
        r = await client.post("/api/tags", json={"data": {"name": f"tag {i}"}})
        assert r.status_code == 201, r.text
        return r.json()["data"]

    created = asyncio.run(_together(app_dir, url, create, 40))
    assert len({doc["documentId"] for doc in created}) == 40
    assert [doc["name"] for doc in created] == [f"tag {i}" for i in range(40)]

    async def read(client: httpx.AsyncClient, i: int) -> Any:
        r = await client.get("/api/tags?pagination[pageSize]=100&sort=name")
        return r.json()["data"]

    (listed,) = asyncio.run(_together(app_dir, url, read, 1))
    assert sorted(d["documentId"] for d in listed) == sorted(d["documentId"] for d in created)


def _together_on_scratch(
    backend: str, app_dir: Path, writes: Callable[[Any], list[Awaitable[Any]]]
) -> tuple[list[Any], list[Any]]:
    """The answers of `writes(db)` sent together to a fresh table `scratch (k)`, and its
    keys afterwards."""
    from folio.store.database import open_database
    from folio.store.program import execute, query

    url = database_url(backend, app_dir)

    async def run() -> tuple[list[Any], list[Any]]:
        db = open_database(url, str(app_dir))
        await db.start()
        try:
            await db.write_one(execute("CREATE TABLE scratch (k INTEGER PRIMARY KEY)"))
            answers = await asyncio.gather(*writes(db), return_exceptions=True)
            rows = await db.read(_rows(query("SELECT k FROM scratch ORDER BY k")))
            await db.write_one(execute("DROP TABLE scratch"))
            return list(answers), rows
        finally:
            await db.close()

    return asyncio.run(run())


def _rows(stmt: Any) -> Any:
    rows = yield stmt
    return rows


def test_one_statement_writes_together_fail_alone(backend: str, app_dir: Path) -> None:
    """Of one-statement writes sent together, one that the database refuses fails alone:
    the others are committed."""
    from folio.store.program import execute

    sent = [1, 2, 2, 3]  # the second 2 breaks the key
    answers, rows = _together_on_scratch(
        backend,
        app_dir,
        lambda db: [
            db.write_one(execute("INSERT INTO scratch (k) VALUES (?)", (k,))) for k in sent
        ],
    )
    # one of the two writes of 2 fails (on PostgreSQL, either: they run side by side)
    refused = [isinstance(a, Exception) for a in answers]
    assert refused in ([False, False, True, False], [False, True, False, False])
    assert [r[0] for r in rows] == [1, 2, 3]


def test_writes_of_several_statements_together_fail_alone(backend: str, app_dir: Path) -> None:
    """Of writes sent together (on SQLite, run in one transaction on the writer thread),
    one that fails after its first statements leaves none of its changes: the others are
    committed, each answered with its own result."""
    from folio.store.program import Program, execute, query

    def insert_two(k: int) -> Program:
        yield execute("INSERT INTO scratch (k) VALUES (?)", (k,))
        if k == 2:
            raise ValueError("refused after its first insert")
        yield execute("INSERT INTO scratch (k) VALUES (?)", (k + 100,))
        rows = yield query("SELECT COUNT(*) FROM scratch WHERE k = ?", (k,))
        return int(rows[0][0])

    answers, rows = _together_on_scratch(
        backend, app_dir, lambda db: [db.write(insert_two(k)) for k in (1, 2, 3, 1)]
    )
    assert answers[0] == 1 and answers[2] == 1
    assert isinstance(answers[1], ValueError)
    assert isinstance(answers[3], Exception)  # 1 again: the key is taken
    assert [r[0] for r in rows] == [1, 3, 101, 103]
