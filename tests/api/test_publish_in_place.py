"""Publishing keeps the published version's row, links and components where they are the
draft's (an update that changed only the document's own values), and copies them all where
anything the draft owns differs: whichever way, the published version reads as its draft."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_relations import png, upload_one
from tests.conftest import Api, database_url, make_api

POPULATE = (
    "populate[category]=true&populate[author]=true&populate[tags]=true&populate[cover]=true"
    "&populate[gallery]=true&populate[seo][populate]=*&populate[links]=true"
    "&populate[blocks][populate]=*"
)


def _content(value: Any) -> Any:
    """An entry without what tells its versions apart (row and component ids, the
    publication time)."""
    if isinstance(value, dict):
        return {k: _content(v) for k, v in value.items() if k not in ("id", "publishedAt")}
    if isinstance(value, list):
        return [_content(v) for v in value]
    return value


def _component_ids(entry: dict[str, Any]) -> list[int]:
    return [
        entry["seo"]["id"],
        *(x["id"] for x in entry["links"]),
        *(b["id"] for b in entry["blocks"]),
    ]


def _read(api: Api, did: str, status: str) -> dict[str, Any]:
    r = api.get(f"/api/articles/{did}?status={status}&{POPULATE}")
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


@pytest.fixture
def article(api: Api) -> dict[str, Any]:
    """A published article owning relations, media links and components of every kind,
    with the ids it links to."""
    pics = [upload_one(api, (f"p{n}.png", png(8 + n, 8), "image/png"))["id"] for n in range(3)]
    cats = [
        api.create("categories", {"name": f"C{n}", "slug": f"c{n}"})["documentId"] for n in range(2)
    ]
    tags = [api.create("tags", {"name": f"t{n}"})["documentId"] for n in range(3)]
    author = api.create("authors", {"name": "Ann", "email": "ann@example.com"})["documentId"]
    doc = api.create(
        "articles",
        {
            "title": "First",
            "views": 1,
            "category": cats[0],
            "author": author,
            "tags": tags[:2],
            "cover": pics[0],
            "gallery": pics[:2],
            "seo": {"metaTitle": "m", "metaDescription": "d", "shareImage": pics[0]},
            "links": [
                {"label": "a", "url": "https://a.example"},
                {"label": "b", "url": "https://b.example"},
            ],
            "blocks": [
                {"__component": "shared.quote", "title": "q", "body": "said"},
                {"__component": "shared.media", "file": pics[1]},
            ],
        },
    )
    return {"doc": doc["documentId"], "pics": pics, "cats": cats, "tags": tags}


def test_an_update_of_own_values_keeps_the_published_versions_row_and_components(
    api: Api, article: dict[str, Any]
) -> None:
    did = article["doc"]
    before = _read(api, did, "published")
    r = api.put(f"/api/articles/{did}", {"data": {"views": 2, "title": "Second"}})
    assert r.status_code == 200, r.text
    answer = r.json()["data"]
    assert answer["id"] == before["id"] and answer["views"] == 2 and answer["title"] == "Second"
    after = _read(api, did, "published")
    assert after["id"] == before["id"]
    assert _component_ids(after) == _component_ids(before)
    assert after["publishedAt"] > before["publishedAt"]
    assert _content(after) == _content(_read(api, did, "draft"))
    assert {
        k: v for k, v in _content(after).items() if k not in ("views", "title", "updatedAt")
    } == {k: v for k, v in _content(before).items() if k not in ("views", "title", "updatedAt")}
    # the list and the count see one published version
    listed = api.get("/api/articles?filters[title][$eq]=Second").json()
    assert [d["id"] for d in listed["data"]] == [before["id"]]
    assert listed["meta"]["pagination"]["total"] == 1


CHANGES: dict[str, Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "category": lambda a, d: {"category": a["cats"][1]},
    "category removed": lambda a, d: {"category": None},
    "tags reordered": lambda a, d: {"tags": [a["tags"][1], a["tags"][0]]},
    "tag added": lambda a, d: {"tags": a["tags"]},
    "cover": lambda a, d: {"cover": a["pics"][2]},
    "gallery reordered": lambda a, d: {"gallery": [a["pics"][1], a["pics"][0]]},
    "component value": lambda a, d: {"seo": {"id": d["seo"]["id"], "metaTitle": "other"}},
    "component media": lambda a, d: {"seo": {"id": d["seo"]["id"], "shareImage": a["pics"][2]}},
    "repeatable reordered": lambda a, d: {
        "links": [{"id": d["links"][1]["id"]}, {"id": d["links"][0]["id"]}]
    },
    "repeatable entry removed": lambda a, d: {"links": [{"id": d["links"][0]["id"]}]},
    "zone entry value": lambda a, d: {
        "blocks": [
            {"__component": "shared.quote", "id": d["blocks"][0]["id"], "body": "unsaid"},
            {"__component": "shared.media", "id": d["blocks"][1]["id"]},
        ]
    },
    "zone media": lambda a, d: {
        "blocks": [
            {"__component": "shared.quote", "id": d["blocks"][0]["id"]},
            {"__component": "shared.media", "id": d["blocks"][1]["id"], "file": a["pics"][2]},
        ]
    },
    "zone reordered": lambda a, d: {
        "blocks": [
            {"__component": "shared.media", "id": d["blocks"][1]["id"]},
            {"__component": "shared.quote", "id": d["blocks"][0]["id"]},
        ]
    },
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_what_the_draft_changed_alone_is_published_by_a_later_update(
    api: Api, article: dict[str, Any], change: str
) -> None:
    """A draft changed without publishing, then an update of one own value (which
    publishes): the published version takes everything the draft has."""
    did = article["doc"]
    before = _read(api, did, "published")
    draft = _read(api, did, "draft")
    r = api.put(f"/api/articles/{did}?status=draft", {"data": CHANGES[change](article, draft)})
    assert r.status_code == 200, r.text
    changed = _read(api, did, "draft")
    assert _content(changed) != _content(before)
    assert _content(_read(api, did, "published")) == _content(before)
    r = api.put(f"/api/articles/{did}", {"data": {"views": 5}})
    assert r.status_code == 200, r.text
    after = _read(api, did, "published")
    assert after["views"] == 5
    assert _content(after) == _content(_read(api, did, "draft"))
    assert _content(after) != _content(before)


def write_app(root: Path) -> Path:
    """A draft & publish type whose component links to another type and to media."""
    comps = root / "src" / "components" / "parts"
    comps.mkdir(parents=True)
    (comps / "card.json").write_text(
        json.dumps(
            {
                "collectionName": "components_parts_cards",
                "info": {"displayName": "Card"},
                "attributes": {
                    "label": {"type": "string"},
                    "data": {"type": "json"},
                    "picture": {"type": "media", "multiple": False},
                    "person": {
                        "type": "relation",
                        "relation": "oneToOne",
                        "target": "api::person.person",
                    },
                },
            }
        )
    )
    for name, plural, attrs, dp in (
        ("person", "people", {"name": {"type": "string"}}, False),
        (
            "page",
            "pages",
            {
                "title": {"type": "string"},
                "cards": {"type": "component", "repeatable": True, "component": "parts.card"},
            },
            True,
        ),
    ):
        schema = root / "src" / "api" / name / "content-types" / name
        schema.mkdir(parents=True)
        (schema / "schema.json").write_text(
            json.dumps(
                {
                    "kind": "collectionType",
                    "collectionName": plural,
                    "info": {"singularName": name, "pluralName": plural, "displayName": name},
                    "options": {"draftAndPublish": dp},
                    "attributes": attrs,
                }
            )
        )
    return root


def _page(api: Api, did: str, status: str) -> dict[str, Any]:
    r = api.get(f"/api/pages/{did}?status={status}&populate[cards][populate]=*")
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def test_a_components_own_links_are_compared_too(backend: str, tmp_path: Path) -> None:
    app = write_app(tmp_path / "app")
    for api in make_api(app, database_url(backend, app)):
        pics = [upload_one(api, (f"p{n}.png", png(8 + n, 8), "image/png"))["id"] for n in range(2)]
        people = [api.create("people", {"name": f"P{n}"})["documentId"] for n in range(2)]
        card = {"label": "x", "data": {"k": [1, 2]}, "picture": pics[0], "person": people[0]}
        did = api.create("pages", {"title": "T", "cards": [card]})["documentId"]
        first = _page(api, did, "published")
        # own values only: kept
        assert api.put(f"/api/pages/{did}", {"data": {"title": "U"}}).status_code == 200
        kept = _page(api, did, "published")
        assert kept["cards"][0]["id"] == first["cards"][0]["id"]
        assert _content(kept) == _content(_page(api, did, "draft"))
        card_id = _page(api, did, "draft")["cards"][0]["id"]
        for change in (
            {"person": people[1]},
            {"picture": pics[1]},
            {"data": {"k": [1, 3]}},
        ):
            r = api.put(
                f"/api/pages/{did}?status=draft", {"data": {"cards": [{"id": card_id, **change}]}}
            )
            assert r.status_code == 200, r.text
            card_id = _page(api, did, "draft")["cards"][0]["id"]
            assert api.put(f"/api/pages/{did}", {"data": {"title": "V"}}).status_code == 200
            published = _page(api, did, "published")
            assert _content(published) == _content(_page(api, did, "draft")), change
