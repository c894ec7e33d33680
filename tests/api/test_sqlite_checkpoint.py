"""SQLite: committed writes reach the database file itself shortly after, copied from the
write-ahead log by the server's checkpointer, not by whichever request's commit happens to
fill the log; and a stopped server leaves no log behind."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from tests.conftest import database_url, make_api


def _names_in_file(db: Path) -> list[str]:
    """The tag names the database file holds, read without its write-ahead log (none while
    the tables themselves are still only in the log)."""
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        return [row[0] for row in conn.execute("SELECT name FROM tags ORDER BY name")]
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def test_writes_reach_the_database_file_while_the_server_runs(app_dir: Path) -> None:
    db = app_dir / ".tmp" / "data.db"
    for api in make_api(app_dir, database_url("sqlite", app_dir)):
        for i in range(20):
            r = api.post("/api/tags", {"data": {"name": f"tag-{i:02d}"}})
            assert r.status_code == 201, r.text
        wanted = sorted(f"tag-{i:02d}" for i in range(20))
        deadline = time.monotonic() + 5
        while _names_in_file(db) != wanted and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _names_in_file(db) == wanted
        # the server still answers from the log and the file alike
        assert len(api.get("/api/tags?pagination[pageSize]=100").json()["data"]) == 20
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
