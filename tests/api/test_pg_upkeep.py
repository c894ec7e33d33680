"""PostgreSQL upkeep: after a burst of writes settles, the changed tables are vacuumed and
analyzed, so that a list's count can read its covering index alone (an index-only scan with
no heap fetches: every page all-visible) right after a bulk load, instead of waiting for
autovacuum; and the scan indexes carry the small columns that always fit."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.api.test_storage_layout import run_sql
from tests.conftest import PG_URL, database_url, make_api

pytestmark = pytest.mark.skipif(not PG_URL, reason="PostgreSQL only")


def _vacuumed(url: str, table: str) -> bool:
    rows = run_sql(
        url, f"SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relname = '{table}'"
    )
    return bool(rows and rows[0][0])


def _vacuums(url: str, table: str) -> int:
    rows = run_sql(url, f"SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = '{table}'")
    return int(rows[0][0]) if rows else 0


def test_a_bulk_load_is_vacuumed_and_counts_become_index_only(app_dir: Path) -> None:
    url = database_url("postgres", app_dir)
    for api in make_api(app_dir, url):
        for i in range(260):
            r = api.post("/api/tags", {"data": {"name": f"tag {i}"}})
            assert r.status_code == 201, r.text
        deadline = time.monotonic() + 20
        while not _vacuumed(url, "tags") and time.monotonic() < deadline:
            api.get("/_health")  # the server keeps serving meanwhile
            time.sleep(0.2)
        assert _vacuumed(url, "tags")
        # every page marked all-visible and the size known: index-only reads need no heap
        pages, visible, tuples = run_sql(
            url, "SELECT relpages, relallvisible, reltuples FROM pg_class WHERE relname = 'tags'"
        )[0]
        assert pages > 0 and visible == pages and tuples == 260
        r = api.get("/api/tags?pagination[pageSize]=1")
        assert r.json()["meta"]["pagination"]["total"] == 260


def test_a_stream_of_writes_that_never_settles_is_vacuumed_meanwhile(app_dir: Path) -> None:
    """A site being edited writes without a quiet second: its tables are vacuumed while the
    writes go on, not only after they stop."""
    url = database_url("postgres", app_dir)
    for api in make_api(app_dir, url):
        before = _vacuums(url, "tags")
        deadline = time.monotonic() + 60
        written = 0
        while _vacuums(url, "tags") == before and time.monotonic() < deadline:
            r = api.post("/api/tags", {"data": {"name": f"tag {written}"}})
            assert r.status_code == 201, r.text
            written += 1
            time.sleep(0.01)
        assert _vacuums(url, "tags") > before


def test_the_scan_index_carries_the_small_columns_that_always_fit(app_dir: Path) -> None:
    url = database_url("postgres", app_dir)
    for api in make_api(app_dir, url):
        api.create("articles", {"title": "x"})
    rows = run_sql(
        url,
        "SELECT indexdef FROM pg_indexes WHERE tablename = 'articles' "
        "AND indexname LIKE 'articles_scan_%'",
    )
    covering = [d for (d,) in rows if "INCLUDE" in d]
    assert len(rows) == 4 and len(covering) == 2  # per status: a narrow and a covering one
    for definition in covering:
        assert (
            "INCLUDE (document_id, published_at, created_at, updated_at, title, slug" in definition
        )
        # a third string of up to 255 characters could overflow an index entry
        assert "contact_email" not in definition
