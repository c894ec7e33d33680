"""SQLite: a steady stream of writes keeps the write-ahead log bounded (it is copied into the
database, on a thread of its own, and rewound as it grows), and a stopped server leaves none
behind.

What bounds the log is the checkpoint thread's work: a checkpoint begins every
CHECKPOINT_ROWS rows written, and one that finds RESTART_FRAMES pages in the log makes the
next write copy back the rest and the one after start the log over. Until the checkpoint
thread has run, writes go on appending (on a busy machine it may run late): the test waits
for it after each write, so that the bound it asserts is the one those thresholds give,
however the threads are scheduled."""

from __future__ import annotations

from pathlib import Path

import pytest

import folio.store.sqlite as sqlite_store
from tests.conftest import database_url, make_api

# copied back every 32 rows written here, and started over once it holds 256 pages (1 MB):
# a create writes about 10 pages of log, so each checkpoint finds 300-380 pages and the log
# starts over two writes later (the schema's first writes make the first one about 500):
# 1.3-2 MB at most, where 1,500 creates never started over would leave 60 MB
CHECKPOINT_ROWS = 32
RESTART_FRAMES = 256
LOG_BOUND = 4 * 1024 * 1024


def test_the_log_stays_bounded_under_a_stream_of_writes(
    app_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_store, "CHECKPOINT_ROWS", CHECKPOINT_ROWS)
    monkeypatch.setattr(sqlite_store, "RESTART_FRAMES", RESTART_FRAMES)
    db = app_dir / ".tmp" / "data.db"
    wal = db.with_name(db.name + "-wal")
    largest = 0
    for api in make_api(app_dir, database_url("sqlite", app_dir)):
        store = api.folio.db
        assert isinstance(store, sqlite_store.SqliteDatabase)
        for i in range(1500):
            r = api.post("/api/tags", {"data": {"name": f"tag-{i:04d}"}})
            assert r.status_code == 201, r.text
            # the checkpoint this write began (if any) has run: the checkpoint thread
            # takes its tasks in turn
            store._checkpointer.submit(lambda: None).result()
            # the log file keeps its largest size (it is written over from the start)
            largest = max(largest, wal.stat().st_size)
        got = api.get("/api/tags?pagination[pageSize]=1").json()
        assert got["meta"]["pagination"]["total"] == 1500
    assert 0 < largest < LOG_BOUND
    assert not wal.exists() or wal.stat().st_size == 0
