"""The cost of MySQL's token of the committed state (store.mysql): writes that bump a counter
row before COMMIT, with one counter row for all or with 16 (each connection its own), against
writes that bump none; and the read of the token (the sum of the counters).

N tasks, each on its own connection, run a write (BEGIN, one INSERT, [the bump], COMMIT) in
a loop; then the token's read alone. Prints writes per second and the token reads per second.

    .venv/bin/python bench/mysql_version.py [--url mysql://root@127.0.0.1:3306/folio_bench]
        [--ops 3000] [--tasks 8]

The database is created when missing; its two tables are dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import asyncmy
import uvloop
from asyncmy.constants import CLIENT

from folio.store.mysql import connect_settings

MODES = {"no counter": 0, "one counter row": 1, "16 counter rows": 16, "16, with COMMIT": 100}


async def connect(url: str) -> Any:
    return await asyncmy.connect(
        **connect_settings(url),
        autocommit=True,
        stmt_cache_size=64,
        sql_mode="'ANSI_QUOTES'",
        client_flag=CLIENT.MULTI_STATEMENTS,
    )


async def run(url: str, sql: str, params: Any, tasks: int, ops: int, tx: bool) -> float:
    conns = [await connect(url) for _ in range(tasks)]
    each = ops // tasks

    async def loop(conn: Any, k: int) -> None:
        async with conn.cursor() as cur:
            for i in range(each):
                if tx:
                    await conn.begin()
                    await cur.execute(
                        'INSERT INTO "bench_rows" (v) VALUES (%s)', (f"value {k} {i}",)
                    )
                    if params is None:
                        await conn.commit()
                    elif sql.endswith("COMMIT"):
                        # the bump and the COMMIT in one round trip
                        await conn.query(sql % params(k))
                        await conn.next_result()
                    else:
                        await cur.execute(sql, (params(k),))
                        await conn.commit()
                else:
                    await cur.execute(sql)
                    await cur.fetchall()

    t0 = time.perf_counter()
    await asyncio.gather(*(loop(c, k) for k, c in enumerate(conns)))
    elapsed = time.perf_counter() - t0
    for c in conns:
        c.close()
    return each * tasks / elapsed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="mysql://root@127.0.0.1:3306/folio_bench")
    parser.add_argument("--ops", type=int, default=3000)
    parser.add_argument("--tasks", type=int, default=8)
    args = parser.parse_args()
    settings = connect_settings(args.url)
    database = settings.pop("database")
    server = await asyncmy.connect(**settings, autocommit=True)
    async with server.cursor() as cur:
        await cur.execute(f"CREATE DATABASE IF NOT EXISTS `{database}` CHARACTER SET utf8mb4")
    server.close()
    setup = await connect(args.url)
    async with setup.cursor() as cur:
        await cur.execute('DROP TABLE IF EXISTS "bench_rows", "bench_version"')
        await cur.execute(
            'CREATE TABLE "bench_rows" (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(64))'
        )
        await cur.execute('CREATE TABLE "bench_version" (slot INT PRIMARY KEY, n BIGINT NOT NULL)')
        await cur.execute(
            'INSERT INTO "bench_version" VALUES ' + ", ".join(f"({i}, 0)" for i in range(16))
        )
    bump = 'UPDATE "bench_version" SET n = n + 1 WHERE slot = %s'
    print(f"{args.tasks} tasks, {args.ops} operations each way")
    for name, slots in MODES.items():
        count = min(slots, 16)
        param = None if slots == 0 else (lambda k, s=count: k % s)
        sql = bump if slots <= 16 else bump + "; COMMIT"
        rate = await run(args.url, sql, param, args.tasks, args.ops, True)
        print(f"writes, {name:16} {rate:>9,.0f}/s", flush=True)
    read = 'SELECT CAST(SUM(n) AS SIGNED) FROM "bench_version"'
    rate = await run(args.url, read, None, args.tasks, args.ops * 4, False)
    print(f"token reads              {rate:>9,.0f}/s")
    rate = await run(args.url, "SELECT 1", None, args.tasks, args.ops * 4, False)
    print(f"SELECT 1 (for scale)     {rate:>9,.0f}/s")
    async with setup.cursor() as cur:
        await cur.execute('DROP TABLE IF EXISTS "bench_rows", "bench_version"')
    setup.close()


if __name__ == "__main__":
    uvloop.run(main())
