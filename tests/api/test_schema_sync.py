"""Restarting an app on the same database after its models changed: new attributes become
new columns, and a type change that could lose stored values stops start-up."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from folio.app import load_app
from folio.errors import ConfigError, SchemaSyncError
from tests.conftest import database_url, running

CATEGORY = Path("src/api/category/content-types/category/schema.json")
EVENT = Path("src/api/event/content-types/event/schema.json")


@pytest.fixture
def url(backend: str, app_dir: Path) -> str:
    """The database shared by every start of the app in one test (emptied once)."""
    return database_url(backend, app_dir)


def start_up(app_dir: Path, url: str) -> None:
    """Starts (and closes) the app outside a server; raises what start-up raises."""
    folio = load_app(app_dir, url)

    async def run() -> None:
        try:
            await folio.start()
        finally:
            await folio.close()

    asyncio.run(run())


def edit_model(app_dir: Path, rel: Path, change: Any) -> None:
    path = app_dir / rel
    schema = json.loads(path.read_text())
    change(schema["attributes"])
    path.write_text(json.dumps(schema, indent=2))


def test_restart_without_changes_keeps_the_data(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        doc = api.create("categories", {"name": "News", "slug": "news"})
    with running(app_dir, url) as api:
        got = api.get(f"/api/categories/{doc['documentId']}").json()["data"]
        assert got["name"] == "News"
        assert got["slug"] == "news"


def test_a_new_attribute_becomes_a_column(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        news = api.create("categories", {"name": "News"})
        api.create("categories", {"name": "Sport", "slug": "sport"})

    def add(attributes: dict[str, Any]) -> None:
        attributes["color"] = {"type": "string"}
        attributes["rank"] = {"type": "integer", "min": 0}

    edit_model(app_dir, CATEGORY, add)
    with running(app_dir, url) as api:
        r = api.get("/api/categories?sort=name")
        assert r.status_code == 200, r.text
        docs = r.json()["data"]
        assert [d["name"] for d in docs] == ["News", "Sport"]
        for doc in docs:
            assert list(doc) == [
                "id",
                "documentId",
                "name",
                "slug",
                "color",
                "rank",
                "createdAt",
                "updatedAt",
                "publishedAt",
            ]
            assert doc["color"] is None
            assert doc["rank"] is None
        assert docs[1]["slug"] == "sport"

        path = f"/api/categories/{news['documentId']}"
        r = api.put(path, {"data": {"color": "red", "rank": 2}})
        assert r.status_code == 200, r.text
        assert api.get(path).json()["data"]["color"] == "red"
        assert api.get(path).json()["data"]["rank"] == 2
        r = api.get("/api/categories?filters[color][$null]=true")
        assert [d["name"] for d in r.json()["data"]] == ["Sport"]
        r = api.put(path, {"data": {"rank": -1}})
        assert r.status_code == 400
        created = api.create("categories", {"name": "Tech", "color": "blue"})
        assert created["color"] == "blue"
        assert created["rank"] is None


def test_a_new_attribute_on_a_draft_and_publish_type(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        doc = api.create("events", {"name": "Party", "capacity": 3})
    edit_model(app_dir, EVENT, lambda a: a.update(venue={"type": "string"}))
    with running(app_dir, url) as api:
        path = f"/api/events/{doc['documentId']}"
        assert api.get(path).json()["data"]["venue"] is None
        assert api.get(f"{path}?status=draft").json()["data"]["venue"] is None
        r = api.put(path, {"data": {"venue": "Hall"}})
        assert r.status_code == 200, r.text
        assert api.get(path).json()["data"]["venue"] == "Hall"
        assert api.get(path).json()["data"]["capacity"] == 3


def test_incompatible_type_change_with_data_stops_start_up(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        doc = api.create("categories", {"name": "News", "slug": "news"})

    original = (app_dir / CATEGORY).read_text()
    edit_model(app_dir, CATEGORY, lambda a: a["slug"].update(type="integer"))
    with pytest.raises(SchemaSyncError) as info:
        start_up(app_dir, url)
    assert isinstance(info.value, ConfigError)
    message = str(info.value)
    assert "categories" in message
    assert "slug" in message

    # nothing was changed: the old model starts and the value is still there
    (app_dir / CATEGORY).write_text(original)
    with running(app_dir, url) as api:
        got = api.get(f"/api/categories/{doc['documentId']}").json()["data"]
        assert got["slug"] == "news"


def test_the_server_does_not_start_after_an_incompatible_change(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        api.create("events", {"name": "Party", "startsAt": "2024-03-01T10:00:00Z"})
    edit_model(app_dir, EVENT, lambda a: a["startsAt"].update(type="boolean"))
    with pytest.raises(SchemaSyncError) as info, running(app_dir, url):
        pass
    assert "events" in str(info.value)
    assert "starts_at" in str(info.value)


def test_the_same_change_on_an_empty_column_is_allowed(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        doc = api.create("categories", {"name": "News"})
        api.create("categories", {"name": "Sport", "slug": None})

    edit_model(app_dir, CATEGORY, lambda a: a["slug"].update(type="integer"))
    with running(app_dir, url) as api:
        path = f"/api/categories/{doc['documentId']}"
        got = api.get(path).json()["data"]
        assert got["name"] == "News"
        assert got["slug"] is None
        r = api.put(path, {"data": {"slug": 5}})
        assert r.status_code == 200, r.text
        assert r.json()["data"]["slug"] == 5
        assert api.get(path).json()["data"]["slug"] == 5
        r = api.get("/api/categories?filters[slug][$gt]=4")
        assert [d["name"] for d in r.json()["data"]] == ["News"]
        r = api.put(path, {"data": {"slug": "text"}})
        assert r.status_code == 400


def test_a_compatible_change_keeps_the_values(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        doc = api.create("events", {"name": "Party", "capacity": 42})
        cat = api.create("categories", {"name": "News"})

    edit_model(app_dir, EVENT, lambda a: a["capacity"].update(type="biginteger"))
    edit_model(app_dir, CATEGORY, lambda a: a["name"].update(type="text"))
    with running(app_dir, url) as api:
        got = api.get(f"/api/events/{doc['documentId']}").json()["data"]
        assert got["capacity"] == "42"
        assert api.get(f"/api/categories/{cat['documentId']}").json()["data"]["name"] == "News"
        r = api.put(f"/api/events/{doc['documentId']}", {"data": {"capacity": "9007199254740993"}})
        assert r.status_code == 200, r.text
        assert r.json()["data"]["capacity"] == "9007199254740993"


def test_a_removed_attribute_is_no_longer_returned(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        doc = api.create("categories", {"name": "News", "slug": "news"})
    edit_model(app_dir, CATEGORY, lambda a: a.pop("slug"))
    with running(app_dir, url) as api:
        got = api.get(f"/api/categories/{doc['documentId']}").json()["data"]
        assert "slug" not in got
        assert got["name"] == "News"
        r = api.post("/api/categories", {"data": {"name": "Other", "slug": "x"}})
        assert r.status_code == 400
        assert api.create("categories", {"name": "Tech"})["name"] == "Tech"


def test_jsonb_columns_of_an_earlier_layout_become_json(
    backend: str, app_dir: Path, url: str
) -> None:
    """PostgreSQL: JSON attributes were `jsonb` columns; start-up converts them in place,
    every value kept, and later writes read back as written."""
    if backend != "postgres":
        pytest.skip("a PostgreSQL column type")
    import asyncpg

    value = {"zeta": [1, 2.5, None], "alpha": {"nested": "x"}, "b": True}
    with running(app_dir, url) as api:
        doc = api.create("articles", {"title": "Kept", "meta": value})
        api.create("articles", {"title": "Empty"})

    async def column_type(to: str | None = None) -> str:
        conn = await asyncpg.connect(url)
        try:
            if to is not None:
                await conn.execute(
                    f"ALTER TABLE articles ALTER COLUMN meta TYPE {to} USING meta::{to}"
                )
            found: str = await conn.fetchval(
                "SELECT data_type FROM information_schema.columns "
                "WHERE table_name = 'articles' AND column_name = 'meta'"
            )
            return found
        finally:
            await conn.close()

    assert asyncio.run(column_type()) == "json"
    assert asyncio.run(column_type("jsonb")) == "jsonb"  # as an earlier Folio made it
    with running(app_dir, url) as api:
        path = f"/api/articles/{doc['documentId']}"
        assert api.get(path).json()["data"]["meta"] == value
        r = api.get("/api/articles?filters[meta][$containsi]=NESTED&fields[0]=title")
        assert [d["title"] for d in r.json()["data"]] == ["Kept"]
        r = api.get("/api/articles?filters[meta][$null]=true&fields[0]=title")
        assert [d["title"] for d in r.json()["data"]] == ["Empty"]
        r = api.put(path, {"data": {"meta": {"b": 1, "a": [{"y": 2, "x": 1}]}}})
        assert r.status_code == 200, r.text
        # read back as written: keys in the order sent, no spaces added
        raw = api.client.get(path + "?fields[0]=meta").text
        assert '"meta":{"b":1,"a":[{"y":2,"x":1}]}' in raw
    assert asyncio.run(column_type()) == "json"


ARTICLE = Path("src/api/article/content-types/article/schema.json")


def test_a_zone_entry_of_a_kind_the_zone_no_longer_allows_is_still_read(
    app_dir: Path, url: str
) -> None:
    """A dynamic zone's model drops one of its components: the entries of that kind
    already stored are still listed, in their place, with the others (and with the other
    component fields of the same populate)."""
    blocks = [
        {"__component": "shared.quote", "title": "Q1", "body": "first"},
        {"__component": "shared.rich-text", "body": "middle"},
        {"__component": "shared.quote", "title": "Q2", "body": "last"},
    ]
    with running(app_dir, url) as api:
        doc = api.create(
            "articles",
            {"title": "Zoned", "blocks": blocks, "seo": {"metaTitle": "M"}, "links": []},
        )
    edit_model(app_dir, ARTICLE, lambda a: a["blocks"].update(components=["shared.rich-text"]))
    with running(app_dir, url) as api:
        path = f"/api/articles/{doc['documentId']}?populate[blocks]=true&populate[seo]=true"
        got = api.get(path).json()["data"]
        assert [(b["__component"], b.get("title"), b["body"]) for b in got["blocks"]] == [
            ("shared.quote", "Q1", "first"),
            ("shared.rich-text", None, "middle"),
            ("shared.quote", "Q2", "last"),
        ]
        assert got["seo"]["metaTitle"] == "M"
