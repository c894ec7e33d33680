"""The entries populated fields hold in one answer are bounded (api.json
`rest.maxPopulatedEntries`), counted at every level as the answer shows them and as they are
loaded, remembered rows included; past the bound a read is a 400 naming the limit and its
key. Before, a 330-byte request through a category's 400 articles, each populating its
category's articles again, answered 785 MB. The nesting of `populate` is bounded too
(`rest.maxPopulateDepth`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Api, database_url, failed, make_api

# a category's articles, their category, its articles (each shown once per article of
# the first level) and, where `{end}` asks, their category again or their seo component
NESTED = (
    "/api/categories?fields[0]=name&populate[articles][fields][0]=title"
    "&populate[articles][populate][category][fields][0]=name"
    "&populate[articles][populate][category][populate][articles][fields][0]=title{end}"
)
DEEPER = (
    "&populate[articles][populate][category][populate][articles][populate][category]"
    "[fields][0]=name"
)
SEO = "&populate[articles][populate][category][populate][articles][populate][seo]=true"
# the request that answered 785 MB with 400 articles
FAN_OUT = (
    "/api/categories?pagination[pageSize]=1&populate[articles][filters][id][$lt]=402"
    "&populate[articles][fields][0]=title"
    "&populate[articles][populate][category][populate][articles][fields][0]=title"
    "&populate[articles][populate][category][populate][articles][populate][category]"
    "[populate][articles][fields][0]=title"
)
GRAPHQL = (
    "{ categories { name articles { title category { name articles { title "
    "category { name } } } } } }"
)


def _entries(docs: list[dict[str, Any]]) -> int:
    """The populated entries (the objects within the documents, at every level) of a list
    of documents read with scalar fields that hold no objects."""

    def below(value: Any) -> int:
        items = value if isinstance(value, list) else value.values()
        return sum(
            1 + below(v) if isinstance(v, dict) else below(v)
            for v in items
            if isinstance(v, dict | list)
        )

    return sum(below(doc) for doc in docs)


def _seed(api: Api, category: str, articles: int, start: int = 0) -> str:
    found = api.get(f"/api/categories?filters[name][$eq]={category}").json()["data"]
    doc = found[0]["documentId"] if found else api.create("categories", {"name": category})
    doc = doc if isinstance(doc, str) else doc["documentId"]
    for i in range(start, start + articles):
        api.create(
            "articles",
            {"title": f"{category} {i}", "category": doc, "seo": {"metaTitle": f"seo {i}"}},
        )
    return str(doc)


def _budget(r: Any, limit: int) -> None:
    error = failed(r)
    assert error["message"] == (
        f"The populated fields hold too many entries: at most {limit} "
        "(api.rest.maxPopulatedEntries)"
    )
    assert error["details"]["setting"] == "api.rest.maxPopulatedEntries"


@pytest.fixture
def small(backend: str, app_dir: Path) -> Iterator[Api]:
    """An app whose answers may hold 60 populated entries."""
    api_json = app_dir / "config" / "api.json"
    config = json.loads(api_json.read_text())
    config["rest"]["maxPopulatedEntries"] = 60
    api_json.write_text(json.dumps(config))
    yield from make_api(app_dir, database_url(backend, app_dir))


def test_entries_are_counted_as_often_as_the_answer_shows_them(small: Api) -> None:
    _seed(small, "news", 5)
    # 5 articles, their 5 categories, 5 x 5 articles, and their 25 categories or seos: 60
    for end in (DEEPER, SEO):
        r = small.get(NESTED.format(end=end))
        assert r.status_code == 200, r.text
        assert _entries(r.json()["data"]) == 60
    _seed(small, "news", 1, start=5)
    # 6 + 6 + 36 + 36: each of the 36 articles of the third level is one of 6 rows,
    # shown 6 times
    for end in (DEEPER, SEO):
        _budget(small.get(NESTED.format(end=end)), 60)
        # asked again, its rows remembered: still counted
        _budget(small.get(NESTED.format(end=end)), 60)
    r = small.get(NESTED.format(end=""))
    assert r.status_code == 200, r.text
    assert _entries(r.json()["data"]) == 48


def test_graphql_reads_within_the_same_budget(small: Api) -> None:
    _seed(small, "news", 5)
    body = small.post("/graphql", {"query": GRAPHQL}).json()
    assert "errors" not in body, body
    assert _entries(body["data"]["categories"]) == 60
    _seed(small, "news", 1, start=5)
    body = small.post("/graphql", {"query": GRAPHQL}).json()
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "api.rest.maxPopulatedEntries" in error["message"]


def test_a_one_level_populate_past_the_budget_is_refused(small: Api) -> None:
    doc = _seed(small, "news", 61)
    _budget(small.get(f"/api/categories/{doc}?populate[articles][fields][0]=title"), 60)
    r = small.get(
        f"/api/categories/{doc}?populate[articles][fields][0]=title&populate[articles][pagination][limit]=60"
    )
    assert r.status_code == 200, r.text
    assert len(r.json()["data"]["articles"]) == 60


def test_the_fan_out_through_a_category_is_refused_by_default(api: Api) -> None:
    # 30 articles: 30 + 30 + 900 + 900 + 27,000 entries, past the default 20,000
    _seed(api, "news", 30)
    _budget(api.get(FAN_OUT), 20_000)
    # the same three levels less: 30 + 30 + 900
    r = api.get(
        FAN_OUT.partition("&populate[articles][populate][category][populate][articles][populate]")[
            0
        ]
    )
    assert r.status_code == 200, r.text
    assert _entries(r.json()["data"]) == 30 + 30 + 900


def test_the_default_lets_a_page_of_articles_with_their_category_articles_through(
    api: Api,
) -> None:
    _seed(api, "news", 50)
    _seed(api, "sport", 50)
    r = api.get(
        "/api/articles?pagination[pageSize]=100&fields[0]=title"
        "&populate[category][fields][0]=name&populate[category][populate][articles][fields][0]=title"
    )
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert len(data) == 100
    assert {len(a["category"]["articles"]) for a in data} == {50}
    assert _entries(data) == 100 + 100 * 50


def test_populate_nests_at_most_twenty_fields(api: Api) -> None:
    _seed(api, "news", 1)
    twenty = ".".join(["category", "articles"] * 10)
    r = api.get(f"/api/articles?fields[0]=title&populate={twenty}")
    assert r.status_code == 200, r.text
    error = failed(api.get(f"/api/articles?populate={twenty}.category"))
    assert error["message"] == (
        "The populate parameter is nested too deeply: at most 20 (api.rest.maxPopulateDepth)"
    )
