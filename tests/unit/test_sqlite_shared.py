"""SQLite: the writer thread writes on a connection that the loop's reads share while it is
idle. A read made while a write is open on the writer thread answers at once, from what is
committed, on a connection of the loop's own; once the write commits, reads see it."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from folio.store.program import Pause, Program, execute, query
from folio.store.sqlite import SqliteDatabase


def _count() -> Program:
    rows = yield query("SELECT COUNT(*) FROM t")
    return int(rows[0][0])


def test_reads_during_an_open_write_see_what_is_committed(tmp_path: Path) -> None:
    async def main() -> tuple[int, int, int, int, int]:
        db = SqliteDatabase(f"sqlite:///{tmp_path / 'data.db'}")
        await db.start()
        try:
            await db.write_one(query("CREATE TABLE t (x INTEGER)"))
            await db.write_one(query("INSERT INTO t VALUES (1)"))
            before = await db.read(_count())
            opened = threading.Event()
            go = threading.Event()

            def verdict() -> None:
                go.wait(30)

            async def never() -> None:  # (SQLite waits on its writer thread)
                raise AssertionError

            def held() -> Program:
                yield execute("INSERT INTO t VALUES (2)")
                yield execute("INSERT INTO t VALUES (3)")
                yield Pause(opened.set, verdict, never)

            loop = asyncio.get_running_loop()
            write = asyncio.ensure_future(db.write(held))
            assert await loop.run_in_executor(None, opened.wait, 10)
            # the writer thread holds its transaction open: reads answer meanwhile
            during = [await asyncio.wait_for(db.read(_count()), 5) for _ in range(3)]
            go.set()
            await asyncio.wait_for(write, 10)
            after = await db.read(_count())
            # a write of the loop's own (one statement, none pending), then a read
            await db.write_one(query("INSERT INTO t VALUES (4)"))
            last = await db.read(_count())
            return before, *during[:2], after, last
        finally:
            go.set()
            await db.close()

    before, during, again, after, last = asyncio.run(main())
    assert before == 1
    assert during == again == 1  # the open write's rows are not seen
    assert after == 3
    assert last == 4
