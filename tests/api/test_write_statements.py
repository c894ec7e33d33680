"""The statements a write runs do not grow with the links and components of its document: an
update that re-publishes an article with one tag, file, link and block runs as many as one
with ten of each, and the published version keeps them all, in order. (Each count is the
fewest of a few runs: the app's own background work, such as the events' delivery, may run
a statement in between.)"""

from __future__ import annotations

from typing import Any

from folio.store.program import Program, query
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
    ones: list[int] = []
    tens: list[int] = []
    for k in range(2):
        one = article(api, 1, files, f"-1-{k}", ones)
        ten = article(api, 10, files, f"-10-{k}", tens)
    created = [min(ones), min(tens)]
    # a create that publishes: its relations, media and components written and copied
    if api.folio.db.dialect.arrays:
        assert created[0] == created[1]
    else:
        # (the new components go in chunks of a power of two rows: 10 = 8 + 2)
        assert created[0] <= created[1] <= created[0] + 2
    # the first update of each prepares its statements; the second is the one counted
    republish(api, one, 1)
    republish(api, ten, 1)
    assert min(republish(api, one, 2 + k) for k in range(3)) == min(
        republish(api, ten, 2 + k) for k in range(3)
    )
    got = published(api, ten)
    assert got["views"] == 4
    assert [t["name"] for t in got["tags"]] == [f"t10-{i}-10-1" for i in range(10)]
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
    # the media of a component went with its copy, and the replaced copies left none behind
    for status in ("published", "draft"):
        r = api.get(
            f"/api/articles/{ten['documentId']}?status={status}&populate[seo][populate]=shareImage"
            "&populate[cover]=true"
        )
        assert r.status_code == 200, r.text
        assert r.json()["data"]["seo"]["shareImage"]["id"] == files[0]
        assert r.json()["data"]["cover"]["id"] == files[0]
    assert orphan_media_links(api) == 0


def orphan_media_links(api: Api) -> int:
    """Media links of SEO components or articles whose row is gone."""

    def program() -> Program:
        rows = yield query(
            'SELECT COUNT(*) FROM "files_related_mph" f WHERE (f.related_type = ? AND NOT '
            'EXISTS (SELECT 1 FROM "components_shared_seos" c WHERE c.id = f.related_id)) OR '
            "(f.related_type = ? AND NOT EXISTS "
            '(SELECT 1 FROM "articles" a WHERE a.id = f.related_id))',
            ("shared.seo", "api::article.article"),
        )
        return int(rows[0][0])

    assert api.client.portal is not None
    return int(api.client.portal.call(api.folio.db.read, program()))


def test_publish_statements_do_not_grow_with_links_and_components(api: Api) -> None:
    files = [image_file(api, f"p{i}.png", (2, 2)) for i in range(10)]
    counts: dict[int, int] = {}
    for k, n in enumerate((1, 10, 1, 10, 1, 10)):
        tags = [api.create("tags", {"name": f"p{k}-{i}"})["documentId"] for i in range(n)]
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
        counts[n] = min(counts.get(n, 1000), api.statements() - before)
        got = published(api, doc)
        assert [link["label"] for link in got["links"]] == [f"l{i}" for i in range(n)]
        assert [f["id"] for f in got["gallery"]] == files[:n]
    assert counts[1] == counts[10]


def test_component_writes_do_not_grow_with_the_components_sent(api: Api) -> None:
    doc = api.create("articles", {"title": "c", "slug": "c"}, "?status=draft")
    counts: dict[int, int] = {}
    # (from the second round: the first write replaces no components)
    for k, n in enumerate((1, 10, 13) * 3):
        links = [{"label": f"l{n}-{i}", "url": f"/{i}"} for i in range(n)]
        blocks = [{"__component": "shared.quote", "title": f"q{i}", "body": "b"} for i in range(n)]
        before = api.statements()
        r = api.put(
            f"/api/articles/{doc['documentId']}?status=draft",
            {"data": {"links": links, "blocks": blocks}},
        )
        assert r.status_code == 200, r.text
        if k >= 3:
            counts[n] = min(counts.get(n, 1000), api.statements() - before)
        r = api.get(f"/api/articles/{doc['documentId']}?status=draft&populate=*")
        got = r.json()["data"]
        assert [link["label"] for link in got["links"]] == [link["label"] for link in links]
        assert [b["title"] for b in got["blocks"]] == [f"q{i}" for i in range(n)]
    if api.folio.db.dialect.arrays:
        assert counts[1] == counts[10] == counts[13]
    else:
        # rows go in chunks of a power of two: 10 = 8 + 2, 13 = 8 + 4 + 1 (for each table)
        assert counts[1] < counts[10] < counts[13] <= counts[1] + 4


def test_component_edits_do_not_grow_with_the_components_sent(api: Api) -> None:
    doc = api.create("articles", {"title": "e", "slug": "e"}, "?status=draft")
    path = f"/api/articles/{doc['documentId']}?status=draft"
    counts: dict[int, int] = {}
    for n in (1, 10, 1, 10):
        links = [{"label": f"l{i}", "url": f"/{i}"} for i in range(n)]
        r = api.put(path, {"data": {"links": links}})
        assert r.status_code == 200, r.text
        ids = [link["id"] for link in api.get(f"{path}&populate=links").json()["data"]["links"]]
        # the same components, edited (one of them left as it is)
        edited = [{"id": i, "label": f"e{k}", "url": "/e"} for k, i in enumerate(ids)]
        edited[0] = {"id": ids[0]}
        before = api.statements()
        r = api.put(path, {"data": {"links": edited}})
        assert r.status_code == 200, r.text
        counts[n] = min(counts.get(n, 1000), api.statements() - before)
        got = api.get(f"{path}&populate=links").json()["data"]["links"]
        assert [link["id"] for link in got] == ids
        assert [link["label"] for link in got] == ["l0", *(f"e{k}" for k in range(1, n))]
    # one UPDATE for the nine edited (the first one, unchanged, is not written); elsewhere
    # one each
    assert counts[10] == counts[1] + (1 if api.folio.db.dialect.arrays else 9)
