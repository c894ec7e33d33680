"""SQLite: a steady stream of writes keeps the write-ahead log bounded (it is copied into the
database, on a thread of its own, and rewound as it grows), and a stopped server leaves none
behind."""

from __future__ import annotations

from pathlib import Path

import pytest

import folio.store.sqlite as sqlite_store
from tests.conftest import database_url, make_api

# copied back every 64 rows written here, and rewound once it passes 256 pages (1 MB)
LOG_BOUND = 4 * 1024 * 1024


def test_the_log_stays_bounded_under_a_stream_of_writes(
    app_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_store, "CHECKPOINT_ROWS", 64)
    monkeypatch.setattr(sqlite_store, "RESTART_FRAMES", 256)
    db = app_dir / ".tmp" / "data.db"
    wal = db.with_name(db.name + "-wal")
    largest = 0
    for api in make_api(app_dir, database_url("sqlite", app_dir)):
        # about 20 KB of log each: 30 MB in all if it were never rewound
        for i in range(1500):
            r = api.post("/api/tags", {"data": {"name": f"tag-{i:04d}"}})
            assert r.status_code == 201, r.text
            if i % 100 == 99:
                largest = max(largest, wal.stat().st_size)
        got = api.get("/api/tags?pagination[pageSize]=1").json()
        assert got["meta"]["pagination"]["total"] == 1500
    assert 0 < largest < LOG_BOUND
    assert not wal.exists() or wal.stat().st_size == 0
