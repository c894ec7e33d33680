"""PostgreSQL upkeep: statistics and visibility maps kept fresh after writes.

A list's count is an index-only scan only where the table's visibility map marks its pages
all-visible, and the planner chooses index paths only with statistics that know the table's
size; autovacuum brings both, but up to a minute (or, for insert-only tables, 1,000 rows
plus 20%) later, so a freshly seeded table answers from whole rows (a published-articles
count of 1,600: 4.4 ms against 0.5 ms). After a burst of writes settles, the tables that
changed by more than a threshold since their last vacuum or analyze get `VACUUM (ANALYZE,
SKIP_LOCKED)` on a connection of their own (outside the pool, so requests never wait for
it); under a stream of writes that never settles, a check runs every few seconds.
Counters come from `pg_stat_user_tables`, so writes of other processes count too.
`FOLIO_PG_UPKEEP=0` turns it off."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from typing import Any

log = logging.getLogger("folio.store")

# a table is vacuumed once its changes since the last vacuum/analyze exceed this many rows
# plus this share of its live rows
MIN_ROWS = 200
SHARE = 0.1
SETTLE_S = 1.0  # quiet time after the last write before a check
MIN_INTERVAL_S = 10.0  # between two checks after bursts
# under a stream of writes that never settles (a site being edited), a check this often: each
# write leaves its new row versions on pages that are not all-visible and its old ones dead in
# every index, so until a vacuum the index-only reads of lists and counts go to the heap more
# and more (a filtered page of 1,600 articles: 0.9 ms of the server's CPU, 1.1 ms after 1,000
# updates)
BUSY_INTERVAL_S = 3.0
# an idle backend publishes its table counters up to 10 s after its last transaction: a
# burst is checked once it settles and again once its counters are surely published
STATS_LAG_S = 11.0

CHANGED = """
SELECT relname FROM pg_stat_user_tables
WHERE schemaname = current_schema()
  AND GREATEST(n_mod_since_analyze, n_ins_since_vacuum, n_dead_tup)
      > $1 + $2 * GREATEST(n_live_tup, 0)
ORDER BY relname
"""


def enabled() -> bool:
    return os.environ.get("FOLIO_PG_UPKEEP", "1") not in ("0", "false", "no", "off")


class Upkeep:
    """Call `touched()` after each committed write; `close()` at shutdown."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._last_write = 0.0
        self._last_check = 0.0
        self._stream_start = 0.0
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.runs = 0  # how many times tables were vacuumed (tests read it)

    def start(self) -> None:
        """A first check at start-up: data written while no server ran."""
        self._last_write = self._stream_start = time.monotonic()
        self._schedule()

    def touched(self) -> None:
        now = time.monotonic()
        if now - self._last_write > SETTLE_S:
            self._stream_start = now  # a write after a quiet time: a new stream
        self._last_write = now
        if self._task is None or self._task.done():
            self._schedule()

    def _schedule(self) -> None:
        if self._closed:
            return
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        while not self._closed:
            now = time.monotonic()
            due = max(self._last_write + SETTLE_S, self._last_check + MIN_INTERVAL_S)
            if self._last_write > self._last_check:
                # writes since the last check that have not settled: every so often anyway
                busy = max(self._last_check, self._stream_start) + BUSY_INTERVAL_S
                due = min(due, busy)
            wait = due - now
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            self._last_check = time.monotonic()
            started = self._last_check
            try:
                await self.check()
            except Exception as exc:  # upkeep must never take the server down
                log.warning("database upkeep skipped: %s", exc)
            if self._last_write + STATS_LAG_S <= started:
                return  # every write's counters were published: the next write schedules

    async def check(self) -> list[str]:
        """Vacuums and analyzes the tables changed beyond the threshold; returns them."""
        import asyncpg

        conn: Any = await asyncpg.connect(self.url)
        try:
            rows = await conn.fetch(CHANGED, MIN_ROWS, SHARE)
            names = [str(r[0]) for r in rows]
            for name in names:
                quoted = '"' + name.replace('"', '""') + '"'
                await conn.execute(f"VACUUM (ANALYZE, SKIP_LOCKED) {quoted}")
            if names:
                self.runs += 1
                log.debug("vacuumed and analyzed %s", ", ".join(names))
            return names
        finally:
            await conn.close()

    async def close(self) -> None:
        self._closed = True
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
