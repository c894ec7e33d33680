"""`Strapi-Response-Format: v4`: the migration header answers REST reads and writes in the v4
shape (`{id, documentId, attributes}`, relations and media as `{data: ...}`), as probed on
the reference (Strapi 5.54); errors, meta and requests without the header are unchanged."""

from __future__ import annotations

from typing import Any

from tests.api.test_relations import image_file
from tests.conftest import Api, failed

V4 = {"Strapi-Response-Format": "v4"}


def _seed(api: Api) -> tuple[str, int, str]:
    file_id = image_file(api)
    category = api.create("categories", {"name": "News"})["documentId"]
    tag = api.create("tags", {"name": "t1"})["documentId"]
    article = api.create(
        "articles",
        {
            "title": "Hello",
            "category": category,
            "tags": [tag],
            "cover": file_id,
            "gallery": [file_id],
            "seo": {"metaTitle": "m", "shareImage": file_id},
            "links": [{"label": "l", "url": "http://x"}],
            "blocks": [{"__component": "shared.quote", "body": "q"}],
        },
    )
    return article["documentId"], file_id, category


def test_a_populated_list_in_the_v4_shape(api: Api) -> None:
    did, file_id, category = _seed(api)
    r = api.get(
        "/api/articles?fields[0]=title&populate[category][fields][0]=name"
        "&populate[tags][fields][0]=name&populate[cover]=true&populate[gallery]=true"
        "&populate[seo][populate]=*&populate[links]=true&populate[blocks]=true"
        "&populate[author]=true&populate[localizations][fields][0]=title",
        headers=V4,
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["meta"]["pagination"]["total"] == 1
    [doc] = body["data"]
    assert set(doc) == {"id", "documentId", "attributes"}
    assert doc["documentId"] == did
    attrs = doc["attributes"]
    assert attrs["title"] == "Hello"
    assert "id" not in attrs and "documentId" not in attrs
    cat = attrs["category"]["data"]
    assert cat["documentId"] == category and cat["attributes"] == {"name": "News"}
    assert [t["attributes"]["name"] for t in attrs["tags"]["data"]] == ["t1"]
    assert attrs["author"] == {"data": None}
    cover = attrs["cover"]["data"]
    assert cover["id"] == file_id and cover["attributes"]["url"].startswith("/uploads/")
    assert "id" not in cover["attributes"]
    assert [g["id"] for g in attrs["gallery"]["data"]] == [file_id]
    # components stay inline, their media wrapped
    seo = attrs["seo"]
    assert seo["metaTitle"] == "m" and isinstance(seo["id"], int)
    assert seo["shareImage"]["data"]["id"] == file_id
    assert [link["label"] for link in attrs["links"]] == ["l"]
    [quote] = attrs["blocks"]
    assert quote["__component"] == "shared.quote" and quote["body"] == "q"
    assert attrs["localizations"] == {"data": []}


def test_counts_single_documents_and_writes_in_the_v4_shape(api: Api) -> None:
    did, _, category = _seed(api)
    r = api.get(
        f"/api/categories/{category}?populate[articles][count]=true&fields[0]=name", headers=V4
    )
    assert r.status_code == 200, r.text
    one = r.json()
    assert one["meta"] == {}
    assert one["data"]["attributes"] == {
        "name": "News",
        "articles": {"data": {"attributes": {"count": 1}}},
    }

    # a create answers with its id in the v4 shape (the flat answer has none)
    r = api.post("/api/tags?fields[0]=name", {"data": {"name": "t2"}}, headers=V4)
    assert r.status_code == 201, r.text
    created: dict[str, Any] = r.json()["data"]
    assert isinstance(created["id"], int) and created["attributes"] == {"name": "t2"}
    flat = api.post("/api/tags", {"data": {"name": "t3"}}).json()["data"]
    assert "id" not in flat and flat["name"] == "t3"

    r = api.put(f"/api/articles/{did}?fields[0]=title", {"data": {"title": "New"}}, headers=V4)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"] == {"title": "New"}


def test_errors_and_other_header_values_are_unchanged(api: Api) -> None:
    _seed(api)
    error = failed(api.get("/api/articles?filters[nope][$eq]=1", headers=V4))
    assert error["message"] == "Invalid key nope"
    failed(api.get("/api/articles/missing", headers=V4), 404, "NotFoundError")
    # only the exact value `v4` asks for the old shape
    for value in ("V4", "v5"):
        [doc] = api.get("/api/articles", headers={"Strapi-Response-Format": value}).json()["data"]
        assert "attributes" not in doc and doc["title"] == "Hello"
