"""Components keep their identity through writes: a component value that carries the `id` of
one of the written version's components updates that component in place (the fields it does
not send keep their values), entries without `id` are new components, and an `id` that does
not belong to the written version is refused without writing anything. With Draft & Publish an
update writes the draft, so the draft's component ids (read with `status=draft`) are the ones
it may name; the published copy has its own."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.test_relations import article, image_file, ok, put, read, update
from tests.conftest import Api, failed

SEO = "?status=draft&populate[seo][populate]=shareImage"
ALL = "?status=draft&populate[0]=seo&populate[1]=links&populate[2]=blocks"


def not_related(field: str) -> str:
    return f"Some of the provided components in {field} are not related to the entity"


def draft(api: Api, doc: str, query: str = ALL) -> dict[str, Any]:
    return read(api, "articles", doc, query)


def test_single_component_with_its_id_keeps_what_it_does_not_send(api: Api) -> None:
    image = image_file(api)
    doc = article(api, "A", seo={"metaTitle": "T", "metaDescription": "D", "shareImage": image})
    seo = draft(api, doc, SEO)["seo"]
    update(api, "articles", doc, {"seo": {"id": seo["id"], "metaTitle": "new"}})
    got = draft(api, doc, SEO)["seo"]
    assert got["id"] == seo["id"]
    assert (got["metaTitle"], got["metaDescription"]) == ("new", "D")
    assert got["shareImage"]["id"] == image
    # the update was published too
    published = read(api, "articles", doc, "?populate[seo][populate]=shareImage")["seo"]
    assert (published["metaTitle"], published["metaDescription"]) == ("new", "D")
    assert published["shareImage"]["id"] == image
    # a value without id is a new component that replaces the old one
    update(api, "articles", doc, {"seo": {"metaTitle": "fresh"}})
    got = draft(api, doc, SEO)["seo"]
    assert got["id"] != seo["id"]
    assert (got["metaTitle"], got["metaDescription"], got.get("shareImage")) == (
        "fresh",
        None,
        None,
    )


def test_get_change_one_field_put_back(api: Api) -> None:
    doc = article(
        api,
        "A",
        seo={"metaTitle": "T", "metaDescription": "D"},
        links=[{"label": "a", "url": "/a"}, {"label": "b", "url": "/b"}],
        blocks=[
            {"__component": "shared.quote", "title": "Q", "body": "quoted"},
            {"__component": "shared.rich-text", "body": "# R"},
        ],
    )
    before = draft(api, doc)
    changed = {k: before[k] for k in ("seo", "links", "blocks")}
    changed["links"][1]["label"] = "B"
    changed["blocks"][0]["title"] = "Q2"
    update(api, "articles", doc, changed)
    after = draft(api, doc)
    assert after["seo"] == before["seo"]
    assert after["links"] == [
        {"id": before["links"][0]["id"], "label": "a", "url": "/a"},
        {"id": before["links"][1]["id"], "label": "B", "url": "/b"},
    ]
    assert after["blocks"][0] == {**before["blocks"][0], "title": "Q2"}
    assert after["blocks"][1] == before["blocks"][1]
    published = read(api, "articles", doc, "?populate[0]=links&populate[1]=blocks")
    assert [x["label"] for x in published["links"]] == ["a", "B"]
    assert published["blocks"][0]["body"] == "quoted"


def test_repeatable_entries_keep_their_ids_reorder_and_mix_with_new_ones(api: Api) -> None:
    doc = article(api, "A", links=[{"label": "a", "url": "/a"}, {"label": "b", "url": "/b"}])
    a, b = (x["id"] for x in draft(api, doc)["links"])
    update(
        api,
        "articles",
        doc,
        {"links": [{"id": b, "label": "b2"}, {"label": "new"}]},
        "?status=draft",
    )
    links = draft(api, doc)["links"]
    assert [(x["label"], x["url"]) for x in links] == [("b2", "/b"), ("new", None)]
    assert links[0]["id"] == b
    assert links[1]["id"] not in (a, b)
    # the draft-only update left the published version alone
    published = read(api, "articles", doc, "?populate=links")["links"]
    assert [x["label"] for x in published] == ["a", "b"]
    # the removed entry is gone: naming it again is refused
    r = put(api, "articles", doc, {"links": [{"id": a, "label": "back"}]}, "?status=draft")
    assert failed(r, 400, "ApplicationError")["message"] == not_related("links")


def test_dynamic_zone_entries_with_their_id_on_a_single_type(api: Api) -> None:
    blocks = [
        {"__component": "shared.quote", "title": "Q", "body": "quoted"},
        {"__component": "shared.rich-text", "body": "intro"},
    ]
    ok(api.put("/api/about", {"data": {"title": "About", "blocks": blocks}}))
    got = ok(api.get("/api/about?populate=blocks"))["data"]["blocks"]
    quote = got[0]
    r = api.put(
        "/api/about",
        {"data": {"blocks": [{"__component": "shared.quote", "id": quote["id"], "body": "new"}]}},
    )
    ok(r)
    after = ok(api.get("/api/about?populate=blocks"))["data"]["blocks"]
    assert after == [{**quote, "body": "new"}]


def snapshot(api: Api, doc: str) -> tuple[Any, ...]:
    """What a failed write must leave unchanged: both versions, with their components."""
    query = "?populate[0]=seo&populate[1]=links&populate[2]=blocks"
    return (
        read(api, "articles", doc, "?status=draft&" + query[1:]),
        read(api, "articles", doc, query),
    )


@pytest.fixture
def two_articles(api: Api) -> tuple[str, str]:
    def make(title: str) -> str:
        return article(
            api,
            title,
            seo={"metaTitle": f"{title} seo", "metaDescription": "D"},
            links=[{"label": f"{title} link"}],
            blocks=[{"__component": "shared.quote", "title": f"{title} quote"}],
        )

    return make("One"), make("Two")


def refused(api: Api, doc: str, data: dict[str, Any], field: str, query: str = "") -> None:
    before = snapshot(api, doc)
    error = failed(
        put(api, "articles", doc, {"title": "changed", **data}, query), 400, "ApplicationError"
    )
    assert error["message"] == not_related(field)
    assert error["details"] == {}
    assert snapshot(api, doc) == before


def test_another_documents_component_is_refused(api: Api, two_articles: tuple[str, str]) -> None:
    one, two = two_articles
    other = draft(api, two)
    refused(api, one, {"seo": {"id": other["seo"]["id"], "metaTitle": "x"}}, "seo")
    refused(api, one, {"links": [{"id": other["links"][0]["id"], "label": "x"}]}, "links")
    block = {"__component": "shared.quote", "id": other["blocks"][0]["id"], "title": "x"}
    refused(api, one, {"blocks": [block]}, "blocks")
    refused(api, one, {"seo": {"id": other["seo"]["id"]}}, "seo", "?status=draft")
    # the other document is untouched as well
    assert draft(api, two) == other


def test_the_published_copys_component_is_refused(api: Api, two_articles: tuple[str, str]) -> None:
    one, _ = two_articles
    published = read(api, "articles", one, "?populate[0]=seo&populate[1]=links")
    assert published["seo"]["id"] != draft(api, one)["seo"]["id"]
    refused(api, one, {"seo": {"id": published["seo"]["id"], "metaTitle": "x"}}, "seo")
    refused(api, one, {"links": [{"id": published["links"][0]["id"]}]}, "links", "?status=draft")


def test_unknown_component_ids_are_refused(api: Api, two_articles: tuple[str, str]) -> None:
    one, _ = two_articles
    mine = draft(api, one)
    refused(api, one, {"seo": {"id": 999999}}, "seo")
    # a valid entry beside an unknown one does not get written either
    links = [{"id": mine["links"][0]["id"], "label": "kept?"}, {"id": 999999}]
    refused(api, one, {"links": links}, "links")
    # the same entry twice
    twice = [{"id": mine["links"][0]["id"]}, {"id": mine["links"][0]["id"]}]
    refused(api, one, {"links": twice}, "links")
    refused(api, one, {"links": [{"id": "not-a-number"}]}, "links")


def test_a_create_cannot_name_existing_components(api: Api, two_articles: tuple[str, str]) -> None:
    _, two = two_articles
    seo_id = draft(api, two)["seo"]["id"]
    r = api.post("/api/articles", {"data": {"title": "New", "seo": {"id": seo_id}}})
    assert failed(r, 400, "ApplicationError")["message"] == not_related("seo")
    assert len(ok(api.get("/api/articles?status=draft"))["data"]) == 2
