"""What one GraphQL request may cost, over HTTP: the document's bounds checked before
graphql-core validates it (tokens, bracket nesting, fields with fragments spread, aliases,
fragments, directives, one field selected many times at one place), fragments spread many
times or in cycles, the nesting of variables, the estimated cost of an operation with its
variables (`maxCost`), the bytes of the answer (`maxResponseBytes`), and production's
validation messages without the schema's names in suggestions.

Each refusal is a 400 GraphQL error naming the limit (`graphql.config.<key>`) and its
value; the documents are the small ones that, before these bounds, took seconds to minutes
of CPU, gigabytes of memory, or ended in a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_graphql_queries import gql, ok, refused
from tests.conftest import Api, database_url, make_api

VALIDATION = "GRAPHQL_VALIDATION_FAILED"


@pytest.fixture
def configured(backend: str, app_dir: Path, request: pytest.FixtureRequest) -> Iterator[Api]:
    """The app with `graphql.config` set to the test's (indirect) parameter."""
    plugins = {"graphql": {"config": request.param}}
    (app_dir / "config" / "plugins.json").write_text(json.dumps(plugins))
    yield from make_api(app_dir, database_url(backend, app_dir))


def only_error(r: Any, code: str = VALIDATION) -> str:
    """The message of the one error refusing a request before it ran."""
    errors = refused(r)
    assert len(errors) == 1, errors
    assert errors[0]["extensions"] == {"code": code}, errors
    return str(errors[0]["message"])


def seed(api: Api, articles: int = 3) -> None:
    news = api.create("categories", {"name": "News"})["documentId"]
    tags = [api.create("tags", {"name": f"t{i}"})["documentId"] for i in range(3)]
    for i in range(articles):
        api.create("articles", {"title": f"a{i}", "category": news, "tags": tags})


def chain(fragments: int, spreads: int) -> str:
    """Each fragment spreads the one before it `spreads` times: spread out, the last one
    holds spreads**(fragments-1) copies of the first."""
    parts = ["fragment F0 on Article { title }"]
    for i in range(1, fragments):
        parts.append(f"fragment F{i} on Article {{ {f' ...F{i - 1}' * spreads} }}")
    return f"{{ articles {{ ...F{fragments - 1} }} }} " + " ".join(parts)


# --------------------------------------------------------------------------- the document


def test_fragments_spread_many_times_are_walked_once(api: Api) -> None:
    """22 fragments each spreading the previous twice (4 million copies spread out), and
    16 spreading it four times (4^15): validated and run like the one field they hold."""
    seed(api, 2)
    # (and 100 fragments in a row, as many as maxFragments lets in)
    for text in (chain(22, 2), chain(16, 4), chain(100, 1)):
        data = ok(api, text)
        assert data == {"articles": [{"title": "a0"}, {"title": "a1"}]}
    # the depth limit still sees through them
    deep = (
        "{ articles { ...D0 } } fragment D0 on Article { category { articles { ...D1 } } } "
        + " ".join(
            f"fragment D{i} on Article {{ category {{ articles {{ ...D{i + 1} ...D{i + 1} }} }} }}"
            for i in range(1, 6)
        )
        + " fragment D6 on Article { title }"
    )
    errors = refused(gql(api, deep))
    assert {e["message"] for e in errors} == {"'' exceeds maximum operation depth of 10"}


def test_fragment_cycles_are_refused(api: Api) -> None:
    for text, message in [
        (
            "{ articles { ...A } } fragment A on Article { title ...B } "
            "fragment B on Article { ...A }",
            'Cannot spread fragment "A" within itself via "B".',
        ),
        (
            "{ articles { ...A } } fragment A on Article { category { articles { ...A } } }",
            'Cannot spread fragment "A" within itself.',
        ),
        (
            "{ articles { ...A } } fragment A on Article { ...B } fragment B on Article "
            "{ ...C } fragment C on Article { category { articles { ...A } } }",
            'Cannot spread fragment "A" within itself via "B", "C".',
        ),
    ]:
        assert only_error(gql(api, text)) == message


def test_tokens(api: Api) -> None:
    """5,000 copies of a field (95 KB) kept graphql-core's overlapping-fields rule busy
    for a minute and a half: the parser now stops at the 5,001st token."""
    r = gql(api, "{" + " articles { title }" * 5000 + "}")
    assert only_error(r) == (
        "The query has too many tokens, more than the maximum of 5000 (graphql.config.maxTokens)"
    )


def test_one_field_selected_many_times_at_one_place(api: Api) -> None:
    seed(api, 1)
    assert ok(api, "{" + " articles { title }" * 10 + "}") == {"articles": [{"title": "a0"}]}
    text = "{" + " articles { title }" * 11 + "}"
    errors = refused(gql(api, text))
    assert errors == [
        {
            "message": "'articles' is selected 11 times at one place, more than the maximum "
            "of 10 (graphql.config.maxRepeats)",
            "locations": [{"line": 1, "column": 2 + 19 * 10 + 1}],
            "extensions": {"code": VALIDATION},
        }
    ]
    # fragments spread at that place count there, and so do the places below
    fragments = " ".join(f"fragment F{i} on Article {{ title }}" for i in range(11))
    text = "{ articles { " + " ".join(f"...F{i}" for i in range(11)) + " } } " + fragments
    assert "'title' is selected 11 times at one place" in only_error(gql(api, text))
    text = "{" + " articles { category { name } }" * 4 + " articles { category { name name } }" * 4
    assert "'name' is selected 12 times at one place" in only_error(gql(api, text + "}"))


@pytest.mark.parametrize(
    "configured",
    [{"maxFields": 6, "maxAliases": 2, "maxFragments": 2, "maxDirectives": 2}],
    indirect=True,
)
def test_configured_document_limits(configured: Api) -> None:
    seed(configured, 1)
    # fields count where their fragment is spread: 2 + 2 * 2 = 6
    fragment = " fragment F on Article { title __typename }"
    text = "{ articles { ...F } a: articles { ...F } }" + fragment
    assert ok(configured, text) == {
        "articles": [{"title": "a0", "__typename": "Article"}],
        "a": [{"title": "a0", "__typename": "Article"}],
    }
    text = "{ articles { ...F } a: articles { ...F } b: tags { name } }" + fragment
    assert only_error(gql(configured, text)) == (
        "The query selects too many fields (fragments counted where they are spread), more "
        "than the maximum of 6 (graphql.config.maxFields)"
    )
    text = "{ a: tags { name } b: tags { name } c: tags { name } }"
    assert only_error(gql(configured, text)) == (
        "The query has 3 aliases, more than the maximum of 2 (graphql.config.maxAliases)"
    )
    text = (
        "{ tags { ...A ...B ...C } } fragment A on Tag { name } fragment B on Tag { name } "
        "fragment C on Tag { name }"
    )
    assert only_error(gql(configured, text)) == (
        "The query has 3 fragments, more than the maximum of 2 (graphql.config.maxFragments)"
    )
    text = "{ tags @skip(if: false) { name @include(if: true) documentId @skip(if: false) } }"
    assert only_error(gql(configured, text)) == (
        "The query has 3 directives, more than the maximum of 2 (graphql.config.maxDirectives)"
    )


# --------------------------------------------------------------------------- nesting


NESTED = "The query is nested too deeply, more than the maximum of 40 (graphql.config.maxNesting)"


def test_nesting_of_the_document(api: Api) -> None:
    """Selections 150 deep (3.9 KB) ended in a RecursionError and a 500; lists and
    objects of arguments nest in the same recursive parser."""
    selections = "{ articles " + "{ category { articles " * 75 + "{ title }" + " } }" * 75 + " }"
    lists = "{ articles(filters: {title: {in: " + "[" * 300 + '"a"' + "]" * 300 + "}}) { title } }"
    negations = (
        "{ articles(filters: " + "{not: " * 200 + '{title: {eq: "a"}}' + "}" * 200 + ") { title } }"
    )
    for text in (selections, lists, negations):
        errors = refused(gql(api, text))
        assert errors == [
            {
                "message": NESTED,
                "locations": [{"line": 1, "column": _bracket(text, 41) + 1}],
                "extensions": {"code": VALIDATION},
            }
        ]
    # brackets inside strings and comments do not nest
    seed(api, 1)
    text = '{ articles(filters: {title: {ne: "' + "{[(" * 50 + '"}}) { title } } #' + "{" * 50
    assert ok(api, text) == {"articles": [{"title": "a0"}]}


def _bracket(text: str, n: int) -> int:
    """The offset of the `n`th opening bracket (none in strings here)."""
    seen = 0
    for i, char in enumerate(text):
        if char in "{[(":
            seen += 1
            if seen == n:
                return i
    raise AssertionError(n)


def test_nesting_within_the_limit_runs(api: Api) -> None:
    """Lists and negations nested as deep as the limit lets them reach graphql-core's
    coercion and the filters without a 500."""
    seed(api, 1)
    lists = "{ articles(filters: {title: {in: " + "[" * 30 + '"a0"' + "]" * 30 + "}}) { title } }"
    r = gql(api, lists)
    assert r.status_code == 400, r.text
    assert "String cannot represent a non string value" in r.json()["errors"][0]["message"]
    for depth in (16, 36):
        negations = (
            "{ articles(filters: "
            + "{not: " * depth
            + '{title: {eq: "a0"}}'
            + "}" * depth
            + ") { title } }"
        )
        r = gql(api, negations)
        if depth == 16:  # an even number of negations: the article itself
            assert r.json() == {"data": {"articles": [{"title": "a0"}]}}
        else:  # the filters' own nesting limit may refuse it, as the field's error
            assert r.status_code == 200, r.text
            assert r.json()["data"] in ({"articles": [{"title": "a0"}]}, None), r.text


def test_nesting_of_variables(api: Api) -> None:
    """Variables nested past 255 levels made the cache key's encoding fail with a 500."""
    text = "query($f: ArticleFiltersInput) { articles(filters: $f) { title } }"
    deep: Any = {"title": {"eq": "a"}}
    for _ in range(300):
        deep = {"not": deep}
    assert only_error(gql(api, text, {"f": deep}), "BAD_USER_INPUT") == (
        "Variables are nested too deeply, more than the maximum of 40 (graphql.config.maxNesting)"
    )
    lists: Any = ["a"]
    for _ in range(300):
        lists = [lists]
    text = "query($in: [String]) { articles(filters: {title: {in: $in}}) { title } }"
    assert only_error(gql(api, text, {"in": lists}), "BAD_USER_INPUT") == (
        "Variables are nested too deeply, more than the maximum of 40 (graphql.config.maxNesting)"
    )
    # within the limit: coerced, planned and run
    seed(api, 1)
    deep = {"title": {"eq": "a0"}}
    for _ in range(16):
        deep = {"not": deep}
    text = "query($f: ArticleFiltersInput) { articles(filters: $f) { title } }"
    assert ok(api, text, {"f": deep}) == {"articles": [{"title": "a0"}]}
    lists = ["a0"]
    for _ in range(30):
        lists = [lists]
    text = "query($in: [String]) { articles(filters: {title: {in: $in}}) { title } }"
    message = only_error(gql(api, text, {"in": lists}), "BAD_USER_INPUT")
    assert message.startswith('Variable "$in" got invalid value')


# --------------------------------------------------------------------------- cost


def cost_error(cost: int | str, maximum: int = 25000) -> str:
    return (
        f"The query's estimated cost is {cost} (objects its answer could hold), more than "
        f"the maximum of {maximum} (graphql.config.maxCost)"
    )


def test_cost_of_aliased_pages(api: Api) -> None:
    """100 aliases of a page of 100 articles, each with its category's 100 articles (34
    KB), built a 1.1 GB answer: 100 * 100 * (1 + 1 + 100) objects, refused before it runs."""
    seed(api, 2)
    one = (
        "articles(pagination: {limit: 100}) "
        "{ title category { articles(pagination: {limit: 100}) { title } } }"
    )
    text = "{" + " ".join(f"a{i}: {one}" for i in range(100)) + "}"
    assert only_error(gql(api, text)) == cost_error(1_020_000)
    # one of them is within the limit
    data = ok(api, "{" + one + "}")
    assert len(data["articles"]) == 2
    assert data["articles"][0]["category"]["articles"] == [{"title": "a0"}, {"title": "a1"}]


@pytest.mark.parametrize("configured", [{"maxCost": 1000, "depthLimit": 40}], indirect=True)
def test_cost_counts_pages_with_their_variables(configured: Api) -> None:
    seed(configured, 1)
    text = (
        "query($n: Int, $p: PaginationArg) { articles(pagination: {limit: $n}) "
        "{ title category { articles(pagination: $p) { title } } } }"
    )
    # 50 * (1 + 1 + 30)
    r = gql(configured, text, {"n": 50, "p": {"pageSize": 30}})
    assert only_error(r) == cost_error(1600, 1000)
    # 10 * (1 + 1 + 30), then the defaults: 10 * (1 + 1 + 10)
    assert len(ok(configured, text, {"n": 10, "p": {"pageSize": 30}})["articles"]) == 1
    assert len(ok(configured, text)["articles"]) == 1
    # `limit: -1` and sizes past amountLimit are counted as the resolvers cap them: 100
    r = gql(configured, text, {"n": -1, "p": {"limit": 5000}})
    assert only_error(r) == cost_error(100 * (1 + 1 + 100), 1000)
    # a connection's page counts for its nodes: 1 + 50 * (1 + 20) + 1
    text = (
        "query($size: Int) { articles_connection(pagination: {pageSize: $size}) "
        "{ nodes { tags(pagination: {limit: 20}) { name } } pageInfo { total } } }"
    )
    assert only_error(gql(configured, text, {"size": 50})) == cost_error(1052, 1000)
    # lists without pagination count the default page size: 10 * (1 + 10 + 10 + 1 + 1)
    one = "articles { blocks { __typename } tags { name } seo { metaTitle } cover { url } }"
    four = "{" + " ".join(f"a{i}: {one}" for i in range(4)) + "}"
    data = ok(configured, four)
    assert data["a0"][0]["tags"] == [{"name": f"t{i}"} for i in range(3)]
    five = "{" + " ".join(f"a{i}: {one}" for i in range(5)) + "}"
    assert only_error(gql(configured, five)) == cost_error(5 * 230, 1000)
    # pages of pages multiply: past 10^15 the estimate stops counting
    deep = "{ articles " + "{ category { articles " * 17 + "{ title }" + " } }" * 17 + " }"
    assert only_error(gql(configured, deep)) == cost_error(f"at least {10**15}", 1000)


@pytest.mark.parametrize("configured", [{"maxResponseBytes": 2000}], indirect=True)
def test_answer_bytes(configured: Api) -> None:
    api = configured
    api.create("articles", {"title": "t", "description": "x" * 1500})
    data = ok(api, "{ articles { description } }")
    assert data == {"articles": [{"description": "x" * 1500}]}
    r = gql(api, "{ a: articles { description } b: articles { description } }")
    assert only_error(r, "RESPONSE_TOO_LARGE") == (
        "The answer is larger than the maximum of 2000 bytes (graphql.config.maxResponseBytes)"
    )


# --------------------------------------------------------------------------- production


@pytest.mark.parametrize("env", ["production", "development"])
def test_suggestions_only_outside_production(
    backend: str, app_dir: Path, monkeypatch: pytest.MonkeyPatch, env: str
) -> None:
    """Suggestions name the schema's fields, types and values, which production hides
    with introspection."""
    monkeypatch.setenv("FOLIO_ENV", env)
    for api in make_api(app_dir, database_url(backend, app_dir)):
        hint = env != "production"
        message = only_error(gql(api, "{ articles { titl } }"))
        assert message == 'Cannot query field "titl" on type "Article".' + (
            ' Did you mean "title"?' if hint else ""
        )
        text = "query($f: ArticleFiltersInput) { articles(filters: $f) { title } }"
        message = only_error(gql(api, text, {"f": {"titel": {"eq": "a"}}}), "BAD_USER_INPUT")
        assert message.startswith('Variable "$f" got invalid value')
        assert ("Did you mean" in message) is hint
        message = only_error(gql(api, "{ articles(statu: DRAFT) { title } }"))
        assert message.startswith('Unknown argument "statu" on field "Query.articles".')
        assert ("Did you mean" in message) is hint
