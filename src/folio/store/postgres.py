"""PostgreSQL driver on an asyncpg pool. Statements are written with `?` placeholders and
rewritten once per distinct text to `$n`."""

from __future__ import annotations

from typing import Any

import asyncpg

from folio.store.database import Database
from folio.store.program import Batch, Program, Stmt

_converted: dict[str, str] = {}


def to_numbered(sql: str) -> str:
    """`?` -> `$1, $2, ...` (the core never writes `?` inside literals)."""
    cached = _converted.get(sql)
    if cached is not None:
        return cached
    parts = sql.split("?")
    out = [parts[0]]
    for i, part in enumerate(parts[1:], start=1):
        out.append(f"${i}")
        out.append(part)
    text = "".join(out)
    if len(_converted) < 20000:
        _converted[sql] = text
    return text


class PostgresDatabase(Database):
    dialect = "postgres"

    def __init__(self, url: str, min_size: int = 1, max_size: int = 10) -> None:
        self.url = url
        self.min_size = min_size
        self.max_size = max_size
        self._pool: Any = None
        self._count = 0

    async def start(self) -> None:
        self._pool = await asyncpg.create_pool(
            self.url,
            min_size=self.min_size,
            max_size=self.max_size,
            server_settings={"timezone": "UTC"},
        )

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _one(self, conn: Any, stmt: Stmt) -> Any:
        self._count += 1
        sql = to_numbered(stmt.sql)
        if stmt.rows:
            return await conn.fetch(sql, *stmt.params)
        status: str = await conn.execute(sql, *stmt.params)
        tail = status.rsplit(" ", 1)[-1]
        return int(tail) if tail.isdigit() else 0

    async def _run(self, conn: Any, program: Program) -> Any:
        try:
            step = next(program)
            while True:
                if isinstance(step, Batch):
                    result: Any = [await self._one(conn, s) for s in step.stmts]
                else:
                    result = await self._one(conn, step)
                step = program.send(result)
        except StopIteration as stop:
            return stop.value

    async def read(self, program: Program) -> Any:
        async with self._pool.acquire() as conn:
            return await self._run(conn, program)

    async def write(self, program: Program) -> Any:
        async with self._pool.acquire() as conn, conn.transaction():
            return await self._run(conn, program)
