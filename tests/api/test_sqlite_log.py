"""SQLite: a steady stream of writes keeps the write-ahead log bounded (it is copied into the
database and rewound as it grows), and a stopped server leaves none behind."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import database_url, make_api

# the log is rewound once it passes 250 pages (1 MB) and all of it is copied
LOG_BOUND = 3 * 1024 * 1024


def test_the_log_stays_bounded_under_a_stream_of_writes(app_dir: Path) -> None:
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
