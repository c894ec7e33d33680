"""Relation entries that choose a draft or a published version (`{documentId, status}`),
from a source without Draft & Publish to a target with it, as the reference answers them:
the entry links exactly the version it names, on the inverse side (categories -> articles,
links kept by the article rows) and on the owning side (a type without drafts that owns
its links to articles, and a component of it); an entry without status links both
versions; a version that does not exist is refused and nothing is written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_storage_layout import drop_index, index_names, run_sql
from tests.conftest import Api, database_url, failed, make_api, running

SHELF = {
    "kind": "collectionType",
    "collectionName": "shelves",
    "info": {"singularName": "shelf", "pluralName": "shelves", "displayName": "Shelf"},
    "options": {"draftAndPublish": False},
    "attributes": {
        "name": {"type": "string"},
        "picks": {"type": "relation", "relation": "oneToMany", "target": "api::article.article"},
        "lead": {
            "type": "relation",
            "relation": "manyToOne",
            "target": "api::article.article",
            "inversedBy": "shelves",
        },
        "feature": {"type": "component", "repeatable": False, "component": "shared.pick"},
    },
}
PICK = {
    "collectionName": "components_shared_picks",
    "info": {"displayName": "Pick"},
    "attributes": {
        "note": {"type": "string"},
        "article": {"type": "relation", "relation": "oneToOne", "target": "api::article.article"},
    },
}


def _add_shelves(app_dir: Path) -> None:
    ct = app_dir / "src" / "api" / "shelf" / "content-types" / "shelf"
    ct.mkdir(parents=True)
    (ct / "schema.json").write_text(json.dumps(SHELF))
    (app_dir / "src" / "components" / "shared" / "pick.json").write_text(json.dumps(PICK))
    article = app_dir / "src" / "api" / "article" / "content-types" / "article" / "schema.json"
    schema = json.loads(article.read_text())
    schema["attributes"]["shelves"] = {
        "type": "relation",
        "relation": "oneToMany",
        "target": "api::shelf.shelf",
        "mappedBy": "lead",
    }
    article.write_text(json.dumps(schema))


@pytest.fixture
def shelves(backend: str, app_dir: Path) -> Iterator[Api]:
    _add_shelves(app_dir)
    yield from make_api(app_dir, database_url(backend, app_dir))


def _published(api: Api, title: str) -> str:
    return api.create("articles", {"title": title})["documentId"]


def _draft(api: Api, title: str) -> str:
    return api.create("articles", {"title": title}, "?status=draft")["documentId"]


def _titles(api: Api, path: str, field: str, status: str | None = None) -> Any:
    query = f"populate[{field}][fields][0]=title"
    if status is not None:
        query += f"&status={status}"
    r = api.get(f"{path}?{query}")
    assert r.status_code == 200, r.text
    value = r.json()["data"][field]
    if isinstance(value, list):
        return [a["title"] for a in value]
    return None if value is None else value["title"]


def _count(api: Api, plural: str) -> int:
    r = api.get(f"/api/{plural}?pagination[pageSize]=1")
    return int(r.json()["meta"]["pagination"]["total"])


# ---------------------------------------------------------------- inverse side


def test_an_inverse_entry_links_the_status_it_names(api: Api) -> None:
    art = _published(api, "Pub")
    cat = api.create(
        "categories",
        {"name": "c1", "articles": {"connect": [{"documentId": art, "status": "draft"}]}},
    )
    path = f"/api/categories/{cat['documentId']}"
    assert _titles(api, path, "articles") == []
    assert _titles(api, path, "articles", "draft") == ["Pub"]
    # seen from the article: only its draft belongs to the category
    r = api.get(f"/api/articles/{art}?populate[category][fields][0]=name")
    assert r.json()["data"]["category"] is None
    r = api.get(f"/api/articles/{art}?populate[category][fields][0]=name&status=draft")
    assert r.json()["data"]["category"]["name"] == "c1"


def test_an_inverse_set_of_the_published_version_leaves_the_draft_alone(api: Api) -> None:
    art = _published(api, "Pub")
    cat = api.create(
        "categories",
        {"name": "c", "articles": {"set": [{"documentId": art, "status": "published"}]}},
    )
    path = f"/api/categories/{cat['documentId']}"
    assert _titles(api, path, "articles") == ["Pub"]
    assert _titles(api, path, "articles", "draft") == []


def test_an_inverse_entry_without_status_links_both_and_a_disconnect_can_drop_one(
    api: Api,
) -> None:
    art = _published(api, "Pub")
    tag = api.create("tags", {"name": "t", "articles": {"connect": [art]}})
    path = f"/api/tags/{tag['documentId']}"
    assert _titles(api, path, "articles") == ["Pub"]
    assert _titles(api, path, "articles", "draft") == ["Pub"]
    r = api.put(
        path, {"data": {"articles": {"disconnect": [{"documentId": art, "status": "draft"}]}}}
    )
    assert r.status_code == 200, r.text
    assert _titles(api, path, "articles") == ["Pub"]
    assert _titles(api, path, "articles", "draft") == []


def test_an_inverse_entry_naming_a_missing_version_is_refused_and_writes_nothing(
    api: Api,
) -> None:
    art = _draft(api, "Dra")
    before = _count(api, "categories")
    r = api.post(
        "/api/categories",
        {
            "data": {
                "name": "c2",
                "articles": {"connect": [{"documentId": art, "status": "published"}]},
            }
        },
    )
    error = failed(r)
    assert error["message"] == f'Document with id "{art}", locale "en" not found'
    assert _count(api, "categories") == before
    tag = api.create("tags", {"name": "t"})["documentId"]
    r = api.put(
        f"/api/tags/{tag}",
        {"data": {"name": "renamed", "articles": [{"documentId": art, "status": "published"}]}},
    )
    failed(r)
    assert api.get(f"/api/tags/{tag}").json()["data"]["name"] == "t"


# ---------------------------------------------------------------- owning side


def test_an_owning_entry_links_the_status_it_names(shelves: Api) -> None:
    api = shelves
    art = _published(api, "Pub")
    other = _published(api, "Other")
    shelf = api.create(
        "shelves",
        {
            "name": "s",
            "picks": {
                "connect": [
                    {"documentId": art, "status": "draft"},
                    {"documentId": other, "status": "published"},
                ]
            },
        },
    )
    path = f"/api/shelves/{shelf['documentId']}"
    assert _titles(api, path, "picks") == ["Other"]
    assert _titles(api, path, "picks", "draft") == ["Pub"]
    # filters and counts see the same versions
    r = api.get("/api/shelves?filters[picks][title][$eq]=Pub")
    assert r.json()["data"] == []
    r = api.get("/api/shelves?filters[picks][title][$eq]=Pub&status=draft")
    assert [s["name"] for s in r.json()["data"]] == ["s"]
    r = api.get(f"{path}?populate[picks][count]=true")
    assert r.json()["data"]["picks"] == {"count": 1}


def test_an_owning_entry_without_status_links_both_versions(shelves: Api) -> None:
    api = shelves
    art = _published(api, "Pub")
    shelf = api.create("shelves", {"name": "s", "picks": [art]})
    path = f"/api/shelves/{shelf['documentId']}"
    assert _titles(api, path, "picks") == ["Pub"]
    assert _titles(api, path, "picks", "draft") == ["Pub"]
    # dropping the draft keeps the published link, and a connect of the draft brings it back
    r = api.put(path, {"data": {"picks": {"disconnect": [{"documentId": art, "status": "draft"}]}}})
    assert r.status_code == 200, r.text
    assert _titles(api, path, "picks") == ["Pub"]
    assert _titles(api, path, "picks", "draft") == []
    r = api.put(path, {"data": {"picks": {"connect": [{"documentId": art, "status": "draft"}]}}})
    assert r.status_code == 200, r.text
    assert _titles(api, path, "picks") == ["Pub"]
    assert _titles(api, path, "picks", "draft") == ["Pub"]
    # an update of another field keeps the links as they are
    r = api.put(path, {"data": {"name": "renamed"}})
    assert r.status_code == 200, r.text
    assert _titles(api, path, "picks", "draft") == ["Pub"]


def test_an_owning_entry_naming_a_missing_version_is_refused_and_writes_nothing(
    shelves: Api,
) -> None:
    api = shelves
    art = _draft(api, "Dra")
    r = api.post(
        "/api/shelves", {"data": {"name": "s", "lead": {"documentId": art, "status": "published"}}}
    )
    error = failed(r)
    assert error["message"] == f'Document with id "{art}", locale "en" not found'
    assert _count(api, "shelves") == 0
    shelf = api.create("shelves", {"name": "s", "lead": {"documentId": art, "status": "draft"}})
    path = f"/api/shelves/{shelf['documentId']}"
    assert _titles(api, path, "lead", "draft") == "Dra"
    r = api.put(
        path, {"data": {"name": "x", "picks": [{"documentId": art, "status": "published"}]}}
    )
    failed(r)
    assert api.get(path).json()["data"]["name"] == "s"
    assert _titles(api, path, "lead", "draft") == "Dra"


def test_the_inverse_read_of_an_owning_link_sees_the_version_linked(shelves: Api) -> None:
    api = shelves
    art = _published(api, "Pub")
    api.create("shelves", {"name": "s", "lead": {"documentId": art, "status": "published"}})
    r = api.get(f"/api/articles/{art}?populate[shelves][fields][0]=name")
    assert [s["name"] for s in r.json()["data"]["shelves"]] == ["s"]
    r = api.get(f"/api/articles/{art}?populate[shelves][fields][0]=name&status=draft")
    assert r.json()["data"]["shelves"] == []
    # publishing the article again keeps the link on its published version
    r = api.put(f"/api/articles/{art}", {"data": {"title": "Pub 2"}})
    assert r.status_code == 200, r.text
    r = api.get(f"/api/articles/{art}?populate[shelves][fields][0]=name")
    assert [s["name"] for s in r.json()["data"]["shelves"]] == ["s"]
    r = api.get("/api/shelves?filters[lead][title][$eq]=Pub 2")
    assert [s["name"] for s in r.json()["data"]] == ["s"]
    r = api.get("/api/shelves?filters[lead][title][$eq]=Pub 2&status=draft")
    assert r.json()["data"] == []


def test_a_component_of_a_type_without_drafts_links_the_status_it_names(shelves: Api) -> None:
    api = shelves
    art = _published(api, "Pub")
    shelf = api.create(
        "shelves",
        {"name": "s", "feature": {"note": "n", "article": {"documentId": art, "status": "draft"}}},
    )
    base = (
        f"/api/shelves/{shelf['documentId']}?populate[feature][populate][article][fields][0]=title"
    )
    r = api.get(base)
    assert r.json()["data"]["feature"]["article"] is None
    r = api.get(base + "&status=draft")
    assert r.json()["data"]["feature"]["article"]["title"] == "Pub"
    r = api.get("/api/shelves?filters[feature][article][title][$eq]=Pub&status=draft")
    assert [s["name"] for s in r.json()["data"]] == ["s"]
    r = api.get("/api/shelves?filters[feature][article][title][$eq]=Pub")
    assert r.json()["data"] == []


def test_a_sort_on_a_related_field_reads_the_version_linked(shelves: Api) -> None:
    api = shelves
    a = _published(api, "A")
    b = _published(api, "B")
    api.create("shelves", {"name": "one", "lead": {"documentId": a, "status": "draft"}})
    api.create("shelves", {"name": "two", "lead": b})
    r = api.get("/api/shelves?sort=lead.title:asc&fields[0]=name")
    # published: "one" has no lead there (a missing value sorts last ascending)
    assert [s["name"] for s in r.json()["data"]] == ["two", "one"]
    r = api.get("/api/shelves?sort=lead.title:asc&fields[0]=name&status=draft")
    assert [s["name"] for s in r.json()["data"]] == ["one", "two"]


def test_links_made_before_statuses_existed_keep_linking_every_version(
    backend: str, app_dir: Path
) -> None:
    """A database whose links predate the status column (the earlier layout: no
    `target_status`, the plain covering indexes) gains the column at start-up; its links
    name no status, so they keep linking both versions."""
    _add_shelves(app_dir)
    url = database_url(backend, app_dir)
    with running(app_dir, url) as api:
        art = _published(api, "Pub")
        shelf = api.create("shelves", {"name": "s", "picks": [art]})["documentId"]
    table = "shelves_picks_lnk"
    for name in index_names(url, table):
        if name.endswith("_st_idx"):
            drop_index(url, name, table)
    run_sql(url, f'ALTER TABLE "{table}" DROP COLUMN target_status')
    run_sql(
        url,
        f'CREATE INDEX "{table}_source_cov_idx" ON "{table}" '
        "(source_id, position, target_document_id, target_locale, inv_position)",
    )
    with running(app_dir, url) as api:
        path = f"/api/shelves/{shelf}"
        assert _titles(api, path, "picks") == ["Pub"]
        assert _titles(api, path, "picks", "draft") == ["Pub"]
        r = api.put(
            path, {"data": {"picks": {"disconnect": [{"documentId": art, "status": "draft"}]}}}
        )
        assert r.status_code == 200, r.text
        assert _titles(api, path, "picks", "draft") == []
        assert _titles(api, path, "picks") == ["Pub"]
    names = index_names(url, table)
    assert f"{table}_source_st_idx" in names and f"{table}_target_st_idx" in names
    assert f"{table}_source_cov_idx" not in names
