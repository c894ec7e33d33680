"""The read memo under a stream of writes: every read after a write shows it, however the
memo has come to treat the reads (kept at once, kept when read twice between writes, or
left aside while nothing it keeps is used); and once the writes stop, a repeated read is
remembered again and runs fewer statements."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api, quiet_tries

# a filtered, populated page: the page, its total and two populated relations
READ = (
    "/api/articles?filters[title][$containsi]=art&sort=title"
    "&populate[category][fields][0]=name&populate[tags][fields][0]=name"
)


def seed(api: Api) -> tuple[list[str], str]:
    news = api.create("categories", {"name": "News"})["documentId"]
    red = api.create("tags", {"name": "red"})["documentId"]
    ids = [
        api.create("articles", {"title": f"Article {i}", "category": news, "tags": [red]})[
            "documentId"
        ]
        for i in range(3)
    ]
    return ids, news


def read(api: Api) -> tuple[int, list[dict[str, Any]], int]:
    """(statements run, articles, total) of READ."""
    before = api.statements()
    r = api.get(READ)
    assert r.status_code == 200, r.text
    body = r.json()
    return api.statements() - before, body["data"], body["meta"]["pagination"]["total"]


def test_reads_between_writes_show_each_write_and_are_remembered_once_writes_stop(
    api: Api,
) -> None:
    ids, news = seed(api)
    for n in range(90):
        # a write, then the read that a cached answer would get wrong: each time another
        # article renamed, the category renamed, or a new matching article
        target = ids[n % len(ids)]
        if n % 3 == 0:
            r = api.put(f"/api/articles/{target}", {"data": {"views": n}})
        elif n % 3 == 1:
            r = api.put(f"/api/categories/{news}", {"data": {"name": f"News {n}"}})
        else:
            r = api.put(f"/api/articles/{target}", {"data": {"title": f"Article {n}"}})
        assert r.status_code == 200, r.text
        if n == 60:
            ids.append(
                api.create("articles", {"title": "Article new", "category": news})["documentId"]
            )
        _, data, total = read(api)
        assert total == len(data) == len(ids)
        by_id = {a["documentId"]: a for a in data}
        if n % 3 == 0:
            assert by_id[target]["views"] == n
        elif n % 3 == 1:
            assert {a["category"]["name"] for a in data} == {f"News {n}"}
        else:
            assert by_id[target]["title"] == f"Article {n}"
        assert [t["name"] for t in by_id[ids[0]]["tags"]] == ["red"]
    # the writes stop: the same read, repeated, comes to be answered from the memo (the
    # fewest statements over the tries: PostgreSQL's token moves with any commit on the
    # server, in other databases too)
    first, expected, _ = read(api)
    fewest = first
    for _ in quiet_tries():
        count, data, _ = read(api)
        assert data == expected
        fewest = min(fewest, count)
        if fewest <= 1:
            break
    assert fewest <= 1 < first
