"""End-to-end basics: create, read, list, update, delete."""

from __future__ import annotations

from tests.conftest import Api

FULL = {
    "title": "Hello World",
    "description": "A description",
    "body": "# Heading",
    "content": [{"type": "paragraph", "children": [{"type": "text", "text": "x"}]}],
    "featured": True,
    "views": 5,
    "rating": 4.5,
    "score": 1.25,
    "bigCount": "9007199254740993",
    "publishDate": "2024-03-01",
    "eventAt": "2024-03-01T10:20:30.123Z",
    "startTime": "10:20:30",
    "contactEmail": "john@example.com",
    "status2": "idea",
    "meta": {"a": [1, 2]},
}


def test_create_returns_every_scalar_in_schema_order(api: Api) -> None:
    r = api.post("/api/articles", {"data": FULL})
    assert r.status_code == 201
    assert r.headers["content-type"] == "application/json; charset=utf-8"
    body = r.json()
    assert body["meta"] == {}
    doc = body["data"]
    assert "id" not in doc
    assert list(doc) == [
        "documentId",
        "title",
        "slug",
        "description",
        "body",
        "content",
        "featured",
        "views",
        "rating",
        "score",
        "bigCount",
        "publishDate",
        "eventAt",
        "startTime",
        "contactEmail",
        "status2",
        "meta",
        "createdAt",
        "updatedAt",
        "publishedAt",
        "locale",
    ]
    assert doc["bigCount"] == "9007199254740993"
    assert doc["rating"] == 4.5
    assert doc["eventAt"] == "2024-03-01T10:20:30.123Z"
    assert doc["startTime"] == "10:20:30"
    assert doc["publishDate"] == "2024-03-01"
    assert doc["meta"] == {"a": [1, 2]}
    assert doc["content"][0]["children"][0]["text"] == "x"
    assert doc["locale"] == "en"
    assert doc["slug"] is None
    assert len(doc["documentId"]) == 24 and doc["documentId"].isalnum()
    assert doc["documentId"] == doc["documentId"].lower()
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert got["id"] > 0
    assert {k: v for k, v in got.items() if k != "id"} == doc


def test_list_update_delete(api: Api) -> None:
    created = api.create("categories", {"name": "News"})
    r = api.get("/api/categories")
    assert r.status_code == 200
    assert r.json()["meta"] == {
        "pagination": {"page": 1, "pageSize": 25, "pageCount": 1, "total": 1}
    }
    doc_id = created["documentId"]
    r = api.put(f"/api/categories/{doc_id}", {"data": {"slug": "news"}})
    assert r.status_code == 200
    assert r.json()["data"]["slug"] == "news"
    assert r.json()["data"]["name"] == "News"
    r = api.delete(f"/api/categories/{doc_id}")
    assert r.status_code == 204
    assert r.content == b""
    assert api.get(f"/api/categories/{doc_id}").status_code == 404
    assert api.delete(f"/api/categories/{doc_id}").status_code == 404
