"""`hasPublishedVersion` and `publicationFilter`: versions chosen by the other versions of
their document, as the reference answers them (tests/fixtures/reference/graphql-probes.md,
second batch, section 5)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Api, database_url, make_api


@pytest.fixture
def api(backend: str, app_dir: Path) -> Iterator[Api]:
    yield from make_api(app_dir, database_url(backend, app_dir))


def gql(api: Api, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    r = api.post("/graphql", {"query": query, "variables": variables})
    assert r.status_code == 200, r.text
    body = r.json()
    assert "errors" not in body, body
    return dict(body["data"])


@pytest.fixture
def seeded(api: Api) -> Api:
    """`HP never` (a draft only), `HP pub` (published, untouched), `HP mod` (published,
    then its draft edited)."""
    got = gql(
        api,
        'mutation { a: createArticle(status: DRAFT, data: {title: "HP never"}) { documentId }'
        ' b: createArticle(data: {title: "HP pub"}) { documentId }'
        ' c: createArticle(data: {title: "HP mod"}) { documentId } }',
    )
    gql(
        api,
        'mutation { updateArticle(documentId: "' + got["c"]["documentId"] + '", status: DRAFT, '
        'data: {title: "HP mod (draft edit)"}) { title } }',
    )
    # a type without Draft & Publish ignores both arguments
    api.create("tags", {"name": "t1"})
    return api


def titles(api: Api, arguments: str) -> list[str]:
    data = gql(
        api,
        "{ articles(" + arguments + ' filters: {title: {startsWith: "HP"}}, sort: "title") '
        "{ title } }",
    )
    return [a["title"] for a in data["articles"]]


MOD_DRAFT, NEVER, PUB, MOD = "HP mod (draft edit)", "HP never", "HP pub", "HP mod"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ("status: DRAFT", [MOD_DRAFT, NEVER, PUB]),
        ("status: DRAFT, hasPublishedVersion: false", [NEVER]),
        ("status: DRAFT, hasPublishedVersion: true", [MOD_DRAFT, PUB]),
        ("status: DRAFT, publicationFilter: NEVER_PUBLISHED", [NEVER]),
        ("status: DRAFT, publicationFilter: HAS_PUBLISHED_VERSION", [MOD_DRAFT, PUB]),
        ("status: DRAFT, publicationFilter: MODIFIED", [MOD_DRAFT]),
        ("status: DRAFT, publicationFilter: UNMODIFIED", [PUB]),
        ("status: DRAFT, publicationFilter: NEVER_PUBLISHED_DOCUMENT", [NEVER]),
        ("status: DRAFT, publicationFilter: HAS_PUBLISHED_VERSION_DOCUMENT", [MOD_DRAFT, PUB]),
        ("status: DRAFT, publicationFilter: PUBLISHED_WITHOUT_DRAFT", []),
        ("status: DRAFT, publicationFilter: PUBLISHED_WITH_DRAFT", []),
        ("", [MOD, PUB]),
        ("hasPublishedVersion: false", []),
        ("hasPublishedVersion: true", [MOD, PUB]),
        ("publicationFilter: NEVER_PUBLISHED", []),
        ("publicationFilter: MODIFIED", [MOD]),
        ("publicationFilter: UNMODIFIED", [PUB]),
        ("publicationFilter: PUBLISHED_WITHOUT_DRAFT", []),
        ("publicationFilter: PUBLISHED_WITH_DRAFT", [MOD, PUB]),
        ("status: DRAFT, hasPublishedVersion: false, publicationFilter: NEVER_PUBLISHED", [NEVER]),
    ],
)
def test_publication_filters(seeded: Api, arguments: str, expected: list[str]) -> None:
    assert titles(seeded, arguments + ",") == expected


def test_connection_counts_what_the_filter_keeps(seeded: Api) -> None:
    data = gql(
        seeded,
        "{ articles_connection(status: DRAFT, hasPublishedVersion: false, filters: {title: "
        '{startsWith: "HP"}}) { nodes { title } pageInfo { total } } }',
    )
    assert data["articles_connection"] == {"nodes": [{"title": NEVER}], "pageInfo": {"total": 1}}


def test_single_document_and_types_without_draft_and_publish(seeded: Api) -> None:
    mod = gql(seeded, '{ articles(filters: {title: {eq: "HP mod"}}) { documentId } }')
    document_id = mod["articles"][0]["documentId"]
    one = gql(
        seeded,
        "query($id: ID!) { a: article(documentId: $id, status: DRAFT, hasPublishedVersion: false)"
        " { title } b: article(documentId: $id, status: DRAFT, hasPublishedVersion: true)"
        " { title } }",
        {"id": document_id},
    )
    assert one == {"a": None, "b": {"title": MOD_DRAFT}}
    tags = gql(seeded, "{ tags(hasPublishedVersion: false) { name } }")
    assert tags == {"tags": [{"name": "t1"}]}


def test_rest_takes_the_same_parameters(seeded: Api) -> None:
    r = seeded.get(
        "/api/articles?status=draft&hasPublishedVersion=false&filters[title][$startsWith]=HP"
    )
    assert r.status_code == 200, r.text
    assert [a["title"] for a in r.json()["data"]] == [NEVER]
    r = seeded.get("/api/articles?publicationFilter=nope")
    assert r.status_code == 400
    assert r.json()["error"]["name"] == "ValidationError"
