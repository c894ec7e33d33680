"""The GraphQL extension service, through HTTP: shadow CRUD settings (types, actions,
fields), `use()` with typeDefs, types, plugins, resolvers and resolversConfig (auth,
policies, middlewares), composition and start-up errors, `shadowCRUD: false`."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from folio.app import load_app
from folio.errors import ConfigError
from folio.extensions import ExtensionService
from folio.http.app import build_asgi
from tests.api.authapp import auth_api, bearer, make_auth_app, token
from tests.conftest import Api

INDEX = '''
import graphql as g

CALLS = []
REFUSE = {"name": "allowed", "config": {"allow": False}}


def register(app):
    ext = app.graphql.extension
    article = ext.shadowCRUD("api::article.article")
    article.field("body").disableOutput()
    article.field("views").disableFilters()
    article.field("slug").disableInput()
    ext.shadowCRUD("api::profile.profile").disable()
    ext.shadowCRUD("api::event.event").disableQueries()
    ext.shadowCRUD("api::tag.tag").disableMutations()
    ext.shadowCRUD("api::category.category").disableAction("delete")
    # the reference app's way to the same service
    assert app.plugin("graphql").service("extension") is ext

    app.hooks.policies["global::allowed"] = lambda ctx, config, app: config.get("allow", True)

    def shout(options, app):
        async def middleware(next, parent, args, context, info):
            result = next(parent, args, context, info)
            if hasattr(result, "__await__"):
                result = await result
            return result.upper() + options.get("suffix", "")
        return middleware

    app.hooks.middlewares["global::shout"] = shout

    def tag(name):
        def middleware(next, parent, args, context, info):
            CALLS.append(name + ":before")
            result = next(parent, args, context, info)
            CALLS.append(name + ":after")
            return result
        return middleware

    async def shouting_titles(next, parent, args, context, info):
        # acts on what the nested fields resolve (the document's title)
        found = await next(parent, args, context, info)
        if found is not None and args.get("title") == "Feature":
            found = {**found, "title": found["title"].upper()}
        return found

    async def slow_yes(ctx, app):
        return True

    async def resolved(parent, args, context, info):
        return "awaited"

    async def featured(parent, args, context, info):
        page = await context.folio.documents.find(
            context.folio.registry.content_types["api::article.article"],
            {"filters": {"title": {"$eq": args["title"]}}},
            context.principal,
        )
        return page.documents[0] if page.documents else None

    ext.use({
        "typeDefs": """
            type Greeting { text: String! }
            extend type Query {
                hello(name: String): String
                closed: String
                scoped: String
                unscoped: String
                guarded(allow: Boolean): String
                named: String
                configured: String
                loud: String
                ordered: String
                featured(title: String!): Article
                greeting: Greeting
                awaited: String
                awaitedRefused: String
            }
            extend type Article { wordCount: Int }
        """,
        "resolvers": {
            "Query": {
                "hello": lambda parent, args, context, info: "hello " + (args.get("name") or "you"),
                "closed": lambda *a: "closed",
                "scoped": lambda *a: "scoped",
                "unscoped": lambda *a: "unscoped",
                "guarded": lambda *a: "guarded",
                "named": lambda *a: "named",
                "configured": lambda *a: "configured",
                "loud": lambda *a: "loud",
                "ordered": lambda *a: CALLS.append("resolver") or ",".join(CALLS),
                "featured": featured,
                "greeting": lambda *a: {"text": "hi"},
                "awaited": resolved,
                "awaitedRefused": lambda *a: "never",
            },
            "Article": {
                "wordCount": lambda parent, args, context, info: len(parent["title"].split()),
            },
        },
        "resolversConfig": {
            "Query.hello": {"auth": False},
            "Query.scoped": {"auth": {"scope": ["api::article.article.find"]}},
            "Query.unscoped": {"auth": {"scope": ["api::article.article.create"]}},
            "Query.guarded": {
                "auth": False,
                "policies": [lambda ctx, app: ctx.args.get("allow") is not False],
            },
            "Query.named": {"auth": False, "policies": ["allowed"]},
            "Query.configured": {"auth": False, "policies": [REFUSE]},
            "Query.loud": {
                "auth": False,
                "middlewares": [{"name": "shout", "options": {"suffix": "!"}}],
            },
            "Query.ordered": {"auth": False, "middlewares": [tag("outer"), tag("inner")]},
            "Query.featured": {
                "auth": {"scope": ["api::article.article.find"]},
                "middlewares": [shouting_titles],
            },
            "Query.greeting": {"auth": False},
            "Query.awaited": {"auth": False, "policies": [slow_yes]},
            "Query.awaitedRefused": {"auth": False, "policies": [slow_yes, lambda ctx, app: False]},
        },
    })

    def more(helpers):
        counter = g.GraphQLObjectType("Counter", {"value": g.GraphQLField(g.GraphQLInt)})
        assert helpers.graphql is g and helpers.app is app
        return {
            "types": [counter],
            "typeDefs": "extend type Query { counter: Counter }",
            "resolvers": {"Query": {"counter": lambda *a: {"value": 41 + 1}}},
            "resolversConfig": {"Query.counter": {"auth": False}},
            "plugins": [lambda schema: CALLS.append("plugin:" + str("Counter" in schema.type_map))],
        }

    ext.use(more)

    # a generated resolver takes the same configuration
    ext.use({"resolversConfig": {"Query.categories": {"policies": [REFUSE]}}})
'''


def write_index(app: Path, text: str) -> None:
    (app / "src" / "index.py").write_text(textwrap.dedent(text))


@pytest.fixture
def api(backend: str, tmp_path: Path) -> Iterator[Api]:
    app = make_auth_app(tmp_path)
    write_index(app, INDEX)
    yield from auth_api(backend, app)


def gql(api: Api, query: str, headers: dict[str, str] | None = None, **variables: Any) -> Any:
    return api.post("/graphql", {"query": query, "variables": variables}, headers=headers or {})


def data(api: Api, query: str, headers: dict[str, str] | None = None, **variables: Any) -> Any:
    r = gql(api, query, headers, **variables)
    assert r.status_code == 200, r.text
    assert "errors" not in r.json(), r.text
    return r.json()["data"]


def error(api: Api, query: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = gql(api, query, headers)
    assert r.status_code == 200, r.text
    return dict(r.json()["errors"][0])


def invalid(api: Api, query: str) -> str:
    r = gql(api, query)
    assert r.status_code == 400, r.text
    assert r.json()["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    return str(r.json()["errors"][0]["message"])


def type_fields(api: Api, name: str, kind: str = "fields") -> set[str] | None:
    query = "query($n: String!) { __type(name: $n) { fields { name } inputFields { name } } }"
    found = data(api, query, n=name)["__type"]
    if found is None:
        return None
    return {f["name"] for f in found[kind] or []}


def test_disabled_fields_types_and_actions_leave_the_schema(api: Api) -> None:
    article = type_fields(api, "Article")
    assert article is not None and "body" not in article and "title" in article
    assert "wordCount" in article  # added by the extension
    filters = type_fields(api, "ArticleFiltersInput", "inputFields")
    assert filters is not None and "views" not in filters and "body" in filters
    inputs = type_fields(api, "ArticleInput", "inputFields")
    assert inputs is not None and "slug" not in inputs and "body" in inputs
    assert type_fields(api, "Profile") is None  # the whole type is gone
    author = type_fields(api, "Author")
    assert author is not None and "profile" not in author  # and relations to it
    query = type_fields(api, "Query")
    mutation = type_fields(api, "Mutation")
    assert query is not None and mutation is not None
    assert {"events", "event", "events_connection"} & query == set()
    assert {"createEvent", "updateEvent", "deleteEvent"} <= mutation
    assert {"tags", "tag"} <= query
    assert {"createTag", "updateTag", "deleteTag"} & mutation == set()
    assert {"createCategory", "updateCategory"} <= mutation and "deleteCategory" not in mutation


def test_disabled_fields_cannot_be_selected_filtered_or_written_through_graphql_only(
    api: Api,
) -> None:
    full = bearer(token(api, "full-access"))
    r = api.post(
        "/api/articles",
        {"data": {"title": "Hello big world", "body": "b", "views": 3}},
        headers=full,
    )
    assert r.status_code == 201, r.text
    assert "Cannot query field" in invalid(api, "{ articles { title body } }")
    assert "views" in invalid(api, "{ articles(filters: {views: {eq: 3}}) { title } }")
    assert "slug" in invalid(
        api, 'mutation { createArticle(data: {title: "x", slug: "x"}) { title } }'
    )
    # REST is not affected
    rest = api.get("/api/articles?filters[views][$eq]=3&fields[0]=body")
    assert rest.status_code == 200
    assert [a["body"] for a in rest.json()["data"]] == ["b"]
    assert data(api, "{ articles { title wordCount } }") == {
        "articles": [{"title": "Hello big world", "wordCount": 3}]
    }


def test_custom_queries_and_their_authorization(api: Api) -> None:
    public: dict[str, str] = {}
    full = bearer(token(api, "full-access"))
    assert data(api, '{ hello(name: "Ada") }') == {"hello": "hello Ada"}
    # a custom resolver without configuration is for full access only
    forbidden = error(api, "{ closed }", public)
    assert forbidden["extensions"]["code"] == "FORBIDDEN"
    assert forbidden["message"] == "Forbidden access"
    assert data(api, "{ closed }", full) == {"closed": "closed"}
    # a scope the public role has, one it lacks
    assert data(api, "{ scoped }") == {"scoped": "scoped"}
    assert error(api, "{ unscoped }")["extensions"]["code"] == "FORBIDDEN"
    assert data(api, "{ unscoped }", full) == {"unscoped": "unscoped"}


def test_policies(api: Api) -> None:
    assert data(api, "{ guarded }") == {"guarded": "guarded"}
    refused = error(api, "{ guarded(allow: false) }")
    assert refused["message"] == "Policy Failed"
    assert refused["extensions"]["error"]["name"] == "PolicyError"
    assert refused["extensions"]["code"] == "FORBIDDEN"
    assert data(api, "{ named }") == {"named": "named"}
    assert error(api, "{ configured }")["message"] == "Policy Failed"
    # on a generated resolver
    assert error(api, "{ categories { name } }")["message"] == "Policy Failed"
    assert data(api, "{ tags { name } }") == {"tags": []}


def test_awaitable_policies_and_resolvers(api: Api) -> None:
    assert data(api, "{ awaited }") == {"awaited": "awaited"}
    assert error(api, "{ awaitedRefused }")["message"] == "Policy Failed"


def test_middlewares_wrap_in_order(api: Api) -> None:
    assert data(api, "{ loud }") == {"loud": "LOUD!"}
    calls = data(api, "{ ordered }")["ordered"].split(",")
    assert calls[-3:] == ["outer:before", "inner:before", "resolver"]


def test_custom_resolvers_return_documents_the_generated_types_resolve(api: Api) -> None:
    full = bearer(token(api, "full-access"))
    category = api.post("/api/categories", {"data": {"name": "News"}}, headers=full).json()["data"]
    tags = [
        api.post("/api/tags", {"data": {"name": n}}, headers=full).json()["data"]["documentId"]
        for n in ("a", "b")
    ]
    r = api.post(
        "/api/articles",
        {
            "data": {
                "title": "Feature",
                "category": category["documentId"],
                "tags": tags,
                "seo": {"metaTitle": "M"},
                "blocks": [{"__component": "shared.quote", "title": "Q"}],
            }
        },
        headers=full,
    )
    assert r.status_code == 201, r.text
    query = (
        '{ featured(title: "Feature") { title wordCount category { name articles { title } } '
        'tags(sort: "name:desc") { name } tags_connection { nodes { name } } seo { metaTitle } '
        "blocks { __typename ... on ComponentSharedQuote { title } } } }"
    )
    assert data(api, query) == {
        "featured": {
            "title": "FEATURE",
            "wordCount": 1,
            "category": {"name": "News", "articles": [{"title": "Feature"}]},
            "tags": [{"name": "b"}, {"name": "a"}],
            "tags_connection": {"nodes": [{"name": "a"}, {"name": "b"}]},
            "seo": {"metaTitle": "M"},
            "blocks": [{"__typename": "ComponentSharedQuote", "title": "Q"}],
        }
    }
    assert data(api, '{ featured(title: "nope") { title } }') == {"featured": None}


def test_function_extensions_types_and_plugins(api: Api) -> None:
    assert data(api, "{ counter { value } greeting { text } }") == {
        "counter": {"value": 42},
        "greeting": {"text": "hi"},
    }
    index = __import__("sys").modules["folio_app_index"]
    assert "plugin:True" in index.CALLS


# ---------------------------------------------------------------------- start-up errors


def start(tmp_path: Path, index: str, plugins: dict[str, Any] | None = None) -> Any:
    app = make_auth_app(tmp_path, plugins)
    write_index(app, index)
    return build_asgi(load_app(app, f"sqlite:///{app / 'data.db'}"))


@pytest.mark.parametrize(
    ("index", "message"),
    [
        (
            """
            def register(app):
                app.graphql.extension.use({"typeDefs": "extend type Query { broken: }"})
            """,
            "graphql extension #1: typeDefs: Syntax Error",
        ),
        (
            """
            def register(app):
                app.graphql.extension.use({"typeDefs": "extend type Query { x: Nope }"})
            """,
            "Unknown type 'Nope'",
        ),
        (
            """
            def register(app):
                r = {"Query": {"x": lambda *a: 1}}
                sdl = "extend type Query { x: Int }"
                app.graphql.extension.use({"typeDefs": sdl, "resolvers": r})
                app.graphql.extension.use({"resolvers": r})
            """,
            "graphql extension #2: Query.x already has a resolver (from extension #1)",
        ),
        (
            """
            def register(app):
                app.graphql.extension.use({"resolvers": {"Query": {"missing": lambda *a: 1}}})
            """,
            "resolver for Query.missing, which the schema does not have",
        ),
        (
            """
            import graphql as g
            def register(app):
                t = g.GraphQLObjectType("Article", {"x": g.GraphQLField(g.GraphQLInt)})
                app.graphql.extension.use({"types": [t]})
            """,
            "graphql extension #1: type Article already exists",
        ),
        (
            """
            def register(app):
                app.graphql.extension.use({"typeDefs": "extend type Query { x: Int }", "nope": 1})
            """,
            "unknown keys nope",
        ),
        (
            """
            def register(app):
                app.graphql.extension.shadowCRUD("api::tag.tag").disableAction("publish")
            """,
            "unknown action 'publish'",
        ),
        (
            """
            def register(app):
                config = {"Query.articles": {"policies": ["nope"]}}
                app.graphql.extension.use({"resolversConfig": config})
            """,
            "unknown policy 'nope'",
        ),
    ],
)
def test_start_up_errors_name_the_extension_and_the_problem(
    tmp_path: Path, index: str, message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        start(tmp_path, index)
    assert message in str(raised.value)


def test_shadow_crud_off_leaves_only_what_extensions_add(backend: str, tmp_path: Path) -> None:
    plugins = {"graphql": {"config": {"shadowCRUD": False}}}
    app = make_auth_app(tmp_path, plugins)
    write_index(
        app,
        """
        def register(app):
            app.graphql.extension.use({
                "typeDefs": "type Query { ping: String }",
                "resolvers": {"Query": {"ping": lambda *a: "pong"}},
                "resolversConfig": {"Query.ping": {"auth": False}},
            })
        """,
    )
    for api in auth_api(backend, app):
        assert data(api, "{ ping }") == {"ping": "pong"}
        assert type_fields(api, "Query") == {"ping"}
        assert type_fields(api, "Article") is None
        assert type_fields(api, "Mutation") is None


def test_shadow_crud_off_without_extensions_serves_no_graphql(backend: str, tmp_path: Path) -> None:
    app = make_auth_app(tmp_path, {"graphql": {"config": {"shadowCRUD": False}}})
    for api in auth_api(backend, app):
        r = api.post("/graphql", {"query": "{ __typename }"})
        assert r.status_code == 404
        assert api.get("/api/articles").status_code == 200


# ---------------------------------------------------------------------- the service itself


def test_getters() -> None:
    service = ExtensionService()
    article = service.shadowCRUD("api::article.article")
    assert article.isEnabled() and not article.isDisabled()
    assert article.areQueriesEnabled() and article.areMutationsEnabled()
    article.disableAction("find")
    assert article.isActionDisabled("find") and article.isActionEnabled("findOne")
    assert article.areQueriesEnabled()  # findOne is still there
    article.disableActions(["findOne"])
    assert article.areQueriesDisabled() and not article.areQueriesEnabled()
    article.disableMutations()
    assert article.areMutationsDisabled()
    assert all(article.isActionDisabled(a) for a in ("create", "update", "delete"))
    article.disable()
    assert article.isDisabled() and not article.isEnabled()
    body = article.field("body")
    assert body.isEnabled() and body.hasOutputEnabled()
    body.disableOutput()
    assert not body.hasOutputEnabled() and body.hasInputEnabled() and body.isEnabled()
    body.disableInput()
    body.disableFilters()
    assert body.isDisabled() and not body.hasFiltersEnabled()
    title = article.field("title").disable()
    assert title.isDisabled()
    assert service.shadowCRUD("api::article.article") is article
