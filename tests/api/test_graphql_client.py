"""A GraphQL client library (`gql` over httpx) against `folio serve` as a real process: the
schema by introspection, queries with variables, mutations, and errors as the client
surfaces them."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from gql import Client, gql
from gql.transport.exceptions import TransportQueryError
from gql.transport.httpx import HTTPXTransport
from graphql import GraphQLEnumType, GraphQLError, GraphQLObjectType

from tests.api.serving import FOLIO, serving

Served = tuple[str, str]  # the GraphQL URL, a full-access token


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The example app of `folio new`, served in development mode (introspection on)."""
    app = tmp_path_factory.mktemp("gqlclient") / "blog"
    subprocess.run([*FOLIO, "new", str(app), "--empty"], check=True, capture_output=True)
    created = subprocess.run(
        [*FOLIO, "token", "create", "--name", "gql", "--type", "full-access", "--app", str(app)],
        check=True,
        capture_output=True,
        text=True,
    )
    token = created.stdout.strip().splitlines()[-1]
    with serving(app) as base:
        yield base + "/graphql", token


def client(url: str, token: str | None = None, schema: bool = True) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = HTTPXTransport(url=url, headers=headers, timeout=10)
    return Client(transport=transport, fetch_schema_from_transport=schema)


def test_introspection_gives_the_generated_schema(served: Served) -> None:
    url, _ = served
    c = client(url)
    with c as session:
        session.fetch_schema()
    schema = c.schema
    assert schema is not None
    query = schema.query_type
    assert query is not None
    for name in ("articles", "articles_connection", "article", "categories", "global", "me"):
        assert name in query.fields, name
    mutation = schema.mutation_type
    assert mutation is not None
    for name in ("createArticle", "updateArticle", "deleteArticle", "updateGlobal", "login"):
        assert name in mutation.fields, name
    article = schema.get_type("Article")
    assert isinstance(article, GraphQLObjectType)
    assert {"documentId", "title", "category", "seo", "createdAt", "publishedAt"} <= set(
        article.fields
    )
    status = schema.get_type("PublicationStatus")
    assert isinstance(status, GraphQLEnumType)
    assert set(status.values) == {"DRAFT", "PUBLISHED"}
    # the client validates documents against the fetched schema before sending them
    with (
        c as session,
        pytest.raises(GraphQLError, match=r"Cannot query field .nope. on type .Article."),
    ):
        session.execute(gql("{ articles { nope } }"))


def test_mutations_and_queries_with_variables(served: Served) -> None:
    url, token = served
    with client(url, token) as session:
        created = session.execute(
            gql("mutation($d: CategoryInput!) { createCategory(data: $d) { documentId name } }"),
            variable_values={"d": {"name": "Client news"}},
        )["createCategory"]
        assert created["name"] == "Client news"
        doc = created["documentId"]
        article = session.execute(
            gql(
                "mutation($t: String!, $c: ID) { createArticle(data: {title: $t, category: $c}) "
                "{ documentId title category { name } publishedAt } }"
            ),
            variable_values={"t": "From gql", "c": doc},
        )["createArticle"]
        assert article["category"] == {"name": "Client news"}
        assert article["publishedAt"] is not None
    # read publicly, with variables and an operation name
    with client(url) as session:
        query = gql(
            "query Find($name: String, $size: Int) { categories(filters: {name: {eq: $name}}) "
            "{ documentId name articles(pagination: {pageSize: $size}) { title } } }"
        )
        got = session.execute(
            query, variable_values={"name": "Client news", "size": 5}, operation_name="Find"
        )
        assert got == {
            "categories": [
                {"documentId": doc, "name": "Client news", "articles": [{"title": "From gql"}]}
            ]
        }
        got = session.execute(
            gql("query($id: ID!) { article(documentId: $id) { title } }"),
            variable_values={"id": article["documentId"]},
        )
        assert got == {"article": {"title": "From gql"}}
    with client(url, token) as session:
        got = session.execute(
            gql("mutation($id: ID!) { deleteArticle(documentId: $id) { documentId } }"),
            variable_values={"id": article["documentId"]},
        )
        assert got == {"deleteArticle": {"documentId": article["documentId"]}}
        renamed = session.execute(
            gql(
                'mutation($id: ID!) { updateCategory(documentId: $id, data: {name: "Renamed"}) '
                "{ name } }"
            ),
            variable_values={"id": doc},
        )
        assert renamed == {"updateCategory": {"name": "Renamed"}}


def test_errors_surface_as_transport_query_errors(served: Served) -> None:
    url, token = served
    create = gql("mutation($n: String!) { createCategory(data: {name: $n}) { documentId } }")
    # the public role of the example only reads
    with client(url) as session, pytest.raises(TransportQueryError) as caught:
        session.execute(create, variable_values={"n": "Nope"})
    error = caught.value
    assert error.errors is not None
    assert error.errors[0]["message"] == "Forbidden access"
    assert error.errors[0]["extensions"]["code"] == "FORBIDDEN"
    assert error.errors[0]["path"] == ["createCategory"]
    assert error.data == {"createCategory": None}
    assert "Forbidden access" in str(error)
    # a validation error of the content: unique name
    with client(url, token) as session:
        session.execute(create, variable_values={"n": "Twice"})
        with pytest.raises(TransportQueryError) as caught:
            session.execute(create, variable_values={"n": "Twice"})
    details: Any = caught.value.errors
    assert details[0]["message"] == "This attribute must be unique"
    assert details[0]["extensions"]["code"] == "BAD_USER_INPUT"
    # a request error (HTTP 400) the client did not validate itself
    with client(url, schema=False) as session, pytest.raises(TransportQueryError) as caught:
        session.execute(gql("{ articles { nope } }"))
    assert caught.value.errors is not None
    assert caught.value.errors[0]["message"] == 'Cannot query field "nope" on type "Article".'
    assert caught.value.errors[0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    # nothing was created by the refused calls
    with client(url) as session:
        got = session.execute(
            gql('{ categories(filters: {name: {in: ["Nope", "Twice"]}}) { name } }')
        )
    assert got == {"categories": [{"name": "Twice"}]}
