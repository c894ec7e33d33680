"""Rows remembered between reads: a read that populates what an earlier one did, or asks
again for a page of a filtered list, with nothing committed in between, runs fewer
statements and answers the same; any commit (through Folio, or another connection to the
database) makes the next read see it."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from tests.conftest import Api, quiet_tries, write_outside

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


def read_again(api: Api, first: list[dict[str, Any]]) -> int:
    """The fewest statements a repeated read ran, over a few tries, each answering as the
    `first` did. PostgreSQL's version token is the server's snapshot, which any commit on
    the server moves, in other databases too: a try that another program's commit came
    before reads anew, and is not the one a quiet server would show."""
    fewest = None
    for _ in quiet_tries():
        count, data = read(api)
        assert data == first
        fewest = count if fewest is None else min(fewest, count)
        if fewest <= 1:
            break
    assert fewest is not None
    return fewest


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
    second_count = read_again(api, first)
    # only the database's version token is asked for: the page, its count and the
    # populated fields are remembered
    assert second_count < first_count
    assert second_count <= 1
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


def rename_outside(
    api: Api, document_id: str, name: str, table: str = "categories", column: str = "name"
) -> None:
    """Renames a category (or sets another column) through a connection of its own, as
    another program would (on MySQL, another process of the app: conftest.write_outside)."""
    write_outside(
        api.folio.db.url,
        f'UPDATE "{table}" SET "{column}" = ? WHERE document_id = ?',
        (name, document_id),
    )


def test_a_commit_of_another_connection_shows_at_once(api: Api) -> None:
    ids = seed(api)
    read(api)
    _, data = read(api)
    assert data[0]["category"]["name"] == "News"
    rename_outside(api, ids["news"], "Elsewhere")
    count, data = read(api)
    assert [a["category"]["name"] for a in data] == ["Elsewhere"] * 3
    # and read once more, remembered again
    assert read_again(api, data) < count


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


FILTERED = "/api/articles?filters[title][$containsi]=ART&sort=title:desc&pagination[pageSize]=2"


def page(api: Api, target: str = FILTERED) -> tuple[int, list[str], int]:
    """(statements run, titles shown, total) of a page."""
    before = api.statements()
    r = api.get(target)
    assert r.status_code == 200, r.text
    body = r.json()
    titles = [a["title"] for a in body["data"]]
    return api.statements() - before, titles, body["meta"]["pagination"]["total"]


def test_a_repeated_filtered_page_runs_fewer_statements_and_answers_the_same(api: Api) -> None:
    seed(api)
    api.create("articles", {"title": "Other"})
    first_count, titles, total = page(api)
    assert (titles, total) == (["Article 2", "Article 1"], 3)
    second_count, again, total = page(api)
    assert (again, total) == (["Article 2", "Article 1"], 3)
    # SQLite: the version token only; PostgreSQL: the page's statement, shut by the
    # snapshot it was remembered under (test_a_shut_page_reads_nothing)
    assert second_count <= 1
    assert second_count < first_count or api.folio.db.dialect.name == "postgres"
    # another page, another size: each its own
    _, titles, total = page(api, FILTERED + "&pagination[page]=2")
    assert (titles, total) == (["Article 0"], 3)
    _, titles, total = page(api, FILTERED.replace("pageSize]=2", "pageSize]=1"))
    assert (titles, total) == (["Article 2"], 3)
    _, titles, total = page(api, FILTERED.replace("ART", "ther"))
    assert (titles, total) == (["Other"], 1)


def test_a_filtered_page_shows_writes_at_once(api: Api) -> None:
    seed(api)
    other = api.create("articles", {"title": "Other"})["documentId"]
    page(api)
    page(api)
    # through the API: a new match, then a match no longer
    r = api.put(f"/api/articles/{other}", {"data": {"title": "Article 9"}})
    assert r.status_code == 200, r.text
    _, titles, total = page(api)
    assert (titles, total) == (["Article 9", "Article 2"], 4)
    r = api.put(f"/api/articles/{other}", {"data": {"title": "Gone"}})
    assert r.status_code == 200, r.text
    _, titles, total = page(api)
    assert (titles, total) == (["Article 2", "Article 1"], 3)
    # by another connection
    page(api)
    rename_outside(api, other, "Article 5", table="articles", column="title")
    count, titles, total = page(api)
    assert (titles, total) == (["Article 5", "Article 2"], 4)
    again, titles, total = page(api)
    assert again < count or api.folio.db.dialect.name == "postgres"  # one statement, shut
    assert (titles, total) == (["Article 5", "Article 2"], 4)


def test_a_shut_page_reads_nothing(api: Api) -> None:
    """PostgreSQL: a remembered page's statement, handed the snapshot it was remembered
    under, does no work: its plan's scans are never executed."""
    import pytest

    if api.folio.db.dialect.name != "postgres":
        pytest.skip("PostgreSQL only")
    from folio.auth.principal import OPEN

    seed(api)
    documents = api.folio.documents
    ct = api.folio.registry.content_types["api::article.article"]
    parsed = documents.parser.parse(ct, {"filters": {"title": {"$containsi": "art"}}}, OPEN)
    reads = documents._reads
    plan = reads.reader(ct).find_statements(parsed, "en", True)

    async def explain() -> list[str]:
        conn = await asyncpg.connect(api.folio.db.url)
        # one snapshot for both statements, whatever commits on the server meanwhile
        transaction = conn.transaction(isolation="repeatable_read", readonly=True)
        await transaction.start()
        try:
            snapshot = await conn.fetchval("SELECT pg_current_snapshot()::text")
            sql = plan.page
            n = 0
            while "?" in sql:
                n += 1
                sql = sql.replace("?", f"${n}", 1)
            params = [*plan.page_params, snapshot, snapshot]
            rows = await conn.fetch(f"EXPLAIN (ANALYZE, COSTS OFF) {sql}", *params)
            return [r[0] for r in rows]
        finally:
            await transaction.rollback()
            await conn.close()

    lines = asyncio.run(explain())
    scans = [line for line in lines if "Scan" in line]
    assert scans and all("never executed" in line for line in scans), lines
