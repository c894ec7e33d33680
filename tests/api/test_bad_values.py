"""Values a database cannot hold never answer 500: a NUL character in a text (PostgreSQL
refuses it), integers past 64 bits in pagination and numeric path ids, and JSON nested
deeper than can be stored. Each is a 400 in the error envelope (or a 404 where an id simply
names nothing), and a refused write changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, failed

HUGE = str(2**70)


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value


def _no_server_error(r: Any) -> None:
    assert r.status_code < 500, r.text
    body = r.json()
    if r.status_code >= 400:
        assert body["data"] is None and body["error"]["status"] == r.status_code
        assert "SELECT" not in r.text and "INSERT" not in r.text


@pytest.mark.parametrize(
    "path",
    [
        "/api/articles?filters[title][$eq]=a%00b",
        "/api/articles?filters[title][$containsi]=%00",
        "/api/articles/abc%00def",
        "/api/categories?filters[name][$in][0]=x%00",
        "/api/users?filters[username][$eq]=%00",
    ],
)
def test_a_nul_character_in_a_read_is_not_a_server_error(api: Api, backend: str, path: str) -> None:
    r = api.get(path)
    _no_server_error(r)
    if backend == "postgres" and r.status_code not in (403, 404):
        assert failed(r)["message"] == "Text values cannot contain the NUL character"


def test_a_nul_character_in_a_written_text_is_refused_and_writes_nothing(
    api: Api, backend: str
) -> None:
    r = api.post("/api/tags", {"data": {"name": "bad\u0000name"}})
    _no_server_error(r)
    if backend == "postgres":
        assert failed(r)["message"] == "Text values cannot contain the NUL character"
        assert api.get("/api/tags").json()["data"] == []
    r = api.post("/api/auth/local", {"identifier": "a\u0000b", "password": "secret123"})
    _no_server_error(r)


@pytest.mark.parametrize(
    "path",
    [
        f"/api/articles?pagination[page]={HUGE}",
        f"/api/articles?pagination[pageSize]=10&pagination[page]={HUGE}",
        f"/api/articles?pagination[start]={HUGE}&pagination[limit]=5",
        f"/api/articles?pagination[limit]={HUGE}",
        f"/api/users/{HUGE}",
        f"/api/upload/files/{HUGE}",
        f"/api/articles?filters[views][$eq]={HUGE}",
        f"/api/articles?filters[id][$eq]={HUGE}",
    ],
)
def test_integers_past_64_bits_are_not_a_server_error(api: Api, path: str) -> None:
    _no_server_error(api.get(path))


def test_deeply_nested_json_is_refused_and_writes_nothing(api: Api) -> None:
    for levels in (300, 1000):
        # written by hand: a JSON encoder in Python stops near 1,000 levels
        body = '{"data": {"title": "deep", "meta": ' + '{"a": ' * levels + '"leaf"'
        body += "}" * levels + "}}"
        r = api.post("/api/articles", content=body, headers={"Content-Type": "application/json"})
        _no_server_error(r)
        assert r.status_code == 400
    r = api.get("/api/articles?status=draft&filters[title][$eq]=deep")
    assert r.json()["data"] == []
    # nesting within the limit is stored and read back whole
    r = api.post("/api/articles", {"data": {"title": "fine", "meta": _deep(200)}})
    assert r.status_code == 201, r.text
    assert r.json()["data"]["meta"] == _deep(200)


def test_a_write_past_the_size_limits_is_refused_and_writes_nothing(
    backend: str, app_dir: Any
) -> None:
    import json

    from tests.conftest import database_url, make_api

    api_config = json.loads((app_dir / "config" / "api.json").read_text())
    api_config.update(maxComponents=5, maxRelationEntries=3)
    (app_dir / "config" / "api.json").write_text(json.dumps(api_config))
    for api in make_api(app_dir, database_url(backend, app_dir)):
        links = [{"label": f"l{i}", "url": "/x"} for i in range(6)]
        error = failed(api.post("/api/articles", {"data": {"title": "big", "links": links}}))
        assert error["message"] == (
            "The write is too large: a write may hold at most 5 components (this one: 6)"
        )
        tags = [api.create("tags", {"name": f"t{i}"})["documentId"] for i in range(4)]
        error = failed(api.post("/api/articles", {"data": {"title": "big", "tags": tags}}))
        assert "at most 3 relation entries (this one: 4)" in error["message"]
        assert api.get("/api/articles?status=draft").json()["data"] == []
        # within the limits
        r = api.post(
            "/api/articles", {"data": {"title": "ok", "links": links[:5], "tags": tags[:3]}}
        )
        assert r.status_code == 201, r.text


@pytest.mark.parametrize(
    "path",
    [
        # a NUL in a parameter name (the parser's own marker for `[]`)
        "/api/articles?filters[%00x]=1",
        "/api/articles?pagination[%00]=1&populate[%00a][%00]=2",
        # digits that are not ASCII ('²' is a digit to Python, not a number)
        "/api/articles?populate[%C2%B2]=x",
        "/api/articles?fields[%C2%B2]=title&filters[title][%C2%B2]=a",
    ],
)
def test_odd_parameter_names_are_not_a_server_error(api: Api, path: str) -> None:
    _no_server_error(api.get(path))


def test_odd_shapes_in_relation_and_component_entries_are_refused(api: Api) -> None:
    # found by fuzzing the API from its OpenAPI document: each was a 500
    r = api.post(
        "/api/authors",
        {"data": {"name": "a", "profile": [{"documentId": "x", "status": {}, "position": {}}]}},
    )
    assert failed(r)["name"] == "ValidationError"
    doc = api.create("articles", {"title": "t", "seo": {"metaTitle": "m"}})["documentId"]
    r = api.put(f"/api/articles/{doc}", {"data": {"seo": {"id": {"a": 1}, "metaTitle": "n"}}})
    _no_server_error(r)
    assert r.status_code == 400
    r = api.put(f"/api/articles/{doc}", {"data": {"links": [{"id": "²", "label": "x"}]}})
    _no_server_error(r)
    assert r.status_code == 400
