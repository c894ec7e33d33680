"""Attributes of a localized type without `pluginOptions.i18n.localized` are shared by every
locale, as the reference does: scalars, media, components and dynamic zones hold one value
per status, copied to every locale version; relations and uids stay per locale. A database
where such an attribute was per locale takes the default locale's values at start-up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.api.test_relations import image_file
from tests.api.test_storage_layout import run_sql
from tests.conftest import Api, database_url, running

LOCALIZED = {"i18n": {"localized": True}}


def _add_notes(app_dir: Path, marked: bool = False) -> None:
    """A localized type with Draft & Publish whose attributes carry no i18n option (all of
    them marked localized when `marked`), except `title`, always per locale."""
    attributes: dict[str, Any] = {
        "title": {"type": "string", "pluginOptions": LOCALIZED},
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "off": {"type": "string", "pluginOptions": {"i18n": {"localized": False}}},
        "slug": {"type": "uid"},
        "pic": {"type": "media", "multiple": False, "allowedTypes": ["images"]},
        "pics": {"type": "media", "multiple": True, "allowedTypes": ["images"]},
        "seo": {"type": "component", "component": "shared.seo"},
        "links": {"type": "component", "component": "shared.link", "repeatable": True},
        "dz": {"type": "dynamiczone", "components": ["shared.seo", "shared.link"]},
        "category": {
            "type": "relation",
            "relation": "manyToOne",
            "target": "api::category.category",
        },
    }
    if marked:
        for name, spec in attributes.items():
            if name not in ("off", "category", "slug"):
                spec["pluginOptions"] = LOCALIZED
    folder = app_dir / "src/api/note/content-types/note"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "schema.json").write_text(
        json.dumps(
            {
                "kind": "collectionType",
                "collectionName": "notes",
                "info": {"singularName": "note", "pluralName": "notes", "displayName": "Note"},
                "options": {"draftAndPublish": True},
                "pluginOptions": LOCALIZED,
                "attributes": attributes,
            }
        )
    )


def _read(api: Api, doc: str, locale: str, status: str = "published") -> dict[str, Any]:
    r = api.get(f"/api/notes/{doc}?locale={locale}&status={status}&populate=*")
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def _values(note: dict[str, Any]) -> dict[str, Any]:
    """What the test compares: the shared values, media by file id, components by content."""

    def media(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, list):
            return [m["id"] for m in value]
        return value["id"]

    return {
        "name": note["name"],
        "count": note["count"],
        "off": note["off"],
        "pic": media(note["pic"]),
        "pics": media(note["pics"]),
        "seo": note["seo"] and note["seo"]["metaTitle"],
        "links": [link["label"] for link in note["links"]],
        "dz": [(c["__component"], c.get("metaTitle") or c.get("label")) for c in note["dz"]],
    }


def _put(api: Api, doc: str, locale: str, data: dict[str, Any], status: str = "") -> Any:
    query = f"?locale={locale}" + (f"&status={status}" if status else "")
    r = api.put(f"/api/notes/{doc}{query}", {"data": data})
    assert r.status_code == 200, r.text
    return r.json()["data"]


def test_attributes_without_the_option_are_shared_and_relations_and_uids_are_not(
    backend: str, app_dir: Path
) -> None:
    _add_notes(app_dir)
    with running(app_dir, database_url(backend, app_dir)) as api:
        red, blue = image_file(api, "red.png"), image_file(api, "blue.png")
        cat = api.create("categories", {"name": "News"})["documentId"]
        data = {
            "title": "Hello",
            "name": "shared name",
            "count": 1,
            "off": "off",
            "slug": "hello",
            "pic": red,
            "pics": [red, blue],
            "seo": {"metaTitle": "seo"},
            "links": [{"label": "one", "url": "https://a.example"}],
            "dz": [{"__component": "shared.seo", "metaTitle": "zone"}],
            "category": cat,
        }
        doc = api.create("notes", data, "?status=draft")["documentId"]
        # a new locale takes every shared value, relations and uids excepted
        _put(api, doc, "fr", {"title": "Bonjour"}, "draft")
        en, fr = _read(api, doc, "en", "draft"), _read(api, doc, "fr", "draft")
        assert (
            _values(fr)
            == _values(en)
            == {
                "name": "shared name",
                "count": 1,
                "off": "off",
                "pic": red,
                "pics": [red, blue],
                "seo": "seo",
                "links": ["one"],
                "dz": [("shared.seo", "zone")],
            }
        )
        assert (fr["title"], fr["slug"], fr["category"]) == ("Bonjour", None, None)
        assert (en["title"], en["slug"], en["category"]["name"]) == ("Hello", "hello", "News")
        # the components are copies: each locale has its own rows
        assert fr["seo"]["id"] != en["seo"]["id"]
        # a write in either locale changes both
        change = {
            "name": "changed",
            "count": 2,
            "pic": blue,
            "pics": [blue],
            "seo": {"metaTitle": "seo 2"},
            "links": [],
            "dz": [{"__component": "shared.link", "label": "two", "url": "https://b.example"}],
        }
        _put(api, doc, "fr", change, "draft")
        en, fr = _read(api, doc, "en", "draft"), _read(api, doc, "fr", "draft")
        assert _values(en) == _values(fr)
        assert _values(en)["dz"] == [("shared.link", "two")] and _values(en)["pic"] == blue
        assert en["title"] == "Hello" and fr["title"] == "Bonjour"
        # a uid is per locale: the same value in another locale is accepted
        _put(api, doc, "de", {"title": "Hallo", "slug": "hello"}, "draft")
        assert _read(api, doc, "de", "draft")["name"] == "changed"
        # filters see the shared value in every locale
        r = api.get("/api/notes?locale=de&status=draft&filters[name][$eq]=changed")
        assert [n["documentId"] for n in r.json()["data"]] == [doc]
        # deleting one locale leaves the others' copies whole
        assert api.delete(f"/api/notes/{doc}?locale=fr").status_code == 204
        en = _read(api, doc, "en", "draft")
        assert _values(en)["seo"] == "seo 2" and _values(en)["dz"] == [("shared.link", "two")]


def test_shared_values_are_shared_per_status(backend: str, app_dir: Path) -> None:
    """A draft's shared values reach the other drafts; the published versions take them
    when one is published (as the reference)."""
    _add_notes(app_dir)
    with running(app_dir, database_url(backend, app_dir)) as api:
        doc = api.create("notes", {"title": "Hello", "name": "v1", "seo": {"metaTitle": "s1"}})[
            "documentId"
        ]
        _put(api, doc, "fr", {"title": "Bonjour"})
        assert _read(api, doc, "fr")["name"] == "v1"
        _put(api, doc, "en", {"name": "v2", "seo": {"metaTitle": "s2"}}, "draft")
        assert [_values(_read(api, doc, "fr", "draft"))[k] for k in ("name", "seo")] == [
            "v2",
            "s2",
        ]
        # the published versions keep theirs
        for locale in ("en", "fr"):
            assert [_values(_read(api, doc, locale))[k] for k in ("name", "seo")] == ["v1", "s1"]
        # publishing English publishes its shared values in French too, not French's title
        _put(api, doc, "fr", {"title": "Bonjour (brouillon)"}, "draft")
        _put(api, doc, "en", {})  # an update without a status publishes the draft
        fr = _read(api, doc, "fr")
        assert (fr["name"], fr["seo"]["metaTitle"], fr["title"]) == ("v2", "s2", "Bonjour")


def test_a_database_where_the_attributes_were_per_locale_takes_the_default_locales_values(
    backend: str, app_dir: Path
) -> None:
    """The model marked every attribute localized, and the locales hold different values;
    once the marks are gone, start-up gives every version the default locale's values (per
    status). A database made before the shared attributes were recorded counts as one where
    only the attributes marked `localized: false` were shared."""
    _add_notes(app_dir, marked=True)
    url = database_url(backend, app_dir)
    with running(app_dir, url) as api:
        red, blue = image_file(api, "red.png"), image_file(api, "blue.png")
        fr_first = api.create(
            "notes", {"title": "Premier", "name": "fr name", "pic": blue}, "?locale=fr"
        )["documentId"]
        doc = api.create(
            "notes",
            {
                "title": "Hello",
                "name": "en name",
                "count": 1,
                "pic": red,
                "links": [{"label": "en link", "url": "https://a.example"}],
                "dz": [{"__component": "shared.seo", "metaTitle": "en zone"}],
            },
        )["documentId"]
        _put(
            api,
            doc,
            "fr",
            {
                "title": "Bonjour",
                "name": "fr name",
                "count": 2,
                "pic": blue,
                "links": [{"label": "fr link", "url": "https://b.example"}],
                "dz": [],
            },
        )
        _put(api, doc, "en", {"name": "en draft name"}, "draft")
        assert _read(api, doc, "fr")["name"] == "fr name"
    # a database from before the record: the table is gone and the marks with it
    run_sql(url, 'DROP TABLE "folio_sharing"')
    _add_notes(app_dir)
    with running(app_dir, url) as api:
        for status, name in (("published", "en name"), ("draft", "en draft name")):
            en, fr = _read(api, doc, "en", status), _read(api, doc, "fr", status)
            assert _values(fr) == _values(en)
            assert _values(fr)["name"] == name
            assert _values(fr)["links"] == ["en link"]
            assert _values(fr)["dz"] == [("shared.seo", "en zone")]
            assert _values(fr)["pic"] == red
            assert fr["title"] == "Bonjour"
        # a document without the default locale keeps its only version's values
        assert _read(api, fr_first, "fr")["name"] == "fr name"
    # marked per locale again, then shared again: the recorded state drives the change
    _add_notes(app_dir, marked=True)
    with running(app_dir, url) as api:
        _put(api, doc, "fr", {"name": "fr again"})
        assert _read(api, doc, "en")["name"] == "en name"
    _add_notes(app_dir)
    with running(app_dir, url) as api:
        assert _read(api, doc, "fr")["name"] == "en name"
        assert _values(_read(api, doc, "fr")) == _values(_read(api, doc, "en"))
