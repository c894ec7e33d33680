"""The asyncio MySQL drivers side by side: asyncmy and aiomysql on the same queries.

Fills a scratch table (1,000 rows of an article's shape: a few short texts, a long text, a
number, a date), then, for each driver, N tasks each on its own connection run one kind of
query in a loop for a fixed number of operations:

- point: one row by its primary key
- page:  25 rows of the table (an ORDER BY on the primary key, a moving offset)
- write: BEGIN, one INSERT, COMMIT (three round trips, as a write of the document service)

asyncmy runs twice: on the text protocol (values escaped into the statement, as aiomysql
always does) and as "asyncmy-ps" with its statement cache, which prepares each distinct
text once per connection and then runs it on the binary protocol.

and prints, per driver, query and concurrency, the operations per second and this process's
CPU time per operation (the server shares the machine's cores, so the client's CPU is what
a driver decides). Runs under uvloop, as the server does.

    .venv/bin/python bench/mysql_drivers.py [--url mysql://root@127.0.0.1:3306/folio_bench]
        [--ops 4000] [--tasks 1,8] [--rounds 3]

The database is created when missing; the table `bench_article` is dropped at the end.
Folio depends on asyncmy only: `.venv/bin/pip install aiomysql==0.3.2` to compare (a driver
that is not installed is left out).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import uvloop

TABLE = "bench_article"
ROWS = 1000
LONG = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12


def settings(url: str) -> dict[str, Any]:
    parts = urlsplit(url)
    return {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 3306,
        "user": parts.username or "root",
        "password": parts.password or "",
        "db": parts.path.lstrip("/") or "folio_bench",
    }


async def connect(driver: str, conf: dict[str, Any], db: bool = True) -> Any:
    args = dict(conf)
    if not db:
        args.pop("db")
    args.update(charset="utf8mb4", autocommit=True)
    if driver.startswith("asyncmy"):
        import asyncmy

        if driver == "asyncmy-ps":
            args["stmt_cache_size"] = 256

        return await asyncmy.connect(**args)
    import aiomysql

    return await aiomysql.connect(**args)


async def fetch(conn: Any, sql: str, params: Any = None) -> Any:
    async with conn.cursor() as cur:
        await cur.execute(sql, params)
        return await cur.fetchall()


async def execute(conn: Any, sql: str, params: Any = None) -> int:
    async with conn.cursor() as cur:
        await cur.execute(sql, params)
        return int(cur.rowcount)


async def prepare(conf: dict[str, Any]) -> None:
    conn = await connect("asyncmy", conf, db=False)
    try:
        await execute(conn, f"CREATE DATABASE IF NOT EXISTS `{conf['db']}` CHARACTER SET utf8mb4")
        await execute(conn, f"USE `{conf['db']}`")
        await execute(conn, f"DROP TABLE IF EXISTS {TABLE}")
        await execute(
            conn,
            f"CREATE TABLE {TABLE} (id BIGINT AUTO_INCREMENT PRIMARY KEY, document_id "
            "VARCHAR(32) NOT NULL, title VARCHAR(255), slug VARCHAR(255), body LONGTEXT, "
            "views INT, published_at DATETIME(3)) ENGINE=InnoDB CHARACTER SET utf8mb4 "
            "COLLATE utf8mb4_bin",
        )
        async with conn.cursor() as cur:
            await cur.executemany(
                f"INSERT INTO {TABLE} (document_id, title, slug, body, views, published_at) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                [
                    (f"doc{i:028d}", f"Article {i}", f"article-{i}", LONG, i, "2026-01-01")
                    for i in range(ROWS)
                ],
            )
    finally:
        conn.close()


async def cleanup(conf: dict[str, Any]) -> None:
    conn = await connect("asyncmy", conf)
    try:
        await execute(conn, f"DROP TABLE IF EXISTS {TABLE}")
    finally:
        conn.close()


def point(conn: Any, i: int) -> Awaitable[Any]:
    return fetch(conn, f"SELECT * FROM {TABLE} WHERE id = %s", (i % ROWS + 1,))


def page(conn: Any, i: int) -> Awaitable[Any]:
    return fetch(conn, f"SELECT * FROM {TABLE} ORDER BY id LIMIT 25 OFFSET %s", ((i * 25) % 975,))


async def write(conn: Any, i: int) -> None:
    await execute(conn, "BEGIN")
    await execute(
        conn,
        f"INSERT INTO {TABLE} (document_id, title, slug, body, views, published_at) "
        "VALUES (%s, %s, %s, %s, %s, %s)",
        (f"new{i:028d}", f"New {i}", f"new-{i}", "short body", i, "2026-02-02"),
    )
    await execute(conn, "COMMIT")


DRIVERS = ("asyncmy", "asyncmy-ps", "aiomysql")

QUERIES: dict[str, Callable[[Any, int], Awaitable[Any]]] = {
    "point": point,
    "page": page,
    "write": write,
}


async def measure(
    driver: str, conf: dict[str, Any], name: str, tasks: int, ops: int
) -> tuple[float, float]:
    """Operations per second and client CPU microseconds per operation."""
    query = QUERIES[name]
    conns = [await connect(driver, conf) for _ in range(tasks)]
    try:
        for conn in conns:  # warm up each connection
            for i in range(20):
                await query(conn, i)
        each = ops // tasks

        async def run(conn: Any, start: int) -> None:
            for i in range(start, start + each):
                await query(conn, i)

        cpu0 = time.process_time()
        t0 = time.perf_counter()
        await asyncio.gather(*(run(c, k * each) for k, c in enumerate(conns)))
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
    finally:
        for conn in conns:
            conn.close()
    done = each * tasks
    return done / elapsed, cpu / done * 1e6


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="mysql://root@127.0.0.1:3306/folio_bench")
    parser.add_argument("--ops", type=int, default=4000)
    parser.add_argument("--tasks", default="1,8")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    conf = settings(args.url)
    drivers = [d for d in DRIVERS if importlib.util.find_spec(d.partition("-")[0]) is not None]
    await prepare(conf)
    try:
        print(f"{'query':6} {'tasks':>5} {'driver':10} {'ops/s':>9} {'CPU us/op':>10}")
        for name in QUERIES:
            for tasks in (int(t) for t in args.tasks.split(",")):
                for driver in drivers:
                    rates, cpus = [], []
                    # the drivers take turns so that a slower moment of the machine falls on
                    # both; the median of the rounds is shown
                    for _ in range(args.rounds):
                        rate, cpu = await measure(driver, conf, name, tasks, args.ops)
                        rates.append(rate)
                        cpus.append(cpu)
                    print(
                        f"{name:6} {tasks:>5} {driver:10} {statistics.median(rates):>9,.0f} "
                        f"{statistics.median(cpus):>10,.0f}",
                        flush=True,
                    )
    finally:
        await cleanup(conf)


if __name__ == "__main__":
    uvloop.run(main())
