"""The statements a write runs do not grow with the links and components of its document: an
update that re-publishes an article with one tag, file, link and block runs as many as one
with ten of each, and the published version keeps them all, in order."""

from __future__ import annotations

from typing import Any

from tests.api.test_relations import image_file
from tests.conftest import Api


def article(
    api: Api, n: int, files: list[int], suffix: str = "", counted: list[int] | None = None
) -> dict[str, Any]:
    """A published article with `n` tags, gallery files, links and rich-text blocks (and a
    quote block, an SEO component with its image); `counted` gets the statements of its
    create."""
    tags = [api.create("tags", {"name": f"t{n}-{i}{suffix}"})["documentId"] for i in range(n)]
    before = api.statements()
    blocks: list[dict[str, Any]] = [
        {"__component": "shared.rich-text", "body": f"r{i}"} for i in range(n)
    ]
    blocks.append({"__component": "shared.quote", "title": "q", "body": "b"})
    doc = api.create(
        "articles",
        {
            "title": f"a{n}{suffix}",
            "slug": f"a-{n}{suffix}",
            "tags": tags,
            "gallery": files[:n],
            "cover": files[0],
            "seo": {"metaTitle": "m", "shareImage": files[0]},
            "links": [{"label": f"l{i}", "url": f"/u{i}"} for i in range(n)],
            "blocks": blocks,
        },
    )
    if counted is not None:
        counted.append(api.statements() - before)
    return doc


def republish(api: Api, doc: dict[str, Any], views: int) -> int:
    """Statements run by an update of `doc` that re-publishes it."""
    before = api.statements()
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": {"views": views}})
    assert r.status_code == 200, r.text
    return api.statements() - before


def published(api: Api, doc: dict[str, Any]) -> dict[str, Any]:
    r = api.get(f"/api/articles/{doc['documentId']}?populate=*")
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def test_republish_statements_do_not_grow_with_links_and_components(api: Api) -> None:
    files = [image_file(api, f"p{i}.png", (2, 2)) for i in range(10)]
    article(api, 1, files)
    article(api, 10, files)
    created: list[int] = []
    one = article(api, 1, files, "-1", created)
    ten = article(api, 10, files, "-10", created)
    # a create that publishes: its relations, media and components written and copied
    if api.folio.db.dialect.arrays:
        assert created[0] == created[1]
    else:
        # (the new components go in chunks of a power of two rows: 10 = 8 + 2)
        assert created[0] <= created[1] <= created[0] + 2
    # the first update of each prepares its statements; the second is the one counted
    republish(api, one, 1)
    republish(api, ten, 1)
    assert republish(api, one, 2) == republish(api, ten, 2)
    got = published(api, ten)
    assert got["views"] == 2
    assert [t["name"] for t in got["tags"]] == [f"t10-{i}-10" for i in range(10)]
    assert [f["id"] for f in got["gallery"]] == files
    assert got["cover"]["id"] == files[0]
    assert got["seo"]["metaTitle"] == "m"
    assert [link["label"] for link in got["links"]] == [f"l{i}" for i in range(10)]
    assert [b.get("title") or b.get("body") for b in got["blocks"]] == [
        *(f"r{i}" for i in range(10)),
        "q",
    ]
    # the draft keeps its own components: the published ones are copies
    draft = api.get(f"/api/articles/{ten['documentId']}?status=draft&populate=links")
    assert draft.status_code == 200, draft.text
    draft_ids = {link["id"] for link in draft.json()["data"]["links"]}
    assert draft_ids.isdisjoint(link["id"] for link in got["links"])


def test_publish_statements_do_not_grow_with_links_and_components(api: Api) -> None:
    files = [image_file(api, f"p{i}.png", (2, 2)) for i in range(10)]
    counts = []
    for n in (1, 10, 1, 10):
        tags = [api.create("tags", {"name": f"p{len(counts)}-{i}"})["documentId"] for i in range(n)]
        r = api.post(
            "/api/articles?status=draft",
            {
                "data": {
                    "title": f"d{n}",
                    "tags": tags,
                    "gallery": files[:n],
                    "links": [{"label": f"l{i}", "url": "/"} for i in range(n)],
                }
            },
        )
        assert r.status_code == 201, r.text
        doc = r.json()["data"]
        before = api.statements()
        r = api.put(f"/api/articles/{doc['documentId']}", {"data": {"title": f"p{n}"}})
        assert r.status_code == 200, r.text
        counts.append(api.statements() - before)
        got = published(api, doc)
        assert [link["label"] for link in got["links"]] == [f"l{i}" for i in range(n)]
        assert [f["id"] for f in got["gallery"]] == files[:n]
    # (the first two prepared their statements)
    assert counts[2] == counts[3]


def test_component_writes_do_not_grow_with_the_components_sent(api: Api) -> None:
    doc = api.create("articles", {"title": "c", "slug": "c"}, "?status=draft")
    counts = {}
    for n in (1, 10, 1, 10, 13):
        links = [{"label": f"l{n}-{i}", "url": f"/{i}"} for i in range(n)]
        blocks = [{"__component": "shared.quote", "title": f"q{i}", "body": "b"} for i in range(n)]
        before = api.statements()
        r = api.put(
            f"/api/articles/{doc['documentId']}?status=draft",
            {"data": {"links": links, "blocks": blocks}},
        )
        assert r.status_code == 200, r.text
        counts[n] = api.statements() - before
        r = api.get(f"/api/articles/{doc['documentId']}?status=draft&populate=*")
        got = r.json()["data"]
        assert [link["label"] for link in got["links"]] == [link["label"] for link in links]
        assert [b["title"] for b in got["blocks"]] == [f"q{i}" for i in range(n)]
    if api.folio.db.dialect.arrays:
        assert counts[1] == counts[10] == counts[13]
    else:
        # rows go in chunks of a power of two: 10 = 8 + 2, 13 = 8 + 4 + 1 (for each table)
        assert counts[1] < counts[10] < counts[13] <= counts[1] + 4
