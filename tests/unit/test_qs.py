"""The query-string parser follows the bracket syntax of the `qs` library (with the array
limit of 100 used by the content API)."""

from __future__ import annotations

from typing import Any

import pytest

from folio.http.rest.qs import parse_qs


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", {}),
        ("a=b", {"a": "b"}),
        ("a=b&c=d", {"a": "b", "c": "d"}),
        ("a=", {"a": ""}),
        ("a==b", {"a": "=b"}),
        ("&&a=b&", {"a": "b"}),
        ("=b", {}),
    ],
)
def test_flat(query: str, expected: dict[str, Any]) -> None:
    assert parse_qs(query) == expected


def test_a_key_without_equals_sign_is_null() -> None:
    # as `qs` parses it with strictNullHandling
    assert parse_qs("a") == {"a": None}
    assert parse_qs("a&b=") == {"a": None, "b": ""}
    assert parse_qs("a[b]") == {"a": {"b": None}}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a[b]=c", {"a": {"b": "c"}}),
        ("a[b][c][d]=e", {"a": {"b": {"c": {"d": "e"}}}}),
        ("a[b]=c&a[d]=e", {"a": {"b": "c", "d": "e"}}),
        (
            "filters[title][$eq]=x&filters[views][$gt]=3",
            {"filters": {"title": {"$eq": "x"}, "views": {"$gt": "3"}}},
        ),
        (
            "filters[$or][0][title][$eq]=a&filters[$or][1][views][$lt]=2",
            {"filters": {"$or": [{"title": {"$eq": "a"}}, {"views": {"$lt": "2"}}]}},
        ),
        (
            "pagination[page]=2&pagination[pageSize]=10",
            {"pagination": {"page": "2", "pageSize": "10"}},
        ),
    ],
)
def test_nesting(query: str, expected: dict[str, Any]) -> None:
    assert parse_qs(query) == expected


def test_arrays_by_index() -> None:
    assert parse_qs("a[0]=x&a[1]=y&a[2]=z") == {"a": ["x", "y", "z"]}


def test_arrays_by_index_in_any_order() -> None:
    assert parse_qs("a[2]=z&a[0]=x&a[1]=y") == {"a": ["x", "y", "z"]}


def test_arrays_of_objects() -> None:
    assert parse_qs("sort[0]=title:asc&sort[1]=views:desc") == {"sort": ["title:asc", "views:desc"]}
    assert parse_qs("a[0][b]=1&a[0][c]=2&a[1][b]=3") == {"a": [{"b": "1", "c": "2"}, {"b": "3"}]}


def test_nested_arrays() -> None:
    query = "filters[id][$in][0]=1&filters[id][$in][1]=2"
    assert parse_qs(query) == {"filters": {"id": {"$in": ["1", "2"]}}}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a[1]=x&a[5]=y", ["x", "y"]),
        ("a[5]=y&a[1]=x", ["x", "y"]),
        ("a[3]=x", ["x"]),
        ("a[100]=x", ["x"]),
        ("a[0]=x&a[99]=z&a[50]=y", ["x", "y", "z"]),
    ],
)
def test_sparse_arrays_are_compacted(query: str, expected: list[str]) -> None:
    assert parse_qs(query) == {"a": expected}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a[]=x", {"a": ["x"]}),
        ("a[]=x&a[]=y&a[]=z", {"a": ["x", "y", "z"]}),
        ("a[b][]=x&a[b][]=y", {"a": {"b": ["x", "y"]}}),
        ("a[0]=x&a[]=y", {"a": ["x", "y"]}),
        ("fields[]=title&fields[]=views", {"fields": ["title", "views"]}),
    ],
)
def test_empty_brackets_push(query: str, expected: dict[str, Any]) -> None:
    assert parse_qs(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a=x&a=y", {"a": ["x", "y"]}),
        ("a=x&a=y&a=z", {"a": ["x", "y", "z"]}),
        ("a[b]=x&a[b]=y", {"a": {"b": ["x", "y"]}}),
        ("a=x&b=1&a=y", {"a": ["x", "y"], "b": "1"}),
    ],
)
def test_repeated_keys_collect(query: str, expected: dict[str, Any]) -> None:
    assert parse_qs(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a%5Bb%5D=c", {"a": {"b": "c"}}),
        ("a%5bb%5d=c", {"a": {"b": "c"}}),
        ("filters%5Btitle%5D%5B%24eq%5D=x", {"filters": {"title": {"$eq": "x"}}}),
        ("a%5B0%5D=x&a%5B1%5D=y", {"a": ["x", "y"]}),
        ("a[b%5D=c", {"a": {"b": "c"}}),
    ],
)
def test_encoded_brackets(query: str, expected: dict[str, Any]) -> None:
    assert parse_qs(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a=hello+world", {"a": "hello world"}),
        ("a=hello%20world", {"a": "hello world"}),
        ("a=1%2B1", {"a": "1+1"}),
        ("a+b=c", {"a b": "c"}),
        ("filters[title][$eq]=Hello%20World", {"filters": {"title": {"$eq": "Hello World"}}}),
        ("a=%26%3D%5B%5D", {"a": "&=[]"}),
        ("a=caf%C3%A9", {"a": "café"}),
        ("a=%E6%97%A5%E6%9C%AC", {"a": "日本"}),
    ],
)
def test_decoding(query: str, expected: dict[str, Any]) -> None:
    assert parse_qs(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a[101]=x", {"a": {"101": "x"}}),
        ("a[1000]=x&a[1001]=y", {"a": {"1000": "x", "1001": "y"}}),
        ("a[0]=x&a[101]=y", {"a": {"0": "x", "101": "y"}}),
    ],
)
def test_indexes_above_the_limit_stay_object_keys(query: str, expected: dict[str, Any]) -> None:
    assert parse_qs(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a[0]=x&a[b]=y", {"a": {"0": "x", "b": "y"}}),
        ("a[b]=y&a[0]=x", {"a": {"b": "y", "0": "x"}}),
        ("a[]=x&a[b]=y", {"a": {"0": "x", "b": "y"}}),
        ("a[01]=x", {"a": {"01": "x"}}),
        ("a[-1]=x", {"a": {"-1": "x"}}),
        ("a[1.5]=x", {"a": {"1.5": "x"}}),
    ],
)
def test_mixed_keys_make_an_object(query: str, expected: dict[str, Any]) -> None:
    assert parse_qs(query) == expected


def test_plain_value_and_nested_value_under_one_key() -> None:
    # qs merges the plain value in under index 0
    assert parse_qs("a=x&a[b]=y") == {"a": {"0": "x", "b": "y"}}


def test_typical_content_api_query() -> None:
    query = (
        "filters[$and][0][title][$containsi]=hello"
        "&filters[$and][1][views][$between][0]=1"
        "&filters[$and][1][views][$between][1]=10"
        "&sort[0]=views:desc&sort[1]=title"
        "&pagination[page]=1&pagination[pageSize]=5"
        "&fields[0]=title&fields[1]=views"
        "&locale=fr&status=draft"
    )
    assert parse_qs(query) == {
        "filters": {
            "$and": [
                {"title": {"$containsi": "hello"}},
                {"views": {"$between": ["1", "10"]}},
            ]
        },
        "sort": ["views:desc", "title"],
        "pagination": {"page": "1", "pageSize": "5"},
        "fields": ["title", "views"],
        "locale": "fr",
        "status": "draft",
    }


def test_values_are_always_strings() -> None:
    parsed = parse_qs("a=1&b=true&c=null&d[0]=2")
    assert parsed == {"a": "1", "b": "true", "c": "null", "d": ["2"]}
