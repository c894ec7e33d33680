"""The read memo (`FOLIO_READ_MEMO_MB`) keeps what it remembers within its budget whatever
the rows of the pages read: pages whose rows are mostly long, with short ones where a sample
would have looked, are weighed as they are, and the memory the memo holds stays near its
budget."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

import pytest

from tests.conftest import database_url, make_api

BUDGET_MB = 1
PAGE = 48
LONG = 16_000  # characters of every long row's body


def test_pages_of_long_rows_keep_the_memo_within_its_budget(
    backend: str, app_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOLIO_READ_MEMO_MB", str(BUDGET_MB))
    budget = BUDGET_MB * 1024 * 1024
    for api in make_api(app_dir, database_url(backend, app_dir)):
        memo = api.folio.documents._reads.populator.memo
        assert memo is not None and memo.budget == budget
        for i in range(PAGE):
            # each sixth row short: a sample of eight rows of a 48-row page saw only those
            body = "short" if i % 6 == 0 else ("lorem ipsum " * (LONG // 12 + 1))[:LONG]
            api.create("articles", {"title": f"Article {i:02d}", "body": body})
        # the statements prepared and the connections opened before the memory is measured
        # (MySQL's driver keeps each connection's prepared statements: not the memo's)
        # (pages of one row: what the memo keeps of them is small)
        for warm in range(2):
            r = api.get(
                "/api/articles?status=draft&sort=title&pagination[pageSize]=1"
                f"&filters[title][$ne]=warm-{warm}"
            )
            assert r.status_code == 200, r.text
        del r
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            # 30 pages of about 700 KB each, every one a page of its own (its own filter)
            for n in range(30):
                r = api.get(
                    f"/api/articles?status=draft&sort=title&pagination[pageSize]={PAGE}"
                    f"&filters[title][$ne]=other-{n}"
                )
                assert r.status_code == 200, r.text
                data = r.json()["data"]
                assert len(data) == PAGE and len(data[1]["body"]) == LONG
                assert 0 < memo.size <= budget
            del r, data  # the last answer's body is not the memo's
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        # the pages are remembered (asked again, nothing is read), within the budget
        before_statements = api.statements()
        r = api.get(
            f"/api/articles?status=draft&sort=title&pagination[pageSize]={PAGE}"
            "&filters[title][$ne]=other-29"
        )
        assert r.status_code == 200 and api.statements() - before_statements <= 1
        assert held < 1.5 * budget, held
