"""The populated answer is the same, byte for byte, whichever way its rows are read: the
rows of an inverse relation (a category's articles) are sorted by the server after an
unsorted statement where the database joins them by hash (PostgreSQL, MySQL), or by the
statement's ORDER BY as before (`Populator.sort_here` False). Every populate shape is
asked both ways: nested, `*`, deep, components, dynamic zones, locales, drafts, sorted and
paged populates, links without a position."""

from __future__ import annotations

from typing import Any

import pytest

from folio.content.sql.load import Populator
from tests.conftest import Api, write_outside

SHAPES = [
    "/api/articles?populate[category][populate][0]=articles",
    "/api/articles?populate[category][populate][articles][fields][0]=title",
    "/api/articles?populate[category][populate][articles][populate]=*",
    "/api/articles?populate=*",
    "/api/articles?populate[category][populate][articles][populate][seo]=true"
    "&populate[category][populate][articles][populate][blocks]=true"
    "&populate[category][populate][articles][populate][links]=true",
    "/api/articles?populate[tags][populate][0]=articles",
    "/api/articles?populate[author][populate][articles][populate][0]=tags",
    "/api/articles?populate[category][populate][articles][sort]=title:desc",
    "/api/articles?populate[category][populate][articles][pagination][pageSize]=2",
    "/api/articles?populate[category][populate][articles][filters][views][$gt]=3",
    "/api/articles?status=draft&populate[category][populate][0]=articles",
    "/api/articles?locale=fr&populate[category][populate][0]=articles",
    "/api/articles?locale=*&populate[category][populate][0]=articles",
    "/api/articles?populate[localizations][populate][category][populate][0]=articles",
    "/api/categories?populate[0]=articles",
    "/api/categories?populate[articles][populate][category][populate][0]=articles",
    "/api/categories?populate[children][populate][0]=articles&populate[0]=parent",
    "/api/tags?populate[articles][populate][0]=tags",
    "/api/tags?locale=fr&populate[0]=articles",
    "/api/authors?populate[articles][populate]=*",
]


def _populator(api: Api) -> Populator:
    populator: Populator = api.folio.documents._reads.populator
    return populator


def seed(api: Api) -> list[str]:
    """Three categories (one the parent of the others), tags, authors and articles with
    every kind of field, some in French, some drafts; returns the articles' ids."""
    news = api.create("categories", {"name": "News"})["documentId"]
    cats = [news]
    for name in ("Sport", "Arts"):
        cats.append(api.create("categories", {"name": name, "parent": news})["documentId"])
    tags = [api.create("tags", {"name": f"tag {i}"})["documentId"] for i in range(4)]
    authors = [api.create("authors", {"name": f"author {i}"})["documentId"] for i in range(2)]
    ids = []
    for i in range(14):
        data: dict[str, Any] = {
            "title": f'Article {i:02} \u00e9t\u00e9 "quoted" \\ tab\t',
            "description": f"About {i}\nline two" if i % 3 else None,
            "body": "# Heading\n\n" + "Some body text. " * (i * 20),
            "content": [{"type": "paragraph", "children": [{"type": "text", "text": f"p{i}"}]}],
            "featured": i % 2 == 0,
            "views": i * 7 % 10,
            "rating": [1.5, 3, 4.25, None][i % 4],
            "score": [0.1, 1e20, -2.5, None, 3.0][i % 5],
            "bigCount": str(9007199254740993 + i) if i % 2 else None,
            "publishDate": f"2024-01-{i + 1:02}",
            "eventAt": f"2024-02-03T04:05:{i:02}.{i * 7:03}Z" if i % 2 else None,
            "startTime": "10:30:00" if i % 3 == 0 else None,
            "meta": {"n": i, "list": [1, 2.5, "x"], "nested": {"a": None}} if i % 2 else None,
            "category": cats[i % 3],
            "tags": [tags[j] for j in range(4) if (i + j) % 3 == 0],
            "author": authors[i % 2],
            "seo": {"metaTitle": f"seo {i}", "metaDescription": "d"} if i % 2 else None,
            "links": [
                {"label": f"l{i}-{k}", "url": f"https://example.com/{k}"} for k in range(i % 3)
            ],
            "blocks": [
                {"__component": "shared.quote", "title": f"q{i}", "body": "quoted"},
                {"__component": "shared.rich-text", "body": f"rich {i}"},
            ][: i % 3],
        }
        query = "?status=draft" if i % 5 == 4 else ""
        did = api.create("articles", data, query)["documentId"]
        ids.append(did)
        if i % 4 == 1:
            r = api.put(
                f"/api/articles/{did}?locale=fr",
                {"data": {"title": f"Article {i} fr", "body": "Texte", "category": cats[i % 3]}},
            )
            assert r.status_code == 200, r.text
    # two articles move to another category: their links come last there, after articles
    # created later (positions and ids no longer in the same order)
    for i in (0, 3):
        r = api.put(f"/api/articles/{ids[i]}", {"data": {"category": cats[(i + 1) % 3]}})
        assert r.status_code == 200, r.text
    return ids


def both_ways(api: Api, path: str) -> bytes:
    """The answer to `path` read with an inverse relation's rows sorted by the database,
    then by the server: both the same bytes."""
    populator = _populator(api)
    populator.sort_here = False
    try:
        before = api.get(path)
    finally:
        populator.sort_here = True
    after = api.get(path)
    assert before.status_code == 200, before.text
    assert after.status_code == 200, after.text
    assert after.content == before.content, path
    return bytes(after.content)


def test_every_populate_shape_answers_the_same_bytes_both_ways(api: Api) -> None:
    seed(api)
    for path in SHAPES:
        both_ways(api, path)
    # the nested answer is not trivially equal: each article's category lists its articles
    body = api.get(SHAPES[0]).json()
    counts = [len(a["category"]["articles"]) for a in body["data"]]
    assert len(counts) == 12 and min(counts) >= 3, counts


@pytest.mark.parametrize("missing", ["some", "all"])
def test_links_without_a_position_come_in_the_same_place_both_ways(api: Api, missing: str) -> None:
    """Links written without an inverse position (by another program, or before positions
    were kept) sort where the database puts NULL."""
    seed(api)
    condition = "source_id % 2 = 0" if missing == "some" else "1 = 1"
    write_outside(
        api.folio.db.url, f"UPDATE articles_category_lnk SET inv_position = NULL WHERE {condition}"
    )
    write_outside(
        api.folio.db.url, f"UPDATE articles_tags_lnk SET inv_position = NULL WHERE {condition}"
    )
    for path in SHAPES:
        both_ways(api, path)
