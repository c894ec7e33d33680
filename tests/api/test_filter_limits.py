"""Filter trees, sorts and query strings past their bounds are refused alike on SQLite and
PostgreSQL with a 400 naming the limit and its api.json key, through REST and GraphQL
(which filters through the same parser), before any statement is built; trees at the
bounds answer on both. Before, a thousand `$or` branches or 60 nested `not`s made SQLite
answer 500 ("Expression tree is too large", "parser stack overflow") and 50,000 `in` values
made PostgreSQL answer 500 (too many parameters)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.conftest import Api, database_url, failed, make_api

# sorted, a page's filter is read inside a statement of its own, which SQLite counts twice
LIST = 'query($f: ArticleFiltersInput) { articles(filters: $f, sort: "title") { title } }'


@pytest.fixture
def titled(api: Api) -> Api:
    """Three published articles in one category."""
    news = api.create("categories", {"name": "news"})
    for title in ("a0", "a1", "a2"):
        api.create("articles", {"title": title, "category": news["documentId"]})
    return api


def _gql(api: Api, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    r = api.post("/graphql", {"query": query, "variables": variables or {}})
    assert r.status_code < 500, r.text
    return dict(r.json())


def _refused(body: dict[str, Any], setting: str) -> str:
    """The message of a GraphQL answer refused as bad input past `setting`."""
    assert body.get("data") in (None, {"articles": None}), body
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT", error
    assert f"api.rest.{setting}" in error["message"], error
    return str(error["message"])


def _titles(body: dict[str, Any]) -> list[str]:
    assert "errors" not in body, body
    return sorted(a["title"] for a in body["data"]["articles"])


def _limit(r: Any, setting: str, limit: int) -> str:
    error = failed(r)
    assert error["details"]["setting"] == f"api.rest.{setting}"
    assert error["details"]["limit"] == limit
    assert f"at most {limit} (api.rest.{setting})" in error["message"]
    assert "SELECT" not in r.text
    return str(error["message"])


def _path(hops: int, leaf_article: Any, leaf_category: Any) -> dict[str, Any]:
    """A filter through `hops` relations: article -> category -> articles -> ..."""
    names = (["category", "articles"] * hops)[:hops]
    value: Any = leaf_category if hops % 2 else leaf_article
    for name in reversed(names):
        value = {name: value}
    return dict(value)


def _nots(levels: int, leaf: dict[str, Any]) -> dict[str, Any]:
    value = leaf
    for _ in range(levels):
        value = {"not": value}
    return value


# ------------------------------------------------------------------ conditions


def test_a_thousand_or_branches_are_refused_naming_the_limit(titled: Api) -> None:
    query = "&".join(f"filters[$or][][title][$eq]=x{i}" for i in range(1000))
    message = _limit(titled.get(f"/api/articles?{query}"), "maxFilterConditions", 400)
    assert message.startswith("Too many conditions in filters")
    indexed = "&".join(f"filters[$or][{i}][title][$eq]=x{i}" for i in range(401))
    _limit(titled.get(f"/api/articles?{indexed}"), "maxFilterConditions", 400)


def test_four_hundred_or_branches_answer(titled: Api) -> None:
    query = "&".join(f"filters[$or][][title][$eq]=a{i}" for i in range(400))
    r = titled.get(f"/api/articles?{query}&sort=title")
    assert r.status_code == 200, r.text
    assert [a["title"] for a in r.json()["data"]] == ["a0", "a1", "a2"]


def test_graphql_or_of_five_thousand_branches_is_refused(titled: Api) -> None:
    branches = [{"title": {"eq": f"x{i}"}} for i in range(5000)]
    body = _gql(titled, LIST, {"f": {"or": branches}})
    assert _refused(body, "maxFilterConditions").startswith("Too many conditions in filters")


def test_conditions_inside_relations_count_once_more_for_each(titled: Api) -> None:
    # SQLite counts a nested statement's conditions again at each level up: 134 inside two
    # relations are past what 400 allows, 133 answer on both databases
    def inside_two(n: int) -> dict[str, Any]:
        return {"category": {"articles": {"or": [{"title": {"eq": f"a{i}"}} for i in range(n)]}}}

    assert _titles(_gql(titled, LIST, {"f": inside_two(133)})) == ["a0", "a1", "a2"]
    _refused(_gql(titled, LIST, {"f": inside_two(134)}), "maxFilterConditions")


def test_in_lists_are_bounded_by_their_values(titled: Api) -> None:
    ids = [f"d{i}" for i in range(10_000)]
    assert _titles(_gql(titled, LIST, {"f": {"documentId": {"in": ids}}})) == []
    message = _refused(
        _gql(titled, LIST, {"f": {"documentId": {"in": [*ids, "one more"]}}}),
        "maxFilterValues",
    )
    assert message.startswith("Too many values in filters")


def test_a_populate_filter_is_bounded_too(titled: Api) -> None:
    query = "&".join(f"populate[articles][filters][$or][][title][$eq]=x{i}" for i in range(401))
    _limit(titled.get(f"/api/categories?{query}"), "maxFilterConditions", 400)


# ------------------------------------------------------------------ nesting


def test_graphql_not_nested_200_deep_is_refused(titled: Api) -> None:
    # refused as bad input, by the filters' depth or before by the GraphQL endpoint's own
    # bound on nested input
    body = _gql(titled, LIST, {"f": _nots(200, {"title": {"eq": "a0"}})})
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT", error
    literal = '{title: {eq: "a0"}}'
    for _ in range(200):
        literal = "{not: " + literal + "}"
    body = _gql(titled, "{ articles(filters: " + literal + ") { title } }")
    (error,) = body["errors"]
    assert error["extensions"]["code"] in ("BAD_USER_INPUT", "GRAPHQL_VALIDATION_FAILED"), error
    body = _gql(titled, LIST, {"f": _nots(30, {"title": {"eq": "a0"}})})
    assert "nested too deeply" in _refused(body, "maxFilterDepth")


def test_twenty_nested_nots_answer(titled: Api) -> None:
    # an even number of negations is the condition itself, an odd one its negation
    assert _titles(_gql(titled, LIST, {"f": _nots(20, {"title": {"eq": "a1"}})})) == ["a1"]
    assert _titles(_gql(titled, LIST, {"f": _nots(19, {"title": {"eq": "a1"}})})) == ["a0", "a2"]
    _refused(_gql(titled, LIST, {"f": _nots(21, {"title": {"eq": "a1"}})}), "maxFilterDepth")


def test_relations_count_four_levels_each(titled: Api) -> None:
    # SQLite's parser held 9 nested relations and no more: 5 pass, the 6th is refused
    leaf_article = {"title": {"eq": "a2"}}
    leaf_category = {"name": {"eq": "news"}}
    assert _titles(_gql(titled, LIST, {"f": _path(5, leaf_article, leaf_category)})) == [
        "a0",
        "a1",
        "a2",
    ]
    _refused(_gql(titled, LIST, {"f": _path(6, leaf_article, leaf_category)}), "maxFilterDepth")
    deep = "filters" + "[category][articles]" * 3 + "[title][$eq]=a0"
    _limit(titled.get(f"/api/articles?{deep}"), "maxFilterDepth", 20)
    ok = "filters" + "[category][articles]" * 2 + "[title][$eq]=a0"
    assert titled.get(f"/api/articles?{ok}").status_code == 200


def test_the_deepest_and_largest_tree_within_the_bounds_answers(titled: Api) -> None:
    # 4 relations (16 levels), 3 negations and an `or` (20 levels); 79 conditions inside
    # 4 relations (395 counted)
    def three_nots(branches: list[dict[str, Any]]) -> dict[str, Any]:
        return _nots(3, {"or": branches})

    names = [{"title": {"eq": f"x{i}"}} for i in range(78)]
    # articles of the category of articles of the category of an article not named x<i>
    # or a1 (three negations): every article
    tree = _path(4, three_nots([*names, {"title": {"eq": "a1"}}]), {})
    assert _titles(_gql(titled, LIST, {"f": tree})) == ["a0", "a1", "a2"]
    nowhere = _path(4, three_nots([*names, {"title": {"null": False}}]), {})
    assert _titles(_gql(titled, LIST, {"f": nowhere})) == []
    query = (
        "query($f: ArticleFiltersInput) "
        '{ articles(sort: "title") { category { articles(filters: $f, sort: "title") '
        "{ title } } } }"
    )
    body = _gql(titled, query, {"f": tree})
    assert "errors" not in body, body
    shown = [a["category"]["articles"] for a in body["data"]["articles"]]
    assert shown == [[{"title": "a0"}, {"title": "a1"}, {"title": "a2"}]] * 3


# ------------------------------------------------------------------ sort and query string


def test_sorts_are_bounded(titled: Api) -> None:
    r = titled.get("/api/articles?sort=" + ",".join(["title"] * 101))
    _limit(r, "maxSortFields", 100)
    r = titled.get("/api/articles?sort=" + ",".join(["title:desc"] * 100))
    assert [a["title"] for a in r.json()["data"]] == ["a2", "a1", "a0"]
    five = "category.articles.category.articles.category.name"
    r = titled.get(f"/api/articles?sort={five},title")
    assert [a["title"] for a in r.json()["data"]] == ["a0", "a1", "a2"]
    message = _limit(titled.get(f"/api/articles?sort=category.{five}"), "maxFilterDepth", 20)
    assert message.startswith("The sort path goes through too many relations")


def test_a_query_string_of_more_than_a_thousand_parameters_is_refused(titled: Api) -> None:
    query = "&".join(f"filters[title][$in]=x{i}" for i in range(1001))
    error = failed(titled.get(f"/api/articles?{query}"))
    assert error["message"] == "Too many query parameters: at most 1000"
    query = "&".join(f"filters[title][$in]=a{i}" for i in range(999))
    r = titled.get(f"/api/articles?{query}&sort=title")
    assert [a["title"] for a in r.json()["data"]] == ["a0", "a1", "a2"]


def test_nested_lists_count_as_groups(titled: Api) -> None:
    # a filter written as JSON (as OpenAPI clients write deep objects) may nest lists
    def lists(levels: int) -> str:
        return "[" * levels + '{"title": {"$eq": "a1"}}' + "]" * levels

    r = titled.get(f"/api/articles?filters[$not]={quote(lists(18))}&sort=title")
    assert [a["title"] for a in r.json()["data"]] == ["a0", "a2"]
    _limit(titled.get(f"/api/articles?filters[$not]={quote(lists(20))}"), "maxFilterDepth", 20)


def test_deeply_nested_json_filters_are_refused_naming_the_limit(titled: Api) -> None:
    lists = "[" * 500 + '{"title": {"$eq": "a1"}}' + "]" * 500
    _limit(titled.get(f"/api/articles?filters[$or]={quote(lists)}"), "maxFilterDepth", 20)
    nots = '{"$not": ' * 1000 + '{"title": {"$eq": "a1"}}' + "}" * 1000
    _limit(titled.get(f"/api/articles?filters[$not]={quote(nots)}"), "maxFilterDepth", 20)


def test_deep_brackets_are_one_literal_key(titled: Api) -> None:
    r = titled.get("/api/articles?filters" + "[a]" * 1000 + "=x")
    assert failed(r)["message"] == "Invalid key a"


# ------------------------------------------------------------------ configured bounds


@pytest.fixture
def strict(backend: str, app_dir: Path) -> Iterator[Api]:
    api_json = app_dir / "config" / "api.json"
    config = json.loads(api_json.read_text())
    config["rest"].update(
        {"maxFilterConditions": 3, "maxFilterValues": 4, "maxFilterDepth": 5, "maxSortFields": 2}
    )
    api_json.write_text(json.dumps(config))
    yield from make_api(app_dir, database_url(backend, app_dir))


def test_the_bounds_are_configured_in_api_json(strict: Api) -> None:
    three = "&".join(f"filters[$or][][title][$eq]=x{i}" for i in range(3))
    assert strict.get(f"/api/articles?{three}").status_code == 200
    _limit(strict.get(f"/api/articles?{three}&filters[views][$gt]=1"), "maxFilterConditions", 3)
    assert strict.get("/api/articles?filters[id][$in]=1&filters[id][$in]=2").status_code == 200
    values = "filters[id][$in]=1&filters[id][$in]=2&" + "&".join(
        f"filters[title][$in]={t}" for t in "abc"
    )
    _limit(strict.get(f"/api/articles?{values}"), "maxFilterValues", 4)
    # a relation counts 4 levels: a relation and a negation are 5, two negations more are 6
    assert strict.get("/api/articles?filters[category][$not][name][$eq]=x").status_code == 200
    r = strict.get("/api/articles?filters[$not][category][$not][name][$eq]=x")
    _limit(r, "maxFilterDepth", 5)
    _limit(strict.get("/api/articles?sort=title,views,id"), "maxSortFields", 2)
    body = _gql(strict, LIST, {"f": {"or": [{"title": {"eq": f"x{i}"}} for i in range(4)]}})
    _refused(body, "maxFilterConditions")
