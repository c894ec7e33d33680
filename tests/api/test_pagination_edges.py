"""Pagination's edge values, as the reference (5.54, maxLimit 100) answers them and README's
pagination section states them: no value means "every entry" — a limit or page size below
1 answers one entry, a page below 1 is page 1, a start below 0 is 0; everything is read page
by page, up to maxLimit entries a page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api

NAMES = ["t1", "t2", "t3", "t4", "t5"]


@pytest.fixture
def tags(api: Api) -> Api:
    for name in NAMES:
        assert api.post("/api/tags", {"data": {"name": name}}).status_code == 201
    return api


def _list(api: Api, query: str) -> tuple[list[str], dict[str, Any]]:
    r = api.get(f"/api/tags?sort=name&{query}")
    assert r.status_code == 200, r.text
    body = r.json()
    return [d["name"] for d in body["data"]], body["meta"]["pagination"]


@pytest.mark.parametrize("value", ["-1", "0", "-5"])
def test_a_limit_below_1_answers_one_entry(tags: Api, value: str) -> None:
    names, meta = _list(tags, f"pagination[limit]={value}")
    assert names == ["t1"]
    assert meta == {"start": 0, "limit": 1, "total": 5}


@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_page_size_below_1_answers_one_entry(tags: Api, value: str) -> None:
    names, meta = _list(tags, f"pagination[pageSize]={value}")
    assert names == ["t1"]
    assert meta == {"page": 1, "pageSize": 1, "pageCount": 5, "total": 5}


@pytest.mark.parametrize("value", ["0", "-2"])
def test_a_page_below_1_is_page_1(tags: Api, value: str) -> None:
    names, meta = _list(tags, f"pagination[page]={value}&pagination[pageSize]=2")
    assert names == ["t1", "t2"]
    assert meta == {"page": 1, "pageSize": 2, "pageCount": 3, "total": 5}


def test_a_start_below_0_is_0(tags: Api) -> None:
    names, meta = _list(tags, "pagination[start]=-1&pagination[limit]=2")
    assert names == ["t1", "t2"]
    assert meta == {"start": 0, "limit": 2, "total": 5}


def test_everything_is_read_page_by_page_up_to_max_limit(tags: Api) -> None:
    _, meta = _list(tags, "pagination[pageSize]=1000")
    assert meta["pageSize"] == 100  # maxLimit
    _, meta = _list(tags, "pagination[limit]=1000")
    assert meta["limit"] == 100
    read: list[str] = []
    page, count = 1, 1
    while page <= count:
        names, meta = _list(tags, f"pagination[page]={page}&pagination[pageSize]=2")
        read += names
        page, count = page + 1, meta["pageCount"]
    assert read == NAMES
