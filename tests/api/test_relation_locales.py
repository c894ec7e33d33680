"""Relations between a type without locales (tags) and a localized one (articles), as the
reference answers them: a longhand entry's `locale` chooses the version linked, from the
inverse side too, and a populate from the type without locales lists every locale version."""

from __future__ import annotations

from tests.conftest import Api


def _article_in_two_locales(api: Api) -> str:
    did = api.create("articles", {"title": "Hello"})["documentId"]
    r = api.put(f"/api/articles/{did}?locale=fr", {"data": {"title": "Bonjour"}})
    assert r.status_code == 200, r.text
    return did


def _tag_names(api: Api, did: str, locale: str) -> list[str]:
    r = api.get(f"/api/articles/{did}?locale={locale}&populate=tags")
    assert r.status_code == 200, r.text
    return [t["name"] for t in r.json()["data"]["tags"]]


def test_an_inverse_connect_links_the_locale_version_it_names(api: Api) -> None:
    did = _article_in_two_locales(api)
    tag = api.create("tags", {"name": "web"})["documentId"]
    r = api.put(
        f"/api/tags/{tag}",
        {"data": {"articles": {"connect": [{"documentId": did, "locale": "fr"}]}}},
    )
    assert r.status_code == 200, r.text
    assert _tag_names(api, did, "fr") == ["web"]
    assert _tag_names(api, did, "en") == []
    # without a locale the default locale's version is linked
    other = api.create("tags", {"name": "news"})["documentId"]
    r = api.put(f"/api/tags/{other}", {"data": {"articles": {"connect": [did]}}})
    assert r.status_code == 200, r.text
    assert _tag_names(api, did, "en") == ["news"]
    assert _tag_names(api, did, "fr") == ["web"]


def test_a_populate_from_a_type_without_locales_lists_every_locale_version(api: Api) -> None:
    did = _article_in_two_locales(api)
    tag = api.create("tags", {"name": "web"})["documentId"]
    for locale in ("en", "fr"):
        r = api.put(f"/api/articles/{did}?locale={locale}", {"data": {"tags": {"connect": [tag]}}})
        assert r.status_code == 200, r.text
    r = api.get(f"/api/tags/{tag}?populate[articles][fields][0]=title")
    assert r.status_code == 200, r.text
    assert sorted(a["title"] for a in r.json()["data"]["articles"]) == ["Bonjour", "Hello"]
    r = api.get(f"/api/tags/{tag}?populate[articles][count]=true")
    assert r.json()["data"]["articles"] == {"count": 2}
