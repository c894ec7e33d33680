"""Locales and Draft & Publish over REST: locale versions of documents and single types,
draft and published versions, and relations across locales and statuses."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from folio.errors import ValidationError
from tests.conftest import Api, database_url, make_api


def titles(r: Any) -> list[str]:
    assert r.status_code == 200, r.text
    return [d["title"] for d in r.json()["data"]]


def error(r: Any, status: int = 400, name: str = "ValidationError") -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["data"] is None
    assert body["error"]["name"] == name
    return dict(body["error"])


def test_create_in_the_default_locale_or_in_a_given_one(api: Api) -> None:
    assert api.create("articles", {"title": "E"})["locale"] == "en"
    assert api.create("articles", {"title": "F", "locale": "fr"})["locale"] == "fr"
    assert api.create("articles", {"title": "D"}, "?locale=de")["locale"] == "de"
    assert titles(api.get("/api/articles")) == ["E"]
    assert titles(api.get("/api/articles?locale=fr")) == ["F"]
    assert sorted(titles(api.get("/api/articles?locale=*"))) == ["D", "E", "F"]


@pytest.mark.parametrize("where", ["body", "query"])
def test_a_locale_that_is_not_configured_is_refused(api: Api, where: str) -> None:
    if where == "body":
        r = api.post("/api/articles", {"data": {"title": "x", "locale": "xx"}})
    else:
        r = api.post("/api/articles?locale=xx", {"data": {"title": "x"}})
    assert "xx" in error(r)["message"]
    error(api.get("/api/articles?locale=xx"))
    assert titles(api.get("/api/articles?locale=*")) == []


def test_put_with_locale_creates_then_updates_a_locale_version(api: Api) -> None:
    doc = api.create("articles", {"title": "Hello", "views": 3})
    did = doc["documentId"]
    r = api.put(f"/api/articles/{did}?locale=fr", {"data": {"title": "Bonjour"}})
    assert r.status_code == 200, r.text
    fr = r.json()["data"]
    assert fr["documentId"] == did and fr["locale"] == "fr" and fr["title"] == "Bonjour"
    # a localized attribute is not copied from the other locale
    assert fr["views"] is None
    r = api.put(f"/api/articles/{did}?locale=fr", {"data": {"views": 9}})
    assert r.json()["data"]["title"] == "Bonjour" and r.json()["data"]["views"] == 9
    assert api.get(f"/api/articles/{did}").json()["data"]["title"] == "Hello"
    assert api.get(f"/api/articles/{did}?locale=fr").json()["data"]["title"] == "Bonjour"
    assert api.get(f"/api/articles/{did}?locale=de").status_code == 404
    # a new locale version is a create: required attributes must be given
    r = api.put(f"/api/articles/{did}?locale=de", {"data": {"views": 1}})
    assert error(r)["details"]["errors"][0]["path"] == ["title"]


def test_the_locale_of_a_version_cannot_be_changed(api: Api) -> None:
    did = api.create("articles", {"title": "Hello"})["documentId"]
    r = api.put(f"/api/articles/{did}", {"data": {"locale": "fr"}})
    error(r)
    assert api.get(f"/api/articles/{did}").json()["data"]["locale"] == "en"
    assert api.get(f"/api/articles/{did}?locale=fr").status_code == 404


def test_delete_one_locale_or_the_whole_document(api: Api) -> None:
    did = api.create("articles", {"title": "Hello"})["documentId"]
    api.put(f"/api/articles/{did}?locale=fr", {"data": {"title": "Bonjour"}})
    api.put(f"/api/articles/{did}?locale=de", {"data": {"title": "Hallo"}})
    assert api.delete(f"/api/articles/{did}?locale=fr").status_code == 204
    assert api.get(f"/api/articles/{did}?locale=fr").status_code == 404
    assert api.get(f"/api/articles/{did}").status_code == 200
    assert api.delete(f"/api/articles/{did}?locale=fr").status_code == 404
    assert api.delete(f"/api/articles/{did}").status_code == 204
    for loc in ("en", "de"):
        assert api.get(f"/api/articles/{did}?locale={loc}").status_code == 404
    assert titles(api.get("/api/articles?locale=*&status=draft")) == []


def test_single_type_locale_versions(api: Api) -> None:
    r = api.put("/api/global", {"data": {"siteName": "Site"}})
    assert r.status_code == 200 and r.json()["data"]["locale"] == "en"
    r = api.put("/api/global?locale=fr", {"data": {"siteName": "Site FR"}})
    assert r.status_code == 200 and r.json()["data"]["locale"] == "fr"
    assert api.get("/api/global?locale=fr").json()["data"]["siteName"] == "Site FR"
    assert api.get("/api/global").json()["data"]["siteName"] == "Site"
    assert api.get("/api/global?locale=de").status_code == 404
    assert api.delete("/api/global?locale=fr").status_code == 204
    assert api.get("/api/global?locale=fr").status_code == 404
    assert api.get("/api/global").status_code == 200


def test_draft_and_published_versions(api: Api) -> None:
    r = api.post("/api/articles?status=draft", {"data": {"title": "Draft"}})
    assert r.status_code == 201 and r.json()["data"]["publishedAt"] is None
    did = r.json()["data"]["documentId"]
    assert titles(api.get("/api/articles")) == []
    assert api.get(f"/api/articles/{did}").status_code == 404
    assert titles(api.get("/api/articles?status=draft")) == ["Draft"]
    draft = api.get(f"/api/articles/{did}?status=draft").json()["data"]
    assert draft["publishedAt"] is None
    # a plain update publishes
    r = api.put(f"/api/articles/{did}", {"data": {"title": "Live"}})
    assert r.status_code == 200 and r.json()["data"]["publishedAt"] is not None
    assert titles(api.get("/api/articles")) == ["Live"]
    # a draft update leaves the published version as it was
    r = api.put(f"/api/articles/{did}?status=draft", {"data": {"title": "Next"}})
    assert r.json()["data"]["publishedAt"] is None and r.json()["data"]["title"] == "Next"
    assert titles(api.get("/api/articles")) == ["Live"]
    assert titles(api.get("/api/articles?status=draft")) == ["Next"]
    api.put(f"/api/articles/{did}", {"data": {}})
    assert titles(api.get("/api/articles")) == ["Next"]


def test_a_draft_may_be_incomplete_but_not_its_publication(api: Api) -> None:
    r = api.post("/api/articles?status=draft", {"data": {"views": 1}})
    assert r.status_code == 201, r.text
    did = r.json()["data"]["documentId"]
    r = api.put(f"/api/articles/{did}", {"data": {"views": 2}})
    assert error(r)["details"]["errors"][0]["path"] == ["title"]
    assert titles(api.get("/api/articles")) == []


@pytest.mark.parametrize("value", ["foo", "", "DRAFT", "live"])
def test_other_status_values_are_refused(api: Api, value: str) -> None:
    error(api.get(f"/api/articles?status={value}"))


def test_types_without_draft_and_publish_have_one_published_version(api: Api) -> None:
    doc = api.create("categories", {"name": "News"}, "?status=draft")
    assert doc["publishedAt"] is not None
    r = api.get("/api/categories?status=draft")
    assert [d["name"] for d in r.json()["data"]] == ["News"]


def test_filters_and_sort_on_status_and_timestamps(api: Api) -> None:
    api.create("articles", {"title": "A"})
    api.create("articles", {"title": "B"}, "?status=draft")
    assert titles(
        api.get("/api/articles?status=draft&filters[publishedAt][$null]=true&sort=title")
    ) == ["A", "B"]
    assert titles(api.get("/api/articles?filters[publishedAt][$notNull]=true")) == ["A"]
    assert titles(api.get("/api/articles?status=draft&sort=createdAt:desc")) == ["B", "A"]
    assert titles(api.get("/api/articles?filters[locale][$eq]=en")) == ["A"]


def test_relations_are_per_locale(api: Api) -> None:
    cat = api.create("categories", {"name": "Tech"})
    did = api.create("articles", {"title": "Hello", "category": cat["documentId"]})["documentId"]
    api.put(f"/api/articles/{did}?locale=fr", {"data": {"title": "Bonjour"}})
    fr = api.get(f"/api/articles/{did}?locale=fr&populate=category").json()["data"]
    assert fr["category"] is None
    en = api.get(f"/api/articles/{did}?populate=category").json()["data"]
    assert en["category"]["name"] == "Tech"
    r = api.get("/api/articles?locale=fr&filters[category][name][$eq]=Tech")
    assert titles(r) == []
    # the inverse side lists the article version of the asked locale
    r = api.get(f"/api/categories/{cat['documentId']}?populate=articles")
    assert [a["title"] for a in r.json()["data"]["articles"]] == ["Hello"]


def test_longhand_locale_entries_pick_the_target_locale(api: Api) -> None:
    did = api.create("articles", {"title": "Hello"})["documentId"]
    api.put(f"/api/articles/{did}?locale=fr", {"data": {"title": "Bonjour"}})
    r = api.post(
        "/api/events",
        {
            "data": {
                "name": "Launch",
                "articles": [
                    {"documentId": did, "locale": "fr"},
                    {"documentId": did, "locale": "en"},
                ],
            }
        },
    )
    assert r.status_code == 201, r.text
    eid = r.json()["data"]["documentId"]
    got = api.get(f"/api/events/{eid}?populate=articles").json()["data"]["articles"]
    assert [(a["title"], a["locale"]) for a in got] == [("Bonjour", "fr"), ("Hello", "en")]
    r = api.post(
        "/api/events", {"data": {"name": "X", "articles": [{"documentId": did, "locale": "de"}]}}
    )
    assert error(r)["message"] == f'Document with id "{did}", locale "de" not found'
    r = api.post(
        "/api/events", {"data": {"name": "X", "articles": [{"documentId": did, "status": "bogus"}]}}
    )
    error(r)


def test_published_readers_never_see_a_draft_target(api: Api) -> None:
    cat = api.create("categories", {"name": "Tech"})
    api.create("articles", {"title": "Live", "category": cat["documentId"]})
    api.create("articles", {"title": "Hidden", "category": cat["documentId"]}, "?status=draft")
    r = api.get(f"/api/categories/{cat['documentId']}?populate=articles")
    assert [a["title"] for a in r.json()["data"]["articles"]] == ["Live"]
    r = api.get("/api/categories?filters[articles][title][$eq]=Hidden")
    assert r.json()["data"] == []


@pytest.fixture
def shared_api(backend: str, tmp_path: Path) -> Iterator[Api]:
    """The blog app with a non-localized attribute on the localized article type."""
    import shutil

    from tests.conftest import FIXTURES

    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    schema = app / "src/api/article/content-types/article/schema.json"
    model = json.loads(schema.read_text())
    model["attributes"]["code"] = {
        "type": "string",
        "pluginOptions": {"i18n": {"localized": False}},
    }
    schema.write_text(json.dumps(model))
    yield from make_api(app, database_url(backend, app))


def test_non_localized_attributes_are_shared_by_every_locale(shared_api: Api) -> None:
    api = shared_api
    did = api.create("articles", {"title": "Hello", "code": "A1"})["documentId"]
    r = api.put(f"/api/articles/{did}?locale=fr", {"data": {"title": "Bonjour"}})
    assert r.json()["data"]["code"] == "A1"
    api.put(f"/api/articles/{did}?locale=fr", {"data": {"code": "B2"}})
    assert api.get(f"/api/articles/{did}").json()["data"]["code"] == "B2"
    assert api.get(f"/api/articles/{did}?status=draft").json()["data"]["code"] == "B2"


def test_populate_localizations(api: Api) -> None:
    """`localizations`: the document's versions in the other locales, in the read's status,
    like a relation to the type itself (in `populate=*` too, as the reference)."""
    doc = api.create("articles", {"title": "Hello", "views": 1})["documentId"]
    for locale, title in (("fr", "Bonjour"), ("de", "Hallo")):
        r = api.put(f"/api/articles/{doc}?locale={locale}", {"data": {"title": title}})
        assert r.status_code == 200, r.text
    api.put(f"/api/articles/{doc}?locale=de&status=draft", {"data": {"title": "Hallo (draft)"}})
    solo = api.create("articles", {"title": "Solo"})["documentId"]

    def localizations(path: str) -> Any:
        r = api.get(path)
        assert r.status_code == 200, r.text
        return r.json()["data"]

    got = localizations(f"/api/articles/{doc}?populate=localizations&fields[0]=title")
    assert [(x["locale"], x["title"]) for x in got["localizations"]] == [
        ("fr", "Bonjour"),
        ("de", "Hallo"),
    ]
    assert got["localizations"][0]["documentId"] == doc
    assert "localizations" not in got["localizations"][0]
    query = "?locale=fr&populate[localizations][fields][0]=title&fields[0]=title"
    got = localizations(f"/api/articles/{doc}{query}")
    assert [set(x) for x in got["localizations"]] == [{"id", "documentId", "title"}] * 2
    assert [x["title"] for x in got["localizations"]] == ["Hello", "Hallo"]
    # drafts list the other drafts
    got = localizations(f"/api/articles/{doc}?status=draft&populate=localizations")
    assert [x["title"] for x in got["localizations"]] == ["Bonjour", "Hallo (draft)"]
    assert all(x["publishedAt"] is None for x in got["localizations"])
    # lists, every locale, and populate=*
    docs = localizations("/api/articles?populate=*&sort=title&fields[0]=title")
    assert [(d["title"], len(d["localizations"])) for d in docs] == [("Hello", 2), ("Solo", 0)]
    docs = localizations(
        "/api/articles?locale=*&populate[localizations][fields][0]=title&fields[0]=locale"
        f"&filters[documentId][$eq]={doc}&sort=locale"
    )
    assert [(d["locale"], [x["title"] for x in d["localizations"]]) for d in docs] == [
        ("de", ["Hello", "Bonjour"]),
        ("en", ["Bonjour", "Hallo"]),
        ("fr", ["Hello", "Hallo"]),
    ]
    assert solo
    # one statement for the whole page
    before = api.statements()
    localizations("/api/articles?populate=localizations")
    assert api.statements() - before <= 3
    # single types too; a type without locales has none
    r = api.put("/api/global", {"data": {"siteName": "Site"}})
    assert r.status_code == 200, r.text
    assert localizations("/api/global?populate=*")["localizations"] == []
    r = api.get("/api/tags?populate=localizations")
    assert error(r)["message"] == "Invalid key localizations"


def test_a_locale_filter_chooses_the_locales(api: Api) -> None:
    """Without `locale=`, `filters[locale]` decides which versions a list holds (the
    reference's answer); with `locale=`, both apply."""
    doc = api.create("articles", {"title": "Hello"})["documentId"]
    assert (
        api.put(f"/api/articles/{doc}?locale=fr", {"data": {"title": "Bonjour"}}).status_code == 200
    )
    api.create("articles", {"title": "Salut", "locale": "fr"})
    assert titles(api.get("/api/articles?filters[locale][$eq]=fr&sort=title")) == [
        "Bonjour",
        "Salut",
    ]
    query = "filters[locale][$in][0]=en&filters[locale][$in][1]=fr&sort=title"
    assert titles(api.get(f"/api/articles?{query}")) == ["Bonjour", "Hello", "Salut"]
    query = "filters[$or][0][locale][$eq]=fr&filters[$or][1][title][$eq]=Hello&sort=title"
    assert titles(api.get(f"/api/articles?{query}")) == ["Bonjour", "Hello", "Salut"]
    assert titles(api.get("/api/articles?locale=en&filters[locale][$eq]=fr")) == []


def test_a_sort_on_a_related_field_reads_the_related_versions_of_the_status(api: Api) -> None:
    """`sort=articles.title` orders categories by their first article's title in the
    versions the read asks for: a draft read by draft titles, a published read by
    published ones (a category whose articles are all drafts has no published value and
    sorts last)."""
    c1 = api.create("categories", {"name": "C1"})["documentId"]
    c2 = api.create("categories", {"name": "C2"})["documentId"]
    c3 = api.create("categories", {"name": "C3"})["documentId"]
    moved = api.create("articles", {"title": "m-title", "category": c1})["documentId"]
    r = api.put(f"/api/articles/{moved}?status=draft", {"data": {"title": "a-title"}})
    assert r.status_code == 200, r.text
    api.create("articles", {"title": "f-title", "category": c2})
    api.create("articles", {"title": "z-title", "category": c3}, "?status=draft")

    def names(query: str) -> list[str]:
        r = api.get(f"/api/categories?sort=articles.title{query}")
        assert r.status_code == 200, r.text
        return [d["name"] for d in r.json()["data"]]

    assert names("") == ["C2", "C1", "C3"]
    assert names("&status=draft") == ["C1", "C2", "C3"]
    assert names(":desc&status=draft") == ["C3", "C2", "C1"]


def test_the_document_api_publishes_a_draft(api: Api) -> None:
    """`documents.publish` (for app code and front-ends without a REST route for it)
    publishes a locale version's draft as it stands; what is published before is what REST
    readers see."""
    from folio.auth.principal import OPEN

    did = api.create("articles", {"title": "First"})["documentId"]
    r = api.put(f"/api/articles/{did}?status=draft", {"data": {"title": "Second"}})
    assert r.status_code == 200, r.text
    assert api.get(f"/api/articles/{did}").json()["data"]["title"] == "First"

    documents = api.folio.documents
    articles = api.folio.registry.by_route["articles"]
    published = api.client.portal.call(
        documents.publish, articles, did, {"fields": ["title"]}, OPEN
    )
    assert published["title"] == "Second"
    assert published["documentId"] == did
    assert api.get(f"/api/articles/{did}").json()["data"]["title"] == "Second"

    categories = api.folio.registry.by_route["categories"]
    with pytest.raises(ValidationError):
        api.client.portal.call(documents.publish, categories, did, {}, OPEN)
