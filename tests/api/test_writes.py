"""Writes through the REST API: create, validation, uniqueness, update, delete, single
types, Draft & Publish and locales, as a client observes them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Api, database_url, failed, make_api, write_outside

TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
ENUM_MESSAGE = "status2 must be one of the following values: idea, writing, review, "
NOT_FOUND = {"status": 404, "name": "NotFoundError", "message": "Not Found", "details": {}}
MISSING_DATA = 'Missing "data" payload in the request body'


# ---------------------------------------------------------------- helpers


def field_errors(r: Any) -> list[tuple[list[str], str]]:
    """(path, message) of each entry of details.errors of a 400 ValidationError."""
    error = failed(r)
    entries = error["details"]["errors"]
    for entry in entries:
        assert entry["name"] == "ValidationError"
    return [(entry["path"], entry["message"]) for entry in entries]


def one_error(r: Any) -> tuple[list[str], str]:
    """The single field error of a response; its message is also the top-level message."""
    errors = field_errors(r)
    assert len(errors) == 1, errors
    assert r.json()["error"]["message"] == errors[0][1]
    return errors[0]


def post_article(api: Api, data: dict[str, Any], query: str = "") -> Any:
    return api.post(f"/api/articles{query}", {"data": data})


def article(api: Api, **data: Any) -> dict[str, Any]:
    return api.create("articles", {"title": "x", **data})


def total(api: Api, path: str) -> int:
    r = api.get(path)
    assert r.status_code == 200, r.text
    return int(r.json()["meta"]["pagination"]["total"])


def counts(api: Api) -> tuple[int, int, int, int]:
    return (
        total(api, "/api/articles"),
        total(api, "/api/articles?status=draft"),
        total(api, "/api/categories"),
        total(api, "/api/events?status=draft"),
    )


# ---------------------------------------------------------------- create


def test_create_is_201_with_meta_and_without_id(api: Api) -> None:
    r = post_article(api, {"title": "Hello"})
    assert r.status_code == 201
    assert r.headers["content-type"] == "application/json; charset=utf-8"
    body = r.json()
    assert set(body) == {"data", "meta"}
    assert body["meta"] == {}
    doc = body["data"]
    assert "id" not in doc
    assert doc["title"] == "Hello"
    assert TIMESTAMP_RE.match(doc["createdAt"])
    assert TIMESTAMP_RE.match(doc["updatedAt"])
    assert TIMESTAMP_RE.match(doc["publishedAt"])
    assert doc["locale"] == "en"


def test_minimal_create_fills_nulls_and_defaults(api: Api) -> None:
    doc = api.create("articles", {"title": "Minimal"})
    assert doc["featured"] is False
    for name in (
        "slug",
        "description",
        "body",
        "content",
        "views",
        "rating",
        "score",
        "bigCount",
        "publishDate",
        "eventAt",
        "startTime",
        "contactEmail",
        "status2",
        "meta",
    ):
        assert doc[name] is None, name


def test_explicit_null_overrides_a_default(api: Api) -> None:
    assert article(api, featured=None)["featured"] is None


def test_types_without_draft_and_publish_or_i18n(api: Api) -> None:
    cat = api.create("categories", {"name": "News"})
    assert list(cat) == ["documentId", "name", "slug", "createdAt", "updatedAt", "publishedAt"]
    assert TIMESTAMP_RE.match(cat["publishedAt"])
    event = api.create("events", {"name": "Party"})
    assert list(event) == [
        "documentId",
        "name",
        "startsAt",
        "capacity",
        "createdAt",
        "updatedAt",
        "publishedAt",
    ]
    assert event["capacity"] is None


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("9007199254740993", "9007199254740993"),
        (123, "123"),
        ("-5", "-5"),
        ("9223372036854775807", "9223372036854775807"),
    ],
)
def test_biginteger_is_returned_as_a_string(api: Api, sent: Any, stored: str) -> None:
    doc = article(api, bigCount=sent)
    assert doc["bigCount"] == stored
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert got["bigCount"] == stored


@pytest.mark.parametrize(
    ("field", "sent", "stored"),
    [
        ("rating", 4.5, 4.5),
        ("rating", 4.567, 4.57),
        ("rating", "3.1", 3.1),
        ("rating", 7, 7),
        ("score", 1.25, 1.25),
        ("score", "2.5", 2.5),
        ("score", 1e20, 1e20),
        ("views", 5, 5),
        ("views", "7", 7),
        ("views", -3, -3),
        ("views", 2147483647, 2147483647),
    ],
)
def test_numbers(api: Api, field: str, sent: Any, stored: Any) -> None:
    doc = article(api, **{field: sent})
    assert doc[field] == stored
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert got[field] == stored


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("2024-03-01T10:20:30.123Z", "2024-03-01T10:20:30.123Z"),
        ("2024-03-01T10:20:30Z", "2024-03-01T10:20:30.000Z"),
        ("2024-03-01T10:20:30+02:00", "2024-03-01T08:20:30.000Z"),
        ("2024-03-01T01:00:00-03:30", "2024-03-01T04:30:00.000Z"),
        ("2024-03-01T00:30:00+01:00", "2024-02-29T23:30:00.000Z"),
        ("2024-03-01", "2024-03-01T00:00:00.000Z"),
        ("2024-03-01T10:20:30.123456Z", "2024-03-01T10:20:30.123Z"),
    ],
)
def test_datetime_is_utc_with_milliseconds(api: Api, sent: str, stored: str) -> None:
    doc = article(api, eventAt=sent)
    assert doc["eventAt"] == stored
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert got["eventAt"] == stored


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("10:20:30", "10:20:30"),
        ("10:20:30.123", "10:20:30.123"),
        ("10:20:30.5", "10:20:30.5"),
        ("00:00:00", "00:00:00"),
        ("23:59:59", "23:59:59"),
    ],
)
def test_time_keeps_its_precision(api: Api, sent: str, stored: str) -> None:
    doc = article(api, startTime=sent)
    assert doc["startTime"] == stored
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert got["startTime"] == stored


@pytest.mark.parametrize(
    ("sent", "stored"),
    [("2024-03-01", "2024-03-01"), ("2024-03-01T10:00:00Z", "2024-03-01")],
)
def test_date(api: Api, sent: str, stored: str) -> None:
    assert article(api, publishDate=sent)["publishDate"] == stored


@pytest.mark.parametrize(("sent", "stored"), [(True, True), ("true", True), (1, True), (0, False)])
def test_boolean_inputs(api: Api, sent: Any, stored: bool) -> None:
    assert article(api, featured=sent)["featured"] is stored


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, 2]},
        {"zeta": 1, "a": 2, "nested": {"y": 1, "x": [True, None, 1.5]}},
        [1, "a", None],
        42,
        "just a string",
        True,
        [],
        {},
    ],
)
def test_json_accepts_any_value(api: Api, value: Any) -> None:
    doc = article(api, meta=value)
    assert doc["meta"] == value
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert got["meta"] == value


def test_json_null(api: Api) -> None:
    assert article(api, meta=None)["meta"] is None


BLOCKS = [
    {"type": "paragraph", "children": [{"type": "text", "text": "ok", "bold": True}]},
    {"type": "heading", "level": 2, "children": [{"type": "text", "text": "h"}]},
    {
        "type": "list",
        "format": "unordered",
        "children": [{"type": "list-item", "children": [{"type": "text", "text": "li"}]}],
    },
    {"type": "quote", "children": [{"type": "text", "text": "q"}]},
    {"type": "code", "children": [{"type": "text", "text": "print(1)"}]},
]


def test_blocks_round_trip(api: Api) -> None:
    doc = article(api, content=BLOCKS)
    assert doc["content"] == BLOCKS
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert got["content"] == BLOCKS


def test_empty_blocks(api: Api) -> None:
    assert article(api, content=[])["content"] == []


def test_text_fields_have_no_255_limit(api: Api) -> None:
    doc = article(api, description="a" * 512, body="b" * 1000)
    assert doc["description"] == "a" * 512
    assert doc["body"] == "b" * 1000


def test_string_of_255_characters_is_accepted(api: Api) -> None:
    assert article(api, title="t" * 255)["title"] == "t" * 255


def test_empty_strings(api: Api) -> None:
    doc = api.create("articles", {"title": "", "slug": ""})
    assert doc["title"] == ""
    assert doc["slug"] == ""


def test_unicode_text_round_trips(api: Api) -> None:
    title = 'Grüße — 日本語 🎉 "quotes" \\ back'
    doc = article(api, title=title)
    assert doc["title"] == title
    assert api.get(f"/api/articles/{doc['documentId']}").json()["data"]["title"] == title


def test_every_create_gets_a_new_document_id(api: Api) -> None:
    ids = {article(api)["documentId"] for _ in range(3)}
    assert len(ids) == 3


def test_event_capacity_min_boundary(api: Api) -> None:
    assert api.create("events", {"name": "E", "capacity": 0})["capacity"] == 0


# ---------------------------------------------------------------- validation


def test_required_missing_on_a_draft_and_publish_type(api: Api) -> None:
    r = post_article(api, {"description": "no title"})
    assert one_error(r) == (
        ["title"],
        "title must be a `string` type, but the final value was: `null`.",
    )


def test_required_null(api: Api) -> None:
    r = post_article(api, {"title": None})
    assert one_error(r) == (
        ["title"],
        "title must be a `string` type, but the final value was: `null`.",
    )
    assert r.json()["error"]["details"]["errors"][0]["value"] is None


def test_required_missing_on_a_type_without_draft_and_publish(api: Api) -> None:
    r = api.post("/api/categories", {"data": {"slug": "x"}})
    assert one_error(r) == (["name"], "name must be defined.")


def test_required_null_on_a_type_without_draft_and_publish(api: Api) -> None:
    r = api.post("/api/categories", {"data": {"name": None}})
    assert one_error(r) == (
        ["name"],
        "name must be a `string` type, but the final value was: `null`.",
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [(123, "`123`"), (True, "`true`"), (1.5, "`1.5`")],
)
def test_string_given_a_non_string(api: Api, value: Any, shown: str) -> None:
    r = post_article(api, {"title": value})
    assert one_error(r) == (
        ["title"],
        f"title must be a `string` type, but the final value was: {shown}.",
    )
    assert r.json()["error"]["details"]["errors"][0]["value"] == value


@pytest.mark.parametrize("value", [{"a": 1}, ["a"]])
def test_string_given_a_structure(api: Api, value: Any) -> None:
    path, message = one_error(post_article(api, {"title": value}))
    assert path == ["title"]
    assert message.startswith("title must be a `string` type, but the final value was: ")


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("views", "abc", '"abc"'),
        ("views", "", '""'),
        ("rating", "x", '"x"'),
        ("score", "abc", '"abc"'),
    ],
)
def test_number_given_a_non_number(api: Api, field: str, value: Any, shown: str) -> None:
    r = post_article(api, {"title": "x", field: value})
    assert one_error(r) == (
        [field],
        f"{field} must be a `number` type, but the final value was: `NaN` "
        f"(cast from the value `{shown}`).",
    )


def test_integer_given_a_fraction(api: Api) -> None:
    r = post_article(api, {"title": "x", "views": 1.5})
    assert one_error(r) == (["views"], "views must be an integer")
    assert r.json()["error"]["details"]["errors"][0]["value"] == 1.5


@pytest.mark.parametrize("value", [3000000000, -3000000000, 2147483648, "99999999999"])
def test_integer_overflow_is_a_validation_error(api: Api, value: Any) -> None:
    r = post_article(api, {"title": "x", "views": value})
    path, _ = one_error(r)
    assert path == ["views"]


@pytest.mark.parametrize("value", ["abc", 1.5, "1.5", "9223372036854775808", True])
def test_biginteger_invalid(api: Api, value: Any) -> None:
    r = post_article(api, {"title": "x", "bigCount": value})
    assert one_error(r) == (["bigCount"], "bigCount must be a valid integer")


def test_decimal_beyond_its_precision_is_a_validation_error(api: Api) -> None:
    r = post_article(api, {"title": "x", "rating": 123456789.5})
    path, _ = one_error(r)
    assert path == ["rating"]


@pytest.mark.parametrize("value", ["bogus", ""])
def test_enumeration(api: Api, value: str) -> None:
    r = post_article(api, {"title": "x", "status2": value})
    assert one_error(r) == (["status2"], ENUM_MESSAGE)
    assert r.json()["error"]["details"]["errors"][0]["value"] == value


@pytest.mark.parametrize("value", ["idea", "writing", "review"])
def test_enumeration_values_accepted(api: Api, value: str) -> None:
    assert article(api, status2=value)["status2"] == value


@pytest.mark.parametrize("value", ["not-an-email", "a@b", "a b@example.com", "@example.com"])
def test_email_invalid(api: Api, value: str) -> None:
    r = post_article(api, {"title": "x", "contactEmail": value})
    assert one_error(r) == (["contactEmail"], "contactEmail must be a valid email")


def test_email_empty(api: Api) -> None:
    r = post_article(api, {"title": "x", "contactEmail": ""})
    assert one_error(r) == (["contactEmail"], "contactEmail cannot be empty")


def test_email_valid(api: Api) -> None:
    assert article(api, contactEmail="john@example.com")["contactEmail"] == "john@example.com"


@pytest.mark.parametrize("value", ["has spaces!", "a/b", "é"])
def test_uid_format(api: Api, value: str) -> None:
    r = post_article(api, {"title": "x", "slug": value})
    assert one_error(r) == (["slug"], 'slug must match the following: "/^[A-Za-z0-9-_.~]*$/"')


def test_uid_allowed_characters(api: Api) -> None:
    assert article(api, slug="Ab-9_.~")["slug"] == "Ab-9_.~"


def test_string_longer_than_255(api: Api) -> None:
    r = post_article(api, {"title": "a" * 256})
    assert one_error(r) == (["title"], "title must be at most 255 characters")


def test_min(api: Api) -> None:
    r = api.post("/api/events", {"data": {"name": "E", "capacity": -1}})
    assert one_error(r) == (["capacity"], "capacity must be greater than or equal to 0")
    assert r.json()["error"]["details"]["errors"][0]["value"] == -1


@pytest.mark.parametrize("value", ["yes", "no", 2, "maybe"])
def test_boolean_invalid(api: Api, value: Any) -> None:
    r = post_article(api, {"title": "x", "featured": value})
    shown = json.dumps(value)
    assert one_error(r) == (
        ["featured"],
        f"featured must be a `boolean` type, but the final value was: `{shown}`.",
    )


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("publishDate", "20240301", "Invalid format, expected yyyy-MM-dd"),
        ("publishDate", "2024-13-45", "Invalid format, expected yyyy-MM-dd"),
        ("publishDate", "2024-02-30", "Invalid date"),
        ("eventAt", "not a date", "Invalid format, expected a timestamp or an ISO date"),
        ("startTime", "10:20", "Invalid time format, expected HH:mm:ss.SSS"),
        ("startTime", "25:00:00", "Invalid time format, expected HH:mm:ss.SSS"),
    ],
)
def test_date_and_time_formats(api: Api, field: str, value: str, message: str) -> None:
    error = failed(post_article(api, {"title": "x", field: value}))
    assert error["message"] == message


def test_invalid_key(api: Api) -> None:
    error = failed(post_article(api, {"title": "x", "nope": 1}))
    assert error["message"] == "Invalid key nope"
    assert error["details"] == {"key": "nope", "path": None, "source": "body"}


def test_invalid_key_is_reported_before_other_problems(api: Api) -> None:
    error = failed(post_article(api, {"title": "x", "nope": 1, "views": "abc"}))
    assert error["message"] == "Invalid key nope"
    assert error["details"] == {"key": "nope", "path": None, "source": "body"}


def test_only_the_first_invalid_key_is_reported(api: Api) -> None:
    error = failed(post_article(api, {"title": "x", "nope": 1, "nope2": 2}))
    assert error["message"] == "Invalid key nope"
    assert error["details"]["key"] == "nope"


@pytest.mark.parametrize("key", ["status", "__component"])
def test_non_attribute_keys_are_invalid(api: Api, key: str) -> None:
    error = failed(post_article(api, {"title": "x", key: "draft"}))
    assert error["message"] == f"Invalid key {key}"
    assert error["details"] == {"key": key, "path": None, "source": "body"}


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("id", 999),
        ("documentId", "custom"),
        ("createdAt", "2020-01-01T00:00:00.000Z"),
        ("updatedAt", "2020-01-01T00:00:00.000Z"),
    ],
)
def test_system_fields_cannot_be_written(api: Api, key: str, value: Any) -> None:
    before = counts(api)
    error = failed(post_article(api, {"title": "keytest", key: value}))
    assert error["message"] == f"Invalid key {key}"
    assert error["details"]["key"] == key
    assert error["details"]["source"] == "body"
    assert counts(api) == before


def test_system_fields_cannot_be_written_by_update(api: Api) -> None:
    doc = article(api)
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": {"documentId": "other"}})
    assert failed(r)["message"] == "Invalid key documentId"
    assert api.get(f"/api/articles/{doc['documentId']}").status_code == 200


def test_published_at_in_data_is_ignored(api: Api) -> None:
    doc = article(api, publishedAt=None)
    assert TIMESTAMP_RE.match(doc["publishedAt"])
    got = api.get(f"/api/articles/{doc['documentId']}")
    assert got.status_code == 200


def test_several_errors_are_reported_together(api: Api) -> None:
    r = post_article(api, {"title": 123, "views": "abc", "status2": "bogus"})
    error = failed(r)
    assert error["message"] == "3 errors occurred"
    assert dict((tuple(p), m) for p, m in field_errors(r)) == {
        ("title",): "title must be a `string` type, but the final value was: `123`.",
        ("views",): "views must be a `number` type, but the final value was: `NaN` "
        '(cast from the value `"abc"`).',
        ("status2",): ENUM_MESSAGE,
    }


def test_several_errors_are_listed_in_schema_order(api: Api) -> None:
    r = post_article(
        api,
        {
            "status2": "bogus",
            "bigCount": "z",
            "featured": "maybe",
            "score": "y",
            "views": "abc",
            "title": 123,
            "rating": "x",
        },
    )
    assert failed(r)["message"] == "7 errors occurred"
    paths = [p for p, _ in field_errors(r)]
    assert paths == [
        ["title"],
        ["featured"],
        ["views"],
        ["rating"],
        ["score"],
        ["bigCount"],
        ["status2"],
    ]


def test_missing_required_reported_with_other_errors(api: Api) -> None:
    r = api.post("/api/events", {"data": {"capacity": -1}})
    assert failed(r)["message"] == "2 errors occurred"
    assert field_errors(r) == [
        (["name"], "name must be a `string` type, but the final value was: `null`."),
        (["capacity"], "capacity must be greater than or equal to 0"),
    ]


def test_several_errors_on_a_type_without_draft_and_publish(api: Api) -> None:
    r = api.post("/api/authors", {"data": {"name": None, "email": "bad", "bio": 5}})
    assert failed(r)["message"] == "3 errors occurred"
    assert field_errors(r) == [
        (["name"], "name must be a `string` type, but the final value was: `null`."),
        (["email"], "email must be a valid email"),
        (["bio"], "bio must be a `string` type, but the final value was: `5`."),
    ]


@pytest.mark.parametrize("block", [{"type": "bogus"}, 1, "text", None, {"children": []}])
def test_blocks_node_of_invalid_type(api: Api, block: Any) -> None:
    r = post_article(api, {"title": "x", "content": [block]})
    assert one_error(r) == (["content", "0"], "Block node is of invalid type")


def test_blocks_invalid_node_reports_its_index(api: Api) -> None:
    content = [BLOCKS[0], {"type": "bogus", "children": []}]
    r = post_article(api, {"title": "x", "content": content})
    assert one_error(r) == (["content", "1"], "Block node is of invalid type")


def test_blocks_children_required(api: Api) -> None:
    r = post_article(api, {"title": "x", "content": [{"type": "paragraph"}]})
    assert one_error(r) == (["content", "0", "children"], "content[0].children is a required field")


@pytest.mark.parametrize("value", ["plain string", {"a": 1}, 5])
def test_blocks_that_are_not_a_list_are_refused(api: Api, value: Any) -> None:
    before = counts(api)
    path, _ = one_error(post_article(api, {"title": "x", "content": value}))
    assert path == ["content"]
    assert counts(api) == before


@pytest.mark.parametrize(
    "body",
    [{"data": 5}, {"data": "str"}, {"data": None}, {}, [], {"date": {"title": "x"}}],
)
def test_missing_data_payload(api: Api, body: Any) -> None:
    r = api.post("/api/articles", content=json.dumps(body).encode(), headers=JSON_HEADERS)
    error = failed(r)
    assert error["message"] == MISSING_DATA
    assert error["details"] == {}


def test_missing_body(api: Api) -> None:
    error = failed(api.post("/api/articles"))
    assert error["message"] == MISSING_DATA
    assert error["details"] == {}


JSON_HEADERS = {"content-type": "application/json"}


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "application/jsonx", "text/json"],
)
def test_a_body_that_is_not_json_is_absent(api: Api, content_type: str | None) -> None:
    """Only a JSON content type is parsed: any other body is no payload at all (even when
    it holds JSON)."""
    headers = {} if content_type is None else {"content-type": content_type}
    body = json.dumps({"data": {"title": "T"}}).encode()
    # the message says how to send it (tests/api/test_content_type_hint.py)
    sent = "without a Content-Type" if content_type is None else f"as {content_type}"
    missing = (
        f"{MISSING_DATA} (the body was sent {sent}, not read as JSON: send Content-Type: "
        "application/json)"
    )
    before = counts(api)
    error = failed(api.post("/api/articles", content=body, headers=headers))
    assert (error["message"], error["details"]) == (missing, {})
    doc = article(api, title="Before")
    r = api.put(f"/api/articles/{doc['documentId']}", content=body, headers=headers)
    assert failed(r)["message"] == missing
    assert api.get(f"/api/articles/{doc['documentId']}").json()["data"]["title"] == "Before"
    # not parsed: a body that is not valid JSON is no syntax error either
    error = failed(api.post("/api/articles", content=b"{not json", headers=headers))
    assert error["message"] == missing
    assert counts(api)[0] == before[0] + 1


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/json;charset=UTF-8",
        "application/vnd.api+json",
        "application/merge-patch+json; charset=utf-8",
    ],
)
def test_json_content_types(api: Api, content_type: str) -> None:
    body = json.dumps({"data": {"title": "T"}}).encode()
    r = api.post("/api/articles", content=body, headers={"content-type": content_type})
    assert r.status_code == 201, r.text
    assert r.json()["data"]["title"] == "T"


@pytest.mark.parametrize(
    "raw", [b'{"data":{', b'{"data":', b"abc", b'{"data":{"title":"x",}}', b"{'data':1}"]
)
def test_malformed_json(api: Api, raw: bytes) -> None:
    before = counts(api)
    r = api.post("/api/articles", content=raw, headers=JSON_HEADERS)
    error = failed(r, 400, "SyntaxError")
    assert isinstance(error["message"], str) and error["message"]
    assert counts(api) == before


def test_malformed_json_on_update(api: Api) -> None:
    doc = article(api, views=1)
    r = api.put(f"/api/articles/{doc['documentId']}", content=b'{"data":', headers=JSON_HEADERS)
    failed(r, 400, "SyntaxError")
    assert api.get(f"/api/articles/{doc['documentId']}").json()["data"]["views"] == 1


# ---------------------------------------------------------------- unique


def test_unique_on_create(api: Api) -> None:
    api.create("categories", {"name": "Dup"})
    before = counts(api)
    r = api.post("/api/categories", {"data": {"name": "Dup"}})
    assert one_error(r) == (["name"], "This attribute must be unique")
    assert r.json()["error"]["details"]["errors"][0]["value"] == "Dup"
    assert counts(api) == before


def test_uid_is_unique(api: Api) -> None:
    api.create("categories", {"name": "Dup2", "slug": "dup"})
    r = api.post("/api/categories", {"data": {"name": "Dup3", "slug": "dup"}})
    assert one_error(r) == (["slug"], "This attribute must be unique")


def test_unique_is_case_sensitive_and_null_is_not_a_duplicate(api: Api) -> None:
    api.create("categories", {"name": "Dup"})
    api.create("categories", {"name": "dup"})
    api.create("categories", {"name": "A"})
    api.create("categories", {"name": "B"})
    assert total(api, "/api/categories") == 4


def test_unique_on_update(api: Api) -> None:
    first = api.create("categories", {"name": "Dup", "slug": "first"})
    api.create("categories", {"name": "Dup2"})
    path = f"/api/categories/{first['documentId']}"
    r = api.put(path, {"data": {"name": "Dup2", "slug": "changed"}})
    assert one_error(r) == (["name"], "This attribute must be unique")
    got = api.get(path).json()["data"]
    assert got["name"] == "Dup"
    assert got["slug"] == "first"


def test_unique_update_to_its_own_value(api: Api) -> None:
    doc = api.create("categories", {"name": "Same"})
    r = api.put(f"/api/categories/{doc['documentId']}", {"data": {"name": "Same"}})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["name"] == "Same"


def test_unique_value_is_free_again_after_delete(api: Api) -> None:
    doc = api.create("categories", {"name": "Reuse"})
    assert api.delete(f"/api/categories/{doc['documentId']}").status_code == 204
    api.create("categories", {"name": "Reuse"})


def test_unique_uid_on_a_draft_and_publish_type(api: Api) -> None:
    article(api, slug="same")
    r = post_article(api, {"title": "y", "slug": "same"})
    assert one_error(r) == (["slug"], "This attribute must be unique")
    # the document's own draft and published versions share the value
    doc = article(api, slug="other")
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": {"views": 3}})
    assert r.status_code == 200, r.text


# ---------------------------------------------------------------- failed writes


@pytest.mark.parametrize(
    ("plural", "data"),
    [
        ("articles", {"title": 123}),
        ("articles", {"title": "x", "views": "abc"}),
        ("articles", {"title": "x", "nope": 1}),
        ("articles", {"title": "x", "content": [{"type": "paragraph"}]}),
        ("articles", {"title": "x", "views": 3000000000}),
        ("events", {"name": "E", "capacity": -5}),
        ("categories", {"name": None}),
    ],
)
def test_a_failed_create_changes_nothing(api: Api, plural: str, data: dict[str, Any]) -> None:
    api.create("categories", {"name": "Existing"})
    article(api, title="kept")
    before = counts(api)
    r = api.post(f"/api/{plural}", {"data": data})
    assert r.status_code == 400, r.text
    assert counts(api) == before


def test_a_failed_update_changes_nothing(api: Api) -> None:
    doc = article(api, title="Keep", views=1, description="d")
    path = f"/api/articles/{doc['documentId']}"
    before = api.get(path).json()["data"]
    draft_before = api.get(f"{path}?status=draft").json()["data"]
    for data in (
        {"views": 9, "title": None},
        {"views": 9, "status2": "bogus"},
        {"views": 9, "nope": 1},
        {"description": None, "contactEmail": "bad"},
    ):
        r = api.put(path, {"data": data})
        assert r.status_code == 400, r.text
    assert api.get(path).json()["data"] == before
    assert api.get(f"{path}?status=draft").json()["data"] == draft_before
    assert counts(api)[:2] == (1, 1)


# ---------------------------------------------------------------- update


def test_update_is_partial_and_returns_the_document(api: Api) -> None:
    doc = article(api, title="Hello", description="First", views=1, featured=True)
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": {"views": 11}})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/json; charset=utf-8"
    body = r.json()
    assert body["meta"] == {}
    got = body["data"]
    assert isinstance(got["id"], int)
    assert got["documentId"] == doc["documentId"]
    assert got["views"] == 11
    assert got["title"] == "Hello"
    assert got["description"] == "First"
    assert got["featured"] is True
    assert got["createdAt"] == doc["createdAt"]
    assert got["locale"] == "en"
    assert api.get(f"/api/articles/{doc['documentId']}").json()["data"] == got


def test_update_null_clears(api: Api) -> None:
    doc = article(api, description="First", meta={"a": 1}, views=3, featured=True)
    r = api.put(
        f"/api/articles/{doc['documentId']}",
        {"data": {"description": None, "meta": None, "views": None, "featured": None}},
    )
    assert r.status_code == 200, r.text
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert got["description"] is None
    assert got["meta"] is None
    assert got["views"] is None
    assert got["featured"] is None
    assert got["title"] == "x"


def test_update_every_scalar(api: Api) -> None:
    doc = article(api)
    data = {
        "title": "New",
        "slug": "new",
        "description": "d",
        "body": "# b",
        "content": BLOCKS[:1],
        "featured": True,
        "views": 2,
        "rating": 1.234,
        "score": 0.5,
        "bigCount": 77,
        "publishDate": "2025-12-31",
        "eventAt": "2025-12-31T23:59:59+01:00",
        "startTime": "08:00:00",
        "contactEmail": "a@example.org",
        "status2": "review",
        "meta": [1],
    }
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": data})
    assert r.status_code == 200, r.text
    got = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    expected = {
        **data,
        "rating": 1.23,
        "bigCount": "77",
        "eventAt": "2025-12-31T22:59:59.000Z",
    }
    assert {k: got[k] for k in data} == expected


def test_update_with_empty_data(api: Api) -> None:
    doc = article(api, views=4)
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": {}})
    assert r.status_code == 200, r.text
    got = r.json()["data"]
    assert got["views"] == 4
    assert got["title"] == "x"


def test_update_absent_required_field_is_fine(api: Api) -> None:
    doc = api.create("categories", {"name": "N"})
    r = api.put(f"/api/categories/{doc['documentId']}", {"data": {"slug": "n"}})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["name"] == "N"


def test_update_required_to_null(api: Api) -> None:
    doc = api.create("categories", {"name": "N"})
    r = api.put(f"/api/categories/{doc['documentId']}", {"data": {"name": None}})
    assert one_error(r) == (
        ["name"],
        "name must be a `string` type, but the final value was: `null`.",
    )


def test_update_validation(api: Api) -> None:
    doc = article(api)
    path = f"/api/articles/{doc['documentId']}"
    assert one_error(api.put(path, {"data": {"title": 123}})) == (
        ["title"],
        "title must be a `string` type, but the final value was: `123`.",
    )
    assert one_error(api.put(path, {"data": {"contactEmail": "bad"}})) == (
        ["contactEmail"],
        "contactEmail must be a valid email",
    )
    error = failed(api.put(path, {"data": {"nope": 1}}))
    assert error["message"] == "Invalid key nope"
    assert error["details"] == {"key": "nope", "path": None, "source": "body"}


def test_update_without_data(api: Api) -> None:
    doc = article(api)
    error = failed(api.put(f"/api/articles/{doc['documentId']}", {}))
    assert error["message"] == MISSING_DATA
    assert error["details"] == {}


def test_update_keeps_the_id_on_a_type_without_draft_and_publish(api: Api) -> None:
    doc = api.create("categories", {"name": "N"})
    path = f"/api/categories/{doc['documentId']}"
    first = api.get(path).json()["data"]["id"]
    r = api.put(path, {"data": {"name": "M"}})
    assert r.json()["data"]["id"] == first
    assert r.json()["data"]["createdAt"] == doc["createdAt"]


def test_update_unknown_document(api: Api) -> None:
    r = api.put("/api/articles/nonexistentdocid0000000", {"data": {"views": 1}})
    assert failed(r, 404, "NotFoundError") == NOT_FOUND
    r = api.put("/api/categories/nonexistentdocid0000000", {"data": {"name": "x"}})
    assert failed(r, 404, "NotFoundError") == NOT_FOUND
    assert total(api, "/api/categories") == 0


def test_update_unknown_document_checks_the_body_first(api: Api) -> None:
    r = api.put("/api/articles/nonexistentdocid0000000", {"data": {"nope": 1}})
    assert failed(r)["message"] == "Invalid key nope"
    r = api.put("/api/articles/nonexistentdocid0000000", {})
    assert failed(r)["message"] == MISSING_DATA


def test_get_unknown_document(api: Api) -> None:
    r = api.get("/api/articles/nonexistentdocid0000000")
    assert failed(r, 404, "NotFoundError") == NOT_FOUND


# ---------------------------------------------------------------- delete


def test_delete(api: Api) -> None:
    doc = article(api, title="To Delete")
    keep = article(api, title="Keep")
    r = api.delete(f"/api/articles/{doc['documentId']}")
    assert r.status_code == 204
    assert r.content == b""
    assert "content-type" not in r.headers
    assert api.get(f"/api/articles/{doc['documentId']}").status_code == 404
    assert api.get(f"/api/articles/{doc['documentId']}?status=draft").status_code == 404
    assert api.get(f"/api/articles/{keep['documentId']}").status_code == 200
    assert counts(api)[:2] == (1, 1)


def test_delete_unknown_document(api: Api) -> None:
    r = api.delete("/api/articles/nonexistentdocid0000000")
    assert failed(r, 404, "NotFoundError") == NOT_FOUND


def test_delete_twice(api: Api) -> None:
    doc = api.create("categories", {"name": "Once"})
    assert api.delete(f"/api/categories/{doc['documentId']}").status_code == 204
    r = api.delete(f"/api/categories/{doc['documentId']}")
    assert failed(r, 404, "NotFoundError") == NOT_FOUND


def test_delete_a_draft_only_document(api: Api) -> None:
    doc = api.create("articles", {"title": "d"}, "?status=draft")
    assert api.delete(f"/api/articles/{doc['documentId']}").status_code == 204
    assert api.get(f"/api/articles/{doc['documentId']}?status=draft").status_code == 404


# ---------------------------------------------------------------- single types


def test_single_type_with_draft_and_publish(api: Api) -> None:
    r = api.get("/api/global")
    assert failed(r, 404, "NotFoundError") == NOT_FOUND
    assert api.get("/api/global?status=draft").status_code == 404

    r = api.put("/api/global", {"data": {"siteName": "My Site"}})
    assert r.status_code == 200, r.text
    assert r.json()["meta"] == {}
    created = r.json()["data"]
    assert list(created) == [
        "id",
        "documentId",
        "siteName",
        "siteDescription",
        "createdAt",
        "updatedAt",
        "publishedAt",
        "locale",
    ]
    assert created["siteName"] == "My Site"
    assert created["siteDescription"] is None
    assert created["locale"] == "en"
    assert TIMESTAMP_RE.match(created["publishedAt"])
    assert api.get("/api/global").json() == {"data": created, "meta": {}}

    r = api.put("/api/global", {"data": {"siteDescription": "desc"}})
    assert r.status_code == 200, r.text
    updated = r.json()["data"]
    assert updated["documentId"] == created["documentId"]
    assert updated["siteName"] == "My Site"
    assert updated["siteDescription"] == "desc"
    assert updated["createdAt"] == created["createdAt"]
    assert api.get("/api/global").json()["data"] == updated

    r = api.put("/api/global", {"data": {"siteName": None}})
    assert one_error(r) == (
        ["siteName"],
        "siteName must be a `string` type, but the final value was: `null`.",
    )

    r = api.delete("/api/global")
    assert r.status_code == 204
    assert r.content == b""
    assert failed(api.get("/api/global"), 404, "NotFoundError") == NOT_FOUND
    assert api.get("/api/global?status=draft").status_code == 404


def test_single_type_creating_put_enforces_required(api: Api) -> None:
    r = api.put("/api/global", {"data": {"siteDescription": "no name"}})
    assert one_error(r) == (
        ["siteName"],
        "siteName must be a `string` type, but the final value was: `null`.",
    )
    assert api.get("/api/global").status_code == 404
    assert api.get("/api/global?status=draft").status_code == 404


def test_single_type_draft(api: Api) -> None:
    r = api.put("/api/global?status=draft", {"data": {"siteName": "Draft site"}})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["publishedAt"] is None
    assert api.get("/api/global").status_code == 404
    got = api.get("/api/global?status=draft").json()["data"]
    assert got["siteName"] == "Draft site"
    r = api.put("/api/global", {"data": {}})
    assert r.status_code == 200, r.text
    assert api.get("/api/global").json()["data"]["siteName"] == "Draft site"


def test_single_type_locales(api: Api) -> None:
    en = api.put("/api/global", {"data": {"siteName": "Site EN"}}).json()["data"]
    r = api.put("/api/global?locale=fr", {"data": {"siteName": "Site FR"}})
    assert r.status_code == 200, r.text
    fr = r.json()["data"]
    assert fr["locale"] == "fr"
    assert fr["documentId"] == en["documentId"]
    assert api.get("/api/global?locale=fr").json()["data"]["siteName"] == "Site FR"
    assert api.get("/api/global").json()["data"]["siteName"] == "Site EN"
    assert api.delete("/api/global?locale=fr").status_code == 204
    assert api.get("/api/global?locale=fr").status_code == 404
    assert api.get("/api/global").json()["data"]["siteName"] == "Site EN"


def test_single_type_without_draft_and_publish(api: Api) -> None:
    assert failed(api.get("/api/about"), 404, "NotFoundError") == NOT_FOUND
    r = api.put("/api/about", {"data": {"title": "About us"}})
    assert r.status_code == 200, r.text
    first = r.json()["data"]
    assert list(first) == ["id", "documentId", "title", "createdAt", "updatedAt", "publishedAt"]
    assert TIMESTAMP_RE.match(first["publishedAt"])
    r = api.put("/api/about", {"data": {"title": "About us 2"}})
    assert r.status_code == 200, r.text
    second = r.json()["data"]
    assert second["id"] == first["id"]
    assert second["documentId"] == first["documentId"]
    assert second["title"] == "About us 2"
    assert api.get("/api/about").json() == {"data": second, "meta": {}}
    assert api.get("/api/about?status=draft").json()["data"] == second
    assert api.get("/api/about?locale=fr").json()["data"] == second
    r = api.delete("/api/about")
    assert r.status_code == 204
    assert r.content == b""
    assert api.get("/api/about").status_code == 404


def test_single_type_recreated_after_delete(api: Api) -> None:
    first = api.put("/api/about", {"data": {"title": "One"}}).json()["data"]
    assert api.delete("/api/about").status_code == 204
    r = api.put("/api/about", {"data": {"title": "Two"}})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["title"] == "Two"
    assert r.json()["data"]["documentId"] != first["documentId"]


def test_single_type_routes(api: Api) -> None:
    assert api.post("/api/global", {"data": {"siteName": "x"}}).status_code == 405
    assert failed(api.get("/api/globals"), 404, "NotFoundError") == NOT_FOUND
    assert failed(api.get("/api/global/abc"), 404, "NotFoundError") == NOT_FOUND


# ---------------------------------------------------------------- draft & publish


def test_create_a_draft(api: Api) -> None:
    r = api.post("/api/articles?status=draft", {"data": {"title": "Draft Only", "views": 1}})
    assert r.status_code == 201, r.text
    draft = r.json()["data"]
    assert "id" not in draft
    assert draft["publishedAt"] is None
    doc_id = draft["documentId"]
    assert total(api, "/api/articles") == 0
    assert api.get(f"/api/articles/{doc_id}").status_code == 404
    listed = api.get("/api/articles?status=draft").json()["data"]
    assert [d["documentId"] for d in listed] == [doc_id]
    assert listed[0]["publishedAt"] is None
    got = api.get(f"/api/articles/{doc_id}?status=draft").json()["data"]
    assert got["title"] == "Draft Only"
    assert got["publishedAt"] is None


def test_published_create_also_has_a_draft(api: Api) -> None:
    doc = article(api, title="Both")
    draft = api.get(f"/api/articles/{doc['documentId']}?status=draft").json()["data"]
    assert draft["publishedAt"] is None
    assert draft["title"] == "Both"
    published = api.get(f"/api/articles/{doc['documentId']}").json()["data"]
    assert published["publishedAt"] == doc["publishedAt"]


def test_a_draft_may_be_incomplete(api: Api) -> None:
    r = api.post("/api/articles?status=draft", {"data": {"description": "no title yet"}})
    assert r.status_code == 201, r.text
    assert r.json()["data"]["title"] is None
    assert r.json()["data"]["publishedAt"] is None


def test_a_plain_update_publishes_a_draft(api: Api) -> None:
    draft = api.create("articles", {"title": "Draft Only", "views": 1}, "?status=draft")
    doc_id = draft["documentId"]
    r = api.put(f"/api/articles/{doc_id}", {"data": {"views": 2}})
    assert r.status_code == 200, r.text
    published = r.json()["data"]
    assert TIMESTAMP_RE.match(published["publishedAt"])
    assert published["views"] == 2
    listed = api.get("/api/articles").json()["data"]
    assert [d["documentId"] for d in listed] == [doc_id]
    assert api.get(f"/api/articles/{doc_id}").json()["data"]["views"] == 2
    assert api.get(f"/api/articles/{doc_id}?status=draft").json()["data"]["views"] == 2


def test_a_draft_update_leaves_the_published_version(api: Api) -> None:
    doc = article(api, views=1)
    doc_id = doc["documentId"]
    r = api.put(f"/api/articles/{doc_id}?status=draft", {"data": {"views": 3}})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["publishedAt"] is None
    assert r.json()["data"]["views"] == 3
    assert api.get(f"/api/articles/{doc_id}").json()["data"]["views"] == 1
    assert api.get(f"/api/articles/{doc_id}?status=draft").json()["data"]["views"] == 3
    assert total(api, "/api/articles") == 1


@pytest.mark.parametrize("value", ["foo", "drafts"])
def test_invalid_status(api: Api, value: str) -> None:
    article(api)
    query = f"status={value}"
    failed(api.get(f"/api/articles?{query}"))
    failed(api.get(f"/api/articles/nonexistentdocid0000000?{query}"))
    failed(api.post(f"/api/articles?{query}", {"data": {"title": "y"}}))
    assert counts(api)[:2] == (1, 1)


def test_status_published(api: Api) -> None:
    article(api)
    api.create("articles", {"title": "d"}, "?status=draft")
    assert total(api, "/api/articles?status=published") == 1
    assert total(api, "/api/articles?status=draft") == 2


# ---------------------------------------------------------------- locales


def test_list_in_another_locale_is_empty(api: Api) -> None:
    article(api, title="Hello")
    r = api.get("/api/articles?locale=fr")
    assert r.status_code == 200
    assert r.json() == {
        "data": [],
        "meta": {"pagination": {"page": 1, "pageSize": 25, "pageCount": 0, "total": 0}},
    }


@pytest.mark.parametrize("query", ["?locale=fr", ""])
def test_create_in_a_locale(api: Api, query: str) -> None:
    data: dict[str, Any] = {"title": "Seulement FR"}
    if not query:
        data["locale"] = "fr"
    r = api.post(f"/api/articles{query}", {"data": data})
    assert r.status_code == 201, r.text
    doc = r.json()["data"]
    assert doc["locale"] == "fr"
    fr = api.get("/api/articles?locale=fr").json()["data"]
    assert [d["documentId"] for d in fr] == [doc["documentId"]]
    assert total(api, "/api/articles") == 0
    assert api.get(f"/api/articles/{doc['documentId']}").status_code == 404
    got = api.get(f"/api/articles/{doc['documentId']}?locale=fr").json()["data"]
    assert got["title"] == "Seulement FR"
    assert got["locale"] == "fr"


def test_update_creates_a_locale_version(api: Api) -> None:
    en = article(api, title="Hello World", views=11)
    doc_id = en["documentId"]
    r = api.put(f"/api/articles/{doc_id}?locale=fr", {"data": {"title": "Bonjour"}})
    assert r.status_code == 200, r.text
    fr = r.json()["data"]
    assert fr["documentId"] == doc_id
    assert fr["locale"] == "fr"
    assert fr["title"] == "Bonjour"
    assert fr["views"] is None
    assert api.get(f"/api/articles/{doc_id}").json()["data"]["title"] == "Hello World"
    assert api.get(f"/api/articles/{doc_id}?locale=de").status_code == 404


def test_delete_one_locale_or_all(api: Api) -> None:
    doc_id = article(api, title="Multi EN")["documentId"]
    api.put(f"/api/articles/{doc_id}?locale=fr", {"data": {"title": "Multi FR"}})
    api.put(f"/api/articles/{doc_id}?locale=de", {"data": {"title": "Multi DE"}})
    assert api.delete(f"/api/articles/{doc_id}?locale=fr").status_code == 204
    assert api.get(f"/api/articles/{doc_id}?locale=fr").status_code == 404
    assert api.get(f"/api/articles/{doc_id}").status_code == 200
    assert api.get(f"/api/articles/{doc_id}?locale=de").status_code == 200
    assert api.delete(f"/api/articles/{doc_id}").status_code == 204
    for locale in ("en", "de"):
        assert api.get(f"/api/articles/{doc_id}?locale={locale}").status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/articles?locale=xx", None),
        ("get", "/api/articles/nonexistentdocid0000000?locale=xx", None),
        ("post", "/api/articles?locale=xx", {"data": {"title": "XX"}}),
        ("post", "/api/articles", {"data": {"title": "XX", "locale": "xx"}}),
        ("get", "/api/global?locale=xx", None),
    ],
)
def test_unknown_locale(api: Api, method: str, path: str, body: Any) -> None:
    before = counts(api)
    r = api.get(path) if method == "get" else api.post(path, body)
    error = failed(r)
    assert "locale" in error["message"].lower()
    assert counts(api) == before


def test_unknown_locale_on_update(api: Api) -> None:
    doc = article(api)
    r = api.put(f"/api/articles/{doc['documentId']}?locale=xx", {"data": {"title": "XX"}})
    failed(r)
    assert api.get(f"/api/articles/{doc['documentId']}").json()["data"]["title"] == "x"


def test_types_without_i18n_ignore_locale(api: Api) -> None:
    api.create("categories", {"name": "News"})
    assert total(api, "/api/categories?locale=fr") == 1
    doc = api.create("categories", {"name": "Other"}, "?locale=fr")
    assert "locale" not in doc


# ---------------------------------------------------------------- routes


@pytest.mark.parametrize(
    "path", ["/api/nope", "/api/articles/abc/def", "/api", "/nope", "/api/article"]
)
def test_unknown_route(api: Api, path: str) -> None:
    assert failed(api.get(path), 404, "NotFoundError") == NOT_FOUND


def test_unknown_route_for_writes(api: Api) -> None:
    r = api.post("/api/nope", {"data": {"title": "x"}})
    assert failed(r, 404, "NotFoundError") == NOT_FOUND
    r = api.delete("/api/nope/abc")
    assert failed(r, 404, "NotFoundError") == NOT_FOUND


# ---------------------------------------------------------------- hidden attributes

MEMBER_SCHEMA = {
    "kind": "collectionType",
    "collectionName": "members",
    "info": {"singularName": "member", "pluralName": "members", "displayName": "Member"},
    "options": {"draftAndPublish": False},
    "attributes": {
        "name": {"type": "string", "required": True},
        "note": {"type": "text", "private": True},
        "secret": {"type": "password"},
        "age": {"type": "integer", "private": True},
    },
}


@pytest.fixture
def member_api(backend: str, tmp_path: Path) -> Iterator[Api]:
    app = tmp_path / "members-app"
    schema = app / "src" / "api" / "member" / "content-types" / "member" / "schema.json"
    schema.parent.mkdir(parents=True)
    schema.write_text(json.dumps(MEMBER_SCHEMA))
    yield from make_api(app, database_url(backend, app))


def test_private_and_password_attributes_are_never_returned(member_api: Api) -> None:
    api = member_api
    r = api.post(
        "/api/members", {"data": {"name": "Ann", "note": "hidden", "secret": "pw1", "age": 30}}
    )
    assert r.status_code == 201, r.text
    doc = r.json()["data"]
    assert list(doc) == ["documentId", "name", "createdAt", "updatedAt", "publishedAt"]
    path = f"/api/members/{doc['documentId']}"
    got = api.get(path).json()["data"]
    assert set(got) == {"id", "documentId", "name", "createdAt", "updatedAt", "publishedAt"}
    listed = api.get("/api/members").json()["data"]
    assert set(listed[0]) == set(got)
    r = api.put(path, {"data": {"note": "still hidden", "secret": "pw2"}})
    assert r.status_code == 200, r.text
    assert set(r.json()["data"]) == set(got)
    assert "pw1" not in api.get("/api/members").text
    assert "hidden" not in api.get(path).text


@pytest.mark.parametrize(
    "query",
    [
        "fields=note",
        "fields[0]=secret",
        "filters[note][$eq]=hidden",
        "filters[secret][$null]=true",
        "filters[age][$gt]=1",
        "sort=age",
        "sort=secret:desc",
    ],
)
def test_private_and_password_attributes_cannot_be_queried(member_api: Api, query: str) -> None:
    member_api.create("members", {"name": "Ann", "note": "hidden", "secret": "pw", "age": 3})
    error = failed(member_api.get(f"/api/members?{query}"))
    assert error["message"].startswith("Invalid key")


def test_private_attribute_validation_still_applies(member_api: Api) -> None:
    r = member_api.post("/api/members", {"data": {"name": "Ann", "age": "old"}})
    path, _ = one_error(r)
    assert path == ["age"]
    r = member_api.post("/api/members", {"data": {"name": "Ann", "secret": 5}})
    path, _ = one_error(r)
    assert path == ["secret"]


def test_a_writes_query_parameters_are_checked_before_its_body(api: Api) -> None:
    """A bad query parameter is the error reported, whatever the body holds."""
    r = api.client.post(
        "/api/articles?status=nope",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert "Invalid status" in failed(r)["message"]
    did = api.create("articles", {"title": "T"})["documentId"]
    r = api.client.put(
        f"/api/articles/{did}?locale=xx",
        content=b"{}",
        headers={"content-type": "application/json"},
    )
    assert "Unknown locale" in failed(r)["message"]


@pytest.mark.parametrize("joined", [0, 1, 2])
def test_component_kinds_past_one_statement_read_the_same(
    api: Api, monkeypatch: pytest.MonkeyPatch, joined: int
) -> None:
    """A level's component fields and zones are read in one statement that joins at most
    so many component tables; a zone's kinds past it are read kind by kind, with the same
    answer (fields asked per kind, nested populates, order)."""
    from folio.content.sql import load

    blocks = [
        {"__component": "shared.rich-text", "body": "one"},
        {"__component": "shared.quote", "title": "Q", "body": "two"},
        {"__component": "shared.rich-text", "body": "three"},
    ]
    doc = article(
        api,
        blocks=blocks,
        seo={"metaTitle": "M", "metaDescription": "D"},
        links=[{"label": "a", "url": "https://a.test"}, {"label": "b", "url": "https://b.test"}],
    )
    paths = [
        f"/api/articles/{doc['documentId']}?populate=*",
        "/api/articles?populate[blocks][on][shared.quote][fields][0]=title"
        "&populate[blocks][on][shared.rich-text]=true&populate[links]=true",
    ]
    expected = [api.get(path).json() for path in paths]
    assert [b["body"] for b in expected[0]["data"]["blocks"]] == ["one", "two", "three"]
    monkeypatch.setattr(load, "JOINED_KINDS", joined)
    for path, want in zip(paths, expected, strict=True):
        assert api.get(path).json() == want


# ---------------------------------------------------------------- one-row creates


def test_a_create_of_one_row_is_one_or_two_statements_answering_as_a_read(
    api: Api, backend: str
) -> None:
    """A new document with no relation, component, media, unique value or published copy
    is one INSERT whose answer is the row as a later read gives it, every kind included,
    and the INSERT of its event in the outbox: on PostgreSQL both in one statement."""
    statements = 1 if backend == "postgres" else 2
    values = {
        "title": "Lone draft",
        "description": 'Ünïcode and "quotes"',
        "body": "# Heading\n\ntext",
        "content": [{"type": "paragraph", "children": [{"type": "text", "text": "x"}]}],
        "featured": True,
        "views": 12,
        "rating": 4.25,
        "score": 0.5,
        "bigCount": "9007199254740993",
        "publishDate": "2024-02-29",
        "eventAt": "2024-01-02T03:04:05.678Z",
        "startTime": "10:11:12.5",
        "contactEmail": "a@example.com",
        "status2": "review",
        "meta": {"b": [1, 2], "a": None},
    }
    before = api.statements()
    r = api.post("/api/articles?status=draft", {"data": values})
    assert api.statements() - before == statements
    assert r.status_code == 201, r.text
    created = r.json()["data"]
    read = api.get(f"/api/articles/{created['documentId']}?status=draft").json()["data"]
    read.pop("id")  # a create answers without it
    assert created == read
    assert created["publishedAt"] is None
    for name, value in values.items():
        assert created[name] == value, name

    before = api.statements()
    tag = api.create("tags", {"name": "lone"})
    assert api.statements() - before == statements
    read = api.get(f"/api/tags/{tag['documentId']}").json()["data"]
    read.pop("id")
    assert read == tag
    assert TIMESTAMP_RE.match(tag["publishedAt"])


def test_a_create_with_more_than_its_row_still_writes_everything(api: Api) -> None:
    tag = api.create("tags", {"name": "t1"})
    before = api.statements()
    doc = api.create(
        "articles", {"title": "Linked", "tags": [tag["documentId"]]}, "?status=draft&populate=tags"
    )
    assert api.statements() - before > 2
    assert [t["name"] for t in doc["tags"]] == ["t1"]
    # a unique value is checked first: the second create of one slug is refused
    api.create("categories", {"name": "One", "slug": "one"})
    r = api.post("/api/categories", {"data": {"name": "Two", "slug": "one"}})
    assert one_error(r) == (["slug"], "This attribute must be unique")
    assert len(api.get("/api/categories").json()["data"]) == 1


# ---------------------------------------------------------------- totals after writes


def test_a_lists_total_follows_every_write(api: Api) -> None:
    """The total of a list (kept between reads on SQLite while nothing is written) follows
    creates, updates, deletes, and on SQLite the writes of another connection to the file."""

    def total(query: str = "") -> int:
        r = api.get(f"/api/articles?status=draft{query}")
        assert r.status_code == 200, r.text
        return int(r.json()["meta"]["pagination"]["total"])

    filtered = "&filters[title][$containsi]=needle"
    assert (total(), total(filtered)) == (0, 0)
    first = api.create("articles", {"title": "a needle"}, "?status=draft")
    assert (total(), total(filtered)) == (1, 1)
    assert (total(), total(filtered)) == (1, 1)
    tag = api.create("tags", {"name": "t"})
    # a write with links (run as a whole program, not as one statement)
    api.create(
        "articles", {"title": "another needle", "tags": [tag["documentId"]]}, "?status=draft"
    )
    assert (total(), total(filtered)) == (2, 2)
    r = api.put(f"/api/articles/{first['documentId']}?status=draft", {"data": {"title": "hay"}})
    assert r.status_code == 200, r.text
    assert (total(), total(filtered)) == (2, 1)
    assert api.delete(f"/api/articles/{first['documentId']}").status_code == 204
    assert (total(), total(filtered)) == (1, 1)
    # a write of another process (another connection to the same database)
    if api.folio.db.dialect.name == "sqlite":
        import sqlite3

        other = sqlite3.connect(api.folio.db.path)  # type: ignore[attr-defined]
        with other:
            other.execute(
                "INSERT INTO articles (document_id, locale, title, created_at, updated_at) "
                "VALUES ('otherconnection0000000000', 'en', 'needle too', "
                "'2024-01-01 00:00:00.000', '2024-01-01 00:00:00.000')"
            )
        other.close()
    else:
        write_outside(
            api.folio.db.url,
            "INSERT INTO articles (document_id, locale, title, created_at, updated_at) "
            "VALUES ('otherconnection0000000000', 'en', 'needle too', CURRENT_TIMESTAMP, "
            "CURRENT_TIMESTAMP)",
        )
    assert (total(), total(filtered)) == (2, 2)
    # a page past the end still says the total
    r = api.get("/api/articles?status=draft&pagination[page]=9")
    assert r.json()["data"] == []
    assert r.json()["meta"]["pagination"]["total"] == 2
