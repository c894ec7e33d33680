"""Who may run which GraphQL operation (the REST permission matrix of test_auth_matrix, over
`/graphql`), what a refusal looks like, relations the caller may not read, and how bad
requests are refused: never a 500, never SQL text.

Callers: public (the app's restricted public role), a user's JWT (authenticated role),
read-only and full-access API tokens. The expectations are the reference's answers
(`tests/fixtures/reference/graphql-probes.md`) except where KNOWN-DIFFERENCES says
otherwise."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.authapp import bearer, token
from tests.api.gql_helpers import (
    FORBIDDEN,
    World,
    data_of,
    gql,
    is_forbidden,
    make_world,
    no_leak,
    refused,
    resolver_error,
    upload_png,
)
from tests.conftest import failed

CALLERS = ["public", "user", "read-only", "full-access"]
OK, NO = "ok", "forbidden"


@pytest.fixture
def w(backend: str, tmp_path: Path) -> Iterator[World]:
    yield from make_world(backend, tmp_path)


def make_article(w: World, title: str = "A", status: str = "PUBLISHED") -> str:
    q = (
        f"mutation($t: String!) {{ createArticle(status: {status}, data: {{title: $t}}) "
        "{ documentId } }"
    )
    return str(w.data(q, {"t": title})["createArticle"]["documentId"])


def make_global(w: World) -> None:
    w.data('mutation { updateGlobal(data: {siteName: "Site"}) { siteName } }')


def make_file(w: World) -> dict[str, Any]:
    return upload_png(w.api, w.full)


def user_id(w: World) -> int:
    users = w.api.get("/api/users", headers=w.full).json()
    return int(next(u["id"] for u in users if u["username"] == "alice"))


# each row: the root field, and a function making what it acts on (with the full-access
# token) and answering the operation's text
Op = Callable[[World], str]
OPS: dict[str, tuple[str, Op]] = {
    "articles": ("articles", lambda w: (make_article(w), "{ articles { title } }")[1]),
    "articles_connection": (
        "articles_connection",
        lambda w: "{ articles_connection { nodes { title } pageInfo { total } } }",
    ),
    "article": (
        "article",
        lambda w: f'{{ article(documentId: "{make_article(w)}") {{ title }} }}',
    ),
    "articles-draft": (
        "articles",
        lambda w: (make_article(w, "D", "DRAFT"), "{ articles(status: DRAFT) { title } }")[1],
    ),
    "articles_connection-draft": (
        "articles_connection",
        lambda w: "{ articles_connection(status: DRAFT) { nodes { title } } }",
    ),
    "article-draft": (
        "article",
        lambda w: (
            f'{{ article(documentId: "{make_article(w, "D", "DRAFT")}", status: DRAFT) '
            "{ title } }"
        ),
    ),
    "createArticle": (
        "createArticle",
        lambda w: 'mutation { createArticle(data: {title: "new"}) { documentId } }',
    ),
    "updateArticle": (
        "updateArticle",
        lambda w: (
            f'mutation {{ updateArticle(documentId: "{make_article(w)}", '
            'data: {title: "changed"}) { title } }'
        ),
    ),
    "deleteArticle": (
        "deleteArticle",
        lambda w: f'mutation {{ deleteArticle(documentId: "{make_article(w)}") {{ documentId }} }}',
    ),
    "global": ("global", lambda w: (make_global(w), "{ global { siteName } }")[1]),
    "updateGlobal": (
        "updateGlobal",
        lambda w: 'mutation { updateGlobal(data: {siteName: "Other"}) { siteName } }',
    ),
    "deleteGlobal": (
        "deleteGlobal",
        lambda w: (make_global(w), "mutation { deleteGlobal { documentId } }")[1],
    ),
    "uploadFiles": ("uploadFiles", lambda w: (make_file(w), "{ uploadFiles { name } }")[1]),
    "uploadFiles_connection": (
        "uploadFiles_connection",
        lambda w: "{ uploadFiles_connection { pageInfo { total } } }",
    ),
    "uploadFile": (
        "uploadFile",
        lambda w: f'{{ uploadFile(documentId: "{make_file(w)["documentId"]}") {{ name }} }}',
    ),
    "updateUploadFile": (
        "updateUploadFile",
        lambda w: (
            f'mutation {{ updateUploadFile(id: {make_file(w)["id"]}, info: {{name: "n"}}) '
            "{ name } }"
        ),
    ),
    "deleteUploadFile": (
        "deleteUploadFile",
        lambda w: f"mutation {{ deleteUploadFile(id: {make_file(w)['id']}) {{ name }} }}",
    ),
    "usersPermissionsUsers": (
        "usersPermissionsUsers",
        lambda w: "{ usersPermissionsUsers { username } }",
    ),
    "usersPermissionsUsers_connection": (
        "usersPermissionsUsers_connection",
        lambda w: "{ usersPermissionsUsers_connection { pageInfo { total } } }",
    ),
    "usersPermissionsRoles": (
        "usersPermissionsRoles",
        lambda w: "{ usersPermissionsRoles { name } }",
    ),
    "updateUsersPermissionsUser": (
        "updateUsersPermissionsUser",
        lambda w: (
            f"mutation {{ updateUsersPermissionsUser(id: {user_id(w)}, "
            "data: {blocked: false}) { data { username } } }"
        ),
    ),
    "i18NLocales": ("i18NLocales", lambda w: "{ i18NLocales { code } }"),
    "me": ("me", lambda w: "{ me { username } }"),
}

# row -> expected outcome per caller, in CALLERS order (public, user, read-only, full)
MATRIX: dict[str, list[str]] = {
    "articles": [OK, OK, OK, OK],
    "articles_connection": [OK, OK, OK, OK],
    "article": [OK, OK, OK, OK],
    # drafts: only principals that may read drafts through REST
    "articles-draft": [NO, OK, OK, OK],
    "articles_connection-draft": [NO, OK, OK, OK],
    "article-draft": [NO, OK, OK, OK],
    "createArticle": [NO, OK, NO, OK],
    "updateArticle": [NO, OK, NO, OK],
    "deleteArticle": [NO, OK, NO, OK],
    "global": [OK, OK, OK, OK],
    "updateGlobal": [NO, OK, NO, OK],
    "deleteGlobal": [NO, OK, NO, OK],
    "uploadFiles": [NO, OK, OK, OK],
    "uploadFiles_connection": [NO, OK, OK, OK],
    "uploadFile": [NO, OK, OK, OK],
    "updateUploadFile": [NO, OK, NO, OK],
    "deleteUploadFile": [NO, OK, NO, OK],
    "usersPermissionsUsers": [NO, NO, OK, OK],
    "usersPermissionsUsers_connection": [NO, NO, OK, OK],
    "usersPermissionsRoles": [NO, NO, OK, OK],
    "updateUsersPermissionsUser": [NO, NO, NO, OK],
    "i18NLocales": [NO, NO, OK, OK],
    # an API token has no user: `me` is an error, but not a FORBIDDEN one (the reference:
    # "Authentication requested"; REST answers 401 there)
    "me": [NO, OK, NO, "error"],
}


def outcome(r: Any, field: str) -> str:
    if is_forbidden(r, field):
        return NO
    body = r.json()
    if body.get("errors"):
        error = body["errors"][0]
        assert error.get("path") == [field], body
        assert body["data"] is None or body["data"][field] is None, body
        if error["extensions"]["code"] != "INTERNAL_SERVER_ERROR":
            no_leak(r)
        return "error"
    data_of(r)
    assert body["data"][field] is not None, body
    return OK


@pytest.mark.parametrize("row", list(MATRIX))
def test_permission_matrix(w: World, row: str) -> None:
    field, make = OPS[row]
    got = {caller: outcome(w.gql(make(w), caller=caller), field) for caller in CALLERS}
    assert got == dict(zip(CALLERS, MATRIX[row], strict=True))


def test_me_with_an_api_token_is_an_error_without_data(w: World) -> None:
    r = w.gql("{ me { username } }")
    assert r.status_code == 200, r.text
    assert r.json()["data"] == {"me": None}
    error = r.json()["errors"][0]
    assert error["path"] == ["me"]
    assert error["message"] == "Authentication requested"


def test_a_forbidden_mutation_answers_the_reference_shape_and_writes_nothing(w: World) -> None:
    r = w.gql('mutation { createArticle(data: {title: "x"}) { documentId } }', caller="public")
    assert r.status_code == 200
    assert r.json() == {
        "errors": [
            {
                "message": FORBIDDEN,
                "path": ["createArticle"],
                "extensions": {
                    "code": "FORBIDDEN",
                    "error": {"name": "ForbiddenError", "message": FORBIDDEN, "details": {}},
                },
            }
        ],
        "data": {"createArticle": None},
    }
    r = w.gql(
        'mutation { a: createTag(data: {name: "ro1"}) { name } '
        'b: createTag(data: {name: "ro2"}) { name } }',
        caller="read-only",
    )
    body = r.json()
    assert body["data"] == {"a": None, "b": None}
    assert [(e["path"], e["extensions"]["code"]) for e in body["errors"]] == [
        (["a"], "FORBIDDEN"),
        (["b"], "FORBIDDEN"),
    ]
    assert w.data("{ articles(status: DRAFT) { title } tags { name } }") == {
        "articles": [],
        "tags": [],
    }


def test_a_forbidden_non_null_root_field_nulls_the_whole_data(w: World) -> None:
    w.data('mutation { createTag(data: {name: "t1"}) { name } }')
    r = w.gql("{ tags { name } uploadFiles { name } }", caller="public")
    assert r.status_code == 200
    assert r.json()["data"] is None
    assert [e["path"] for e in r.json()["errors"]] == [["uploadFiles"]]
    # a nullable one nulls only itself
    r = w.gql("{ tags { name } uploadFiles_connection { nodes { name } } }", caller="public")
    assert r.json()["data"] == {"tags": [{"name": "t1"}], "uploadFiles_connection": None}


@pytest.mark.parametrize(
    "header",
    ["Bearer not-a-token", "Bearer " + "0" * 256, "Bearer garbage.jwt.value", "Token x", "Bearer"],
)
def test_an_invalid_credential_is_a_401_in_the_rest_envelope(w: World, header: str) -> None:
    headers = {"Authorization": header}
    for q in (
        "{ articles { title } }",
        'mutation { createTag(data: {name: "no"}) { name } }',
        "{ __typename }",
    ):
        r = gql(w.api, q, headers=headers)
        error = failed(r, 401, "UnauthorizedError")
        assert error["message"] == "Missing or invalid credentials", header
    assert w.data("{ tags { name } }") == {"tags": []}


def test_invalid_jwt_for_me_is_401(w: World) -> None:
    r = gql(w.api, "{ me { username } }", headers=bearer("eyJhbGciOiJIUzI1NiJ9.e30.bad"))
    assert failed(r, 401, "UnauthorizedError")["message"] == "Missing or invalid credentials"


# --------------------------------------------------------------------------- relations


def test_relations_the_caller_cannot_find_come_back_empty(w: World) -> None:
    news = w.data('mutation { createCategory(data: {name: "News"}) { documentId } }')[
        "createCategory"
    ]["documentId"]
    t1 = w.data('mutation { createTag(data: {name: "t1"}) { documentId } }')["createTag"][
        "documentId"
    ]
    ann = w.data('mutation { createAuthor(data: {name: "Ann"}) { documentId } }')["createAuthor"][
        "documentId"
    ]
    doc = w.data(
        f'mutation {{ createArticle(data: {{title: "Rel", category: "{news}", tags: ["{t1}"], '
        f'author: "{ann}", seo: {{metaTitle: "m"}}}}) {{ documentId }} }}'
    )["createArticle"]["documentId"]
    custom = bearer(
        token(w.api, "custom", ["api::article.article.find", "api::article.article.findOne"])
    )
    selection = (
        "title category { name } tags { name } tags_connection { nodes { name } } "
        "author { name } seo { metaTitle }"
    )
    hidden = {
        "title": "Rel",
        "category": None,
        "tags": [],
        "tags_connection": {"nodes": []},
        "author": None,
        "seo": {"metaTitle": "m"},
    }
    shown = {
        "title": "Rel",
        "category": {"name": "News"},
        "tags": [{"name": "t1"}],
        "tags_connection": {"nodes": [{"name": "t1"}]},
        "author": {"name": "Ann"},
        "seo": {"metaTitle": "m"},
    }
    many = f"{{ articles {{ {selection} }} }}"
    one = f'{{ article(documentId: "{doc}") {{ {selection} }} }}'
    # the same text, asked by callers who see different relations, in turn
    for headers, expected in ((custom, hidden), ({}, shown), (w.full, shown), (custom, hidden)):
        assert data_of(gql(w.api, many, headers=headers)) == {"articles": [expected]}
        assert data_of(gql(w.api, one, headers=headers)) == {"article": expected}
    # the inverse side: the tag's articles, for a caller who may find tags but not articles
    tags_only = bearer(token(w.api, "custom", ["api::tag.tag.find"]))
    r = gql(w.api, "{ tags { name articles { title } } }", headers=tags_only)
    assert data_of(r) == {"tags": [{"name": "t1", "articles": []}]}
    # filtering through a hidden relation is refused, as in REST
    r = gql(
        w.api, '{ articles(filters: {category: {name: {eq: "News"}}}) { title } }', headers=custom
    )
    error = resolver_error(r)
    assert error["message"] == "Invalid key category"
    assert error["extensions"]["code"] == "BAD_USER_INPUT"


def test_draft_relations_follow_the_callers_status(w: World) -> None:
    """A published article lists published related documents; its draft the drafts."""
    doc = make_article(w, "Pub")
    ev = w.data(
        f'mutation {{ createEvent(status: DRAFT, data: {{name: "e", articles: ["{doc}"]}}) '
        "{ documentId } }"
    )["createEvent"]["documentId"]
    q = f'{{ event(documentId: "{ev}", status: DRAFT) {{ name articles {{ title }} }} }}'
    assert is_forbidden(w.gql(q, caller="public"), "event")
    assert data_of(w.gql(q, caller="read-only")) == {
        "event": {"name": "e", "articles": [{"title": "Pub"}]}
    }
    assert w.data(f'{{ event(documentId: "{ev}") {{ name }} }}', caller="public") == {"event": None}


# --------------------------------------------------------------------------- bad requests

DEEP = "parent { " * 10 + "name" + " }" * 10


def test_syntax_error(w: World) -> None:
    errors = refused(gql(w.api, "{ articles { title }"), 400, "GRAPHQL_PARSE_FAILED")
    assert errors == [
        {
            "message": "Syntax Error: Expected Name, found <EOF>.",
            "locations": [{"line": 1, "column": 21}],
            "extensions": {"code": "GRAPHQL_PARSE_FAILED"},
        }
    ]


def test_unknown_fields_and_arguments(w: World) -> None:
    errors = refused(gql(w.api, "{ articles { title nope } }"), 400, "GRAPHQL_VALIDATION_FAILED")
    assert errors == [
        {
            "message": 'Cannot query field "nope" on type "Article".',
            "locations": [{"line": 1, "column": 20}],
            "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
        }
    ]
    errors = refused(
        gql(w.api, "{ articles(foo: 1, status: LIVE) { title } }"), 400, "GRAPHQL_VALIDATION_FAILED"
    )
    assert sorted(e["message"] for e in errors) == [
        'Unknown argument "foo" on field "Query.articles".',
        'Value "LIVE" does not exist in "PublicationStatus" enum.',
    ]
    assert all(e["locations"] for e in errors)


def test_depth_limit(w: World) -> None:
    q = "query Deep { categories { name " + DEEP + " } }"
    errors = refused(gql(w.api, q), 400, "GRAPHQL_VALIDATION_FAILED")
    assert errors == [
        {
            "message": "'Deep' exceeds maximum operation depth of 10",
            "locations": [{"line": 1, "column": 122}],
            "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
        }
    ]
    errors = refused(gql(w.api, "{ categories { name " + DEEP + " } }"), 400)
    assert [e["message"] for e in errors] == ["'' exceeds maximum operation depth of 10"]
    # one level less is fine
    nine = "parent { " * 9 + "name" + " }" * 9
    assert data_of(gql(w.api, "query Deep { categories { name " + nine + " } }")) == {
        "categories": []
    }
    # fragments count where they are spread
    q = "query Deep { categories { ...F } } fragment F on Category { name " + DEEP + " }"
    assert refused(gql(w.api, q), 400, "GRAPHQL_VALIDATION_FAILED")


def test_bad_variables(w: World) -> None:
    r = gql(w.api, "query($n: Int) { articles(pagination: {limit: $n}) { title } }", {"n": "abc"})
    assert refused(r, 400, "BAD_USER_INPUT") == [
        {
            "message": 'Variable "$n" got invalid value "abc"; Int cannot represent non-integer '
            'value: "abc"',
            "locations": [{"line": 1, "column": 7}],
            "extensions": {"code": "BAD_USER_INPUT"},
        }
    ]
    r = gql(w.api, "query($n: Int!) { articles(pagination: {limit: $n}) { title } }", {})
    assert refused(r, 400, "BAD_USER_INPUT")[0]["message"] == (
        'Variable "$n" of required type "Int!" was not provided.'
    )
    r = gql(
        w.api,
        "query($f: ArticleFiltersInput) { articles(filters: $f) { title } }",
        {"f": {"views": {"eq": "abc"}}},
    )
    assert refused(r, 400, "BAD_USER_INPUT")
    r = gql(w.api, "query($n: Nope) { articles { title } }")
    assert [e["message"] for e in refused(r, 400, "GRAPHQL_VALIDATION_FAILED")] == [
        'Unknown type "Nope".',
        'Variable "$n" is never used.',
    ]


def test_bodies_that_are_no_operation(w: World) -> None:
    def post(body: Any) -> Any:
        return w.api.post("/graphql", body)

    def bad_request(r: Any, message: str) -> None:
        assert refused(r, 400, "BAD_REQUEST") == [
            {"message": message, "extensions": {"code": "BAD_REQUEST"}}
        ]

    bad_request(post({}), "POST body missing, invalid Content-Type, or JSON object has no keys.")
    empty = "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension."
    bad_request(post({"query": None}), empty)
    bad_request(post({"query": ""}), empty)
    bad_request(post({"query": 1}), "GraphQL queries must be strings.")
    bad_request(post([{"query": "{ tags { name } }"}]), "Operation batching disabled.")
    bad_request(
        post({"query": "{ tags { name } }", "variables": "abc"}),
        "`variables` in a POST body should be provided as an object, not a recursively "
        "JSON-encoded string.",
    )
    r = w.api.client.post(
        "/graphql", content=b"{not json", headers={"content-type": "application/json"}
    )
    [error] = refused(r, 400, "BAD_REQUEST")
    assert error["message"].startswith("Invalid JSON in the request body")
    r = w.api.client.put("/graphql", json={"query": "{ tags { name } }"})
    assert r.status_code == 405, r.text


def test_operation_names(w: World) -> None:
    two = "query A { tags { name } } query B { articles { title } }"
    r = w.api.post("/graphql", {"query": "query A { tags { name } }", "operationName": "B"})
    assert refused(r, 400, "OPERATION_RESOLUTION_FAILURE") == [
        {
            "message": 'Unknown operation named "B".',
            "extensions": {"code": "OPERATION_RESOLUTION_FAILURE"},
        }
    ]
    r = w.api.post("/graphql", {"query": two})
    assert refused(r, 400, "OPERATION_RESOLUTION_FAILURE")[0]["message"] == (
        "Must provide operation name if query contains multiple operations."
    )
    assert data_of(w.api.post("/graphql", {"query": two, "operationName": "B"})) == {"articles": []}


@pytest.mark.parametrize(
    "query",
    [
        'mutation { updateUploadFile(id: "abc", info: {name: "x"}) { name } }',
        'mutation { updateUploadFile(id: "hgbslw10mihtmlzutdq3kbbz", info: {caption: "c"}) '
        "{ name } }",
        'mutation { deleteUploadFile(id: "abc") { name } }',
        'mutation { deleteUploadFile(id: "-1") { name } }',
        'mutation { updateUsersPermissionsUser(id: "abc", data: {username: "x"}) '
        "{ data { username } } }",
        'mutation { deleteUsersPermissionsUser(id: "abc") { data { username } } }',
        '{ article(documentId: "\'; DROP TABLE articles; --") { title } }',
        '{ articles(sort: "nope:asc") { title } }',
        '{ articles(sort: "title:sideways") { title } }',
        '{ articles(sort: "title; DROP TABLE articles") { title } }',
        "{ articles_connection(pagination: {page: 1, start: 0}) { nodes { title } } }",
        '{ articles(filters: {title: {in: ["a", "b"]}, views: {between: [1]}}) { title } }',
        'mutation { updateArticle(documentId: "x", data: {views: 99999999999}) { title } }',
        'mutation { createArticle(data: {title: "x", bigCount: "abc"}) { title } }',
        'mutation { createArticle(data: {title: "x", eventAt: "yesterday"}) { title } }',
        'mutation { createArticle(data: {title: "x", publishDate: "2024-13-45"}) { title } }',
        'mutation { createArticle(data: {title: "x", startTime: "25:99"}) { title } }',
        'mutation { createArticle(data: {title: "x", meta: "not json {"}) { title } }',
        'mutation { createArticle(data: {title: "x", content: "plain"}) { title } }',
    ],
)
def test_bad_input_is_never_a_500_nor_sql(w: World, query: str) -> None:
    r = w.gql(query)
    no_leak(r)
    assert r.status_code in (200, 400), r.text
    if r.status_code == 200 and r.json().get("errors"):
        codes = {e["extensions"]["code"] for e in r.json()["errors"]}
        assert codes <= {"BAD_USER_INPUT", "NOT_FOUND_ERROR", "PAGINATION_ERROR"}, r.text
