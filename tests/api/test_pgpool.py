"""The PostgreSQL connection pool, on real connections: bounded, first come first served,
a connection whose work did not finish is closed and its place given to a waiter, and a
waiter cancelled just as it is served passes the connection on."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from folio.store.pgpool import ConnectionPool
from tests.conftest import PG_URL

pytestmark = pytest.mark.skipif(not PG_URL, reason="PostgreSQL is not configured")


def _pool(max_size: int, opened: list[Any]) -> ConnectionPool:
    async def connect() -> Any:
        conn = await asyncpg.connect(PG_URL)
        opened.append(conn)
        return conn

    return ConnectionPool(connect, max_size)


def test_the_pool_is_bounded_and_serves_waiters_in_order() -> None:
    async def main() -> None:
        opened: list[Any] = []
        pool = _pool(2, opened)
        await pool.start(1)
        a = await pool.acquire()
        b = await pool.acquire()
        assert len(opened) == 2 and pool.size == 2
        served: list[str] = []

        async def waiter(name: str) -> None:
            conn = await pool.acquire()
            served.append(name)
            assert await conn.fetchval("SELECT 1") == 1
            pool.release(conn)

        tasks = [asyncio.create_task(waiter(n)) for n in ("first", "second", "third")]
        await asyncio.sleep(0.05)
        assert served == []  # every place is taken
        pool.release(a)
        pool.release(b)
        await asyncio.gather(*tasks)
        assert served == ["first", "second", "third"]
        assert len(opened) == 2  # no connection beyond the bound
        await pool.close()
        assert all(c.is_closed() for c in opened)

    asyncio.run(main())


def test_an_unfinished_connection_is_closed_and_its_place_reopened() -> None:
    async def main() -> None:
        opened: list[Any] = []
        pool = _pool(1, opened)
        conn = await pool.acquire()
        waiting = asyncio.create_task(pool.acquire())
        await asyncio.sleep(0.05)
        pool.release(conn, healthy=False)
        fresh = await waiting
        assert conn.is_closed() and fresh is not conn
        assert await fresh.fetchval("SELECT 2") == 2
        assert pool.size == 1
        # a connection left in a transaction is not reused either
        await fresh.execute("BEGIN")
        pool.release(fresh)
        assert fresh.is_closed()
        again = await pool.acquire()
        assert not again.is_in_transaction()
        pool.release(again)
        assert await pool.acquire() is again
        pool.release(again)
        await pool.close()

    asyncio.run(main())


def test_a_waiter_cancelled_as_it_is_served_passes_the_connection_on() -> None:
    async def main() -> None:
        opened: list[Any] = []
        pool = _pool(1, opened)
        conn = await pool.acquire()
        first = asyncio.create_task(pool.acquire())
        second = asyncio.create_task(pool.acquire())
        await asyncio.sleep(0.05)
        pool.release(conn)  # handed to `first`, which is cancelled before it runs
        first.cancel()
        got = await second
        assert got is conn and len(opened) == 1
        with pytest.raises(asyncio.CancelledError):
            await first
        pool.release(got)
        await pool.close()
        with pytest.raises(asyncpg.InterfaceError):
            await pool.acquire()

    asyncio.run(main())


def _app_with_pool(tmp_path: Any, pool: Any) -> Any:
    import json
    import shutil

    from tests.conftest import FIXTURES

    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    (app / "config" / "database.json").write_text(
        json.dumps({"client": "postgres", "connection": {}, "pool": pool})
    )
    return app


def test_the_configured_pool_bounds_the_connections_an_app_opens(tmp_path: Any) -> None:
    """config/database.json `pool.max`: twelve reads at once hold at most that many
    connections on the server; the others wait their turn and are answered."""
    from folio.app import load_app
    from folio.store.program import Program, query

    app = _app_with_pool(tmp_path, {"min": 1, "max": 3})
    folio = load_app(app, PG_URL)

    def slow() -> Program:
        rows = yield query("SELECT pg_backend_pid() FROM pg_sleep(0.1)")
        return rows[0][0]

    async def main() -> None:
        await folio.db.start()
        try:
            pids = await asyncio.gather(*(folio.db.read(slow()) for _ in range(12)))
        finally:
            await folio.db.close()
        assert len(pids) == 12
        assert len(set(pids)) == 3

    asyncio.run(main())


@pytest.mark.parametrize(
    "pool, env, error",
    [
        ({"max": 0}, {}, "max >= 1"),
        ({"min": 4, "max": 2}, {}, "min <= max"),
        ({"max": "many"}, {}, "whole numbers"),
        ([1, 2], {}, "an object"),
        ({"max": 3}, {"DATABASE_POOL_MAX": "x"}, "DATABASE_POOL_MIN / DATABASE_POOL_MAX"),
    ],
)
def test_a_bad_pool_setting_stops_start_up(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, pool: Any, env: dict[str, str], error: str
) -> None:
    from folio.config import load_settings
    from folio.errors import ConfigError

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=error):
        load_settings(_app_with_pool(tmp_path, pool))


def test_the_pool_setting_and_its_environment_variables(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from folio.config import load_settings

    app = _app_with_pool(tmp_path, {"min": 2, "max": 5})
    assert load_settings(app).database_pool == (2, 5)
    monkeypatch.setenv("DATABASE_POOL_MAX", "8")
    assert load_settings(app).database_pool == (2, 8)
    monkeypatch.setenv("DATABASE_POOL_MIN", "0")
    assert load_settings(app).database_pool == (0, 8)
