"""The Content Manager's API (/admin/api/content-manager) as the admin panel uses it, signed
in as the first administrator: the model's metadata, the list (search, filters, sort, pages,
locale, status), the edit view's document, writes of every attribute kind of the blog app,
relation order, components and zones, publish / unpublish / discard, bulk actions, single
types, uids, relation targets, validation errors with their paths, the list configuration
and the events admin writes make."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from folio.content.events import Event
from tests.api.adminapp import AdminApi, admin_client, make_admin_app
from tests.api.test_relations import png, upload_one
from tests.conftest import failed

B = "/admin/api/content-manager"
ART = f"{B}/collection-types/api::article.article"
TAG = f"{B}/collection-types/api::tag.tag"
GLOBAL = f"{B}/single-types/api::global.global"


@pytest.fixture
def admin_api(backend: str, tmp_path: Path) -> Iterator[AdminApi]:
    yield from admin_client(make_admin_app(tmp_path), backend)


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def create(admin: AdminApi, data: dict[str, Any], base: str = ART, query: str = "") -> Any:
    return ok(admin.post(f"{base}{query}", {"data": data}), 201)["data"]


def events_since(admin: AdminApi, after: int) -> list[Event]:
    portal = admin.client.portal  # type: ignore[attr-defined]
    found: list[Event] = portal.call(admin.folio.documents.events_since, after, 1000)
    return found


def last_event(admin: AdminApi) -> int:
    portal = admin.client.portal  # type: ignore[attr-defined]
    latest: int = portal.call(admin.folio.documents.last_event_id)
    return latest


def names(events: list[Event]) -> list[tuple[str, str | None, str | None]]:
    return [(e.event, e.status, e.locale) for e in events]


# ---------------------------------------------------------------------- access
def test_every_route_needs_a_session_and_writes_the_csrf_token(admin_api: AdminApi) -> None:
    with admin_api.anonymous() as anonymous:
        failed(anonymous.get(f"{B}/init"), 401, "UnauthorizedError")
        failed(anonymous.get(ART), 401, "UnauthorizedError")
    del admin_api.client.headers["X-Folio-CSRF"]
    failed(admin_api.post(ART, {"data": {"title": "x"}}), 403, "ForbiddenError")
    assert ok(admin_api.get(ART))["data"] == []


# ---------------------------------------------------------------------- metadata
def test_init_describes_types_components_and_locales(admin_api: AdminApi) -> None:
    data = ok(admin_api.get(f"{B}/init"))["data"]
    types = {ct["uid"]: ct for ct in data["contentTypes"]}
    assert all(uid.startswith("api::") for uid in types)
    assert "api::article.article" in types and "api::global.global" in types
    article = types["api::article.article"]
    assert article["kind"] == "collectionType"
    assert article["draftAndPublish"] is True and article["localized"] is True
    assert article["mainField"] == "title"
    assert types["api::global.global"]["kind"] == "singleType"
    attrs = article["attributes"]
    widgets = {name: a["widget"] for name, a in attrs.items()}
    assert widgets == {
        "title": "string",
        "slug": "uid",
        "description": "text",
        "body": "richtext",
        "content": "blocks",
        "featured": "boolean",
        "views": "integer",
        "rating": "decimal",
        "score": "float",
        "bigCount": "biginteger",
        "publishDate": "date",
        "eventAt": "datetime",
        "startTime": "time",
        "contactEmail": "email",
        "status2": "enumeration",
        "meta": "json",
        "cover": "media",
        "gallery": "media",
        "category": "relation",
        "tags": "relation",
        "author": "relation",
        "seo": "component",
        "links": "component",
        "blocks": "dynamiczone",
    }
    assert attrs["title"]["required"] is True and attrs["title"]["localized"] is True
    assert attrs["slug"]["targetField"] == "title"
    assert attrs["status2"]["enum"] == ["idea", "writing", "review"]
    assert attrs["featured"]["default"] is False
    # media and relations are shared by the locales in the blog app
    assert attrs["cover"]["localized"] is False and attrs["cover"]["multiple"] is False
    assert attrs["gallery"]["multiple"] is True
    assert attrs["gallery"]["allowedTypes"] == ["images", "files"]
    assert attrs["tags"]["multiple"] is True and attrs["category"]["multiple"] is False
    assert attrs["tags"]["target"] == "api::tag.tag"
    assert attrs["tags"]["targetMainField"] == "name"
    assert attrs["tags"]["targetDraftAndPublish"] is False
    assert attrs["tags"]["targetLocalized"] is False
    assert attrs["seo"]["component"] == "shared.seo" and attrs["seo"]["repeatable"] is False
    assert attrs["links"]["repeatable"] is True
    assert attrs["blocks"]["components"] == ["shared.quote", "shared.rich-text", "shared.media"]
    event = types["api::event.event"]["attributes"]
    assert event["capacity"]["min"] == 0
    assert event["name"]["localized"] is False  # the type has no locales
    components = {c["uid"]: c for c in data["components"]}
    assert components["shared.seo"]["category"] == "shared"
    assert components["shared.seo"]["displayName"] == "Seo"
    assert components["shared.seo"]["attributes"]["shareImage"]["widget"] == "media"
    assert data["defaultLocale"] == "en"
    assert data["locales"][0] == {"code": "en", "name": "English (en)", "isDefault": True}
    assert [loc["code"] for loc in data["locales"]] == ["en", "fr", "de"]


# ---------------------------------------------------------------------- writes and reads
def test_create_and_read_every_attribute_kind(admin_api: AdminApi) -> None:
    image = upload_one(admin_api.api, ("a.png", png(30, 20), "image/png"))
    other = upload_one(admin_api.api, ("b.png", png(20, 30), "image/png"))
    tag1 = create(admin_api, {"name": "One"}, TAG)
    tag2 = create(admin_api, {"name": "Two"}, TAG)
    category = create(admin_api, {"name": "News"}, f"{B}/collection-types/api::category.category")
    data = {
        "title": "Every kind",
        "slug": "every-kind",
        "description": "A text",
        "body": "# Markdown",
        "content": [{"type": "paragraph", "children": [{"type": "text", "text": "Hi"}]}],
        "featured": True,
        "views": 12,
        "rating": 4.5,
        "score": 1.25,
        "bigCount": "9007199254740993",
        "publishDate": "2026-01-02",
        "eventAt": "2026-01-02T03:04:05.000Z",
        "startTime": "10:30:00.000",
        "contactEmail": "ed@example.com",
        "status2": "writing",
        "meta": {"a": [1, 2]},
        "cover": image["id"],
        "gallery": [other["id"], image["id"]],
        "category": {"set": [{"documentId": category["documentId"]}]},
        "tags": {"set": [{"documentId": tag2["documentId"]}, {"documentId": tag1["documentId"]}]},
        "seo": {"metaTitle": "Meta", "shareImage": image["id"]},
        "links": [{"label": "a", "url": "/a"}, {"label": "b", "url": "/b"}],
        "blocks": [
            {"__component": "shared.quote", "title": "Q", "body": "said"},
            {"__component": "shared.rich-text", "body": "**b**"},
            {"__component": "shared.media", "file": other["id"]},
        ],
    }
    r = admin_api.post(f"{ART}?locale=en", {"data": data})
    body = ok(r, 201)
    doc = body["data"]
    assert doc["status"] == "draft" and doc["publishedAt"] is None and doc["locale"] == "en"
    for name in ("title", "slug", "description", "body", "content", "featured", "views"):
        assert doc[name] == data[name]
    assert doc["bigCount"] == "9007199254740993"
    assert doc["meta"] == {"a": [1, 2]} and doc["status2"] == "writing"
    assert doc["cover"]["id"] == image["id"] and doc["cover"]["url"]
    assert [f["id"] for f in doc["gallery"]] == [other["id"], image["id"]]
    assert doc["category"] == {
        "id": category["id"],
        "documentId": category["documentId"],
        "locale": None,
        "label": "News",
        "status": "published",
    }
    assert [t["label"] for t in doc["tags"]] == ["Two", "One"]
    assert doc["seo"]["metaTitle"] == "Meta" and doc["seo"]["shareImage"]["id"] == image["id"]
    assert [link["label"] for link in doc["links"]] == ["a", "b"]
    assert [b["__component"] for b in doc["blocks"]] == [
        "shared.quote",
        "shared.rich-text",
        "shared.media",
    ]
    assert doc["blocks"][2]["file"]["id"] == other["id"]
    assert body["meta"] == {"availableLocales": [], "availableStatus": []}
    again = ok(admin_api.get(f"{ART}/{doc['documentId']}?locale=en"))
    assert again == body


def test_relation_order_is_kept_and_changed_by_set(admin_api: AdminApi) -> None:
    tags = [create(admin_api, {"name": n}, TAG) for n in ("a", "b", "c", "d")]
    ids = [t["documentId"] for t in tags]
    order = [ids[2], ids[0], ids[3], ids[1]]
    doc = create(admin_api, {"title": "T", "tags": {"set": [{"documentId": i} for i in order]}})
    assert [t["documentId"] for t in doc["tags"]] == order
    reordered = [ids[1], ids[3], ids[2]]
    r = admin_api.put(
        f"{ART}/{doc['documentId']}?locale=en",
        {"data": {"tags": {"set": [{"documentId": i} for i in reordered]}}},
    )
    assert [t["documentId"] for t in ok(r)["data"]["tags"]] == reordered
    read = ok(admin_api.get(f"{ART}/{doc['documentId']}"))["data"]
    assert [t["label"] for t in read["tags"]] == ["b", "d", "c"]


def test_components_keep_their_ids_and_zones_are_replaced(admin_api: AdminApi) -> None:
    doc = create(
        admin_api,
        {
            "title": "C",
            "links": [{"label": "a", "url": "/a"}, {"label": "b", "url": "/b"}],
            "blocks": [{"__component": "shared.quote", "title": "one"}],
        },
    )
    first, second = doc["links"]
    r = admin_api.put(
        f"{ART}/{doc['documentId']}",
        {
            "data": {
                "links": [
                    {"id": second["id"], "label": "b2", "url": "/b"},
                    {"id": first["id"], "label": "a", "url": "/a"},
                    {"label": "c", "url": "/c"},
                ],
                "blocks": [
                    {"__component": "shared.rich-text", "body": "x"},
                    {"__component": "shared.quote", "id": doc["blocks"][0]["id"], "title": "1"},
                ],
            }
        },
    )
    saved = ok(r)["data"]
    assert [(link["id"], link["label"]) for link in saved["links"][:2]] == [
        (second["id"], "b2"),
        (first["id"], "a"),
    ]
    assert saved["links"][2]["label"] == "c"
    assert [b["__component"] for b in saved["blocks"]] == ["shared.rich-text", "shared.quote"]
    assert saved["blocks"][1]["id"] == doc["blocks"][0]["id"]
    assert saved["blocks"][1]["title"] == "1"


def test_validation_errors_keep_the_paths_of_their_fields(admin_api: AdminApi) -> None:
    error = failed(
        admin_api.post(
            ART,
            {
                "data": {
                    "title": "V",
                    "views": "many",
                    "contactEmail": "nope",
                    "status2": "other",
                    "links": [{"label": 5}],
                }
            },
        )
    )
    paths = {tuple(e["path"]) for e in error["details"]["errors"]}
    assert ("views",) in paths and ("contactEmail",) in paths and ("status2",) in paths
    assert ("links", "0", "label") in paths or ("links", 0, "label") in paths
    # publication requires what a draft may leave empty
    doc = create(admin_api, {"description": "no title"})
    assert doc["title"] is None
    error = failed(admin_api.post(f"{ART}/{doc['documentId']}/actions/publish", {}))
    assert [e["path"] for e in error["details"]["errors"]] == [["title"]]
    # a unique value taken
    create(admin_api, {"name": "Same"}, f"{B}/collection-types/api::category.category")
    error = failed(
        admin_api.post(f"{B}/collection-types/api::category.category", {"data": {"name": "Same"}})
    )
    assert error["details"]["errors"][0]["path"] == ["name"]
    failed(admin_api.post(ART, {"title": "no data key"}))
    failed(admin_api.post(ART, {"data": "text"}))


def test_unknown_types_documents_and_actions_are_not_found(admin_api: AdminApi) -> None:
    failed(admin_api.get(f"{B}/collection-types/api::nope.nope"), 404, "NotFoundError")
    failed(admin_api.get(f"{B}/collection-types/plugin::upload.file"), 404, "NotFoundError")
    failed(admin_api.get(f"{ART}/doesnotexist"), 404, "NotFoundError")
    failed(admin_api.get(f"{B}/collection-types/api::global.global"), 404, "NotFoundError")
    failed(admin_api.get(f"{B}/single-types/api::article.article"), 404, "NotFoundError")
    failed(admin_api.put(f"{ART}/doesnotexist", {"data": {"title": "x"}}), 404, "NotFoundError")
    failed(admin_api.post(f"{ART}/doesnotexist/actions/publish", {}), 404, "NotFoundError")
    failed(admin_api.post(f"{ART}/x/actions/explode", {}), 404, "NotFoundError")
    failed(
        admin_api.post(f"{ART}/actions/bulkExplode", {"documentIds": ["x"]}), 404, "NotFoundError"
    )
    failed(admin_api.get(f"{B}/configuration/api::nope.nope"), 404, "NotFoundError")
    failed(admin_api.get(f"{B}/relations/api::article.article/title"), 404, "NotFoundError")
    failed(admin_api.get(f"{ART}?locale=xx"))
    failed(admin_api.get(f"{ART}?sort=nope:ASC"))
    failed(admin_api.get(f"{ART}?filters[nope][$eq]=1"))
    failed(admin_api.get(f"{ART}?pageSize=abc"))


# ---------------------------------------------------------------------- the list
def test_list_search_filters_sort_pages_and_locale(admin_api: AdminApi) -> None:
    for i in range(12):
        create(
            admin_api,
            {"title": f"Post {i:02d}", "views": i, "description": "zebra" if i % 4 == 0 else "x"},
        )
    fr = create(admin_api, {"title": "Article français"}, query="?locale=fr")
    page = ok(admin_api.get(ART))
    assert page["meta"]["pagination"] == {"page": 1, "pageSize": 10, "pageCount": 2, "total": 12}
    # the default sort is the main field, ascending
    assert [row["title"] for row in page["data"]][:2] == ["Post 00", "Post 01"]
    row = page["data"][0]
    assert row["status"] == "draft" and row["locale"] == "en" and row["publishedAt"] is None
    assert {"id", "documentId", "updatedAt", "title", "views"} <= set(row)
    assert "tags" not in row and "seo" not in row
    second = ok(admin_api.get(f"{ART}?page=2&pageSize=5&sort=views:DESC"))
    assert [row["views"] for row in second["data"]] == [6, 5, 4, 3, 2]
    found = ok(admin_api.get(f"{ART}?_q=ZEBRA"))
    assert sorted(row["views"] for row in found["data"]) == [0, 4, 8]
    filtered = ok(admin_api.get(f"{ART}?_q=zebra&filters[views][$gt]=3"))
    assert sorted(row["views"] for row in filtered["data"]) == [4, 8]
    assert ok(admin_api.get(f"{ART}?_q=post%2003"))["data"][0]["views"] == 3
    french = ok(admin_api.get(f"{ART}?locale=fr"))
    assert [row["documentId"] for row in french["data"]] == [fr["documentId"]]
    assert french["data"][0]["locale"] == "fr"


def test_list_status_per_row(admin_api: AdminApi) -> None:
    create(admin_api, {"title": "A draft"})
    published = create(admin_api, {"title": "B published"})
    modified = create(admin_api, {"title": "C modified"})
    for doc in (published, modified):
        ok(admin_api.post(f"{ART}/{doc['documentId']}/actions/publish", {}))
    ok(admin_api.put(f"{ART}/{modified['documentId']}", {"data": {"views": 3}}))
    rows = ok(admin_api.get(ART))["data"]
    assert [(r["title"], r["status"]) for r in rows] == [
        ("A draft", "draft"),
        ("B published", "published"),
        ("C modified", "modified"),
    ]
    assert rows[0]["publishedAt"] is None
    assert rows[1]["publishedAt"] is not None and rows[2]["publishedAt"] is not None
    # the reference's publication filters choose rows by status
    only = ok(admin_api.get(f"{ART}?publicationFilter=modified"))["data"]
    assert [r["title"] for r in only] == ["C modified"]
    never = ok(admin_api.get(f"{ART}?hasPublishedVersion=false"))["data"]
    assert [r["title"] for r in never] == ["A draft"]
    # a type without Draft & Publish: every row is published
    create(admin_api, {"name": "tag"}, TAG)
    assert [r["status"] for r in ok(admin_api.get(TAG))["data"]] == ["published"]


def test_list_configuration_is_kept_per_type(admin_api: AdminApi) -> None:
    config = f"{B}/configuration/api::article.article"
    default = ok(admin_api.get(config))["data"]
    assert default == {
        "columns": ["id", "title", "slug", "description"],
        "sort": "title:ASC",
        "pageSize": 10,
        "mainField": "title",
    }
    chosen = {"columns": ["title", "views", "updatedAt"], "sort": "views:DESC", "pageSize": 20}
    saved = ok(admin_api.put(config, chosen))["data"]
    assert saved == {**chosen, "mainField": "title"}
    assert ok(admin_api.get(config))["data"] == saved
    assert ok(admin_api.get(f"{B}/configuration/api::tag.tag"))["data"]["sort"] == "name:ASC"
    for i in range(3):
        create(admin_api, {"title": f"t{i}", "views": i})
    page = ok(admin_api.get(ART))
    assert page["meta"]["pagination"]["pageSize"] == 20
    assert [row["views"] for row in page["data"]] == [2, 1, 0]
    for bad, path in (
        ({"columns": ["seo"]}, "columns"),
        ({"columns": ["nope"]}, "columns"),
        ({"columns": []}, "columns"),
        ({"sort": "content:ASC"}, "sort"),
        ({"sort": "title:UP"}, "sort"),
        ({"pageSize": 7}, "pageSize"),
        ({"mainField": "meta"}, "mainField"),
    ):
        error = failed(admin_api.put(config, bad))
        assert error["details"]["errors"][0]["path"] == [path]
    # the main field names the relation targets
    ok(admin_api.put(f"{B}/configuration/api::tag.tag", {"mainField": "id"}))
    init = ok(admin_api.get(f"{B}/init"))["data"]
    article = next(c for c in init["contentTypes"] if c["uid"] == "api::article.article")
    assert article["attributes"]["tags"]["targetMainField"] == "id"
    tag = next(c for c in init["contentTypes"] if c["uid"] == "api::tag.tag")
    assert tag["mainField"] == "id"


# ---------------------------------------------------------------------- draft & publish
def test_publish_unpublish_discard_and_their_events(admin_api: AdminApi) -> None:
    doc = create(admin_api, {"title": "First"})
    doc_id = doc["documentId"]
    after = last_event(admin_api)
    published = ok(admin_api.post(f"{ART}/{doc_id}/actions/publish", {"data": {"title": "Pub"}}))
    assert published["data"]["status"] == "published" and published["data"]["title"] == "Pub"
    assert len(published["meta"]["availableStatus"]) == 1
    assert published["meta"]["availableStatus"][0]["publishedAt"] is not None
    events = events_since(admin_api, after)
    assert names(events) == [
        ("entry.update", "draft", "en"),
        ("entry.publish", "published", "en"),
    ]
    after = events[-1].id
    changed = ok(admin_api.put(f"{ART}/{doc_id}", {"data": {"title": "Changed"}}))["data"]
    assert changed["status"] == "modified"
    discarded = ok(admin_api.post(f"{ART}/{doc_id}/actions/discard", {}))["data"]
    assert discarded["title"] == "Pub" and discarded["status"] == "published"
    events = events_since(admin_api, after)
    assert names(events) == [
        ("entry.update", "draft", "en"),
        ("entry.draft-discard", "draft", "en"),
    ]
    assert events[-1].entry["title"] == "Pub"
    # a webhook gets the new draft populated, as for a create
    portal = admin_api.client.portal  # type: ignore[attr-defined]
    entry = portal.call(admin_api.folio.documents.event_entry, events[-1])
    assert entry["title"] == "Pub" and entry["tags"] == [] and entry["links"] == []
    after = events[-1].id
    unpublished = ok(admin_api.post(f"{ART}/{doc_id}/actions/unpublish", {}))
    assert unpublished["data"]["status"] == "draft"
    assert unpublished["meta"]["availableStatus"] == []
    assert names(events_since(admin_api, after)) == [("entry.unpublish", "published", "en")]
    failed(admin_api.post(f"{ART}/{doc_id}/actions/discard", {}), 404, "NotFoundError")
    failed(admin_api.post(f"{ART}/{doc_id}/actions/unpublish", {}), 404, "NotFoundError")
    # unpublish that discards the draft's changes
    ok(admin_api.post(f"{ART}/{doc_id}/actions/publish", {}))
    ok(admin_api.put(f"{ART}/{doc_id}", {"data": {"title": "Lost"}}))
    after = last_event(admin_api)
    gone = ok(admin_api.post(f"{ART}/{doc_id}/actions/unpublish", {"discardDraft": True}))
    assert gone["data"]["title"] == "Pub" and gone["data"]["status"] == "draft"
    # in one transaction, in the reference's order
    events = events_since(admin_api, after)
    assert names(events) == [
        ("entry.unpublish", "published", "en"),
        ("entry.draft-discard", "draft", "en"),
    ]
    assert events[1].entry["title"] == "Pub"
    # REST reads see the same versions
    assert admin_api.get(f"/api/articles/{doc_id}").status_code == 404
    r = admin_api.get(f"/api/articles/{doc_id}?status=draft")
    assert r.json()["data"]["title"] == "Pub"
    failed(admin_api.post(f"{TAG}/x/actions/publish", {}))


def test_locales_versions_and_shared_fields(admin_api: AdminApi) -> None:
    image = upload_one(admin_api.api, ("a.png", png(10, 10), "image/png"))
    doc = create(admin_api, {"title": "English", "cover": image["id"]})
    doc_id = doc["documentId"]
    ok(admin_api.post(f"{ART}/{doc_id}/actions/publish", {}))
    # a new locale version through a save, taking the shared cover
    after = last_event(admin_api)
    fr = ok(admin_api.put(f"{ART}/{doc_id}?locale=fr", {"data": {"title": "Français"}}))
    assert fr["data"]["locale"] == "fr" and fr["data"]["status"] == "draft"
    assert fr["data"]["cover"]["id"] == image["id"]
    assert names(events_since(admin_api, after)) == [("entry.create", "draft", "fr")]
    assert fr["meta"]["availableLocales"] == [
        {
            "locale": "en",
            "documentId": doc_id,
            "status": "published",
            "updatedAt": fr["meta"]["availableLocales"][0]["updatedAt"],
        }
    ]
    en = ok(admin_api.get(f"{ART}/{doc_id}?locale=en"))
    assert [(v["locale"], v["status"]) for v in en["meta"]["availableLocales"]] == [("fr", "draft")]
    # publish of a locale that does not exist yet creates it first
    after = last_event(admin_api)
    de = ok(admin_api.post(f"{ART}/{doc_id}/actions/publish?locale=de", {"data": {"title": "De"}}))
    assert de["data"]["status"] == "published" and de["data"]["locale"] == "de"
    assert names(events_since(admin_api, after)) == [
        ("entry.create", "draft", "de"),
        ("entry.publish", "published", "de"),
    ]
    # delete one locale, then every locale
    ok(admin_api.delete(f"{ART}/{doc_id}?locale=fr"))
    failed(admin_api.get(f"{ART}/{doc_id}?locale=fr"), 404, "NotFoundError")
    assert ok(admin_api.get(f"{ART}/{doc_id}?locale=en"))["data"]["title"] == "English"
    assert ok(admin_api.delete(f"{ART}/{doc_id}?locale=*"))["data"] == {"documentId": doc_id}
    failed(admin_api.get(f"{ART}/{doc_id}?locale=de"), 404, "NotFoundError")


def test_a_new_locale_filled_from_another_gets_its_own_components(admin_api: AdminApi) -> None:
    en = create(
        admin_api,
        {
            "title": "en",
            "seo": {"metaTitle": "m"},
            "links": [{"label": "a", "url": "/a"}],
            "blocks": [{"__component": "shared.quote", "title": "q"}],
        },
    )
    # the edit view posts what it read of the English version, component ids included
    filled = {k: en[k] for k in ("seo", "links", "blocks")}
    fr = ok(
        admin_api.put(f"{ART}/{en['documentId']}?locale=fr", {"data": {**filled, "title": "fr"}})
    )
    fr_doc = fr["data"]
    assert fr_doc["links"][0]["label"] == "a" and fr_doc["blocks"][0]["title"] == "q"
    assert fr_doc["links"][0]["id"] != en["links"][0]["id"]
    assert fr_doc["seo"]["id"] != en["seo"]["id"]
    # the English version keeps its own
    again = ok(admin_api.get(f"{ART}/{en['documentId']}?locale=en"))["data"]
    assert again["links"] == en["links"] and again["seo"] == en["seo"]
    # an existing version refuses another version's component ids, as the service does
    error = failed(
        admin_api.put(f"{ART}/{en['documentId']}?locale=fr", {"data": {"links": en["links"]}}),
        400,
        "ApplicationError",
    )
    assert "not related" in error["message"]


def test_bulk_actions(admin_api: AdminApi) -> None:
    docs = [create(admin_api, {"title": f"B{i}"}) for i in range(3)]
    ids = [d["documentId"] for d in docs]
    untitled = create(admin_api, {"views": 1})
    after = last_event(admin_api)
    r = admin_api.post(
        f"{ART}/actions/bulkPublish", {"documentIds": [*ids, untitled["documentId"]]}
    )
    data = ok(r)["data"]
    assert data["count"] == 3
    assert [e["documentId"] for e in data["errors"]] == [untitled["documentId"]]
    assert data["errors"][0]["error"]["name"] == "ValidationError"
    assert (
        sorted(names(events_since(admin_api, after))) == [("entry.publish", "published", "en")] * 3
    )
    assert {
        r["status"] for r in ok(admin_api.get(f"{ART}?filters[title][$startsWith]=B"))["data"]
    } == {"published"}
    after = last_event(admin_api)
    data = ok(admin_api.post(f"{ART}/actions/bulkUnpublish", {"documentIds": ids[:2]}))["data"]
    assert data == {"count": 2}
    assert names(events_since(admin_api, after)) == [("entry.unpublish", "published", "en")] * 2
    after = last_event(admin_api)
    data = ok(
        admin_api.post(f"{ART}/actions/bulkDelete", {"documentIds": [*ids, "gone"], "locale": "en"})
    )["data"]
    assert data == {"count": 3}
    # one event per version deleted: 2 drafts, and the third's draft and published version
    assert len(events_since(admin_api, after)) == 4
    assert [r["documentId"] for r in ok(admin_api.get(ART))["data"]] == [untitled["documentId"]]
    failed(admin_api.post(f"{ART}/actions/bulkDelete", {"documentIds": []}))
    failed(admin_api.post(f"{ART}/actions/bulkDelete", {"documentIds": "x"}))
    failed(admin_api.post(f"{TAG}/actions/bulkPublish", {"documentIds": ["x"]}))
    error = failed(
        admin_api.post(f"{ART}/actions/bulkPublish", {"documentIds": [untitled["documentId"]]})
    )
    assert error["details"]["errors"][0]["path"] == ["title"]


# ---------------------------------------------------------------------- single types
def test_single_type(admin_api: AdminApi) -> None:
    failed(admin_api.get(GLOBAL), 404, "NotFoundError")
    after = last_event(admin_api)
    saved = ok(
        admin_api.put(GLOBAL, {"data": {"siteName": "Site", "defaultSeo": {"metaTitle": "M"}}})
    )
    assert saved["data"]["siteName"] == "Site" and saved["data"]["status"] == "draft"
    assert saved["data"]["defaultSeo"]["metaTitle"] == "M"
    assert names(events_since(admin_api, after)) == [("entry.create", "draft", "en")]
    published = ok(admin_api.post(f"{GLOBAL}/actions/publish", {}))
    assert published["data"]["status"] == "published"
    ok(admin_api.put(GLOBAL, {"data": {"siteName": "Site 2"}}))
    assert ok(admin_api.get(GLOBAL))["data"]["status"] == "modified"
    assert ok(admin_api.post(f"{GLOBAL}/actions/discard", {}))["data"]["siteName"] == "Site"
    fr = ok(admin_api.put(f"{GLOBAL}?locale=fr", {"data": {"siteName": "Site fr"}}))
    assert fr["data"]["locale"] == "fr"
    assert fr["data"]["documentId"] == saved["data"]["documentId"]
    assert ok(admin_api.post(f"{GLOBAL}/actions/unpublish", {}))["data"]["status"] == "draft"
    ok(admin_api.delete(f"{GLOBAL}?locale=fr"))
    failed(admin_api.get(f"{GLOBAL}?locale=fr"), 404, "NotFoundError")
    assert ok(admin_api.get(GLOBAL))["data"]["siteName"] == "Site"
    # a single type without Draft & Publish
    about = f"{B}/single-types/api::about.about"
    made = ok(
        admin_api.put(
            about,
            {"data": {"title": "About", "blocks": [{"__component": "shared.quote", "title": "q"}]}},
        )
    )
    assert made["data"]["status"] == "published" and made["meta"]["availableStatus"] == []
    failed(admin_api.post(f"{about}/actions/publish", {}))
    ok(admin_api.delete(about))
    failed(admin_api.get(about), 404, "NotFoundError")


# ---------------------------------------------------------------------- uid
def test_uid_generate_and_check_availability(admin_api: AdminApi) -> None:
    gen = f"{B}/uid/generate"
    check = f"{B}/uid/check-availability"
    body = {"contentTypeUID": "api::article.article", "field": "slug"}
    value = ok(admin_api.post(gen, {**body, "data": {"title": "Héllo Wörld & Straße, fooBar!"}}))
    assert value["data"] == "hello-world-and-strasse-foo-bar"
    assert ok(admin_api.post(gen, {**body, "data": {}}))["data"] == "article"
    create(admin_api, {"title": "x", "slug": "my-post"})
    create(admin_api, {"title": "y", "slug": "my-post-1"})
    assert ok(admin_api.post(gen, {**body, "data": {"title": "My post"}}))["data"] == "my-post-2"
    # the value is unique per locale
    fr = {**body, "locale": "fr"}
    assert ok(admin_api.post(gen, {**fr, "data": {"title": "My post"}}))["data"] == "my-post"
    taken = ok(admin_api.post(check, {**body, "value": "my-post"}))
    assert taken == {"isAvailable": False, "suggestion": "my-post-2"}
    assert ok(admin_api.post(check, {**body, "value": "free"})) == {
        "isAvailable": True,
        "suggestion": None,
    }
    error = failed(admin_api.post(check, {**body, "value": "not valid!"}))
    assert error["details"]["errors"][0]["path"] == ["value"]
    error = failed(admin_api.post(check, {**body, "field": "title", "value": "a"}))
    assert error["details"]["errors"][0]["path"] == ["field"]
    failed(
        admin_api.post(check, {"contentTypeUID": "api::x.x", "field": "slug"}), 404, "NotFoundError"
    )
    category = {"contentTypeUID": "api::category.category", "field": "slug"}
    assert ok(admin_api.post(gen, {**category, "data": {"name": "Sports"}}))["data"] == "sports"


# ---------------------------------------------------------------------- relation targets
def test_relation_targets_search_pages_exclude_and_status(admin_api: AdminApi) -> None:
    tags = [create(admin_api, {"name": n}, TAG) for n in ("apple", "banana", "cherry", "apricot")]
    r = ok(admin_api.get(f"{B}/relations/api::article.article/tags?pageSize=2"))
    assert [t["label"] for t in r["data"]] == ["apple", "apricot"]
    assert r["meta"]["pagination"]["total"] == 4
    assert set(r["data"][0]) == {"id", "documentId", "locale", "label", "status"}
    found = ok(admin_api.get(f"{B}/relations/api::article.article/tags?_q=AP"))["data"]
    assert [t["label"] for t in found] == ["apple", "apricot"]
    excluded = ok(
        admin_api.get(
            f"{B}/relations/api::article.article/tags?exclude={tags[0]['documentId']},{tags[1]['documentId']}"
        )
    )["data"]
    assert [t["label"] for t in excluded] == ["apricot", "cherry"]
    # targets with drafts show their status
    a = create(admin_api, {"title": "Draft one"})
    b = create(admin_api, {"title": "Published one"})
    ok(admin_api.post(f"{ART}/{b['documentId']}/actions/publish", {}))
    fr = create(admin_api, {"title": "Un article"}, query="?locale=fr")
    targets = ok(admin_api.get(f"{B}/relations/api::tag.tag/articles"))["data"]
    assert [(t["label"], t["status"], t["locale"]) for t in targets] == [
        ("Draft one", "draft", "en"),
        ("Published one", "published", "en"),
    ]
    assert a["documentId"] != fr["documentId"]
    french = ok(admin_api.get(f"{B}/relations/api::tag.tag/articles?locale=fr"))["data"]
    assert [t["label"] for t in french] == ["Un article"]
    # the document's relation shows the target's status too
    tag = ok(
        admin_api.put(
            f"{TAG}/{tags[0]['documentId']}",
            {"data": {"articles": {"set": [{"documentId": b["documentId"], "locale": "en"}]}}},
        )
    )["data"]
    assert [(t["label"], t["status"]) for t in tag["articles"]] == [("Published one", "published")]


def test_admin_writes_make_the_events_rest_makes(admin_api: AdminApi) -> None:
    after = last_event(admin_api)
    doc = create(admin_api, {"title": "E"})
    ok(admin_api.put(f"{ART}/{doc['documentId']}", {"data": {"title": "E2"}}))
    ok(admin_api.delete(f"{ART}/{doc['documentId']}"))
    events = events_since(admin_api, after)
    assert names(events) == [
        ("entry.create", "draft", "en"),
        ("entry.update", "draft", "en"),
        ("entry.delete", "draft", "en"),
    ]
    assert events[1].entry["title"] == "E2"


@pytest.mark.parametrize("path", ["/init", "/collection-types/api::article.article"])
def test_answers_are_json_envelopes(admin_api: AdminApi, path: str) -> None:
    r = admin_api.get(B + path)
    assert r.headers["content-type"] == "application/json; charset=utf-8"
    assert "data" in r.json()
