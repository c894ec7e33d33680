"""Populated rows remembered between reads: a read that populates what an earlier one did,
with nothing committed in between, runs fewer statements and answers the same; any commit
(through Folio, or another connection to the database) makes the next read see it."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import asyncpg

from tests.conftest import Api

POPULATE = (
    "/api/articles?sort=title&populate[category][populate][articles][fields][0]=title"
    "&populate[tags][fields][0]=name&populate[seo]=true&populate[cover]=true"
)


def seed(api: Api) -> dict[str, str]:
    news = api.create("categories", {"name": "News"})["documentId"]
    red = api.create("tags", {"name": "red"})["documentId"]
    blue = api.create("tags", {"name": "blue"})["documentId"]
    for i, tags in enumerate([[red], [red, blue], [blue]]):
        api.create(
            "articles",
            {
                "title": f"Article {i}",
                "category": news,
                "tags": tags,
                "seo": {"metaTitle": f"seo {i}"},
            },
        )
    return {"news": news, "red": red, "blue": blue}


def read(api: Api) -> tuple[int, list[dict[str, Any]]]:
    before = api.statements()
    r = api.get(POPULATE)
    assert r.status_code == 200, r.text
    return api.statements() - before, list(r.json()["data"])


def shown(data: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a reader sees of each article's populated fields."""
    return [
        (
            a["title"],
            a["category"]["name"],
            [x["title"] for x in a["category"]["articles"]],
            [t["name"] for t in a["tags"]],
            a["seo"]["metaTitle"],
        )
        for a in data
    ]


def test_a_repeated_populate_runs_fewer_statements_and_answers_the_same(api: Api) -> None:
    seed(api)
    first_count, first = read(api)
    second_count, second = read(api)
    assert second == first
    # the page and its count are read again; the populated fields are not
    assert second_count < first_count
    assert second_count <= 3
    assert shown(first) == [
        ("Article 0", "News", ["Article 0", "Article 1", "Article 2"], ["red"], "seo 0"),
        ("Article 1", "News", ["Article 0", "Article 1", "Article 2"], ["red", "blue"], "seo 1"),
        ("Article 2", "News", ["Article 0", "Article 1", "Article 2"], ["blue"], "seo 2"),
    ]


def test_writes_through_the_api_show_at_once(api: Api) -> None:
    ids = seed(api)
    read(api)
    read(api)
    r = api.put(f"/api/categories/{ids['news']}", {"data": {"name": "World"}})
    assert r.status_code == 200, r.text
    r = api.put(f"/api/tags/{ids['red']}", {"data": {"name": "crimson"}})
    assert r.status_code == 200, r.text
    _, data = read(api)
    assert [a["category"]["name"] for a in data] == ["World"] * 3
    assert [[t["name"] for t in a["tags"]] for a in data] == [
        ["crimson"],
        ["crimson", "blue"],
        ["blue"],
    ]
    # a relation changed, and a new article in the category
    first = data[0]["documentId"]
    r = api.put(f"/api/articles/{first}", {"data": {"tags": {"disconnect": [ids["red"]]}}})
    assert r.status_code == 200, r.text
    api.create("articles", {"title": "Article 3", "category": ids["news"]})
    _, data = read(api)
    assert data[0]["tags"] == []
    assert [x["title"] for x in data[0]["category"]["articles"]] == [
        "Article 0",
        "Article 1",
        "Article 2",
        "Article 3",
    ]
    r = api.delete(f"/api/categories/{ids['news']}")
    assert r.status_code == 204, r.text
    _, data = read(api)
    assert [a["category"] for a in data] == [None] * 4


def rename_outside(api: Api, document_id: str, name: str) -> None:
    """Renames a category through a connection of its own, as another program would."""
    url = api.folio.db.url
    if url.startswith("sqlite:"):
        conn = sqlite3.connect(str(api.folio.db.path))  # type: ignore[attr-defined]
        try:
            conn.execute(
                "UPDATE categories SET name = ? WHERE document_id = ?", (name, document_id)
            )
            conn.commit()
        finally:
            conn.close()
        return

    async def update() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(
                "UPDATE categories SET name = $1 WHERE document_id = $2", name, document_id
            )
        finally:
            await conn.close()

    asyncio.run(update())


def test_a_commit_of_another_connection_shows_at_once(api: Api) -> None:
    ids = seed(api)
    read(api)
    _, data = read(api)
    assert data[0]["category"]["name"] == "News"
    rename_outside(api, ids["news"], "Elsewhere")
    count, data = read(api)
    assert [a["category"]["name"] for a in data] == ["Elsewhere"] * 3
    # and read once more, remembered again
    again, data = read(api)
    assert again < count
    assert [a["category"]["name"] for a in data] == ["Elsewhere"] * 3


def test_different_populates_of_the_same_parents_are_kept_apart(api: Api) -> None:
    seed(api)
    r = api.get("/api/articles?sort=title&populate[tags][fields][0]=name")
    names = [[t["name"] for t in a["tags"]] for a in r.json()["data"]]
    r = api.get("/api/articles?sort=title&populate[tags][filters][name][$eq]=blue")
    filtered = [[t["name"] for t in a["tags"]] for a in r.json()["data"]]
    r = api.get("/api/articles?sort=title&populate[tags][count]=true")
    counts = [a["tags"]["count"] for a in r.json()["data"]]
    assert names == [["red"], ["red", "blue"], ["blue"]]
    assert filtered == [[], ["blue"], ["blue"]]
    assert counts == [1, 2, 1]
    # a page of other articles takes the remembered parents and reads only the others
    r = api.get("/api/articles?sort=title&pagination[pageSize]=2&populate[tags][fields][0]=name")
    assert [[t["name"] for t in a["tags"]] for a in r.json()["data"]] == [["red"], ["red", "blue"]]
    r = api.get(
        "/api/articles?sort=title&pagination[page]=2&pagination[pageSize]=2"
        "&populate[tags][fields][0]=name"
    )
    assert [[t["name"] for t in a["tags"]] for a in r.json()["data"]] == [["blue"]]
